"""The storage interface the bot relies on; SQLite and PostgreSQL implement it.

Chips are never lost: every table step is one unit of work (the new state
snapshot, checked against the version it was computed from, the ledger rows
of its transfers, the updated balances, the messages it must send) that
commits whole or not at all.
Accounts follow :mod:`games.engine`: ``wallet:<user>`` is the player's wallet
in the chat; every other account (``stack:<user>``, ``stake:<user>``,
``bank``, ``pot``, ...) is held by the chat's table. The ``house`` account
issues grants and bonuses; it is the only one allowed below zero.

The outbox: whatever a unit of work must send (group messages, DMs, table
posts) is written as :class:`OutboxDraft` rows in the same transaction, and a
sender delivers the pending :class:`OutboxItem` rows in id order afterwards, so
a crash between commit and send loses nothing. Payloads may hold a player's
hidden cards: they are left out of ``repr`` and blanked once sent.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from games.engine import Transfer

HOUSE = "house"
KEEP_SENT = 200
"""Sent outbox rows a chat keeps (for :meth:`Storage.last_sent`); older ones are pruned."""
STALE_MARK = 3600.0
"""Seconds a process's alive mark is kept after it stopped (:meth:`Storage.mark_alive`)."""


class KeptUpdate(BaseModel):
    """An update fetched in polling mode, kept until handled (:meth:`Storage.keep_updates`)."""

    model_config = ConfigDict(frozen=True)
    update_id: int
    body: str
    done: bool


class StorageError(Exception):
    """Base of every error the storage layer raises on purpose."""


class StaleVersion(StorageError):
    """The table changed since the state was loaded; nothing was written."""


class InsufficientFunds(StorageError):
    """A step would take an account below zero; nothing was written."""


class TableNotFound(StorageError):
    """No open table in that chat."""


class TableExists(StorageError):
    """The chat already has an open table."""


class BonusAlreadyClaimed(StorageError):
    """The daily bonus was already claimed today."""


class OutboxItemNotFound(StorageError):
    """No outbox row with that id (never written, or sent and pruned since)."""


class Wallet(BaseModel):
    """A player's chips in one chat: in the wallet and on the table."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    user_id: int
    name: str = ""
    balance: int
    on_table: int = 0


class ChatWallet(BaseModel):
    """A player's wallet in one chat, with what names that chat to him: its title as last
    seen (empty if never) and the game of its open table (empty without one)."""

    model_config = ConfigDict(frozen=True)
    wallet: Wallet
    title: str = ""
    game: str = ""


class TableRecord(BaseModel):
    """A chat's open table as stored: game, settings, engine state, host metadata."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    game: str
    settings: dict[str, Any] = Field(default_factory=dict)
    state_json: str
    version: int
    deadline: float | None = None
    meta_json: str = "{}"
    """The host's metadata as stored (JSON text, like the state: the host serializes its
    typed record once, with pydantic, and nothing parses it again on the way down)."""
    rev: int = 0
    """Raised by every write to the row (step, metadata); ``update_meta`` compares it."""

    @property
    def meta(self) -> dict[str, Any]:
        """The host's metadata, parsed."""
        return cast(dict[str, Any], json.loads(self.meta_json))


class OutboxDraft(BaseModel):
    """Something a unit of work must send, written with it (see the module docstring)."""

    model_config = ConfigDict(frozen=True)
    kind: str
    """Opaque to storage: ``"group"``, ``"dm"``, ``"table"``, ``"settle"``, ..."""
    target: int
    """The Telegram chat to send to (the group, or a user for a DM)."""
    payload: dict[str, Any] = Field(default_factory=dict, repr=False)
    """JSON; may hold a player's hidden cards (DMs): never log it."""


class OutboxItem(BaseModel):
    """A stored outbox row; delivery order within a chat is by ``id``."""

    model_config = ConfigDict(frozen=True)
    id: int
    chat_id: int
    """The table's chat the item belongs to (not necessarily ``target``)."""
    kind: str
    target: int
    payload: dict[str, Any] = Field(repr=False)
    created_at: float
    attempts: int = 0


@dataclass
class Queued:
    """What a write put in its chat's outbox, filled in once the write committed (its
    ``queued`` argument): the sender takes the items from here instead of reading them.

    The writes that queue are serialized per chat (SQLite: every write; PostgreSQL: by the
    table's row, locked first), so a chat's ids follow its commits: a sender that has taken
    every undelivered row of the chat up to id ``after`` knows that, when the write
    committed, ``items`` were the chat's only other undelivered rows.
    """

    after: int | None = None
    """The chat's newest undelivered outbox row when the write queued (None: none)."""
    items: list[OutboxItem] = field(default_factory=list)
    """The rows ``outbox`` became, by id, as :meth:`Storage.pending_outbox` reads them."""

    def fill(self, written: Queued | None) -> None:
        """Take what a committed write queued (None: it queued nothing)."""
        if written is not None:
            self.after, self.items = written.after, written.items


class Shown(BaseModel):
    """A fact of presence: ``player``'s turn of a decision was shown on ``channel`` at
    ``shown_at``; a delivered turn prompt also says which message it is and what it showed."""

    model_config = ConfigDict(frozen=True)
    player: int
    channel: str
    shown_at: float
    message_id: int | None = None
    digest: str | None = None


class LedgerEntry(BaseModel):
    """One ledger row: ``delta`` chips on ``account`` in step ``step_id``. A player's rows
    are those of his wallet, stack and stake, and of a bank while it is his."""

    model_config = ConfigDict(frozen=True)
    step_id: int
    chat_id: int
    coup: int
    account: str
    delta: int
    reason: str
    game: str = ""
    created_at: float


class SettledCoup(BaseModel):
    """One settled coup as the standings count it, written with the step that settled it
    (so that it counts once, whatever is redelivered or killed): the table's ``game``, the
    coup's number on the table opened at ``opened`` (the two name the coup in the chat),
    when it settled, its ``banker`` if one, every player dealt in with his net (0: a
    standoff), the ``winners``, the ``hands`` shown (a poker hand as ``{"category",
    "ranks"}``, points as ``{"n", "bust"}``: :class:`games.engine.Settlement`'s, dumped) and
    each player's ``feats`` (names his game declares)."""

    model_config = ConfigDict(frozen=True)
    game: str
    coup: int
    opened: float
    settled_at: float
    banker: int | None = None
    nets: dict[int, int]
    winners: tuple[int, ...] = ()
    hands: dict[int, dict[str, Any]] = Field(default_factory=dict)
    feats: dict[int, tuple[str, ...]] = Field(default_factory=dict)


class PlayerStats(BaseModel):
    """A player's figures over the coups asked for (a chat or all his chats, a game or
    all): coups played, won (net above 0), lost (below 0), his net, his biggest win and
    loss (0 if none), coups he held the bank in and his longest run of them in a row (one
    chat's table, one game), each feat counted, and the best poker hand he showed."""

    model_config = ConfigDict(frozen=True)
    user_id: int
    coups: int = 0
    won: int = 0
    lost: int = 0
    net: int = 0
    best: int = 0
    worst: int = 0
    banks: int = 0
    longest_bank: int = 0
    feats: dict[str, int] = Field(default_factory=dict)
    best_hand: dict[str, Any] | None = None


class Standing(BaseModel):
    """One line of a chat's standings: a player, his name as his wallet has it, his coups,
    wins and net over the period asked for."""

    model_config = ConfigDict(frozen=True)
    user_id: int
    name: str
    coups: int
    won: int
    net: int


class BoardStanding(Standing):
    """One line of the all-chats board (:mod:`storage.board`): a :class:`Standing` over
    the listed chats, named as his newest named wallet is (empty if none), and whether he
    lets his name show there (``public``: /privacy)."""

    public: bool = False


class Earned(BaseModel):
    """An achievement a player reached (:class:`games.engine.Achievement`): in which chat,
    of which ``game`` (its ``key`` there), at which coup of the table opened at ``opened``,
    and when that coup settled. Derived from the recorded coups (a rebuild gives the same)."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    user_id: int
    game: str
    key: str
    coup: int
    opened: float
    earned_at: float


class Rating(BaseModel):
    """A player's poker rating in one chat (openskill's Plackett-Luce model, every rated
    hand of the chat's poker games folded in the order recorded): ``mu`` and ``sigma``, the
    ``hands`` rated, and ``ordinal`` (``mu - 3 * sigma``), what ranks him. Derived from the
    recorded coups (a rebuild gives the same)."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    user_id: int
    mu: float
    sigma: float
    hands: int
    name: str = ""

    @property
    def ordinal(self) -> float:
        """What ranks him: the rating he has at least, with 99.7% confidence."""
        return self.mu - 3 * self.sigma


class Season(BaseModel):
    """A chat's ended season, as recorded once: its number in the chat (1, 2...), its
    ``kind`` (``week``, ``month``, ``quarter``), its first and last UTC day, when its post
    was written, and its ``results`` (JSON: the podium and the titles, as
    :mod:`bot.table.seasons` computed them)."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    number: int
    kind: str
    first_day: dt.date
    last_day: dt.date
    posted_at: float
    results: dict[str, Any] = Field(default_factory=dict)


class SeasonTitle(BaseModel):
    """A title a player took (``champion``, ``most_coups``...): in which chat (its title
    as last remembered) and season."""

    model_config = ConfigDict(frozen=True)
    title: str
    chat_title: str
    season: Season


class Storage(Protocol):
    """What the bot needs from persistence. Every method is atomic."""

    async def open(self) -> None:
        """Connect and apply pending migrations."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...

    async def wallet(self, *, chat_id: int, user_id: int, name: str = "") -> Wallet:
        """The player's wallet, created with the starting grant on first use."""
        ...

    async def claim_daily_bonus(self, *, chat_id: int, user_id: int, today: dt.date) -> Wallet:
        """Credit the daily bonus once per day; raises :class:`BonusAlreadyClaimed`."""
        ...

    async def wallets_of(self, *, user_id: int) -> list[ChatWallet]:
        """Every wallet the player has, in any chat, richest first (wallet and table
        together); none is created."""
        ...

    async def create_table(self, *, chat_id: int, game: str, settings: dict[str, Any],
                           state_json: str, version: int, meta_json: str = "{}",
                           outbox: Sequence[OutboxDraft] = ()) -> TableRecord:
        """Open a table at rev 0, ``outbox`` in the same unit; raises :class:`TableExists`."""
        ...

    async def load_table(self, *, chat_id: int) -> TableRecord:
        """The chat's open table; raises :class:`TableNotFound`."""
        ...

    async def open_tables(self) -> list[TableRecord]:
        """Every open table (resumed at start-up)."""
        ...

    async def commit_step(self, *, chat_id: int, expected_version: int, state_json: str,
                          version: int, transfers: Sequence[Transfer], coup: int,
                          deadline: float | None, meta_json: str | None = None,
                          outbox: Sequence[OutboxDraft] = (),
                          expected_rev: int | None = None, coups: Sequence[int] = (),
                          holders: Sequence[int | None] = (), queued: Queued | None = None,
                          settled: Sequence[SettledCoup] = ()) -> int:
        """One table step as one unit of work, ``outbox`` included; returns the step id.
        ``queued``: filled in with what ``outbox`` became, once committed. ``settled``: the
        coups the step settles, recorded and counted in the standings in the same unit
        (:mod:`storage.standings`).

        The step is booked under ``coup``, each transfer under its own of ``coups`` when
        given (a step that settles one coup and deals the next); a row on the bank is in the
        history of its transfer's ``holders`` player (see :func:`storage.booking.plan`).

        Raises :class:`StaleVersion` if the stored version is not
        ``expected_version`` (or the stored rev not ``expected_rev``, when given) and
        :class:`InsufficientFunds` if an account would go negative; in those
        cases nothing is written. ``meta_json=None`` keeps the stored metadata. Raises
        the table's ``rev`` by one.
        """
        ...

    async def update_meta(self, *, chat_id: int, meta_json: str, expected_rev: int,
                          outbox: Sequence[OutboxDraft] = (), queued: Queued | None = None
                          ) -> int:
        """Replace the table's host metadata if its rev is ``expected_rev``; returns the new rev.

        Compare-and-set: :class:`StaleVersion` (nothing written) if the rev
        differs, :class:`TableNotFound` without a table. ``outbox`` is written in
        the same unit; ``queued`` is filled in with what it became, once committed.
        """
        ...

    async def close_table(self, *, chat_id: int, expected_version: int,
                          transfers: Sequence[Transfer], coup: int,
                          outbox: Sequence[OutboxDraft] = (),
                          holders: Sequence[int | None] = (),
                          settled: Sequence[SettledCoup] = ()) -> int:
        """Book the final transfers (every table chip back to wallets) and close the table
        (``holders`` and ``settled`` as in :meth:`commit_step`).

        Refuses (``InsufficientFunds``) unless every table account ends at zero.
        ``outbox`` is written in the same unit and outlives the table.
        """
        ...

    async def pending_outbox(self, *, chat_id: int | None = None,
                             limit: int = 500) -> list[OutboxItem]:
        """Undelivered outbox items of one chat (or of all chats), by id."""
        ...

    async def outbox_attempt(self, *, item_id: int, undo: bool = False,
                             floor: int | None = None) -> int:
        """Count one more delivery attempt (call it before a send); returns the new count.
        ``undo``: take back the attempt just counted, known to have sent nothing.
        ``floor``: the send may make a message whose id goes unrecorded (a table post):
        the newest message id known in the chat, kept from the first attempt on until
        :meth:`finish_outbox` is ``sure`` or :meth:`twins_resolved` (see :meth:`twin_floors`).

        Raises :class:`OutboxItemNotFound` if the row is gone.
        """
        ...

    async def finish_outbox(self, *, item_id: int, message_id: int | None = None,
                            live: bool = False, sure: bool = False) -> None:
        """Mark the item delivered (or given up) and blank its payload; idempotent.
        ``live``: the message carries buttons until :meth:`retire_sent` (a table message).
        ``sure``: its one attempt made exactly this message: no twin (its floor goes).

        A chat keeps only its newest sent rows (``KEEP_SENT``), pruned here; a live one, or
        one with a floor, stays.
        """
        ...

    async def twin_floors(self, *, chat_id: int) -> list[tuple[int, int]]:
        """(item id, floor) of the chat's posts that may have made a message nobody recorded
        (an attempt whose outcome is unknown, done or still pending), oldest first."""
        ...

    async def twins_resolved(self, *, item_ids: Sequence[int], upto: int | None = None) -> None:
        """The possible twins of these posts lost their buttons: their floors go. ``upto``:
        only the ids up to it were searched; a floor below it rises to it (the rest is
        searched at the next post)."""
        ...

    async def record_sent(self, *, chat_id: int, kind: str, message_id: int,
                          live: bool = False) -> None:
        """A message the bot sent in the chat outside the outbox (a command's answer): kept
        as a sent item of ``kind``, so that a search for unrecorded messages skips it, and
        with ``live`` retired (:meth:`live_sent`) as a table message is."""
        ...

    async def live_sent(self, *, chat_id: int, kind: str | None = None) -> list[int]:
        """Message ids of the chat's sent items (of ``kind``, or of any) still marked live,
        newest (highest id) first."""
        ...

    async def retire_sent(self, *, chat_id: int, message_ids: Sequence[int]) -> None:
        """These messages of the chat carry no live buttons any more."""
        ...

    async def finish_outbox_many(self, *, done: Sequence[tuple[int, int | None]],
                                 live: bool = False, sure: bool = False) -> None:
        """:meth:`finish_outbox` for several items, (item id, message id) each, at once,
        ``live`` and ``sure`` alike."""
        ...

    async def last_sent(self, *, chat_id: int, kind: str, limit: int = 1) -> list[int]:
        """Message ids of the chat's newest sent items of ``kind`` that have one, newest first."""
        ...

    async def outbox_chats(self) -> list[int]:
        """Chats with undelivered outbox items (resumed at start-up), ascending."""
        ...

    async def table_accounts(self, *, chat_id: int) -> dict[str, int]:
        """Non-zero balances of the chat's table accounts."""
        ...

    async def leaderboard(self, *, chat_id: int, limit: int = 10) -> list[Wallet]:
        """Richest players of the chat (wallet + on the table), richest first."""
        ...

    async def recent_coups(self, *, chat_id: int, user_id: int,
                           limit: int = 10) -> list[LedgerEntry]:
        """The player's latest ledger rows in the chat, newest first."""
        ...

    async def player_stats(self, *, user_id: int, chat_id: int | None = None,
                           game: str | None = None) -> PlayerStats:
        """The player's figures over the settled coups of ``chat_id`` (None: all his chats)
        and ``game`` (None: all games); zeros if he played none. His longest bank run is the
        longest of one chat's table and game; his best hand the best of them all."""
        ...

    async def net_by_day(self, *, user_id: int, chat_id: int | None = None,
                         game: str | None = None) -> list[tuple[dt.date, int]]:
        """The player's net on each UTC day he played a settled coup of ``chat_id`` (None:
        any of his chats) and ``game`` (None: any), oldest day first."""
        ...

    async def standings(self, *, chat_id: int, game: str | None = None,
                        since: dt.date | None = None, until: dt.date | None = None,
                        min_coups: int = 1, limit: int = 10) -> list[Standing]:
        """The chat's players who played at least ``min_coups`` coups of ``game`` (None: any)
        settled on the UTC days from ``since`` to ``until`` (both included; None: no bound),
        ranked by net (highest first), then coups (most first), then user id; the first
        ``limit``. Named as their wallet in the chat is (the user id as text if unnamed)."""
        ...

    async def achievements_due(self, *, chat_id: int,
                               settled: Sequence[SettledCoup]) -> list[Earned]:
        """What recording ``settled`` in chat ``chat_id`` now would earn (nothing written):
        the achievements their players reach with them, in the order :meth:`commit_step`
        records them. A step's plan asks it, under the chat's lock, to announce them."""
        ...

    async def achievements(self, *, user_id: int, chat_id: int | None = None) -> list[Earned]:
        """The achievements the player reached in ``chat_id`` (None: all his chats), oldest
        first."""
        ...

    async def rating(self, *, user_id: int, chat_id: int) -> Rating | None:
        """The player's poker rating in the chat; None if no hand of his was rated there."""
        ...

    async def ratings(self, *, chat_id: int, min_hands: int = 1,
                      limit: int = 10) -> list[Rating]:
        """The chat's players with at least ``min_hands`` rated hands, best ``ordinal``
        first (then most hands, then user id), named as their wallet in the chat is."""
        ...

    async def rebuild_stats(self) -> int:
        """Recompute the standings from the recorded coups alone (the derived tables deleted,
        every coup folded again as its step did); returns how many coups were folded."""
        ...

    async def coups_between(self, *, chat_id: int, since: dt.date,
                            until: dt.date) -> list[SettledCoup]:
        """The chat's recorded coups settled on the UTC days from ``since`` to ``until``
        (both included), in the order they were recorded."""
        ...

    async def unseasoned_chats(self, *, kind: str, first_day: dt.date,
                               last_day: dt.date) -> list[int]:
        """The chats with a coup settled on the UTC days from ``first_day`` to ``last_day``
        and no season of ``kind`` starting on ``first_day`` recorded; by id."""
        ...

    async def record_season(self, *, chat_id: int, kind: str, first_day: dt.date,
                            last_day: dt.date, results: dict[str, Any],
                            titles: Mapping[str, int],
                            post: Callable[[Season], Sequence[OutboxDraft]]) -> Season | None:
        """Record the chat's ended season with its ``results``, the ``titles`` its players
        took (title -> user) and what ``post`` drafts of it once numbered (next in the
        chat) into the outbox, in one unit of work. None, with nothing written, when that
        season (chat, kind, first day) was recorded before: its post goes once, whoever
        records it."""
        ...

    async def seasons(self, *, chat_id: int) -> list[Season]:
        """The chat's recorded seasons, by number."""
        ...

    async def player_titles(self, *, user_id: int) -> list[SeasonTitle]:
        """The titles the player took in every chat, newest season first."""
        ...

    async def chat_language(self, *, chat_id: int) -> str | None:
        """The chat's chosen language, if any."""
        ...

    async def set_chat_language(self, *, chat_id: int, language: str) -> None:
        """Remember the chat's language."""
        ...

    async def set_chat_title(self, *, chat_id: int, title: str) -> None:
        """Remember the chat's title (a group's name, for :meth:`wallets_of`)."""
        ...

    async def chat_title(self, *, chat_id: int) -> str:
        """The chat's title as last remembered; empty if none was."""
        ...

    async def chat_settings(self, *, chat_id: int) -> dict[str, Any]:
        """The chat's defaults for its next tables (``/settings default``); empty if none."""
        ...

    async def set_chat_settings(self, *, chat_id: int, settings: dict[str, Any]) -> None:
        """Replace the chat's defaults for its next tables (JSON values)."""
        ...

    async def keep_updates(self, *, updates: Sequence[tuple[int, str]],
                           read_below: int, done: Sequence[int] = ()) -> None:
        """Keep fetched updates ``(update_id, JSON body)`` until handled (one already kept
        stays as it is), mark the kept ``done`` handled (as :meth:`updates_done`), and
        forget the handled ones below ``read_below``: Telegram took them as read, they
        cannot come again (polling mode, :mod:`bot.gateway.polling`). One write."""
        ...

    async def updates_done(self, *, update_ids: Sequence[int]) -> None:
        """These kept updates are handled."""
        ...

    async def kept_updates(self) -> list[KeptUpdate]:
        """Every kept update, in id order."""
        ...

    async def mark_alive(self, *, worker: str, at: float) -> None:
        """Mark this process (``worker``, unique to it) alive at ``at`` (epoch seconds);
        marks of an hour before are dropped."""
        ...

    async def last_alive(self, *, other_than: str | None = None) -> float | None:
        """The newest mark of any process but ``other_than`` (None: none was ever made)."""
        ...

    async def add_presence(self, *, chat_id: int, decision: int, shown: Sequence[Shown]
                           ) -> None:
        """Append facts of presence of the chat's ``decision`` (a fact already there for its
        player and channel stays as it was: the first showing counts). Not a write of the
        table: its version and revision stay. The chat's facts of earlier decisions go."""
        ...

    async def presence(self, *, chat_id: int, decision: int) -> list[Shown]:
        """The facts of presence of the chat's ``decision``, earliest first."""
        ...

    async def board(self, *, game: str | None = None, since: dt.date | None = None,
                    until: dt.date | None = None, min_coups: int = 1,
                    limit: int = 10) -> list[BoardStanding]:
        """:meth:`standings` over every chat listed on the all-chats board (the chat
        setting ``global``), each player's coups of all of them together."""
        ...

    async def player_public(self, *, user_id: int) -> bool:
        """Whether the player lets his name show on the all-chats board (no: unless he
        said so)."""
        ...

    async def set_player_public(self, *, user_id: int, public: bool) -> None:
        """Remember whether the player lets his name show on the all-chats board."""
        ...

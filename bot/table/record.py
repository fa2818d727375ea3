"""A chat's table as the host holds it: the stored row, its typed host record, the engine.

:class:`TableMeta` is what the host keeps beside the engine's state (who opened the
table, names, the coup's log lines, the last revealed shoe...). It is stored in the
table row's ``meta`` column and written only together with the row's revision
(``TableRecord.rev``): every change goes through :meth:`bot.table.tables.Tables.commit`,
which refuses a record computed from an older revision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)
from pydantic_core import to_json

from bot.view.scene import Scene, scene
from bot.view.sight import Sight
from games import registry
from games.engine import Engine, GameState, PlayerId
from storage.base import TableRecord


class Ask(BaseModel):
    """A player pressed "✏️ amount": his next reply (or "@bot 200") is that amount."""

    kind: str
    coup: int
    expires: float
    private: bool = False
    """Asked in his private chat (✏️ pressed on his prompt there): he answers there."""
    choice: str | None = None
    """The choice the amount goes with (a banchok stake that forbids joining), if any."""
    shown: int | None = None
    """The prompt shown to him alone in the group (its ephemeral message id), asked from his
    view there: deleted once the ask is over."""
    here: bool = False
    """Asked from his view shown to him alone in the group: what he writes is answered to him
    alone there too (known from the press on, before its prompt's id is)."""


class OpenPrompt(BaseModel):
    """A player's turn prompt delivered to his private chat, while its decision is open: it
    is edited as the table changes, and loses its keyboard once the decision is gone."""

    message_id: int
    decision: int
    digest: str
    """What it shows now (:attr:`bot.view.screens.Prompt.digest`)."""


class OpenEphemeral(BaseModel):
    """A player's private view shown to him alone in the group (a Bot API 10.2 ephemeral
    message, :mod:`bot.gateway.ephemeral`) with his decision keyboard, while that decision
    is open: edited as his decision changes, disarmed once it is gone."""

    message_id: int
    """Its ``ephemeral_message_id`` (an ephemeral message's ``message_id`` is 0)."""
    decision: int
    digest: str
    """What it shows now (:attr:`bot.view.screens.Prompt.digest` of
    :func:`bot.view.screens.ephemeral_view`)."""


class Proof(BaseModel):
    """The proof of a player's own cards of his latest poker hand (docs/rules.md §0.5), kept
    for him until he asks for it (/verify): the hand's number and the compact record."""

    hand: int
    record: str


class TableMeta(BaseModel):
    """The host's typed record of one table."""

    model_config = ConfigDict(extra="ignore")
    opener: int = 0
    timeout: float | None = None
    """The table's decision timeout (/settings timeout); None: the bot's default."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Game settings changed with /settings since the table opened."""
    names: dict[int, str] = Field(default_factory=dict)
    """Every player ever seated here, by id: events may name one who has left."""
    coup_log: list[dict[str, Any]] = Field(default_factory=list)
    """The public events of the coup under way (``{"kind", "data"}``), drawn under the table
    in the chat's language whenever it is shown."""
    msg_coup: int = 0
    """The coup the live table message was posted for."""
    revealed: dict[str, Any] | None = None
    """The last revealed shoe (order, salt, cut), for /verify."""
    proofs: dict[int, Proof] = Field(default_factory=dict)
    """Each player's proof of his own cards of his latest poker hand: /verify sends it to his
    private chat when he asks (not a message of its own after every hand)."""
    dm_blocked: list[int] = Field(default_factory=list)
    """Players the bot may not write to; each got the deep link once."""
    hinted: dict[int, int] = Field(default_factory=dict)
    """Each of ``dm_blocked`` told on the group's table where his buttons are (under *My
    cards*), with the decision he was told at: his first private one, and only that one."""
    paused: bool = False
    """The bot cannot write in the group (kicked or blocked): no deadline runs."""
    grace_until: float | None = None
    """After a pause, no deadline falls before this time (a whole decision time)."""
    decision: int = 0
    """The step at which the awaited players' current decision began (the awaited set last
    changed). Decision buttons carry it: a press answers a decision, not a step, and stays
    good while that decision is still the presser's."""
    due: float | None = None
    """When the current decision times out. None until every awaited player has been shown
    it (his DM prompt, or the group's table message, delivered): nobody's clock runs on a
    turn he cannot see yet."""
    turn_dm: bool | None = None
    """Whether each awaited player who has a private chat with the bot gets his turn there,
    with his decision keyboard (/settings turn_dm); None: the bot's default (TURN_DMS)."""
    screen: Literal["chat", "app"] | None = None
    """Where the table is played (/settings screen): ``chat``, on the group's table message;
    ``app``, in the Mini App, the group getting each coup's card and result. None: ``app``
    where the bot has the Mini App, else ``chat`` (:meth:`bot.table.clock.Clock.in_app`).
    Written only once set (:meth:`stored`), so a record without it reads as before."""
    idle_close: int | None = None
    """After how many decisions in a row whose time ran out, with nobody acting, the table
    closes itself (/settings idle_close; 0: never); None: the bot's default
    (IDLE_CLOSE, :attr:`bot.table.clock.Clock.idle_close`)."""
    idle: int = 0
    """How many decisions in a row have timed out since a player last acted (any player's
    accepted action sets it back to 0): docs/rules.md §0.12."""
    asks: dict[int, Ask] = Field(default_factory=dict)
    """Who was asked to type an amount, and for what: kept with the table so that any
    worker takes the reply, whichever took the press."""
    last_result: dict[str, Any] | None = None
    """The last settled coup (``coup``, the settlement's ``data``): the next coup's table
    message leads with its headline, at the bottom of the chat where players look (the
    result itself replaced a table message that may be far up by now)."""
    prompts: dict[int, OpenPrompt] = Field(default_factory=dict)
    """The open turn prompts in the players' private chats, by player."""
    ephemerals: dict[int, OpenEphemeral] = Field(default_factory=dict)
    """The private views with a decision keyboard shown in the group to one player each
    (ephemeral messages), while their decision is open, by player. Written only while
    there is one (:meth:`stored`)."""
    on_page: dict[int, int] = Field(default_factory=dict)
    """The awaited players whose turn prompt was not sent because their open page showed
    them their turn, each with that decision (:meth:`bot.table.clock.Clock.page_shows`): kept
    with the table, so that whichever worker hears the page close owes the prompt."""
    opened: float = 0.0
    """When the table was opened (0: before this was kept): a page tells a table that
    replaced a closed one by it, whatever their versions."""
    done: dict[str, str] = Field(default_factory=dict)
    """The newest updates that made a step here (a press by its callback query id, a typed
    amount by ``m`` and its message id), each with the label of what it did: committed with
    its step, so that an update delivered again (its worker died before answering it) is
    answered with the same truth and never applied twice."""

    def stored(self) -> str:
        """The record as stored (JSON): ``screen`` only once a table set it, ``ephemerals``
        only while there is one (exclusions at the dump, not a wrapping serializer, which
        would take every dump through Python).
        The coup log is joined from its entries' JSON, and the last result and the last
        revealed shoe spliced in, each written once (:func:`_json_of`): every step stores the
        whole log again, one entry longer, and the same result and shoe until the next
        coup's (twice a step: the clock's start too), and the untyped result's and shoe's
        dumps were the costliest part of the record's."""
        left_out = _SPLICED if self.screen is None else _WRITTEN
        if not self.ephemerals:
            left_out = _SPLICED_EPHEMERALS if self.screen is None else _WRITTEN_EPHEMERALS
        rest = self.model_dump_json(exclude=left_out)
        log = ",".join([_json_of(entry) for entry in self.coup_log])
        last = "null" if self.last_result is None else _json_of(self.last_result)
        shoe = "null" if self.revealed is None else _json_of(self.revealed)
        return f'{rest[:-1]},"revealed":{shoe},"last_result":{last},"coup_log":[{log}]}}'


_WRITTEN: set[str] = {"coup_log", "last_result", "revealed"}
_SPLICED: set[str] = {*_WRITTEN, "screen"}
_WRITTEN_EPHEMERALS: set[str] = {*_WRITTEN, "ephemerals"}
_SPLICED_EPHEMERALS: set[str] = {*_SPLICED, "ephemerals"}

# The JSON of the coup-log entries, of the last results and of the revealed shoes, by the
# object (held, so that no other object can have its id while it is here; a record's
# entries, results and shoes are never changed, see bot.view.logbook.log_entry and
# bot.table.sends.step_drafts). The oldest
# written go first (a live table's are written again with each step and come back at once).
_JSON: dict[int, tuple[dict[str, Any], str]] = {}
_JSON_MAX = 16384
"""As many as bot.view.screens keeps lines of: some 600 busy tables' logs."""


def _json_of(value: dict[str, Any]) -> str:
    """A coup-log entry, a last result or a revealed shoe in JSON."""
    known = _JSON.get(id(value))
    if known is None or known[0] is not value:
        known = _JSON[id(value)] = (value, to_json(value).decode())
        if len(_JSON) > _JSON_MAX:
            del _JSON[next(iter(_JSON))]
    return known[1]


@dataclass(frozen=True)
class Table:
    """One loaded table: the stored row, its record, the engine and its state."""

    rec: TableRecord
    meta: TableMeta
    engine: Engine[Any]
    state: GameState
    cached_sight: Sight | None = field(default=None, repr=False, compare=False)
    """The state's :class:`bot.view.sight.Sight`, when the caller already has one."""

    @property
    def sight(self) -> Sight:
        """Views and legal actions of the state, each computed once."""
        if self.cached_sight is None or self.cached_sight.state is not self.state:
            object.__setattr__(self, "cached_sight", Sight(self.engine, self.state))
        assert self.cached_sight is not None
        return self.cached_sight

    def scene(self, viewer: PlayerId | None, deadline: float | None, *,
              prompted: frozenset[int] = frozenset(), no_dm: frozenset[int] = frozenset(),
              told: frozenset[int] = frozenset(), app: bool = False,
              open_url: str | None = None, meta: TableMeta | None = None) -> Scene:
        """``viewer``'s scene of the table as committed (None: the public's), counting down to
        ``deadline`` (:func:`bot.view.scene.scene`: derived once for the same arguments);
        ``meta``: its record as about to be committed, if not as committed."""
        meta = self.meta if meta is None else meta
        return scene(self.chat_id, self.sight, viewer, deadline, meta.coup_log, meta.names,
                     decision=meta.decision, last=meta.last_result, prompted=prompted,
                     no_dm=no_dm, told=told, app=app, open_url=open_url)

    @property
    def chat_id(self) -> int:
        """The group the table is in."""
        return self.rec.chat_id

    @property
    def game(self) -> str:
        """The registry name of the game."""
        return self.rec.game


def load(rec: TableRecord) -> Table:
    """The table of a stored row."""
    engine = registry.engine(rec.game)
    state = engine.state_type.model_validate_json(rec.state_json)
    return Table(rec, TableMeta.model_validate_json(rec.meta_json), engine, state)

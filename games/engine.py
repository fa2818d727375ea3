"""The one contract every game engine follows, so the bot never special-cases a game.

An engine is a handful of pure functions over a pydantic ``State``
(DESIGN.md, "games/: a game is a pure state machine"):

* ``new_table(settings, rng)`` -> State; ``settings(state)`` -> every setting's value
* ``legal_actions(state, player)`` -> what that player may do now, with bounds
* ``apply(state, player, action, rng)`` -> :class:`Step` (new state, events,
  transfers); an illegal action raises :class:`IllegalAction` and the input
  state is untouched (engines work on a copy)
* ``awaiting(state)`` -> the players whose decision the table waits for
* ``timeout(state, rng)`` -> the safe default applied to every awaited player
* ``view(state, viewer)`` -> :class:`TableView`, the **only** way from state to
  anything a person sees

Chips. Each seated player has a *stack*: the chips he brought to the table
(``Join.buy_in``), which is what the rules call his wallet. Every chip
movement is a :class:`Transfer` between named accounts (see :mod:`accounts
<games.engine>` helpers below); a transfer moves a positive amount from one
account to another, so every step's transfers sum to zero by construction.
Only ``wallet:<id>`` accounts live outside the table; the storage layer
books all others as the table's escrow.

Randomness enters only through the ``rng`` argument (a new shoe); the cut
is the cutting player's choice (:func:`cut_spec`) or, on his timeout, a hash
of public data (:func:`games.cards.timeout_cut`); with a fixed shoe in the
state and the action log, a coup replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

PlayerId = int
"""A player is identified by his Telegram user id."""


# --------------------------------------------------------------------- errors


class Reason(StrEnum):
    """Why an action was refused; the bot turns each into a translated sentence."""

    NOT_SEATED = "not_seated"
    ALREADY_SEATED = "already_seated"
    TABLE_FULL = "table_full"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    STALE = "stale"
    UNKNOWN_ACTION = "unknown_action"
    AMOUNT_OUT_OF_RANGE = "amount_out_of_range"
    INSUFFICIENT_CHIPS = "insufficient_chips"
    EXCEEDS_BANK = "exceeds_bank"
    BANCO_NOT_ALLOWED = "banco_not_allowed"
    MUST_DRAW = "must_draw"
    MUST_STAND = "must_stand"
    CANNOT_DRAW = "cannot_draw"
    NOT_ALLOWED = "not_allowed"
    JOINING_FORBIDDEN = "joining_forbidden"
    NO_OPENERS = "no_openers"
    BAD_DISCARD = "bad_discard"
    IN_COUP = "in_coup"
    ALREADY_LEAVING = "already_leaving"


class GameError(Exception):
    """Base of every error an engine raises on purpose."""


class IllegalAction(GameError):
    """The action is not allowed now; ``reason`` is machine-readable, ``detail`` for logs.

    ``detail`` must never name a hidden card: it can reach a log line.
    """

    def __init__(self, reason: Reason, detail: str = "", **params: Any) -> None:
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)
        self.reason = reason
        self.detail = detail
        self.params = params


# ------------------------------------------------------------------- accounts


def wallet(player: PlayerId) -> str:
    """The player's wallet in the chat, outside the table."""
    return f"wallet:{player}"


def stack(player: PlayerId) -> str:
    """The chips the player has in front of him at the table."""
    return f"stack:{player}"


def stake(player: PlayerId) -> str:
    """The player's stake (or bet) on the current coup or hand."""
    return f"stake:{player}"


BANK = "bank"
POT = "pot"


def is_table_account(account: str) -> bool:
    """True for every account held by the table (all but wallets)."""
    return not account.startswith("wallet:")


# ---------------------------------------------------------- actions, events


class Action(BaseModel):
    """Base of every action. ``kind`` is the discriminator the bot puts on buttons."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: str


class Join(Action):
    """Sit down at the table with ``buy_in`` chips from the wallet."""

    kind: Literal["join"] = "join"
    name: str = Field(max_length=64)
    buy_in: int = Field(ge=0)


class Leave(Action):
    """Stand up; the stack returns to the wallet (between coups, or after the current one)."""

    kind: Literal["leave"] = "leave"


class Start(Action):
    """Begin play (the first auction or coup) once enough players are seated.

    After that, engines go on to the next coup by themselves after each
    settlement while enough players remain.
    """

    kind: Literal["start"] = "start"


class Cut(Action):
    """Cut the shoe ``offset`` cards deep: the cutting player's own choice (docs/rules.md §0.4)."""

    kind: Literal["cut"] = "cut"
    offset: int = Field(ge=0)


class Event(BaseModel):
    """Something that happened, in the past tense (``CardDealt``, ``BankPassed``).

    ``to`` is ``None`` for a public event, otherwise the only players who may
    see it. Events naming a hidden card must carry ``to``; :func:`visible_events`
    filters them for a viewer exactly like :func:`view` filters the state.
    """

    model_config = ConfigDict(frozen=True)
    kind: str
    to: tuple[PlayerId, ...] | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class Settlement(Event):
    """The event that closes a coup or a hand: who won what. Every engine ends a settled
    coup with exactly one; the host announces it as the coup's result (by its type, never
    by its kind's spelling)."""


class StoodUp(Event):
    """A player was stood up (two timeouts in a row, or too few chips); ``data["player"]``."""


class ShoeRevealed(Event):
    """A finished, replaced or closed shoe: how its dealing order was made and what the rules
    let the table see of it (``Shoe.reveal()``: everything; ``Shoe.reveal_shown()``: the
    shown cards' proofs only), in the form ``python -m games.verify`` checks."""


class CardsProven(Event):
    """The proof of one player's own cards of a poker hand, for him alone (``to``):
    ``data["hand"]`` and ``data["record"]``, the compact record ``python -m games.verify``
    checks. The host keeps a player's latest and gives it to him when he asks (/verify)."""


def cut_spec(size: int) -> ActionSpec:
    """The *Cut* a cutter is offered for a shoe of ``size`` cards (docs/rules.md §0.4): any
    depth from 0 to ``size - 1``, with a quarter, half and three quarters as buttons."""
    high = max(0, size - 1)
    return ActionSpec(kind="cut", min=0, max=high,
                      presets=tuple(sorted({size // 4, size // 2, 3 * size // 4} - {0})))


def settlement(kind: str, **data: Any) -> Settlement:
    """The public :class:`Settlement` event."""
    return Settlement(kind=kind, data=data)


def stood_up(player: PlayerId) -> StoodUp:
    """The public :class:`StoodUp` event."""
    return StoodUp(kind="stood_up", data={"player": player})


def cards_proven(player: PlayerId, **data: Any) -> CardsProven:
    """The private :class:`CardsProven` event of ``player``'s own cards."""
    return CardsProven(kind="cards_proven", to=(player,), data={"player": player, **data})


def shoe_revealed(**data: Any) -> ShoeRevealed:
    """The public :class:`ShoeRevealed` event (``data``: ``Shoe.reveal()`` and extras)."""
    return ShoeRevealed(kind="shoe_revealed", data=data)


PLAYER_KEYS: frozenset[str] = frozenset({
    "player", "banker", "by", "winner", "caller", "punter", "opener", "declarer", "playing",
    "cutter", "dealer", "from_player", "to_player", "offered_to", "last_banker", "button",
    "src", "dst", "gathered_by", "forbidding", "draw_order", "players", "winners",
})
"""The keys of event data and of ``TableView.info`` whose values are player ids (one id, a
list of ids, or a dict keyed by ids): the bot shows those as names. Any key ending in
``player`` counts too (see :func:`is_player_key`). An engine naming a player under a new
key adds it here; a key here never holds anything but player ids."""


def is_player_key(key: str) -> bool:
    """True when values under ``key`` (in event data or view info) are player ids."""
    return key in PLAYER_KEYS or key.endswith("player")


def public(kind: str, **data: Any) -> Event:
    """A public event."""
    return Event(kind=kind, data=data)


def private(kind: str, to: Sequence[PlayerId], **data: Any) -> Event:
    """An event only the players in ``to`` may see."""
    return Event(kind=kind, to=tuple(to), data=data)


def visible_events(events: Sequence[Event], viewer: PlayerId | None) -> list[Event]:
    """The events ``viewer`` may see (``None``: the public)."""
    return [e for e in events if e.to is None or (viewer is not None and viewer in e.to)]


class Transfer(BaseModel):
    """``amount`` chips move from ``src`` to ``dst`` because of ``reason``."""

    model_config = ConfigDict(frozen=True)
    src: str
    dst: str
    amount: int = Field(gt=0)
    reason: str


def net(transfers: Sequence[Transfer]) -> dict[str, int]:
    """Net change per account; the values always sum to zero."""
    out: dict[str, int] = {}
    for t in transfers:
        out[t.src] = out.get(t.src, 0) - t.amount
        out[t.dst] = out.get(t.dst, 0) + t.amount
    return out


class ActionSpec(BaseModel):
    """One thing a player may do now. ``min``/``max`` bound an amount; ``presets`` suggest some."""

    model_config = ConfigDict(frozen=True)
    kind: str
    min: int | None = None
    max: int | None = None
    presets: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()
    private: bool = False
    """True when merely offering this action reveals a hidden card (jackpots' *Open* needs
    jacks or better): the bot offers it only to the player himself, never on a group button.
    Where a hidden card decides whether an action is offered, every action of that decision
    is private for every player in that situation, so the group cannot tell them apart."""


# ---------------------------------------------------------------------- state

S = TypeVar("S", bound="GameState")


class SeatBase(BaseModel):
    """A place at the table. Games extend it with their own per-seat fields."""

    player: PlayerId
    name: str
    stack: int = Field(ge=0)
    timeouts: int = 0
    leaving: bool = False


class GameState(BaseModel):
    """Base of every game's state; ``version`` is bumped by every applied action."""

    game: str
    version: int = 0
    coup: int = 0
    phase: str


class Step(BaseModel, Generic[S]):
    """What one applied action produced."""

    state: S
    events: list[Event] = Field(default_factory=list)
    transfers: list[Transfer] = Field(default_factory=list)
    settled: int | None = None
    """With a :class:`Settlement` among the events: how many of ``transfers`` came before it
    (the settled coup's chips); those after it belong to what follows (players standing up,
    the next coup's antes)."""


# ---------------------------------------------------------------------- views


class SeatView(BaseModel):
    """A seat as one viewer sees it.

    Deny by default: there is no field for another seat's hidden card. A seat
    shows only ``face_up`` cards and how many it holds face down; the viewer's
    own hidden cards travel separately in :attr:`TableView.my_cards`.
    """

    model_config = ConfigDict(frozen=True)
    player: PlayerId
    name: str
    stack: int
    stake: int = 0
    face_up: tuple[str, ...] = ()
    face_down: int = 0
    role: str = ""
    status: str = ""


class TableView(BaseModel):
    """Everything one viewer (or the public, ``viewer=None``) may see of a table."""

    model_config = ConfigDict(frozen=True)
    game: str
    version: int
    coup: int
    phase: str
    viewer: PlayerId | None
    seats: tuple[SeatView, ...]
    my_cards: tuple[str, ...] = ()
    bank: int = 0
    pot: int = 0
    awaiting: tuple[PlayerId, ...] = ()
    info: dict[str, Any] = Field(default_factory=dict)
    """Public facts of the game (burned cards, commitments, showing values); never hidden cards."""
    my_info: dict[str, Any] = Field(default_factory=dict)
    """Facts for the viewer alone, derived from his own hidden cards (his points, a hint);
    always empty in the public view. The bot shows them only in his private chat or pop-up."""


# ------------------------------------------------------------------- contract


class Engine(Protocol[S]):
    """What the bot, storage and ``games.simulate`` rely on; every game module provides one."""

    name: ClassVar[str]
    state_type: ClassVar[type[GameState]]
    action_types: ClassVar[dict[str, type[Action]]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def new_table(self, settings: dict[str, Any], rng: random.Random | None = None) -> S:
        """An empty table with these settings (unknown keys refused, defaults filled)."""
        ...

    def settings(self, state: S) -> dict[str, Any]:
        """Every setting of the table with its value, defaults included: what
        :meth:`new_table` takes (``new_table(settings(s))`` has the same settings)."""
        ...

    def legal_actions(self, state: S, player: PlayerId) -> list[ActionSpec]:
        """What ``player`` may do now, with bounds."""
        ...

    def apply(self, state: S, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[S]:
        """Apply ``action`` for ``player``; raise :class:`IllegalAction` if it is not legal."""
        ...

    def awaiting(self, state: S) -> list[PlayerId]:
        """The players whose decision the table is waiting for (deadline runs for them)."""
        ...

    def timeout(self, state: S, rng: random.Random | None = None) -> Step[S]:
        """Apply the safe default to every awaited player; counts their timeouts."""
        ...

    def view(self, state: S, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` may see it (``None``: the group)."""
        ...

    def close(self, state: S) -> Step[S]:
        """Close the table (/closetable): the open coup or hand is void. The step's
        transfers empty every table account into wallets (each stake back to its owner,
        what a player put into a shared bank or pot this coup back to him, the rest to its
        owner by the game's rules); its events say what was returned and reveal what the
        rules allow. The state after it has no seats."""
        ...

    def accounts(self, state: S) -> dict[str, int]:
        """Balance of every non-empty table account (stacks, stakes, bank, pot).

        Applying :func:`net` of a step's transfers to the accounts before it gives
        the accounts after it; the storage layer keeps the same balances.
        """
        ...


def parse_action(engine: Engine[Any], data: dict[str, Any]) -> Action:
    """Build an action from loose data (a button or typed text); unknown kinds are refused."""
    kind = data.get("kind")
    cls = engine.action_types.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise IllegalAction(Reason.UNKNOWN_ACTION, f"unknown action kind {kind!r}")
    try:
        return cls.model_validate(data)
    except ValueError as exc:
        raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, "malformed action") from exc

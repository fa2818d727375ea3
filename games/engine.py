"""The one contract every game engine follows, so the bot never special-cases a game.

An engine is a handful of pure functions over a pydantic ``State``
(README, "Layout": games/ are pure rule engines, no I/O):

* ``new_table(settings, rng)`` -> State; ``settings(state)`` -> every setting's value
* ``legal_actions(state, player)`` -> what that player may do now, with bounds
* ``apply(state, player, action, rng)`` -> :class:`Step` (new state, events,
  transfers); an illegal action raises :class:`IllegalAction` and the input
  state is untouched (engines work on a copy)
* ``awaiting(state)`` -> the players whose decision the table waits for
* ``timeout(state, rng)`` -> the safe default applied to every awaited player
* ``view(state, viewer)`` -> :class:`TableView`, the **only** way from state to
  anything a person sees

The host reads one typed seam and never guesses at a game's shapes, so a new game needs
no change in the host:

* event data and view facts hold typed values only (:data:`Value`: cards, players, chips,
  a win or loss, a count, a word, a poker hand, points...), worded by their type;
* every settled coup ends with one :class:`Settlement` of the same schema (the coup, every
  player's net with the banker's, the banker, the hands shown, the winners); a revealed
  shoe, a player's proof, a timeout and a stand-up are typed events too, and ``about``
  says what else an event is to a screen (:class:`About`);
* a view's ``facts`` are what the table shows and nothing else; the shoe's public facts
  are :class:`ShoeFacts`; settings are ``settings(state)``;
* an :class:`ActionSpec` says what it asks of the player (:class:`Input`);
* a game brings its words (:class:`GameTexts`): names, event templates, facts' labels,
  words, buttons, rules.

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
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, WrapValidator, model_validator

from games.values import (  # the typed values are the contract's: engines import them here
    Cards as Cards,
)
from games.values import (
    Chips as Chips,
)
from games.values import (
    Count as Count,
)
from games.values import (
    Each as Each,
)
from games.values import (
    Flag as Flag,
)
from games.values import (
    Hand as Hand,
)
from games.values import (
    PlayerId as PlayerId,
)
from games.values import (
    Players as Players,
)
from games.values import (
    Points as Points,
)
from games.values import (
    Row as Row,
)
from games.values import (
    Rows as Rows,
)
from games.values import (
    Signed as Signed,
)
from games.values import (
    Text as Text,
)
from games.values import (
    Value as Value,
)
from games.values import (
    Word as Word,
)
from games.values import (
    cards as cards,
)
from games.values import (
    chips as chips,
)
from games.values import (
    count as count,
)
from games.values import (
    each as each,
)
from games.values import (
    flag as flag,
)
from games.values import (
    items as items,
)
from games.values import (
    points as points,
)
from games.values import (
    row as row,
)
from games.values import (
    rows as rows,
)
from games.values import (
    signed as signed,
)
from games.values import (
    text as text,
)
from games.values import (
    typed_dict,
)
from games.values import (
    who as who,
)
from games.values import (
    word as word,
)

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


class ShoeFacts(BaseModel):
    """What anyone may know of the shoe in play: its commitment(s) and the cards left."""

    model_config = ConfigDict(frozen=True)
    commitments: tuple[str, ...]
    cards_left: int = 0
    size: int = 0
    cut: int | None = None
    """The depth it was cut at, once it is; with ``cutter``, who was to cut, and
    ``by_timeout``, whether his time ran out and the timeout rule chose the depth."""
    cutter: PlayerId | None = None
    by_timeout: bool = False
    burned: tuple[str, ...] = ()
    """The cards burned face up after the cut."""

    @classmethod
    def of_record(cls, record: dict[str, Any], cards_left: int = 0) -> ShoeFacts:
        """The facts of a shoe's record (``Shoe.how_dealt()``, ``reveal()``,
        ``reveal_shown()``)."""
        cutter = record.get("cutter")
        return cls(commitments=(str(record.get("commitment", "")),), cards_left=cards_left,
                   size=int(record.get("size", 0)), cut=record.get("cut"),
                   cutter=cutter if isinstance(cutter, int) else None,
                   by_timeout=bool(record.get("by_timeout")),
                   burned=tuple(record.get("burned") or ()))


# ---------------------------------------------------------------------- events


class About(StrEnum):
    """What an event is to the screens, beyond its own words (``Event.about``)."""

    NOTHING = ""
    SHOWDOWN = "showdown"
    """It shows cards that decide the coup (a showdown, a natural, a turned card): the
    coup's log leads with it."""
    OWN_HAND = "own_hand"
    """A private event telling the player his own cards (his whole hand as ``cards``, with
    ``points`` perhaps; or one more card): his message shows his hand anyway, so it is
    not told twice."""
    TURN = "turn"
    """It only says whose turn it is: the table's turn line says it while it lasts."""
    DEALT_DOWN = "dealt_down"
    """One card dealt face down to ``player``: a run of them is told as one line."""


class Event(BaseModel):
    """Something that happened, in the past tense (``card_dealt``, ``bank_passed``).

    ``to`` is ``None`` for a public event, otherwise the only players who may
    see it. Events naming a hidden card must carry ``to``; :func:`visible_events`
    filters them for a viewer exactly like :func:`view` filters the state. ``data``
    holds typed values only (:data:`Value`); the game's texts word the event by its
    ``kind`` with ``data`` as the template's fields. ``data["player"]``, where present,
    is the one player the event is about.
    """

    model_config = ConfigDict(frozen=True)
    kind: str
    to: tuple[PlayerId, ...] | None = None
    data: Annotated[dict[str, Value], WrapValidator(typed_dict)] = Field(default_factory=dict)
    about: About = About.NOTHING

    @property
    def player(self) -> PlayerId | None:
        """The player the event is about (``data["player"]``), if one."""
        found = self.data.get("player")
        return found.ids[0] if isinstance(found, Players) and len(found.ids) == 1 else None


class Settlement(Event):
    """The event that closes a coup or a hand: who won what. Every engine ends a settled
    coup with exactly one; the host announces it as the coup's result (by its type, never
    by its kind's spelling). One schema for every game: ``coup`` (a poker hand's number
    too), each player's ``nets`` (the banker's included), the ``banker`` if one, the
    ``hands`` shown (a poker :class:`Hand` or :class:`Points`) and the ``winners`` (who
    took the pot or the coup, even of nothing). ``feats``: what the coup counts for each
    player in his standings beyond his net, by names the game declares (its
    :attr:`GameTexts.feats` words them): ``natural``, ``bust``, ``banco_won``..."""

    coup: int = 0
    nets: dict[PlayerId, int] = Field(default_factory=dict)
    banker: PlayerId | None = None
    hands: dict[PlayerId, Hand | Points] = Field(default_factory=dict)
    winners: tuple[PlayerId, ...] = ()
    feats: dict[PlayerId, tuple[str, ...]] = Field(default_factory=dict)


class StoodUp(Event):
    """A player was stood up (two timeouts in a row, or too few chips); ``data["player"]``."""


class Purpose(StrEnum):
    """What a shoe was shuffled for."""

    COUPS = ""
    """The coups of a banking game (a talia, a shoe), cut by a player."""
    BANK_DRAW = "bank_draw"
    """Only a draw for the bank: nobody cuts it."""
    ONE_HAND = "one_hand"
    """One poker hand: nobody cuts it."""


class ShoeRevealed(Event):
    """A finished, replaced or closed shoe: how its dealing order was made and what the rules
    let the table see of it (``Shoe.reveal()``: everything, ``whole``;
    ``Shoe.reveal_shown()``: the ``shown`` cards' proofs only), in the form
    ``python -m games.verify`` checks: ``record``, passed on whole, never read by a screen,
    which reads ``shoe``, its typed facts, and ``purpose``."""

    record: dict[str, Any] = Field(default_factory=dict)
    shoe: ShoeFacts = Field(default_factory=lambda: ShoeFacts(commitments=()))
    whole: bool = False
    shown: int = 0
    purpose: Purpose = Purpose.COUPS


class CardsProven(Event):
    """The proof of one player's own cards of a poker hand, for him alone (``to``):
    ``coup`` (the hand) and ``record``, the compact record ``python -m games.verify``
    checks, passed on whole (a list of them when the hand was dealt from several shoes: a
    jackpots deck and its stubs). The host keeps a player's latest and gives it to him when
    he asks (/verify)."""

    coup: int = 0
    record: dict[str, Any] | list[dict[str, Any]] = Field(default_factory=dict)


class TimedOut(Event):
    """An awaited player ran out of time (``data["player"]``); his safe default follows."""


def cut_spec(size: int) -> ActionSpec:
    """The *Cut* a cutter is offered for a shoe of ``size`` cards (docs/rules.md §0.4): any
    depth from 0 to ``size - 1``, with a quarter, half and three quarters as buttons."""
    high = max(0, size - 1)
    return ActionSpec(kind="cut", min=0, max=high, input=Input.AMOUNT,
                      presets=tuple(sorted({size // 4, size // 2, 3 * size // 4} - {0})))


def settlement(kind: str, *, coup: int, nets: dict[PlayerId, int],
               banker: PlayerId | None = None, hands: dict[PlayerId, Hand | Points] | None = None,
               winners: Sequence[PlayerId] = (),
               feats: Mapping[PlayerId, Sequence[str]] | None = None,
               **data: Value) -> Settlement:
    """The public :class:`Settlement` event (a player without feats is left out of
    ``feats``); ``data``: what else its text tells."""
    return Settlement(kind=kind, data=data, coup=coup, nets=dict(nets), banker=banker,
                      hands=dict(hands or {}), winners=tuple(winners),
                      feats={p: tuple(f) for p, f in (feats or {}).items() if f})


def stood_up(player: PlayerId, **data: Value) -> StoodUp:
    """The public :class:`StoodUp` event: two timeouts in a row, or, with ``least`` (the
    chips he would need), too few chips to play (docs/rules.md §0.13)."""
    return StoodUp(kind="stood_up", data={"player": who(player), **data})


def timed_out(player: PlayerId, **data: Value) -> TimedOut:
    """The public :class:`TimedOut` event (``data``: what else its text tells)."""
    return TimedOut(kind="timed_out", data={"player": who(player), **data})


def cards_proven(player: PlayerId, coup: int,
                 record: dict[str, Any] | list[dict[str, Any]]) -> CardsProven:
    """The private :class:`CardsProven` event of ``player``'s own cards."""
    return CardsProven(kind="cards_proven", to=(player,), data={"player": who(player)},
                       coup=coup, record=record)


def shoe_revealed(record: dict[str, Any], purpose: Purpose = Purpose.COUPS,
                  **data: Value) -> ShoeRevealed:
    """The public :class:`ShoeRevealed` event (``record``: ``Shoe.reveal()`` or
    ``reveal_shown()``)."""
    return ShoeRevealed(kind="shoe_revealed", data=data, record=record,
                        shoe=ShoeFacts.of_record(record), whole="order" in record,
                        shown=len(record.get("shown") or ()), purpose=purpose)


CONTRACT_EVENTS: frozenset[str] = frozenset({
    "stood_up", "timed_out", "cards_proven", "shoe_revealed"})
"""The event kinds the contract itself defines; every other kind is a game's own, worded
by its texts (:class:`GameTexts`)."""


def public(kind: str, about: About = About.NOTHING, **data: Value) -> Event:
    """A public event."""
    return Event(kind=kind, data=data, about=about)


def private(kind: str, to: Sequence[PlayerId], about: About = About.NOTHING,
            **data: Value) -> Event:
    """An event only the players in ``to`` may see."""
    return Event(kind=kind, to=tuple(to), data=data, about=about)


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


class Input(StrEnum):
    """What taking an action asks of the player, beyond pressing its button."""

    PLAIN = "plain"
    """Nothing: the button is the action (*Stand*, *Banco*, a call of ``min``)."""
    AMOUNT = "amount"
    """An amount from ``min`` to ``max`` (``presets`` on buttons; another typed), which
    fills the action's one int field."""
    CHOICE = "choice"
    """One of ``choices``, words the game's texts translate; with ``min``/``max`` also an
    amount for the chosen way (a banchok stake that forbids joining)."""
    OWN_CARDS = "own_cards"
    """Some of the player's own cards (``choices``: his hand), picked in his private chat,
    at most ``max`` of them (a poker discard)."""
    UTILITY = "utility"
    """Anybody's, whatever the turn (*Join*, *Leave*); the host fills any argument itself
    (the buy-in is the whole wallet)."""


class ActionSpec(BaseModel):
    """One thing a player may do now: its ``kind`` and what it asks (``input``), with
    bounds (``min``/``max``), suggested amounts (``presets``) or ``choices``."""

    model_config = ConfigDict(frozen=True)
    kind: str
    input: Input = Input.PLAIN
    min: int | None = None
    max: int | None = None
    presets: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()
    private: bool = False
    """True when merely offering this action reveals a hidden card (jackpots' *Open* needs
    jacks or better): the bot offers it only to the player himself, never on a group button.
    Where a hidden card decides whether an action is offered, every action of that decision
    is private for every player in that situation, so the group cannot tell them apart."""


MAX_CHOICES = 12
"""The most choices a spec may offer (buttons in a row of a keyboard)."""


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
    facts: dict[str, Value] = Field(default_factory=dict)
    """Public facts of the game the table shows (who is offered the bank, the stakes still
    open...), labelled by the game's texts; never a hidden card, never anything the table
    must not show (settings are :meth:`Engine.settings`; the shoe is :attr:`shoe`)."""
    my_facts: dict[str, Value] = Field(default_factory=dict)
    """Facts for the viewer alone, derived from his own hidden cards (his points, a hint);
    always empty in the public view. The bot shows them only in his private chat or pop-up."""
    shoe: ShoeFacts | None = None
    """The shoe in play, for /verify: its commitment (and those of shoes under it)."""


class Achievement(BaseModel):
    """An achievement a game declares (the host knows none by name, as with feats): reached
    by a player in one chat's games of this kind, once, at the settled coup that first meets
    its condition, exactly one of:

    * ``feat``: his count of this feat (:attr:`Settlement.feats`) reaches ``count``;
    * ``bank_run``: he holds the bank this many coups in a row;
    * ``hand``: he shows a poker hand of this category (a :class:`~games.poker.ranking.
      HandCategory` value: ``"royal_flush"``) or a better one.

    ``key`` is unique within the game; its words are :attr:`GameTexts.achievements`."""

    model_config = ConfigDict(frozen=True)
    key: str
    icon: str = "🏅"
    feat: str = ""
    count: int = Field(default=1, ge=1)
    bank_run: int = Field(default=0, ge=0)
    hand: str = ""

    @model_validator(mode="after")
    def _one_condition(self) -> Achievement:
        if (bool(self.feat), bool(self.bank_run), bool(self.hand)).count(True) != 1:
            raise ValueError(f"achievement {self.key!r}: exactly one of feat, bank_run, hand")
        return self


class GameTexts(BaseModel):
    """What a game's screens say, per language (``"en"``, ``"ru"``): the host words
    everything of a game by these, and knows no game's words itself.

    * ``name``: the game's display name; ``aliases``: what players call it (/newtable,
      /rules), in any case;
    * ``events``: a template (or several, most specific first) per event kind, filled with
      the event's data worded by type; ``{n_cards}`` is a count ``n`` with its noun;
    * ``facts``: the label of each key of :attr:`TableView.facts` and ``my_facts``;
    * ``feats``: the label of each feat a settlement counts (:attr:`Settlement.feats`), as
      a player's statistics list it ("Naturals");
    * ``achievements``: each of the game's :class:`Achievement` by its key, as its title and
      what earns it ("Banco natural", "a natural nine that wins a banco");
    * ``words``: phases, roles, statuses and word values (:class:`Word`); a key
      ``"context:value"`` (``"phase:draw"``) wins over the plain value;
    * ``values``: word values inside event data (an outcome, a reason), by the word;
    * ``numbered``: how a number under a key of a player's line reads (``"stake {n}"``;
      ``{n_points}``: the number with its noun, "1 point");
    * ``actions``: button labels per action kind; ``"kind:amount"`` with ``{amount}``;
    * ``settings``: what each of the game's settings is, and its unit (``"chip"``) or the
      words it takes (``"on | off"``), for /settings;
    * ``rules``: the /rules text (Markdown).
    """

    model_config = ConfigDict(frozen=True)
    name: dict[str, str]
    aliases: tuple[str, ...] = ()
    events: dict[str, dict[str, str | tuple[str, ...]]] = Field(default_factory=dict)
    facts: dict[str, dict[str, str]] = Field(default_factory=dict)
    feats: dict[str, dict[str, str]] = Field(default_factory=dict)
    achievements: dict[str, dict[str, tuple[str, str]]] = Field(default_factory=dict)
    words: dict[str, dict[str, str]] = Field(default_factory=dict)
    values: dict[str, dict[str, str]] = Field(default_factory=dict)
    numbered: dict[str, dict[str, str]] = Field(default_factory=dict)
    actions: dict[str, dict[str, str]] = Field(default_factory=dict)
    settings: dict[str, dict[str, tuple[str, str]]] = Field(default_factory=dict)
    rules: dict[str, str] = Field(default_factory=dict)

    def merged(self, *more: GameTexts) -> GameTexts:
        """These texts with ``more`` under them (shared texts a game builds on): this
        game's own entries win."""
        def join(field: str) -> dict[str, dict[str, Any]]:
            out: dict[str, dict[str, Any]] = {}
            for texts in (*reversed(more), self):
                for lang, entries in getattr(texts, field).items():
                    out.setdefault(lang, {}).update(entries)
            return out
        return self.model_copy(update={f: join(f) for f in
                                       ("events", "facts", "feats", "words", "values",
                                                       "numbered", "actions", "settings")})


# ------------------------------------------------------------------- contract


class Engine(Protocol[S]):
    """What the bot, storage and ``games.simulate`` rely on; every game module provides one."""

    name: ClassVar[str]
    texts: ClassVar[GameTexts]
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

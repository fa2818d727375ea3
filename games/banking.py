"""Mechanics the four banking games (chemin de fer, baccarat, banchok, twenty-one) share.

Only what is truly the same in each of them lives here; every rule that
differs stays in the game's own package, readable there top to bottom.
Nothing here depends on a game's phases or choices.

Every banking game has one layout: ``__init__`` (the engine: actions, timeouts,
views, accounts, close), ``model`` (state, the game's own actions, what can be read
off them), ``coup`` (playing a coup), plus modules of its own where its rules need them.
The actions several games offer (:class:`Stake`, :class:`Pass`, :class:`Bid`...) are
defined once, here. Its steps run in a :class:`Ctx`, whose :meth:`Ctx.move` is the one
way chips move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, Protocol, TypeVar

from pydantic import Field

from games.cards import Shoe, rank_index
from games.engine import (
    BANK,
    POT,
    Achievement,
    Action,
    ActionSpec,
    Event,
    GameState,
    IllegalAction,
    Input,
    PlayerId,
    Purpose,
    Reason,
    SeatBase,
    Settlement,
    Step,
    Transfer,
    Value,
    chips,
    public,
    row,
    rows,
    shoe_revealed,
    stack,
    stake,
    stood_up,
    text,
    wallet,
    who,
    word,
)
from games.engine import (
    cards as show,
)
from games.engine import (
    timed_out as timed_out_event,
)
from games.table import (
    check_join,
    closing_events,
    closing_transfers,
    find_seat,
    right_of,
    seat_index,
    stood_up_after_two,
)

S = TypeVar("S", bound=GameState)
T = TypeVar("T", bound=SeatBase)
T_co = TypeVar("T_co", bound=SeatBase, covariant=True)

IDLE = "idle"
"""The phase every banking game waits for ``Start`` in."""


# -------------------------------------------------------------------- actions
#
# The actions more than one banking game offers, defined once. A game keeps a
# class of its own only where its action differs: banchok's stake may forbid
# joining and its bank is fixed (no amount), baccarat's bank is posted with an
# amount, and chemin de fer's banco and twenty-one's buy are theirs alone.
# ``kind`` and the field names are what buttons and stored logs carry.

Amount = Annotated[int, Field(gt=0)]
"""Chips a player puts up: a stake, a bid, a bank, a joined part. Never 0: every banking
game's minimum is at least 1 chip (docs/rules.md §1–§4), so :func:`games.engine.parse_action`
refuses 0 with ``Reason.AMOUNT_OUT_OF_RANGE`` before the engine sees the action."""

NATURALS: tuple[Achievement, ...] = (
    Achievement(key="first_natural", icon="🌟", feat="natural"),
    Achievement(key="naturals_10", icon="✨", feat="natural", count=10))
"""The achievements of a game that counts naturals: its first, its tenth."""


def bank_runs(*runs: int) -> tuple[Achievement, ...]:
    """The achievements of holding the bank ``runs`` coups in a row (``bank_<n>``): the
    first with a bank's icon, the next with a castle's."""
    return tuple(Achievement(key=f"bank_{n}", icon="🏦" if i == 0 else "🏰", bank_run=n)
                 for i, n in enumerate(runs))


class Bid(Action):
    """Bid ``amount`` chips from the stack for the bank in the auction
    (docs/rules.md §1.1, §2.1)."""

    kind: Literal["bid"] = "bid"
    amount: Amount


class Pass(Action):
    """Pass: no bid in the auction (docs/rules.md §1.1, §2.1), no stake this coup
    (§1.3, §2.3, §4.2), or no baccara (§2.6); the safe default of each."""

    kind: Literal["pass"] = "pass"


class Stake(Action):
    """Stake ``amount`` chips against the bank on the coming coup
    (docs/rules.md §1.3, §2.3, §4.2)."""

    kind: Literal["stake"] = "stake"
    amount: Amount


class Draw(Action):
    """Take a third card: the playing punter or the banker in chemin de fer
    (docs/rules.md §1.6, §1.7), a punter on 0–4 or the banker in baccarat (§2.7)."""

    kind: Literal["draw"] = "draw"


class Stand(Action):
    """Keep two cards (docs/rules.md §1.6, §1.7, §2.7), or stop buying in twenty-one
    (§4.6; the safe default of a punter)."""

    kind: Literal["stand"] = "stand"


class Retire(Action):
    """The banker gives up the bank between coups, keeping what it holds
    (docs/rules.md §1.9, §2.9)."""

    kind: Literal["retire"] = "retire"


class Decline(Action):
    """Refuse the bank offered: in chemin de fer it goes on counter-clockwise
    (docs/rules.md §1.8); a baccara declarer who does not take it opens a new auction
    (§2.6); in banchok refusing it means leaving the table (§3.8), except for the last
    banker, offered it again because nobody else took it, who keeps his seat."""

    kind: Literal["decline"] = "decline"



# ------------------------------------------------------------ the step context


@dataclass
class Ctx(Generic[S]):
    """One step in progress: the state being changed (a :func:`fork`), the rng, and the
    events and transfers the step produced so far.

    :meth:`move` is the only way chips move: it changes the balances in the state and
    records the transfer together, which is what keeps :meth:`Engine.accounts` and
    the transfers in step.
    """

    st: S
    rng: random.Random | None
    events: list[Event] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    pot: int = 0
    """The pot (:data:`POT`): chips passing between players within this step only."""
    settled: int | None = None
    """How many transfers came before the step's settlement (:attr:`Step.settled`)."""

    def emit(self, event: Event) -> None:
        """Record an event of this step."""
        self.events.append(event)
        if isinstance(event, Settlement):
            self.settled = len(self.transfers)

    def move(self, src: str, dst: str, amount: int, reason: str) -> None:
        """Move ``amount`` chips from account ``src`` to ``dst`` (nothing when zero)."""
        if amount < 0:
            raise ValueError("a transfer amount is never negative")
        if amount == 0:
            return
        self._adjust(src, -amount)
        self._adjust(dst, amount)
        self.transfers.append(Transfer(src=src, dst=dst, amount=amount, reason=reason))

    def _adjust(self, account: str, delta: int) -> None:
        # every banking state with a bank has an int ``bank``, every seat an int ``stake``
        if account == BANK:
            table: Any = self.st
            table.bank += delta
            return
        if account == POT:
            self.pot += delta
            return
        kind, _, who = account.partition(":")
        if kind == "wallet":
            return  # wallets live outside the table
        seat: Any = find_seat(_seats(self.st), int(who))
        if kind == "stack":
            seat.stack += delta
        elif kind == "stake":
            seat.stake += delta
        else:  # pragma: no cover - a programming error, not a player's
            raise ValueError(f"unknown account {account}")


Dispatch = Callable[[Ctx[S], PlayerId, Action], None]
"""A game's handler of one action: it changes ``ctx.st`` and records events and transfers."""

TimedOut = Callable[[Ctx[S], PlayerId], None]
"""A game's handler of one awaited player's timeout: count it, then apply his safe default."""


# ------------------------------------------------------------------- a step


def fork(state: S) -> S:
    """A copy of ``state`` sharing nothing an action changes in place; far cheaper than deep.

    Every list of the state is copied, and every seat in them, with the seat's
    own lists (its cards). Everything else is shared: cards are strings, a shoe
    is only ever replaced (its methods return a new shoe), and the other models
    kept in lists (bids, results, gathered shoes) are frozen or only replaced.
    """
    s = state.model_copy()
    # Straight through __dict__: a copy needs none of pydantic's attribute machinery.
    fields = s.__dict__
    for name, value in fields.items():
        if value.__class__ is list:
            fields[name] = [_fork_seat(x) for x in value] if _holds_seats(value) else list(value)
    return s


def _holds_seats(value: list[Any]) -> bool:
    # A list holds one kind of thing, so its first item tells; looking at every card
    # of a discard pile cost the simulations a third of their speed.
    return bool(value) and isinstance(value[0], SeatBase)


def _fork_seat(seat: T) -> T:
    copy = seat.model_copy()
    fields = copy.__dict__
    for name, value in fields.items():
        if value.__class__ is list:
            fields[name] = list(value)
    return copy


def _seats(state: GameState) -> list[SeatBase]:
    return [x for value in state.__dict__.values()
            if value.__class__ is list and _holds_seats(value) for x in value]


def apply_on_fork(state: S, player: PlayerId, action: Action, rng: random.Random | None,
                  dispatch: Dispatch[S]) -> Step[S]:
    """Apply ``action`` through ``dispatch`` on a :func:`fork` of ``state``; the input is untouched.

    The player's own accepted action resets his consecutive timeouts (docs/rules.md §0
    "Timeouts"), and the version goes up by exactly one. *Leave* from a seat that is
    already leaving changes nothing the rules care about: it is refused, never a step.
    """
    if action.kind == "leave" and any(x.player == player and x.leaving
                                      for x in _seats(state)):
        raise IllegalAction(Reason.ALREADY_LEAVING)
    ctx = Ctx(fork(state), rng)
    dispatch(ctx, player, action)
    return _finish(ctx, state, reset=player)


def timeout_on_fork(state: S, rng: random.Random | None,
                    awaiting: Callable[[S], list[PlayerId]], timed_out: TimedOut[S]) -> Step[S]:
    """Time out every player ``state`` awaits through ``timed_out``, on a :func:`fork`.

    A player whom an earlier default already released (the auction resolved,
    say) is skipped. After a timeout the version still goes up by exactly one.
    """
    ctx = Ctx(fork(state), rng)
    for player in awaiting(state):
        if player in awaiting(ctx.st):
            uncut = _uncut_shoe(ctx.st)
            timed_out(ctx, player)
            shoe = getattr(ctx.st, "shoe", None)
            if uncut is not None and isinstance(shoe, Shoe) \
                    and shoe.commitment == uncut and shoe.cutter is not None:
                # docs/rules.md §0.4: his time ran out, the rule cut: the shoe says so
                ctx.st.shoe = shoe.cut_by_timeout()  # type: ignore[attr-defined]
    return _finish(ctx, state)


def _uncut_shoe(state: GameState) -> str | None:
    """The commitment of the table's shoe while nobody has cut it yet, else None."""
    shoe = getattr(state, "shoe", None)
    return shoe.commitment if isinstance(shoe, Shoe) and shoe.cutter is None else None


def _finish(ctx: Ctx[S], state: S, reset: PlayerId | None = None) -> Step[S]:
    """The step: version + 1, and the acting player's consecutive timeouts reset."""
    assert ctx.pot == 0, "the pot only passes chips on within a step"
    for seat in _seats(ctx.st):
        if seat.player == reset:
            seat.timeouts = 0
    ctx.st.version = state.version + 1
    return Step(state=ctx.st, events=ctx.events, transfers=ctx.transfers, settled=ctx.settled)


# ---------------------------------------------------------- seats and play


def sit_down(ctx: Ctx[Any], seats: list[T], newcomer: T, max_players: int,
             **data: Value) -> None:
    """Seat ``newcomer``, whose stack is his buy-in; he plays from the next coup.

    ``data`` adds game facts to the public ``player_joined`` event.
    """
    check_join(seats, newcomer.player, max_players)
    buy_in, newcomer.stack = newcomer.stack, 0
    seats.append(newcomer)
    ctx.move(wallet(newcomer.player), stack(newcomer.player), buy_in, "buy_in")
    ctx.emit(Event(kind="player_joined", data={
        "player": who(newcomer.player), "name": text(newcomer.name), "stack": chips(buy_in),
        **data}))


def cash_out(ctx: Ctx[Any], seat: SeatBase) -> int:
    """The stack of ``seat`` back to his wallet (he is about to stand up); the amount."""
    amount = seat.stack
    ctx.move(stack(seat.player), wallet(seat.player), amount, "cash_out")
    return amount


def check_start(phase: str, seated: int, min_players: int) -> None:
    """Refuse ``Start`` unless the table is idle with enough players seated."""
    if phase != IDLE:
        raise IllegalAction(Reason.WRONG_PHASE)
    if seated < min_players:
        raise IllegalAction(Reason.NOT_ENOUGH_PLAYERS)


def check_turn(phase: str, queue: Sequence[PlayerId], player: PlayerId, *phases: str) -> None:
    """Refuse an action outside ``phases``, or from anyone but the head of ``queue``."""
    if phase not in phases:
        raise IllegalAction(Reason.WRONG_PHASE)
    if not queue or queue[0] != player:
        raise IllegalAction(Reason.NOT_YOUR_TURN)


def count_timeout(ctx: Ctx[Any], seat: SeatBase, **data: Value) -> None:
    """One more consecutive timeout for ``seat``, announced publicly (``data`` adds facts)."""
    seat.timeouts += 1
    ctx.emit(timed_out_event(seat.player, **data))


def stand_up_after_two(ctx: Ctx[Any], seat: SeatBase) -> None:
    """docs/rules.md §0 "Timeouts": two in a row and he is stood up after the current coup
    (:func:`games.table.stood_up_after_two`, poker's rule too)."""
    for event in stood_up_after_two(seat):
        ctx.emit(event)


def stand_up_broke(ctx: Ctx[Any], seats: Iterable[SeatBase], least: int,
                   spare: PlayerId | None = None) -> None:
    """docs/rules.md §0.13: a seat whose stack cannot cover ``least`` (the least he must stake)
    is stood up after the coup, and the table is told why. ``spare``: the banker, whose
    chips are in his bank."""
    for seat in seats:
        if seat.player != spare and not seat.leaving and seat.stack < least:
            seat.leaving = True
            ctx.emit(stood_up(seat.player, least=chips(least)))


class Tabled(Protocol[T_co]):
    """A banking table: its seats, clockwise, and its banker if any."""

    @property
    def seats(self) -> Sequence[T_co]: ...
    @property
    def banker(self) -> PlayerId | None: ...


def seat_of(st: Tabled[T], player: PlayerId | None) -> T:
    """``player``'s seat; refuses a player who is not seated, and ``None`` (no banker, no
    punter yet) as the wrong phase."""
    if player is None:
        raise IllegalAction(Reason.WRONG_PHASE)
    return find_seat(st.seats, player)


def is_seated(st: Tabled[SeatBase], player: PlayerId | None) -> bool:
    """Is ``player`` seated at the table?"""
    return any(x.player == player for x in st.seats)


def seat_specs(st: Tabled[T], phase: str, player: PlayerId, min_players: int,
               max_players: int) -> tuple[T | None, list[ActionSpec]]:
    """``player``'s seat (``None`` for an outsider) and what the table itself offers him:
    a seat while one is free; to a seated player *Leave* (unless he is already leaving)
    and, at an idle table with enough players, *Start*."""
    if not is_seated(st, player):
        return None, [JOIN] if len(st.seats) < max_players else []
    seat = seat_of(st, player)
    out = [LEAVE] if not seat.leaving else []
    if phase == IDLE and len(st.seats) >= min_players:
        out.append(START)
    return seat, out


# the table's own offers, the same every time (an ActionSpec is frozen): made once, not for
# every player at every step
JOIN = ActionSpec(kind="join", input=Input.UTILITY)
LEAVE = ActionSpec(kind="leave", input=Input.UTILITY)
START = ActionSpec(kind="start")


def cutter(st: Tabled[SeatBase]) -> PlayerId:
    """The player to the banker's right, who cuts a new shoe (docs/rules.md §0.4; each
    game's rules name him)."""
    i = seat_index(st.seats, seat_of(st, st.banker).player)
    return st.seats[right_of(len(st.seats), i)].player


def presets(low: int, high: int, *amounts: int) -> tuple[int, ...]:
    """Amounts offered on buttons: ``low``, ``high`` and those of ``amounts`` between them."""
    return tuple(sorted({a for a in (low, *amounts, high) if low <= a <= high}))


# ---------------------------------------------------------------- accounts


class StakedSeat(Protocol):
    """A seat with a stack and a stake on the current coup."""

    @property
    def player(self) -> PlayerId: ...
    @property
    def stack(self) -> int: ...
    @property
    def stake(self) -> int: ...


def table_accounts(seats: Iterable[StakedSeat], bank: int = 0) -> dict[str, int]:
    """Every non-empty table account: each seat's stack and stake, and the bank."""
    out: dict[str, int] = {}
    for x in seats:
        if x.stack:
            out[stack(x.player)] = x.stack
        if x.stake:
            out[stake(x.player)] = x.stake
    if bank:
        out[BANK] = bank
    return out


# ---------------------------------------------------------- who banks first


def draw_for_bank(ctx: Ctx[Any], players: Sequence[PlayerId], decks: int,
                  pick: Callable[[Iterable[int]], int]) -> PlayerId:
    """Everyone draws a public card; ``pick`` (``min`` or ``max``) names the winning rank.

    Suits do not matter and aces are high. Players tied on the winning rank
    draw again among themselves, in seat order, from the same fresh shoe (a
    new one when it runs short), which is committed before and revealed after.
    """
    shoe = Shoe.shuffled(decks, ctx.rng)
    ctx.emit(public("shoe_committed", commitment=text(shoe.commitment),
                    purpose=word("banker_draw")))
    drawing = list(players)
    while len(drawing) > 1:
        if shoe.remaining < len(drawing):
            shoe = Shoe.shuffled(decks, ctx.rng)
            ctx.emit(public("shoe_committed", commitment=text(shoe.commitment),
                            purpose=word("banker_draw")))
        shoe, cards = shoe.deal(len(drawing))
        ctx.emit(public("banker_draw", draws=rows(*(row(p, card=show(c))
                                                    for p, c in zip(drawing, cards, strict=True)))))
        best = pick(rank_index(c) for c in cards)
        drawing = [p for p, c in zip(drawing, cards, strict=True) if rank_index(c) == best]
    ctx.emit(shoe_revealed(shoe.reveal(), purpose=Purpose.BANK_DRAW))
    return drawing[0]


def highest_bid(bids: Iterable[tuple[PlayerId, int]]) -> tuple[PlayerId, int] | None:
    """The winning bid of a bank auction: the highest, the earliest among equals.

    A bid of 0 is a pass; ``None`` when nobody bid.
    """
    best: tuple[PlayerId, int] | None = None
    for player, amount in bids:
        if amount > 0 and (best is None or amount > best[1]):  # strictly: earliest keeps it
            best = (player, amount)
    return best


# ---------------------------------------------------------- whose bank


def bank_holders(transfers: Sequence[Transfer], banker: PlayerId | None) -> list[PlayerId | None]:
    """For each transfer, the player whose chips its :data:`BANK` side moves (``None``: it
    does not touch the bank): the bank is its banker's, every chip of it (see
    :func:`close_table`). ``banker`` holds it when the transfers begin; chips go into a bank
    from a stack only when a banker posts it, so such a transfer makes its poster the
    holder. His history then shows the bank's wins and losses as his, and posting or
    taking back a bank as a move between his own accounts."""
    out: list[PlayerId | None] = []
    holder = banker
    for t in transfers:
        if t.dst == BANK and t.src.startswith("stack:"):
            holder = int(t.src.partition(":")[2])
        out.append(holder if BANK in (t.src, t.dst) else None)
    return out


# --------------------------------------------------------- closing a table


def close_table(state: S, accounts: dict[str, int], closed: S, banker: PlayerId | None,
                void: bool, shoes: Sequence[Shoe | None]) -> Step[S]:
    """The step of /closetable: ``closed`` (the game's empty table) after every table
    account of ``state`` (``accounts``) went back to the wallets (docs/rules.md §0.12).

    Stakes stay in each punter's own account until a coup settles, so nobody but
    the banker has chips in a bank between steps: the whole bank is his.
    """
    seats = [x.player for x in _seats(state)]
    transfers = closing_transfers(accounts, seats,
                                  owners={BANK: banker} if banker is not None else {})
    return Step(state=closed, transfers=transfers,
                events=closing_events(state.coup, void, seats, transfers, shoes))

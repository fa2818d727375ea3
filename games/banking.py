"""Mechanics the four banking games (chemin de fer, baccarat, banchok, twenty-one) share.

Only what is truly the same in each of them lives here; every rule that
differs stays in the game's own package, readable there top to bottom.
Nothing here depends on a game's phases or choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from games.cards import Shoe, rank_index
from games.engine import (
    BANK,
    Action,
    Event,
    GameState,
    IllegalAction,
    PlayerId,
    Reason,
    SeatBase,
    Step,
    Transfer,
    public,
    shoe_revealed,
    stack,
    stake,
    stood_up,
)
from games.table import buy_in_transfers, check_join, closing_events, closing_transfers

S = TypeVar("S", bound=GameState)
T = TypeVar("T", bound=SeatBase)

IDLE = "idle"
"""The phase every banking game waits for ``Start`` in."""

Dispatch = Callable[[S, PlayerId, Action, list[Event], list[Transfer], random.Random | None],
                    None]
"""A game's handler of one action: it changes the copied state and appends events and transfers."""

TimedOut = Callable[[S, PlayerId, list[Event], list[Transfer], random.Random | None], None]
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
    "Timeouts"), and the version goes up by exactly one.
    """
    s = fork(state)
    events: list[Event] = []
    transfers: list[Transfer] = []
    dispatch(s, player, action, events, transfers, rng)
    for seat in _seats(s):
        if seat.player == player:
            seat.timeouts = 0
    s.version = state.version + 1
    return Step(state=s, events=events, transfers=transfers)


def timeout_on_fork(state: S, rng: random.Random | None,
                    awaiting: Callable[[S], list[PlayerId]], timed_out: TimedOut[S]) -> Step[S]:
    """Time out every player ``state`` awaits through ``timed_out``, on a :func:`fork`.

    A player whom an earlier default already released (the auction resolved,
    say) is skipped. After a timeout the version still goes up by exactly one.
    """
    s = fork(state)
    events: list[Event] = []
    transfers: list[Transfer] = []
    for player in awaiting(state):
        if player in awaiting(s):
            timed_out(s, player, events, transfers, rng)
    s.version = state.version + 1
    return Step(state=s, events=events, transfers=transfers)


# ---------------------------------------------------------- seats and play


def sit_down(seats: list[T], newcomer: T, max_players: int, events: list[Event],
             transfers: list[Transfer], **data: Any) -> None:
    """Seat ``newcomer``, whose stack is his buy-in; he plays from the next coup.

    ``data`` adds game facts to the public ``player_joined`` event.
    """
    check_join(seats, newcomer.player, max_players)
    seats.append(newcomer)
    transfers += buy_in_transfers(newcomer.player, newcomer.stack)
    events.append(public("player_joined", player=newcomer.player, name=newcomer.name,
                         stack=newcomer.stack, **data))


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


def count_timeout(seat: SeatBase, events: list[Event], **data: Any) -> None:
    """One more consecutive timeout for ``seat``, announced publicly (``data`` adds facts)."""
    seat.timeouts += 1
    events.append(public("timed_out", player=seat.player, **data))


def stand_up_after_two(seat: SeatBase, events: list[Event]) -> None:
    """docs/rules.md §0 "Timeouts": two in a row and he is stood up after the current coup."""
    if seat.timeouts >= 2 and not seat.leaving:
        seat.leaving = True
        events.append(stood_up(seat.player))


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


def draw_for_bank(players: Sequence[PlayerId], decks: int, rng: random.Random | None,
                  events: list[Event], pick: Callable[[Iterable[int]], int]) -> PlayerId:
    """Everyone draws a public card; ``pick`` (``min`` or ``max``) names the winning rank.

    Suits do not matter and aces are high. Players tied on the winning rank
    draw again among themselves, in seat order, from the same fresh shoe (a
    new one when it runs short), which is committed before and revealed after.
    """
    shoe = Shoe.shuffled(decks, rng)
    events.append(public("shoe_committed", commitment=shoe.commitment, purpose="banker_draw"))
    drawing = list(players)
    while len(drawing) > 1:
        if shoe.remaining < len(drawing):
            shoe = Shoe.shuffled(decks, rng)
            events.append(public("shoe_committed", commitment=shoe.commitment,
                                 purpose="banker_draw"))
        shoe, cards = shoe.deal(len(drawing))
        events.append(public("banker_draw",
                             draws=[{"player": p, "card": c}
                                    for p, c in zip(drawing, cards, strict=True)]))
        best = pick(rank_index(c) for c in cards)
        drawing = [p for p, c in zip(drawing, cards, strict=True) if rank_index(c) == best]
    events.append(shoe_revealed(purpose="banker_draw", **shoe.reveal()))
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

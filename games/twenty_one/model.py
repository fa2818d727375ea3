"""Twenty-one: card values, actions, the table state and what can be read off it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from games import banking
from games.banking import seat_of
from games.cards import Card, Shoe
from games.engine import Action, GameState, PlayerId, SeatBase
from games.table import clockwise_from, left_of, seat_index

IDLE, CUT, STAKING, DRAWING, BANKER = "idle", "cut", "staking", "drawing", "banker"
MAX_BUYS = 3  # docs/rules.md §4.6: "up to three cards"
CARDS_PER_PLAYER = 5  # docs/rules.md §4.8: a coup needs five cards per player in the shoe
BANKER_STANDS_ON = 17  # Decision: the banker's safe default buys while his total is 16 or less
# ---------------------------------------------------------------- card values


def card_value(card: str) -> int:
    """docs/rules.md §4.3: 2–10 face value, J/Q/K = 10, ace counted here as 1."""
    r = card[0]
    if r == "A":
        return 1
    if r in "TJQK":
        return 10
    return int(r)


def total(cards: list[str]) -> int:
    """The best total of a hand: one ace counts 11 when that does not bust (§4.3).

    Two aces make 12, not 21: docs/rules.md gives the ace only 1 or 11.
    """
    points = sum(card_value(c) for c in cards)
    if any(c[0] == "A" for c in cards) and points + 10 <= 21:
        points += 10
    return points


def is_natural(cards: list[str]) -> bool:
    """A two-card 21 (§4.4, §4.5)."""
    return len(cards) == 2 and total(cards) == 21


# -------------------------------------------------------------------- actions
#
# Stake, Pass and Stand are the banking games' own (games.banking); Buy is
# twenty-one's alone (a card bought face down, §4.6).


class Buy(Action):
    """Buy one more card, face down (docs/rules.md §4.6)."""

    kind: Literal["buy"] = "buy"


# ---------------------------------------------------------------------- state


class Settings(BaseModel):
    """Table settings: the minimum stake (default 1) and the shoe's decks (docs/rules.md §4)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min_stake: int = Field(default=1, ge=1)
    decks: int = Field(default=2, ge=1, le=8)


class Seat(SeatBase):
    """A player at the table and his part in the current coup."""

    cards: list[Card] = Field(default_factory=list)
    stake: int = 0
    bought: int = 0
    shown: bool = False
    done: bool = False


class Result(BaseModel):
    """One punter's settlement, kept for the table view until the next coup settles."""

    model_config = ConfigDict(frozen=True)
    player: PlayerId
    outcome: str
    net: int
    cards: list[Card] = Field(default_factory=list)


class State(GameState):
    """A twenty-one table. ``queue`` lists who still has to decide in this phase, in order."""

    game: str = "twenty_one"
    phase: str = IDLE
    settings: Settings = Field(default_factory=Settings)
    seats: list[Seat] = Field(default_factory=list)
    banker: PlayerId | None = None
    shoe: Shoe | None = None
    needs_cut: bool = False
    discards: list[Card] = Field(default_factory=list)
    queue: list[PlayerId] = Field(default_factory=list)
    results: list[Result] = Field(default_factory=list)
    last_results: list[Result] = Field(default_factory=list)


Ctx = banking.Ctx[State]
"""One step in progress (:class:`games.banking.Ctx`) over a twenty-one table."""


def dealing_order(s: State) -> list[Seat]:
    """Punters clockwise from the banker's left, the banker last (§4.6 "in dealing order")."""
    b = seat_index(s.seats, seat_of(s, s.banker).player)
    return [s.seats[i] for i in clockwise_from(len(s.seats), left_of(len(s.seats), b))]


def staked_seats(s: State) -> list[Seat]:
    """The punters holding cards this coup, in dealing order."""
    return [x for x in dealing_order(s) if x.player != s.banker and x.cards]


def capacity(s: State) -> int:
    """How much more may be staked: the banker must cover every stake twice (§4.2)."""
    return seat_of(s, s.banker).stack // 2 - sum(x.stake for x in s.seats)


def in_coup(s: State, seat: Seat) -> bool:
    """Is this player involved in the coup under way (so his leaving must wait)?"""
    if s.phase not in (STAKING, DRAWING, BANKER):
        return False
    return seat.player == s.banker or seat.stake > 0 or bool(seat.cards)


"""Polish banchok: the covering rule, actions, the table state and what can be read off it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from games import banking
from games.banking import Amount, seat_of
from games.cards import Card, Shoe, rank_index, suit
from games.engine import Action, GameState, PlayerId, SeatBase
from games.table import clockwise_from, left_of, seat_index

IDLE, POST, CUT, STAKING, JOINING = "idle", "post", "cut", "staking", "joining"
HAND = 3  # docs/rules.md §3.3: three cards to every punter
BANK_LIMIT = 3  # docs/rules.md §3.8: the bank passes once it reaches three times its start



# ------------------------------------------------------------------ covering


def punter_wins(banker_card: str, cards: list[str]) -> bool:
    """docs/rules.md §3.5: the punter wins with a card of the turned card's suit, equal or higher.

    Ace high; an identical card (two decks) wins for the punter. Otherwise the
    banker's card covers him.
    """
    return any(suit(c) == suit(banker_card) and rank_index(c) >= rank_index(banker_card)
               for c in cards)


# ------------------------------------------------------------------- actions
#
# Decline is the banking games' own (games.banking). Banchok keeps its own Stake
# (it may forbid joining, §3.6) and PostBank (the bank is fixed, §3.1: no amount).


class Stake(Action):
    """Name the stake on one's cards (docs/rules.md §3.4), optionally forbidding joining (§3.6)."""

    kind: Literal["stake"] = "stake"
    amount: Amount
    forbid_joining: bool = False


class JoinStake(Action):
    """Примазка: add ``amount`` of one's own to the current punter's stake (docs/rules.md §3.6)."""

    kind: Literal["join_stake"] = "join_stake"
    amount: Amount


class Turn(Action):
    """The punter closes the joining window: the banker's top card is turned (§3.4)."""

    kind: Literal["turn"] = "turn"


class PostBank(Action):
    """Post the fixed bank and take the shoe (docs/rules.md §3.1, §3.8)."""

    kind: Literal["post_bank"] = "post_bank"


# --------------------------------------------------------------------- state


class Settings(BaseModel):
    """Table settings: the fixed bank, the minimum stake, joining on or off, decks (§3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    bank: int = Field(default=300, ge=1)
    min_stake: int = Field(default=5, ge=1)
    joining: bool = True
    decks: int = Field(default=2, ge=1, le=8)


class Seat(SeatBase):
    """A player at the table; ``stake`` is his own stake or his joined part on this coup."""

    cards: list[Card] = Field(default_factory=list)
    stake: int = 0
    forbids: bool = False


class LastCoup(BaseModel):
    """The last card turned, for the table view (all of it was shown to the group)."""

    model_config = ConfigDict(frozen=True)
    punter: PlayerId
    card: Card
    cards: list[Card]
    won: bool
    results: list[tuple[PlayerId, int]]


class State(GameState):
    """A banchok table.

    ``queue``: in ``post`` the players to be offered the bank, in ``cut`` the
    cutter, in ``staking``/``joining`` the punters still to play this round
    (the first is the one playing now). The shoe is the dealing shoe plus the
    gathered parts put under it (``under``), each with its own commitment.
    """

    game: str = "banchok"
    phase: str = IDLE
    settings: Settings = Field(default_factory=Settings)
    seats: list[Seat] = Field(default_factory=list)
    banker: PlayerId | None = None
    last_banker: PlayerId | None = None
    bank: int = 0
    bank_start: int = 0
    staked: bool = False
    """Has anyone staked on this bank yet? From then on it is held until it ends (§3.8)."""
    shoe: Shoe | None = None
    under: list[Shoe] = Field(default_factory=list)
    used: list[Card] = Field(default_factory=list)
    queue: list[PlayerId] = Field(default_factory=list)
    joiners: list[PlayerId] = Field(default_factory=list)
    no_joining: bool = False
    last: LastCoup | None = None
    coup_open: bool = False
    """A punter has been called to stake under ``coup`` and it is not settled yet: each
    coup is numbered when its punter is called, so the table never shows coup 0."""


Ctx = banking.Ctx[State]
"""One step in progress (:class:`games.banking.Ctx`) over a banchok table."""


def clockwise_after(s: State, player: PlayerId) -> list[Seat]:
    """Every other seat, clockwise from ``player``'s left."""
    start = seat_index(s.seats, player)
    return [s.seats[i] for i in clockwise_from(len(s.seats), left_of(len(s.seats), start))
            if i != start]


def punter(s: State) -> Seat | None:
    """The punter playing now (staking or waiting for his card), if any."""
    if s.phase in (STAKING, JOINING) and s.queue:
        return seat_of(s, s.queue[0])
    return None


def stake_total(s: State) -> int:
    """Everything staked on the current punter's cards, joined parts included."""
    return sum(x.stake for x in s.seats)


def stake_bounds(s: State, seat: Seat) -> tuple[int, int]:
    """docs/rules.md §3.4: from the minimum to the whole bank, within the punter's stack.

    Decision: when the bank or the punter's stack is below the minimum, the
    minimum shrinks to it (a stake of everything left).
    """
    hi = min(s.bank, seat.stack)
    return min(s.settings.min_stake, hi), hi


def can_join(s: State, seat: Seat) -> bool:
    """May ``seat`` add to the current stake now (docs/rules.md §3.6)?"""
    p = punter(s)
    return (s.phase == JOINING and p is not None and s.settings.joining and not s.no_joining
            and seat.player not in (s.banker, p.player) and not seat.forbids
            and not seat.leaving and seat.stack > 0 and stake_total(s) < s.bank)


def in_coup(s: State, seat: Seat) -> bool:
    """Has ``seat`` chips on the card about to be turned (so his leaving must wait)?"""
    return s.phase == JOINING and (seat.player == s.banker or seat.stake > 0)


def cards_left(s: State) -> int:
    """Cards still to deal: the shoe and the gathered parts under it."""
    if s.shoe is None:
        return 0
    return s.shoe.remaining + sum(u.remaining for u in s.under)

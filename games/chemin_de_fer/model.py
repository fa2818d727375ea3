"""Chemin de fer: the table state, its actions and the context one step works in.

docs/rules.md §1. The state is one pydantic model; the phases are plain strings.
Phases a player can see are *waiting* phases (somebody must act, or the
table is idle); the *transient* phases exist only inside one step and are
resolved by the engine's loop before the step returns (see
:mod:`games.chemin_de_fer`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from games import banking
from games.banking import Amount
from games.cards import Shoe, hand_points
from games.engine import Action, GameState, PlayerId, SeatBase

GAME = "chemin_de_fer"

# ----------------------------------------------------------------- phases

IDLE = "idle"
AUCTION = "auction"            # docs/rules.md §1.1: everyone may bid for the bank
CUT = "cut"                    # docs/rules.md §1.10: new shoe committed, waiting for the cut
STAKING = "staking"            # docs/rules.md §1.3: punters stake in turn
VOID_CHOICE = "void_choice"    # docs/rules.md §1.3: nobody staked, banker continues or retires
PUNTER_DRAW = "punter_draw"    # docs/rules.md §1.6: the playing punter holds 5 and chooses
BANKER_DRAW = "banker_draw"    # docs/rules.md §1.7: the banker chooses freely
BANK_OFFER = "bank_offer"      # docs/rules.md §1.8: the bank passes counter-clockwise

# transient phases: never in a state returned to a caller
NEXT_COUP = "next_coup"
STAKING_OPEN = "staking_open"
DEAL = "deal"
SHOWDOWN = "showdown"
OFFER_OPEN = "offer_open"
TRANSIENT = frozenset({NEXT_COUP, STAKING_OPEN, DEAL, SHOWDOWN, OFFER_OPEN})

#: Phases in which a coup is under way (cards or stakes may be on the table).
IN_COUP = frozenset({CUT, STAKING, VOID_CHOICE, PUNTER_DRAW, BANKER_DRAW})

SETTINGS_DEFAULTS: dict[str, int] = {"decks": 6, "burn": 3, "min_stake": 1}

#: A coup needs at most six cards (two hands of three); docs/rules.md §1.10.
MIN_CARDS_FOR_COUP = 6


# ------------------------------------------------------------------ models


class Seat(SeatBase):
    """A player at the chemin de fer table; ``stake`` is his stake on the current coup."""

    stake: int = Field(default=0, ge=0)


class State(GameState):
    """Everything about one chemin de fer table, JSON round-trippable.

    ``queue`` is whoever acts next, head first: the punters still to stake
    (phase ``staking``) or the players still to be offered the bank (phase
    ``bank_offer``). ``bids`` is the auction so far in the order received,
    an amount of 0 meaning a pass.
    """

    game: str = GAME
    phase: str = IDLE
    decks: int = Field(default=6, ge=3, le=8)
    burn: int = Field(default=3, ge=3, le=4)
    min_stake: int = Field(default=1, ge=1)
    seats: list[Seat] = Field(default_factory=list)
    banker: PlayerId | None = None
    bank: int = Field(default=0, ge=0)
    shoe: Shoe | None = None
    shoe_ready: bool = False
    discarded: int = 0
    bids: list[tuple[PlayerId, int]] = Field(default_factory=list)
    queue: list[PlayerId] = Field(default_factory=list)
    stake_order: list[PlayerId] = Field(default_factory=list)
    playing: PlayerId | None = None
    punter_cards: list[str] = Field(default_factory=list)
    banker_cards: list[str] = Field(default_factory=list)
    last_coup: dict[str, Any] | None = None


# ----------------------------------------------------------------- actions
#
# Bid, Pass, Stake, Draw, Stand, Retire and Decline are the banking games' own
# (games.banking); these are chemin de fer's alone.


class Banco(Action):
    """Call *banco*: stake the whole bank and play alone (docs/rules.md §1.3)."""

    kind: Literal["banco"] = "banco"


class Continue(Action):
    """The banker keeps the bank after a void coup (docs/rules.md §1.3)."""

    kind: Literal["continue"] = "continue"


class NameBank(Action):
    """Accept the passing bank and name its amount (docs/rules.md §1.8)."""

    kind: Literal["name_bank"] = "name_bank"
    amount: Amount


# ----------------------------------------------------------------- helpers


def seat_index(st: State, player: PlayerId) -> int:
    """Index of ``player``'s seat, or -1."""
    for i, seat in enumerate(st.seats):
        if seat.player == player:
            return i
    return -1


def staked_total(st: State) -> int:
    """The sum of the punters' stakes on the current coup."""
    return sum(s.stake for s in st.seats)


def points(cards: list[str]) -> int:
    """Baccarat-family points of a hand (docs/rules.md §0)."""
    return hand_points(cards)


Ctx = banking.Ctx[State]
"""One step in progress (:class:`games.banking.Ctx`) over a chemin de fer table."""

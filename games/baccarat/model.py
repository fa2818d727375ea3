"""Baccarat (old Russian rules, docs/rules.md §2): settings, seats, state and actions.

The state is plain data; the rules live in :mod:`games.baccarat.coup` (one
coup: deal, naturals, third cards, settlement) and :mod:`games.baccarat`
(the engine: auction, cut, staking, tenure, timeouts, views).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from games import banking
from games.banking import Amount
from games.cards import Card, Shoe
from games.engine import Action, GameState, PlayerId, SeatBase

DECKS = 2
"""docs/rules.md §2: two decks, 104 cards."""

CARDS_PER_HAND = 3
"""The most cards a hand can hold; sizes the "shoe exhausted" test (docs/rules.md §2.9)."""

# Phases. The deal, the naturals and the settlement happen inside one step,
# so they are not phases anybody waits in.
IDLE = "idle"            # waiting for Start (or for players)
AUCTION = "auction"      # docs/rules.md §2.1: bidding for the bank
CUT = "cut"              # docs/rules.md §2.2: a fresh shoe waits for the cutter
STAKING = "staking"      # docs/rules.md §2.3: punters place stakes before the deal
DECLARING = "declaring"  # docs/rules.md §2.6: punters on 0 may declare baccara, all at once
DRAWING = "drawing"      # docs/rules.md §2.7: punters, in turn, draw or stand
BANKER_DRAW = "banker_draw"  # docs/rules.md §2.7: the banker draws or stands, seeing third cards
POST_BANK = "post_bank"  # docs/rules.md §2.6: the baccara declarer posts a bank of his own


class BaccaratSettings(BaseModel):
    """Table settings; unknown keys are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    min_stake: int = Field(default=1, ge=1)
    """Smallest stake; a bank must be at least twice this to cover one stake twice."""

    @property
    def min_bank(self) -> int:
        """The smallest bank: one that covers a minimal stake twice (docs/rules.md §2.1)."""
        return 2 * self.min_stake


class BaccaratSeat(SeatBase):
    """A seat: the common fields plus this coup's stake and cards."""

    in_coup: bool = False
    """Seated (as a punter able to stake) when the current coup began."""
    acted: bool = False
    """Answered the current auction or staking round."""
    stake: int = Field(default=0, ge=0)
    cards: list[Card] = Field(default_factory=list)
    shown: bool = False
    """The first two cards are face up (a natural, a declared baccara)."""
    declared: bool = False
    """Declared baccara this coup (docs/rules.md §2.6)."""


class AuctionBid(BaseModel):
    """One bid for the bank, in the order bids were made (earliest wins ties)."""

    model_config = ConfigDict(frozen=True)
    player: PlayerId
    amount: int = Field(gt=0)


class BaccaratState(GameState):
    """The whole table: seats clockwise in join order, the bank, the shoe, the coup."""

    game: str = "baccarat"
    phase: str = IDLE
    settings: BaccaratSettings = Field(default_factory=BaccaratSettings)
    seats: list[BaccaratSeat] = Field(default_factory=list)
    banker: PlayerId | None = None
    bank: int = Field(default=0, ge=0)
    shoe: Shoe | None = None
    needs_cut: bool = False
    cutter: PlayerId | None = None
    """Who was asked to cut (fixed when the cut is awaited, so a newcomer cannot take it)."""
    discards: list[Card] = Field(default_factory=list)
    """Cards of finished coups of the current shoe (all were shown at their settlement)."""
    extra_shoes: int = 0
    """Shoes the banker still deals after this one: one per baccara he was dealt (§2.9)."""
    bids: list[AuctionBid] = Field(default_factory=list)
    deal_order: list[PlayerId] = Field(default_factory=list)
    """First-round dealing order of this coup's punters (breaks split remainders, §2.5)."""
    draw_order: list[PlayerId] = Field(default_factory=list)
    """Third-card order of this coup's punters (docs/rules.md §2.7)."""
    turn: int = 0
    declarer: PlayerId | None = None
    """The punter who declared baccara this coup; takes the bank after it (§2.6)."""


Ctx = banking.Ctx[BaccaratState]
"""One step in progress (:class:`games.banking.Ctx`) over a baccarat table."""


# -------------------------------------------------------------------- actions
#
# Bid, Pass, Stake, Draw, Stand, Retire and Decline are the banking games' own
# (games.banking); these are baccarat's alone.


class DeclareBaccara(Action):
    """A punter with 0 on two cards declares baccara (docs/rules.md §2.6)."""

    kind: Literal["baccara"] = "baccara"


class PostBank(Action):
    """The baccara declarer posts ``amount`` chips as his bank (docs/rules.md §2.6)."""

    kind: Literal["post_bank"] = "post_bank"
    amount: Amount

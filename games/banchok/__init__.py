"""Polish banchok (docs/rules.md §3), read as the rules of one bank.

1. The player who draws the lowest card (later: the player on the last
   banker's left) posts the fixed bank, or refuses and leaves (§3.1, §3.8).
2. The shoe is shuffled and committed; the player to the banker's right
   cuts (§3.2).
3. Every punter gets three cards face down, one at a time (§3.3).
4. From the banker's left, each punter names a stake from the minimum to the
   whole bank (§3.4); others may join it unless he forbids it (§3.6); the
   banker's top card is turned and covers him unless he holds a card of its
   suit, equal or higher (§3.5).
5. After the last punter, three new cards each without shuffling; the used
   cards are gathered, shuffled and put under the shoe (§3.7).
6. As soon as the bank is empty or tripled the banker takes it and the bank
   passes left (§3.8).

A *coup* is one punter's card turned. Modules: :mod:`.model` (covering rule,
actions, state), :mod:`.coup` (the phases, in order), :mod:`.engine` (the
engine contract). Decisions made where docs/rules.md is silent are marked
**Decision** and listed for players in ``bot/rules/banchok.en.md``.
"""

from games.banchok.engine import ENGINE, BanchokEngine
from games.banchok.model import (
    Decline,
    JoinStake,
    LastCoup,
    PostBank,
    Seat,
    Settings,
    Stake,
    State,
    Turn,
    punter_wins,
)

__all__ = [
    "ENGINE",
    "BanchokEngine",
    "Decline",
    "JoinStake",
    "LastCoup",
    "PostBank",
    "Seat",
    "Settings",
    "Stake",
    "State",
    "Turn",
    "punter_wins",
]

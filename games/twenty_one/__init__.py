"""Twenty-one, "ochko" (docs/rules.md §4), read as the rules of one talia.

A *talia* is one banker dealing one shoe of two decks to its end. Each coup:

1. stakes, before the deal, clockwise from the banker's left (§4.2);
2. two cards face down to every staking punter and to the banker (§4.3);
3. a banker's two-card 21 takes every stake (§4.4); otherwise punters'
   two-card 21s are paid double at once (§4.5);
4. punters buy in dealing order, then the banker (§4.6);
5. showdown and settlement (§4.7); the next coup starts by itself while the
   shoe holds five cards per player, otherwise the bank passes left (§4.8).

The banker's stack pays; each punter's stake sits in ``stake(p)`` until the
coup settles. Modules: :mod:`.model` (card values, actions, state),
:mod:`.coup` (the phases of a talia and a coup, in order), :mod:`.engine`
(the engine contract). Decisions made where docs/rules.md is silent are marked
**Decision** and listed for players in ``bot/rules/twenty_one.en.md``.
"""

from games.twenty_one.engine import ENGINE, TwentyOneEngine
from games.twenty_one.model import (
    Buy,
    Pass,
    Result,
    Seat,
    Settings,
    Stake,
    Stand,
    State,
    card_value,
    is_natural,
    total,
)

__all__ = [
    "ENGINE",
    "Buy",
    "Pass",
    "Result",
    "Seat",
    "Settings",
    "Stake",
    "Stand",
    "State",
    "TwentyOneEngine",
    "card_value",
    "is_natural",
    "total",
]

"""The classic banker tableau, offered to the banker as a hint (docs/rules.md §1.7).

The banker draws freely in our game; the bot may show him what the classic
rule would do. :func:`banker_tableau_hint` is the classic table itself (the
punto banco banker rule), a pure function of the banker's points and the
value of the punters' third card.

In our game that third card is dealt **face down** (docs/rules.md §1.6), so the
banker never knows it. :func:`banker_hint` is therefore what the bot shows
the banker: the tableau's answer when the punter stood; when the punter drew,
the answer the tableau gives for most of the 13 ranks the unseen card could
be (tens and faces count 0). That works out as: draw on 0–3, stand on 4–7.
It is called by the bot for the banker only; it never appears in a public
view, because it depends on the banker's hidden points.
"""

from __future__ import annotations

from typing import Literal

from games.cards import RANKS, baccarat_points
from games.chemin_de_fer.model import BANKER_DRAW, State, points

Hint = Literal["draw", "stand"]


def banker_tableau_hint(banker_points: int, punter_third: int | None) -> Hint:
    """The classic banker rule: draw or stand on ``banker_points`` (0–7).

    ``punter_third`` is the point value (0–9) of the punters' third card, or
    ``None`` when the punters stood on two cards. Naturals (8, 9) never reach
    this decision.
    """
    if not 0 <= banker_points <= 7:
        raise ValueError("the banker decides only on 0-7")
    if punter_third is None:
        return "draw" if banker_points <= 5 else "stand"
    if not 0 <= punter_third <= 9:
        raise ValueError("a card is worth 0-9 points")
    draws_on: dict[int, range | tuple[int, ...]] = {
        0: range(10),
        1: range(10),
        2: range(10),
        3: tuple(v for v in range(10) if v != 8),
        4: range(2, 8),
        5: range(4, 8),
        6: range(6, 8),
        7: (),
    }
    return "draw" if punter_third in draws_on[banker_points] else "stand"


def banker_hint_unseen(banker_points: int) -> Hint:
    """The tableau's answer for most ranks of an unseen third card (see module doc)."""
    draw_ranks = sum(
        1 for r in RANKS
        if banker_tableau_hint(banker_points, baccarat_points(r + "c")) == "draw"
    )
    return "draw" if 2 * draw_ranks > len(RANKS) else "stand"


def banker_hint(state: State) -> Hint | None:
    """The hint to show the banker now, or ``None`` when he is not deciding.

    Uses only what the banker knows: his own cards and whether the punter
    drew (docs/rules.md §1.6: the third card itself is face down).
    """
    if state.phase != BANKER_DRAW:
        return None
    bp = points(state.banker_cards)
    if len(state.punter_cards) == 2:
        return banker_tableau_hint(bp, None)
    return banker_hint_unseen(bp)

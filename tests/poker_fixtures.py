"""Fixed shoes and seated tables for scenario tests and replays of poker hands."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games import registry
from games.cards import DECK, Shoe
from games.engine import Join, Start
from games.poker.common import Bet, PokerEngine, PokerState


def fixed_shoe(first: Sequence[str]) -> Shoe:
    """A one-deck shoe dealing ``first`` in order, then the rest of the deck."""
    rest = [c for c in DECK if c not in first]
    if len(set(first)) != len(first) or len(first) + len(rest) != 52:
        raise ValueError("a fixed shoe needs distinct real cards")
    return Shoe.fixed([*first, *rest])


def draw_order(hands: Sequence[Sequence[str]], then: Sequence[str] = ()) -> list[str]:
    """Cards so that the players (in dealing order) receive ``hands``, one card a round."""
    return [h[r] for r in range(5) for h in hands] + list(then)


def stud_order(hands: Sequence[Sequence[str]]) -> list[str]:
    """Cards so that the players (in dealing order) get ``hands`` = [hole, up1..up4]."""
    return [h[r] for r in range(len(hands[0])) for h in hands]


def seated(engine: PokerEngine, stacks: Sequence[int], shoes: Sequence[Shoe],
           settings: dict[str, Any] | None = None) -> PokerState:
    """Players 1..n seated with ``stacks``, the ``shoes`` queued, the first hand started.

    Player 1 deals the first hand, so player 2 is dealt first and acts first.
    """
    state = engine.new_table(settings or {})
    for i, amount in enumerate(stacks, start=1):
        state = engine.apply(state, i, Join(name=f"P{i}", buy_in=amount)).state
    state = state.model_copy(update={"queued_shoes": list(shoes)})
    return engine.apply(state, 1, Start()).state


def stud_after_first_bet(seed: int = 3) -> tuple[Any, Any]:
    """Five-card stud, three players P1..P3 with 100 each: the first to act has bet 2, the
    next is to act. The engine and the state."""
    engine = registry.engine("stud_poker")
    state = engine.new_table({}, random.Random(seed))
    for p in (1, 2, 3):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=100)).state
    state = engine.apply(state, 1, Start()).state
    first = engine.awaiting(state)[0]
    state = engine.apply(state, first, Bet(amount=2)).state
    return engine, state

"""docs/rules.md §0.13 in a banking game: seat players with these stacks, let player 1 play
his first offer at each of his decisions (every other player's time runs out) until the
table stands someone up for want of chips. Seeded, so each run deals the same shoes."""

from __future__ import annotations

import random
from typing import Any

from games import registry
from games.engine import Event, Join, Start, StoodUp, chips, parse_action


def until_stood_up_for_chips(game: str, stacks: list[int], settings: dict[str, Any],
                             seed: int = 5) -> tuple[list[Event], Any]:
    """The events up to and including the step that stood a seat up for want of chips,
    and the state after it."""
    engine = registry.engine(game)
    rng = random.Random(seed)
    state = engine.new_table(settings, rng)
    for player, stack in enumerate(stacks, start=1):
        state = engine.apply(state, player, Join(name=f"P{player}", buy_in=stack)).state
    events: list[Event] = []
    step = engine.apply(state, 1, Start(), rng)
    for _ in range(300):
        events += step.events
        state = step.state
        if any(isinstance(e, StoodUp) and "least" in e.data for e in step.events):
            return events, state
        awaited = engine.awaiting(state)
        assert awaited, f"the table stopped ({state.phase}) without standing anyone up"
        if awaited[0] == 1:
            spec = next(s for s in engine.legal_actions(state, 1)
                        if s.kind not in ("join", "leave"))
            data: dict[str, Any] = {"kind": spec.kind}
            if spec.kind == "cut":
                data["offset"] = 0
            elif spec.max is not None and "amount" in engine.action_types[spec.kind].model_fields:
                data["amount"] = spec.max
            step = engine.apply(state, 1, parse_action(engine, data), rng)
        else:
            step = engine.timeout(state, rng)
    raise AssertionError("nobody was stood up for want of chips")


def a_punter_with_4_chips_at_a_table_of_5(game: str) -> None:
    """Dan (player 4) has 4 chips at a table whose minimum stake is 5: he is stood up after
    a coup, the table is told why, and his 4 chips go back to his wallet."""
    from bot.view import i18n

    events, state = until_stood_up_for_chips(game, [1000, 1000, 1000, 4], {"min_stake": 5})
    [stood] = [e for e in events if e.kind == "stood_up" and "least" in e.data]
    assert stood.player == 4 and stood.data["least"] == chips(5)
    assert i18n.event_text("en", stood, {4: "Dan"}) == "🚪 Dan cannot cover 5 and is stood up"
    assert i18n.event_text("ru", stood, {4: "Dan"}) == (
        "🚪 Dan: фишек меньше, чем 5, — встаёт из-за стола")
    assert 4 not in [s.player for s in state.seats]
    assert 4 in [e.player for e in events if e.kind == "player_left"]

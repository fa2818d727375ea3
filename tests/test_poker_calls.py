"""What a poker call announces: the chips it put in, never the bet's total, never 0."""

from __future__ import annotations

from typing import Any

from poker_fixtures import stud_after_first_bet

from games.engine import Chips, Event


def act(engine: Any, state: Any, kind: str, **fields: Any) -> tuple[Any, list[Event]]:
    """The awaited player takes ``kind``; the new state and the step's public events."""
    player = engine.awaiting(state)[0]
    step = engine.apply(state, player, engine.action_types[kind](**fields))
    return step.state, [e for e in step.events if e.to is None]


def calls(events: list[Event]) -> list[int]:
    amounts = [e.data["amount"] for e in events if e.kind == "called"]
    assert all(isinstance(a, Chips) for a in amounts)
    return [a.n for a in amounts if isinstance(a, Chips)]


def test_a_call_that_closes_the_round_says_what_it_paid() -> None:
    engine, state = stud_after_first_bet(5)
    state, first = act(engine, state, "call")
    state, closing = act(engine, state, "call")
    assert calls(first) == [2]
    assert calls(closing) == [2]  # the round closes with this call: it still paid 2


def test_a_call_facing_a_raise_says_the_difference_it_paid() -> None:
    engine, state = stud_after_first_bet(5)
    state, _ = act(engine, state, "raise", amount=4)
    state, third = act(engine, state, "call")
    state, opener = act(engine, state, "call")
    assert calls(third) == [4]
    assert calls(opener) == [2]  # he had bet 2 already: the call to 4 cost him 2

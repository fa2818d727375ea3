"""What a poker call announces: the chips it put in, never the bet's total, never 0, never
the pot it won."""

from __future__ import annotations

from typing import Any

from poker_fixtures import draw_order, fixed_shoe, seated, stud_after_first_bet

from games.engine import Chips, Event
from games.poker.draw import ENGINE


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


def test_a_call_that_ends_the_hand_and_wins_says_what_it_paid_not_the_pot() -> None:
    # "Dan calls -16": the call to the showdown had put the pot in his stack before his
    # stack was compared with what it was
    jj = ["Jc", "Jd", "2c", "3c", "4c"]
    qqq = ["Qc", "Qd", "Qh", "6c", "8c"]
    ak = ["Ah", "Kd", "7h", "3h", "5s"]
    state = seated(ENGINE, [100, 100, 100], [fixed_shoe(draw_order([jj, qqq, ak]))])
    state, _ = act(ENGINE, state, "open")
    state, first = act(ENGINE, state, "call")
    state, _ = act(ENGINE, state, "fold")
    state, _ = act(ENGINE, state, "discard", cards=())
    state, _ = act(ENGINE, state, "discard", cards=())
    state, _ = act(ENGINE, state, "bet", amount=4)
    caller = ENGINE.awaiting(state)[0]
    state, last = act(ENGINE, state, "call")
    assert calls(first) == [2]
    assert calls(last) == [4]
    # the hand is over and the caller's trips took the pot: 1 ante + 2 + 4 paid, 15 won
    settled = next(e for e in last if e.kind == "coup_settled")
    assert settled.data["net"].values[caller].n == 15 - 7

"""The pokerkit replay cache changes nothing a player could notice.

Each step clones the cached pokerkit state of the hand instead of replaying
its log; after a restart (an empty cache) the engine replays the log. A
whole random session played both ways must give the very same steps,
offers and views, and a cached pokerkit state must equal a fresh replay
field by field.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import Action, IllegalAction, Join, Start, Step, parse_action
from games.poker import kit
from games.poker.common import Check, PokerEngine, PokerState, Raise
from games.poker.draw import ENGINE as DRAW
from games.poker.stud import ENGINE as STUD


def kit_fields(state: kit.BancoKitState) -> dict[str, Any]:
    """Every attribute of a pokerkit state (its cards, bets, stacks, queues, pots...).

    pokerkit shuffles its own deck (``deck_cards``) with the global ``random``
    whenever a state is built, so two replays of one log differ in that order;
    our shoe deals every card and the deck is never drawn from, so only which
    cards it holds is compared.
    """
    fields = dict(vars(state))
    fields["deck_cards"] = sorted(repr(c) for c in fields["deck_cards"])
    return fields


Session = tuple[PokerState, tuple[Any, ...], list[tuple[int, Action | None]]]


def random_session(engine: PokerEngine, seed: int, steps: int) -> Session:
    """A seated table, the shuffling rng's state then, and ``steps`` random legal
    actions (None: a timeout) played from it."""
    policy = random.Random(seed)
    rng = random.Random(seed + 1)
    state = engine.new_table({"structure": policy.choice(["fixed", "pot"])}, rng)
    for p in range(1, 5):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=policy.randint(5, 60))).state
    state = engine.apply(state, 1, Start(), rng).state
    start, rng_state = state, rng.getstate()
    moves: list[tuple[int, Action | None]] = []
    for _ in range(steps):
        waiting = engine.awaiting(state)
        if not waiting:
            break
        player = waiting[0]
        if policy.random() < 0.05:
            moves.append((player, None))
            state = engine.timeout(state, rng).state
            continue
        specs = [s for s in engine.legal_actions(state, player) if s.kind != "leave"]
        spec = policy.choice(specs)
        data: dict[str, Any] = {"kind": spec.kind}
        if spec.kind in ("bet", "raise", "open"):
            data["amount"] = policy.randint(spec.min or 1, spec.max or 1)
        elif spec.kind == "discard":
            data["cards"] = policy.sample(spec.choices, policy.randint(0, spec.max or 0))
        action = parse_action(engine, data)
        moves.append((player, action))
        state = engine.apply(state, player, action, rng).state
    return start, rng_state, moves


def replay(engine: PokerEngine, session: Session,
           cold: bool) -> list[tuple[Step[PokerState], list[Any]]]:
    """Play the session's moves again; ``cold`` empties the cache before every call,
    as after a restart. Returns each step and what the bot would then read."""
    start, rng_state, moves = session
    rng = random.Random()
    rng.setstate(rng_state)
    out = []
    state = start
    for player, action in moves:
        seen: list[Any] = []
        # refused actions first: a refusal must leave nothing behind, cache included
        for who, wrong in ((player, Raise(amount=10**6)), (player + 1, Check())):
            if cold:
                kit.forget()
            with pytest.raises(IllegalAction) as refused:
                engine.apply(state, who, wrong, rng)
            seen.append(refused.value.reason)
        if cold:
            kit.forget()
        step = (engine.timeout(state, rng) if action is None
                else engine.apply(state, player, action, rng))
        # the state before the step, asked again (a stale press), then the new one
        for asked in (state, step.state):
            if cold:
                kit.forget()
            seen.append(engine.awaiting(asked))
            for seat in asked.seats:
                seen.append(engine.legal_actions(asked, seat.player))
                seen.append(engine.view(asked, seat.player))
            seen.append(engine.view(asked, None))
        state = step.state
        out.append((step, seen))
    return out


@pytest.mark.parametrize("engine", [DRAW, STUD], ids=["draw", "stud"])
@pytest.mark.parametrize("seed", [3, 11])
def test_cached_and_rebuilt_steps_are_identical(engine: PokerEngine, seed: int) -> None:
    session = random_session(engine, seed, 120)
    kit.forget()
    warm = replay(engine, session, cold=False)
    cold = replay(engine, session, cold=True)
    assert len(warm) == len(cold) == len(session[2]) >= 60
    for (w_step, w_seen), (c_step, c_seen) in zip(warm, cold, strict=True):
        assert w_step.state == c_step.state
        assert w_step.events == c_step.events
        assert w_step.transfers == c_step.transfers
        assert w_seen == c_seen
    assert sum(1 for step, _ in warm for e in step.events if e.kind == "coup_settled") >= 3


@pytest.mark.parametrize("engine", [DRAW, STUD], ids=["draw", "stud"])
def test_a_cached_pokerkit_state_equals_a_full_replay_field_by_field(
        engine: PokerEngine) -> None:
    session = random_session(engine, 7, 80)
    kit.forget()
    checked = 0
    for step, _ in replay(engine, session, cold=False):
        hand = step.state.kit
        if hand is None:
            continue
        cached = kit.peek(hand)
        assert kit_fields(cached) == kit_fields(kit.build(hand))
        # a checkout is independent: acting on it leaves the cached state as it was
        mutated = kit.checkout(hand)
        mutated.stacks[0] += 1
        mutated.hole_cards[0].clear()
        mutated.actor_indices.clear()
        assert kit.peek(hand) is cached
        assert kit_fields(cached) == kit_fields(kit.build(hand))
        checked += 1
    assert checked >= 40

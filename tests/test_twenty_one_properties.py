"""Twenty-one under random legal and illegal play: chips, cards and secrets are kept."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from games.engine import (
    Action,
    Cut,
    IllegalAction,
    Join,
    Leave,
    Start,
    Step,
    is_table_account,
    net,
)
from games.twenty_one import ENGINE, Buy, Pass, Stake, Stand, State

PLAYERS = (1, 2, 3, 4)
CARD_EVENTS_PUBLIC = {"banker_draw", "natural_shown", "hands_shown", "shoe_revealed"}
ANY_ACTION = st.one_of(
    st.builds(Join, name=st.just("x"), buy_in=st.sampled_from([0, 3, 50])),
    st.just(Start()), st.builds(Cut, offset=st.integers(0, 300)),
    st.builds(Stake, amount=st.integers(0, 400)), st.just(Pass()), st.just(Buy()),
    st.just(Stand()),
)


def cards_in(data: Any) -> set[str]:
    """Every card-looking string anywhere in plain JSON data."""
    if isinstance(data, str):
        return {data} if len(data) == 2 and data[0] in "23456789TJQKA" and data[1] in "cdhs" \
            else set()
    if isinstance(data, dict):
        return set().union(*(cards_in(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(cards_in(v) for v in data)) if data else set()
    return set()


class TwentyOneMachine(RuleBasedStateMachine):
    """Random seats, stakes, buys, cuts, leaves and timeouts on one table."""

    def __init__(self) -> None:
        super().__init__()
        self.state: State = ENGINE.new_table({"min_stake": 2})
        self.chips_in = 0

    # ------------------------------------------------------------- steps

    def _take(self, step: Step[State], before: State, before_json: str) -> None:
        assert before.model_dump_json() == before_json, "apply mutated its input"
        assert step.state.version == before.version + 1
        accounts = dict(ENGINE.accounts(before))
        for acct, delta in net(step.transfers).items():
            if is_table_account(acct):
                accounts[acct] = accounts.get(acct, 0) + delta
            else:
                self.chips_in -= delta
            assert not is_table_account(acct) or accounts[acct] >= 0
        assert {k: v for k, v in accounts.items() if v} == ENGINE.accounts(step.state)
        self._check_events(step)
        self.state = step.state

    def _check_events(self, step: Step[State]) -> None:
        for e in step.events:
            if e.to is None and e.kind not in CARD_EVENTS_PUBLIC:
                assert not cards_in(e.data), e.kind
            if e.kind == "natural_shown" and step.state.phase in ("drawing", "banker"):
                seat = next(x for x in step.state.seats if x.player == e.data["player"])
                assert seat.shown

    @rule(player=st.sampled_from(PLAYERS), buy_in=st.sampled_from([3, 40, 150, 400]))
    def join(self, player: int, buy_in: int) -> None:
        self._try(player, Join(name=f"p{player}", buy_in=buy_in), None)

    @rule(player=st.sampled_from(PLAYERS), pick=st.integers(0, 10),
          amount=st.integers(0, 1000), seed=st.integers(0, 2**16))
    def legal(self, player: int, pick: int, amount: int, seed: int) -> None:
        # Mostly the awaited player acts, and leaving is a rule of its own, so that
        # coups get played to the end.
        awaited = ENGINE.awaiting(self.state)
        if awaited and pick < 9:
            player = awaited[0]
        specs = [a for a in ENGINE.legal_actions(self.state, player)
                 if a.kind not in ("join", "leave")]
        if not specs:
            return
        stakes = [a for a in specs if a.kind == "stake"]
        spec = stakes[0] if stakes and pick < 8 else specs[pick % len(specs)]
        action: Action
        if spec.kind == "stake":
            assert spec.min is not None and spec.max is not None
            action = Stake(amount=spec.min + amount % (spec.max - spec.min + 1))
        elif spec.kind == "cut":
            action = Cut(offset=amount)
        else:
            action = ENGINE.action_types[spec.kind]()
        before, text = self.state, self.state.model_dump_json()
        self._take(ENGINE.apply(self.state, player, action, random.Random(seed)), before, text)

    @rule(player=st.sampled_from(PLAYERS), pick=st.integers(0, 10),
          amount=st.integers(0, 1000), seed=st.integers(0, 2**16))
    def legal_again(self, player: int, pick: int, amount: int, seed: int) -> None:
        self.legal(player, pick, amount, seed)

    @rule(player=st.sampled_from(PLAYERS))
    def leave(self, player: int) -> None:
        self._try(player, Leave(), None)

    @rule(player=st.sampled_from((*PLAYERS, 99)), action=ANY_ACTION)
    def anything(self, player: int, action: Action) -> None:
        self._try(player, action, random.Random(player))

    def _try(self, player: int, action: Action, rng: random.Random | None) -> None:
        before, text = self.state, self.state.model_dump_json()
        try:
            step = ENGINE.apply(self.state, player, action, rng)
        except IllegalAction:
            assert self.state.model_dump_json() == text
            return
        self._take(step, before, text)

    @precondition(lambda self: bool(ENGINE.awaiting(self.state)))
    @rule(seed=st.integers(0, 2**16))
    def timeout(self, seed: int) -> None:
        before, text = self.state, self.state.model_dump_json()
        self._take(ENGINE.timeout(self.state, random.Random(seed)), before, text)

    # -------------------------------------------------------- invariants

    @invariant()
    def chips_are_conserved(self) -> None:
        assert sum(ENGINE.accounts(self.state).values()) == self.chips_in
        assert all(x.stack >= 0 and x.stake >= 0 for x in self.state.seats)

    @invariant()
    def cards_are_conserved(self) -> None:
        s = self.state
        held = sum(len(x.cards) for x in s.seats)
        if s.shoe is None:
            assert held == 0 and not s.discards
        else:
            assert held + s.shoe.remaining + len(s.discards) == len(s.shoe.order)

    @invariant()
    def views_hide_other_seats_cards(self) -> None:
        s = self.state
        for viewer in (None, *PLAYERS):
            view = ENGINE.view(s, viewer)
            for seat, sv in zip(s.seats, view.seats, strict=True):
                if seat.shown:
                    assert sv.face_up == tuple(seat.cards) and sv.face_down == 0
                else:
                    assert sv.face_up == () and sv.face_down == len(seat.cards)
                if seat.player == viewer:
                    assert view.my_cards == (() if seat.shown else tuple(seat.cards))
            if viewer not in [x.player for x in s.seats]:
                assert view.my_cards == ()
            info = {k: v for k, v in view.info.items() if k != "last_results"}
            assert not cards_in(info)

    @invariant()
    def json_round_trip_is_lossless(self) -> None:
        assert State.model_validate_json(self.state.model_dump_json()) == self.state


TwentyOneMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=80, deadline=None)
TestTwentyOne = TwentyOneMachine.TestCase

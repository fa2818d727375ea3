"""Twenty-one under random legal and illegal play: chips, cards and secrets are kept."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from banking_machine import PLAYERS, TableMachine, cards_in
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from games.engine import (
    Action,
    Cut,
    Join,
    Start,
    Step,
)
from games.twenty_one import ENGINE, Buy, Pass, Stake, Stand, State

CARD_EVENTS_PUBLIC = {"banker_draw", "natural_shown", "hands_shown", "shoe_revealed"}
ANY_ACTION = st.one_of(
    st.builds(Join, name=st.just("x"), buy_in=st.sampled_from([0, 3, 50])),
    st.just(Start()), st.builds(Cut, offset=st.integers(0, 300)),
    st.builds(Stake, amount=st.integers(1, 400)), st.just(Pass()), st.just(Buy()),
    st.just(Stand()),
)



class TwentyOneMachine(TableMachine):
    """Random seats, stakes, buys, cuts, leaves and timeouts on one table."""

    engine = ENGINE
    table_settings: ClassVar[dict[str, Any]] = {"min_stake": 2}
    card_events_public: ClassVar[set[str]] = CARD_EVENTS_PUBLIC
    state: State

    # ------------------------------------------------------------- steps

    def _check_events(self, step: Step[State]) -> None:
        for e in step.events:
            if e.kind == "natural_shown" and step.state.phase in ("drawing", "banker"):
                seat = next(x for x in step.state.seats if x.player == e.player)
                assert seat.shown

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
            assert spec.min is not None and spec.max is not None
            action = Cut(offset=spec.min + amount % (spec.max - spec.min + 1))
        else:
            action = ENGINE.action_types[spec.kind]()
        before, text = self.state, self.state.model_dump_json()
        self._take(ENGINE.apply(self.state, player, action, random.Random(seed)), before, text)

    @rule(player=st.sampled_from(PLAYERS), pick=st.integers(0, 10),
          amount=st.integers(0, 1000), seed=st.integers(0, 2**16))
    def legal_again(self, player: int, pick: int, amount: int, seed: int) -> None:
        self.legal(player, pick, amount, seed)

    @rule(player=st.sampled_from((*PLAYERS, 99)), action=ANY_ACTION)
    def anything(self, player: int, action: Action) -> None:
        self._try(player, action, random.Random(player))

    # -------------------------------------------------------- invariants

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
            assert not cards_in(view.facts)


TwentyOneMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=80, deadline=None)
TestTwentyOne = TwentyOneMachine.TestCase

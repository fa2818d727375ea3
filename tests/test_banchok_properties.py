"""Polish banchok under random legal and illegal play: chips, cards and secrets are kept."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from banking_machine import PLAYERS, TableMachine, cards_in
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from games.banchok import ENGINE, Decline, JoinStake, PostBank, Stake, State, Turn
from games.engine import (
    Action,
    Cut,
    Join,
    Start,
    Step,
)

CARD_EVENTS_PUBLIC = {"banker_draw", "card_turned", "cards_shown", "coup_settled",
                      "shoe_revealed"}
ANY_ACTION = st.one_of(
    st.builds(Join, name=st.just("x"), buy_in=st.sampled_from([0, 3, 50])),
    st.just(Start()), st.builds(Cut, offset=st.integers(0, 300)),
    st.builds(Stake, amount=st.integers(1, 400), forbid_joining=st.booleans()),
    st.builds(JoinStake, amount=st.integers(1, 400)), st.just(PostBank()), st.just(Decline()),
    st.just(Turn()),
)



class BanchokMachine(TableMachine):
    """Random seats, banks, stakes, joins, cuts, leaves and timeouts on one table."""

    engine = ENGINE
    table_settings: ClassVar[dict[str, Any]] = {"bank": 60, "min_stake": 5}
    card_events_public: ClassVar[set[str]] = CARD_EVENTS_PUBLIC
    state: State

    # ------------------------------------------------------------- steps

    def _check_events(self, step: Step[State]) -> None:
        for e in step.events:
            if e.to is not None:
                assert e.kind == "card_dealt" and len(e.to) == 1

    @rule(player=st.sampled_from(PLAYERS), pick=st.integers(0, 10),
          amount=st.integers(0, 1000), seed=st.integers(0, 2**16))
    def legal(self, player: int, pick: int, amount: int, seed: int) -> None:
        # Mostly the awaited player acts, and leaving is a rule of its own, so that
        # coups get played to the end.
        awaited = ENGINE.awaiting(self.state)
        joiners = [p for p in PLAYERS
                   if any(a.kind == "join_stake" for a in ENGINE.legal_actions(self.state, p))]
        if joiners and pick % 2 == 0:
            player = joiners[pick % len(joiners)]
            pick = 10
        elif awaited and pick < 9:
            player = awaited[0]
        specs = [a for a in ENGINE.legal_actions(self.state, player)
                 if a.kind not in ("join", "leave")]
        if not specs:
            return
        stakes = [a for a in specs if a.kind in ("stake", "post_bank", "join_stake")]
        spec = stakes[0] if stakes and pick < 8 else specs[pick % len(specs)]
        action: Action
        if spec.kind in ("stake", "join_stake"):
            assert spec.min is not None and spec.max is not None
            chips = spec.min + amount % (spec.max - spec.min + 1)
            action = Stake(amount=chips, forbid_joining=amount % 7 == 0) \
                if spec.kind == "stake" else JoinStake(amount=chips)
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
    def bank_never_owes_more_than_it_holds(self) -> None:
        assert sum(x.stake for x in self.state.seats) <= self.state.bank

    @invariant()
    def cards_are_conserved(self) -> None:
        s = self.state
        held = sum(len(x.cards) for x in s.seats)
        if s.shoe is None:
            assert held == 0 and not s.used and not s.under
        else:
            rest = s.shoe.remaining + sum(u.remaining for u in s.under)
            assert held + len(s.used) + rest == 52 * s.settings.decks

    @invariant()
    def views_hide_other_seats_cards(self) -> None:
        s = self.state
        for viewer in (None, *PLAYERS):
            view = ENGINE.view(s, viewer)
            for seat, sv in zip(s.seats, view.seats, strict=True):
                assert sv.face_up == () and sv.face_down == len(seat.cards)
                if seat.player == viewer:
                    assert view.my_cards == tuple(seat.cards)
            if viewer not in [x.player for x in s.seats]:
                assert view.my_cards == ()
            assert not cards_in(view.facts)


BanchokMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=80, deadline=None)
TestBanchok = BanchokMachine.TestCase

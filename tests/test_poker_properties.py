"""Random legal and illegal play of draw and stud poker: the invariants of the contract."""

from __future__ import annotations

import random
from typing import Any

from banking_machine import check_close
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from pydantic import BaseModel

from games.engine import IllegalAction, Join, Start, Step, net, parse_action
from games.poker.common import PokerEngine, PokerState
from games.poker.draw import ENGINE as DRAW
from games.poker.kit import build
from games.poker.phh import kit_from_phh, phh_text
from games.poker.stud import ENGINE as STUD

PLAYERS = (1, 2, 3, 4)
SHOWN_KINDS = {"hand_shown", "openers_shown", "shoe_revealed"}


def cards_in(data: object) -> set[str]:
    if isinstance(data, BaseModel):  # a typed value: its cards are in its fields
        return cards_in(data.model_dump(mode="json"))
    if isinstance(data, str):
        return {data} if len(data) == 2 and data[0] in "23456789TJQKA" else set()
    if isinstance(data, dict):
        return set().union(set(), *(cards_in(v) for v in data.values()))
    if isinstance(data, list | tuple):
        return set().union(set(), *(cards_in(v) for v in data))
    return set()


class PokerMachine(RuleBasedStateMachine):
    engine: PokerEngine

    @initialize(seed=st.integers(0, 10**6), n=st.integers(2, 4))
    def seat(self, seed: int, n: int) -> None:
        self.rng = random.Random(seed)
        self.state: PokerState = self.engine.new_table({}, self.rng)
        self.bought = 0
        self.cashed = 0
        for p in PLAYERS[:n]:
            self._apply(p, Join(name=f"P{p}", buy_in=40))
            self.bought += 40
        self._apply(1, Start())

    def _apply(self, player: int, action: Any) -> Step[PokerState]:
        before_state = self.state
        before = self.engine.accounts(before_state)
        step = self.engine.apply(before_state, player, action, self.rng)
        self._check_step(before_state, before, step)
        return step

    def _check_step(self, old: PokerState, before: dict[str, int], step: Step[PokerState]) -> None:
        after = self.engine.accounts(step.state)
        moved = net(step.transfers)
        self.cashed += sum(t.amount for t in step.transfers if t.dst.startswith("wallet:"))
        assert all(before.get(k, 0) + moved.get(k, 0) == after.get(k, 0)
                   for k in set(before) | set(after) if not k.startswith("wallet:"))
        assert step.state.version == old.version + 1
        self._check_events(old, step)
        self.state = step.state
        if step.state.last_hand is not None and step.state.last_hand != old.last_hand:
            kit, finishing = kit_from_phh(phh_text(step.state.last_hand))
            assert kit == step.state.last_hand.kit
            assert finishing == list(build(kit).stacks)

    def _hidden(self, state: PokerState, seat_player: int) -> set[str]:
        seat = next(s for s in state.seats if s.player == seat_player)
        if self.engine is STUD:
            return set(seat.cards[:1]) | (set(seat.cards) if seat.folded else set())
        return set(seat.cards) | set(seat.discards)

    def _check_events(self, old: PokerState, step: Step[PokerState]) -> None:
        for event in step.events:
            if event.kind in SHOWN_KINDS:
                continue
            shown = cards_in(event.data)
            # a new deal reuses the deck: a card may be someone else's from the
            # previous deal, so events are checked against the deal they belong to
            same_deal = (old.coup, old.passed_deals) == (
                step.state.coup, step.state.passed_deals)
            states = (old, step.state) if event.to is None and same_deal else (step.state,)
            for state in states:
                for seat in state.seats:
                    leak = shown & self._hidden(state, seat.player)
                    if event.to is None:
                        assert not leak, (event.kind, "public event names a hidden card")
                    else:
                        assert not leak or seat.player in event.to

    @rule(data=st.data())
    def legal(self, data: st.DataObject) -> None:
        waiting = self.engine.awaiting(self.state)
        if not waiting:
            return
        player = waiting[0]
        specs = [s for s in self.engine.legal_actions(self.state, player) if s.kind != "leave"]
        spec = data.draw(st.sampled_from(specs))
        raw: dict[str, Any] = {"kind": spec.kind}
        if spec.kind in ("bet", "raise", "open"):
            raw["amount"] = data.draw(st.integers(spec.min or 1, spec.max or 1))
        elif spec.kind == "discard":
            k = data.draw(st.integers(0, min(3, spec.max or 0)))
            raw["cards"] = list(spec.choices[:k])
        self._apply(player, parse_action(self.engine, raw))

    @rule(player=st.sampled_from(PLAYERS),
          kind=st.sampled_from(["check", "call", "fold", "bet", "raise", "open", "discard"]),
          amount=st.integers(1, 200))
    def maybe_illegal(self, player: int, kind: str, amount: int) -> None:
        raw: dict[str, Any] = {"kind": kind}
        if kind in ("bet", "raise", "open"):
            raw["amount"] = amount
        if kind == "discard":
            raw["cards"] = ["As", "Ks", "Qs", "Js"]
        snapshot = self.state.model_copy(deep=True)
        try:
            action = parse_action(self.engine, raw)
            self._apply(player, action)
        except IllegalAction:
            assert self.state == snapshot

    @rule()
    def timeout(self) -> None:
        if not self.engine.awaiting(self.state):
            return
        old = self.state
        step = self.engine.timeout(old, self.rng)
        self._check_step(old, self.engine.accounts(old), step)

    @invariant()
    def closing_now_voids_the_hand(self) -> None:
        if hasattr(self, "state"):
            check_close(self.engine, self.state)

    @invariant()
    def chips_conserved(self) -> None:
        if not hasattr(self, "state"):
            return
        # chips only leave the table by a cash-out to the leaver's wallet
        seated = sum(self.engine.accounts(self.state).values())
        assert seated == self.bought - self.cashed

    @invariant()
    def cards_conserved_and_views_hide_cards(self) -> None:
        if not hasattr(self, "state"):
            return
        s = self.state
        if s.kit is not None and s.shoe is not None:
            dealt = [c for seat in s.seats for c in seat.cards + seat.discards]
            assert len(dealt) == len(set(dealt))
            assert len(dealt) + s.shoe.remaining == 52
        for viewer in (None, *[seat.player for seat in s.seats]):
            view = self.engine.view(s, viewer)
            visible = set(view.my_cards) | {c for v in view.seats for c in v.face_up}
            # his own hand's name goes to him alone, while he holds cards
            assert set(view.my_facts) == ({"hand"} if view.my_cards else set())
            for seat in s.seats:
                if seat.player != viewer:
                    assert not visible & self._hidden(s, seat.player)
        assert type(s).model_validate_json(s.model_dump_json()) == s


class DrawMachine(PokerMachine):
    engine = DRAW


class StudMachine(PokerMachine):
    engine = STUD


SETTINGS = settings(max_examples=10, stateful_step_count=25, deadline=None)
TestDrawPoker = DrawMachine.TestCase
TestDrawPoker.settings = SETTINGS
TestStudPoker = StudMachine.TestCase
TestStudPoker.settings = SETTINGS

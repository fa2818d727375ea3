"""Random legal and illegal play of baccarat (docs/rules.md §2) with invariants after every step.

Checked after each step: chips conserved (table accounts == bought in - cashed
out, and old accounts + net(transfers) == new accounts), cards conserved
(in hands + in the shoe + discarded == shoe size), no view or public event
shows another seat's hidden card, an illegal action raises IllegalAction and
changes nothing, no action changes its input state, every action offered by
``legal_actions`` is accepted, the JSON round trip is lossless, the version
bumps by one.
"""

from __future__ import annotations

import random
from typing import Any

from banking_machine import check_close
from hypothesis import HealthCheck, settings
from hypothesis import event as tally
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from games.baccarat import ENGINE, BaccaratState
from games.engine import (
    Action,
    ActionSpec,
    Cut,
    IllegalAction,
    Join,
    PlayerId,
    Start,
    Step,
    net,
)

PLAYERS = list(range(1, 8))
KINDS = sorted(ENGINE.action_types)


def _face_up(cards: list[str], shown: bool) -> list[str]:
    return (cards[:2] if shown else []) + cards[2:]


def _secrets(state: BaccaratState, viewer: PlayerId | None) -> set[str]:
    """Cards hidden from ``viewer`` that no face-up card or his own hand could explain."""
    hidden = {c for s in state.seats if s.player != viewer and not s.shown for c in s.cards[:2]}
    legit = {c for s in state.seats for c in _face_up(s.cards, s.shown)}
    legit |= {c for s in state.seats if s.player == viewer for c in s.cards}
    return hidden - legit


class BaccaratMachine(RuleBasedStateMachine):
    """Plays a table of 3–6 players from its first auction on."""

    state: BaccaratState

    @initialize(
        seed=st.integers(0, 2**32 - 1),
        players=st.integers(3, 6),
        buy_ins=st.lists(st.integers(0, 3000), min_size=6, max_size=6),
    )
    def seat_players(self, seed: int, players: int, buy_ins: list[int]) -> None:
        self.rng = random.Random(seed)
        self.state = ENGINE.new_table({"min_stake": 1 + seed % 3})
        self.outside = 0  # chips that came in from wallets minus chips that went back
        for p in range(1, players + 1):
            self._apply(p, Join(name=f"P{p}", buy_in=buy_ins[p - 1]))
        self._apply(1, Start())

    # ------------------------------------------------------------------ moves

    @rule(data=st.data())
    def play_a_legal_action(self, data: st.DataObject) -> None:
        waiting = ENGINE.awaiting(self.state)
        pool = waiting if waiting and data.draw(st.integers(0, 4)) else PLAYERS
        player = data.draw(st.sampled_from(pool))
        specs = ENGINE.legal_actions(self.state, player)
        if not specs:
            return
        spec = data.draw(st.sampled_from(specs))
        self._apply(player, self._build(spec, data))

    @rule(data=st.data())
    def everyone_awaited_answers(self, data: st.DataObject) -> None:
        # Keeps coups moving (random single moves and timeouts alone rarely reach a
        # settlement): every awaited player picks one of his offered moves but Leave.
        for player in ENGINE.awaiting(self.state):
            specs = [s for s in ENGINE.legal_actions(self.state, player) if s.kind != "leave"]
            active = [s for s in specs if s.kind not in ("pass", "decline", "stand")]
            if active and data.draw(st.integers(0, 3)):
                specs = active
            if specs and player in ENGINE.awaiting(self.state):
                self._apply(player, self._build(data.draw(st.sampled_from(specs)), data))

    @rule(player=st.sampled_from(PLAYERS), kind=st.sampled_from(KINDS), amount=st.integers(1, 4000))
    def try_any_action(self, player: PlayerId, kind: str, amount: int) -> None:
        fields: dict[str, Any] = {"kind": kind}
        for name in ENGINE.action_types[kind].model_fields:
            if name in ("amount", "buy_in", "offset"):
                fields[name] = amount
            elif name == "name":
                fields[name] = "X"
        action = ENGINE.action_types[kind].model_validate(fields)
        before = self.state.model_dump_json()
        offered = {s.kind: s for s in ENGINE.legal_actions(self.state, player)}
        try:
            step = ENGINE.apply(self.state, player, action, self.rng)
        except IllegalAction:
            assert self.state.model_dump_json() == before
            return
        # Accepted, so it must have been offered, within its bounds.
        assert kind in offered
        spec = offered[kind]
        if spec.min is not None and ("amount" in fields or "offset" in fields):
            assert spec.min <= amount <= (spec.max if spec.max is not None else amount)
        self._commit(step, before)

    @rule()
    def deadline_passes(self) -> None:
        before = self.state.model_dump_json()
        self._commit(ENGINE.timeout(self.state, self.rng), before)

    # ---------------------------------------------------------------- helpers

    def _build(self, spec: ActionSpec, data: st.DataObject) -> Action:
        if spec.kind == "join":
            return Join(name="New", buy_in=data.draw(st.integers(0, 3000)))
        if spec.kind == "cut":
            assert spec.min is not None and spec.max is not None
            return Cut(offset=data.draw(st.integers(spec.min, spec.max)))
        fields: dict[str, Any] = {"kind": spec.kind}
        if spec.min is not None and spec.max is not None:
            fields["amount"] = data.draw(st.integers(spec.min, spec.max))
        return ENGINE.action_types[spec.kind].model_validate(fields)

    def _apply(self, player: PlayerId, action: Action) -> None:
        before = self.state.model_dump_json()
        self._commit(ENGINE.apply(self.state, player, action, self.rng), before)

    def _commit(self, step: Step[BaccaratState], before_json: str) -> None:
        old, new = self.state, step.state
        assert old.model_dump_json() == before_json  # the input was not changed
        assert new.version == old.version + 1
        accounts = ENGINE.accounts(old)
        for account, delta in net(step.transfers).items():
            if account.startswith("wallet:"):
                self.outside -= delta
            else:
                accounts[account] = accounts.get(account, 0) + delta
        assert {k: v for k, v in accounts.items() if v} == ENGINE.accounts(new)
        assert all(v > 0 for v in ENGINE.accounts(new).values())
        secrets = _secrets(new, None)
        for event in step.events:
            text = event.model_dump_json()
            if event.kind == "cards_received":
                assert event.to == (event.player,)
            if event.to is None:
                assert not any(f'"{c}"' in text for c in secrets), event.kind
        for e in step.events:
            if e.kind in ("coup_settled", "baccara_declared", "bank_passed", "stood_up"):
                tally(e.kind)  # shows in --hypothesis-show-statistics
        self.state = new

    # ------------------------------------------------------------- invariants

    @invariant()
    def closing_now_voids_the_coup(self) -> None:
        check_close(ENGINE, self.state)

    @invariant()
    def chips_are_conserved(self) -> None:
        assert sum(ENGINE.accounts(self.state).values()) == self.outside

    @invariant()
    def cards_are_conserved(self) -> None:
        shoe = self.state.shoe
        if shoe is not None:
            in_hands = sum(len(s.cards) for s in self.state.seats)
            assert in_hands + shoe.remaining + len(self.state.discards) == len(shoe.order)
        else:
            assert all(not s.cards for s in self.state.seats)

    @invariant()
    def views_hide_other_seats_cards(self) -> None:
        for viewer in [None, 99, *(s.player for s in self.state.seats)]:
            view = ENGINE.view(self.state, viewer)
            cards = {s.player: s for s in self.state.seats}
            for sv in view.seats:
                seat = cards[sv.player]
                assert list(sv.face_up) == _face_up(seat.cards, seat.shown)
                assert sv.face_down == len(seat.cards) - len(sv.face_up)
            mine = cards[viewer].cards if viewer in cards else []
            assert list(view.my_cards) == mine
            public = view.model_copy(update={"my_cards": ()}).model_dump_json()
            assert not any(f'"{c}"' in public for c in _secrets(self.state, viewer))

    @invariant()
    def json_round_trip_is_lossless(self) -> None:
        text = self.state.model_dump_json()
        assert BaccaratState.model_validate_json(text) == self.state

    @invariant()
    def bank_covers_every_stake_twice(self) -> None:
        assert 2 * sum(s.stake for s in self.state.seats) <= self.state.bank


BaccaratMachine.TestCase.settings = settings(
    max_examples=80,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestBaccaratProperties = BaccaratMachine.TestCase

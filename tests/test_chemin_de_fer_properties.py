"""Chemin de fer under random legal and illegal play: the invariants of every step.

After every step: chips conserved and the transfers explain the accounts,
cards conserved, no view or event shows a hidden card to anyone but its
holder, an illegal action changes nothing, the JSON round trip is lossless,
the version goes up by exactly one, and the input state is never mutated.
"""

from __future__ import annotations

import random
from typing import Any

from banking_machine import check_close
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from pydantic import BaseModel

from games.chemin_de_fer import ENGINE
from games.chemin_de_fer.model import BANKER_DRAW, PUNTER_DRAW, TRANSIENT, State
from games.engine import Action, ActionSpec, IllegalAction, Input, Step, net, parse_action

PLAYERS = list(range(1, 8))
AMOUNT_KINDS = {"bid": "amount", "stake": "amount", "name_bank": "amount"}


def _cards_in(value: Any) -> set[str]:
    """Every string in an event's data (cards are two-character strings), typed values'
    fields included."""
    if isinstance(value, BaseModel):
        return _cards_in(value.model_dump(mode="json"))
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    return set()


def _hidden_from(state: State, viewer: int | None) -> list[str]:
    """Cards in play that ``viewer`` may not see."""
    hidden: list[str] = []
    if viewer is None or viewer != state.banker:
        hidden += state.banker_cards
    if viewer is None or viewer != state.playing:
        hidden += state.punter_cards
    return hidden


def _masked(state: State, viewer: int | None) -> State:
    """``state`` with every card hidden from ``viewer`` replaced by another card."""

    def swap(cards: list[str]) -> list[str]:
        return ["Ac" if c != "Ac" else "Kd" for c in cards]

    update: dict[str, Any] = {}
    if viewer is None or viewer != state.banker:
        update["banker_cards"] = swap(state.banker_cards)
    if viewer is None or viewer != state.playing:
        update["punter_cards"] = swap(state.punter_cards)
    return state.model_copy(update=update)


class CheminDeFerMachine(RuleBasedStateMachine):
    """Random players joining, acting legally and illegally, leaving and timing out."""

    state: State
    rng: random.Random
    bought: int
    cashed: int

    @initialize(
        seed=st.integers(0, 2**32),
        decks=st.sampled_from([3, 4]),
        burn=st.sampled_from([3, 4]),
        min_stake=st.sampled_from([1, 5]),
    )
    def setup(self, seed: int, decks: int, burn: int, min_stake: int) -> None:
        self.rng = random.Random(seed)
        self.state = ENGINE.new_table({"decks": decks, "burn": burn, "min_stake": min_stake})
        self.bought = self.cashed = 0
        for player in PLAYERS[:4]:
            join = ENGINE.action_types["join"](name="p", buy_in=500)
            self._accept(ENGINE.apply(self.state, player, join), self.state.model_dump_json())

    # ------------------------------------------------------------ steps

    def _accept(self, step: Step[State], before_json: str) -> None:
        old = self.state
        assert old.model_dump_json() == before_json, "apply mutated its input"
        new = step.state
        assert new.version == old.version + 1
        assert new.phase not in TRANSIENT
        balances = ENGINE.accounts(old)
        for account, delta in net(step.transfers).items():
            if account.startswith("wallet:"):
                if delta < 0:
                    self.bought -= delta
                else:
                    self.cashed += delta
            else:
                balances[account] = balances.get(account, 0) + delta
        assert {k: v for k, v in balances.items() if v} == ENGINE.accounts(new)
        assert all(v > 0 for v in ENGINE.accounts(new).values())
        if new.phase in (PUNTER_DRAW, BANKER_DRAW):
            # the hands are still hidden: no event may show them to a non-holder
            for viewer in [None, *(s.player for s in new.seats)]:
                shown: set[str] = set()
                for event in step.events:
                    if event.to is None or (viewer is not None and viewer in event.to):
                        shown |= _cards_in(event.data)
                own = set(new.banker_cards) if viewer == new.banker else set(
                    new.punter_cards) if viewer == new.playing else set()
                # (with several decks one card string can be in both hands)
                assert not (shown - own) & set(_hidden_from(new, viewer))
        self.state = new

    def _try(self, player: int, action: Action) -> None:
        before = self.state.model_dump_json()
        try:
            step = ENGINE.apply(self.state, player, action, self.rng)
        except IllegalAction:
            assert self.state.model_dump_json() == before
            return
        self._accept(step, before)

    def _build(self, spec: ActionSpec, data: st.DataObject) -> Action:
        fields: dict[str, Any] = {"kind": spec.kind}
        if spec.kind in AMOUNT_KINDS:
            assert spec.min is not None and spec.max is not None
            assert spec.min <= spec.max
            fields["amount"] = data.draw(st.integers(spec.min, spec.max))
        elif spec.kind == "cut":
            assert spec.min == 0 and spec.max is not None
            fields["offset"] = data.draw(st.integers(spec.min, spec.max))
        elif spec.kind == "join":
            fields["name"] = "x"
            fields["buy_in"] = data.draw(st.sampled_from([0, 3, 50, 400, 2000]))
        return ENGINE.action_types[spec.kind].model_validate(fields)

    @rule(player=st.sampled_from(PLAYERS), data=st.data())
    def legal_action(self, player: int, data: st.DataObject) -> None:
        specs = [s for s in ENGINE.legal_actions(self.state, player) if s.kind != "leave"]
        if not specs:
            return
        action = self._build(data.draw(st.sampled_from(specs)), data)
        before = self.state.model_dump_json()
        step = ENGINE.apply(self.state, player, action, self.rng)  # must not raise
        self._accept(step, before)

    @rule(data=st.data())
    def awaited_player_acts(self, data: st.DataObject) -> None:
        waiting = ENGINE.awaiting(self.state)
        if not waiting:
            return
        player = data.draw(st.sampled_from(waiting))
        specs = [s for s in ENGINE.legal_actions(self.state, player) if s.kind != "leave"]
        # weight bids and stakes up, so that coups get played rather than passed
        specs += 2 * [s for s in specs if s.kind not in ("pass", "decline", "retire")]
        action = self._build(data.draw(st.sampled_from(specs)), data)
        before = self.state.model_dump_json()
        self._accept(ENGINE.apply(self.state, player, action, self.rng), before)

    @rule(data=st.data())
    def awaited_player_acts_again(self, data: st.DataObject) -> None:
        # twice the weight: keeps coups going rather than the table idling
        self.awaited_player_acts(data)

    @rule()
    def start_when_idle(self) -> None:
        if self.state.seats:
            self._try(self.state.seats[0].player, ENGINE.action_types["start"]())

    @rule(
        player=st.sampled_from(PLAYERS),
        kind=st.sampled_from(sorted(ENGINE.action_types)),
        amount=st.integers(0, 3000),
    )
    def any_action(self, player: int, kind: str, amount: int) -> None:
        fields: dict[str, Any] = {"kind": kind}
        if kind in AMOUNT_KINDS:
            fields["amount"] = amount
        elif kind == "cut":
            fields["offset"] = amount
        elif kind == "join":
            fields.update(name="y", buy_in=amount)
        legal = {s.kind: s for s in ENGINE.legal_actions(self.state, player)}
        before = self.state.model_dump_json()
        try:  # parsed as the host parses a press: a 0 amount is refused right there
            step = ENGINE.apply(self.state, player, parse_action(ENGINE, fields), self.rng)
        except IllegalAction:
            assert self.state.model_dump_json() == before
            return
        # accepted: legal_actions must have offered it, with this amount or depth
        assert kind in legal
        spec = legal[kind]
        if spec.input == Input.AMOUNT:
            assert spec.min is not None and spec.max is not None
            assert spec.min <= amount <= spec.max, (kind, amount, spec)
        self._accept(step, before)

    @rule(player=st.sampled_from(PLAYERS))
    def leave(self, player: int) -> None:
        self._try(player, ENGINE.action_types["leave"]())

    @rule()
    def timeout(self) -> None:
        before = self.state.model_dump_json()
        self._accept(ENGINE.timeout(self.state, self.rng), before)

    # -------------------------------------------------------- invariants

    @invariant()
    def closing_now_voids_the_coup(self) -> None:
        check_close(ENGINE, self.state)

    @invariant()
    def chips_conserved(self) -> None:
        assert sum(ENGINE.accounts(self.state).values()) == self.bought - self.cashed

    @invariant()
    def cards_conserved(self) -> None:
        s = self.state
        if s.shoe is not None:
            in_play = len(s.punter_cards) + len(s.banker_cards)
            assert in_play + s.shoe.remaining + len(s.shoe.burned) + s.discarded == len(
                s.shoe.order
            )
            assert len(s.punter_cards) <= 3 and len(s.banker_cards) <= 3

    @invariant()
    def views_hide_other_hands(self) -> None:
        s = self.state
        for viewer in [None, *(seat.player for seat in s.seats)]:
            view = ENGINE.view(s, viewer)
            own = (
                s.banker_cards
                if viewer is not None and viewer == s.banker
                else s.punter_cards
                if viewer is not None and viewer == s.playing
                else []
            )
            assert list(view.my_cards) == own
            assert all(not seat.face_up for seat in view.seats)
            # non-interference: changing what the viewer may not see changes nothing
            assert ENGINE.view(_masked(s, viewer), viewer) == view

    @invariant()
    def json_round_trip(self) -> None:
        assert State.model_validate_json(self.state.model_dump_json()) == self.state


CheminDeFerMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCheminDeFer = CheminDeFerMachine.TestCase

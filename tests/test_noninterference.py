"""Non-interference: nothing the group (or a player) observes depends on cards hidden from it.

For every game of :data:`games.registry.GAMES`, a coup is played from shoe A with seeded
choices (presses of awaited players, now and then a timeout). Then, for the group and for
each player in turn, shoe B is made by permuting every card of A that the observer never
saw, and the same actions are replayed on B while each stays legal. Before every action the
observer must see exactly the same in both runs:

* the table as he sees it (``engine.view``), ``info`` and ``my_info`` included;
* the events of the last step he may see (:func:`games.engine.visible_events`);
* the group keyboard: every seat's non-private actions, with bounds, except the awaited
  players' decisions while one of them has a private action (exactly the bot's rule,
  :func:`bot.view.sight.collect_buttons` and :func:`bot.view.sight.private_step`); a player
  also sees his own keyboard, private actions included;
* who is awaited.

"Saw" grows as the coup goes on (a card turned up, a showdown), so the comparison is made
once per stretch of the coup over which the observer's set of seen cards stays the same:
B permutes the cards unseen at the end of that stretch and is compared up to there. Two
kinds of step may legitimately part the runs, and the replay stops there: one after which
the observer is shown other cards in B than in A (the rules turn up a natural, or every
hand at the showdown, depending on what the cards are), and a timeout (its safe default
depends on the timed-out player's own cards, and what the default does is then public).
Merkle proof hashes (``nodes``) are not compared: they are hashes, never cards. A shoe is
recognised across the runs by its commitment, which B keeps.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.view.sight import OUTSIDER, amount_field, choice_data, private_step
from games import registry
from games.cards import Shoe
from games.engine import (
    Action,
    Event,
    IllegalAction,
    Join,
    Settlement,
    ShoeRevealed,
    Start,
    parse_action,
    text,
    visible_events,
)
from tests.banking_machine import cards_in

MAX_STEPS = 80
TIMEOUT_SHARE = 0.15

# ------------------------------------------------------------ the shoes of a run


@dataclass
class Recorder:
    """The shoes a run creates (by commitment), which positions each step dealt, and the
    orders to substitute (run B)."""

    orders: dict[str, list[str]] = field(default_factory=dict)
    dealt: list[tuple[int, str, list[int]]] = field(default_factory=list)
    substitute: dict[str, list[str]] = field(default_factory=dict)
    step: int = 0


@contextmanager
def recording(rec: Recorder) -> Iterator[None]:
    """Patch the shoe so every shuffle and deal of the run is recorded (and, for run B,
    every shuffled order replaced by its permutation, under the same commitment)."""
    shuffled, shuffled_from, deal = Shoe.shuffled, Shoe.shuffled_from, Shoe.deal

    def substituted(shoe: Shoe) -> Shoe:
        rec.orders.setdefault(shoe.commitment, list(shoe.order))
        order = rec.substitute.get(shoe.commitment)
        return shoe if order is None else shoe.model_copy(update={"order": list(order)})

    def new_shuffled(cls: type[Shoe], decks: int, rng: random.Random | None = None) -> Shoe:
        return substituted(shuffled.__func__(cls, decks, rng))  # type: ignore[attr-defined]

    def new_shuffled_from(cls: type[Shoe], cards: list[str], decks: int,
                          rng: random.Random | None = None) -> Shoe:
        return substituted(shuffled_from.__func__(cls, cards, decks, rng))  # type: ignore

    def new_deal(self: Shoe, n: int = 1) -> tuple[Shoe, list[str]]:
        size = len(self.order)
        rec.dealt.append((rec.step, self.commitment,
                          [(self.cut + k) % size for k in range(self.position,
                                                                self.position + n)]))
        return deal(self, n)

    Shoe.shuffled = classmethod(new_shuffled)  # type: ignore[method-assign,assignment]
    Shoe.shuffled_from = classmethod(new_shuffled_from)  # type: ignore
    Shoe.deal = new_deal  # type: ignore[method-assign]
    try:
        yield
    finally:
        Shoe.shuffled, Shoe.shuffled_from, Shoe.deal = (  # type: ignore[method-assign]
            shuffled, shuffled_from, deal)


# --------------------------------------------------------------- observations


def _scrub(data: Any) -> Any:
    """Plain data without Merkle proof hashes (``nodes``): hashes, never cards."""
    if isinstance(data, dict):
        return {k: _scrub(v) for k, v in data.items() if k != "nodes"}
    if isinstance(data, list | tuple):
        return [_scrub(v) for v in data]
    if isinstance(data, str) and data.startswith("{"):
        with contextlib.suppress(ValueError):
            return _scrub(json.loads(data))  # a proof record sent as JSON text
    return data


def _spec_key(spec: Any) -> tuple[Any, ...]:
    return (spec.kind, spec.min, spec.max, spec.presets, spec.choices, spec.private)


def _specs(engine: Any, state: Any, player: int) -> list[Any]:
    try:
        return list(engine.legal_actions(state, player))
    except IllegalAction:
        return []


def group_keyboard(engine: Any, state: Any) -> dict[int, list[tuple[Any, ...]]]:
    """Every seat's (and an outsider's) non-private actions as the group keyboard offers
    them: the awaited players' decisions are hidden in a private step (bot/view/sight.py)."""
    awaited = list(engine.awaiting(state))
    hide = set(awaited) if private_step(engine, state, awaited) else set()
    out: dict[int, list[tuple[Any, ...]]] = {}
    for player in [*awaited, *(s.player for s in state.seats), OUTSIDER]:
        if player not in hide:
            out[player] = sorted(_spec_key(s) for s in _specs(engine, state, player)
                                 if not s.private)
    return out


def observe(engine: Any, state: Any, events: list[Event], viewer: int | None) -> dict[str, Any]:
    """What ``viewer`` (``None``: the group) observes of ``state`` after ``events``."""
    seen: dict[str, Any] = {
        "view": _scrub(engine.view(state, None).model_dump(mode="json")),
        "events": [_scrub(e.model_dump(mode="json")) for e in visible_events(events, None)],
        "keyboard": group_keyboard(engine, state),
        "awaiting": list(engine.awaiting(state)),
    }
    if viewer is not None:
        seen["my_view"] = _scrub(engine.view(state, viewer).model_dump(mode="json"))
        seen["my_events"] = [_scrub(e.model_dump(mode="json"))
                             for e in visible_events(events, viewer)]
        seen["my_keyboard"] = sorted(_spec_key(s) for s in _specs(engine, state, viewer))
    return seen


def revealed_positions(events: list[Event]) -> dict[str, set[int]]:
    """Positions a shoe record made public: all of a revealed shoe, the proven cards."""
    out: dict[str, set[int]] = {}
    for e in events:
        if not isinstance(e, ShoeRevealed):
            continue
        for r in [e.record]:
            if "commitment" not in r:
                continue
            mine = out.setdefault(r["commitment"], set())
            if "order" in r:
                mine.update(range(len(r["order"])))
            mine.update(int(c[0]) for c in r.get("shown", []))
    return out


def seen_cards(seen: dict[str, Any]) -> set[str]:
    """Card strings in an observation, shoe records aside (they count by position)."""
    def strip(data: Any) -> Any:
        if isinstance(data, dict):
            if data.get("kind") == "shoe_revealed":
                return None
            return {k: strip(v) for k, v in data.items()}
        if isinstance(data, list):
            return [strip(v) for v in data]
        return data
    return cards_in(strip(seen))


# ------------------------------------------------------------------- the runs


@dataclass
class Run:
    """Run A: the actions, and per step the state, its events and the shoes dealt so far."""

    game: str
    seed: int
    setup: list[tuple[int, Action]]
    actions: list[tuple[int, Action] | None] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    rec: Recorder = field(default_factory=Recorder)


def _rng(seed: int, i: int) -> random.Random:
    return random.Random(f"{seed}:{i}")


def _pick_action(engine: Any, state: Any, player: int, r: random.Random) -> Action | None:
    specs = [s for s in _specs(engine, state, player) if s.kind not in ("leave", "join")]
    r.shuffle(specs)
    for spec in specs:
        data: dict[str, Any] = {"kind": spec.kind}
        field_ = amount_field(engine, spec.kind)
        if field_ is not None and spec.min is not None:
            hi = spec.max if spec.max is not None else spec.min + 10
            options = [v for v in (spec.min, hi, *spec.presets) if spec.min <= v <= hi]
            data[field_] = r.choice([*options, r.randint(spec.min, hi)])
        if spec.choices:
            top = min(len(spec.choices), spec.max if spec.max is not None else 3)
            picked = r.sample(list(spec.choices), r.randint(0, top))
            if picked:
                data.update(choice_data(engine, spec.kind, ",".join(picked)))
        try:
            return parse_action(engine, data)
        except IllegalAction:
            continue
    return None


def set_up(engine: Any, setup: list[tuple[int, Action]], seed: int) -> tuple[Any, list[Event]]:
    """A new table after the joins and Start; the events of all those steps."""
    state, events = engine.new_table({}), []
    for i, (p, a) in enumerate(setup):
        step = engine.apply(state, p, a, _rng(seed, -1 - i))
        state, events = step.state, [*events, *step.events]
    return state, events


def play_a(game: str, seed: int) -> Run:
    """One coup of ``game`` with choices seeded by ``seed`` (setup: joins and Start)."""
    engine = registry.engine(game)
    r = random.Random(seed)
    players = list(range(1, r.randint(engine.min_players, min(engine.max_players, 5)) + 1))
    setup: list[tuple[int, Action]] = [
        (p, Join(name=f"P{p}", buy_in=r.choice([200, 500, 1000]))) for p in players]
    setup.append((players[0], Start()))
    run = Run(game, seed, setup)
    with recording(run.rec):
        state, events = set_up(engine, setup, seed)
        run.states.append(state)
        run.events.append(events)
        for i in range(MAX_STEPS):
            run.rec.step = i + 1
            awaited = list(engine.awaiting(state))
            if not awaited:
                break
            step = None
            if r.random() < TIMEOUT_SHARE:
                step, chosen = engine.timeout(state, _rng(seed, i)), None
            else:
                for _ in range(5):
                    player = r.choice(awaited)
                    action = _pick_action(engine, state, player, r)
                    if action is None:
                        continue
                    try:
                        step = engine.apply(state, player, action, _rng(seed, i))
                    except IllegalAction:
                        continue
                    chosen = (player, action)
                    break
                if step is None:
                    step, chosen = engine.timeout(state, _rng(seed, i)), None
            run.actions.append(chosen)
            state = step.state
            run.states.append(state)
            run.events.append(list(step.events))
            if any(isinstance(e, Settlement) for e in step.events):
                break
    return run


def known_positions(run: Run, viewer: int | None) -> list[dict[str, set[int]]]:
    """Per observation index, the positions of each shoe the viewer has seen by then."""
    engine = registry.engine(run.game)
    strings: set[str] = set()
    revealed: dict[str, set[int]] = {}
    out: list[dict[str, set[int]]] = []
    for i, (state, events) in enumerate(zip(run.states, run.events, strict=True)):
        strings |= seen_cards(observe(engine, state, events, viewer))
        mine = visible_events(events, viewer)
        for c, pos in revealed_positions(mine).items():
            revealed.setdefault(c, set()).update(pos)
        known = {c: set(p) for c, p in revealed.items()}
        for step, c, positions in run.rec.dealt:
            if step <= i:
                order = run.rec.orders[c]
                known.setdefault(c, set()).update(p for p in positions if order[p] in strings)
        out.append(known)
    return out


def permuted(run: Run, known: dict[str, set[int]], r: random.Random) -> dict[str, list[str]]:
    """Every shoe of run A with the cards at unknown positions shuffled among themselves."""
    out: dict[str, list[str]] = {}
    for c, order in run.rec.orders.items():
        free = [p for p in range(len(order)) if p not in known.get(c, set())]
        cards = [order[p] for p in free]
        r.shuffle(cards)
        new = list(order)
        for p, card in zip(free, cards, strict=True):
            new[p] = card
        out[c] = new
    return out


def replay_b(run: Run, viewer: int | None, upto: int, substitute: dict[str, list[str]]
             ) -> str | None:
    """Replay run A's actions on the permuted shoes; the first difference the viewer
    observes at or before observation ``upto``, described, or ``None``."""
    engine = registry.engine(run.game)
    rec = Recorder(substitute=substitute)
    with recording(rec):
        state, events = set_up(engine, run.setup, run.seed)
        for i in range(upto + 1):
            want = observe(engine, run.states[i], run.events[i], viewer)
            got = observe(engine, state, events, viewer)
            if want != got:
                diff = {k: (want[k], got.get(k)) for k in want if want[k] != got.get(k)}
                before = run.actions[i - 1] if i else None
                return f"observation {i} (after {before!r}) differs: {diff}"
            if i == upto or i >= len(run.actions):
                return None
            rec.step = i + 1
            chosen = run.actions[i]
            if chosen is None:
                step = engine.timeout(state, _rng(run.seed, i))
                if observe(engine, step.state, step.events, viewer) != observe(
                        engine, run.states[i + 1], run.events[i + 1], viewer):
                    return None  # a safe default's public effect: legitimately different
            else:
                try:
                    step = engine.apply(state, chosen[0], chosen[1], _rng(run.seed, i))
                except IllegalAction:
                    return None  # no longer legal in B: the runs part here
            state, events = step.state, list(step.events)
            got = observe(engine, state, events, viewer)
            want = observe(engine, run.states[i + 1], run.events[i + 1], viewer)
            if got != want and seen_cards(got) != seen_cards(want):
                return None  # the rules turned up other cards (a natural, a showdown)
    return None


def leaks(run: Run, viewer: int | None) -> list[str]:
    """Every stretch of run A over which ``viewer`` saw the same cards, checked against B."""
    known = known_positions(run, viewer)
    found: list[str] = []
    r = random.Random(f"b:{run.seed}:{viewer}")
    for h in range(len(known)):
        if h + 1 < len(known) and known[h + 1] == known[h]:
            continue  # not the end of a stretch
        diff = replay_b(run, viewer, h, permuted(run, known[h], r))
        if diff is not None:
            found.append(f"{run.game} seed {run.seed} viewer {viewer}: {diff}")
    return found


def check(game: str, seeds: range, players: bool = True) -> list[str]:
    """All leaks found in ``game`` over ``seeds`` (the group, then every seated player)."""
    found: list[str] = []
    for seed in seeds:
        run = play_a(game, seed)
        viewers: list[int | None] = [None]
        if players:
            viewers += sorted({p for p, a in run.setup if isinstance(a, Join)})
        for viewer in viewers:
            found += leaks(run, viewer)
    return found


SEEDS: dict[str, range] = {
    "chemin_de_fer": range(12),
    "baccarat": range(12),
    "twenty_one": range(12),
    "banchok": range(6),
    "draw_poker": range(6),
    "stud_poker": range(6),
}


@pytest.mark.parametrize("game", list(registry.GAMES))
def test_nothing_hidden_reaches_the_group_or_another_player(game: str) -> None:
    found = check(game, SEEDS[game])
    assert not found, "\n".join(found[:3])


# ------------------------------------------------ the property test can fail


def test_the_check_sees_a_leak_when_an_engine_makes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deliberately leaky view (the banker's points in public info) is caught: the
    property is not vacuous."""
    engine = registry.engine("chemin_de_fer")
    real: Callable[..., Any] = type(engine).view

    def leaky(self: Any, state: Any, viewer: int | None) -> Any:
        view = real(self, state, viewer)
        if not state.banker_cards:
            return view
        return view.model_copy(update={"facts": {
            **view.facts, "tell": text("".join(state.banker_cards)[::-1])}})

    monkeypatch.setattr(type(engine), "view", leaky)
    assert check("chemin_de_fer", range(6), players=False)

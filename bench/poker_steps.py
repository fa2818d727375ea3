"""Per-step latency of the poker engines, as the bot pays it.

Run: ``.venv/bin/python bench/poker_steps.py [--game draw-poker|stud-poker]
[--hands 200] [--seed 1] [--players 5] [--cold]``.

Plays the simulation's random policy (``games.simulate.poker``: uniform
among the legal actions, preset amounts, random discards) and times each
``apply`` on its own, and separately the reads the bot makes around a press
(``awaiting``, ``legal_actions`` of the awaited player, the group's and his
``view``). ``--cold`` empties the pokerkit replay cache before every call,
i.e. the cost after a restart (or of the engine before the cache: every
call replays the hand's log). Prints JSON: mean, median and 95th percentile
in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from games.engine import Join, Start, parse_action
from games.poker import kit
from games.poker.common import PokerEngine, PokerState


def _engine(game: str) -> PokerEngine:
    if game == "stud-poker":
        from games.poker.stud import ENGINE as STUD
        return STUD
    from games.poker.draw import ENGINE as DRAW
    return DRAW


def _cold() -> None:
    # the private dict rather than kit.forget(): this bench also times the engine before
    # the cache had forget() (PYTHONPATH=<old tree>), and a cold cache is a full replay
    kit._CACHE.clear()


def _summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(x * 1000 for x in samples)
    return {"mean_ms": round(statistics.fmean(ms), 3),
            "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3)}


def main() -> None:
    """Play, time, print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", choices=("draw-poker", "stud-poker"), default="draw-poker")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    engine = _engine(args.game)
    rng = random.Random(args.seed)
    state: PokerState = engine.new_table({}, rng)
    for p in range(1, args.players + 1):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=200)).state
    state = engine.apply(state, 1, Start(), rng).state
    applies: list[float] = []
    reads: list[float] = []
    hands = 0
    while hands < args.hands:
        if args.cold:
            _cold()
        t0 = time.perf_counter()
        waiting = engine.awaiting(state)
        if not waiting:
            break  # too few players with chips left
        player = waiting[0]
        specs = [s for s in engine.legal_actions(state, player) if s.kind != "leave"]
        engine.view(state, None)
        engine.view(state, player)
        reads.append(time.perf_counter() - t0)
        spec = rng.choice(specs)
        data: dict[str, Any] = {"kind": spec.kind}
        if spec.kind in ("bet", "raise", "open"):
            data["amount"] = rng.choice(spec.presets)
        elif spec.kind == "discard":
            data["cards"] = rng.sample(spec.choices, rng.randint(0, spec.max or 0))
        action = parse_action(engine, data)
        if args.cold:
            _cold()
        t0 = time.perf_counter()
        step = engine.apply(state, player, action, rng)
        applies.append(time.perf_counter() - t0)
        hands += sum(1 for e in step.events if e.kind == "coup_settled")
        state = step.state
    print(json.dumps({"game": engine.name, "hands": hands, "steps": len(applies),
                      "cold": args.cold, "apply": _summary(applies),
                      "reads_per_step": _summary(reads)}, indent=2))


if __name__ == "__main__":
    main()

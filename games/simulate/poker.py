"""Random legal play of draw or stud poker through the public engine API.

``python -m games.simulate draw-poker --hands N --seed S --players P`` (or
``stud-poker``): every seat picks uniformly among its legal actions (amounts
from the presets, discards of a random size), chips are checked to be
conserved after every step and every hand, and the output gives hands per
second and showdown figures as JSON.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from games.engine import Hand, Join, Start, net, parse_action
from games.poker.common import PokerEngine, PokerState


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options."""
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--buy-in", type=int, default=200)
    parser.add_argument("--structure", choices=("fixed", "pot"), default="fixed")


def _engine(game: str) -> PokerEngine:
    if game == "stud-poker":
        from games.poker.stud import ENGINE as STUD
        return STUD
    from games.poker.draw import ENGINE as DRAW
    return DRAW


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.hands`` hands (re-buying busted players) and report."""
    engine = _engine(getattr(args, "game", "draw-poker"))
    rng = random.Random(args.seed)
    state: PokerState = engine.new_table({"structure": args.structure}, rng)
    bought = 0
    for p in range(1, args.players + 1):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=args.buy_in)).state
        bought += args.buy_in
    state = engine.apply(state, 1, Start(), rng).state
    showdowns = uncontested = passed = steps = 0
    shown_values: dict[str, int] = {}
    started = time.perf_counter()
    hands_done = 0
    while hands_done < args.hands:
        waiting = engine.awaiting(state)
        if not waiting:  # too few players with chips: top everybody up
            cashed = sum(s.stack for s in state.seats)
            for seat in list(state.seats):
                state = engine.apply(state, seat.player, parse_action(
                    engine, {"kind": "leave"})).state
            for p in range(1, args.players + 1):
                state = engine.apply(state, p, Join(name=f"P{p}", buy_in=args.buy_in)).state
            bought += args.players * args.buy_in - cashed
            state = engine.apply(state, 1, Start(), rng).state
            continue
        player = waiting[0]
        specs = [s for s in engine.legal_actions(state, player) if s.kind != "leave"]
        spec = rng.choice(specs)
        data: dict[str, Any] = {"kind": spec.kind}
        if spec.kind in ("bet", "raise", "open"):
            data["amount"] = rng.choice(spec.presets)
        elif spec.kind == "discard":
            data["cards"] = rng.sample(spec.choices, rng.randint(0, spec.max or 0))
        before = engine.accounts(state)
        step = engine.apply(state, player, parse_action(engine, data), rng)
        steps += 1
        after = engine.accounts(step.state)
        moved = net(step.transfers)
        assert all(before.get(k, 0) + moved.get(k, 0) == after.get(k, 0)
                   for k in set(before) | set(after)), "transfers do not match accounts"
        assert sum(after.values()) == bought, "chips not conserved"
        for event in step.events:
            if event.kind == "hands_thrown_in":
                passed += 1
            elif event.kind == "hand_shown":
                value = event.data["value"]
                assert isinstance(value, Hand)
                shown_values[value.category] = shown_values.get(value.category, 0) + 1
            elif event.kind == "coup_settled":
                hands_done += 1
                if any(e.kind == "hand_shown" for e in step.events):
                    showdowns += 1
                else:
                    uncontested += 1
        state = step.state
    elapsed = time.perf_counter() - started
    return {
        "game": engine.name, "hands": hands_done, "players": args.players,
        "seed": args.seed, "structure": args.structure, "steps": steps,
        "showdowns": showdowns, "uncontested": uncontested, "passed_deals": passed,
        "shown_hand_categories": shown_values,
        "chips_conserved": True, "seconds": round(elapsed, 3),
        "hands_per_second": round(hands_done / elapsed, 1) if elapsed else None,
        "coups_per_second": round(hands_done / elapsed, 1) if elapsed else None,
    }

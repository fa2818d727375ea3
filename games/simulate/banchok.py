"""Polish banchok simulation: every punter stakes a fixed amount, nobody joins.

``python -m games.simulate banchok --coups N --seed S [--punters P] [--stake X] [--bank B]``

A *coup* here is one punter's card turned (docs/rules.md §3.4, §3.5). Policy:
whoever is offered the bank posts it; each punter stakes ``X`` (within the
bounds the engine gives: at most the bank), never forbids joining, and
nobody joins, so each punter turns at once. Stacks are large, so banks pass
only by breaking or tripling (§3.8). Figures: ``punter_win_rate`` per coup,
``punter_edge`` = net won by punters / total staked.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from games.banchok import ENGINE, PostBank, Stake, State, Turn
from games.engine import Action, Chips, Cut, Flag, Join, Settlement, Start, Word

STACK = 10**15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the banchok simulation."""
    parser.add_argument("--coups", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--punters", type=int, default=3, choices=range(1, 10))
    parser.add_argument("--stake", type=int, default=5)
    parser.add_argument("--bank", type=int, default=300)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.coups`` coups and return the figures."""
    rng = random.Random(args.seed)
    state: State = ENGINE.new_table({"bank": args.bank})
    players = list(range(1, args.punters + 2))
    for p in players:
        state = ENGINE.apply(state, p, Join(name=f"p{p}", buy_in=STACK)).state
    coups = wins = staked = punter_net = banks = 0
    ends: dict[str, int] = {}
    began = time.perf_counter()
    step = ENGINE.apply(state, players[0], Start(), rng)
    while coups < args.coups:
        state = step.state
        for e in step.events:
            if isinstance(e, Settlement):
                coups += 1
                won = e.data["won"]
                assert isinstance(won, Flag)
                wins += won.on
                punter_net += sum(n for p, n in e.nets.items() if p != e.banker)
            elif e.kind == "stake_placed":
                amount = e.data["amount"]
                assert isinstance(amount, Chips)
                staked += amount.n
            elif e.kind == "bank_posted":
                banks += 1
            elif e.kind == "bank_ended":
                reason = e.data["reason"]
                assert isinstance(reason, Word)
                ends[reason.word] = ends.get(reason.word, 0) + 1
        who = ENGINE.awaiting(state)[0]
        action: Action
        if state.phase == "post":
            action = PostBank()
        elif state.phase == "cut":
            action = Cut(offset=rng.randrange(104))
        elif state.phase == "staking":
            spec = next(a for a in ENGINE.legal_actions(state, who) if a.kind == "stake")
            assert spec.min is not None and spec.max is not None
            action = Stake(amount=max(spec.min, min(args.stake, spec.max)))
        else:
            action = Turn()
        step = ENGINE.apply(state, who, action, rng)
    elapsed = time.perf_counter() - began
    return {
        "game": "banchok",
        "coups": coups,
        "seed": args.seed,
        "punters": args.punters,
        "stake": args.stake,
        "bank": args.bank,
        "banks_posted": banks,
        "banks_ended": dict(sorted(ends.items())),
        "total_staked": staked,
        "punter_net": punter_net,
        "punter_win_rate": wins / coups if coups else 0.0,
        "punter_edge": punter_net / staked if staked else 0.0,
        "coups_per_second": coups / elapsed if elapsed else 0.0,
    }

"""Twenty-one simulation: every seat buys while its best total is 16 or less.

``python -m games.simulate twenty-one --coups N --seed S [--punters P] [--stake X]``

The fixed policy (banker included): buy while the best total is at most 16
and the hand has fewer than five cards (the rules' cap of three bought cards
is the same thing). Every punter stakes ``X`` each coup; stacks are large
enough that the banker's cover (§4.2) never refuses a stake. The play goes
through the public engine API only, talia after talia, the bank passing
left. Figures: ``punter_edge`` = net won by punters / total staked,
``banker_21_rate`` per coup, ``punter_21_rate`` per punter-coup, outcome
counts per punter-coup.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from typing import Any

from games.engine import Chips, Cut, Join, Rows, Settlement, Start, Word
from games.twenty_one import ENGINE, Buy, Stake, Stand, State, total

STACK = 10**15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the twenty-one simulation."""
    parser.add_argument("--coups", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--punters", type=int, default=3, choices=range(1, 10))
    parser.add_argument("--stake", type=int, default=1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.coups`` coups and return the figures."""
    rng = random.Random(args.seed)
    state: State = ENGINE.new_table({"min_stake": 1})
    players = list(range(1, args.punters + 2))
    for p in players:
        state = ENGINE.apply(state, p, Join(name=f"p{p}", buy_in=STACK)).state
    outcomes: Counter[str] = Counter()
    coups = banker_21 = staked = punter_net = punter_coups = 0
    began = time.perf_counter()
    step = ENGINE.apply(state, players[0], Start(), rng)
    while coups < args.coups:
        state = step.state
        for e in step.events:
            if isinstance(e, Settlement):
                coups += 1
                results = e.data["results"]
                assert isinstance(results, Rows)
                found = [r.fields["outcome"] for r in results.rows]
                said = [w.word for w in found if isinstance(w, Word)]
                outcomes.update(said)
                punter_net += sum(n for p, n in e.nets.items() if p != e.banker)
                punter_coups += len(results.rows)
                if "banker_21" in said:
                    banker_21 += 1
            elif e.kind == "stake_placed":
                amount = e.data["amount"]
                assert isinstance(amount, Chips)
                staked += amount.n
        who = ENGINE.awaiting(state)[0]
        if state.phase == "cut":
            action: Any = Cut(offset=rng.randrange(104))
        elif state.phase == "staking":
            action = Stake(amount=args.stake)
        else:
            seat = next(x for x in state.seats if x.player == who)
            action = Buy() if total(seat.cards) <= 16 and len(seat.cards) < 5 else Stand()
        step = ENGINE.apply(state, who, action, rng)
    elapsed = time.perf_counter() - began
    return {
        "game": "twenty-one",
        "coups": coups,
        "seed": args.seed,
        "punters": args.punters,
        "stake": args.stake,
        "punter_coups": punter_coups,
        "total_staked": staked,
        "punter_net": punter_net,
        "punter_edge": punter_net / staked if staked else 0.0,
        "banker_21_rate": banker_21 / coups if coups else 0.0,
        "punter_21_rate": outcomes["natural"] / punter_coups if punter_coups else 0.0,
        "outcomes": dict(sorted(outcomes.items())),
        "coups_per_second": coups / elapsed if elapsed else 0.0,
    }

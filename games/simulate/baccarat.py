"""``python -m games.simulate baccarat --coups N --seed S [--punters P] [--stake X]``.

Plays old Russian baccarat (docs/rules.md §2) through the public engine API with
every choice at its safe default: seat 0 has a huge stack, bids it all for
the bank at every auction (the others pass), and every punter stakes X each
coup, takes a third card on 0–4 and never declares baccara; the banker draws
on 0–5. The shoe is shuffled from ``random.Random(seed)`` (reproducible).

Outcomes (JSON ``outcomes``):

* per coup: ``banker_natural_sweep`` (the banker's natural took every stake),
  ``punter_natural`` (a punter's natural decided the coup), ``drawn_coups``
  (no natural: third cards and a showdown);
* per punter-stake in drawn coups: ``punter_wins`` (paid 2 × stake),
  ``banker_wins`` (banker higher), ``ties`` (equal points other than 6–6:
  the banker takes the stake), ``six_six_splits``;
* per punter-stake in natural coups: ``natural_wins``, ``natural_losses``.

``punter_edge`` = net chips won by all punters / chips staked.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from games.baccarat import ENGINE
from games.banking import Bid, Draw, Pass, Stake, Stand
from games.cards import hand_points
from games.engine import Action, Chips, Cut, Join, Rows, Signed, Start, Word

BIG = 10**15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line options of this simulation."""
    parser.add_argument("--coups", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--punters", type=int, default=3, choices=range(2, 12))
    parser.add_argument("--stake", type=int, default=100)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.coups`` dealt coups and return the outcome figures."""
    rng = random.Random(args.seed)
    banker = 0
    st = ENGINE.new_table({})
    for p in range(args.punters + 1):
        st = ENGINE.apply(st, p, Join(name=f"p{p}", buy_in=BIG)).state
    st = ENGINE.apply(st, banker, Start(), rng).state
    counts = dict.fromkeys(("banker_natural_sweep", "punter_natural", "drawn_coups",
                            "punter_wins", "banker_wins", "ties", "six_six_splits",
                            "natural_wins", "natural_losses"), 0)
    staked = won = coups = 0
    began = time.perf_counter()
    while coups < args.coups:
        player = ENGINE.awaiting(st)[0]
        step = ENGINE.apply(st, player, _choose(st, player, args.stake, rng), rng)
        st = step.state
        for event in step.events:
            if event.kind != "coup_settled":
                continue
            coups += 1
            results = _results(event.data["results"])
            outcomes = [r["outcome"] for r in results]
            if "banker_natural" in outcomes:
                counts["banker_natural_sweep"] += 1
            elif "natural_win" in outcomes:
                counts["punter_natural"] += 1
            else:
                counts["drawn_coups"] += 1
            for r in results:
                staked += r["stake"]
                won += r["net"]
                key = {"win": "punter_wins", "loss": "banker_wins", "tie_loss": "ties",
                       "six_six_split": "six_six_splits", "natural_win": "natural_wins",
                       "natural_loss": "natural_losses"}.get(r["outcome"], "natural_losses")
                counts[key] += 1
    elapsed = time.perf_counter() - began
    return {"game": "baccarat", "coups": coups, "punters": args.punters,
            "stake": args.stake, "seed": args.seed, "outcomes": counts,
            "punter_stakes": staked // args.stake,
            "punter_edge": round(won / staked, 6) if staked else 0.0,
            "coups_per_second": round(coups / elapsed, 1) if elapsed else 0.0}


def _results(value: object) -> list[dict[str, Any]]:
    """A settlement's ``results`` (typed rows) as plain ``stake``, ``outcome``, ``net``."""
    assert isinstance(value, Rows)
    out = []
    for line in value.rows:
        stake, outcome, won = (line.fields[k] for k in ("stake", "outcome", "net"))
        assert isinstance(stake, Chips) and isinstance(outcome, Word) \
            and isinstance(won, Signed)
        out.append({"stake": stake.n, "outcome": outcome.word, "net": won.n})
    return out


def _choose(st: Any, player: int, stake: int, rng: random.Random) -> Action:
    """The safe default (and the banker's big bid) from the legal actions."""
    specs = {s.kind: s for s in ENGINE.legal_actions(st, player)}
    if "bid" in specs:
        return Bid(amount=specs["bid"].max or 0) if player == 0 else Pass()
    if "cut" in specs:
        return Cut(offset=rng.randrange(104))
    if "stake" in specs:
        return Stake(amount=min(stake, specs["stake"].max or stake))
    if "draw" in specs:
        if player == st.banker:
            mine = ENGINE.view(st, player).my_cards
            return Draw() if hand_points(list(mine)) <= 5 else Stand()
        return Draw()
    if "stand" in specs:
        return Stand()
    return Pass()

"""``python -m games.simulate chemin-de-fer``: many coups at the safe defaults, as JSON.

The policy (fixed, so figures can be compared between runs):

* ``--punters`` P punters and one banker sit down with stacks so large that
  nobody ever runs short (so no rebuy is ever needed and the game never stalls);
* the first player bids a bank of P × ``--stake`` in the auction, the others
  pass; whenever the bank passes (docs/rules.md §1.8) the player offered it names
  the same amount, so the table never falls back to an auction;
* in the staking each punter in turn stakes ``--stake`` (or what is left
  uncovered), until the bank is covered;
* every other decision is the engine's safe default
  (:func:`games.chemin_de_fer.default_action`): stand on 5, the banker draws
  on 0–5 and stands on 6–7, a new shoe is cut at offset 0.

Everything goes through the public engine API; ``--seed`` drives the
``random.Random`` that shuffles each shoe.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from games.banking import Bid, Pass, Stake
from games.chemin_de_fer import ENGINE, default_action
from games.chemin_de_fer.model import BANK_OFFER, STAKING, NameBank
from games.engine import Join, Settlement, Start, Word

BIG_STACK = 10**15


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line options of this simulation."""
    parser.add_argument("--coups", type=int, default=100_000, help="coups to play")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffles")
    parser.add_argument("--decks", type=int, default=6, help="decks in the shoe (3-8)")
    parser.add_argument("--punters", type=int, default=3, help="punters at the table (1-11)")
    parser.add_argument("--stake", type=int, default=10, help="each punter's stake")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.coups`` coups and return the outcome figures."""
    return simulate(coups=args.coups, seed=args.seed, decks=args.decks,
                    punters=args.punters, stake=args.stake)


def simulate(*, coups: int, seed: int, decks: int = 6, punters: int = 3,
             stake: int = 10) -> dict[str, Any]:
    """Play ``coups`` settled coups with the fixed policy of the module docstring."""
    if not 1 <= punters <= ENGINE.max_players - 1:
        raise ValueError("punters must be 1-11")
    rng = random.Random(seed)
    bank_size = punters * stake
    state = ENGINE.new_table({"decks": decks})
    for player in range(1, punters + 2):
        state = ENGINE.apply(state, player, Join(name=f"p{player}", buy_in=BIG_STACK)).state
    state = ENGINE.apply(state, 1, Start()).state
    state = ENGINE.apply(state, 1, Bid(amount=bank_size)).state
    for player in range(2, punters + 2):
        state = ENGINE.apply(state, player, Pass(), rng).state

    outcomes = {"banker": 0, "punter": 0, "standoff": 0}
    names = {"banker": "banker", "punters": "punter", "standoff": "standoff"}
    punter_net = 0
    staked = 0
    settled = 0
    started = time.perf_counter()
    while settled < coups:
        (player,) = ENGINE.awaiting(state)
        if state.phase == STAKING:
            uncovered = state.bank - sum(s.stake for s in state.seats)
            amount = min(stake, uncovered)
            staked += amount
            action: Any = Stake(amount=amount)
        elif state.phase == BANK_OFFER:
            action = NameBank(amount=bank_size)
        else:
            action = default_action(state, player)
        step = ENGINE.apply(state, player, action, rng)
        state = step.state
        for event in step.events:
            if isinstance(event, Settlement):
                settled += 1
                outcome = event.data["outcome"]
                assert isinstance(outcome, Word)
                outcomes[names[outcome.word]] += 1
                # the punters won what the banker lost
                assert event.banker is not None
                punter_net -= event.nets[event.banker]
    elapsed = time.perf_counter() - started
    return {
        "game": "chemin-de-fer",
        "coups": coups,
        "decks": decks,
        "punters": punters,
        "stake": stake,
        "seed": seed,
        "outcomes": outcomes,
        "punter_edge": punter_net / staked if staked else 0.0,
        "total_staked": staked,
        "punter_net": punter_net,
        "coups_per_second": round(coups / elapsed, 1) if elapsed else 0.0,
    }

"""Time the enumeration of all 2,598,960 five-card hands with four evaluators.

Run: ``.venv/bin/python bench/poker_hands_compare.py [--pokerkit-sample N]``
(needs the ``bench`` extra: ``pip install -e .[bench]`` for treys and eval7).

Prints, as JSON, the seconds each library takes and the category counts it
finds. pokerkit is far slower than the others, so by default it ranks a
sample of the hands and its full time is extrapolated (``--pokerkit-sample 0``
runs it over all of them).
"""

from __future__ import annotations

import argparse
import json
import time
from itertools import combinations, islice

from games.cards import RANKS, SUITS
from games.poker.ranking import category, value_of_indexes

TOTAL = 2_598_960
CARDS = [r + s for r in RANKS for s in SUITS]  # index = rank * 4 + suit, as ours


def ours() -> dict[str, object]:
    """Our ranker (the one the engines use)."""
    start = time.perf_counter()
    counts = [0] * 9
    for a, b, c, d, e in combinations(range(52), 5):
        counts[category(value_of_indexes(a, b, c, d, e))] += 1
    return {"seconds": round(time.perf_counter() - start, 2), "counts": counts}


def treys_run() -> dict[str, object]:
    """treys: Cactus Kev's evaluator in pure Python."""
    from treys import Card, Evaluator

    ev = Evaluator()
    ints = [Card.new(c) for c in CARDS]
    start = time.perf_counter()
    classes: dict[int, int] = {}
    five = ev._five  # the 5-card entry point, skipping the 5/6/7 dispatch
    for combo in combinations(ints, 5):
        rank = five(list(combo))
        cls = ev.get_rank_class(rank)
        classes[cls] = classes.get(cls, 0) + 1
    return {"seconds": round(time.perf_counter() - start, 2),
            "counts_by_class": dict(sorted(classes.items()))}


def eval7_run() -> dict[str, object]:
    """eval7: a C-accelerated evaluator."""
    import eval7

    cards = [eval7.Card(c) for c in CARDS]
    start = time.perf_counter()
    types: dict[str, int] = {}
    evaluate, handtype = eval7.evaluate, eval7.handtype
    for combo in combinations(cards, 5):
        t = handtype(evaluate(list(combo)))
        types[t] = types.get(t, 0) + 1
    return {"seconds": round(time.perf_counter() - start, 2), "counts": types}


def pokerkit_run(sample: int) -> dict[str, object]:
    """pokerkit's StandardHighHand (what the showdown uses)."""
    from pokerkit import Card, StandardHighHand

    cards = [next(iter(Card.parse(c))) for c in CARDS]
    n = sample if sample else TOTAL
    start = time.perf_counter()
    labels: dict[str, int] = {}
    for combo in islice(combinations(cards, 5), n):
        label = StandardHighHand.from_game(combo).entry.label.value
        labels[label] = labels.get(label, 0) + 1
    elapsed = time.perf_counter() - start
    out: dict[str, object] = {"hands_ranked": n, "seconds": round(elapsed, 2)}
    if sample:
        out["extrapolated_seconds_for_all"] = round(elapsed * TOTAL / n, 1)
    else:
        out["counts"] = labels
    return out


def main() -> None:
    """Run every evaluator and print the timings."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--pokerkit-sample", type=int, default=200_000)
    args = parser.parse_args()
    print(json.dumps({
        "hands": TOTAL,
        "banco": ours(),
        "eval7": eval7_run(),
        "treys": treys_run(),
        "pokerkit": pokerkit_run(args.pokerkit_sample),
    }, indent=2))


if __name__ == "__main__":
    main()

"""Enumerate all 2,598,960 five-card hands with the engines' own ranker.

``python -m games.simulate poker-hands`` prints the count of each category,
the number of hands that may open a jackpot (jacks or better) and the
elapsed seconds. It asserts nothing: ``tests/test_poker_ranking.py`` checks
the figures.
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations
from typing import Any

from games.cards import RANKS
from games.poker.ranking import (
    CATEGORY_NAMES,
    ONE_PAIR,
    category,
    tiebreak,
    value_of_indexes,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the enumeration is exhaustive."""


def enumerate_hands() -> tuple[list[int], int]:
    """Per-category counts and the number of jacks-or-better hands."""
    counts = [0] * len(CATEGORY_NAMES)
    jacks = RANKS.index("J")
    openers = 0
    for a, b, c, d, e in combinations(range(52), 5):
        value = value_of_indexes(a, b, c, d, e)
        cat = category(value)
        counts[cat] += 1
        if cat > ONE_PAIR or (cat == ONE_PAIR and tiebreak(value)[0] >= jacks):
            openers += 1
    return counts, openers


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Count every hand; report counts, openers and seconds."""
    started = time.perf_counter()
    counts, openers = enumerate_hands()
    elapsed = time.perf_counter() - started
    return {
        "hands": sum(counts),
        "categories": dict(zip(CATEGORY_NAMES, counts, strict=True)),
        "jacks_or_better": openers,
        "seconds": round(elapsed, 2),
    }

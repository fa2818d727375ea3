"""Hand ranking (docs/rules.md §5): our fast ranker against pokerkit and the exact counts."""

from __future__ import annotations

import argparse
import random

from pokerkit import StandardHighHand

from games.cards import DECK
from games.poker.ranking import (
    describe,
    hand_value,
    has_jacks_or_better,
    openers_proof,
    possible_hands,
    showing_value,
)
from games.simulate import poker_hands


def test_enumeration_gives_the_known_category_counts_and_openers() -> None:
    out = poker_hands.run(argparse.Namespace())
    assert out["hands"] == 2_598_960
    assert out["categories"] == {
        "straight flush": 40, "four of a kind": 624, "full house": 3744, "flush": 5108,
        "straight": 10200, "three of a kind": 54912, "two pair": 123552,
        "one pair": 1098240, "high card": 1302540,
    }
    # pairs of jacks, queens, kings, aces (4 x 84,480) + every hand above one pair
    assert out["jacks_or_better"] == 4 * 84480 + 198180


def test_ranker_orders_hands_exactly_like_pokerkit() -> None:
    rng = random.Random(7)
    hands = [rng.sample(DECK, 5) for _ in range(1500)]
    ours = [hand_value(h) for h in hands]
    theirs = [StandardHighHand("".join(h)) for h in hands]
    for i in range(0, len(hands) - 1):
        j = i + 1
        assert (ours[i] > ours[j]) == (theirs[i] > theirs[j])
        assert (ours[i] == ours[j]) == (theirs[i] == theirs[j])


def test_ace_plays_low_in_the_wheel_and_suits_never_break_ties() -> None:
    wheel = hand_value(["As", "2d", "3c", "4h", "5s"])
    six_high = hand_value(["2s", "3d", "4c", "5h", "6s"])
    assert describe(wheel) == "straight, five high" and wheel < six_high
    assert hand_value(["As", "Kd", "9c", "7h", "2s"]) == hand_value(["Ah", "Kc", "9d", "7s", "2h"])
    assert describe(hand_value(["As", "Ks", "Qs", "Js", "Ts"])) == "royal flush"


def test_jacks_or_better_and_the_proof_of_openers() -> None:
    assert has_jacks_or_better(["Jc", "Jd", "2c", "3c", "4c"])
    assert not has_jacks_or_better(["Tc", "Td", "Ac", "Kc", "4h"])
    assert has_jacks_or_better(["2c", "2d", "3c", "3d", "4h"])  # two pair opens
    assert openers_proof(["Jc", "5d", "Jd", "3c", "4c"]) == ["Jc", "Jd"]
    assert openers_proof(["2c", "3d", "4c", "5h", "6s"]) == ["2c", "3d", "4c", "5h", "6s"]


def test_showing_values_count_only_combinations_of_up_cards() -> None:
    assert showing_value(["Ah", "Kh", "Qh", "9h"]) == showing_value(["As", "Kd", "Qc", "9h"])
    assert showing_value(["2c", "2d"]) > showing_value(["As", "Kd"])
    assert possible_hands(["9h", "Th"]) == ["possible straight", "possible flush"]
    assert possible_hands(["Kh", "7c"]) == []
    assert possible_hands(["Kh", "Kc", "7c", "7d"]) == ["possible full house"]

"""Hand ranking (docs/rules.md §5): our fast ranker against pokerkit and the exact counts."""

from __future__ import annotations

import argparse
import random

import pytest
from pokerkit import StandardHighHand

from games.cards import DECK
from games.poker.ranking import (
    HandCategory,
    HandValue,
    hand_of,
    hand_of_cards,
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
    assert hand_of(wheel) == HandValue(category=HandCategory.STRAIGHT, ranks=(3,))
    assert wheel < six_high
    assert hand_value(["As", "Kd", "9c", "7h", "2s"]) == hand_value(["Ah", "Kc", "9d", "7s", "2h"])
    assert hand_of(hand_value(["As", "Ks", "Qs", "Js", "Ts"])) == HandValue(
        category=HandCategory.ROYAL_FLUSH)


def test_jacks_or_better_and_the_proof_of_openers() -> None:
    assert has_jacks_or_better(["Jc", "Jd", "2c", "3c", "4c"])
    assert not has_jacks_or_better(["Tc", "Td", "Ac", "Kc", "4h"])
    assert has_jacks_or_better(["2c", "2d", "3c", "3d", "4h"])  # two pair opens
    assert openers_proof(["Jc", "5d", "Jd", "3c", "4c"]) == ["Jc", "Jd"]
    assert openers_proof(["2c", "3d", "4c", "5h", "6s"]) == ["2c", "3d", "4c", "5h", "6s"]


def test_showing_values_count_only_combinations_of_up_cards() -> None:
    assert showing_value(["Ah", "Kh", "Qh", "9h"]) == showing_value(["As", "Kd", "Qc", "9h"])
    assert showing_value(["2c", "2d"]) > showing_value(["As", "Kd"])
    assert [p.category for p in possible_hands(["9h", "Th"])] == [
        HandCategory.POSSIBLE_STRAIGHT, HandCategory.POSSIBLE_FLUSH]
    assert possible_hands(["Kh", "7c"]) == []
    assert possible_hands(["Kh", "Kc", "7c", "7d"]) == [
        HandValue(category=HandCategory.POSSIBLE_FULL_HOUSE)]


@pytest.mark.parametrize(("cards", "category", "ranks"), [
    (["Qs", "Qd", "2c", "7h", "9s"], "pair", (10,)),
    (["As", "Ad", "5c", "5h", "9s"], "two_pair", (12, 3)),
    (["7s", "7d", "7c", "Kh", "9s"], "three", (5,)),
    (["4s", "4d", "4c", "7h", "7s"], "full_house", (2, 5)),
    (["Ks", "Kd", "Kc", "Kh", "2s"], "four", (11,)),
    (["9h", "8h", "7h", "6h", "5h"], "straight_flush", (7,)),
    (["Ah", "9h", "7h", "4h", "2h"], "flush", (12,)),
    (["As", "Kd", "9c", "7h", "2s"], "high_card", (12,)),
    (["Jc", "Jd", "4s"], "pair", (9,)),  # fewer than five: named like up cards
    (["3c", "Td"], "high_card", (8,)),
])
def test_hand_values_name_the_category_and_its_ranks(
        cards: list[str], category: str, ranks: tuple[int, ...]) -> None:
    assert hand_of_cards(cards) == HandValue(category=HandCategory(category), ranks=ranks)

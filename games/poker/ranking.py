"""Five-card poker hand ranking: our own fast evaluator, checked against pokerkit.

docs/rules.md §5: standard ranking, the ace plays high or low in a straight
(A-2-3-4-5 is the lowest straight), and suits never break ties.

Why our own code when pokerkit ranks hands too: the engines ask for a hand's
category many times (jacks-or-better check, stud's showing values and
openers, announcements) and ``python -m games.simulate poker-hands`` ranks all
2,598,960 hands; pokerkit's ``StandardHighHand`` builds several objects per
hand and is about a hundred times slower. The showdown itself (who takes
which pot) is still decided by pokerkit inside the replayed pokerkit state
(:mod:`games.poker.kit`); ``tests/test_poker_ranking.py`` proves the two agree.

A hand's *value* is one int: ``category * 13**5 + tiebreak`` where the
tiebreak is the ranks in significance order read as base-13 digits, so
comparing values compares hands exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from enum import StrEnum
from itertools import combinations

from pydantic import BaseModel, ConfigDict

from games.cards import RANKS, SUITS
from games.engine import Hand

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, \
    FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(9)

CATEGORY_NAMES = (
    "high card", "one pair", "two pair", "three of a kind", "straight", "flush",
    "full house", "four of a kind", "straight flush",
)
"""English name of each category, indexed by category number (for figures, not players)."""


class HandCategory(StrEnum):
    """What a hand is, as the bot names it; the "possible" ones are what stud up cards can
    still become (docs/rules.md §5b.4)."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE = "three"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR = "four"
    STRAIGHT_FLUSH = "straight_flush"
    ROYAL_FLUSH = "royal_flush"
    POSSIBLE_STRAIGHT = "possible_straight"
    POSSIBLE_FLUSH = "possible_flush"
    POSSIBLE_FULL_HOUSE = "possible_full_house"


class HandValue(BaseModel):
    """A hand's name as data: its category and the ranks that name it, most significant
    first (0 = deuce .. 12 = ace): a pair its rank, two pair and a full house two ranks,
    a straight, a flush or a high card its top rank, a royal flush none. Engines put
    :meth:`typed` of it into events and views; the bot words it per language."""

    model_config = ConfigDict(frozen=True)
    category: HandCategory
    ranks: tuple[int, ...] = ()

    def typed(self) -> Hand:
        """The hand as a typed value of event data and view facts (:class:`games.engine.Hand`)."""
        return Hand(category=str(self.category), ranks=self.ranks)


_CATEGORIES = (HandCategory.HIGH_CARD, HandCategory.PAIR, HandCategory.TWO_PAIR,
               HandCategory.THREE, HandCategory.STRAIGHT, HandCategory.FLUSH,
               HandCategory.FULL_HOUSE, HandCategory.FOUR, HandCategory.STRAIGHT_FLUSH)
"""Our category of each category number."""

_NAMING_RANKS = (1, 1, 2, 1, 1, 1, 2, 1, 1)
"""How many of a category's tiebreak ranks name the hand ("two pair, aces and fives")."""

_BASE = 13 ** 5
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)

CARD_INDEX: dict[str, int] = {r + s: ri * 4 + si
                              for ri, r in enumerate(RANKS) for si, s in enumerate(SUITS)}
"""Card string -> int (rank * 4 + suit), the evaluator's compact form."""


def _digits(ranks: Sequence[int]) -> int:
    out = 0
    for r in ranks:
        out = out * 13 + r
    return out


def _straight_high(distinct: Sequence[int]) -> int | None:
    """The top rank of a five-rank straight, the wheel counting its five as top."""
    s = sorted(distinct)
    if len(s) != 5:
        return None
    if s[4] - s[0] == 4:
        return s[4]
    if s == [0, 1, 2, 3, 12]:
        return 3  # docs/rules.md §5: the ace plays low in A-2-3-4-5
    return None


def _value_of_ranks(ranks: Sequence[int], flush: bool) -> int:
    """The value of five ranks (0 = deuce .. 12 = ace), suited or not."""
    counts = Counter(ranks)
    # significance order: more of a rank first, then higher rank
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    high = _straight_high(list(counts))
    if high is not None:
        return (STRAIGHT_FLUSH if flush else STRAIGHT) * _BASE + high
    if flush:
        return FLUSH * _BASE + _digits(order)
    category = {
        (4, 1): FOUR_OF_A_KIND, (3, 2): FULL_HOUSE, (3, 1, 1): THREE_OF_A_KIND,
        (2, 2, 1): TWO_PAIR, (2, 1, 1, 1): ONE_PAIR, (1, 1, 1, 1, 1): HIGH_CARD,
    }[tuple(shape)]
    return category * _BASE + _digits(order)


def _build_tables() -> tuple[dict[int, int], dict[int, int]]:
    plain: dict[int, int] = {}
    suited: dict[int, int] = {}
    for combo in _rank_multisets():
        key = 1
        for r in combo:
            key *= _PRIMES[r]
        plain[key] = _value_of_ranks(combo, False)
        if len(set(combo)) == 5:
            suited[key] = _value_of_ranks(combo, True)
    return plain, suited


def _rank_multisets() -> Iterable[tuple[int, ...]]:
    """Every multiset of five ranks with at most four of a rank (6,175 of them)."""
    def rec(start: int, left: int, acc: list[int]) -> Iterable[tuple[int, ...]]:
        if left == 0:
            yield tuple(acc)
            return
        for r in range(start, 13):
            if acc.count(r) < 4:
                acc.append(r)
                yield from rec(r, left - 1, acc)
                acc.pop()
    return rec(0, 5, [])


_PLAIN, _SUITED = _build_tables()
_CARD_PRIME = tuple(_PRIMES[i >> 2] for i in range(52))


def value_of_indexes(a: int, b: int, c: int, d: int, e: int) -> int:
    """The value of five cards given as ints (see :data:`CARD_INDEX`); the hot path."""
    key = _CARD_PRIME[a] * _CARD_PRIME[b] * _CARD_PRIME[c] * _CARD_PRIME[d] * _CARD_PRIME[e]
    s = a & 3
    if (b & 3) == s and (c & 3) == s and (d & 3) == s and (e & 3) == s:
        return _SUITED[key]
    return _PLAIN[key]


def hand_value(cards: Sequence[str]) -> int:
    """The value of a five-card hand: higher is better, equal means a split pot."""
    if len(cards) != 5:
        raise ValueError("a poker hand has five cards")
    a, b, c, d, e = (CARD_INDEX[x] for x in cards)
    return value_of_indexes(a, b, c, d, e)


def category(value: int) -> int:
    """The category number (0 high card .. 8 straight flush) of a value."""
    return value // _BASE


def tiebreak(value: int) -> tuple[int, ...]:
    """The ranks that break ties within the category, most significant first."""
    t = value % _BASE
    digits = []
    for _ in range(5):
        digits.append(t % 13)
        t //= 13
    out = tuple(reversed(digits))
    # drop the leading zeros of categories that need fewer than five ranks
    need = {FOUR_OF_A_KIND: 2, FULL_HOUSE: 2, THREE_OF_A_KIND: 3, TWO_PAIR: 3,
            ONE_PAIR: 4, STRAIGHT: 1, STRAIGHT_FLUSH: 1}.get(category(value), 5)
    return out[5 - need:]


def hand_of(value: int) -> HandValue:
    """The structured name of a hand value: its category and the ranks that name it."""
    cat, tb = category(value), tiebreak(value)
    if cat == STRAIGHT_FLUSH and tb[0] == RANKS.index("A"):
        return HandValue(category=HandCategory.ROYAL_FLUSH)
    return HandValue(category=_CATEGORIES[cat], ranks=tb[:_NAMING_RANKS[cat]])


def hand_of_cards(cards: Sequence[str]) -> HandValue:
    """What one to five cards make: "pair of jacks", "flush, king high".

    Five cards are ranked in full (:func:`hand_of`); fewer can only make
    pairs, two pair, trips or fours (a straight or flush needs five), so they
    are named like up cards (:func:`showing_hand`: "pair of jacks", "ace high").
    """
    return hand_of(hand_value(cards)) if len(cards) == 5 else showing_hand(cards)


def has_jacks_or_better(cards: Sequence[str]) -> bool:
    """docs/rules.md §5a.2: a pair of jacks or any better hand may open."""
    value = hand_value(cards)
    cat = category(value)
    return cat > ONE_PAIR or (cat == ONE_PAIR and tiebreak(value)[0] >= RANKS.index("J"))


def openers_proof(cards: Sequence[str]) -> list[str]:
    """The fewest cards of ``cards`` (five) that prove jacks or better, for the showdown.

    A pair of jacks or better is proved by the pair; a better hand by every
    card of the hand that makes it (two pair: both pairs; straight and up: all five).
    """
    value = hand_value(cards)
    cat = category(value)
    counts = Counter(c[0] for c in cards)
    if cat == ONE_PAIR:
        return [c for c in cards if counts[c[0]] == 2]
    if cat in (TWO_PAIR, THREE_OF_A_KIND, FOUR_OF_A_KIND):
        return [c for c in cards if counts[c[0]] >= 2]
    return list(cards)


# ---------------------------------------------------------- showing (stud)


def showing_value(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Value of one to four up cards: only pairs, two pair, trips and fours count.

    docs/rules.md §5b.3: "only combinations of the up cards count"; a straight or a
    flush needs five cards, so with at most four up cards it never shows, and
    suits never break ties. Returns ``(category, ranks in significance order)``.
    """
    ranks = [RANKS.index(c[0]) for c in cards]
    counts = Counter(ranks)
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = tuple(sorted(counts.values(), reverse=True))
    if shape[0] == 4:
        cat = FOUR_OF_A_KIND
    elif shape[0] == 3:
        cat = THREE_OF_A_KIND
    elif shape[:2] == (2, 2):
        cat = TWO_PAIR
    elif shape[0] == 2:
        cat = ONE_PAIR
    else:
        cat = HIGH_CARD
    return cat, order


def showing_hand(cards: Sequence[str]) -> HandValue:
    """What the up cards show (docs/rules.md §5b.4): "pair of queens", "ace high"."""
    cat, order = showing_value(cards)
    return HandValue(category=_CATEGORIES[cat], ranks=order[:_NAMING_RANKS[cat]])


def possible_hands(cards: Sequence[str]) -> list[HandValue]:
    """Straights, flushes and full houses the up cards can still become (docs/rules.md §5b.4).

    The final hand is the hole card plus four up cards, so a straight is
    possible when the distinct up ranks fit in one five-rank window (ace
    high or low) and a flush when every up card is of one suit. As the seed
    says, possibilities below a straight are not announced.
    """
    out: list[HandValue] = []
    ranks = {RANKS.index(c[0]) for c in cards}
    if len(ranks) == len(cards):
        windows = [set(range(lo, lo + 5)) for lo in range(9)] + [{12, 0, 1, 2, 3}]
        if any(ranks <= w for w in windows):
            out.append(HandValue(category=HandCategory.POSSIBLE_STRAIGHT))
    if len({c[1] for c in cards}) == 1:
        out.append(HandValue(category=HandCategory.POSSIBLE_FLUSH))
    cat, _ = showing_value(cards)
    if cat in (TWO_PAIR, THREE_OF_A_KIND):
        out.append(HandValue(category=HandCategory.POSSIBLE_FULL_HOUSE))
    return out


def category_counts_all() -> list[int]:
    """How many of the 2,598,960 five-card hands fall in each category (enumeration)."""
    counts = [0] * 9
    for a, b, c, d, e in combinations(range(52), 5):
        counts[value_of_indexes(a, b, c, d, e) // _BASE] += 1
    return counts

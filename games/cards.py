"""Cards and the shoe: secure shuffle, provably-fair commitment, cut, burn, deal.

A card is a two-character string, rank then suit: ``"Ah"``, ``"Td"``, ``"2c"``.
Strings keep the state's JSON small and its round trip lossless.

docs/rules.md §0: the shoe is N standard decks shuffled with a cryptographically
secure generator; the group sees ``SHA-256(order || salt)`` before the cut,
and the order and salt are published when the shoe is finished, so anyone can
check every card dealt (see :func:`verify`).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def _check_card(value: str) -> str:
    if len(value) != 2 or value[0] not in RANKS or value[1] not in SUITS:
        raise ValueError(f"not a card: {value!r}")
    return value


Card = Annotated[str, AfterValidator(_check_card)]

DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)


def rank(card: str) -> str:
    """The rank character of ``card`` (``"T"`` for ten)."""
    return card[0]


def suit(card: str) -> str:
    """The suit character of ``card`` (``c``, ``d``, ``h`` or ``s``)."""
    return card[1]


def rank_index(card: str) -> int:
    """0 for a deuce up to 12 for an ace (ace high)."""
    return RANKS.index(card[0])


def baccarat_points(card: str) -> int:
    """Baccarat-family value (docs/rules.md §0): A = 1, 2–9 face value, 10/J/Q/K = 0."""
    r = card[0]
    if r == "A":
        return 1
    if r in "TJQK":
        return 0
    return int(r)


def hand_points(cards: list[str]) -> int:
    """Baccarat-family points of a hand: the sum of card values modulo 10."""
    return sum(baccarat_points(c) for c in cards) % 10


def pretty(card: str) -> str:
    """Human form: ``"10♥"``, ``"Q♠"``."""
    r = "10" if card[0] == "T" else card[0]
    return r + SUIT_SYMBOLS[card[1]]


def pretty_all(cards: list[str]) -> str:
    """Human form of several cards, space separated."""
    return " ".join(pretty(c) for c in cards)


def commitment_of(order: list[str], salt: str) -> str:
    """SHA-256 of the shoe order (cards joined by spaces), a ``|`` and the salt."""
    data = (" ".join(order) + "|" + salt).encode()
    return hashlib.sha256(data).hexdigest()


def verify(order: list[str], salt: str, commitment: str) -> bool:
    """True when a published ``order`` and ``salt`` match the ``commitment`` shown earlier."""
    return commitment_of(order, salt) == commitment


def secure_rng() -> random.Random:
    """The only source of randomness for shuffles and cuts in production."""
    return secrets.SystemRandom()


class Shoe(BaseModel):
    """N decks in a committed order; ``position`` is the next card to deal.

    ``order`` is the order as committed (before the cut); ``cut`` rotates it.
    The dealing order is therefore ``order[cut:] + order[:cut]``, which anyone
    can recompute from the published order, salt and cut.
    """

    decks: int = Field(ge=1, le=8)
    order: list[Card]
    salt: str
    commitment: str
    cut: int = 0
    position: int = 0
    burned: list[Card] = Field(default_factory=list)

    @classmethod
    def shuffled(cls, decks: int, rng: random.Random | None = None) -> Shoe:
        """A new shoe of ``decks`` decks shuffled by ``rng`` (secure by default)."""
        rng = rng or secure_rng()
        order = [c for _ in range(decks) for c in DECK]
        rng.shuffle(order)
        salt = secrets.token_hex(16) if isinstance(rng, secrets.SystemRandom) else (
            f"{rng.getrandbits(128):032x}"
        )
        return cls(decks=decks, order=order, salt=salt, commitment=commitment_of(order, salt))

    @classmethod
    def shuffled_from(cls, cards: list[str], decks: int,
                      rng: random.Random | None = None) -> Shoe:
        """Exactly ``cards`` (e.g. used cards gathered up) shuffled by ``rng``, with a commitment.

        For games that put gathered cards under the shoe (docs/rules.md §3.7): the
        gathered part is a small shoe of its own, committed when it is added
        and revealed when it is finished, so every card stays provably fair.
        """
        rng = rng or secure_rng()
        order = list(cards)
        rng.shuffle(order)
        salt = secrets.token_hex(16) if isinstance(rng, secrets.SystemRandom) else (
            f"{rng.getrandbits(128):032x}"
        )
        return cls(decks=decks, order=order, salt=salt, commitment=commitment_of(order, salt))

    @classmethod
    def fixed(cls, cards: list[str], decks: int = 1, salt: str = "test") -> Shoe:
        """A shoe dealing exactly ``cards`` in that order (tests, replays)."""
        return cls(decks=decks, order=list(cards), salt=salt,
                   commitment=commitment_of(list(cards), salt))

    @property
    def dealing_order(self) -> list[str]:
        """The order after the cut."""
        return self.order[self.cut:] + self.order[: self.cut]

    @property
    def remaining(self) -> int:
        """Cards left to deal."""
        return len(self.order) - self.position

    def with_cut(self, offset: int) -> Shoe:
        """The shoe cut at ``offset`` (taken modulo its size); only before the first card."""
        if self.position:
            raise ValueError("a shoe is cut before dealing")
        return self.model_copy(update={"cut": offset % max(1, len(self.order))})

    def peek(self, n: int = 1) -> list[str]:
        """The next ``n`` cards without dealing them (engines only; never shown)."""
        start = self.position
        return [self._at(i) for i in range(start, min(start + n, len(self.order)))]

    def _at(self, i: int) -> str:
        return self.order[(self.cut + i) % len(self.order)]

    def deal(self, n: int = 1) -> tuple[Shoe, list[str]]:
        """Deal ``n`` cards: the shoe after, and the cards dealt."""
        if n > self.remaining:
            raise ValueError("the shoe is empty")
        cards = [self._at(i) for i in range(self.position, self.position + n)]
        return self.model_copy(update={"position": self.position + n}), cards

    def burn(self, n: int) -> tuple[Shoe, list[str]]:
        """Turn ``n`` cards face up and discard them (docs/rules.md §1.2)."""
        shoe, cards = self.deal(n)
        return shoe.model_copy(update={"burned": [*self.burned, *cards]}), cards

    def reveal(self) -> dict[str, object]:
        """What is published when the shoe is finished: order, salt, cut, commitment."""
        return {"order": list(self.order), "salt": self.salt, "cut": self.cut,
                "commitment": self.commitment}

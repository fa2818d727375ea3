"""Cards and the shoe: secure shuffle, provably-fair commitment, cut, burn, deal.

A card is a two-character string, rank then suit: ``"Ah"``, ``"Td"``, ``"2c"``.
Strings keep the state's JSON small and its round trip lossless.

docs/rules.md §0: the shoe is N standard decks shuffled with a cryptographically
secure generator. The group sees its commitment before the cut: the root of a
Merkle tree over every card, its position and a per-card salt (the exact
encoding: :mod:`games.verify.merkle`). A card can then be proven alone
(:meth:`Shoe.reveal_shown`, poker's shown cards) or the whole shoe revealed
(:meth:`Shoe.reveal`, the banking games' finished shoes); ``python -m
games.verify FILE`` checks either offline.
"""

from __future__ import annotations

import functools
import hashlib
import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from games.engine import ActionSpec, ShoeFacts, cut_spec
from games.verify.merkle import card_salt, levels, multiproof, shoe_leaves

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
    """The commitment of a shoe: the Merkle root over its cards (:mod:`games.verify.merkle`)."""
    return _tree(tuple(order), salt)[-1][0].hex()


@functools.lru_cache(maxsize=16)
def _tree(order: tuple[str, ...], salt: str) -> list[list[bytes]]:
    # a poker hand's end proves the same deck for the table and for every player: one tree
    return levels(shoe_leaves(order, salt))


def verify(order: list[str], salt: str, commitment: str) -> bool:
    """True when a published ``order`` and ``salt`` match the ``commitment`` shown earlier."""
    return commitment_of(order, salt) == commitment


def timeout_cut(commitment: str, seated: Sequence[int], coup: int, size: int) -> int:
    """The cut when the cutter lets his time run out (docs/rules.md §0.4):
    ``int(SHA-256(ASCII("cut|" + commitment + "|" + seated ids joined by "," + "|" + coup)))
    mod size``. Every input is public and fixed before the deadline, so nobody, the host
    included, can pick it once the shoe is committed."""
    text = f"cut|{commitment}|{','.join(str(p) for p in seated)}|{coup}"
    return int(hashlib.sha256(text.encode("ascii")).hexdigest(), 16) % max(1, size)


def secure_rng() -> random.Random:
    """The only source of randomness for shuffles and cuts in production."""
    return secrets.SystemRandom()


class Shoe(BaseModel):
    """N decks in a committed order; ``position`` is the next card to deal.

    ``order`` is the order as committed (before the cut); ``cut`` rotates it.
    The dealing order is therefore ``order[cut:] + order[:cut]``, which anyone
    can recompute from the published order, salt and cut. ``cutter`` was to cut;
    ``by_timeout`` says his time ran out and :func:`timeout_cut` chose the depth, else he
    chose it himself (a chosen depth may equal the timeout's: only this field tells them
    apart); ``seated`` and ``cut_coup`` are that rule's public inputs at that moment.
    """

    decks: int = Field(ge=1, le=8)
    order: list[Card]
    salt: str
    commitment: str
    cut: int = 0
    position: int = 0
    burned: list[Card] = Field(default_factory=list)
    cutter: int | None = None
    by_timeout: bool = False
    seated: list[int] = Field(default_factory=list)
    cut_coup: int = 0

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

    def with_cut(self, offset: int, by: int | None = None, seated: Iterable[int] = (),
                 coup: int = 0) -> Shoe:
        """The shoe cut at ``offset`` (taken modulo its size) by player ``by``, with
        ``seated`` and ``coup`` as :func:`timeout_cut` saw them; only before the first card."""
        if self.position:
            raise ValueError("a shoe is cut before dealing")
        return self.model_copy(update={"cut": offset % max(1, len(self.order)), "cutter": by,
                                       "seated": list(seated), "cut_coup": coup})

    def cut_by_timeout(self) -> Shoe:
        """This shoe, its cut recorded as the timeout rule's (the cutter's time ran out)."""
        return self.model_copy(update={"by_timeout": True})

    def cut_spec(self) -> ActionSpec:
        """The *Cut* the cutter of this shoe is offered (:func:`games.engine.cut_spec`)."""
        return cut_spec(len(self.order))

    def timeout_cut(self, seated: Sequence[int], coup: int) -> int:
        """The offset a timed-out cut takes (:func:`timeout_cut` of this shoe)."""
        return timeout_cut(self.commitment, seated, coup, len(self.order))

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

    def how_dealt(self) -> dict[str, Any]:
        """How the dealing order was made: commitment, size, cut, who was to cut and whether
        his time ran out (the timeout rule's inputs with it), burned cards."""
        return {"commitment": self.commitment, "size": len(self.order), "cut": self.cut,
                "cutter": self.cutter, "by_timeout": self.by_timeout,
                "seated": list(self.seated), "coup": self.cut_coup,
                "burned": list(self.burned)}

    def facts(self, *under: Shoe) -> ShoeFacts:
        """What anyone may know of this shoe in play (and of the shoes ``under`` it): the
        commitments, the cards left, how it was cut once it is."""
        return _shoe_facts((self.commitment, *(u.commitment for u in under)), len(self.order),
                           self.remaining, self.cut if self.cutter is not None else None,
                           self.cutter, self.by_timeout, tuple(self.burned))

    def reveal(self) -> dict[str, Any]:
        """Everything (docs/rules.md §0.5, the banking games): the committed order and the
        shoe salt (every card's salt derives from it), how it was cut, the cards dealt."""
        return {**self.how_dealt(), "order": list(self.order), "salt": self.salt,
                "dealt": self.dealing_order[: self.position]}

    def dealt(self, card: str) -> bool:
        """True when ``card`` has come out of this shoe."""
        n = len(self.order)
        return any(self.order[(self.cut + k) % n] == card for k in range(self.position))

    def reveal_shown(self, cards: Iterable[str]) -> dict[str, Any]:
        """Only ``cards``, dealt from this shoe and shown to the table, each with its
        position and salt, and the hashes that prove them (docs/rules.md §0.5, poker): a
        card never shown stays secret. Each card names the first dealt copy not yet
        named (exact for a single deck, where every card is one of a kind)."""
        n = len(self.order)
        taken: list[int] = []
        for card in cards:
            for k in range(self.position):
                p = (self.cut + k) % n
                if self.order[p] == card and p not in taken:
                    taken.append(p)
                    break
            else:
                raise ValueError("a shown card was not dealt from this shoe")
        taken.sort()
        shown = [[p, self.order[p], card_salt(self.salt, p)] for p in taken]
        nodes = multiproof(_tree(tuple(self.order), self.salt), taken) if taken else []
        return {**self.how_dealt(), "shown": shown, "nodes": nodes}


def reveal_hand(shoes: Sequence[Shoe], last: Iterable[str] = (), first: Iterable[str] = (),
                only: Iterable[str] = ()) -> list[dict[str, Any]]:
    """One :meth:`Shoe.reveal_shown` record per shoe of a poker hand (its deck, then any
    stubs made of discards, docs/rules.md §5a.4), each card proven where it was dealt:
    ``last`` (a hand as it ends) in the latest shoe that dealt it, ``first`` (openers, from
    the first deal) in the earliest, ``only`` (a player's own discards) only when a single
    shoe dealt it, since a discard dealt again from a stub would otherwise name its holder."""
    picked: list[list[str]] = [[] for _ in shoes]
    for cards, pick in ((last, -1), (first, 0), (only, None)):
        for card in dict.fromkeys(cards):
            where = [i for i, shoe in enumerate(shoes) if shoe.dealt(card)]
            if where and (pick is not None or len(where) == 1):
                chosen = picked[where[pick or 0]]
                if card not in chosen:
                    chosen.append(card)
    return [shoe.reveal_shown(cards) for shoe, cards in zip(shoes, picked, strict=True)]


@functools.lru_cache(maxsize=4096)
def _shoe_facts(commitments: tuple[str, ...], size: int, cards_left: int, cut: int | None,
                cutter: int | None, by_timeout: bool, burned: tuple[str, ...]) -> ShoeFacts:
    """One instance per shoe and position: every view of a table draws it."""
    return ShoeFacts(commitments=commitments, size=size, cards_left=cards_left, cut=cut,
                     cutter=cutter, by_timeout=by_timeout, burned=burned)

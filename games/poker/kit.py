"""The bridge to pokerkit: one hand is a pokerkit ``State`` rebuilt from our JSON record.

Design (README, "Layout": poker/ on pokerkit). pokerkit's ``State`` is a
mutable object that does not serialize to JSON, while our ``State`` must.
So our state keeps a :class:`KitHand`: the hand's configuration (who plays,
starting stacks, antes, bet sizes) and the log of every operation in PHH
notation (``d dh p1 As``, ``p2 cbr 4``, ``p3 sd 7h2c``, ``p1 f``...). The
pokerkit state of a hand is its log replayed with pokerkit's own PHH parser
(:func:`build`); a step applies the new action to a clone of the last
replay, kept in a small cache (:func:`checkout`, :func:`remember`), and a
cache miss replays the log. pokerkit thus decides betting order,
legal amounts (fixed-limit, pot-limit, the raise cap), all-ins, side pots,
the showdown and who is paid what; the log is also the hand history we
export (:mod:`games.poker.phh`).

Where pokerkit cannot express a rule of docs/rules.md §5, :class:`BancoKitState`
overrides exactly that, and says so:

* jackpots' second betting round starts with the opener (§5a.5), not left
  of the button; stud's opener is the best *combination* of up cards with
  ties to the seat nearest the dealer's left (§5b.3), while pokerkit's
  high-hand opening counts a four-card flush above the same ranks unsuited:
  :meth:`BancoKitState._begin_betting` rotates the queue to our opener;
* stud's second round uses the big bet when an open pair shows (§5b.6):
  pokerkit fixes each street's bet when the state is built, so the override
  swaps in a big-bet street when that round begins;
* stud without an ante (§5b.1): pokerkit refuses a state with no forced bet
  at all, so the antes are given as :class:`ZeroAnte`, an int equal to 0 that
  is truthy; pokerkit then posts nothing (its effective ante is 0);
* jackpots' re-deal into the same pot (§5a.2): every deal is a new pokerkit
  state whose antes are each player's antes so far, so the carried pot and
  any side pot it makes are pokerkit's.
"""

from __future__ import annotations

import copy
from collections import OrderedDict, deque
from dataclasses import replace
from enum import Enum
from types import FunctionType
from typing import Any, Literal

from pokerkit import (
    Automation,
    BettingStructure,
    Card,
    CardsLike,
    Deck,
    Opening,
    Operation,
    StandardHighHand,
    State,
    Street,
)
from pokerkit.notation import parse_action
from pydantic import BaseModel, Field

from games.poker.ranking import ONE_PAIR, showing_value

RAISE_CAP = 4
"""docs/rules.md §5 Decision: at most one bet and three raises a round."""

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
"""Everything but the players' decisions and the dealing (our shoe deals)."""


class ZeroAnte(int):
    """An ante of zero chips that pokerkit's "some forced bet" check accepts.

    pokerkit refuses a state whose antes, blinds and bring-in are all zero
    (``No antes, blinds, straddles, or bring-in was supplied``), but five-card
    stud is played with no ante by default (docs/rules.md §5b.1). pokerkit tests
    ``any(antes)`` (truthiness) there and posts ``min(ante, stack) > 0`` chips
    later, so an int that equals 0 yet is truthy passes the check and posts
    nothing: the hand really has no forced bet.
    """

    def __bool__(self) -> bool:
        return True


class KitHand(BaseModel):
    """One pokerkit deal as JSON: configuration plus the PHH action log.

    ``players`` are in pokerkit's order: index 0 sits to the dealer's left,
    the last is the dealer (button).
    """

    variant: Literal["draw", "stud"]
    structure: Literal["fixed", "pot"]
    small_bet: int = Field(gt=0)
    players: list[int]
    starting_stacks: list[int]
    antes: list[int]
    log: list[str] = Field(default_factory=list)
    opener: int | None = None
    """pokerkit index of the jackpots opener (draw only)."""

    @property
    def big_bet(self) -> int:
        """docs/rules.md §5: the big bet is twice the small bet."""
        return 2 * self.small_bet

    def index(self, player: int) -> int:
        """pokerkit index of ``player``."""
        return self.players.index(player)


def _streets(hand: KitHand) -> tuple[Street, ...]:
    small, big = hand.small_bet, hand.big_bet
    if hand.variant == "draw":
        return (
            # docs/rules.md §5a.1-2: five cards face down, betting from the dealer's left
            Street(False, (False,) * 5, 0, False, Opening.POSITION, small, RAISE_CAP),
            # §5a.4-5: the draw, then the big bet
            Street(False, (), 0, True, Opening.POSITION, big, RAISE_CAP),
        )
    # docs/rules.md §5b.1-2,6: hole + up card, then three more up cards
    return (
        Street(False, (False, True), 0, False, Opening.HIGH_HAND, small, RAISE_CAP),
        Street(False, (True,), 0, False, Opening.HIGH_HAND, small, RAISE_CAP),
        Street(False, (True,), 0, False, Opening.HIGH_HAND, big, RAISE_CAP),
        Street(False, (True,), 0, False, Opening.HIGH_HAND, big, RAISE_CAP),
    )


class BancoKitState(State):
    """pokerkit's ``State`` with our openers and stud's open-pair big bet (see module doc)."""

    banco_variant: str = "draw"
    banco_opener: int | None = None

    # Our committed Shoe is the deck (docs/rules.md §0): every card dealt is named
    # and unique by construction, so pokerkit's own deck bookkeeping (a scan
    # of its 52-card deque per card, two thirds of a replay's time) is skipped.
    def _verify_cards_consumption(self, cards: CardsLike | int) -> tuple[Card, ...]:
        if isinstance(cards, int):  # only ``can_deal_hole()`` asks without naming cards
            return tuple(Card.clean("??" * cards))
        return tuple(Card.clean(cards))

    def _consume_cards(self, cards: tuple[Card, ...]) -> None:
        pass

    def _begin_betting(self) -> None:
        assert self.street_index is not None
        if self.banco_variant == "stud" and self.street_index == 1 and self._open_pair():
            # docs/rules.md §5b.6: big bet from round 2 on when an open pair shows;
            # pokerkit fixes bet sizes per street, so swap the street here
            streets = list(self.streets)
            streets[1] = replace(
                streets[1],
                min_completion_betting_or_raising_amount=streets[2]
                .min_completion_betting_or_raising_amount,
            )
            self.streets = tuple(streets)
        super()._begin_betting()
        if not self.actor_indices or self.street_index is None:
            return  # pokerkit already ended the round (all-in, one player left)
        first = self._banco_first_actor()
        if first is None:
            return
        # the queue is in clockwise order; rotate it to start at ``first``
        # or, if he cannot act (all-in), the next seat clockwise that can
        for k in range(self.player_count):
            i = (first + k) % self.player_count
            if i in self.actor_indices:
                while self.actor_indices[0] != i:
                    self.actor_indices.rotate(-1)
                self.opener_index = i
                return

    def _open_pair(self) -> bool:
        return any(
            self.statuses[i] and showing_value([repr(c) for c in self.get_up_cards(i)])[0]
            >= ONE_PAIR
            for i in self.player_indices
        )

    def _banco_first_actor(self) -> int | None:
        assert self.street_index is not None
        if self.banco_variant == "draw":
            # docs/rules.md §5a.5: the second round starts with the opener
            return self.banco_opener if self.street_index == 1 else None
        # docs/rules.md §5b.3: the best combination of up cards opens; ties go to
        # the seat nearest the dealer's left, i.e. the lowest pokerkit index
        best: tuple[int, tuple[int, ...]] | None = None
        first: int | None = None
        for i in self.player_indices:
            if not self.statuses[i]:
                continue
            value = showing_value([repr(c) for c in self.get_up_cards(i)])
            if best is None or value > best:
                best, first = value, i
        return first


# ------------------------------------------------------------- the replay cache
#
# Rebuilding a hand replays its whole log through pokerkit's PHH parser
# (about 1-2 ms late in a hand), and every step used to pay that, plus the
# bot's ``awaiting``/``legal_actions``/``view`` calls. So the last replays are
# kept here, keyed by the hand's whole content (configuration and log, see
# :func:`_key`): a step clones the cached pokerkit state of its log and
# applies only the new action. The cache is never the source of truth: a miss
# (another process, a restart, an evicted entry) rebuilds from the log
# exactly as before, and ``tests/test_poker_cache.py`` checks that a
# cached state and a rebuilt one agree on every field after random play.

_Key = tuple[object, ...]
_CACHE: OrderedDict[_Key, BancoKitState] = OrderedDict()
_CACHE_SIZE = 1024
"""A table needs one or two entries (its last step's state, read and then cloned), and an
entry takes about 10 KB: so about 10 MB serve some 500 busy tables. With 64, 200 stud
tables replayed most steps in full (bench/load.py: 5.2 ms of bot CPU a step against 3.6
at 20 tables). Older entries are rebuilt."""


def _key(hand: KitHand) -> _Key:
    # the log is part of the key: two tables with equal configurations and
    # equal log lengths hold different cards, and must never share a state
    return (hand.variant, hand.structure, hand.small_bet, hand.opener,
            tuple(hand.players), tuple(hand.starting_stacks), tuple(hand.antes),
            tuple(hand.log))


def _store(key: _Key, state: BancoKitState) -> None:
    _CACHE[key] = state
    _CACHE.move_to_end(key)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)


def peek(hand: KitHand) -> BancoKitState:
    """A pokerkit state for ``hand`` to *read* (never mutate): cached by content.

    ``awaiting``, ``legal_actions`` and ``view`` ask the same question of the
    same hand several times per step; replaying once serves them all.
    """
    key = _key(hand)
    found = _CACHE.get(key)
    if found is None:
        found = build(hand)
        _store(key, found)
    else:
        _CACHE.move_to_end(key)
    return found


def checkout(hand: KitHand) -> BancoKitState:
    """A pokerkit state for ``hand`` that the caller may mutate (apply one more action).

    A clone of the cached replay when there is one, else a full replay
    (:func:`build`); either way equal, field by field, to ``build(hand)``.
    """
    found = _CACHE.get(_key(hand))
    return build(hand) if found is None else clone(found)


def remember(hand: KitHand, state: BancoKitState) -> None:
    """Offer ``state`` (a replay of ``hand`` that nobody mutates any more) to the cache."""
    _store(_key(hand), state)


def forget() -> None:
    """Empty the cache (tests use it to force a full replay, as after a restart)."""
    _CACHE.clear()


_SHARED: tuple[type, ...] = (int, str, float, type(None), Card, Street, Operation,
                             Enum, FunctionType, type)
"""Types whose values pokerkit never mutates (numbers, cards, enums, frozen dataclasses)."""

_SHARED_SEEN: set[type] = set()
"""Exact types already found to be :data:`_SHARED`: the clone's hot path is one set lookup."""


def _copy(value: Any) -> Any:
    t = type(value)
    if t is list:
        return [v if type(v) in _SHARED_SEEN else _copy(v) for v in value]
    if t is deque:
        return deque(v if type(v) in _SHARED_SEEN else _copy(v) for v in value)
    if t in _SHARED_SEEN or issubclass(t, _SHARED):
        _SHARED_SEEN.add(t)
        return value
    if t is tuple and all(isinstance(v, _SHARED) for v in value):
        return value
    if t is set and all(type(v) is int for v in value):
        return set(value)
    # anything else (pokerkit's mutable ``Pot``, unknown kinds): the safe slow way
    return copy.deepcopy(value)


def clone(state: BancoKitState) -> BancoKitState:
    """An independent copy of ``state``, equal to ``copy.deepcopy(state)`` but many times faster.

    ``deepcopy`` walks every card of pokerkit's 52-card deck and every
    operation ever applied; all of those are immutable (frozen dataclasses,
    enums, ints), so only the containers pokerkit appends to, pops from or
    assigns into (lists, deques, sets) are copied, recursively.
    """
    out = object.__new__(type(state))
    out.__dict__.update({name: _copy(v) for name, v in state.__dict__.items()})
    return out


def build(hand: KitHand) -> BancoKitState:
    """A fresh pokerkit state for ``hand`` with its whole log replayed (free to mutate)."""
    n = len(hand.players)
    antes: list[int] = list(hand.antes)
    if n == 2:
        # pokerkit reads heads-up antes crosswise (for big-blind antes)
        antes.reverse()
    raw_antes: tuple[int, ...] = (
        tuple(antes) if any(antes) else tuple(ZeroAnte(0) for _ in range(n))
    )
    state = BancoKitState(
        AUTOMATIONS,
        Deck.STANDARD,
        (StandardHighHand,),
        _streets(hand),
        BettingStructure.FIXED_LIMIT if hand.structure == "fixed"
        else BettingStructure.POT_LIMIT,
        False,
        raw_antes,
        (0,) * n,
        0,
        tuple(hand.starting_stacks),
        n,
    )
    state.banco_variant = hand.variant
    state.banco_opener = hand.opener
    for action in hand.log:
        parse_action(state, action)
    return state


def cards_text(cards: list[str]) -> str:
    """Cards in PHH form: ``"As7h"``."""
    return "".join(cards)

"""What jackpots draw and five-card stud share: seats, settings, betting, the hand's life.

docs/rules.md §5 (both games): one 52-card deck, table stakes (nobody bets more
than is in front of him; all-in players make side pots), fixed-limit by
default with a small bet L and a big bet 2L and at most one bet and three
raises a round, or pot-limit (setting). The dealer button moves one seat
clockwise every hand.

The state keeps the running pokerkit deal as a :class:`~games.poker.kit.KitHand`
(configuration + PHH log); every step gets its pokerkit state
(:func:`games.poker.kit.checkout`: a clone of the cached replay, or a full
replay of the log), lets pokerkit judge and apply the action, and copies stacks, bets and the
pot back into our seats so that :meth:`PokerEngine.accounts` needs no replay.

Amounts: ``bet``, ``raise`` and ``open`` carry the total the player's bet in
this round comes *to* (pokerkit's "complete, bet or raise to"); ``None``
means the smallest legal amount, which in fixed-limit is the only one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from games.cards import Card, Shoe, reveal_hand
from games.engine import (
    POT,
    About,
    Achievement,
    Action,
    ActionSpec,
    Event,
    GameState,
    GameTexts,
    Hand,
    IllegalAction,
    Input,
    Join,
    Leave,
    PlayerId,
    Points,
    Purpose,
    Reason,
    SeatBase,
    ShoeFacts,
    Start,
    Step,
    TableView,
    Transfer,
    Value,
    cards_proven,
    chips,
    count,
    each,
    flag,
    is_table_account,
    net,
    private,
    public,
    settlement,
    shoe_revealed,
    signed,
    stack,
    stake,
    stood_up,
    text,
    timed_out,
    who,
    word,
)
from games.engine import (
    cards as show,
)
from games.poker.kit import BancoKitState, KitHand, checkout, peek, remember
from games.poker.ranking import HandCategory, hand_of, hand_value, openers_proof
from games.table import (
    buy_in_transfers,
    cash_out_transfers,
    check_join,
    closing_events,
    closing_transfers,
    seat_index,
    stood_up_after_two,
)

HAND_ACHIEVEMENTS: tuple[Achievement, ...] = tuple(
    Achievement(key=str(category), icon=icon, hand=str(category)) for category, icon in (
        (HandCategory.FULL_HOUSE, "🏠"), (HandCategory.FOUR, "🍀"),
        (HandCategory.STRAIGHT_FLUSH, "🌈"), (HandCategory.ROYAL_FLUSH, "👑")))
"""The achievements both poker games declare for a hand shown down: a full house, four of
a kind, a straight flush, a royal flush (or better), each keyed by its category."""

# ------------------------------------------------------------------ actions


class Check(Action):
    """Stay in without betting (only while nobody has bet in this round)."""

    kind: Literal["check"] = "check"


class Call(Action):
    """Match the highest bet of the round (or go all-in for less)."""

    kind: Literal["call"] = "call"


class Fold(Action):
    """Give up the hand."""

    kind: Literal["fold"] = "fold"


class Bet(Action):
    """The first bet of a round; ``amount`` is the total bet to (``None``: the minimum)."""

    kind: Literal["bet"] = "bet"
    amount: int | None = Field(default=None, ge=1)


class Raise(Action):
    """Raise the round's bet to ``amount`` (``None``: the minimum raise)."""

    kind: Literal["raise"] = "raise"
    amount: int | None = Field(default=None, ge=1)


COMMON_ACTIONS: dict[str, type[Action]] = {
    "join": Join, "leave": Leave, "start": Start, "check": Check, "call": Call,
    "fold": Fold, "bet": Bet, "raise": Raise,
}

# -------------------------------------------------------------------- state


class PokerSeat(SeatBase):
    """A seat; ``cards`` are in dealing order (stud: the hole card first)."""

    in_hand: bool = False
    folded: bool = False
    cards: list[Card] = Field(default_factory=list)
    discards: list[Card] = Field(default_factory=list)
    drawn: bool = False
    pending: list[Card] = Field(default_factory=list)
    """Draw replacements already given to the player, fed to pokerkit once all have drawn."""
    bet: int = 0
    voluntary: bool = False
    """He put chips in the pot of his own will this hand: called, bet, raised or opened
    (antes are forced)."""


class FinishedHand(BaseModel):
    """A settled hand, kept for its PHH hand history (:mod:`games.poker.phh`)."""

    game: str
    number: int
    kit: KitHand
    names: list[str]
    finishing_stacks: list[int]
    passed_deals: int = 0


class PokerState(GameState):
    """A poker table: settings, seats, the shoe, and the running hand."""

    small_bet: int = Field(ge=1)
    structure: Literal["fixed", "pot"] = "fixed"
    ante: int = Field(ge=0)
    ace_four: bool = False
    seats: list[PokerSeat] = Field(default_factory=list)
    button: PlayerId | None = None
    shoe: Shoe | None = None
    stubs: list[Shoe] = Field(default_factory=list)
    """Jackpots: new stubs made of the discards when the deck ran out in the draw (§5a.4)."""
    kit: KitHand | None = None
    pot: int = 0
    passed_deals: int = 0
    opener: PlayerId | None = None
    opener_cards: list[Card] = Field(default_factory=list)
    last_hand: FinishedHand | None = None
    queued_shoes: list[Shoe] = Field(default_factory=list)
    """Shoes to deal next instead of shuffling (tests and replays put fixed orders here)."""


class Ctx:
    """What one step collects: events, and transfers in the order they happened.

    ``base`` is the table's accounts as of the last transfer booked; a
    :meth:`flush` books the moves inside the table since then under one reason.
    """

    def __init__(self, rng: random.Random | None, base: dict[str, int]) -> None:
        self.rng = rng
        self.events: list[Event] = []
        self.transfers: list[Transfer] = []
        self.base = dict(base)
        self.reason = "bet"
        self.kit: BancoKitState | None = None
        self.settled: int | None = None  # see Step.settled

    def wallet_move(self, transfers: list[Transfer]) -> None:
        """Book a buy-in or cash-out (a transfer with a wallet on one side)."""
        self.transfers += transfers
        for k, v in net(transfers).items():
            if is_table_account(k):
                self.base[k] = self.base.get(k, 0) + v

    def flush(self, now: dict[str, int], reason: str) -> None:
        """Book the moves inside the table that turned ``base`` into ``now``."""
        self.transfers += internal_transfers(self.base, now, reason)
        self.base = dict(now)


def amounts(players: Sequence[PlayerId], paid: Sequence[int]) -> Value:
    """Each player's amount (his antes), in order."""
    return each({p: chips(a) for p, a in zip(players, paid, strict=True)})


def internal_transfers(before: dict[str, int], after: dict[str, int],
                       reason: str) -> list[Transfer]:
    """Transfers between table accounts that turn ``before`` into ``after``."""
    delta = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
    payers = sorted((k, -v) for k, v in delta.items() if v < 0)
    payees = sorted((k, v) for k, v in delta.items() if v > 0)
    out: list[Transfer] = []
    pi = 0
    for dst, need in payees:
        while need:
            src, have = payers[pi]
            amount = min(have, need)
            out.append(Transfer(src=src, dst=dst, amount=amount, reason=reason))
            need -= amount
            if have == amount:
                pi += 1
            else:
                payers[pi] = (src, have - amount)
    return out


def copy_state(state: PokerState) -> PokerState:
    """A deep copy of ``state`` (``apply`` never mutates its input), about twice as fast as
    ``model_copy(deep=True)``: strings and numbers are immutable, so only models, lists and
    dicts are copied (``copy.deepcopy`` also memoizes every one of the shoe's 52 strings)."""
    out = _deep(state)
    assert isinstance(out, PokerState)
    return out


def _deep(value: Any) -> Any:
    if isinstance(value, BaseModel):
        out = value.__copy__()  # pydantic copies __dict__ and the fields set
        fields = out.__dict__
        for name, v in fields.items():
            if isinstance(v, list):
                # our lists are typed (list[Card], list[int], list[PokerSeat]...), so
                # the first item tells whether the list holds immutables only
                fields[name] = (v.copy() if not v or isinstance(v[0], str | int)
                                else [_deep(x) for x in v])
            elif isinstance(v, dict | BaseModel):
                fields[name] = _deep(v)
        return out
    if isinstance(value, list):
        return [_deep(v) for v in value]
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------- engine


class PokerEngine:
    """The parts of the engine both poker games share; subclasses add their rules."""

    name: ClassVar[str]
    texts: ClassVar[GameTexts]
    state_type: ClassVar[type[GameState]] = PokerState
    action_types: ClassVar[dict[str, type[Action]]] = COMMON_ACTIONS
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    variant: ClassVar[Literal["draw", "stud"]]
    default_ante: ClassVar[int]

    # ------------------------------------------------------------- table

    def new_table(self, settings: dict[str, Any],
                  rng: random.Random | None = None) -> PokerState:
        """An empty table. Settings: ``small_bet`` (L, default 2), ``structure``
        ("fixed" or "pot"), ``ante`` (draw 1, stud 0) and, for draw, ``ace_four``."""
        allowed = {"small_bet", "structure", "ante"} | (
            {"ace_four"} if self.variant == "draw" else set())
        unknown = set(settings) - allowed
        if unknown:
            raise ValueError(f"unknown settings: {sorted(unknown)}")
        return PokerState(
            game=self.name, phase="waiting",
            small_bet=settings.get("small_bet", 2),
            structure=settings.get("structure", "fixed"),
            ante=settings.get("ante", self.default_ante),
            ace_four=settings.get("ace_four", False),
        )

    def settings(self, state: PokerState) -> dict[str, Any]:
        """Every setting with its value (``small_bet``, ``structure``, ``ante``; for draw,
        ``ace_four``)."""
        out: dict[str, Any] = {"small_bet": state.small_bet, "structure": state.structure,
                               "ante": state.ante}
        if self.variant == "draw":
            out["ace_four"] = state.ace_four
        return out

    def accounts(self, state: PokerState) -> dict[str, int]:
        """Stacks, this round's bets (``stake:<id>``) and the pot."""
        out: dict[str, int] = {}
        for seat in state.seats:
            if seat.stack:
                out[stack(seat.player)] = seat.stack
            if seat.bet:
                out[stake(seat.player)] = seat.bet
        if state.pot:
            out[POT] = state.pot
        return out

    def close(self, state: PokerState) -> Step[PokerState]:
        """/closetable (docs/rules.md §0.12): the hand is void. Every stack and bet goes
        back to its owner and the pot to those who put it in this hand (antes of passed
        deals included); the hand's deck is published (§0.5)."""
        seats = [seat.player for seat in state.seats]
        put_in: dict[str, dict[PlayerId, int]] = {}
        if state.kit is not None:
            put_in[POT] = {
                p: state.kit.starting_stacks[i] - seat.stack - seat.bet
                for i, p in enumerate(state.kit.players)
                for seat in [state.seats[seat_index(state.seats, p)]]}
        transfers = closing_transfers(self.accounts(state), seats, put_in=put_in)
        closed = PokerState(game=state.game, phase="waiting", small_bet=state.small_bet,
                            structure=state.structure, ante=state.ante,
                            ace_four=state.ace_four, version=state.version + 1,
                            coup=state.coup, last_hand=state.last_hand)
        events = closing_events(state.coup, state.kit is not None, seats, transfers, [])
        events += self._reveal(state, [], finished=False)  # docs/rules.md §0.5: void hand
        return Step(state=closed, events=events, transfers=transfers)

    def awaiting(self, state: PokerState) -> list[PlayerId]:
        """The one player whose decision the hand waits for."""
        if state.kit is None:
            return []
        kit = peek(state.kit)
        index = self._turn_index(kit)
        return [] if index is None else [state.kit.players[index]]

    @staticmethod
    def _turn_index(kit: BancoKitState) -> int | None:
        if kit.stand_patter_or_discarder_index is not None:
            return kit.stand_patter_or_discarder_index
        return kit.actor_index

    # ------------------------------------------------------------ actions

    def legal_actions(self, state: PokerState, player: PlayerId) -> list[ActionSpec]:
        """What ``player`` may do now, with bounds; exactly what :meth:`apply` accepts."""
        seated = any(s.player == player for s in state.seats)
        if not seated:
            # offered only while a seat is free, so a press of it is never refused
            return ([ActionSpec(kind="join", input=Input.UTILITY)]
                    if len(state.seats) < self.max_players else [])
        specs: list[ActionSpec] = [ActionSpec(kind="leave", input=Input.UTILITY)]
        if state.kit is None:
            if self._can_start(state):
                specs.append(ActionSpec(kind="start"))
            return specs
        kit = peek(state.kit)
        index = self._turn_index(kit)
        if index is None or state.kit.players[index] != player:
            return specs
        return specs + self._turn_specs(state, kit, index)

    def _turn_specs(self, state: PokerState, kit: BancoKitState,
                    index: int) -> list[ActionSpec]:
        return self._betting_specs(state, kit, index)

    def _betting_specs(self, state: PokerState, kit: BancoKitState,
                       index: int) -> list[ActionSpec]:
        specs: list[ActionSpec] = []
        owed = kit.checking_or_calling_amount
        if owed == 0:
            specs.append(ActionSpec(kind="check"))
        else:
            specs.append(ActionSpec(kind="call", min=owed, max=owed, presets=(owed or 0,)))
            specs.append(ActionSpec(kind="fold"))
        if kit.can_complete_bet_or_raise_to():
            lo = kit.min_completion_betting_or_raising_to_amount
            hi = kit.max_completion_betting_or_raising_to_amount
            assert lo is not None and hi is not None
            kind = self._bet_kind(state, kit, index)
            if kind is not None:
                presets = tuple(sorted({lo, (lo + hi) // 2, hi}))
                specs.append(ActionSpec(kind=kind, min=lo, max=hi, presets=presets,
                                        input=Input.AMOUNT))
        return specs

    def _bet_kind(self, state: PokerState, kit: BancoKitState, index: int) -> str | None:
        return "raise" if max(kit.bets) else "bet"

    def apply(self, state: PokerState, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[PokerState]:
        """Apply ``action``; raise :class:`IllegalAction` (state untouched) if not legal."""
        s = copy_state(state)
        ctx = Ctx(rng, self.accounts(state))
        if isinstance(action, Join):
            self._join(s, player, action, ctx)
        elif isinstance(action, Leave):
            self._leave(s, player, ctx)
        elif isinstance(action, Start):
            seat_index(s.seats, player)
            if s.kit is not None:
                raise IllegalAction(Reason.IN_COUP)
            if not self._can_start(s):
                raise IllegalAction(Reason.NOT_ENOUGH_PLAYERS)
            self._start_hand(s, ctx)
        else:
            # his own accepted action resets his timeouts (set first: the
            # action may end the hand and remove a leaving seat)
            s.seats[seat_index(s.seats, player)].timeouts = 0
            self._play(s, player, action, ctx)
        return self._step(s, ctx)

    def _step(self, s: PokerState, ctx: Ctx) -> Step[PokerState]:
        s.version += 1
        ctx.flush(self.accounts(s), ctx.reason)
        if s.kit is not None and ctx.kit is not None:
            remember(s.kit, ctx.kit)
        return Step(state=s, events=ctx.events, transfers=ctx.transfers, settled=ctx.settled)

    def _join(self, s: PokerState, player: PlayerId, action: Join, ctx: Ctx) -> None:
        check_join(s.seats, player, self.max_players)
        s.seats.append(PokerSeat(player=player, name=action.name, stack=action.buy_in))
        ctx.wallet_move(buy_in_transfers(player, action.buy_in))
        ctx.events.append(public("player_joined", player=who(player), name=text(action.name),
                                 stack=chips(action.buy_in)))

    def _leave(self, s: PokerState, player: PlayerId, ctx: Ctx) -> None:
        i = seat_index(s.seats, player)
        seat = s.seats[i]
        if seat.in_hand and s.kit is not None:
            seat.leaving = True
            ctx.events.append(public("player_leaving", player=who(player)))
            return
        ctx.wallet_move(cash_out_transfers(player, seat.stack))
        self._remove_seat(s, i)
        ctx.events.append(public("player_left", player=who(player), stack=chips(seat.stack)))

    @staticmethod
    def _remove_seat(s: PokerState, i: int) -> None:
        # the button stays on a seat: if the dealer leaves, it passes to his right
        if s.button == s.seats[i].player:
            s.button = s.seats[i - 1].player if len(s.seats) > 1 else None
        del s.seats[i]

    def _can_start(self, s: PokerState) -> bool:
        return sum(1 for seat in s.seats if seat.stack > 0 and not seat.leaving) >= 2

    def _play(self, s: PokerState, player: PlayerId, action: Action, ctx: Ctx) -> None:
        i = seat_index(s.seats, player)
        if s.kit is None:
            raise IllegalAction(Reason.WRONG_PHASE)
        kit = checkout(s.kit)
        index = self._turn_index(kit)
        if index is None or s.kit.players[index] != player:
            raise IllegalAction(Reason.NOT_YOUR_TURN)
        self._act(s, kit, index, s.seats[i], action, ctx)
        self._advance(s, kit, ctx)

    def _act(self, s: PokerState, kit: BancoKitState, index: int, seat: PokerSeat,
             action: Action, ctx: Ctx) -> None:
        specs = {spec.kind: spec for spec in self._turn_specs(s, kit, index)}
        spec = specs.get(action.kind)
        if spec is None:
            raise self._refusal(s, kit, index, action)
        assert s.kit is not None
        p = f"p{index + 1}"
        if isinstance(action, Check):
            self._log(s, kit, f"{p} cc")
            ctx.events.append(public("checked", player=who(seat.player)))
        elif isinstance(action, Call):
            # what the call put in is what it owed, read before it: after it, a call that
            # closes the round has its bets collected, and one that ends the hand has the
            # pot in the winner's stack, so the stacks cannot tell
            assert spec.min is not None
            self._log(s, kit, f"{p} cc")
            seat.voluntary = seat.voluntary or spec.min > 0
            ctx.events.append(public("called", player=who(seat.player),
                                     amount=chips(spec.min)))
        elif isinstance(action, Fold):
            self._log(s, kit, f"{p} f")
            seat.folded = True
            # docs/rules.md §5b.5: folding turns the up cards down; nothing is shown
            ctx.events.append(public("folded", player=who(seat.player)))
        else:
            assert spec.min is not None and spec.max is not None
            asked: int | None = getattr(action, "amount", None)
            amount: int = spec.min if asked is None else asked
            if not spec.min <= amount <= spec.max:
                raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=spec.min, max=spec.max)
            self._before_bet(s, kit, index, seat, action, ctx)
            self._log(s, kit, f"{p} cbr {amount}")
            seat.voluntary = True
            ctx.events.append(public(f"{action.kind}_made", player=who(seat.player),
                                     to=chips(amount)))

    def _refusal(self, s: PokerState, kit: BancoKitState, index: int,
                 action: Action) -> IllegalAction:
        if action.kind not in self.action_types:
            return IllegalAction(Reason.UNKNOWN_ACTION)
        return IllegalAction(Reason.NOT_ALLOWED, f"{action.kind} is not possible now")

    def _before_bet(self, s: PokerState, kit: BancoKitState, index: int, seat: PokerSeat,
                    action: Action, ctx: Ctx) -> None:
        """Hook: the draw records its opener here."""

    @staticmethod
    def _log(s: PokerState, kit: BancoKitState, action: str) -> None:
        from pokerkit.notation import parse_action

        assert s.kit is not None
        try:
            parse_action(kit, action)
        except ValueError as exc:  # pokerkit's refusal; the detail names no card
            raise IllegalAction(Reason.NOT_ALLOWED, "refused by the betting rules") from exc
        s.kit.log.append(action)

    # ----------------------------------------------------------- the hand

    def _start_hand(self, s: PokerState, ctx: Ctx) -> None:
        """Move the button, post antes, shuffle and deal (docs/rules.md §5)."""
        eligible = [i for i, seat in enumerate(s.seats) if seat.stack > 0 and not seat.leaving]
        if len(eligible) < 2:
            s.phase = "waiting"
            return
        n = len(s.seats)
        if s.button is None:
            button = eligible[0]
        else:
            # docs/rules.md §5: the button moves one seat clockwise (to the left)
            start = seat_index(s.seats, s.button)
            button = next(j for j in ((start + k) % n for k in range(1, n + 1))
                          if j in eligible)
        s.button = s.seats[button].player
        order = [j for j in ((button + k) % n for k in range(1, n + 1)) if j in eligible]
        s.coup += 1
        s.passed_deals = 0
        s.opener, s.opener_cards = None, []
        for seat in s.seats:
            seat.in_hand, seat.folded, seat.cards, seat.discards = False, False, [], []
            seat.drawn, seat.pending, seat.bet, seat.voluntary = False, [], 0, False
        for j in order:
            s.seats[j].in_hand = True
        players = [s.seats[j].player for j in order]
        stacks = [s.seats[j].stack for j in order]
        s.kit = KitHand(variant=self.variant, structure=s.structure, small_bet=s.small_bet,
                        players=players, starting_stacks=stacks,
                        antes=[min(s.ante, st) for st in stacks])
        ctx.events.append(public("hand_started", coup=count(s.coup), button=who(s.button),
                                 players=who(*players), small_bet=chips(s.small_bet),
                                 big_bet=chips(2 * s.small_bet), structure=word(s.structure)))
        self._new_deal(s, ctx)

    def _new_deal(self, s: PokerState, ctx: Ctx, before: Sequence[int] = ()) -> None:
        """A fresh committed shoe, antes posted by pokerkit, cards dealt. ``before``: each
        player's antes already in the pot from deals passed out (docs/rules.md §5a.2)."""
        assert s.kit is not None
        ctx.flush(self.accounts(s), ctx.reason)
        ctx.reason = "ante"
        s.shoe = s.queued_shoes.pop(0) if s.queued_shoes else Shoe.shuffled(1, ctx.rng)
        s.stubs = []
        ctx.events.append(public("shoe_committed", commitment=text(s.shoe.commitment)))
        if any(s.kit.antes):
            players = s.kit.players
            if before:
                # what each pays now, and what his antes come to in the pot: "2" alone
                # would read as 2 paid now
                ctx.events.append(public("antes_posted", antes=amounts(
                    players, [a - b for a, b in zip(s.kit.antes, before, strict=True)]),
                    totals=amounts(players, s.kit.antes)))
            else:
                ctx.events.append(public("antes_posted", antes=amounts(players, s.kit.antes)))
        s.phase = "betting"
        kit = checkout(s.kit)
        self._advance(s, kit, ctx)

    def _deal_next(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        """Deal the cards pokerkit waits for, from our shoe (one card at a time)."""
        assert s.kit is not None and s.shoe is not None
        index = kit.hole_dealee_index
        assert index is not None
        seat = s.seats[seat_index(s.seats, s.kit.players[index])]
        up = kit.hole_dealing_statuses[index][0]
        s.shoe, cards = s.shoe.deal(1)
        seat.cards.append(cards[0])
        self._log(s, kit, f"d dh p{index + 1} {cards[0]}")
        if up:
            ctx.events.append(public("card_dealt", player=who(seat.player), card=show(cards[0])))
        else:
            ctx.events.append(private("card_dealt", [seat.player], About.OWN_HAND,
                                      player=who(seat.player),
                                      card=show(cards[0]), face_down=flag(True)))
            ctx.events.append(public("card_dealt_face_down", About.DEALT_DOWN,
                                     player=who(seat.player)))

    def _advance(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        """Deal what is due, end the hand when pokerkit has settled it, mirror chips."""
        assert s.kit is not None
        ctx.kit = kit
        while kit.status and kit.can_deal_hole():
            self._deal_due(s, kit, ctx)
        if self._after_betting(s, kit, ctx):
            return
        self._mirror(s, kit)
        if not kit.status:
            self._finish(s, kit, ctx)

    def _deal_due(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        self._deal_next(s, kit, ctx)

    def _after_betting(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> bool:
        """Hook run after every action; True if it replaced the deal (jackpots)."""
        return False

    def _mirror(self, s: PokerState, kit: BancoKitState) -> None:
        assert s.kit is not None
        in_play = 0
        for index, player in enumerate(s.kit.players):
            seat = s.seats[seat_index(s.seats, player)]
            seat.stack, seat.bet = kit.stacks[index], kit.bets[index]
            in_play += s.kit.starting_stacks[index] - seat.stack - seat.bet
        s.pot = in_play
        s.phase = "draw" if kit.stand_patter_or_discarder_index is not None else "betting"

    def _finish(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        """Show what the rules show, report the result, start the next hand."""
        assert s.kit is not None and s.shoe is not None
        ctx.flush(self.accounts(s), "pot_won")
        hand = s.kit
        live = [i for i, p in enumerate(hand.players)
                if not s.seats[seat_index(s.seats, p)].folded]
        self._showdown(s, kit, live, ctx)
        nets = {p: kit.stacks[i] - hand.starting_stacks[i] for i, p in enumerate(hand.players)}
        winners = [p for i, p in enumerate(hand.players) if kit.payoffs[i] > 0]
        if not winners:
            # a pot of nothing (no ante, no bet called) still has its winner: the one
            # player left, or the best hand shown down
            values = {hand.players[i]: hand_value(s.seats[seat_index(
                s.seats, hand.players[i])].cards) for i in live} if len(live) > 1 else {}
            winners = ([p for p, v in values.items() if v == max(values.values())] if values
                       else [hand.players[i] for i in live])
        # the hands shown at a showdown (none when one player was left: he shows nothing)
        shown: dict[PlayerId, Hand | Points] = {}
        if len(live) > 1:
            for e in ctx.events:
                value = e.data.get("value")
                if e.kind == "hand_shown" and e.to is None and e.player is not None \
                        and isinstance(value, Hand):
                    shown[e.player] = value
        ctx.events.append(settlement(
            "coup_settled", coup=s.coup, nets=nets, hands=shown, winners=winners,
            feats=self._feats(s, shown, winners),
            net=each({p: signed(n) for p, n in nets.items()})))
        ctx.settled = len(ctx.transfers)  # the pot is paid; antes of the next hand follow
        ctx.events += self._reveal(s, live, finished=True)
        s.last_hand = FinishedHand(
            game=self.name, number=s.coup, kit=hand,
            names=[s.seats[seat_index(s.seats, p)].name for p in hand.players],
            finishing_stacks=list(kit.stacks), passed_deals=s.passed_deals)
        self._next_hand(s, ctx)

    @staticmethod
    def _feats(s: PokerState, shown: dict[PlayerId, Hand | Points],
               winners: list[PlayerId]) -> dict[PlayerId, list[str]]:
        """What the hand counts for each player beyond his net: ``voluntary`` (he called,
        bet, raised or opened), ``opened`` (the jackpots opener, §5a.2), ``opened_won`` (and
        he is among the ``winners``, shown down or not: his openers are shown anyway),
        ``showdown`` (his hand was shown down, §5) and ``showdown_won`` (and he is among the
        ``winners``: he came out ahead, or took back a pot of nothing; a side pot that only
        gives back what he put in is no win)."""
        assert s.kit is not None
        out: dict[PlayerId, list[str]] = {}
        for player in s.kit.players:
            seat = s.seats[seat_index(s.seats, player)]
            out[player] = [name for name, held in (
                ("voluntary", seat.voluntary), ("opened", player == s.opener),
                ("opened_won", player == s.opener and player in winners),
                ("showdown", player in shown),
                ("showdown_won", player in shown and player in winners)) if held]
        return out

    def _next_hand(self, s: PokerState, ctx: Ctx) -> None:
        """After a hand (settled, or void when the absent would have anted again): who is
        leaving or has no chips stands up, and the next hand begins."""
        s.kit, s.shoe, s.stubs, s.pot = None, None, [], 0
        for seat in s.seats:
            seat.in_hand = False
            if seat.stack == 0 and not seat.leaving:
                # docs/rules.md §0.13: a seat with no chips cannot post anything
                seat.leaving = True
                ctx.events.append(stood_up(seat.player, least=chips(1)))
        for seat in list(s.seats):
            if seat.leaving:
                ctx.wallet_move(cash_out_transfers(seat.player, seat.stack))
                ctx.events.append(public("player_left", player=who(seat.player),
                                         stack=chips(seat.stack)))
                self._remove_seat(s, seat_index(s.seats, seat.player))
        self._start_hand(s, ctx)

    def _reveal(self, s: PokerState, live: list[int], finished: bool) -> list[Event]:
        """docs/rules.md §0.5: the proofs of the cards the table saw (up cards; when the hand
        ends, the openers and the hands shown down), and to each player alone those of his
        own cards. A card nobody was shown, folded or mucked, is never revealed."""
        if s.shoe is None or s.kit is None:
            return []
        shoes = [s.shoe, *s.stubs]
        seats = [s.seats[seat_index(s.seats, p)] for p in s.kit.players]
        shown = [c for seat in seats for c in seat.cards[1:]] if self.variant == "stud" else []
        if finished and len(live) >= 2:
            shown += [c for i in live for c in seats[i].cards]
        openers = openers_proof(s.opener_cards) if finished and s.opener is not None else []
        events: list[Event] = [shoe_revealed(record, Purpose.ONE_HAND, coup=count(s.coup))
                               for record in reveal_hand(shoes, last=shown, first=openers)]
        for seat in seats:
            if seat.cards or seat.discards:
                mine = reveal_hand(shoes, last=seat.cards, only=seat.discards)
                events.append(cards_proven(seat.player, s.coup,
                                           mine[0] if len(mine) == 1 else mine))
        return events

    def _showdown(self, s: PokerState, kit: BancoKitState, live: list[int],
                  ctx: Ctx) -> None:
        """Every live hand is shown at a showdown; one player left wins without showing
        (docs/rules.md §5a.6, §5b.5). Games extend this with what else they show."""
        assert s.kit is not None
        if len(live) < 2:
            return
        for i in live:
            seat = s.seats[seat_index(s.seats, s.kit.players[i])]
            ctx.events.append(public("hand_shown", About.SHOWDOWN, player=who(seat.player),
                                     cards=show(*seat.cards),
                                     value=hand_of(hand_value(seat.cards)).typed()))

    # ----------------------------------------------------------- timeouts

    def timeout(self, state: PokerState, rng: random.Random | None = None) -> Step[PokerState]:
        """The safe default: check if possible, else fold (draw: stand pat)."""
        waiting = self.awaiting(state)
        if not waiting:
            raise IllegalAction(Reason.WRONG_PHASE)
        s = copy_state(state)
        ctx = Ctx(rng, self.accounts(state))
        player = waiting[0]
        seat = s.seats[seat_index(s.seats, player)]
        seat.timeouts += 1
        ctx.events.append(timed_out(player))
        ctx.events += stood_up_after_two(seat)  # the banking games' rule (games/table.py)
        self._play(s, player, self._default_action(s, player), ctx)
        return self._step(s, ctx)

    def _default_action(self, s: PokerState, player: PlayerId) -> Action:
        kinds = {spec.kind for spec in self.legal_actions(s, player)}
        return Check() if "check" in kinds else Fold()

    # --------------------------------------------------------------- view

    def view(self, state: PokerState, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` may see it; each game shows its own cards."""
        raise NotImplementedError

    @staticmethod
    def _middle(s: PokerState) -> int:
        """The pot as the table shows it: what was collected and this round's bets (each
        seat's ``stake`` in the view), so a stud hand without antes has a pot from its
        first bet on."""
        return s.pot + sum(seat.bet for seat in s.seats)

    @staticmethod
    def _facts(s: PokerState) -> dict[str, Value]:
        """What the table message shows of the game: who opened (jackpots). The settings,
        the dealer (his seat's role says it), the deals passed and the showing values are
        not among them: the settings are :meth:`settings`, the shoe is :meth:`_shoe`."""
        if s.kit is not None and s.opener is not None:
            return {"opener": who(s.opener)}
        return {}

    @staticmethod
    def _shoe(s: PokerState) -> ShoeFacts | None:
        """The hand's deck, for /verify: its commitment and the cards left in it."""
        return None if s.shoe is None else s.shoe.facts()

    def _status(self, s: PokerState, seat: PokerSeat, turn: PlayerId | None) -> str:
        if not seat.in_hand:
            return "no chips" if seat.stack == 0 else ("leaving" if seat.leaving else "waiting")
        if seat.folded:
            return "folded"
        if seat.player == turn:
            return "to act"
        if seat.stack == 0:
            return "all-in"
        return "in hand"

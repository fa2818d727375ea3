"""Jackpots draw poker (docs/rules.md §5a), on pokerkit.

1. Everybody antes (setting ``ante``, default 1); five cards each, face down.
2. First round from the dealer's left: check or *open*. Opening needs a pair
   of jacks or better: ``open`` is offered only with openers and refused with
   ``Reason.NO_OPENERS`` otherwise. If nobody opens, the hands are thrown in,
   everybody antes again into the same pot and a new shoe is dealt.
3. After the opening: call, raise or fold (no more checking).
4. The draw: each remaining player in turn discards 0–3 cards (setting
   ``ace_four``: 4 when the card kept is an ace) and gets replacements at once.
   The opener's discards are kept so his openers can be proved.
5. Second round (big bet), starting with the opener.
6. Showdown: best hand wins (pokerkit splits side pots); the opener always
   shows his openers, even when he wins uncontested.

What pokerkit cannot express (openers, the re-deal, who starts round 2) is
done here or in :mod:`games.poker.kit`, each place saying so.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from games.cards import Shoe
from games.engine import (
    About,
    Achievement,
    Action,
    ActionSpec,
    GameTexts,
    IllegalAction,
    Input,
    PlayerId,
    Reason,
    SeatView,
    TableView,
    Value,
    count,
    private,
    public,
    settlement,
    text,
    who,
)
from games.engine import (
    cards as show,
)
from games.poker.common import (
    COMMON_ACTIONS,
    HAND_ACHIEVEMENTS,
    Bet,
    Ctx,
    PokerEngine,
    PokerSeat,
    PokerState,
    amounts,
)
from games.poker.kit import BancoKitState, KitHand, cards_text, peek
from games.poker.ranking import (
    hand_of_cards,
    has_jacks_or_better,
    openers_proof,
)
from games.table import seat_index
from games.texts import game_texts


class Open(Action):
    """Open the first round (only with jacks or better); ``amount`` as for ``bet``."""

    kind: Literal["open"] = "open"
    amount: int | None = Field(default=None, ge=1)


class Discard(Action):
    """Throw away ``cards`` (none: stand pat) and get as many new ones."""

    kind: Literal["discard"] = "discard"
    cards: tuple[str, ...] = ()


class DrawPokerEngine(PokerEngine):
    """Jackpots: five-card draw, jacks or better to open."""

    name: ClassVar[str] = "draw_poker"
    texts: ClassVar[GameTexts] = game_texts("draw_poker")
    action_types: ClassVar[dict[str, type[Action]]] = {
        **COMMON_ACTIONS, "open": Open, "discard": Discard}
    max_players: ClassVar[int] = 8
    variant: ClassVar[Literal["draw", "stud"]] = "draw"
    default_ante: ClassVar[int] = 1
    achievements: ClassVar[tuple[Achievement, ...]] = (
        Achievement(key="opened_won", icon="🔓", feat="opened_won"),
        Achievement(key="opened_won_10", icon="🗝", feat="opened_won", count=10),
        *HAND_ACHIEVEMENTS)
    rated: ClassVar[bool] = True
    """Its hands count in the chat's poker rating (:mod:`storage.ratings`)."""

    # -------------------------------------------------------------- rules

    @staticmethod
    def _max_discard(s: PokerState, cards: list[str]) -> int:
        # docs/rules.md §5a.4: 0-3, or 4 when the one card kept is an ace (setting)
        return 4 if s.ace_four and any(c[0] == "A" for c in cards) else 3

    def _turn_specs(self, state: PokerState, kit: BancoKitState,
                    index: int) -> list[ActionSpec]:
        if kit.stand_patter_or_discarder_index == index:
            assert state.kit is not None
            seat = state.seats[seat_index(state.seats, state.kit.players[index])]
            # private: the choices are his hidden cards (never on a group button)
            return [ActionSpec(kind="discard", input=Input.OWN_CARDS, min=0,
                               max=self._max_discard(state, seat.cards), presets=(0, 1, 2, 3),
                               choices=tuple(seat.cards), private=True)]
        specs = self._betting_specs(state, kit, index)
        assert state.kit is not None
        if kit.street_index == 0 and state.kit.opener is None:
            # private: before the opening, whether Open is offered tells the table who
            # holds jacks or better, so the whole decision (Check too) is private for
            # everyone, holder or not (docs/rules.md §5a.2)
            return [spec if spec.kind == "leave" else spec.model_copy(update={"private": True})
                    for spec in specs]
        return specs

    def _bet_kind(self, state: PokerState, kit: BancoKitState, index: int) -> str | None:
        assert state.kit is not None
        if kit.street_index == 0 and state.kit.opener is None:
            # docs/rules.md §5a.2: Open is offered only with a pair of jacks or better
            seat = state.seats[seat_index(state.seats, state.kit.players[index])]
            return "open" if has_jacks_or_better(seat.cards) else None
        return super()._bet_kind(state, kit, index)

    def _refusal(self, s: PokerState, kit: BancoKitState, index: int,
                 action: Action) -> IllegalAction:
        assert s.kit is not None
        if (isinstance(action, Open | Bet) and kit.street_index == 0 and s.kit.opener is None
                and kit.can_complete_bet_or_raise_to()):
            return IllegalAction(Reason.NO_OPENERS)
        if isinstance(action, Discard):
            return IllegalAction(Reason.WRONG_PHASE)
        if kit.stand_patter_or_discarder_index is not None:
            return IllegalAction(Reason.WRONG_PHASE)
        return super()._refusal(s, kit, index, action)

    def _before_bet(self, s: PokerState, kit: BancoKitState, index: int, seat: PokerSeat,
                    action: Action, ctx: Ctx) -> None:
        assert s.kit is not None
        if isinstance(action, Open):
            s.kit.opener = kit.banco_opener = index
            s.opener = seat.player
            # kept hidden until the end of the hand, when they are shown (§5a.6)
            s.opener_cards = list(seat.cards)

    def _act(self, s: PokerState, kit: BancoKitState, index: int, seat: PokerSeat,
             action: Action, ctx: Ctx) -> None:
        if not isinstance(action, Discard):
            super()._act(s, kit, index, seat, action, ctx)
            return
        if kit.stand_patter_or_discarder_index != index:
            raise IllegalAction(Reason.WRONG_PHASE)
        cards = list(action.cards)
        kept = [c for c in seat.cards if c not in cards]
        if (len(set(cards)) != len(cards) or any(c not in seat.cards for c in cards)
                or len(cards) > self._max_discard(s, kept)):
            raise IllegalAction(Reason.BAD_DISCARD, max=self._max_discard(s, kept))
        p = f"p{index + 1}"
        self._log(s, kit, f"{p} sd {cards_text(cards)}" if cards else f"{p} sd")
        new = self._replacements(s, seat, len(cards), ctx)
        # docs/rules.md §5a.4: the discards stay with the seat (the opener's prove his openers)
        seat.discards += cards
        seat.cards = kept + new
        seat.pending, seat.drawn = new, True
        ctx.events.append(public("discarded", player=who(seat.player),
                                 count=count(len(cards), "card")))
        if new:
            ctx.events.append(private("cards_drawn", to=[seat.player], player=who(seat.player),
                                      cards=show(*new), hand=show(*seat.cards)))

    @staticmethod
    def _replacements(s: PokerState, seat: PokerSeat, n: int, ctx: Ctx) -> list[str]:
        """``n`` new cards for ``seat`` from the stub; when it runs out, from a new stub.

        docs/rules.md §5a.4 Decision: the discards, except the drawing player's own
        and the opener's (kept to prove his openers), are shuffled securely into a
        new, committed stub; folded hands stay out. With one deck and at most eight
        players that always suffices: of the 12 cards no hand holds, at most 4 are
        the opener's, and nobody draws more than 4.
        """
        assert s.shoe is not None
        stub = s.stubs[-1] if s.stubs else s.shoe
        stub, new = stub.deal(min(n, stub.remaining))
        if s.stubs:
            s.stubs[-1] = stub
        else:
            s.shoe = stub
        if len(new) == n:
            return new
        # the drawer still holds his discards here, so they are left out with every hand,
        # and so are the last cards of the old stub he has just been given
        held = {c for x in s.seats for c in x.cards} | set(new)
        muck = list(dict.fromkeys(c for x in s.seats if x.player != s.opener
                                  for c in x.discards if c not in held))
        assert len(muck) >= n - len(new), "one deck always refills the stub (see above)"
        stub = Shoe.shuffled_from(muck, 1, ctx.rng)
        ctx.events.append(public("stub_rebuilt", player=who(seat.player),
                                 cards=count(len(muck), "card"), commitment=text(stub.commitment)))
        stub, more = stub.deal(n - len(new))
        s.stubs.append(stub)
        return new + more

    def _deal_due(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        if kit.street_index != 1:
            self._deal_next(s, kit, ctx)
            return
        # pokerkit deals replacements once everybody has discarded; the player
        # already has them (dealt from the shoe in turn), so only feed them in
        assert s.kit is not None
        index = kit.hole_dealee_index
        assert index is not None
        seat = s.seats[seat_index(s.seats, s.kit.players[index])]
        self._log(s, kit, f"d dh p{index + 1} {cards_text(seat.pending)}")
        seat.pending = []

    def _after_betting(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> bool:
        assert s.kit is not None
        passed = (kit.status and kit.street_index == 1 and s.kit.opener is None
                  and not any(seat.drawn for seat in s.seats)
                  and sum(1 for i in range(len(s.kit.players))
                          if s.kit.starting_stacks[i] > s.kit.antes[i]) >= 2)
        # Decision: with fewer than two players able to bet (the others all-in
        # on antes) nobody can open; the hand is then drawn and shown down.
        if not passed:
            return False
        self._redeal(s, ctx)
        return True

    def _redeal(self, s: PokerState, ctx: Ctx) -> None:
        """docs/rules.md §5a.2: nobody opened: throw in, ante again into the same pot, deal anew."""
        assert s.kit is not None and s.shoe is not None
        ctx.flush(self.accounts(s), ctx.reason)
        ctx.reason = "ante"
        ctx.events.append(public("hands_thrown_in", coup=count(s.coup),
                                 deal=count(s.passed_deals + 1)))
        ctx.events += self._reveal(s, [], finished=False)  # thrown in: nothing shown
        old = s.kit
        away = [p for p in old.players if s.seats[seat_index(s.seats, p)].leaving]
        if away:
            self._void_for_absent(s, ctx, old, away)
            return
        s.passed_deals += 1
        antes = [a + min(s.ante, st - a)
                 for a, st in zip(old.antes, old.starting_stacks, strict=True)]
        s.kit = KitHand(variant="draw", structure=old.structure, small_bet=old.small_bet,
                        players=old.players, starting_stacks=old.starting_stacks, antes=antes)
        for seat in s.seats:
            seat.cards, seat.discards, seat.pending, seat.drawn = [], [], [], False
        self._mirror(s, peek(s.kit))
        self._new_deal(s, ctx, before=old.antes)

    def _void_for_absent(self, s: PokerState, ctx: Ctx, hand: KitHand,
                         away: list[PlayerId]) -> None:
        """docs/rules.md §0.7: a player stood up posts no ante while away. A deal thrown in
        with one of them in it is not dealt again: the hand is void, every ante in the pot
        goes back to whoever posted it (nobody bet: nobody opened), the absent stand up,
        and the others begin a new hand."""
        ctx.flush(self.accounts(s), ctx.reason)
        for i, player in enumerate(hand.players):
            s.seats[seat_index(s.seats, player)].stack = hand.starting_stacks[i]
        s.pot = 0
        ctx.flush(self.accounts(s), "antes_returned")
        # the hand ends, void: its one settlement (every net 0) tells what went back
        ctx.events.append(settlement(
            "coup_settled", coup=s.coup, nets=dict.fromkeys(hand.players, 0),
            absent=who(*away), antes=amounts(hand.players, hand.antes)))
        ctx.settled = len(ctx.transfers)
        self._next_hand(s, ctx)

    def _showdown(self, s: PokerState, kit: BancoKitState, live: list[int],
                  ctx: Ctx) -> None:
        assert s.kit is not None
        if s.opener is not None:
            # docs/rules.md §5a.6: the opener always shows his openers, even uncontested
            ctx.events.append(public("openers_shown", About.SHOWDOWN, player=who(s.opener),
                                     cards=show(*openers_proof(s.opener_cards))))
        super()._showdown(s, kit, live, ctx)

    # --------------------------------------------------------------- view

    def view(self, state: PokerState, viewer: PlayerId | None) -> TableView:
        """Cards stay face down; the viewer's own hand goes in ``my_cards`` only."""
        waiting = self.awaiting(state)
        turn = waiting[0] if waiting else None
        seats = []
        mine: tuple[str, ...] = ()
        for seat in state.seats:
            live = seat.in_hand and not seat.folded
            role = "dealer" if seat.player == state.button else ""
            if seat.player == state.opener and state.kit is not None:
                role = (role + " opener").strip()
            seats.append(SeatView(player=seat.player, name=seat.name, stack=seat.stack,
                                  stake=seat.bet, face_down=len(seat.cards) if live else 0,
                                  role=role, status=self._status(state, seat, turn)))
            if live and seat.player == viewer:
                mine = tuple(seat.cards)
        # his own hand's name, for him alone (the bot shows it in his DM or pop-up)
        my_facts: dict[str, Value] = (
            {"hand": hand_of_cards(mine).typed()} if len(mine) == 5 else {})
        return TableView(game=self.name, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=tuple(seats), my_cards=mine,
                         pot=self._middle(state), awaiting=tuple(waiting),
                         facts=self._facts(state), my_facts=my_facts, shoe=self._shoe(state))

    def _default_action(self, s: PokerState, player: PlayerId) -> Action:
        # the safe default of the draw is to stand pat (discard nothing)
        if any(spec.kind == "discard" for spec in self.legal_actions(s, player)):
            return Discard()
        return super()._default_action(s, player)


ENGINE = DrawPokerEngine()

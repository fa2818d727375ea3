"""Baccarat, old Russian rules (docs/rules.md §2): a banker by auction against 2–11 punters.

Read in this order: :mod:`.model` (data), :mod:`.tenure` (auction, shoe,
tenure between coups), :mod:`.coup` (deal, naturals, payment), then this
module (the engine: actions, timeouts, views).

Phases, in the order a tenure goes through them::

    idle -> auction -> cut -> staking -> [deal, naturals] -> declaring -> drawing
         -> banker_draw -> [settlement] -> staking ... (new shoe: cut)
         -> post_bank (after a punter's baccara) / auction (tenure over)
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games import banking
from games.baccarat import coup as C
from games.baccarat import tenure as T
from games.baccarat.model import (
    AUCTION,
    BANKER_DRAW,
    CUT,
    DECLARING,
    DRAWING,
    IDLE,
    POST_BANK,
    STAKING,
    AuctionBid,
    BaccaratSeat,
    BaccaratSettings,
    BaccaratState,
    Ctx,
    DeclareBaccara,
    PostBank,
)
from games.banking import Bid, Decline, Draw, Pass, Retire, Stake, Stand, cutter, seat_of
from games.cards import hand_points
from games.engine import (
    BANK,
    About,
    Achievement,
    Action,
    ActionSpec,
    Cut,
    Engine,
    GameState,
    GameTexts,
    IllegalAction,
    Input,
    Join,
    Leave,
    PlayerId,
    Reason,
    SeatView,
    Start,
    Step,
    TableView,
    Value,
    cards,
    chips,
    count,
    points,
    private,
    public,
    row,
    rows,
    settlement,
    signed,
    stack,
    stake,
    who,
)
from games.texts import game_texts

PUNTER_MAY_DRAW = 4
"""docs/rules.md §2.7: a punter on 0–4 may take a third card; 5–7 stands."""
BANKER_DEFAULT_DRAW = 5
"""docs/rules.md §2.7: the banker's safe default is to draw on 0–5."""


def _need(condition: bool, reason: Reason) -> None:
    if not condition:
        raise IllegalAction(reason)


def _presets(lo: int, hi: int) -> tuple[int, ...]:
    return banking.presets(lo, hi, hi // 4, hi // 2)


class BaccaratEngine:
    """Old Russian baccarat: a banker chosen by auction against 2–11 punters."""

    name: ClassVar[str] = "baccarat"
    texts: ClassVar[GameTexts] = game_texts("baccarat")
    state_type: ClassVar[type[GameState]] = BaccaratState
    action_types: ClassVar[dict[str, type[Action]]] = {
        cls.model_fields["kind"].default: cls
        for cls in (Join, Leave, Start, Cut, Bid, Pass, Stake, Draw, Stand, DeclareBaccara,
                    Retire, PostBank, Decline)
    }
    min_players: ClassVar[int] = T.MIN_PLAYERS
    max_players: ClassVar[int] = T.MAX_PLAYERS
    achievements: ClassVar[tuple[Achievement, ...]] = (
        *banking.NATURALS,
        Achievement(key="baccara", icon="🃏", feat="baccara"),
        Achievement(key="extra_shoe", icon="🔁", feat="extra_shoe"),
        Achievement(key="sweep", icon="🧹", feat="sweep"),
        *banking.bank_runs(5, 10))

    # ---------------------------------------------------------------- contract

    def new_table(self, settings: dict[str, Any],
                  rng: random.Random | None = None) -> BaccaratState:
        """An empty table; settings: ``min_stake`` (default 1)."""
        return BaccaratState(settings=BaccaratSettings.model_validate(settings))

    def settings(self, state: BaccaratState) -> dict[str, Any]:
        """Every setting with its value (``min_stake``)."""
        return state.settings.model_dump()

    def accounts(self, state: BaccaratState) -> dict[str, int]:
        """Stacks, stakes and the bank, as held in the state."""
        return banking.table_accounts(state.seats, state.bank)

    def close(self, state: BaccaratState) -> Step[BaccaratState]:
        """/closetable (docs/rules.md §0.12): the coup is void, stakes go back, the bank
        to its banker, every stack to its owner; the shoe is revealed."""
        void = any(s.stake or s.cards for s in state.seats)
        closed = BaccaratState(settings=state.settings, version=state.version + 1,
                               coup=state.coup)
        return banking.close_table(state, self.accounts(state), closed, state.banker, void,
                                   [state.shoe])

    def awaiting(self, state: BaccaratState) -> list[PlayerId]:
        """The players whose decision the table waits for."""
        if state.phase == AUCTION:
            return [s.player for s in state.seats if not s.acted]
        if state.phase == STAKING:
            return [s.player for s in state.seats if s.in_coup and not s.acted]
        if state.phase == DECLARING:
            return [p for p in state.deal_order if not seat_of(state, p).acted]
        if state.phase == CUT and state.cutter is not None:
            return [state.cutter]
        if state.phase == DRAWING:
            return [state.draw_order[state.turn]]
        if state.phase == BANKER_DRAW and state.banker is not None:
            return [state.banker]
        if state.phase == POST_BANK and state.declarer is not None:
            return [state.declarer]
        return []

    def legal_actions(self, state: BaccaratState, player: PlayerId) -> list[ActionSpec]:
        """Exactly what :meth:`apply` would accept from ``player`` now."""
        seat = next((s for s in state.seats if s.player == player), None)
        if seat is None:
            return [ActionSpec(kind="join", min=0, input=Input.UTILITY)] \
                if len(state.seats) < self.max_players else []
        out = [ActionSpec(kind="leave", input=Input.UTILITY)] if not seat.leaving else []
        waited = player in self.awaiting(state)
        min_bank, min_stake = state.settings.min_bank, state.settings.min_stake
        if state.phase == IDLE and len(state.seats) >= self.min_players:
            out.append(ActionSpec(kind="start"))
        elif state.phase == AUCTION and waited:
            if seat.stack >= min_bank:
                out.append(ActionSpec(kind="bid", input=Input.AMOUNT, min=min_bank,
                                      max=seat.stack, presets=_presets(min_bank, seat.stack)))
            out.append(ActionSpec(kind="pass"))
        elif state.phase == CUT and waited and state.shoe is not None:
            out.append(state.shoe.cut_spec())  # docs/rules.md §0.4: the cutter's depth
        elif state.phase == STAKING and waited:
            top = self._stake_max(state, seat)
            if top >= min_stake:
                out.append(ActionSpec(kind="stake", input=Input.AMOUNT, min=min_stake, max=top,
                                      presets=_presets(min_stake, top)))
            out.append(ActionSpec(kind="pass"))
        elif state.phase == DECLARING and waited:
            # docs/rules.md §2.6 Decision: every punter answers, privately, whatever he holds
            if self._may_declare(state, seat):
                out.append(ActionSpec(kind="baccara", private=True))
            out.append(ActionSpec(kind="pass", private=True))
        elif state.phase == DRAWING and waited:
            # docs/rules.md §2.7 Decision: private for every punter, so the group cannot
            # tell 0-4 (Draw offered) from 5-7
            if hand_points(seat.cards) <= PUNTER_MAY_DRAW:
                out.append(ActionSpec(kind="draw", private=True))
            out.append(ActionSpec(kind="stand", private=True))
        elif state.phase == BANKER_DRAW and waited:
            out += [ActionSpec(kind="draw"), ActionSpec(kind="stand")]
        elif state.phase == POST_BANK and waited:
            if seat.stack >= min_bank:
                out.append(ActionSpec(kind="post_bank", input=Input.AMOUNT, min=min_bank,
                                      max=seat.stack, presets=_presets(min_bank, seat.stack)))
            out.append(ActionSpec(kind="decline"))
        if player == state.banker and state.phase in (CUT, STAKING):
            out.append(ActionSpec(kind="retire"))
        return out

    def apply(self, state: BaccaratState, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[BaccaratState]:
        """Apply ``action`` for ``player`` on a copy of ``state``."""
        return banking.apply_on_fork(state, player, action, rng, self._act)

    def timeout(self, state: BaccaratState,
                rng: random.Random | None = None) -> Step[BaccaratState]:
        """Apply the safe default for every awaited player; two in a row stand him up."""
        return banking.timeout_on_fork(state, rng, self.awaiting, self._timed_out)

    def _timed_out(self, ctx: Ctx, player: PlayerId) -> None:
        st = ctx.st
        seat = seat_of(st, player)
        banking.count_timeout(ctx, seat)
        banking.stand_up_after_two(ctx, seat)
        self._act(ctx, player, self._default(st, seat, ctx.rng))

    def view(self, state: BaccaratState, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` sees it: only cards the rules turned face up."""
        waiting = self.awaiting(state)
        seats = tuple(self._seat_view(state, s, waiting) for s in state.seats)
        own = next((s for s in state.seats if s.player == viewer), None)
        mine = own.cards if own is not None else []
        my_facts: dict[str, Value] = {}
        if own is not None and own.cards and not own.shown:
            # His points while his first two cards are still face down (docs/rules.md §2.5);
            # a baccara's 0 is told too.
            my_facts["points"] = points(hand_points(own.cards))
        # Only what the table message shows: the banker, the settings, the extra shoes and
        # the draw order are on the seat lines, in /settings or in the log; the shoe's
        # commitment and cards left are ``shoe`` (/verify).
        facts: dict[str, Value] = {}
        if state.bids:
            facts["bids"] = rows(*(row(b.player, amount=chips(b.amount)) for b in state.bids))
        room = state.bank // 2 - sum(s.stake for s in state.seats)
        if state.phase == STAKING and room:
            facts["stake_room"] = chips(room)
        if state.declarer is not None:
            facts["declarer"] = who(state.declarer)
        return TableView(game=self.name, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=seats, my_cards=tuple(mine),
                         bank=state.bank, awaiting=tuple(waiting), facts=facts,
                         my_facts=my_facts,
                         shoe=None if state.shoe is None else state.shoe.facts())

    # ----------------------------------------------------------------- helpers

    @staticmethod
    def _stake_max(st: BaccaratState, seat: BaccaratSeat) -> int:
        # docs/rules.md §2.1: 2 × (sum of stakes) ≤ bank.
        room = st.bank // 2 - sum(s.stake for s in st.seats)
        return min(seat.stack, room)

    @staticmethod
    def _may_declare(st: BaccaratState, seat: BaccaratSeat) -> bool:
        # docs/rules.md §2.6: 0 on two cards, before drawing; **Decision:** one declarer a coup.
        return len(seat.cards) == 2 and hand_points(seat.cards) == 0 and st.declarer is None

    @staticmethod
    def _seat_view(st: BaccaratState, s: BaccaratSeat, waiting: list[PlayerId]) -> SeatView:
        face_up = (s.cards[:2] if s.shown else []) + s.cards[2:]
        role = "banker" if s.player == st.banker else ("punter" if s.in_coup else "")
        if s.player in waiting:
            status = "to act"
        elif s.declared:
            status = "baccara"
        elif s.leaving:
            status = "leaving"
        elif st.phase != IDLE and s.in_coup and s.acted and not s.stake and not s.cards:
            status = "sits out"
        else:
            status = ""
        return SeatView(player=s.player, name=s.name, stack=s.stack, stake=s.stake,
                        face_up=tuple(face_up), face_down=len(s.cards) - len(face_up),
                        role=role, status=status)

    @staticmethod
    def _default(st: BaccaratState, seat: BaccaratSeat, rng: random.Random | None) -> Action:
        """The safe default of every decision (docs/rules.md §2.3, §2.7; §0 timeouts)."""
        if st.phase == CUT:
            assert st.shoe is not None
            return Cut(offset=st.shoe.timeout_cut([x.player for x in st.seats], st.coup))
        if st.phase == DRAWING:
            return Draw() if hand_points(seat.cards) <= PUNTER_MAY_DRAW else Stand()
        if st.phase == DECLARING:
            return Pass()  # docs/rules.md §2.6: no baccara unless he declares it
        if st.phase == BANKER_DRAW:
            return Draw() if hand_points(seat.cards) <= BANKER_DEFAULT_DRAW else Stand()
        if st.phase == POST_BANK:
            return Decline()
        return Pass()  # auction: no bid; staking: no stake, sits out

    # ---------------------------------------------------------------- actions

    def _act(self, ctx: Ctx, player: PlayerId, action: Action) -> None:
        st = ctx.st
        if isinstance(action, Join):
            newcomer = BaccaratSeat(player=player, name=action.name, stack=action.buy_in)
            banking.sit_down(ctx, st.seats, newcomer, self.max_players,
                             seat=count(len(st.seats)))
            return
        seat = seat_of(st, player)
        if isinstance(action, Leave):
            self._leave(ctx, seat)
        elif isinstance(action, Start):
            banking.check_start(st.phase, len(st.seats), self.min_players)
            T.boundary(ctx)
        elif isinstance(action, Bid | Pass) and st.phase == AUCTION:
            self._bid(ctx, seat, action)
        elif isinstance(action, Stake | Pass) and st.phase == STAKING:
            self._stake(ctx, seat, action)
        elif isinstance(action, DeclareBaccara | Pass) and st.phase == DECLARING:
            self._declare(ctx, seat, action)
        elif isinstance(action, Cut):
            _need(st.phase == CUT, Reason.WRONG_PHASE)
            _need(player == st.cutter, Reason.NOT_YOUR_TURN)
            assert st.shoe is not None
            # docs/rules.md §0.4: any depth of the shoe, as offered (cut_spec), none beyond
            _need(action.offset < len(st.shoe.order), Reason.AMOUNT_OUT_OF_RANGE)
            st.shoe = st.shoe.with_cut(action.offset, by=player,
                                       seated=[x.player for x in st.seats], coup=st.coup)
            st.needs_cut, st.cutter = False, None
            ctx.emit(public("shoe_cut", player=who(player), cut=count(st.shoe.cut)))
            T.boundary(ctx)
        elif isinstance(action, Draw | Stand):
            self._third_card(ctx, seat, action)
        elif isinstance(action, Retire):
            _need(player == st.banker, Reason.NOT_ALLOWED)
            _need(st.phase in (CUT, STAKING), Reason.WRONG_PHASE)
            T.return_stakes(ctx)
            T.end_tenure(ctx, "retired")
            T.boundary(ctx)
        elif isinstance(action, PostBank | Decline):
            self._post_bank(ctx, seat, action)
        elif isinstance(action, Bid | Pass | Stake | DeclareBaccara):
            raise IllegalAction(Reason.WRONG_PHASE)
        else:
            raise IllegalAction(Reason.UNKNOWN_ACTION)

    def _leave(self, ctx: Ctx, seat: BaccaratSeat) -> None:
        st = ctx.st
        in_play = st.phase in (DECLARING, DRAWING, BANKER_DRAW)
        if seat.player == st.banker and not in_play:
            # Between coups the banker retires and goes; placed stakes come back.
            T.return_stakes(ctx)
            T.end_tenure(ctx, "left")
            T.remove_seat(ctx, seat)
            T.boundary(ctx)
            return
        if seat.player == st.banker or seat.stake or seat.cards:
            seat.leaving = True  # removed, with his cash-out, right after the coup
            ctx.emit(public("leaving_after_coup", player=who(seat.player)))
            return
        T.remove_seat(ctx, seat)
        if seat.player == st.declarer:
            st.declarer = None
            T.boundary(ctx)
        elif st.phase == CUT and len(st.seats) < self.min_players:
            T.boundary(ctx)
        elif st.phase == CUT and seat.player == st.cutter:
            st.cutter = cutter(st)  # the next punter to the banker's right cuts instead
            ctx.emit(public("cut_awaited", about=About.TURN, player=who(st.cutter)))
        else:
            self._progress(ctx)

    def _progress(self, ctx: Ctx) -> None:
        st = ctx.st
        """Close the auction or the staking once nobody is left to answer."""
        if st.phase == AUCTION:
            if len(st.seats) < self.min_players:
                T.boundary(ctx)
            elif all(s.acted for s in st.seats):
                T.resolve_auction(ctx)
        elif st.phase == STAKING and all(s.acted for s in st.seats if s.in_coup):
            self._deal(ctx)

    def _bid(self, ctx: Ctx, seat: BaccaratSeat, action: Action) -> None:
        st = ctx.st
        _need(not seat.acted, Reason.NOT_YOUR_TURN)
        if isinstance(action, Bid):
            _need(action.amount >= st.settings.min_bank, Reason.AMOUNT_OUT_OF_RANGE)
            _need(action.amount <= seat.stack, Reason.INSUFFICIENT_CHIPS)
            st.bids.append(AuctionBid(player=seat.player, amount=action.amount))
            ctx.emit(public("bid_placed", player=who(seat.player), amount=chips(action.amount)))
        else:
            ctx.emit(public("bid_passed", player=who(seat.player)))
        seat.acted = True
        self._progress(ctx)

    def _stake(self, ctx: Ctx, seat: BaccaratSeat, action: Action) -> None:
        st = ctx.st
        _need(seat.in_coup and not seat.acted, Reason.NOT_YOUR_TURN)
        if isinstance(action, Stake):
            _need(action.amount >= st.settings.min_stake, Reason.AMOUNT_OUT_OF_RANGE)
            _need(action.amount <= seat.stack, Reason.INSUFFICIENT_CHIPS)
            # docs/rules.md §2.1: the bank must cover every stake twice.
            _need(action.amount <= self._stake_max(st, seat), Reason.EXCEEDS_BANK)
            ctx.move(stack(seat.player), stake(seat.player), action.amount, "stake_placed")
            ctx.emit(public("stake_placed", player=who(seat.player),
                            amount=chips(action.amount)))
        else:
            ctx.emit(public("sat_out", player=who(seat.player)))
        seat.acted = True
        self._progress(ctx)

    def _deal(self, ctx: Ctx) -> None:
        st = ctx.st
        if not any(s.stake for s in st.seats):
            ctx.emit(public("coup_void", coup=count(st.coup)))
            T.boundary(ctx)
            return
        C.deal(ctx)
        if C.show_naturals(ctx):
            # docs/rules.md §2.5: anyone with a natural ends the coup; no third cards.
            self._settle(ctx, C.settle_naturals(ctx))
            return
        # docs/rules.md §2.6: baccara is declared before any third card is dealt
        for s in st.seats:
            s.acted = False
        st.phase = DECLARING

    def _declare(self, ctx: Ctx, seat: BaccaratSeat, action: Action) -> None:
        """docs/rules.md §2.6 Decision: every staking punter answers at once and privately,
        *Baccara* (on 0) or *Pass*; the first declaration ends the round (one a coup)."""
        st = ctx.st
        _need(seat.player in self.awaiting(st), Reason.NOT_YOUR_TURN)
        seat.acted = True
        if isinstance(action, DeclareBaccara):
            _need(self._may_declare(st, seat), Reason.NOT_ALLOWED)
            # his stake comes back; the coup goes on for everyone else
            ctx.emit(public("baccara_declared", about=About.SHOWDOWN, player=who(seat.player),
                            cards=cards(*seat.cards), stake=chips(seat.stake)))
            ctx.move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
            seat.declared = seat.shown = True
            st.declarer = seat.player
        else:
            ctx.emit(public("baccara_passed", player=who(seat.player)))
        if st.declarer is None and self.awaiting(st):
            return
        for s in st.seats:
            s.acted = False
        st.draw_order, st.turn, st.phase = C.third_card_order(st), 0, DRAWING
        self._after_turn(ctx)

    def _third_card(self, ctx: Ctx, seat: BaccaratSeat, action: Action) -> None:
        st = ctx.st
        if st.phase == BANKER_DRAW:
            _need(seat.player == st.banker, Reason.NOT_YOUR_TURN)
            _need(not isinstance(action, DeclareBaccara), Reason.NOT_ALLOWED)
            if isinstance(action, Draw):
                self._draw_card(ctx, seat, "banker_drew")
            else:
                ctx.emit(public("banker_stood", player=who(seat.player)))
            self._settle(ctx, C.settle_showdown(ctx))
            return
        _need(st.phase == DRAWING, Reason.WRONG_PHASE)
        _need(seat.player == st.draw_order[st.turn], Reason.NOT_YOUR_TURN)
        if isinstance(action, Draw):
            _need(hand_points(seat.cards) <= PUNTER_MAY_DRAW, Reason.CANNOT_DRAW)
            self._draw_card(ctx, seat, "third_card_dealt")
        else:
            ctx.emit(public("stood", player=who(seat.player)))
        st.turn += 1
        self._after_turn(ctx)

    def _after_turn(self, ctx: Ctx) -> None:
        """The next punter's third-card turn, or the banker's once all have had theirs."""
        st = ctx.st
        if st.turn < len(st.draw_order):
            return
        if any(s.stake for s in st.seats):
            st.phase = BANKER_DRAW
        else:
            self._settle(ctx, C.settle_showdown(ctx))

    @staticmethod
    def _draw_card(ctx: Ctx, seat: BaccaratSeat, kind: str) -> None:
        # docs/rules.md §2.7: third cards are dealt face up.
        st = ctx.st
        assert st.shoe is not None
        st.shoe, dealt = st.shoe.deal(1)
        seat.cards.extend(dealt)
        # docs/rules.md §2.7: only the card is public; with it face up, his points would
        # give away the sum of his two hidden cards, so they go to him alone
        ctx.emit(public(kind, player=who(seat.player), card=cards(dealt[0])))
        ctx.emit(private("third_card_points", to=[seat.player], card=cards(dealt[0]),
                         points=points(hand_points(seat.cards))))

    def _settle(self, ctx: Ctx, results: list[C.Result]) -> None:
        """The coup is paid (``results``): show the hands, announce, go on (§2.5, §2.8)."""
        st = ctx.st
        assert st.banker is not None and ctx.pot == 0
        banker = seat_of(st, st.banker)
        hands = [seat_of(st, p) for p in [*st.deal_order, st.banker]]
        ctx.emit(public("hands_shown", about=About.SHOWDOWN, hands=rows(*(
            row(s.player, cards=cards(*s.cards), points=points(hand_points(s.cards)))
            for s in hands))))
        if hand_points(banker.cards[:2]) == 0:
            # docs/rules.md §2.9: one more shoe for each baccara dealt to the banker.
            st.extra_shoes += 1
            ctx.emit(public("banker_baccara", about=About.SHOWDOWN, player=who(st.banker),
                            extra_shoes=count(st.extra_shoes)))
        banker_net = -sum(r.net for r in results)
        # a baccara declarer played the coup too: his stake came back (§2.6)
        declared = {st.declarer: 0} if st.declarer is not None else {}
        nets = {r.player: r.net for r in results} | declared | {st.banker: banker_net}
        ctx.emit(settlement("coup_settled", coup=st.coup, nets=nets, banker=st.banker,
                            hands={s.player: points(hand_points(s.cards)) for s in hands},
                            feats=C.feats(st, hands, nets),
                            bank=chips(st.bank), banker_net=signed(banker_net),
                            results=rows(*(r.line() for r in results))))
        for s in hands:
            st.discards.extend(s.cards)
        for s in st.seats:
            s.cards, s.shown, s.declared, s.acted, s.in_coup = [], False, False, False, False
        st.deal_order, st.draw_order, st.turn = [], [], 0
        if st.declarer is not None:
            T.end_tenure(ctx, "punter_baccara")  # docs/rules.md §2.6
        T.boundary(ctx)

    def _post_bank(self, ctx: Ctx, seat: BaccaratSeat, action: Action) -> None:
        st = ctx.st
        _need(st.phase == POST_BANK, Reason.WRONG_PHASE)
        _need(seat.player == st.declarer, Reason.NOT_YOUR_TURN)
        st.declarer = None
        if isinstance(action, Decline):
            # **Decision:** declining (or timing out) opens a new auction.
            ctx.emit(public("bank_declined", player=who(seat.player)))
            T.boundary(ctx)
            return
        assert isinstance(action, PostBank)
        _need(action.amount >= st.settings.min_bank, Reason.AMOUNT_OUT_OF_RANGE)
        _need(action.amount <= seat.stack, Reason.INSUFFICIENT_CHIPS)
        st.banker, st.extra_shoes = seat.player, 0
        ctx.move(stack(seat.player), BANK, action.amount, "bank_posted")
        ctx.emit(public("bank_passed", player=who(seat.player), amount=chips(action.amount)))
        # The shoe goes on (§2.6); **Decision:** if it cannot deal another coup the new
        # banker starts a fresh one, so his tenure is never empty.
        if st.shoe is not None and st.shoe.remaining < T.cards_needed(st):
            T.new_shoe(ctx)
        T.boundary(ctx)


ENGINE: Engine[BaccaratState] = BaccaratEngine()

__all__ = ["ENGINE", "BaccaratEngine", "BaccaratSeat", "BaccaratSettings", "BaccaratState"]

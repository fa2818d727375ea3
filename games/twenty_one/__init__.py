"""Twenty-one, "ochko" (docs/rules.md §4), read as the rules of one talia.

A *talia* is one banker dealing one shoe of two decks to its end. Each coup:

1. stakes, before the deal, clockwise from the banker's left (§4.2);
2. two cards face down to every staking punter and to the banker (§4.3);
3. a banker's two-card 21 takes every stake (§4.4); otherwise punters'
   two-card 21s are paid double at once (§4.5);
4. punters buy in dealing order, then the banker (§4.6);
5. showdown and settlement (§4.7); the next coup starts by itself while the
   shoe holds five cards per player, otherwise the bank passes left (§4.8).

The banker's stack pays; each punter's stake sits in ``stake(p)`` until the
coup settles. Modules: :mod:`.model` (card values, actions, state),
:mod:`.coup` (the phases of a talia and a coup, in order), and this module
(the engine contract: actions, timeouts, views, accounts). Decisions made
where docs/rules.md is silent are marked **Decision** and listed for players
in ``bot/rules/twenty_one.en.md``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games import banking
from games.banking import Pass, Stake, Stand, is_seated, seat_of
from games.engine import (
    Achievement,
    Action,
    ActionSpec,
    Cut,
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
    chips,
    count,
    points,
    public,
    stack,
    stake,
    who,
)
from games.texts import game_texts
from games.twenty_one.coup import (
    advance_drawing,
    advance_staking,
    banker_should_buy,
    buy,
    go_idle,
    remove_seat,
    resume,
    stake_bounds,
    stand,
)
from games.twenty_one.model import (
    BANKER,
    CUT,
    DRAWING,
    MAX_BUYS,
    STAKING,
    Buy,
    Ctx,
    Result,
    Seat,
    Settings,
    State,
    capacity,
    card_value,
    in_coup,
    is_natural,
    total,
)

# ------------------------------------------------------------------- engine


class TwentyOneEngine:
    """The twenty-one engine (see the module docstring for the flow of a talia)."""

    name: ClassVar[str] = "twenty_one"
    texts: ClassVar[GameTexts] = game_texts("twenty_one")
    state_type: ClassVar[type[GameState]] = State
    action_types: ClassVar[dict[str, type[Action]]] = {
        "join": Join, "leave": Leave, "start": Start, "cut": Cut,
        "stake": Stake, "pass": Pass, "buy": Buy, "stand": Stand,
    }
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    achievements: ClassVar[tuple[Achievement, ...]] = (
        *banking.NATURALS,
        Achievement(key="three_sevens", icon="🎰", feat="three_sevens"),
        Achievement(key="five_card_21", icon="🖐", feat="five_card_21"),
        *banking.bank_runs(5, 10))

    def new_table(self, settings: dict[str, Any], rng: random.Random | None = None) -> State:
        """An empty table; ``settings`` may set ``min_stake`` and ``decks``."""
        return State(settings=Settings.model_validate(settings))

    def settings(self, state: State) -> dict[str, Any]:
        """Every setting with its value (``min_stake``, ``decks``)."""
        return state.settings.model_dump()

    # ------------------------------------------------------------- actions

    def legal_actions(self, state: State, player: PlayerId) -> list[ActionSpec]:
        """What ``player`` may do now, with bounds."""
        seat, out = banking.seat_specs(state, state.phase, player, self.min_players,
                                       self.max_players)
        if seat is None:
            return out
        turn = state.queue[0] if state.queue else None
        if turn != player:
            return out
        if state.phase == CUT and state.shoe is not None:
            out.append(state.shoe.cut_spec())  # docs/rules.md §0.4: the cutter's depth
        elif state.phase == STAKING:
            lo, hi = stake_bounds(state, seat)
            out += [ActionSpec(kind="stake", input=Input.AMOUNT, min=lo, max=hi,
                               presets=banking.presets(lo, hi, 2 * lo, 5 * lo, 10 * lo)),
                    ActionSpec(kind="pass")]
        elif state.phase in (DRAWING, BANKER):
            # docs/rules.md §4.6 Decision: buying is private, punters' and banker's alike:
            # Buy leaves his keyboard at a bust or 21, which the group must not see
            if seat.bought < MAX_BUYS and total(seat.cards) < 21:
                out.append(ActionSpec(kind="buy", private=True))
            out.append(ActionSpec(kind="stand", private=True))
        return out

    def apply(self, state: State, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[State]:
        """Apply ``action`` for ``player`` on a copy of ``state``."""
        return banking.apply_on_fork(state, player, action, rng, self._dispatch)

    def _dispatch(self, ctx: Ctx, player: PlayerId, action: Action) -> None:
        s = ctx.st
        if isinstance(action, Join):
            newcomer = Seat(player=player, name=action.name, stack=action.buy_in)
            banking.sit_down(ctx, s.seats, newcomer, self.max_players)
            return
        seat = seat_of(s, player)
        if isinstance(action, Leave):
            self._leave(ctx, seat)
        elif isinstance(action, Start):
            banking.check_start(s.phase, len(s.seats), self.min_players)
            ctx.emit(public("play_started", by=who(player)))
            resume(ctx)
        elif isinstance(action, Cut):
            banking.check_turn(s.phase, s.queue, player, CUT)
            assert s.shoe is not None
            if not 0 <= action.offset < len(s.shoe.order):  # docs/rules.md §0.4: in the shoe
                raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=0,
                                    max=len(s.shoe.order) - 1)
            s.shoe = s.shoe.with_cut(action.offset, by=player,
                                     seated=[x.player for x in s.seats], coup=s.coup)
            s.needs_cut = False
            ctx.emit(public("shoe_cut", player=who(player), cut=count(s.shoe.cut)))
            resume(ctx)
        elif isinstance(action, Stake | Pass):
            banking.check_turn(s.phase, s.queue, player, STAKING)
            if isinstance(action, Stake):
                lo, hi = stake_bounds(s, seat)
                if action.amount < lo:
                    raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=lo, max=hi)
                if action.amount > seat.stack:
                    raise IllegalAction(Reason.INSUFFICIENT_CHIPS, max=seat.stack)
                if action.amount > hi:
                    raise IllegalAction(Reason.EXCEEDS_BANK, max=hi)
                ctx.move(stack(player), stake(player), action.amount, "stake")
                ctx.emit(public("stake_placed", player=who(player), amount=chips(action.amount)))
            else:
                ctx.emit(public("stake_declined", player=who(player)))
            s.queue.pop(0)
            advance_staking(ctx)
        elif isinstance(action, Buy | Stand):
            banking.check_turn(s.phase, s.queue, player, DRAWING, BANKER)
            if isinstance(action, Buy):
                buy(ctx, seat)
            else:
                stand(ctx, seat)
            if seat.done:
                advance_drawing(ctx)
        else:
            raise IllegalAction(Reason.UNKNOWN_ACTION)

    def _leave(self, ctx: Ctx, seat: Seat) -> None:
        s = ctx.st
        if in_coup(s, seat):
            seat.leaving = True
            ctx.emit(public("leaving", player=who(seat.player)))
            return
        was_turn = bool(s.queue) and s.queue[0] == seat.player
        was_banker = seat.player == s.banker
        remove_seat(ctx, seat)
        if s.phase == CUT and (was_turn or was_banker):
            resume(ctx)
        elif s.phase == STAKING and was_turn:
            advance_staking(ctx)
        elif s.phase == CUT and len(s.seats) < self.min_players:
            go_idle(ctx, "not_enough_players")

    # ------------------------------------------------------------ timeouts

    def awaiting(self, state: State) -> list[PlayerId]:
        """The one player the table waits for: cutter, staker, or the one buying."""
        return list(state.queue[:1]) if state.phase in (CUT, STAKING, DRAWING, BANKER) else []

    def timeout(self, state: State, rng: random.Random | None = None) -> Step[State]:
        """Safe defaults: the timeout cut (§0.4), no stake, stand; the banker buys while ≤ 16."""
        return banking.timeout_on_fork(state, rng, self.awaiting, self._timed_out)

    def _timed_out(self, ctx: Ctx, player: PlayerId) -> None:
        s = ctx.st
        seat = seat_of(s, player)
        banking.count_timeout(ctx, seat)
        banking.stand_up_after_two(ctx, seat)
        if s.phase == CUT:
            assert s.shoe is not None
            offset = s.shoe.timeout_cut([x.player for x in s.seats], s.coup)
            self._dispatch(ctx, player, Cut(offset=offset))
        elif s.phase == STAKING:
            self._dispatch(ctx, player, Pass())
        elif s.phase == BANKER:
            while banker_should_buy(seat.cards, seat.bought):
                buy(ctx, seat)
            if not seat.done:
                stand(ctx, seat)
            advance_drawing(ctx)
        else:
            self._dispatch(ctx, player, Stand())

    # --------------------------------------------------------------- views

    def view(self, state: State, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` sees it: only shown cards face up, his own in ``my_cards``."""
        seats = []
        mine: tuple[str, ...] = ()
        for x in state.seats:
            if x.player == viewer and not x.shown:
                mine = tuple(x.cards)
            seats.append(SeatView(
                player=x.player, name=x.name, stack=x.stack, stake=x.stake,
                face_up=tuple(x.cards) if x.shown else (),
                face_down=0 if x.shown else len(x.cards),
                role="banker" if x.player == state.banker else "punter",
                status=self._status(state, x)))
        # What the table shows: the minimum stake (a setting), the shoe (``shoe``) and the
        # last coup's results (its settlement told them) are not facts.
        facts: dict[str, Value] = {}
        bank = 0
        if state.banker is not None and is_seated(state, state.banker):
            room = capacity(state)
            if room > 0 and state.phase == STAKING:  # once dealt, nobody may stake
                facts["can_still_stake"] = chips(room)
            # docs/rules.md §4.2: the banker pays out of his own stack: that stack is the bank
            bank = seat_of(state, state.banker).stack
        # His best total while his cards are face down (docs/rules.md §4.3), for his eyes only;
        # over 21 it is named a bust, which the table learns only at the showdown (§4.6).
        best = total(list(mine))
        my_facts: dict[str, Value] = {}
        if mine:
            my_facts["bust" if best > 21 else "total"] = points(best, best > 21)
        return TableView(game=state.game, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=tuple(seats), my_cards=mine,
                         bank=bank, awaiting=tuple(self.awaiting(state)), facts=facts,
                         my_facts=my_facts,
                         shoe=state.shoe.facts() if state.shoe is not None else None)

    @staticmethod
    def _status(s: State, x: Seat) -> str:
        if x.leaving:
            return "leaving"
        if s.queue and s.queue[0] == x.player:
            return "to act"
        if x.shown and x.player != s.banker:
            return "21"
        if x.done:
            return "stood"  # a bust looks the same until the showdown (§4.6)
        return ""  # a stake says itself on the seat line

    def accounts(self, state: State) -> dict[str, int]:
        """Stacks and stakes: the only table accounts of twenty-one."""
        return banking.table_accounts(state.seats)

    def close(self, state: State) -> Step[State]:
        """/closetable (docs/rules.md §0.12): the coup is void, every stake and stack goes
        back to its owner (the banker pays from his stack: there is no bank account);
        the shoe is revealed."""
        void = any(x.stake or x.cards for x in state.seats)
        closed = State(settings=state.settings, version=state.version + 1, coup=state.coup)
        return banking.close_table(state, self.accounts(state), closed, None, void, [state.shoe])


ENGINE = TwentyOneEngine()


__all__ = [
    "ENGINE",
    "Buy",
    "Pass",
    "Result",
    "Seat",
    "Settings",
    "Stake",
    "Stand",
    "State",
    "TwentyOneEngine",
    "card_value",
    "is_natural",
    "total",
]

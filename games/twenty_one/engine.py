"""Twenty-one: the engine contract (actions, timeouts, views, accounts)."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games import banking
from games.cards import secure_rng
from games.engine import (
    Action,
    ActionSpec,
    Cut,
    GameState,
    IllegalAction,
    Join,
    Leave,
    PlayerId,
    Reason,
    SeatView,
    Start,
    Step,
    TableView,
    public,
    stack,
    stake,
)
from games.table import find_seat, move
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
    IDLE,
    MAX_BUYS,
    STAKING,
    Buy,
    Events,
    Pass,
    Seat,
    Settings,
    Stake,
    Stand,
    State,
    Transfers,
    capacity,
    in_coup,
    is_seated,
    seat_of,
    total,
)

# ------------------------------------------------------------------- engine


class TwentyOneEngine:
    """The twenty-one engine (see the module docstring for the flow of a talia)."""

    name: ClassVar[str] = "twenty_one"
    state_type: ClassVar[type[GameState]] = State
    action_types: ClassVar[dict[str, type[Action]]] = {
        "join": Join, "leave": Leave, "start": Start, "cut": Cut,
        "stake": Stake, "pass": Pass, "buy": Buy, "stand": Stand,
    }
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10

    def new_table(self, settings: dict[str, Any], rng: random.Random | None = None) -> State:
        """An empty table; ``settings`` may set ``min_stake`` and ``decks``."""
        return State(settings=Settings.model_validate(settings))

    # ------------------------------------------------------------- actions

    def legal_actions(self, state: State, player: PlayerId) -> list[ActionSpec]:
        """What ``player`` may do now, with bounds."""
        if not is_seated(state, player):
            return [ActionSpec(kind="join")] if len(state.seats) < self.max_players else []
        seat = find_seat(state.seats, player)
        out = [ActionSpec(kind="leave")] if not seat.leaving else []
        if state.phase == IDLE and len(state.seats) >= self.min_players:
            out.append(ActionSpec(kind="start"))
        turn = state.queue[0] if state.queue else None
        if turn != player:
            return out
        if state.phase == CUT:
            out.append(ActionSpec(kind="cut"))
        elif state.phase == STAKING:
            lo, hi = stake_bounds(state, seat)
            presets = sorted({a for a in (lo, 2 * lo, 5 * lo, 10 * lo, hi) if lo <= a <= hi})
            out += [ActionSpec(kind="stake", min=lo, max=hi, presets=tuple(presets)),
                    ActionSpec(kind="pass")]
        elif state.phase in (DRAWING, BANKER):
            if seat.bought < MAX_BUYS and total(seat.cards) < 21:
                out.append(ActionSpec(kind="buy"))
            out.append(ActionSpec(kind="stand"))
        return out

    def apply(self, state: State, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[State]:
        """Apply ``action`` for ``player`` on a copy of ``state``."""
        return banking.apply_on_fork(state, player, action, rng, self._dispatch)

    def _dispatch(self, s: State, player: PlayerId, action: Action, ev: Events,
                  tr: Transfers, rng: random.Random | None) -> None:
        if isinstance(action, Join):
            newcomer = Seat(player=player, name=action.name, stack=action.buy_in)
            banking.sit_down(s.seats, newcomer, self.max_players, ev, tr)
            return
        seat = find_seat(s.seats, player)
        if isinstance(action, Leave):
            self._leave(s, seat, ev, tr, rng)
        elif isinstance(action, Start):
            banking.check_start(s.phase, len(s.seats), self.min_players)
            ev.append(public("play_started", by=player))
            resume(s, ev, tr, rng)
        elif isinstance(action, Cut):
            banking.check_turn(s.phase, s.queue, player, CUT)
            assert s.shoe is not None
            s.shoe = s.shoe.with_cut(action.offset)
            s.needs_cut = False
            ev.append(public("shoe_cut", player=player, cut=s.shoe.cut))
            resume(s, ev, tr, rng)
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
                tr += move(stack(player), stake(player), action.amount, "stake")
                seat.stack -= action.amount
                seat.stake = action.amount
                ev.append(public("stake_placed", player=player, amount=action.amount))
            else:
                ev.append(public("stake_declined", player=player))
            s.queue.pop(0)
            advance_staking(s, ev, tr, rng)
        elif isinstance(action, Buy | Stand):
            banking.check_turn(s.phase, s.queue, player, DRAWING, BANKER)
            if isinstance(action, Buy):
                buy(s, seat, ev)
            else:
                stand(s, seat, ev)
            if seat.done:
                advance_drawing(s, ev, tr, rng)
        else:
            raise IllegalAction(Reason.UNKNOWN_ACTION)

    def _leave(self, s: State, seat: Seat, ev: Events, tr: Transfers,
               rng: random.Random | None) -> None:
        if in_coup(s, seat):
            seat.leaving = True
            ev.append(public("leaving", player=seat.player))
            return
        was_turn = bool(s.queue) and s.queue[0] == seat.player
        was_banker = seat.player == s.banker
        remove_seat(s, seat, tr, ev)
        if s.phase == CUT and (was_turn or was_banker):
            resume(s, ev, tr, rng)
        elif s.phase == STAKING and was_turn:
            advance_staking(s, ev, tr, rng)
        elif s.phase == CUT and len(s.seats) < self.min_players:
            go_idle(s, ev, "not_enough_players")

    # ------------------------------------------------------------ timeouts

    def awaiting(self, state: State) -> list[PlayerId]:
        """The one player the table waits for: cutter, staker, or the one buying."""
        return list(state.queue[:1]) if state.phase in (CUT, STAKING, DRAWING, BANKER) else []

    def timeout(self, state: State, rng: random.Random | None = None) -> Step[State]:
        """Safe defaults: cut at random, no stake, stand; the banker buys while ≤ 16."""
        return banking.timeout_on_fork(state, rng, self.awaiting, self._timed_out)

    def _timed_out(self, s: State, player: PlayerId, ev: Events, tr: Transfers,
                   rng: random.Random | None) -> None:
        seat = seat_of(s, player)
        banking.count_timeout(seat, ev)
        banking.stand_up_after_two(seat, ev)
        if s.phase == CUT:
            assert s.shoe is not None
            offset = (rng or secure_rng()).randrange(len(s.shoe.order))
            self._dispatch(s, player, Cut(offset=offset), ev, tr, rng)
        elif s.phase == STAKING:
            self._dispatch(s, player, Pass(), ev, tr, rng)
        elif s.phase == BANKER:
            while banker_should_buy(seat.cards, seat.bought):
                buy(s, seat, ev)
            if not seat.done:
                stand(s, seat, ev)
            advance_drawing(s, ev, tr, rng)
        else:
            self._dispatch(s, player, Stand(), ev, tr, rng)

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
        info: dict[str, Any] = {"min_stake": state.settings.min_stake,
                                "last_results": [r.model_dump() for r in state.last_results]}
        if state.shoe is not None:
            info.update(commitment=state.shoe.commitment, cards_left=state.shoe.remaining,
                        discards=len(state.discards))
        if state.banker is not None and is_seated(state, state.banker):
            info["can_still_stake"] = max(0, capacity(state))
        # His best total while his cards are face down (docs/rules.md §4.3), for his eyes only.
        my_info: dict[str, Any] = {"total": total(list(mine))} if mine else {}
        return TableView(game=state.game, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=tuple(seats), my_cards=mine,
                         awaiting=tuple(self.awaiting(state)), info=info, my_info=my_info)

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
        if x.stake:
            return "staked"
        return ""

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

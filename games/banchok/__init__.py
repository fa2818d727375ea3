"""Polish banchok (docs/rules.md §3), read as the rules of one bank.

1. The player who draws the lowest card (later: the player on the last
   banker's left) posts the fixed bank, or refuses and leaves (§3.1, §3.8).
2. The shoe is shuffled and committed; the player to the banker's right
   cuts (§3.2).
3. Every punter gets three cards face down, one at a time (§3.3).
4. From the banker's left, each punter names a stake from the minimum to the
   whole bank (§3.4); others may join it unless he forbids it (§3.6); the
   banker's top card is turned and covers him unless he holds a card of its
   suit, equal or higher (§3.5).
5. After the last punter, three new cards each without shuffling; the used
   cards are gathered, shuffled and put under the shoe (§3.7).
6. As soon as the bank is empty or tripled the banker takes it and the bank
   passes left (§3.8).

A *coup* is one punter's card turned. Modules: :mod:`.model` (covering rule,
actions, state), :mod:`.coup` (the phases, in order), and this module (the
engine contract: actions, timeouts, views, accounts). Decisions made where
docs/rules.md is silent are marked **Decision** and listed for players in
``bot/rules/banchok.en.md``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games import banking
from games.banchok.coup import (
    advance_post,
    advance_staking,
    deal_round,
    draw_first_banker,
    end_bank,
    go_idle,
    offer_bank,
    open_joining,
    post_bank,
    remove_seat,
    turn_card,
)
from games.banchok.model import (
    CUT,
    JOINING,
    POST,
    STAKING,
    Ctx,
    JoinStake,
    LastCoup,
    PostBank,
    Seat,
    Settings,
    Stake,
    State,
    Turn,
    can_join,
    cards_left,
    clockwise_after,
    in_coup,
    punter,
    punter_wins,
    stake_bounds,
    stake_total,
)
from games.banking import Decline, cutter, is_seated, seat_of
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
    flag,
    public,
    stack,
    stake,
    who,
)
from games.texts import game_texts


def _presets(lo: int, hi: int, bank: int) -> tuple[int, ...]:
    return banking.presets(lo, hi, 2 * lo, 5 * lo, bank // 4, bank // 2)


class BanchokEngine:
    """The Polish banchok engine (see :mod:`games.banchok` for the flow of a bank)."""

    name: ClassVar[str] = "banchok"
    texts: ClassVar[GameTexts] = game_texts("banchok")
    state_type: ClassVar[type[GameState]] = State
    action_types: ClassVar[dict[str, type[Action]]] = {
        "join": Join, "leave": Leave, "start": Start, "cut": Cut, "post_bank": PostBank,
        "decline": Decline, "stake": Stake, "join_stake": JoinStake, "turn": Turn,
    }
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    # a coup is one punter's card (docs/rules.md §3): a bank lives through many of them
    achievements: ClassVar[tuple[Achievement, ...]] = (
        Achievement(key="banco_won", icon="🎯", feat="banco_won"),
        Achievement(key="bank_broken", icon="💥", feat="bank_broken"),
        Achievement(key="joined_10", icon="🤝", feat="joined", count=10),
        Achievement(key="bank_tripled", icon="💰", feat="bank_tripled"),
        *banking.bank_runs(10, 20))

    def new_table(self, settings: dict[str, Any], rng: random.Random | None = None) -> State:
        """An empty table; ``settings`` may set ``bank``, ``min_stake``, ``joining``, ``decks``."""
        return State(settings=Settings.model_validate(settings))

    def settings(self, state: State) -> dict[str, Any]:
        """Every setting with its value (``bank``, ``min_stake``, ``joining``, ``decks``)."""
        return state.settings.model_dump()

    # ------------------------------------------------------------- actions

    def legal_actions(self, state: State, player: PlayerId) -> list[ActionSpec]:
        """What ``player`` may do now, with bounds."""
        seat, out = banking.seat_specs(state, state.phase, player, self.min_players,
                                       self.max_players)
        if seat is None:
            return out
        if can_join(state, seat):
            room = min(seat.stack, state.bank - stake_total(state))
            out.append(ActionSpec(kind="join_stake", input=Input.AMOUNT, min=1, max=room,
                                  presets=_presets(1, room, state.bank)))
        if not state.queue or state.queue[0] != player:
            return out
        if state.phase == POST:
            # the bank is fixed (§3.1): posting it asks for no amount
            out += [ActionSpec(kind="post_bank", min=state.settings.bank,
                               max=state.settings.bank), ActionSpec(kind="decline")]
        elif state.phase == CUT and state.shoe is not None:
            out.append(state.shoe.cut_spec())  # docs/rules.md §0.4: the cutter's depth
        elif state.phase == STAKING:
            lo, hi = stake_bounds(state, seat)
            choices = ("allow_joining", "forbid_joining") if state.settings.joining else ()
            out.append(ActionSpec(kind="stake", input=Input.CHOICE if choices else Input.AMOUNT,
                                  min=lo, max=hi, presets=_presets(lo, hi, state.bank),
                                  choices=choices))
        elif state.phase == JOINING:
            out.append(ActionSpec(kind="turn"))
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
            self._start(ctx, player)
        elif isinstance(action, PostBank | Decline):
            banking.check_turn(s.phase, s.queue, player, POST)
            if isinstance(action, PostBank):
                if seat.stack < s.settings.bank:
                    raise IllegalAction(Reason.INSUFFICIENT_CHIPS, min=s.settings.bank)
                post_bank(ctx, seat)
            else:
                # docs/rules.md §3.8: refusing the bank means leaving the table, except
                # for the last banker, offered it again only because nobody else took it.
                ctx.emit(public("bank_declined", player=who(player)))
                if player == s.last_banker:
                    s.queue.pop(0)
                else:
                    remove_seat(ctx, seat)
                advance_post(ctx)
        elif isinstance(action, Cut):
            banking.check_turn(s.phase, s.queue, player, CUT)
            assert s.shoe is not None
            if not 0 <= action.offset < len(s.shoe.order):  # docs/rules.md §0.4: in the shoe
                raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=0,
                                    max=len(s.shoe.order) - 1)
            s.shoe = s.shoe.with_cut(action.offset, by=player,
                                     seated=[x.player for x in s.seats], coup=s.coup)
            ctx.emit(public("shoe_cut", player=who(player), cut=count(s.shoe.cut)))
            deal_round(ctx)
        elif isinstance(action, Stake):
            banking.check_turn(s.phase, s.queue, player, STAKING)
            self._stake(ctx, seat, action)
        elif isinstance(action, JoinStake):
            self._join_stake(ctx, seat, action.amount)
        elif isinstance(action, Turn):
            banking.check_turn(s.phase, s.queue, player, JOINING)
            turn_card(ctx)
        else:
            raise IllegalAction(Reason.UNKNOWN_ACTION)

    def _start(self, ctx: Ctx, player: PlayerId) -> None:
        s = ctx.st
        banking.check_start(s.phase, len(s.seats), self.min_players)
        ctx.emit(public("play_started", by=who(player)))
        if s.last_banker is not None and is_seated(s, s.last_banker):
            offer_bank(ctx, [x.player for x in clockwise_after(s, s.last_banker)])
            return
        first = draw_first_banker(ctx)
        offer_bank(ctx, [first, *(x.player for x in clockwise_after(s, first))])

    def _stake(self, ctx: Ctx, seat: Seat, action: Stake) -> None:
        s = ctx.st
        lo, hi = stake_bounds(s, seat)
        if action.amount < lo:
            raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=lo, max=hi)
        if action.amount > seat.stack:
            raise IllegalAction(Reason.INSUFFICIENT_CHIPS, max=seat.stack)
        if action.amount > s.bank:
            raise IllegalAction(Reason.EXCEEDS_BANK, max=s.bank)
        if action.forbid_joining and not s.settings.joining:
            raise IllegalAction(Reason.NOT_ALLOWED)
        ctx.move(stack(seat.player), stake(seat.player), action.amount, "stake")
        s.staked = True  # from now on the banker holds the bank until it ends (§3.8)
        # docs/rules.md §3.6: forbidding joining on his cards bars him from joining others'.
        s.no_joining = action.forbid_joining
        seat.forbids = seat.forbids or action.forbid_joining
        ctx.emit(public("stake_placed", player=who(seat.player), amount=chips(action.amount),
                        joining=flag(not action.forbid_joining and s.settings.joining)))
        open_joining(ctx)

    def _join_stake(self, ctx: Ctx, seat: Seat, amount: int) -> None:
        s = ctx.st
        p = punter(s)
        if s.phase != JOINING or p is None:
            raise IllegalAction(Reason.WRONG_PHASE)
        if not s.settings.joining or seat.player in (s.banker, p.player) or seat.leaving:
            raise IllegalAction(Reason.NOT_ALLOWED)
        if s.no_joining or seat.forbids:
            raise IllegalAction(Reason.JOINING_FORBIDDEN)
        if amount < 1:
            raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=1)
        if amount > seat.stack:
            raise IllegalAction(Reason.INSUFFICIENT_CHIPS, max=seat.stack)
        room = s.bank - stake_total(s)
        if amount > room:
            # docs/rules.md §3.6, §0 "Covering": the bank can never owe more than it holds.
            raise IllegalAction(Reason.EXCEEDS_BANK, max=room)
        ctx.move(stack(seat.player), stake(seat.player), amount, "stake_joined")
        if seat.player not in s.joiners:
            s.joiners.append(seat.player)
        ctx.emit(public("stake_joined", player=who(seat.player), punter=who(p.player),
                        amount=chips(amount), total=chips(stake_total(s))))
        if stake_total(s) == s.bank:
            turn_card(ctx)  # nothing more can be joined: no need to wait

    def _leave(self, ctx: Ctx, seat: Seat) -> None:
        s = ctx.st
        if seat.player == s.banker:
            seat.leaving = True
            if s.staked:
                # docs/rules.md §3.8: no chips leave the bank before it is empty or
                # tripled; the bank plays on (he decides nothing) and he goes with it.
                ctx.emit(public("banker_leaving", player=who(seat.player)))
                return
            # Nothing staked yet: his bank ends now and he takes it with him (§3.8).
            end_bank(ctx, "banker_left")
            return
        if in_coup(s, seat):
            seat.leaving = True
            ctx.emit(public("leaving", player=who(seat.player)))
            return
        was_first = bool(s.queue) and s.queue[0] == seat.player
        remove_seat(ctx, seat)
        if s.phase == POST and was_first:
            advance_post(ctx)
        elif s.phase in (CUT, STAKING, JOINING) and len(s.seats) < self.min_players:
            end_bank(ctx, "no_punters")
        elif s.phase == CUT and was_first:
            s.queue = [cutter(s)]  # the new right-hand neighbour cuts
        elif s.phase == STAKING and was_first:
            advance_staking(ctx)
        elif s.phase == POST and len(s.seats) < self.min_players:
            go_idle(ctx, "not_enough_players")

    # ------------------------------------------------------------ timeouts

    def awaiting(self, state: State) -> list[PlayerId]:
        """The one player the table waits for: bank offer, cut, stake, or the punter's turn."""
        return list(state.queue[:1]) if state.phase in (POST, CUT, STAKING, JOINING) else []

    def timeout(self, state: State, rng: random.Random | None = None) -> Step[State]:
        """Safe defaults: let the bank pass, the timeout cut (§0.4), minimum stake, turn."""
        return banking.timeout_on_fork(state, rng, self.awaiting, self._timed_out)

    def _timed_out(self, ctx: Ctx, player: PlayerId) -> None:
        s = ctx.st
        seat = seat_of(s, player)
        banking.count_timeout(ctx, seat)
        if s.phase == POST:
            # docs/rules.md §3.8 Decision: a timeout lets the bank pass him by; it is one
            # timeout like any other (§0.7), not a refusal, so he keeps his seat.
            ctx.emit(public("bank_passed_over", player=who(player)))
            s.queue.pop(0)
            banking.stand_up_after_two(ctx, seat)
            if seat.leaving:
                remove_seat(ctx, seat)  # nothing at stake: he leaves at once (§0.10)
            advance_post(ctx)
            return
        banking.stand_up_after_two(ctx, seat)
        action: Action
        if s.phase == CUT:
            assert s.shoe is not None
            action = Cut(offset=s.shoe.timeout_cut([x.player for x in s.seats], s.coup))
        elif s.phase == STAKING:
            action = Stake(amount=stake_bounds(s, seat)[0])
        else:
            action = Turn()
        self._dispatch(ctx, player, action)

    # --------------------------------------------------------------- views

    def view(self, state: State, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` sees it: nobody's cards face up, his own in ``my_cards``."""
        seats = []
        mine: tuple[str, ...] = ()
        for x in state.seats:
            if x.player == viewer:
                mine = tuple(x.cards)
            seats.append(SeatView(
                player=x.player, name=x.name, stack=x.stack, stake=x.stake,
                face_down=len(x.cards),
                role="banker" if x.player == state.banker else "punter",
                status=self._status(state, x)))
        # What the table shows: the settings (bank, minimum stake), the bank's start and
        # limit, the last banker and the last coup (its settlement told it) are not facts.
        facts: dict[str, Value] = {}
        if state.settings.joining:
            facts["joining"] = flag(True)
        forbidding = [x.player for x in state.seats if x.forbids]
        if forbidding:
            facts["forbidding"] = who(*forbidding)
        p = punter(state)
        if p is not None:
            facts["punter"] = who(p.player)
            if stake_total(state):
                facts["stake_total"] = chips(stake_total(state))
            if state.no_joining:
                facts["joining_forbidden"] = flag(True)
        shoe = None if state.shoe is None else state.shoe.facts(*state.under).model_copy(
            update={"cards_left": cards_left(state)})
        return TableView(game=state.game, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=tuple(seats), my_cards=mine,
                         bank=state.bank, awaiting=tuple(self.awaiting(state)), facts=facts,
                         shoe=shoe)

    @staticmethod
    def _status(s: State, x: Seat) -> str:
        if x.leaving:
            return "leaving"
        if s.queue and s.queue[0] == x.player:
            return {POST: "to post", CUT: "to cut", STAKING: "to stake",
                    JOINING: "" if x.stake else "staked"}.get(s.phase, "")
        if x.stake:
            return "joined"
        return "forbids joining" if x.forbids else ""

    def accounts(self, state: State) -> dict[str, int]:
        """Stacks, stakes and the bank."""
        return banking.table_accounts(state.seats, state.bank)

    def close(self, state: State) -> Step[State]:
        """/closetable (docs/rules.md §0.12): the coup is void, stakes go back, the bank
        to its banker, every stack to its owner; the shoe and its gathered parts are revealed."""
        void = any(x.stake or x.cards for x in state.seats)
        closed = State(settings=state.settings, version=state.version + 1, coup=state.coup)
        return banking.close_table(state, self.accounts(state), closed, state.banker, void,
                                   [state.shoe, *state.under])


ENGINE = BanchokEngine()


__all__ = [
    "ENGINE",
    "BanchokEngine",
    "Decline",
    "JoinStake",
    "LastCoup",
    "PostBank",
    "Seat",
    "Settings",
    "Stake",
    "State",
    "Turn",
    "punter_wins",
]

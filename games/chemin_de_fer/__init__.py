"""Chemin de fer (docs/rules.md §1): the engine, the contract of :mod:`games.engine`.

Read in this order:

* :mod:`.model`: the table state, the actions, the phases;
* :mod:`.bank`: between coups — bank auction, bank passing, retiring, new shoe;
* :mod:`.coup`: one coup — staking, deal, naturals, draws, showdown, payment;
* :mod:`.tableau`: the classic banker tableau, shown to the banker as a hint;
* this module: the engine over those (``ENGINE``).

Every action is checked and applied by a handler in :mod:`.bank` (between
coups) or :mod:`.coup` (within a coup). Handlers may leave the state in a
*transient* phase (``next_coup``, ``staking_open``, ``deal``, ``showdown``,
``offer_open``); :func:`_run` resolves those until somebody must act or the
table is idle, so a caller never sees one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

from games import banking
from games.banking import Bid, Decline, Draw, Pass, Retire, Stake, Stand, seat_of
from games.chemin_de_fer import bank, coup
from games.chemin_de_fer.model import (
    AUCTION,
    BANK_OFFER,
    BANKER_DRAW,
    CUT,
    DEAL,
    GAME,
    IDLE,
    NEXT_COUP,
    OFFER_OPEN,
    PUNTER_DRAW,
    SETTINGS_DEFAULTS,
    SHOWDOWN,
    STAKING,
    STAKING_OPEN,
    TRANSIENT,
    VOID_CHOICE,
    Banco,
    Continue,
    Ctx,
    NameBank,
    Seat,
    State,
    points,
    staked_total,
)
from games.chemin_de_fer.tableau import banker_hint, banker_tableau_hint
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
    cards,
    chips,
    public,
    row,
    rows,
    who,
    word,
)
from games.engine import points as score
from games.texts import game_texts

_AUTO: dict[str, Callable[[Ctx], None]] = {
    NEXT_COUP: bank.next_coup,
    STAKING_OPEN: coup.open_staking,
    DEAL: coup.deal,
    SHOWDOWN: coup.showdown,
    OFFER_OPEN: bank.open_bank_offer,
}


def _run(ctx: Ctx) -> None:
    """Resolve transient phases until a player must act or the table is idle."""
    while ctx.st.phase in TRANSIENT:
        _AUTO[ctx.st.phase](ctx)


def _presets(low: int, high: int) -> tuple[int, ...]:
    """A few amounts between ``low`` and ``high`` for buttons."""
    return banking.presets(low, high, low + (high - low) // 4, (low + high) // 2)


def default_action(state: State, player: PlayerId) -> Action | None:
    """The safe default docs/rules.md names for ``player``'s pending decision, or ``None``.

    :meth:`CheminDeFer.timeout` applies exactly this; the simulation plays it.
    Cut on timeout: the documented hash of public data (docs/rules.md §0.4,
    :func:`games.cards.timeout_cut`), never the host's choice.
    """
    if player not in ENGINE.awaiting(state):
        return None
    phase = state.phase
    if phase == CUT and state.shoe is not None:
        return Cut(offset=state.shoe.timeout_cut([x.player for x in state.seats], state.coup))
    if phase == VOID_CHOICE:
        return Continue()  # docs/rules.md §1.3 (task: continue)
    if phase == PUNTER_DRAW:
        # docs/rules.md §1.6: draw on 0-4 (compulsory), stand at 5 (safe default) and 6-7
        return Draw() if points(state.punter_cards) <= coup.PUNTER_MUST_DRAW else Stand()
    if phase == BANKER_DRAW:
        # docs/rules.md §1.7: draw on 0-5, stand on 6-7
        return Draw() if points(state.banker_cards) <= 5 else Stand()
    if phase == BANK_OFFER:
        return Decline()
    return Pass()  # auction and staking


class CheminDeFer:
    """Chemin de fer (docs/rules.md §1) for 2–12 players."""

    name: ClassVar[str] = GAME
    texts: ClassVar[GameTexts] = game_texts(GAME)
    state_type: ClassVar[type[GameState]] = State
    action_types: ClassVar[dict[str, type[Action]]] = {
        cls.model_fields["kind"].default: cls
        for cls in (Join, Leave, Start, Cut, Bid, Pass, Banco, Stake, Continue, Retire,
                    Draw, Stand, NameBank, Decline)
    }
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 12
    achievements: ClassVar[tuple[Achievement, ...]] = (
        *banking.NATURALS,
        Achievement(key="banco_won", icon="🎯", feat="banco_won"),
        Achievement(key="bancos_5", icon="🎲", feat="banco_won", count=5),
        Achievement(key="banco_natural", icon="💎", feat="banco_natural"),
        *banking.bank_runs(5, 10))

    # ------------------------------------------------------------- table

    def new_table(self, settings: dict[str, Any], rng: random.Random | None = None) -> State:
        """An empty table; settings ``decks`` (3–8, 6), ``burn`` (3 or 4, 3), ``min_stake`` (1)."""
        unknown = set(settings) - set(SETTINGS_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown settings: {sorted(unknown)}")
        values = {**SETTINGS_DEFAULTS, **settings}
        return State(**values)

    def settings(self, state: State) -> dict[str, Any]:
        """Every setting with its value (``decks``, ``burn``, ``min_stake``)."""
        return {key: getattr(state, key) for key in SETTINGS_DEFAULTS}

    def awaiting(self, state: State) -> list[PlayerId]:
        """Who the table waits for in the current phase."""
        phase = state.phase
        if phase == AUCTION:
            return bank.auction_pending(state)
        if phase == CUT:
            return [banking.cutter(state)]
        if phase in (STAKING, BANK_OFFER):
            return state.queue[:1]
        if phase in (VOID_CHOICE, BANKER_DRAW) and state.banker is not None:
            return [state.banker]
        if phase == PUNTER_DRAW and state.playing is not None:
            return [state.playing]
        return []

    # ----------------------------------------------------------- actions

    def legal_actions(self, state: State, player: PlayerId) -> list[ActionSpec]:
        """Exactly the actions :meth:`apply` would accept from ``player`` now."""
        seat, specs = banking.seat_specs(state, state.phase, player, self.min_players,
                                         self.max_players)
        if seat is None:
            return specs
        phase = state.phase
        mine = player in self.awaiting(state)
        if phase in (AUCTION, BANK_OFFER) and mine:
            if seat.stack >= state.min_stake:
                kind = "bid" if phase == AUCTION else "name_bank"
                specs.append(ActionSpec(kind=kind, input=Input.AMOUNT, min=state.min_stake,
                                        max=seat.stack,
                                        presets=_presets(state.min_stake, seat.stack)))
            specs.append(ActionSpec(kind="pass" if phase == AUCTION else "decline"))
        elif phase == CUT and mine and state.shoe is not None:
            specs.append(state.shoe.cut_spec())  # docs/rules.md §0.4: the cutter's depth
        elif phase == STAKING and mine:
            if coup.can_banco(state, seat):
                specs.append(ActionSpec(kind="banco", min=state.bank, max=state.bank))
            low, high = coup.stake_bounds(state, seat)
            if coup.can_stake(state, seat):
                specs.append(ActionSpec(kind="stake", input=Input.AMOUNT, min=low, max=high,
                                        presets=_presets(low, high)))
            specs.append(ActionSpec(kind="pass"))
        elif phase == PUNTER_DRAW and mine:
            # docs/rules.md §1.6 Decision: his whole decision is private, and he is offered
            # only what the rule allows him (Draw on 0-5, Stand on 5-7)
            specs += [ActionSpec(kind=kind, private=True) for kind, draw in
                      (("draw", True), ("stand", False)) if coup.punter_may(state, draw)]
        elif phase == BANKER_DRAW and mine:
            specs += [ActionSpec(kind="draw"), ActionSpec(kind="stand")]
        elif phase == VOID_CHOICE and mine:
            specs.append(ActionSpec(kind="continue"))
        if self._may_retire(state, player):
            specs.append(ActionSpec(kind="retire"))
        return specs

    @staticmethod
    def _may_retire(state: State, player: PlayerId) -> bool:
        # docs/rules.md §1.9: between coups = after a void coup, or before any stake is placed
        return player == state.banker and (
            state.phase == VOID_CHOICE or (state.phase == STAKING and staked_total(state) == 0))

    def apply(self, state: State, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[State]:
        """Apply ``action``; the input state is never changed."""
        return banking.apply_on_fork(state, player, action, rng, self._act)

    def _act(self, ctx: Ctx, player: PlayerId, action: Action) -> None:
        st = ctx.st
        cls = self.action_types.get(action.kind)
        if cls is None or not isinstance(action, cls):
            raise IllegalAction(Reason.UNKNOWN_ACTION)
        if isinstance(action, Join):
            self._join(ctx, player, action)
        else:
            seat_of(st, player)  # NOT_SEATED before anything else
            self._dispatch(ctx, player, action)
        _run(ctx)

    def _dispatch(self, ctx: Ctx, player: PlayerId, action: Action, auto: bool = False) -> None:
        st = ctx.st
        if isinstance(action, Leave):
            self._leave(ctx, player)
        elif isinstance(action, Start):
            banking.check_start(st.phase, len(st.seats), self.min_players)
            bank.open_auction(ctx)
        elif isinstance(action, Bid):
            bank.bid(ctx, player, action.amount)
        elif isinstance(action, Pass):
            if st.phase == AUCTION:
                bank.bid(ctx, player, None)
            else:
                coup.pass_stake(ctx, player)
        elif isinstance(action, Cut):
            bank.cut(ctx, player, action.offset, auto=auto)
        elif isinstance(action, Stake):
            coup.place_stake(ctx, player, action.amount)
        elif isinstance(action, Banco):
            coup.call_banco(ctx, player)
        elif isinstance(action, Continue):
            coup.continue_bank(ctx, player)
        elif isinstance(action, Retire):
            if not self._may_retire(st, player):
                raise IllegalAction(Reason.NOT_ALLOWED if st.banker != player
                                    else Reason.WRONG_PHASE)
            bank.open_auction(ctx)  # the bank goes to the banker's stack first
        elif isinstance(action, Draw | Stand):
            coup.draw_or_stand(ctx, player, isinstance(action, Draw))
        elif isinstance(action, NameBank):
            bank.name_bank(ctx, player, action.amount)
        elif isinstance(action, Decline):
            bank.decline_bank(ctx, player)

    def _join(self, ctx: Ctx, player: PlayerId, action: Join) -> None:
        """Sit down; during a coup he takes part from the next one."""
        newcomer = Seat(player=player, name=action.name, stack=action.buy_in)
        banking.sit_down(ctx, ctx.st.seats, newcomer, self.max_players)

    def _leave(self, ctx: Ctx, player: PlayerId) -> None:
        """Leave now when nothing of his is at stake, otherwise right after the coup."""
        st = ctx.st
        seat = seat_of(st, player)
        phase = st.phase
        if phase == AUCTION:
            st.bids = [(p, a) for p, a in st.bids if p != player]
            bank.remove_seat(ctx, player)
            if len(st.seats) < self.min_players:
                bank.to_idle(ctx)
            elif not bank.auction_pending(st):
                bank.resolve_auction(ctx)
        elif phase == BANK_OFFER:
            bank.drop_from_offer(ctx, player)
        elif phase == IDLE:
            bank.remove_seat(ctx, player)
        elif player == st.banker:
            if self._may_retire(st, player) or phase == CUT:
                # nothing at stake yet: he retires and leaves at once
                bank.remove_seat(ctx, player)
                bank.open_auction(ctx)
            else:
                seat.leaving = True  # treated as retiring after the coup
                ctx.emit(public("player_leaving", player=who(player)))
        elif seat.stake > 0:
            seat.leaving = True
            ctx.emit(public("player_leaving", player=who(player)))
        else:
            bank.remove_seat(ctx, player)
            if len(st.seats) < self.min_players:
                bank.to_idle(ctx)
            elif phase == STAKING:
                coup.drop_staker(ctx, player)

    def timeout(self, state: State, rng: random.Random | None = None) -> Step[State]:
        """Apply every awaited player's safe default; two in a row stand a player up."""
        return banking.timeout_on_fork(state, rng, self.awaiting, self._timed_out)

    def _timed_out(self, ctx: Ctx, player: PlayerId) -> None:
        st = ctx.st
        action = default_action(st, player)
        assert action is not None
        seat = seat_of(st, player)
        banking.count_timeout(ctx, seat, action=word(action.kind))
        banking.stand_up_after_two(ctx, seat)
        self._dispatch(ctx, player, action, auto=True)
        _run(ctx)

    # ------------------------------------------------------------- views

    def view(self, state: State, viewer: PlayerId | None) -> TableView:
        """The table as ``viewer`` may see it; hands stay face down until the showdown."""
        waiting = self.awaiting(state)
        seats = []
        for s in state.seats:
            held = 0
            role = "punter"
            if s.player == state.banker:
                role, held = "banker", len(state.banker_cards)
            elif s.player == state.playing:
                held = len(state.punter_cards)
            status = ("to act" if s.player in waiting else
                      "plays the hand" if s.player == state.playing else
                      "leaving" if s.leaving else "")
            seats.append(SeatView(player=s.player, name=s.name, stack=s.stack, stake=s.stake,
                                  face_down=held, role=role, status=status))
        mine: list[str] = []
        my_facts: dict[str, Value] = {}
        if viewer is not None and viewer == state.banker:
            mine = state.banker_cards
            # docs/rules.md §1.7: the classic tableau as a hint, for the banker's eyes only
            hint = banker_hint(state)
            if hint is not None:
                my_facts["hint"] = word(hint)
        elif viewer is not None and viewer == state.playing:
            mine = state.punter_cards
        if mine:
            my_facts["points"] = score(points(mine))  # a baccara's 0 is told too
        # What the table shows: the stakes, the burned cards, the bids, whom the bank is
        # offered. The settings are Engine.settings; the banker and the punter playing are
        # the seats' roles and statuses; the shoe's hash and cards left are ``shoe``; the
        # last coup was told by its settlement.
        facts: dict[str, Value] = {}
        staked = staked_total(state)
        if staked:
            facts["staked"] = chips(staked)
        if state.bank > staked:
            facts["uncovered"] = chips(state.bank - staked)
        if state.shoe is not None and state.shoe.burned:
            facts["burned"] = cards(*state.shoe.burned)
        if state.bids:
            facts["bids"] = rows(*(row(p, amount=chips(a)) for p, a in state.bids))
        if state.phase == BANK_OFFER and state.queue:
            facts["offered_to"] = who(state.queue[0])
        return TableView(game=GAME, version=state.version, coup=state.coup, phase=state.phase,
                         viewer=viewer, seats=tuple(seats), my_cards=tuple(mine),
                         bank=state.bank, awaiting=tuple(waiting), facts=facts,
                         my_facts=my_facts,
                         shoe=None if state.shoe is None else state.shoe.facts())

    def accounts(self, state: State) -> dict[str, int]:
        """Every non-empty table account: stacks, stakes and the bank."""
        return banking.table_accounts(state.seats, state.bank)

    def close(self, state: State) -> Step[State]:
        """/closetable (docs/rules.md §0.12): the coup is void, stakes go back, the bank
        to its banker, every stack to its owner; the shoe is revealed."""
        void = staked_total(state) > 0 or bool(state.punter_cards or state.banker_cards)
        closed = State(decks=state.decks, burn=state.burn, min_stake=state.min_stake,
                       version=state.version + 1, coup=state.coup)
        return banking.close_table(state, self.accounts(state), closed, state.banker, void,
                                   [state.shoe])


ENGINE = CheminDeFer()


__all__ = ["ENGINE", "CheminDeFer", "State", "banker_hint", "banker_tableau_hint",
           "default_action"]

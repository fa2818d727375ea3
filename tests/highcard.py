"""High card: a seventh game that exists only in the tests, to show the host needs no change
for a new game (tests/test_seventh_game.py registers it and plays it through the host).

The first player seated banks. Each punter stakes (an amount), is dealt one card face
down and decides, in private, whether to double or stay (his card decides it, so the
decision is his alone); then the banker turns his card up. A punter whose card ranks
higher wins his stake (doubled, if he doubled) from the bank; otherwise the banker
takes it. A punter who lets his time run out stakes nothing, or stays. A punter who
doubled counts it in his standings (the feat ``hc_doubled``); the first time he does in a
chat, he reaches its one achievement, *Double down*. Its texts are its own, below.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from games.cards import Shoe, rank_index
from games.engine import (
    About,
    Achievement,
    Action,
    ActionSpec,
    Event,
    GameState,
    GameTexts,
    IllegalAction,
    Input,
    Join,
    Leave,
    PlayerId,
    Points,
    Reason,
    SeatBase,
    SeatView,
    Start,
    Step,
    TableView,
    Transfer,
    cards,
    chips,
    points,
    private,
    public,
    row,
    rows,
    settlement,
    shoe_revealed,
    signed,
    stack,
    stake,
    text,
    wallet,
    who,
    word,
)

GAME = "high_card"
MAX_STAKE = 100


class Stake(Action):
    """A punter's stake."""

    kind: Literal["stake"] = "stake"
    amount: int = Field(gt=0)


class Decide(Action):
    """Double the stake or stay, having seen one's card."""

    kind: Literal["decide"] = "decide"
    choice: Literal["double", "stay"]


class Seat(SeatBase):
    staked: int = 0
    card: str = ""
    decided: str = ""
    out: bool = False


class HighCardState(GameState):
    game: str = GAME
    phase: str = "idle"
    seats: list[Seat] = Field(default_factory=list)
    shoe: Shoe | None = None


TEXTS = GameTexts(
    name={"en": "High card", "ru": "Старшая карта"},
    aliases=("highcard", "старшая"),
    events={
        "en": {"hc_joined": "{player} sits down with {stack}",
               "hc_staked": "{player} stakes {amount}",
               "hc_sat_out": "{player} sits this coup out",
               "hc_card": ("Your card: {cards}", "{player} gets a card face down"),
               "hc_doubled": "{player} doubles to {amount}",
               "hc_stayed": "{player} stays",
               "hc_shown": "{player} turns up {cards}",
               "hc_settled": "Coup {coup}: {lines}",
               "hc_left": "{player} stands up with {stack}",
               "hc_returned": "Back to the wallets: {back}"},
        "ru": {"hc_joined": "{player} садится с {stack}",
               "hc_staked": "{player} ставит {amount}",
               "hc_sat_out": "{player} пропускает кон",
               "hc_card": ("Ваша карта: {cards}", "{player} получает карту в закрытую"),
               "hc_doubled": "{player} удваивает до {amount}",
               "hc_stayed": "{player} остаётся",
               "hc_shown": "{player} открывает {cards}",
               "hc_settled": "Кон {coup}: {lines}",
               "hc_left": "{player} встаёт с {stack}",
               "hc_returned": "В кошельки: {back}"}},
    facts={"en": {"hc_rank": "Your rank"}, "ru": {"hc_rank": "Ваш ранг"}},
    feats={"en": {"hc_doubled": "Doubled"}, "ru": {"hc_doubled": "Удвоения"}},
    achievements={"en": {"hc_double_down": ("Double down", "doubled a stake")},
                  "ru": {"hc_double_down": ("Удвоение", "удвоил ставку")}},
    words={"en": {"phase:wagers": "wagers", "phase:choices": "choices", "double": "Double",
                  "stay": "Stay", "hc_banker": "banker", "won": "won", "lost": "lost"},
           "ru": {"phase:wagers": "ставки", "phase:choices": "выбор", "double": "Удвоить",
                  "stay": "Остаться", "hc_banker": "банкир", "won": "выиграл",
                  "lost": "проиграл"}},
    actions={"en": {"stake": "Stake", "stake:amount": "Stake {amount}", "decide": "Decide"},
             "ru": {"stake": "Ставка", "stake:amount": "Ставка {amount}",
                    "decide": "Решить"}},
    rules={"en": "# High card\n\nThe higher card wins.",
           "ru": "# Старшая карта\n\nСтаршая карта выигрывает."},
)


class Ctx(BaseModel):
    events: list[Event] = Field(default_factory=list)
    transfers: list[Transfer] = Field(default_factory=list)
    settled: int | None = None

    def move(self, src: str, dst: str, amount: int, reason: str) -> None:
        if amount > 0:
            self.transfers.append(Transfer(src=src, dst=dst, amount=amount, reason=reason))


class HighCard:
    """The engine (games.engine.Engine)."""

    name: ClassVar[str] = GAME
    texts: ClassVar[GameTexts] = TEXTS
    state_type: ClassVar[type[GameState]] = HighCardState
    action_types: ClassVar[dict[str, type[Action]]] = {
        "join": Join, "leave": Leave, "start": Start, "stake": Stake, "decide": Decide}
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    achievements: ClassVar[tuple[Achievement, ...]] = (
        Achievement(key="hc_double_down", feat="hc_doubled"),)

    def new_table(self, settings: dict[str, Any],
                  rng: random.Random | None = None) -> HighCardState:
        if settings:
            raise ValueError(f"unknown settings {sorted(settings)}")
        return HighCardState()

    def settings(self, state: HighCardState) -> dict[str, Any]:
        return {}

    @staticmethod
    def _seat(state: HighCardState, player: PlayerId) -> Seat:
        for seat in state.seats:
            if seat.player == player:
                return seat
        raise IllegalAction(Reason.NOT_SEATED)

    def awaiting(self, state: HighCardState) -> list[PlayerId]:
        punters = state.seats[1:]
        if state.phase == "wagers":
            return [s.player for s in punters if not s.staked and not s.out]
        if state.phase == "choices":
            return [s.player for s in punters if s.staked and not s.decided]
        return []

    def legal_actions(self, state: HighCardState, player: PlayerId) -> list[ActionSpec]:
        seated = any(s.player == player for s in state.seats)
        if not seated:
            return [ActionSpec(kind="join", input=Input.UTILITY)] \
                if state.phase == "idle" and len(state.seats) < self.max_players else []
        out: list[ActionSpec] = []
        if player in self.awaiting(state):
            seat = self._seat(state, player)
            if state.phase == "wagers":
                high = min(seat.stack, MAX_STAKE)
                out.append(ActionSpec(kind="stake", input=Input.AMOUNT, min=1, max=high,
                                      presets=tuple(sorted({1, high // 2, high} - {0}))))
            else:
                out.append(ActionSpec(kind="decide", input=Input.CHOICE,
                                      choices=("double", "stay"), private=True))
        if state.phase == "idle":
            if len(state.seats) >= self.min_players:
                out.append(ActionSpec(kind="start"))
            out.append(ActionSpec(kind="leave", input=Input.UTILITY))
        return out

    def apply(self, state: HighCardState, player: PlayerId, action: Action,
              rng: random.Random | None = None) -> Step[HighCardState]:
        s = state.model_copy(deep=True)
        ctx = Ctx()
        if not any(a.kind == action.kind for a in self.legal_actions(state, player)):
            raise IllegalAction(Reason.NOT_ALLOWED if player in self.awaiting(state)
                                or action.kind in ("join", "leave", "start")
                                else Reason.NOT_YOUR_TURN)
        if isinstance(action, Join):
            s.seats.append(Seat(player=player, name=action.name, stack=action.buy_in))
            ctx.move(wallet(player), stack(player), action.buy_in, "buy_in")
            ctx.events.append(public("hc_joined", player=who(player),
                                     name=text(action.name), stack=chips(action.buy_in)))
        elif isinstance(action, Leave):
            seat = self._seat(s, player)
            ctx.move(stack(player), wallet(player), seat.stack, "cash_out")
            s.seats.remove(seat)
            ctx.events.append(public("hc_left", player=who(player), stack=chips(seat.stack)))
        elif isinstance(action, Start):
            self._next_coup(s, ctx, rng)
        elif isinstance(action, Stake):
            seat = self._seat(s, player)
            if not 1 <= action.amount <= min(seat.stack, MAX_STAKE):
                raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE)
            self._stake(seat, action.amount, ctx)
            self._deal_if_staked(s, ctx)
        elif isinstance(action, Decide):
            self._decide(s, self._seat(s, player), action.choice, ctx)
        return self._step(s, ctx)

    def _step(self, s: HighCardState, ctx: Ctx) -> Step[HighCardState]:
        s.version += 1
        return Step(state=s, events=ctx.events, transfers=ctx.transfers, settled=ctx.settled)

    def _next_coup(self, s: HighCardState, ctx: Ctx, rng: random.Random | None) -> None:
        s.coup += 1
        s.phase = "wagers"
        s.shoe = Shoe.shuffled(1, rng)
        for seat in s.seats:
            seat.staked, seat.card, seat.decided, seat.out = 0, "", "", False

    @staticmethod
    def _stake(seat: Seat, amount: int, ctx: Ctx) -> None:
        seat.staked = amount
        seat.stack -= amount
        ctx.move(stack(seat.player), stake(seat.player), amount, "stake")
        ctx.events.append(public("hc_staked", player=who(seat.player), amount=chips(amount)))

    def _deal_if_staked(self, s: HighCardState, ctx: Ctx) -> None:
        if self.awaiting(s):
            return
        playing = [seat for seat in s.seats[1:] if seat.staked]
        if not playing:
            self._settle(s, ctx)
            return
        assert s.shoe is not None
        for seat in [*playing, s.seats[0]]:
            s.shoe, (seat.card,) = s.shoe.deal(1)
            ctx.events.append(private("hc_card", (seat.player,), About.OWN_HAND,
                                      cards=cards(seat.card)))
            ctx.events.append(public("hc_card", About.DEALT_DOWN, player=who(seat.player)))
        s.phase = "choices"

    def _decide(self, s: HighCardState, seat: Seat, choice: str, ctx: Ctx) -> None:
        seat.decided = choice
        if choice == "double" and seat.stack >= seat.staked:
            ctx.move(stack(seat.player), stake(seat.player), seat.staked, "stake")
            seat.stack -= seat.staked
            seat.staked *= 2
            ctx.events.append(public("hc_doubled", player=who(seat.player),
                                     amount=chips(seat.staked)))
        else:
            seat.decided = "stay"
            ctx.events.append(public("hc_stayed", player=who(seat.player)))
        if not self.awaiting(s):
            self._settle(s, ctx)

    def _settle(self, s: HighCardState, ctx: Ctx) -> None:
        banker = s.seats[0]
        nets: dict[PlayerId, int] = {banker.player: 0}
        hands: dict[PlayerId, Points] = {}
        lines = []
        if banker.card:
            ctx.events.append(public("hc_shown", About.SHOWDOWN, player=who(banker.player),
                                     cards=cards(banker.card)))
            hands[banker.player] = points(rank_index(banker.card) + 2)
        for seat in s.seats[1:]:
            if not seat.staked:
                continue
            hands[seat.player] = points(rank_index(seat.card) + 2)
            if rank_index(seat.card) > rank_index(banker.card):
                net = min(seat.staked, banker.stack)  # the bank pays what it has
                ctx.move(stake(seat.player), stack(seat.player), seat.staked, "win")
                ctx.move(stack(banker.player), stack(seat.player), net, "win")
                banker.stack -= net
                seat.stack += seat.staked + net
            else:
                ctx.move(stake(seat.player), stack(banker.player), seat.staked, "loss")
                banker.stack += seat.staked
                net = -seat.staked
            nets[seat.player] = net
            nets[banker.player] -= net
            lines.append(row(seat.player, cards=cards(seat.card), net=signed(net),
                             outcome=word("won" if net > 0 else "lost")))
            seat.staked = 0
        ctx.settled = len(ctx.transfers)
        winners = [p for p, n in nets.items() if n > 0]
        # what the standings count beyond the nets: who doubled (his texts label it)
        doubled = {seat.player: ("hc_doubled",) for seat in s.seats if seat.decided == "double"}
        ctx.events.append(settlement("hc_settled", coup=s.coup, nets=nets,
                                     banker=banker.player, hands=hands, winners=winners,
                                     feats=doubled, lines=rows(*lines)))
        if s.shoe is not None:
            ctx.events.append(shoe_revealed(s.shoe.reveal()))
        s.phase = "idle"
        if banker.stack <= 0 or len(s.seats) < self.min_players:
            return
        self._next_coup(s, ctx, None)

    def timeout(self, state: HighCardState, rng: random.Random | None = None
                ) -> Step[HighCardState]:
        s = state.model_copy(deep=True)
        ctx = Ctx()
        for player in self.awaiting(s):
            seat = self._seat(s, player)
            seat.timeouts += 1
            if s.phase == "wagers":
                seat.out = True
                ctx.events.append(public("hc_sat_out", player=who(player)))
            else:
                self._decide(s, seat, "stay", ctx)
        if s.phase == "wagers":
            self._deal_if_staked(s, ctx)
        return self._step(s, ctx)

    def view(self, state: HighCardState, viewer: PlayerId | None) -> TableView:
        shown = state.phase == "idle"
        seats = tuple(SeatView(
            player=seat.player, name=seat.name, stack=seat.stack, stake=seat.staked,
            face_down=1 if seat.card and not shown else 0,
            role="hc_banker" if i == 0 and state.phase != "idle" else "")
            for i, seat in enumerate(state.seats))
        mine = next((seat for seat in state.seats if seat.player == viewer and seat.card),
                    None)
        return TableView(
            game=GAME, version=state.version, coup=state.coup, phase=state.phase,
            viewer=viewer, seats=seats, awaiting=tuple(self.awaiting(state)),
            my_cards=(mine.card,) if mine is not None else (),
            my_facts={"hc_rank": points(rank_index(mine.card) + 2)} if mine else {},
            shoe=state.shoe.facts() if state.shoe is not None else None)

    def close(self, state: HighCardState) -> Step[HighCardState]:
        s = state.model_copy(deep=True)
        ctx = Ctx()
        for seat in s.seats:
            ctx.move(stake(seat.player), wallet(seat.player), seat.staked, "table_closed")
            ctx.move(stack(seat.player), wallet(seat.player), seat.stack, "table_closed")
        ctx.events.append(public("hc_returned", back=rows(*(
            row(seat.player, amount=chips(seat.stack + seat.staked)) for seat in s.seats))))
        s.seats = []
        s.phase = "idle"
        return self._step(s, ctx)

    def accounts(self, state: HighCardState) -> dict[str, int]:
        out: dict[str, int] = {}
        for seat in state.seats:
            if seat.stack:
                out[stack(seat.player)] = seat.stack
            if seat.staked:
                out[stake(seat.player)] = seat.staked
        return out


ENGINE = HighCard()

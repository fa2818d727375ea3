"""Between coups (docs/rules.md §2.1, §2.2, §2.6, §2.9): seats, auction, shoe, tenure.

:func:`boundary` is called whenever a coup ends (or cannot start) and decides
what comes next: stood-up and leaving players go, the tenure may end, a new
auction opens, a fresh shoe is shuffled and waits for the cut, or the next
coup begins with its staking.
"""

from __future__ import annotations

import random

from games import banking
from games.baccarat.coup import banker_index, seat_of
from games.baccarat.state import (
    AUCTION,
    CARDS_PER_HAND,
    CUT,
    DECKS,
    IDLE,
    POST_BANK,
    STAKING,
    BaccaratSeat,
    BaccaratState,
)
from games.cards import Shoe
from games.engine import BANK, Event, PlayerId, Transfer, public, shoe_revealed, stack, stake
from games.table import cash_out_transfers, move, right_of

MIN_PLAYERS = 3
MAX_PLAYERS = 12


def pay(st: BaccaratState, log: list[Transfer], transfers: list[Transfer]) -> None:
    """Book ``transfers`` into the step and into the state's balances.

    Every chip movement goes through here, so ``accounts(state)`` (computed
    from seats and bank) always moves exactly by ``net(transfers)``.
    """
    for t in transfers:
        _adjust(st, t.src, -t.amount)
        _adjust(st, t.dst, t.amount)
    log.extend(transfers)


def _adjust(st: BaccaratState, account: str, delta: int) -> None:
    kind, _, who = account.partition(":")
    if kind == "stack":
        seat_of(st, int(who)).stack += delta
    elif kind == "stake":
        seat_of(st, int(who)).stake += delta
    elif account == BANK:
        st.bank += delta
    # wallets live outside the table; the pot only passes chips on within a step


def eligible_punters(st: BaccaratState) -> list[BaccaratSeat]:
    """Punters who can take part in the next coup: seated, staying, able to stake."""
    return [s for s in st.seats if s.player != st.banker and not s.leaving
            and s.stack >= st.settings.min_stake]


def cards_needed(st: BaccaratState) -> int:
    """Cards a coup may need: three for every possible punter and the banker (§2.9).

    **Decision:** the shoe is *exhausted* when it holds fewer cards than that,
    so a coup never runs out of cards half-way.
    """
    return CARDS_PER_HAND * (len(eligible_punters(st)) + 1)


def cutter(st: BaccaratState) -> PlayerId:
    """The punter to the banker's right cuts (docs/rules.md §2.2; **Decision**)."""
    return st.seats[right_of(len(st.seats), banker_index(st))].player


def remove_seat(st: BaccaratState, seat: BaccaratSeat, events: list[Event],
                log: list[Transfer]) -> None:
    """The player stands up: his stack goes back to his wallet."""
    pay(st, log, cash_out_transfers(seat.player, seat.stack))
    st.seats.remove(seat)
    st.bids = [b for b in st.bids if b.player != seat.player]  # a bid needs its bidder
    events.append(public("player_left", player=seat.player))


def return_stakes(st: BaccaratState, log: list[Transfer]) -> None:
    """Give back every stake placed for a coup that will not be dealt."""
    for s in st.seats:
        pay(st, log, move(stake(s.player), stack(s.player), s.stake, "stake_returned"))


def end_tenure(st: BaccaratState, events: list[Event], log: list[Transfer], why: str) -> None:
    """The banker stops; what is left of his bank goes into his stack (§2.6, §2.9)."""
    if st.banker is None:
        return
    banker = st.banker
    events.append(public("tenure_ended", banker=banker, reason=why, bank=st.bank))
    pay(st, log, move(BANK, stack(banker), st.bank, "bank_kept"))
    st.banker = None
    st.extra_shoes = 0


def retire_shoe(st: BaccaratState, events: list[Event]) -> None:
    """Publish the finished shoe (order, salt, cut) so every card dealt can be checked."""
    if st.shoe is not None:
        events.append(shoe_revealed(**st.shoe.reveal()))
    st.shoe = None
    st.needs_cut, st.cutter = False, None
    st.discards = []


def new_shoe(st: BaccaratState, events: list[Event], rng: random.Random | None) -> None:
    """The banker shuffles a fresh shoe; its commitment is shown before the cut (§0, §2.2)."""
    retire_shoe(st, events)
    st.shoe = Shoe.shuffled(DECKS, rng)
    st.needs_cut = True
    events.append(public("shoe_committed", commitment=st.shoe.commitment,
                         cards=len(st.shoe.order), banker=st.banker))


def open_auction(st: BaccaratState, events: list[Event]) -> None:
    """Every seated player may bid for the bank once, or pass (docs/rules.md §2.1)."""
    retire_shoe(st, events)  # a new banker shuffles a new shoe
    st.phase = AUCTION
    st.bids = []
    for s in st.seats:
        s.acted = False
    events.append(public("auction_opened", min_bid=st.settings.min_bank))


def resolve_auction(st: BaccaratState, events: list[Event], log: list[Transfer],
                    rng: random.Random | None) -> None:
    """Highest bid wins, earliest on ties; the bid moves from his stack into the bank."""
    for s in st.seats:
        s.acted = False
    win = banking.highest_bid((b.player, b.amount) for b in st.bids)
    if win is None:
        st.phase = IDLE
        events.append(public("auction_failed"))
        return
    player, amount = win
    st.bids = []
    st.banker = player
    st.extra_shoes = 0
    pay(st, log, move(stack(player), BANK, amount, "bank_posted"))
    events.append(public("bank_won", player=player, amount=amount))
    boundary(st, events, log, rng)


def start_coup(st: BaccaratState, events: list[Event]) -> None:
    """A new coup opens with its staking: only punters seated now take part (§2.3)."""
    st.coup += 1
    st.phase = STAKING
    st.deal_order, st.draw_order, st.turn = [], [], 0
    eligible = {s.player for s in eligible_punters(st)}
    for s in st.seats:
        s.in_coup = s.player in eligible
        s.acted = False
        s.cards, s.shown, s.declared = [], False, False
    events.append(public("coup_started", coup=st.coup, banker=st.banker, bank=st.bank,
                         max_total_stake=st.bank // 2))


def boundary(st: BaccaratState, events: list[Event], log: list[Transfer],
             rng: random.Random | None) -> None:
    """Between coups: decide what the table does next (see the module docstring)."""
    for seat in [s for s in st.seats if s.leaving]:
        if seat.player == st.banker:
            end_tenure(st, events, log, "left")
        if seat.player == st.declarer:
            st.declarer = None
        remove_seat(st, seat, events, log)
    if len(st.seats) < MIN_PLAYERS:
        end_tenure(st, events, log, "not_enough_players")
        st.declarer = None
        retire_shoe(st, events)
        st.phase = IDLE
        events.append(public("table_idle", reason="not_enough_players"))
        return
    if st.declarer is not None:
        # docs/rules.md §2.6: the bank passes to the baccara declarer.
        st.phase = POST_BANK
        events.append(public("bank_offered", player=st.declarer, min_bank=st.settings.min_bank))
        return
    if st.banker is None:
        open_auction(st, events)
        return
    if st.bank < st.settings.min_bank:
        end_tenure(st, events, log, "bank_broken")
        open_auction(st, events)
        return
    if not eligible_punters(st):
        end_tenure(st, events, log, "no_punters")
        retire_shoe(st, events)
        st.phase = IDLE
        events.append(public("table_idle", reason="no_punters"))
        return
    if st.shoe is not None and not st.needs_cut and st.shoe.remaining < cards_needed(st):
        if st.extra_shoes == 0:
            end_tenure(st, events, log, "shoe_exhausted")
            open_auction(st, events)
            return
        # docs/rules.md §2.9: one more shoe for every baccara the banker was dealt.
        st.extra_shoes -= 1
        events.append(public("extra_shoe_started", banker=st.banker,
                             extra_shoes_left=st.extra_shoes))
        new_shoe(st, events, rng)
    if st.shoe is None:
        new_shoe(st, events, rng)
    if st.needs_cut:
        st.phase = CUT
        st.cutter = cutter(st)
        events.append(public("cut_awaited", player=st.cutter))
        return
    start_coup(st, events)

"""Between coups (docs/rules.md §2.1, §2.2, §2.6, §2.9): seats, auction, shoe, tenure.

:func:`boundary` is called whenever a coup ends (or cannot start) and decides
what comes next: stood-up and leaving players go, the tenure may end, a new
auction opens, a fresh shoe is shuffled and waits for the cut, or the next
coup begins with its staking.
"""

from __future__ import annotations

from games import banking
from games.baccarat.model import (
    AUCTION,
    CARDS_PER_HAND,
    CUT,
    DECKS,
    IDLE,
    POST_BANK,
    STAKING,
    BaccaratSeat,
    BaccaratState,
    Ctx,
)
from games.banking import cutter
from games.cards import Shoe
from games.engine import (
    BANK,
    About,
    chips,
    count,
    public,
    shoe_revealed,
    stack,
    stake,
    text,
    who,
    word,
)

MIN_PLAYERS = 3
MAX_PLAYERS = 12


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


def remove_seat(ctx: Ctx, seat: BaccaratSeat) -> None:
    """The player stands up: his stack goes back to his wallet."""
    st = ctx.st
    banking.cash_out(ctx, seat)
    st.seats.remove(seat)
    st.bids = [b for b in st.bids if b.player != seat.player]  # a bid needs its bidder
    ctx.emit(public("player_left", player=who(seat.player)))


def return_stakes(ctx: Ctx) -> None:
    """Give back every stake placed for a coup that will not be dealt."""
    st = ctx.st
    for s in st.seats:
        ctx.move(stake(s.player), stack(s.player), s.stake, "stake_returned")


def end_tenure(ctx: Ctx, why: str) -> None:
    """The banker stops; what is left of his bank goes into his stack (§2.6, §2.9)."""
    st = ctx.st
    if st.banker is None:
        return
    banker = st.banker
    ctx.emit(public("tenure_ended", banker=who(banker), reason=word(why), bank=chips(st.bank)))
    ctx.move(BANK, stack(banker), st.bank, "bank_kept")
    st.banker = None
    st.extra_shoes = 0


def retire_shoe(ctx: Ctx) -> None:
    """Publish the finished shoe (order, salt, cut) so every card dealt can be checked."""
    st = ctx.st
    if st.shoe is not None:
        ctx.emit(shoe_revealed(st.shoe.reveal()))
    st.shoe = None
    st.needs_cut, st.cutter = False, None
    st.discards = []


def new_shoe(ctx: Ctx) -> None:
    """The banker shuffles a fresh shoe; its commitment is shown before the cut (§0, §2.2)."""
    st = ctx.st
    retire_shoe(ctx)
    st.shoe = Shoe.shuffled(DECKS, ctx.rng)
    st.needs_cut = True
    assert st.banker is not None  # a shoe is shuffled for a banker's tenure
    ctx.emit(public("shoe_committed", commitment=text(st.shoe.commitment),
                    cards=count(len(st.shoe.order), "card"), banker=who(st.banker)))


def open_auction(ctx: Ctx) -> None:
    """Every seated player may bid for the bank once, or pass (docs/rules.md §2.1)."""
    st = ctx.st
    retire_shoe(ctx)  # a new banker shuffles a new shoe
    st.phase = AUCTION
    st.bids = []
    for s in st.seats:
        s.acted = False
    ctx.emit(public("auction_opened", min_bid=chips(st.settings.min_bank)))


def resolve_auction(ctx: Ctx) -> None:
    """Highest bid wins, earliest on ties; the bid moves from his stack into the bank."""
    st = ctx.st
    for s in st.seats:
        s.acted = False
    win = banking.highest_bid((b.player, b.amount) for b in st.bids)
    if win is None:
        st.phase = IDLE
        ctx.emit(public("auction_failed"))
        return
    player, amount = win
    st.bids = []
    st.banker = player
    st.extra_shoes = 0
    ctx.move(stack(player), BANK, amount, "bank_posted")
    ctx.emit(public("bank_won", player=who(player), amount=chips(amount)))
    boundary(ctx)


def start_coup(ctx: Ctx) -> None:
    """A new coup opens with its staking: only punters seated now take part (§2.3)."""
    st = ctx.st
    st.coup += 1
    st.phase = STAKING
    st.deal_order, st.draw_order, st.turn = [], [], 0
    eligible = {s.player for s in eligible_punters(st)}
    for s in st.seats:
        s.in_coup = s.player in eligible
        s.acted = False
        s.cards, s.shown, s.declared = [], False, False
    assert st.banker is not None
    ctx.emit(public("coup_started", coup=count(st.coup), banker=who(st.banker),
                    bank=chips(st.bank), max_total_stake=chips(st.bank // 2)))


def boundary(ctx: Ctx) -> None:
    """Between coups: decide what the table does next (see the module docstring)."""
    st = ctx.st
    # docs/rules.md §0.13: a punter who cannot stake the minimum stands up
    banking.stand_up_broke(ctx, st.seats, st.settings.min_stake, spare=st.banker)
    for seat in [s for s in st.seats if s.leaving]:
        if seat.player == st.banker:
            end_tenure(ctx, "left")
        if seat.player == st.declarer:
            st.declarer = None
        remove_seat(ctx, seat)
    if len(st.seats) < MIN_PLAYERS:
        end_tenure(ctx, "not_enough_players")
        st.declarer = None
        retire_shoe(ctx)
        st.phase = IDLE
        ctx.emit(public("table_idle", reason=word("not_enough_players")))
        return
    if st.declarer is not None:
        # docs/rules.md §2.6: the bank passes to the baccara declarer.
        st.phase = POST_BANK
        ctx.emit(public("bank_offered", player=who(st.declarer),
                        min_bank=chips(st.settings.min_bank)))
        return
    if st.banker is None:
        open_auction(ctx)
        return
    if st.bank < st.settings.min_bank:
        end_tenure(ctx, "bank_broken")
        open_auction(ctx)
        return
    if not eligible_punters(st):
        end_tenure(ctx, "no_punters")
        retire_shoe(ctx)
        st.phase = IDLE
        ctx.emit(public("table_idle", reason=word("no_punters")))
        return
    if st.shoe is not None and not st.needs_cut and st.shoe.remaining < cards_needed(st):
        if st.extra_shoes == 0:
            end_tenure(ctx, "shoe_exhausted")
            open_auction(ctx)
            return
        # docs/rules.md §2.9: one more shoe for every baccara the banker was dealt.
        st.extra_shoes -= 1
        ctx.emit(public("extra_shoe_started", banker=who(st.banker),
                        extra_shoes_left=count(st.extra_shoes)))
        new_shoe(ctx)
    if st.shoe is None:
        new_shoe(ctx)
    if st.needs_cut:
        st.phase = CUT
        st.cutter = cutter(st)  # the punter to the banker's right (§2.2; **Decision**)
        ctx.emit(public("cut_awaited", about=About.TURN, player=who(st.cutter)))
        return
    start_coup(ctx)

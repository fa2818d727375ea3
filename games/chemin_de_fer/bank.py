"""Between coups: who holds the bank, and a new shoe (docs/rules.md §1.1, §1.2, §1.8–§1.10).

The bank auction, the bank passing to the right after the punters win, the
banker retiring, seats emptied after a coup, and the start of each coup
(a new shoe when the old one runs low: committed, cut, burned).
"""

from __future__ import annotations

from games import banking
from games.banking import cutter, seat_of
from games.cards import Shoe
from games.chemin_de_fer.model import (
    AUCTION,
    BANK_OFFER,
    CUT,
    IDLE,
    MIN_CARDS_FOR_COUP,
    NEXT_COUP,
    STAKING_OPEN,
    Ctx,
    State,
    seat_index,
)
from games.engine import (
    BANK,
    About,
    IllegalAction,
    PlayerId,
    Reason,
    cards,
    chips,
    count,
    flag,
    public,
    shoe_revealed,
    stack,
    text,
    who,
)

# ------------------------------------------------------------------ seats


def remove_seat(ctx: Ctx, player: PlayerId) -> None:
    """Stand ``player`` up now: his stack goes back to his wallet.

    Only called when he has nothing at stake; a banker retires first.
    """
    st = ctx.st
    if st.banker == player:
        retire_bank(ctx)
    seat = seat_of(st, player)
    amount = banking.cash_out(ctx, seat)
    st.seats = [s for s in st.seats if s.player != player]
    ctx.emit(public("player_left", player=who(player), stack=chips(amount)))


def remove_leavers(ctx: Ctx) -> None:
    """Remove every seat marked ``leaving`` (left, or stood up after two timeouts)."""
    for seat in [s for s in ctx.st.seats if s.leaving]:
        remove_seat(ctx, seat.player)


def retire_bank(ctx: Ctx) -> None:
    """The banker takes the bank into his stack and is banker no more (docs/rules.md §1.9)."""
    st = ctx.st
    if st.banker is None:
        return
    banker, amount = st.banker, st.bank
    ctx.move(BANK, stack(banker), amount, "bank_retired")
    st.banker = None
    ctx.emit(public("banker_retired", player=who(banker), amount=chips(amount)))


def to_idle(ctx: Ctx) -> None:
    """Back to the idle table: any bank returns to its banker, leavers go."""
    st = ctx.st
    retire_bank(ctx)
    st.phase = IDLE
    st.bids, st.queue = [], []
    remove_leavers(ctx)
    ctx.emit(public("table_idle", players=count(len(st.seats))))


# ---------------------------------------------------------------- auction


def open_auction(ctx: Ctx) -> None:
    """Open the bank auction (docs/rules.md §1.1), or go idle with fewer than two players."""
    st = ctx.st
    retire_bank(ctx)
    remove_leavers(ctx)
    if len(st.seats) < 2:
        to_idle(ctx)
        return
    st.phase, st.bids, st.queue, st.stake_order = AUCTION, [], [], []
    ctx.emit(public("auction_opened", min_bid=chips(st.min_stake)))


def auction_pending(st: State) -> list[PlayerId]:
    """The seated players who have neither bid nor passed yet."""
    done = {p for p, _ in st.bids}
    return [s.player for s in st.seats if s.player not in done]


def bid(ctx: Ctx, player: PlayerId, amount: int | None) -> None:
    """Record a bid for the bank (``None`` = pass); resolve once everyone has spoken."""
    st = ctx.st
    if st.phase != AUCTION:
        raise IllegalAction(Reason.WRONG_PHASE)
    if player not in auction_pending(st):
        raise IllegalAction(Reason.NOT_YOUR_TURN, "already bid or passed")
    if amount is not None:
        if amount < st.min_stake:
            raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=st.min_stake)
        if amount > seat_of(st, player).stack:
            raise IllegalAction(Reason.INSUFFICIENT_CHIPS)
        ctx.emit(public("bid_placed", player=who(player), amount=chips(amount)))
    else:
        ctx.emit(public("bid_passed", player=who(player)))
    st.bids.append((player, amount or 0))
    if not auction_pending(st):
        resolve_auction(ctx)


def resolve_auction(ctx: Ctx) -> None:
    """Highest bid wins, earliest wins ties; the bid goes into the bank (docs/rules.md §1.1)."""
    st = ctx.st
    best = banking.highest_bid(st.bids)
    st.bids = []
    if best is None:
        ctx.emit(public("auction_failed"))
        to_idle(ctx)
        return
    player, amount = best
    ctx.move(stack(player), BANK, amount, "bank_bid")
    st.banker = player
    ctx.emit(public("banker_chosen", player=who(player), bank=chips(amount)))
    st.phase = NEXT_COUP


# ------------------------------------------------------------ bank passes


def open_bank_offer(ctx: Ctx) -> None:
    """Offer the bank to each player counter-clockwise from the old banker's right (§1.8).

    ``st.queue`` already holds that order, computed before leavers went.
    """
    st = ctx.st
    remove_leavers(ctx)
    st.queue = [p for p in st.queue if seat_index(st, p) >= 0]
    if len(st.seats) < 2:
        to_idle(ctx)
        return
    st.phase = BANK_OFFER
    _offer_next(ctx)


def _offer_next(ctx: Ctx) -> None:
    st = ctx.st
    if not st.queue:
        ctx.emit(public("bank_refused_by_all"))
        open_auction(ctx)
        return
    ctx.emit(public("bank_offered", player=who(st.queue[0])))


def name_bank(ctx: Ctx, player: PlayerId, amount: int) -> None:
    """The offered player names the new bank; no auction (docs/rules.md §1.8)."""
    st = ctx.st
    banking.check_turn(ctx.st.phase, ctx.st.queue, player, BANK_OFFER)
    if amount < st.min_stake:
        raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=st.min_stake)
    if amount > seat_of(st, player).stack:
        raise IllegalAction(Reason.INSUFFICIENT_CHIPS)
    ctx.move(stack(player), BANK, amount, "bank_named")
    st.banker, st.queue = player, []
    ctx.emit(public("bank_named", player=who(player), bank=chips(amount)))
    st.phase = NEXT_COUP


def decline_bank(ctx: Ctx, player: PlayerId) -> None:
    """The offered player declines; the bank passes further counter-clockwise."""
    banking.check_turn(ctx.st.phase, ctx.st.queue, player, BANK_OFFER)
    ctx.st.queue.pop(0)
    ctx.emit(public("bank_declined", player=who(player)))
    _offer_next(ctx)


def drop_from_offer(ctx: Ctx, player: PlayerId) -> None:
    """A player leaving while the bank is offered: out of the queue (a decline on his turn)."""
    st = ctx.st
    head = st.queue[0] if st.queue else None
    st.queue = [p for p in st.queue if p != player]
    remove_seat(ctx, player)
    if len(st.seats) < 2:
        to_idle(ctx)
    elif head == player:
        _offer_next(ctx)


# -------------------------------------------------------- start of a coup


def next_coup(ctx: Ctx) -> None:
    """The next coup: seats emptied, quorum, shoe (docs/rules.md §1.10), then cut or staking."""
    st = ctx.st
    # docs/rules.md §0.13: a punter who cannot stake the minimum has no coup to play: he is
    # stood up (without this, punters at 0 chips made every coup void, for ever)
    banking.stand_up_broke(ctx, st.seats, st.min_stake, spare=st.banker)
    remove_leavers(ctx)  # a leaving banker retires here (task: "treat as retiring")
    if st.banker is None:
        open_auction(ctx)
        return
    if len(st.seats) < 2:
        to_idle(ctx)
        return
    st.coup += 1
    shoe = st.shoe
    if shoe is None or shoe.remaining < MIN_CARDS_FOR_COUP:
        if shoe is not None:
            ctx.emit(shoe_revealed(shoe.reveal()))
        new = Shoe.shuffled(st.decks, ctx.rng)
        st.shoe, st.shoe_ready, st.discarded = new, False, 0
        ctx.emit(public("shoe_committed", commitment=text(new.commitment),
                        decks=count(st.decks)))
    if not st.shoe_ready:
        st.phase = CUT
        ctx.emit(public("cut_requested", About.TURN, player=who(cutter(st))))
        return
    st.phase = STAKING_OPEN


def cut(ctx: Ctx, player: PlayerId, offset: int, auto: bool = False) -> None:
    """Cut the committed shoe at ``offset``, then burn cards face up (docs/rules.md §1.2)."""
    st = ctx.st
    if st.phase != CUT:
        raise IllegalAction(Reason.WRONG_PHASE)
    if player != cutter(st):
        raise IllegalAction(Reason.NOT_YOUR_TURN)
    assert st.shoe is not None
    size = len(st.shoe.order)
    if not 0 <= offset < size:  # docs/rules.md §0.4: a depth within the shoe, never wrapped
        raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=0, max=size - 1)
    shoe = st.shoe.with_cut(offset, by=player, seated=[x.player for x in st.seats], coup=st.coup)
    ctx.emit(public("shoe_cut", player=who(player), offset=count(shoe.cut),
                    auto=flag(auto)))
    shoe, burned = shoe.burn(st.burn)
    # docs/rules.md §1.2: the burned cards are shown to everyone, then discarded
    ctx.emit(public("cards_burned", cards=cards(*burned)))
    st.shoe, st.shoe_ready = shoe, True
    st.phase = STAKING_OPEN

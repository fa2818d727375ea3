"""One coup of chemin de fer: staking, deal, naturals, draws, showdown (docs/rules.md §1.3–§1.8).

Dealing order (docs/rules.md §1.4): one card to the punters' hand, one to the
banker, a second to the punters' hand, a second to the banker; third cards
come off the shoe in the order they are asked for (punters first).
"""

from __future__ import annotations

from games.banking import seat_of
from games.chemin_de_fer.model import (
    BANKER_DRAW,
    DEAL,
    NEXT_COUP,
    OFFER_OPEN,
    PUNTER_DRAW,
    SHOWDOWN,
    STAKING,
    VOID_CHOICE,
    Ctx,
    Seat,
    State,
    points,
    seat_index,
    staked_total,
)
from games.engine import (
    BANK,
    About,
    Hand,
    IllegalAction,
    PlayerId,
    Points,
    Reason,
    cards,
    chips,
    count,
    private,
    public,
    row,
    rows,
    settlement,
    signed,
    stack,
    stake,
    who,
    word,
)
from games.engine import points as score
from games.table import counter_clockwise_from, right_of

# ---------------------------------------------------------------- staking


def open_staking(ctx: Ctx) -> None:
    """Punters stake in turn from the banker's right, counter-clockwise (docs/rules.md §1.3)."""
    st = ctx.st
    assert st.banker is not None
    n, b = len(st.seats), seat_index(st, st.banker)
    order = [st.seats[i].player for i in counter_clockwise_from(n, right_of(n, b)) if i != b]
    st.stake_order, st.queue = order, list(order)
    st.phase = STAKING
    ctx.emit(public("staking_opened", coup=count(st.coup), banker=who(st.banker),
                    bank=chips(st.bank)))
    advance_staking(ctx)


def stake_bounds(st: State, seat: Seat) -> tuple[int, int]:
    """Lowest and highest stake ``seat`` may place now; empty when high < low.

    **Decision:** when less than the minimum stake is left uncovered, the
    minimum drops to what is left, so the bank can always be covered exactly.
    """
    uncovered = st.bank - staked_total(st)
    return min(st.min_stake, uncovered), min(uncovered, seat.stack)


def can_stake(st: State, seat: Seat) -> bool:
    """True when ``seat`` could place some stake now."""
    low, high = stake_bounds(st, seat)
    return high >= low and high > 0


def can_banco(st: State, seat: Seat) -> bool:
    """Banco: only while no stake is placed, and only with the whole bank in hand."""
    return staked_total(st) == 0 and seat.stack >= st.bank


def advance_staking(ctx: Ctx) -> None:
    """Skip punters who cannot stake; end the staking when covered or all have acted."""
    st = ctx.st
    while st.queue and staked_total(st) < st.bank:
        head = st.queue[0]
        if seat_index(st, head) < 0:
            st.queue.pop(0)
            continue
        seat = seat_of(st, head)
        if not seat.leaving and can_stake(st, seat):
            return
        st.queue.pop(0)
        ctx.emit(public("punter_skipped", player=who(head)))
    st.queue = []
    if staked_total(st) == 0:
        # docs/rules.md §1.3: nobody staked, the coup is void
        assert st.banker is not None
        ctx.emit(public("coup_void", banker=who(st.banker)))
        st.phase = VOID_CHOICE
    else:
        st.phase = DEAL


def _check_staker(st: State, player: PlayerId) -> Seat:
    if st.phase != STAKING:
        raise IllegalAction(Reason.WRONG_PHASE)
    seat = seat_of(st, player)
    if not st.queue or st.queue[0] != player:
        raise IllegalAction(Reason.NOT_YOUR_TURN)
    return seat


def place_stake(ctx: Ctx, player: PlayerId, amount: int) -> None:
    """A stake up to the uncovered part of the bank and the punter's stack."""
    st = ctx.st
    seat = _check_staker(st, player)
    low, _ = stake_bounds(st, seat)
    if amount < low or amount <= 0:
        raise IllegalAction(Reason.AMOUNT_OUT_OF_RANGE, min=low)
    uncovered = st.bank - staked_total(st)
    if amount > uncovered:  # docs/rules.md §0 "Covering"
        raise IllegalAction(Reason.EXCEEDS_BANK, max=uncovered)
    if amount > seat.stack:
        raise IllegalAction(Reason.INSUFFICIENT_CHIPS, max=seat.stack)
    ctx.move(stack(player), stake(player), amount, "stake")
    st.queue.pop(0)
    ctx.emit(public("stake_placed", player=who(player), amount=chips(amount),
                    uncovered=chips(uncovered - amount)))
    advance_staking(ctx)


def call_banco(ctx: Ctx, player: PlayerId) -> None:
    """Banco: the whole bank; staking ends and the caller plays alone (docs/rules.md §1.3)."""
    st = ctx.st
    seat = _check_staker(st, player)
    if staked_total(st) > 0:
        raise IllegalAction(Reason.BANCO_NOT_ALLOWED)
    if seat.stack < st.bank:
        raise IllegalAction(Reason.INSUFFICIENT_CHIPS, max=seat.stack)
    ctx.move(stack(player), stake(player), st.bank, "banco")
    st.queue = []
    ctx.emit(public("banco_called", player=who(player), amount=chips(st.bank)))
    st.phase = DEAL


def pass_stake(ctx: Ctx, player: PlayerId) -> None:
    """No stake this coup."""
    st = ctx.st
    _check_staker(st, player)
    st.queue.pop(0)
    ctx.emit(public("punter_passed", player=who(player)))
    advance_staking(ctx)


def drop_staker(ctx: Ctx, player: PlayerId) -> None:
    """A punter without a stake leaves during the staking: out of the queue."""
    st = ctx.st
    was_head = bool(st.queue) and st.queue[0] == player
    st.queue = [p for p in st.queue if p != player]
    if was_head:
        advance_staking(ctx)


def continue_bank(ctx: Ctx, player: PlayerId) -> None:
    """After a void coup the banker keeps the bank; a new coup starts (docs/rules.md §1.3)."""
    st = ctx.st
    if st.phase != VOID_CHOICE:
        raise IllegalAction(Reason.WRONG_PHASE)
    if player != st.banker:
        raise IllegalAction(Reason.NOT_YOUR_TURN)
    ctx.emit(public("banker_continued", player=who(player), bank=chips(st.bank)))
    st.phase = NEXT_COUP


# -------------------------------------------------------------- the deal


def playing_punter(st: State) -> PlayerId:
    """Largest stake; ties go to the one nearest the banker's right (docs/rules.md §1.4)."""
    best: PlayerId | None = None
    best_stake = 0
    for player in st.stake_order:  # already counter-clockwise from the banker's right
        i = seat_index(st, player)
        if i >= 0 and st.seats[i].stake > best_stake:
            best, best_stake = player, st.seats[i].stake
    assert best is not None
    return best


def deal(ctx: Ctx) -> None:
    """Deal punter, banker, punter, banker; show naturals, else the punter decides."""
    st = ctx.st
    assert st.shoe is not None and st.banker is not None
    st.shoe, dealt = st.shoe.deal(4)
    st.punter_cards, st.banker_cards = [dealt[0], dealt[2]], [dealt[1], dealt[3]]
    st.playing = playing_punter(st)
    ctx.emit(public("cards_dealt", playing=who(st.playing), banker=who(st.banker)))
    # docs/rules.md §1.4: only the playing punter sees the punters' cards
    # with their points: a hand settled in this very step (a natural) has no later view to
    # tell them
    pp, bp = points(st.punter_cards), points(st.banker_cards)
    ctx.emit(private("hand_seen", [st.playing], About.OWN_HAND, hand=word("punters"),
                     cards=cards(*st.punter_cards), points=score(pp)))
    ctx.emit(private("hand_seen", [st.banker], About.OWN_HAND, hand=word("banker"),
                     cards=cards(*st.banker_cards), points=score(bp)))
    if pp >= 8 or bp >= 8:
        # docs/rules.md §1.5: a natural is shown at once and decides the coup
        for hand, holder, held, value in (("punters", st.playing, st.punter_cards, pp),
                                          ("banker", st.banker, st.banker_cards, bp)):
            if value >= 8:
                ctx.emit(public("natural_shown", About.SHOWDOWN, hand=word(hand),
                                player=who(holder), cards=cards(*held),
                                points=score(value)))
        st.phase = SHOWDOWN
    else:
        # docs/rules.md §1.6 Decision: the playing punter always decides, in private, even
        # where the rule leaves him one choice, so nothing tells the banker his band
        st.phase = PUNTER_DRAW


PUNTER_MUST_DRAW = 4
"""docs/rules.md §1.6: the punters draw on 0–4, choose at 5 and stand on 6–7."""
PUNTER_CHOOSES = 5


def punter_may(st: State, draw: bool) -> bool:
    """True when the rules let the playing punter draw (``draw``) or stand now (§1.6)."""
    pp = points(st.punter_cards)
    return pp <= PUNTER_CHOOSES if draw else pp >= PUNTER_CHOOSES


def punter_third_card(ctx: Ctx) -> None:
    """The third card, face down to the playing punter (docs/rules.md §1.6)."""
    st = ctx.st
    assert st.shoe is not None and st.playing is not None
    st.shoe, (card,) = st.shoe.deal(1)
    st.punter_cards.append(card)
    ctx.emit(public("punter_drew", player=who(st.playing)))
    ctx.emit(private("card_drawn", [st.playing], hand=word("punters"), card=cards(card)))
    st.phase = BANKER_DRAW


def draw_or_stand(ctx: Ctx, player: PlayerId, draw: bool) -> None:
    """The playing punter's draw or stand (docs/rules.md §1.6), or the banker's free choice
    (§1.7)."""
    st = ctx.st
    if st.phase == PUNTER_DRAW:
        if player != st.playing:
            raise IllegalAction(Reason.NOT_YOUR_TURN)
        if not punter_may(st, draw):
            # a private refusal: only he could press it, on his own keyboard
            raise IllegalAction(Reason.MUST_STAND if draw else Reason.MUST_DRAW)
        if draw:
            punter_third_card(ctx)
        else:
            ctx.emit(public("punter_stood", player=who(player)))
            st.phase = BANKER_DRAW
    elif st.phase == BANKER_DRAW:
        if player != st.banker:
            raise IllegalAction(Reason.NOT_YOUR_TURN)
        if draw:
            assert st.shoe is not None
            st.shoe, (card,) = st.shoe.deal(1)
            st.banker_cards.append(card)  # shown in a moment, at the showdown
            ctx.emit(public("banker_drew", player=who(player)))
            # his own card, told to him (the coup settles in this step: no later view shows it)
            ctx.emit(private("card_drawn", [player], hand=word("banker"), card=cards(card)))
        else:
            ctx.emit(public("banker_stood", player=who(player)))
        st.phase = SHOWDOWN
    else:
        raise IllegalAction(Reason.WRONG_PHASE)


# ----------------------------------------------------- showdown, payment


def feats(st: State, outcome: str) -> dict[PlayerId, list[str]]:
    """What the coup counts for each player beyond his net, from the hands shown and the
    stakes: ``natural`` for the holder of each hand with one (the punters' hand is the
    playing punter's, §1.4–1.5), ``banco`` for a punter whose stake was the whole bank
    (§1.3: called, or a first stake of it) and ``banco_won`` if the punters won, with
    ``banco_natural`` if they won it on a natural nine (his own hand: a banco's caller is
    the only punter staking, so the one playing, §1.4)."""
    assert st.banker is not None and st.playing is not None
    out: dict[PlayerId, list[str]] = {}
    for holder, held in ((st.playing, st.punter_cards), (st.banker, st.banker_cards)):
        if len(held) == 2 and points(held) >= 8:
            out.setdefault(holder, []).append("natural")
    nine = len(st.punter_cards) == 2 and points(st.punter_cards) == 9
    for seat in st.seats:
        if seat.stake == st.bank:
            out.setdefault(seat.player, []).append("banco")
            if outcome == "punters":
                out[seat.player].append("banco_won")
                if nine:
                    out[seat.player].append("banco_natural")
    return out


def showdown(ctx: Ctx) -> None:
    """Both hands face up, then payment exactly as docs/rules.md §1.8."""
    st = ctx.st
    assert st.banker is not None
    banker = st.banker
    pp, bp = points(st.punter_cards), points(st.banker_cards)
    assert st.playing is not None
    ctx.emit(public("hands_shown", About.SHOWDOWN, punters=cards(*st.punter_cards),
                    punter_points=score(pp), banker=cards(*st.banker_cards),
                    banker_points=score(bp), playing=who(st.playing)))
    punters = [s for s in st.seats if s.stake > 0]
    results: list[tuple[PlayerId, int]] = []
    total = sum(s.stake for s in punters)
    outcome = "banker" if bp > pp else "punters" if pp > bp else "standoff"
    counted = feats(st, outcome)  # before the payment empties the stakes
    if bp > pp:
        for seat in punters:
            # docs/rules.md §1.8: every stake goes into the bank, which the banker keeps
            results.append((seat.player, -seat.stake))
            ctx.move(stake(seat.player), BANK, seat.stake, "coup_lost")
        results.append((banker, total))
    elif pp > bp:
        for seat in punters:
            won = seat.stake
            results.append((seat.player, won))
            ctx.move(stake(seat.player), stack(seat.player), won, "stake_returned")
            ctx.move(BANK, stack(seat.player), won, "coup_won")
        results.append((banker, -total))
        # the banker takes back what is left of the bank; the bank passes right
        ctx.move(BANK, stack(banker), st.bank, "bank_returned")
    else:
        for seat in punters:
            results.append((seat.player, 0))
            ctx.move(stake(seat.player), stack(seat.player), seat.stake, "standoff")
        results.append((banker, 0))
    # every hand in points, for the headline ("Dave wins 4 with 8 points")
    hands: dict[PlayerId, Hand | Points] = {seat.player: score(pp) for seat in punters}
    hands[banker] = score(bp)
    # every player's net, the banker's last (his result is the punters' loss)
    ctx.emit(settlement("coup_settled", coup=st.coup, nets=dict(results), banker=banker,
                        hands=hands, feats=counted, outcome=word(outcome),
                        results=rows(*(row(p, net=signed(n)) for p, n in results)),
                        bank=chips(st.bank)))
    st.last_coup = {"coup": st.coup, "outcome": outcome, "punters": st.punter_cards,
                    "punter_points": pp, "banker": st.banker_cards, "banker_points": bp}
    st.discarded += len(st.punter_cards) + len(st.banker_cards)
    st.punter_cards, st.banker_cards, st.playing = [], [], None
    st.stake_order, st.queue = [], []
    if outcome == "punters":
        n, b = len(st.seats), seat_index(st, banker)
        st.queue = [st.seats[i].player
                    for i in counter_clockwise_from(n, right_of(n, b)) if i != b]
        st.banker = None
        ctx.emit(public("bank_passed", from_player=who(banker)))
        st.phase = OFFER_OPEN
    else:
        # banker won: he stays with the grown bank; stand-off: replayed with new stakes
        st.phase = NEXT_COUP

"""Polish banchok: the phases of a bank, in the order they happen.

A bank: the player offered it posts the fixed bank (§3.1, §3.8), shuffles,
the player to his right cuts (§3.2); rounds of three cards to every punter
follow (§3.3, §3.7), and in each round every punter in turn stakes (§3.4),
others may join (§3.6), the banker's top card is turned and covers him or
not (§3.5). The bank ends as soon as it is empty or tripled (§3.8).

Every function works on the engine's private copy of the state; chip fields
and transfers always change together.
"""

from __future__ import annotations

from games import banking
from games.banchok.model import (
    BANK_LIMIT,
    CUT,
    HAND,
    IDLE,
    JOINING,
    POST,
    STAKING,
    Ctx,
    LastCoup,
    Seat,
    State,
    can_join,
    cards_left,
    clockwise_after,
    punter_wins,
    stake_bounds,
)
from games.banking import cutter, is_seated, seat_of
from games.cards import Shoe
from games.engine import (
    BANK,
    About,
    PlayerId,
    chips,
    count,
    flag,
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
    who,
    word,
)
from games.engine import cards as show

# -------------------------------------------------------------- who banks


def draw_first_banker(ctx: Ctx) -> PlayerId:
    """docs/rules.md §3.1: everyone draws a public card; the lowest posts the first bank.

    2 is lowest and the ace highest; suits do not matter. Decision: players
    tied on the lowest rank draw again among themselves, in seat order, from
    the same fresh shoe, which is committed before and revealed after.
    """
    s = ctx.st
    players = [x.player for x in s.seats]
    return banking.draw_for_bank(ctx, players, s.settings.decks, pick=min)


def offer_bank(ctx: Ctx, candidates: list[PlayerId]) -> None:
    """Offer the bank to ``candidates`` in order (§3.8): each posts it or leaves.

    Decision (§3.8): nobody banks twice running while someone else takes the
    bank, so the last banker comes last: he is offered it again only when
    nobody before him took it, rather than the table stopping.
    """
    s = ctx.st
    s.phase, s.queue = POST, [p for p in candidates if p != s.last_banker]
    if s.last_banker is not None and is_seated(s, s.last_banker):
        s.queue.append(s.last_banker)
    advance_post(ctx)


def advance_post(ctx: Ctx) -> None:
    """Skip those who cannot post the bank; nobody left: the table says why and waits."""
    s = ctx.st
    amount = s.settings.bank
    if len(s.seats) < 2:
        go_idle(ctx, "not_enough_players")
        return
    while s.queue:
        seat = seat_of(s, s.queue[0])
        if seat.stack >= amount and not seat.leaving:
            if seat.player == s.last_banker:
                ctx.emit(public("bank_offered_again", player=who(seat.player)))
            ctx.emit(public("bank_offered", player=who(seat.player), amount=chips(amount)))
            return
        # Decision: a player who cannot afford the bank is passed over, not sent away.
        ctx.emit(public("bank_skipped", player=who(seat.player),
                        reason=word("insufficient_chips")))
        s.queue.pop(0)
    # Decision (§3.8): a table that cannot go on says why, so players know what would help.
    if any(x.stack >= amount and not x.leaving for x in s.seats):
        ctx.emit(public("bank_not_taken", amount=chips(amount)))
        go_idle(ctx, "nobody_took_bank")
    else:
        ctx.emit(public("bank_unaffordable", amount=chips(amount)))
        go_idle(ctx, "nobody_can_bank")


def post_bank(ctx: Ctx, seat: Seat) -> None:
    """docs/rules.md §3.1, §3.2: the new banker posts the bank and shuffles; his right cuts."""
    s = ctx.st
    amount = s.settings.bank
    ctx.move(stack(seat.player), BANK, amount, "bank_posted")
    s.banker, s.bank_start, s.staked = seat.player, amount, False
    for x in s.seats:
        x.forbids = False  # the bank changed hands (§3.6)
    ctx.emit(public("bank_posted", player=who(seat.player), amount=chips(amount)))
    s.shoe = Shoe.shuffled(s.settings.decks, ctx.rng)
    s.under, s.used = [], []
    ctx.emit(public("shoe_committed", commitment=text(s.shoe.commitment),
                    banker=who(seat.player)))
    s.phase, s.queue = CUT, [cutter(s)]


def go_idle(ctx: Ctx, why: str) -> None:
    """No bank can be held now: the table waits for Start."""
    s = ctx.st
    s.phase, s.queue = IDLE, []
    ctx.emit(public("table_idle", reason=word(why)))


def remove_seat(ctx: Ctx, seat: Seat) -> None:
    """Stand a player up now; cards he held go to the used cards, his stack to his wallet."""
    s = ctx.st
    s.used += seat.cards
    seat.cards = []
    banking.cash_out(ctx, seat)
    s.seats.remove(seat)
    if seat.player in s.queue:
        s.queue.remove(seat.player)
    ctx.emit(public("player_left", player=who(seat.player)))


def end_bank(ctx: Ctx, why: str) -> None:
    """docs/rules.md §3.8: the banker takes the bank, cards are discarded, the bank passes left."""
    s = ctx.st
    banker = seat_of(s, s.banker)
    order = [x.player for x in clockwise_after(s, banker.player)]
    amount = s.bank
    ctx.move(BANK, stack(banker.player), amount, "bank_taken")
    ctx.emit(public("bank_ended", player=who(banker.player), amount=chips(amount),
                    reason=word(why)))
    for shoe in [s.shoe, *s.under]:
        if shoe is not None:
            ctx.emit(shoe_revealed(shoe.reveal()))
    for x in s.seats:
        x.cards, x.forbids = [], False
    s.shoe, s.under, s.used = None, [], []
    s.last_banker, s.banker, s.bank_start, s.staked = banker.player, None, 0, False
    for x in [x for x in s.seats if x.leaving]:
        remove_seat(ctx, x)
    offer_bank(ctx, [p for p in order if any(x.player == p for x in s.seats)])


# ------------------------------------------------------------------ rounds


def _draw(ctx: Ctx) -> str:
    """The next card: from the shoe, then from the gathered parts under it."""
    s = ctx.st
    assert s.shoe is not None
    if s.shoe.remaining == 0:
        ctx.emit(shoe_revealed(s.shoe.reveal()))
        s.shoe = s.under.pop(0)
    s.shoe, cards = s.shoe.deal(1)
    return cards[0]


def _gather(ctx: Ctx) -> None:
    """docs/rules.md §3.7: used cards are gathered, shuffled securely and put under the shoe.

    The gathered part is committed now and revealed once it is dealt out.
    """
    s = ctx.st
    if not s.used:
        return
    part = Shoe.shuffled_from(s.used, s.settings.decks, ctx.rng)
    s.under.append(part)
    s.used = []
    ctx.emit(public("shoe_extended", commitment=text(part.commitment),
                    cards=count(len(part.order), "card"), gathered_by=who(cutter(s))))


def deal_round(ctx: Ctx) -> None:
    """docs/rules.md §3.3, §3.7: three cards face down to every punter, one at a time, no shuffle.

    Decision: a punter whose stack is below the minimum stake sits the round out.
    """
    s = ctx.st
    punters = [x for x in clockwise_after(s, seat_of(s, s.banker).player)
               if not x.leaving and x.stack >= s.settings.min_stake]
    if not punters:
        end_bank(ctx, "no_punters")
        return
    if cards_left(s) < HAND * len(punters):
        _gather(ctx)
    for _ in range(HAND):
        for x in punters:
            card = _draw(ctx)
            x.cards.append(card)
            ctx.emit(private("card_dealt", [x.player], About.OWN_HAND, card=show(card),
                             cards=show(*x.cards)))
    ctx.emit(public("cards_dealt", players=who(*(x.player for x in punters)),
                    each=count(HAND, "card")))
    _gather(ctx)
    s.phase, s.queue = STAKING, [x.player for x in punters]
    advance_staking(ctx)


def advance_staking(ctx: Ctx) -> None:
    """The next punter of the round names his stake; after the last, a new round."""
    s = ctx.st
    s.phase = STAKING
    while s.queue:
        seat = seat_of(s, s.queue[0])
        if seat.cards and stake_bounds(s, seat)[1] > 0:
            if not s.coup_open:  # his coup begins: it is numbered now
                s.coup, s.coup_open = s.coup + 1, True
            return
        ctx.emit(public("stake_skipped", player=who(seat.player), reason=word("no_chips")))
        s.used += seat.cards
        seat.cards = []
        s.queue.pop(0)
    deal_round(ctx)


# -------------------------------------------------------------- the turn


def feats(s: State, punter: Seat, won: bool) -> dict[PlayerId, list[str]]:
    """What the coup counts for the punters beyond their nets, before it is paid:
    ``banco`` when the punter staked the whole bank (§3.4: "bank"), ``banco_won`` if his
    card won, ``joined`` for each player who joined his stake (§3.6). (``bank_broken``,
    for each who won on the card that empties the bank, is counted once it is paid.)"""
    out: dict[PlayerId, list[str]] = {j: ["joined"] for j in s.joiners if seat_of(s, j).stake}
    if punter.stake == s.bank:
        out[punter.player] = ["banco", "banco_won"] if won else ["banco"]
    return out


def turn_card(ctx: Ctx) -> None:
    """docs/rules.md §3.4, §3.5: turn the banker's top card; it covers the punter or pays him."""
    s = ctx.st
    p = seat_of(s, s.queue[0])
    card = _draw(ctx)
    won = punter_wins(card, p.cards)
    ctx.emit(public("card_turned", About.SHOWDOWN, punter=who(p.player), card=show(card)))
    # The punter's cards are shown: joiners have chips on them and must be able to check.
    ctx.emit(public("cards_shown", About.SHOWDOWN, player=who(p.player),
                    cards=show(*p.cards)))
    counted = feats(s, p, won)  # before the payment empties the stakes
    results: list[tuple[int, int]] = []
    for x in [p, *(seat_of(s, j) for j in s.joiners)]:
        if not x.stake:
            continue
        results.append((x.player, x.stake if won else -x.stake))
        if won:
            ctx.move(BANK, stack(x.player), x.stake, "won")
            ctx.move(stake(x.player), stack(x.player), x.stake, "stake_returned")
        else:
            ctx.move(stake(x.player), BANK, x.stake, "lost")
    # the banker's net too: the bank is his, and every result names what each won or lost
    assert s.banker is not None
    nets = dict(results) | {s.banker: -sum(b for _, b in results)}
    if s.bank >= BANK_LIMIT * s.bank_start:
        counted[s.banker] = ["bank_tripled"]  # docs/rules.md §3.8
    if s.bank == 0:
        # docs/rules.md §3.8: the bank is empty; each who won on this card broke it
        for a, _ in results:
            counted.setdefault(a, []).append("bank_broken")
    ctx.emit(settlement("coup_settled", coup=s.coup, nets=nets, banker=s.banker,
                        winners=[a for a, b in nets.items() if b > 0], feats=counted,
                        punter=who(p.player), card=show(card), won=flag(won),
                        bank=chips(s.bank),
                        results=rows(*(row(a, net=signed(b)) for a, b in results))))
    s.last = LastCoup(punter=p.player, card=card, cards=list(p.cards), won=won, results=results)
    s.coup_open = False
    s.used += [*p.cards, card]
    p.cards = []
    s.queue.pop(0)
    s.joiners, s.no_joining = [], False
    banker = seat_of(s, s.banker)
    # docs/rules.md §0.13: who has no cards left to play and not the minimum stake stands up
    banking.stand_up_broke(ctx, [x for x in s.seats if not x.cards], s.settings.min_stake,
                           spare=banker.player)
    for x in [x for x in s.seats if x.leaving and x is not banker]:
        remove_seat(ctx, x)
    if s.bank == 0:
        end_bank(ctx, "broken")
    elif s.bank >= BANK_LIMIT * s.bank_start:
        end_bank(ctx, "tripled")
    elif len(s.seats) < 2:
        end_bank(ctx, "no_punters")
    else:
        advance_staking(ctx)


def open_joining(ctx: Ctx) -> None:
    """After the stake: others may join (§3.6) until the punter turns; else turn at once."""
    s = ctx.st
    s.phase = JOINING
    if any(can_join(s, x) for x in s.seats):
        ctx.emit(public("joining_open", punter=who(s.queue[0])))
        return
    turn_card(ctx)

"""Twenty-one: the phases of a talia and of a coup, in the order they happen.

Every function here works on a private copy of the state made by the engine
and appends to its events and transfers; the chip fields of the state and
the transfers always change together.
"""

from __future__ import annotations

from games import banking
from games.banking import cutter, is_seated, seat_of
from games.cards import Shoe
from games.engine import (
    About,
    Hand,
    IllegalAction,
    PlayerId,
    Points,
    Reason,
    count,
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
    who,
    word,
)
from games.engine import cards as shown_cards
from games.table import left_of, seat_index
from games.twenty_one.model import (
    BANKER,
    BANKER_STANDS_ON,
    CARDS_PER_PLAYER,
    CUT,
    DRAWING,
    IDLE,
    MAX_BUYS,
    STAKING,
    Ctx,
    Result,
    Seat,
    State,
    capacity,
    dealing_order,
    is_natural,
    staked_seats,
    total,
)

# ------------------------------------------------------------ talia and coups


def _draw_first_banker(ctx: Ctx) -> None:
    """docs/rules.md §4.1 Decision: everyone draws one public card; the highest banks.

    The draw uses its own fresh shoe, committed before and revealed after.
    Suits do not matter and aces are high; players tied on the highest rank
    draw again among themselves, in seat order, from the same shoe.
    """
    s = ctx.st
    players = [x.player for x in s.seats]
    s.banker = banking.draw_for_bank(ctx, players, s.settings.decks, pick=max)
    ctx.emit(public("banker_chosen", player=who(s.banker)))


def _new_shoe(ctx: Ctx) -> None:
    """A new talia: shuffle, publish the commitment, wait for the cut (§0, §4.8)."""
    s = ctx.st
    s.shoe = Shoe.shuffled(s.settings.decks, ctx.rng)
    s.needs_cut = True
    s.discards = []
    assert s.banker is not None
    ctx.emit(public("shoe_committed", commitment=text(s.shoe.commitment), banker=who(s.banker)))
    s.phase = CUT
    s.queue = [cutter(s)]


def _end_talia(ctx: Ctx, successor: PlayerId | None) -> None:
    """The talia is over: reveal the shoe and hand the bank to ``successor`` (§4.8)."""
    s = ctx.st
    if s.shoe is not None:
        ctx.emit(shoe_revealed(s.shoe.reveal()))
    s.shoe = None
    s.discards = []
    s.needs_cut = False
    if successor != s.banker and successor is not None and s.banker is not None:
        ctx.emit(public("bank_passed", src=who(s.banker), dst=who(successor)))
    s.banker = successor


def _next_banker(s: State, after: PlayerId, exclude: set[PlayerId]) -> PlayerId | None:
    """The first player left of ``after`` who can cover a minimum stake twice (§4.1, §4.2)."""
    n = len(s.seats)
    start = seat_index(s.seats, after)
    for k in range(1, n + 1):
        x = s.seats[left_of(n, start, k)]
        if x.player not in exclude and not x.leaving and x.stack >= 2 * s.settings.min_stake:
            return x.player
    return None


def remove_seat(ctx: Ctx, seat: Seat) -> None:
    """Stand a player up now: cash out his stack; a leaving banker hands the bank left."""
    s = ctx.st
    if seat.player == s.banker:
        gone = {seat.player} | {x.player for x in s.seats if x.leaving}
        _end_talia(ctx, _next_banker(s, seat.player, gone))
    banking.cash_out(ctx, seat)
    s.seats.remove(seat)
    if seat.player in s.queue:
        s.queue.remove(seat.player)
    ctx.emit(public("player_left", player=who(seat.player)))


def go_idle(ctx: Ctx, why: str) -> None:
    """No coup can start (too few players, nobody can bank or stake): wait for Start."""
    s = ctx.st
    s.phase = IDLE
    s.queue = []
    ctx.emit(public("table_idle", reason=word(why)))


def resume(ctx: Ctx) -> None:
    """Go on to whatever comes next: a first banker, a new shoe, a cut or a coup."""
    s = ctx.st
    # docs/rules.md §0.13: a punter who cannot stake the minimum stands up
    banking.stand_up_broke(ctx, s.seats, s.settings.min_stake, spare=s.banker)
    for seat in [x for x in s.seats if x.leaving]:
        remove_seat(ctx, seat)
    if len(s.seats) < 2:
        go_idle(ctx, "not_enough_players")
        return
    if s.banker is None or not is_seated(s, s.banker):
        _draw_first_banker(ctx)
    banker = seat_of(s, s.banker)
    min_stake = s.settings.min_stake
    if banker.stack < 2 * min_stake or (
            s.shoe is not None and s.shoe.remaining < CARDS_PER_PLAYER * len(s.seats)):
        # docs/rules.md §4.8; Decision: a banker who can no longer cover a minimum stake
        # twice also ends his talia early.
        _end_talia(ctx, _next_banker(s, banker.player, set()))
        if s.banker is None:
            go_idle(ctx, "nobody_can_bank")
            return
    if s.shoe is None:
        _new_shoe(ctx)
        return
    if s.needs_cut:
        s.phase, s.queue = CUT, [cutter(s)]
        return
    queue = [x.player for x in dealing_order(s)
             if x.player != s.banker and x.stack >= min_stake]
    if not queue:
        go_idle(ctx, "nobody_can_stake")
        return
    s.coup += 1
    s.phase, s.queue, s.results = STAKING, queue, []
    ctx.emit(public("coup_started", coup=count(s.coup), banker=who(banker.player),
                    cards_left=count(s.shoe.remaining, "card")))


# ------------------------------------------------------------------- staking


def stake_bounds(s: State, seat: Seat) -> tuple[int, int]:
    """docs/rules.md §4.2: from the table minimum to what the stack and the banker cover."""
    return s.settings.min_stake, min(seat.stack, capacity(s))


def advance_staking(ctx: Ctx) -> None:
    """Next punter to stake; when all have decided, deal (or void a coup nobody staked on)."""
    s = ctx.st
    while s.queue:
        seat = seat_of(s, s.queue[0])
        lo, hi = stake_bounds(s, seat)
        if lo <= hi:
            return
        # The banker's cover is used up: the remaining punters sit out (§4.2).
        ctx.emit(public("stake_skipped", player=who(seat.player), reason=word("bank_covered")))
        s.queue.pop(0)
    if not any(x.stake for x in s.seats):
        ctx.emit(public("coup_void", coup=count(s.coup)))
        resume(ctx)
        return
    _deal(ctx)


# --------------------------------------------------------------------- deal


def _deal_one(ctx: Ctx, seat: Seat, kind: str, about: About = About.NOTHING) -> None:
    s = ctx.st
    assert s.shoe is not None
    s.shoe, cards = s.shoe.deal(1)
    seat.cards.append(cards[0])
    # his total (over 21: his bust) as his view's facts name it, for a step that settles
    # the coup too: no view of a settled coup tells it (§4.6: it is his alone till then)
    best = total(seat.cards)
    ctx.emit(private(kind, [seat.player], about, card=shown_cards(cards[0]),
                     cards=shown_cards(*seat.cards),
                     **{"bust" if best > 21 else "total": points(best, best > 21)}))


def _deal(ctx: Ctx) -> None:
    """docs/rules.md §4.3: two cards face down to each staking punter and the banker, one by one."""
    s = ctx.st
    hands = [x for x in dealing_order(s) if x.player == s.banker or x.stake > 0]
    for _ in range(2):
        for seat in hands:
            _deal_one(ctx, seat, "card_dealt", About.OWN_HAND)
    ctx.emit(public("cards_dealt", players=who(*(x.player for x in hands)),
                    each=count(2, "card")))
    banker = seat_of(s, s.banker)
    if is_natural(banker.cards):
        # docs/rules.md §4.4: the banker shows his 21 and takes every stake, 21s included.
        banker.shown = True
        ctx.emit(public("natural_shown", About.SHOWDOWN, player=who(banker.player),
                        cards=shown_cards(*banker.cards)))
        for seat in staked_seats(s):
            s.results.append(Result(player=seat.player, outcome="banker_21", net=-seat.stake))
            ctx.move(stake(seat.player), stack(banker.player), seat.stake, "banker_21")
        _settle(ctx, show=False)
        return
    for seat in staked_seats(s):
        if is_natural(seat.cards):
            # docs/rules.md §4.5: paid twice the stake at once, the stake handed back.
            seat.shown = seat.done = True
            ctx.emit(public("natural_shown", About.SHOWDOWN, player=who(seat.player),
                            cards=shown_cards(*seat.cards)))
            win = 2 * seat.stake
            ctx.move(stack(banker.player), stack(seat.player), win, "punter_21")
            ctx.move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
            s.results.append(Result(player=seat.player, outcome="natural", net=win,
                                    cards=list(seat.cards)))
    s.queue = [x.player for x in staked_seats(s) if not x.done]
    s.phase = DRAWING
    advance_drawing(ctx)


# ------------------------------------------------------------------ drawing


def advance_drawing(ctx: Ctx) -> None:
    """Next punter to buy; then the banker; then the showdown (§4.6)."""
    s = ctx.st
    if s.phase == DRAWING and s.queue:
        return
    live = [x for x in staked_seats(s) if not x.shown and total(x.cards) <= 21]
    banker = seat_of(s, s.banker)
    if s.phase == DRAWING and live and not banker.done:
        # Decision: the banker buys only when some punter still stands un-bust;
        # otherwise buying could only lose him the busted punters' stakes (§4.7).
        s.phase, s.queue = BANKER, [banker.player]
        return
    _settle(ctx)


def buy(ctx: Ctx, seat: Seat) -> None:
    """One more card face down to ``seat`` (§4.6); the third bought card ends his turn."""
    if seat.bought >= MAX_BUYS or total(seat.cards) >= 21:
        # A bust or 21 leaves only Stand, so the group cannot tell a bust early (§4.6).
        raise IllegalAction(Reason.CANNOT_DRAW)
    seat.bought += 1
    _deal_one(ctx, seat, "card_bought", About.OWN_HAND)
    # Public: only that a card was bought, never the card or a bust (§4.6).
    ctx.emit(public("card_bought", player=who(seat.player), bought=count(seat.bought)))
    if seat.bought == MAX_BUYS:
        stand(ctx, seat)


def stand(ctx: Ctx, seat: Seat) -> None:
    """``seat`` stops buying; his turn passes on."""
    s = ctx.st
    seat.done = True
    if s.queue and s.queue[0] == seat.player:
        s.queue.pop(0)
    ctx.emit(public("stood", player=who(seat.player), cards=count(len(seat.cards), "card")))


def banker_should_buy(cards: list[str], bought: int) -> bool:
    """The banker's safe default (Decision): buy while the total is 16 or less."""
    return bought < MAX_BUYS and total(cards) < BANKER_STANDS_ON


# --------------------------------------------------------------- settlement


def _points(cards: list[str]) -> Points:
    """A hand's total as a showdown and a settlement tell it: over 21 it is a bust."""
    n = total(cards)
    return points(n, n > 21)


def feats(cards: list[str]) -> list[str]:
    """What a hand shown at the settlement counts beyond its net: ``natural`` (21 on two
    cards, §4.4–4.5), ``bust`` (over 21, §4.6), ``three_sevens`` (21 of three sevens, the
    old game's lucky hand) and ``five_card_21`` (21 on five cards: two and three bought)."""
    n = total(cards)
    return [name for name, held in (
        ("natural", is_natural(cards)), ("bust", n > 21),
        ("three_sevens", len(cards) == 3 and all(c[0] == "7" for c in cards)),
        ("five_card_21", len(cards) == 5 and n == 21)) if held]


def _settle(ctx: Ctx, show: bool = True) -> None:
    """Showdown and docs/rules.md §4.7, then the next coup.

    After a banker's 21 (``show=False``) the punters' cards stay hidden: the
    rules never turn them up (§4.4).
    """
    s = ctx.st
    banker = seat_of(s, s.banker)
    if show:
        hands = [x for x in dealing_order(s) if x.cards]
        ctx.emit(public("hands_shown", About.SHOWDOWN, hands=rows(*(
            row(x.player, cards=shown_cards(*x.cards), total=_points(x.cards)) for x in hands))))
    bank_total = total(banker.cards)
    banker_bust = bank_total > 21
    for seat in staked_seats(s):
        if not seat.stake:
            continue  # already settled by a 21 (§4.4, §4.5)
        mine = total(seat.cards)
        if banker_bust:
            # docs/rules.md §4.7 Decision: bust banker pays double; a busted punter is refunded.
            outcome, net = ("both_bust", 0) if mine > 21 else ("banker_bust", 2 * seat.stake)
        elif mine > 21:
            outcome, net = "bust", -seat.stake
        elif mine > bank_total:
            outcome, net = "win", seat.stake
        elif mine < bank_total:
            outcome, net = "lose", -seat.stake
        else:
            outcome, net = "push", 0
        if net < 0:
            ctx.move(stake(seat.player), stack(banker.player), seat.stake, outcome)
        else:
            ctx.move(stack(banker.player), stack(seat.player), net, outcome)
            ctx.move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
        s.results.append(Result(player=seat.player, outcome=outcome, net=net,
                                cards=list(seat.cards)))
    nets = {r.player: r.net for r in s.results} | {
        banker.player: -sum(r.net for r in s.results)}
    # the totals for the headline: the banker's is always shown; the punters' only when
    # their cards were turned up (after a banker's 21 they stay hidden, §4.4)
    totals: dict[PlayerId, Hand | Points] = {
        r.player: _points(r.cards) for r in s.results if show}
    totals[banker.player] = _points(banker.cards)
    shown = [(r.player, r.cards) for r in s.results if show] + [(banker.player, banker.cards)]
    ctx.emit(settlement("coup_settled", coup=s.coup, nets=nets, banker=banker.player,
                        hands=totals, winners=[p for p, n in nets.items() if n > 0],
                        feats={p: feats(held) for p, held in shown},
                        results=rows(*(row(r.player, outcome=word(r.outcome),
                                           net=signed(r.net)) for r in s.results))))
    for x in s.seats:
        s.discards = [*s.discards, *x.cards]
        x.cards, x.bought, x.shown, x.done, x.stake = [], 0, False, False, 0
    s.last_results, s.results, s.queue = s.results, [], []
    resume(ctx)


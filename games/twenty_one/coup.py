"""Twenty-one: the phases of a talia and of a coup, in the order they happen.

Every function here works on a private copy of the state made by the engine
and appends to its events and transfers; the chip fields of the state and
the transfers always change together.
"""

from __future__ import annotations

import random

from games import banking
from games.cards import Shoe
from games.engine import (
    IllegalAction,
    PlayerId,
    Reason,
    private,
    public,
    settlement,
    shoe_revealed,
    stack,
    stake,
)
from games.table import cash_out_transfers, left_of, move, seat_index
from games.twenty_one.model import (
    BANKER,
    BANKER_STANDS_ON,
    CARDS_PER_PLAYER,
    CUT,
    DRAWING,
    IDLE,
    MAX_BUYS,
    STAKING,
    Events,
    Result,
    Seat,
    State,
    Transfers,
    capacity,
    cutter,
    dealing_order,
    is_natural,
    is_seated,
    seat_of,
    staked_seats,
    total,
)

# ------------------------------------------------------------ talia and coups


def _draw_first_banker(s: State, ev: Events, rng: random.Random | None) -> None:
    """docs/rules.md §4.1 Decision: everyone draws one public card; the highest banks.

    The draw uses its own fresh shoe, committed before and revealed after.
    Suits do not matter and aces are high; players tied on the highest rank
    draw again among themselves, in seat order, from the same shoe.
    """
    players = [x.player for x in s.seats]
    s.banker = banking.draw_for_bank(players, s.settings.decks, rng, ev, pick=max)
    ev.append(public("banker_chosen", player=s.banker))


def _new_shoe(s: State, ev: Events, rng: random.Random | None) -> None:
    """A new talia: shuffle, publish the commitment, wait for the cut (§0, §4.8)."""
    s.shoe = Shoe.shuffled(s.settings.decks, rng)
    s.needs_cut = True
    s.discards = []
    ev.append(public("shoe_committed", commitment=s.shoe.commitment, banker=s.banker))
    s.phase = CUT
    s.queue = [cutter(s)]


def _end_talia(s: State, ev: Events, successor: PlayerId | None) -> None:
    """The talia is over: reveal the shoe and hand the bank to ``successor`` (§4.8)."""
    if s.shoe is not None:
        ev.append(shoe_revealed(**s.shoe.reveal()))
    s.shoe = None
    s.discards = []
    s.needs_cut = False
    if successor != s.banker and successor is not None:
        ev.append(public("bank_passed", src=s.banker, dst=successor))
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


def remove_seat(s: State, seat: Seat, tr: Transfers, ev: Events) -> None:
    """Stand a player up now: cash out his stack; a leaving banker hands the bank left."""
    if seat.player == s.banker:
        gone = {seat.player} | {x.player for x in s.seats if x.leaving}
        _end_talia(s, ev, _next_banker(s, seat.player, gone))
    tr += cash_out_transfers(seat.player, seat.stack)
    s.seats.remove(seat)
    if seat.player in s.queue:
        s.queue.remove(seat.player)
    ev.append(public("player_left", player=seat.player))


def go_idle(s: State, ev: Events, why: str) -> None:
    """No coup can start (too few players, nobody can bank or stake): wait for Start."""
    s.phase = IDLE
    s.queue = []
    ev.append(public("table_idle", reason=why))


def resume(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """Go on to whatever comes next: a first banker, a new shoe, a cut or a coup."""
    for seat in [x for x in s.seats if x.leaving]:
        remove_seat(s, seat, tr, ev)
    if len(s.seats) < 2:
        go_idle(s, ev, "not_enough_players")
        return
    if s.banker is None or not is_seated(s, s.banker):
        _draw_first_banker(s, ev, rng)
    banker = seat_of(s, s.banker)
    min_stake = s.settings.min_stake
    if banker.stack < 2 * min_stake or (
            s.shoe is not None and s.shoe.remaining < CARDS_PER_PLAYER * len(s.seats)):
        # docs/rules.md §4.8; Decision: a banker who can no longer cover a minimum stake
        # twice also ends his talia early.
        _end_talia(s, ev, _next_banker(s, banker.player, set()))
        if s.banker is None:
            go_idle(s, ev, "nobody_can_bank")
            return
    if s.shoe is None:
        _new_shoe(s, ev, rng)
        return
    if s.needs_cut:
        s.phase, s.queue = CUT, [cutter(s)]
        return
    queue = [x.player for x in dealing_order(s)
             if x.player != s.banker and x.stack >= min_stake]
    if not queue:
        go_idle(s, ev, "nobody_can_stake")
        return
    s.coup += 1
    s.phase, s.queue, s.results = STAKING, queue, []
    ev.append(public("coup_started", coup=s.coup, banker=s.banker, cards_left=s.shoe.remaining))


# ------------------------------------------------------------------- staking


def stake_bounds(s: State, seat: Seat) -> tuple[int, int]:
    """docs/rules.md §4.2: from the table minimum to what the stack and the banker cover."""
    return s.settings.min_stake, min(seat.stack, capacity(s))


def advance_staking(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """Next punter to stake; when all have decided, deal (or void a coup nobody staked on)."""
    while s.queue:
        seat = seat_of(s, s.queue[0])
        lo, hi = stake_bounds(s, seat)
        if lo <= hi:
            return
        # The banker's cover is used up: the remaining punters sit out (§4.2).
        ev.append(public("stake_skipped", player=seat.player, reason="bank_covered"))
        s.queue.pop(0)
    if not any(x.stake for x in s.seats):
        ev.append(public("coup_void", coup=s.coup))
        resume(s, ev, tr, rng)
        return
    _deal(s, ev, tr, rng)


# --------------------------------------------------------------------- deal


def _deal_one(s: State, seat: Seat, ev: Events, kind: str) -> None:
    assert s.shoe is not None
    s.shoe, cards = s.shoe.deal(1)
    seat.cards.append(cards[0])
    ev.append(private(kind, to=[seat.player], card=cards[0], cards=list(seat.cards)))


def _deal(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """docs/rules.md §4.3: two cards face down to each staking punter and the banker, one by one."""
    hands = [x for x in dealing_order(s) if x.player == s.banker or x.stake > 0]
    for _ in range(2):
        for seat in hands:
            _deal_one(s, seat, ev, "card_dealt")
    ev.append(public("cards_dealt", players=[x.player for x in hands], each=2))
    banker = seat_of(s, s.banker)
    if is_natural(banker.cards):
        # docs/rules.md §4.4: the banker shows his 21 and takes every stake, 21s included.
        banker.shown = True
        ev.append(public("natural_shown", player=banker.player, cards=list(banker.cards)))
        for seat in staked_seats(s):
            tr += move(stake(seat.player), stack(banker.player), seat.stake, "banker_21")
            banker.stack += seat.stake
            s.results.append(Result(player=seat.player, outcome="banker_21", net=-seat.stake))
            seat.stake = 0
        _settle(s, ev, tr, rng, show=False)
        return
    for seat in staked_seats(s):
        if is_natural(seat.cards):
            # docs/rules.md §4.5: paid twice the stake at once, the stake handed back.
            seat.shown = seat.done = True
            ev.append(public("natural_shown", player=seat.player, cards=list(seat.cards)))
            win = 2 * seat.stake
            tr += move(stack(banker.player), stack(seat.player), win, "punter_21")
            tr += move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
            banker.stack -= win
            seat.stack += win + seat.stake
            s.results.append(Result(player=seat.player, outcome="natural", net=win,
                                    cards=list(seat.cards)))
            seat.stake = 0
    s.queue = [x.player for x in staked_seats(s) if not x.done]
    s.phase = DRAWING
    advance_drawing(s, ev, tr, rng)


# ------------------------------------------------------------------ drawing


def advance_drawing(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """Next punter to buy; then the banker; then the showdown (§4.6)."""
    if s.phase == DRAWING and s.queue:
        return
    live = [x for x in staked_seats(s) if not x.shown and total(x.cards) <= 21]
    banker = seat_of(s, s.banker)
    if s.phase == DRAWING and live and not banker.done:
        # Decision: the banker buys only when some punter still stands un-bust;
        # otherwise buying could only lose him the busted punters' stakes (§4.7).
        s.phase, s.queue = BANKER, [banker.player]
        return
    _settle(s, ev, tr, rng)


def buy(s: State, seat: Seat, ev: Events) -> None:
    """One more card face down to ``seat`` (§4.6); the third bought card ends his turn."""
    if seat.bought >= MAX_BUYS or total(seat.cards) >= 21:
        # A bust or 21 leaves only Stand, so the group cannot tell a bust early (§4.6).
        raise IllegalAction(Reason.CANNOT_DRAW)
    seat.bought += 1
    _deal_one(s, seat, ev, "card_bought")
    # Public: only that a card was bought, never the card or a bust (§4.6).
    ev.append(public("card_bought", player=seat.player, bought=seat.bought))
    if seat.bought == MAX_BUYS:
        stand(s, seat, ev)


def stand(s: State, seat: Seat, ev: Events) -> None:
    """``seat`` stops buying; his turn passes on."""
    seat.done = True
    if s.queue and s.queue[0] == seat.player:
        s.queue.pop(0)
    ev.append(public("stood", player=seat.player, cards=len(seat.cards)))


def banker_should_buy(cards: list[str], bought: int) -> bool:
    """The banker's safe default (Decision): buy while the total is 16 or less."""
    return bought < MAX_BUYS and total(cards) < BANKER_STANDS_ON


# --------------------------------------------------------------- settlement


def _settle(s: State, ev: Events, tr: Transfers, rng: random.Random | None,
            show: bool = True) -> None:
    """Showdown and docs/rules.md §4.7, then the next coup.

    After a banker's 21 (``show=False``) the punters' cards stay hidden: the
    rules never turn them up (§4.4).
    """
    banker = seat_of(s, s.banker)
    if show:
        hands = [x for x in dealing_order(s) if x.cards]
        ev.append(public("hands_shown", hands=[
            {"player": x.player, "cards": list(x.cards), "total": total(x.cards)}
            for x in hands]))
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
            tr += move(stake(seat.player), stack(banker.player), seat.stake, outcome)
            banker.stack += seat.stake
        else:
            tr += move(stack(banker.player), stack(seat.player), net, outcome)
            tr += move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
            banker.stack -= net
            seat.stack += net + seat.stake
        seat.stake = 0
        s.results.append(Result(player=seat.player, outcome=outcome, net=net,
                                cards=list(seat.cards)))
    banker_net = -sum(r.net for r in s.results)
    ev.append(settlement("coup_settled", coup=s.coup, banker=banker.player, banker_net=banker_net,
                     banker_total=bank_total,
                     results=[r.model_dump(exclude={"cards"}) for r in s.results]))
    for x in s.seats:
        s.discards = [*s.discards, *x.cards]
        x.cards, x.bought, x.shown, x.done, x.stake = [], 0, False, False, 0
    s.last_results, s.results, s.queue = s.results, [], []
    resume(s, ev, tr, rng)


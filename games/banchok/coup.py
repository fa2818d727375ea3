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

import random

from games import banking
from games.banchok.model import (
    BANK_LIMIT,
    CUT,
    HAND,
    IDLE,
    JOINING,
    POST,
    STAKING,
    Events,
    LastCoup,
    Seat,
    State,
    Transfers,
    can_join,
    cards_left,
    clockwise_after,
    cutter,
    punter_wins,
    seat_of,
    stake_bounds,
)
from games.cards import Shoe
from games.engine import BANK, PlayerId, private, public, settlement, shoe_revealed, stack, stake
from games.table import cash_out_transfers, move

# -------------------------------------------------------------- who banks


def draw_first_banker(s: State, ev: Events, rng: random.Random | None) -> PlayerId:
    """docs/rules.md §3.1: everyone draws a public card; the lowest posts the first bank.

    2 is lowest and the ace highest; suits do not matter. Decision: players
    tied on the lowest rank draw again among themselves, in seat order, from
    the same fresh shoe, which is committed before and revealed after.
    """
    players = [x.player for x in s.seats]
    return banking.draw_for_bank(players, s.settings.decks, rng, ev, pick=min)


def offer_bank(s: State, ev: Events, candidates: list[PlayerId]) -> None:
    """Offer the bank to ``candidates`` in order (§3.8): each posts it or leaves."""
    s.phase, s.queue = POST, [p for p in candidates if p != s.last_banker]
    advance_post(s, ev)


def advance_post(s: State, ev: Events) -> None:
    """Skip those who cannot post the bank; nobody left: the table waits (idle)."""
    if len(s.seats) < 2:
        go_idle(s, ev, "not_enough_players")
        return
    while s.queue:
        seat = seat_of(s, s.queue[0])
        if seat.stack >= s.settings.bank and not seat.leaving:
            ev.append(public("bank_offered", player=seat.player, amount=s.settings.bank))
            return
        # Decision: a player who cannot afford the bank is passed over, not sent away.
        ev.append(public("bank_skipped", player=seat.player, reason="insufficient_chips"))
        s.queue.pop(0)
    go_idle(s, ev, "nobody_can_bank")


def post_bank(s: State, seat: Seat, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """docs/rules.md §3.1, §3.2: the new banker posts the bank and shuffles; his right cuts."""
    amount = s.settings.bank
    tr += move(stack(seat.player), BANK, amount, "bank_posted")
    seat.stack -= amount
    s.banker, s.bank, s.bank_start = seat.player, amount, amount
    for x in s.seats:
        x.forbids = False  # the bank changed hands (§3.6)
    ev.append(public("bank_posted", player=seat.player, amount=amount))
    s.shoe = Shoe.shuffled(s.settings.decks, rng)
    s.under, s.used = [], []
    ev.append(public("shoe_committed", commitment=s.shoe.commitment, banker=s.banker))
    s.phase, s.queue = CUT, [cutter(s)]


def go_idle(s: State, ev: Events, why: str) -> None:
    """No bank can be held now: the table waits for Start."""
    s.phase, s.queue = IDLE, []
    ev.append(public("table_idle", reason=why))


def remove_seat(s: State, seat: Seat, tr: Transfers, ev: Events) -> None:
    """Stand a player up now; cards he held go to the used cards, his stack to his wallet."""
    s.used += seat.cards
    seat.cards = []
    tr += cash_out_transfers(seat.player, seat.stack)
    s.seats.remove(seat)
    if seat.player in s.queue:
        s.queue.remove(seat.player)
    ev.append(public("player_left", player=seat.player))


def end_bank(s: State, ev: Events, tr: Transfers, why: str) -> None:
    """docs/rules.md §3.8: the banker takes the bank, cards are discarded, the bank passes left."""
    banker = seat_of(s, s.banker)
    order = [x.player for x in clockwise_after(s, banker.player)]
    tr += move(BANK, stack(banker.player), s.bank, "bank_taken")
    banker.stack += s.bank
    ev.append(public("bank_ended", player=banker.player, amount=s.bank, reason=why))
    for shoe in [s.shoe, *s.under]:
        if shoe is not None:
            ev.append(shoe_revealed(**shoe.reveal()))
    for x in s.seats:
        x.cards, x.forbids = [], False
    s.shoe, s.under, s.used = None, [], []
    s.last_banker, s.banker, s.bank, s.bank_start = banker.player, None, 0, 0
    for x in [x for x in s.seats if x.leaving]:
        remove_seat(s, x, tr, ev)
    offer_bank(s, ev, [p for p in order if any(x.player == p for x in s.seats)])


# ------------------------------------------------------------------ rounds


def _draw(s: State, ev: Events) -> str:
    """The next card: from the shoe, then from the gathered parts under it."""
    assert s.shoe is not None
    if s.shoe.remaining == 0:
        ev.append(shoe_revealed(**s.shoe.reveal()))
        s.shoe = s.under.pop(0)
    s.shoe, cards = s.shoe.deal(1)
    return cards[0]


def _gather(s: State, ev: Events, rng: random.Random | None) -> None:
    """docs/rules.md §3.7: used cards are gathered, shuffled securely and put under the shoe.

    The gathered part is committed now and revealed once it is dealt out.
    """
    if not s.used:
        return
    part = Shoe.shuffled_from(s.used, s.settings.decks, rng)
    s.under.append(part)
    s.used = []
    ev.append(public("shoe_extended", commitment=part.commitment, cards=len(part.order),
                     gathered_by=cutter(s)))


def deal_round(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """docs/rules.md §3.3, §3.7: three cards face down to every punter, one at a time, no shuffle.

    Decision: a punter whose stack is below the minimum stake sits the round out.
    """
    punters = [x for x in clockwise_after(s, seat_of(s, s.banker).player)
               if not x.leaving and x.stack >= s.settings.min_stake]
    if not punters:
        end_bank(s, ev, tr, "no_punters")
        return
    if cards_left(s) < HAND * len(punters):
        _gather(s, ev, rng)
    for _ in range(HAND):
        for x in punters:
            card = _draw(s, ev)
            x.cards.append(card)
            ev.append(private("card_dealt", to=[x.player], card=card, cards=list(x.cards)))
    ev.append(public("cards_dealt", players=[x.player for x in punters], each=HAND))
    _gather(s, ev, rng)
    s.phase, s.queue = STAKING, [x.player for x in punters]
    advance_staking(s, ev, tr, rng)


def advance_staking(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """The next punter of the round names his stake; after the last, a new round."""
    s.phase = STAKING
    while s.queue:
        seat = seat_of(s, s.queue[0])
        if seat.cards and stake_bounds(s, seat)[1] > 0:
            return
        ev.append(public("stake_skipped", player=seat.player, reason="no_chips"))
        s.used += seat.cards
        seat.cards = []
        s.queue.pop(0)
    deal_round(s, ev, tr, rng)


# -------------------------------------------------------------- the turn


def turn_card(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """docs/rules.md §3.4, §3.5: turn the banker's top card; it covers the punter or pays him."""
    p = seat_of(s, s.queue[0])
    card = _draw(s, ev)
    s.coup += 1
    won = punter_wins(card, p.cards)
    ev.append(public("card_turned", punter=p.player, card=card))
    # The punter's cards are shown: joiners have chips on them and must be able to check.
    ev.append(public("cards_shown", player=p.player, cards=list(p.cards)))
    results: list[tuple[int, int]] = []
    for x in [p, *(seat_of(s, j) for j in s.joiners)]:
        if not x.stake:
            continue
        if won:
            tr += move(BANK, stack(x.player), x.stake, "won")
            tr += move(stake(x.player), stack(x.player), x.stake, "stake_returned")
            s.bank -= x.stake
            x.stack += 2 * x.stake
            results.append((x.player, x.stake))
        else:
            tr += move(stake(x.player), BANK, x.stake, "lost")
            s.bank += x.stake
            results.append((x.player, -x.stake))
        x.stake = 0
    ev.append(settlement("coup_settled", coup=s.coup, punter=p.player, card=card, won=won,
                     bank=s.bank, results=[{"player": a, "net": b} for a, b in results]))
    s.last = LastCoup(punter=p.player, card=card, cards=list(p.cards), won=won, results=results)
    s.used += [*p.cards, card]
    p.cards = []
    s.queue.pop(0)
    s.joiners, s.no_joining = [], False
    banker = seat_of(s, s.banker)
    for x in [x for x in s.seats if x.leaving and x is not banker]:
        remove_seat(s, x, tr, ev)
    if s.bank == 0:
        end_bank(s, ev, tr, "broken")
    elif s.bank >= BANK_LIMIT * s.bank_start:
        end_bank(s, ev, tr, "tripled")
    elif banker.leaving:
        end_bank(s, ev, tr, "banker_left")
    elif len(s.seats) < 2:
        end_bank(s, ev, tr, "no_punters")
    else:
        advance_staking(s, ev, tr, rng)


def open_joining(s: State, ev: Events, tr: Transfers, rng: random.Random | None) -> None:
    """After the stake: others may join (§3.6) until the punter turns; else turn at once."""
    s.phase = JOINING
    if any(can_join(s, x) for x in s.seats):
        ev.append(public("joining_open", punter=s.queue[0]))
        return
    turn_card(s, ev, tr, rng)

"""One coup of old Russian baccarat (docs/rules.md §2.4–2.8): deal, naturals, third cards, payment.

Every function here works on a private copy of the state (the engine copies
before calling) and appends to the step's events and transfers.

Seats are clockwise in join order; with the banker at index ``b`` of ``n``:

* first round (clockwise): ``b+1, b+2, ..., b+n-1``, then the banker ``b``;
* second round (counter-clockwise): ``b-1, b-2, ..., b-n+1``, then ``b``
  (indexes modulo ``n``, punters without a stake skipped; docs/rules.md §2.4);
* third cards: the first staking punter to the banker's right (``b-1``
  side), the first to his left (``b+1`` side), the second to the right, the
  second to the left, ... until every staking punter has had his turn
  (docs/rules.md §2.7).
"""

from __future__ import annotations

from games.baccarat.state import BaccaratSeat, BaccaratState
from games.cards import hand_points
from games.engine import BANK, POT, Event, PlayerId, Transfer, private, public, stack, stake
from games.table import left_of, move, right_of

NATURALS = (8, 9)


def seat_of(st: BaccaratState, player: PlayerId) -> BaccaratSeat:
    """The seat of ``player`` (who is known to be seated)."""
    return next(s for s in st.seats if s.player == player)


def banker_index(st: BaccaratState) -> int:
    """Index of the banker's seat."""
    return next(i for i, s in enumerate(st.seats) if s.player == st.banker)


def stakers(st: BaccaratState) -> list[BaccaratSeat]:
    """Punters holding a stake this coup, clockwise from the banker's left."""
    b, n = banker_index(st), len(st.seats)
    seats = [st.seats[left_of(n, b, k)] for k in range(1, n)]
    return [s for s in seats if s.stake > 0]


def dealing_rounds(st: BaccaratState) -> tuple[list[PlayerId], list[PlayerId]]:
    """Who gets a card in each round, the banker last (docs/rules.md §2.4)."""
    b, n = banker_index(st), len(st.seats)
    assert st.banker is not None
    first = [st.seats[left_of(n, b, k)] for k in range(1, n)]
    second = [st.seats[right_of(n, b, k)] for k in range(1, n)]
    return ([s.player for s in first if s.stake > 0] + [st.banker],
            [s.player for s in second if s.stake > 0] + [st.banker])


def third_card_order(st: BaccaratState) -> list[PlayerId]:
    """Right 1, left 1, right 2, left 2, ... among staking punters (docs/rules.md §2.7)."""
    lefts = [s.player for s in stakers(st)]
    rights = list(reversed(lefts))
    order: list[PlayerId] = []
    for right, left in zip(rights, lefts, strict=True):
        for p in (right, left):
            if p not in order:
                order.append(p)
    return order


def deal(st: BaccaratState, events: list[Event]) -> None:
    """Two cards to every staking punter and the banker, face down (docs/rules.md §2.4)."""
    assert st.shoe is not None
    first, second = dealing_rounds(st)
    for round_ in (first, second):
        for p in round_:
            st.shoe, cards = st.shoe.deal(1)
            seat_of(st, p).cards.extend(cards)
    st.deal_order = first[:-1]
    events.append(public("cards_dealt", first_round=first, second_round=second))
    for p in first:
        events.append(private("cards_received", to=[p], player=p, cards=seat_of(st, p).cards))


def show_naturals(st: BaccaratState, events: list[Event]) -> bool:
    """Turn every 8 and 9 face up right after the deal; True if there was one (§2.5)."""
    found = False
    for p in [*st.deal_order, st.banker]:
        seat = seat_of(st, p) if p is not None else None
        if seat is not None and hand_points(seat.cards) in NATURALS:
            seat.shown = True
            found = True
            events.append(public("natural_shown", player=seat.player, cards=list(seat.cards),
                                 points=hand_points(seat.cards)))
    return found


def _win_double(seat: BaccaratSeat, out: list[Transfer]) -> int:
    """The punter takes back his stake and twice his stake from the bank; his net gain."""
    out += move(stake(seat.player), stack(seat.player), seat.stake, "stake_returned")
    out += move(BANK, stack(seat.player), 2 * seat.stake, "bank_pays_double")
    return 2 * seat.stake


def _lose(seat: BaccaratSeat, out: list[Transfer], to: str = BANK) -> int:
    out += move(stake(seat.player), to, seat.stake, "stake_lost")
    return -seat.stake


def settle_naturals(st: BaccaratState) -> tuple[list[Transfer], list[dict[str, object]]]:
    """Pay a coup decided by naturals (docs/rules.md §2.5); transfers and per-punter results.

    9 beats 8; the banker wins ties with a punter.
    """
    banker = seat_of(st, st.banker) if st.banker is not None else None
    assert banker is not None
    bp = hand_points(banker.cards)
    punters = [seat_of(st, p) for p in st.deal_order]
    naturals = [hand_points(s.cards) for s in punters if hand_points(s.cards) in NATURALS]
    best = max(naturals, default=0)
    out: list[Transfer] = []
    results: list[dict[str, object]] = []
    if bp in NATURALS and bp >= best:
        # Banker has the best natural at the table: he takes all stakes.
        for s in punters:
            results.append({"player": s.player, "stake": s.stake, "outcome": "banker_natural",
                            "net": _lose(s, out)})
        return out, results
    if bp in NATURALS:
        # Banker has 8, some punters 9: they are paid double; the banker takes the rest.
        for s in punters:
            if hand_points(s.cards) == best:
                results.append({"player": s.player, "stake": s.stake, "outcome": "natural_win",
                                "net": _win_double(s, out)})
            else:
                results.append({"player": s.player, "stake": s.stake, "outcome": "natural_loss",
                                "net": _lose(s, out)})
        return out, results
    # Banker has no natural: the best natural(s) are paid double by the bank and
    # share every other stake equally; the remainder goes to the first of them in
    # dealing order (docs/rules.md §2.5, Decision).
    winners = [s for s in punters if hand_points(s.cards) == best]
    losers = [s for s in punters if hand_points(s.cards) != best]
    pool = sum(s.stake for s in losers)
    share, rest = divmod(pool, len(winners))
    for s in losers:
        out += move(stake(s.player), POT, s.stake, "stake_to_natural")
    gains: dict[PlayerId, int] = {}
    for i, s in enumerate(winners):
        gain = _win_double(s, out)
        extra = share + (rest if i == 0 else 0)
        out += move(POT, stack(s.player), extra, "stakes_shared")
        gains[s.player] = gain + extra
    for s in punters:
        if s.player in gains:
            results.append({"player": s.player, "stake": s.stake, "outcome": "natural_win",
                            "net": gains[s.player]})
        else:
            results.append({"player": s.player, "stake": s.stake, "outcome": "natural_loss",
                            "net": -s.stake})
    return out, results


def settle_showdown(st: BaccaratState) -> tuple[list[Transfer], list[dict[str, object]]]:
    """Each punter against the banker on his own stake (docs/rules.md §2.8)."""
    assert st.banker is not None
    bp = hand_points(seat_of(st, st.banker).cards)
    out: list[Transfer] = []
    results: list[dict[str, object]] = []
    for p in st.deal_order:
        s = seat_of(st, p)
        if s.declared:
            continue
        pp = hand_points(s.cards)
        if pp == 6 and bp == 6:
            # Stake + the banker's double (3 × stake) shared equally; odd chip to the banker.
            punter_share = (3 * s.stake) // 2
            out += move(stake(p), stack(p), s.stake, "stake_returned")
            out += move(BANK, stack(p), punter_share - s.stake, "six_six_share")
            outcome, net = "six_six_split", punter_share - s.stake
        elif bp >= pp:
            outcome = "tie_loss" if bp == pp else "loss"
            net = _lose(s, out)
        else:
            outcome, net = "win", _win_double(s, out)
        results.append({"player": p, "stake": s.stake, "outcome": outcome, "net": net,
                        "points": pp})
    return out, results

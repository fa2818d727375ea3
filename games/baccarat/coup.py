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

from typing import NamedTuple

from games.baccarat.model import BaccaratSeat, BaccaratState, Ctx
from games.banking import seat_of
from games.cards import hand_points
from games.engine import (
    BANK,
    POT,
    About,
    PlayerId,
    Row,
    cards,
    chips,
    points,
    private,
    public,
    row,
    signed,
    stack,
    stake,
    who,
    word,
)
from games.table import left_of, right_of, seat_index

NATURALS = (8, 9)


class Result(NamedTuple):
    """One punter's result in a settled coup: his ``stake``, how it went (``outcome``, a
    word of the texts), his ``net`` and, at a showdown, his ``points``."""

    player: PlayerId
    stake: int
    outcome: str
    net: int
    points: int | None = None

    def line(self) -> Row:
        """His line of the settlement's ``results``."""
        extra = {} if self.points is None else {"points": points(self.points)}
        return row(self.player, stake=chips(self.stake), outcome=word(self.outcome),
                   net=signed(self.net), **extra)


def banker_index(st: BaccaratState) -> int:
    """Index of the banker's seat."""
    return seat_index(st.seats, seat_of(st, st.banker).player)


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


def deal(ctx: Ctx) -> None:
    """Two cards to every staking punter and the banker, face down (docs/rules.md §2.4)."""
    st = ctx.st
    assert st.shoe is not None
    first, second = dealing_rounds(st)
    for round_ in (first, second):
        for p in round_:
            st.shoe, dealt = st.shoe.deal(1)
            seat_of(st, p).cards.extend(dealt)
    st.deal_order = first[:-1]
    ctx.emit(public("cards_dealt", first_round=who(*first), second_round=who(*second)))
    for p in first:
        hand = seat_of(st, p).cards
        ctx.emit(private("cards_received", to=[p], about=About.OWN_HAND, player=who(p),
                         cards=cards(*hand), points=points(hand_points(hand))))


def show_naturals(ctx: Ctx) -> bool:
    """Turn every 8 and 9 face up right after the deal; True if there was one (§2.5)."""
    st = ctx.st
    found = False
    for p in [*st.deal_order, st.banker]:
        seat = seat_of(st, p) if p is not None else None
        if seat is not None and hand_points(seat.cards) in NATURALS:
            seat.shown = True
            found = True
            ctx.emit(public("natural_shown", about=About.SHOWDOWN, player=who(seat.player),
                            cards=cards(*seat.cards), points=points(hand_points(seat.cards))))
    return found


def _win_double(ctx: Ctx, seat: BaccaratSeat) -> int:
    """The punter takes back his stake and twice his stake from the bank; his net gain."""
    amount = seat.stake
    ctx.move(stake(seat.player), stack(seat.player), amount, "stake_returned")
    ctx.move(BANK, stack(seat.player), 2 * amount, "bank_pays_double")
    return 2 * amount


def _lose(ctx: Ctx, seat: BaccaratSeat) -> int:
    amount = seat.stake
    ctx.move(stake(seat.player), BANK, amount, "stake_lost")
    return -amount


def settle_naturals(ctx: Ctx) -> list[Result]:
    """Pay a coup decided by naturals (docs/rules.md §2.5); the per-punter results.

    9 beats 8; the banker wins ties with a punter.
    """
    st = ctx.st
    banker = seat_of(st, st.banker)
    bp = hand_points(banker.cards)
    punters = [seat_of(st, p) for p in st.deal_order]
    naturals = [hand_points(s.cards) for s in punters if hand_points(s.cards) in NATURALS]
    best = max(naturals, default=0)
    results: list[Result] = []
    if bp in NATURALS and bp >= best:
        # Banker has the best natural at the table: he takes all stakes.
        for s in punters:
            results.append(Result(s.player, s.stake, "banker_natural", _lose(ctx, s)))
        return results
    if bp in NATURALS:
        # Banker has 8, some punters 9: they are paid double; the banker takes the rest.
        for s in punters:
            if hand_points(s.cards) == best:
                results.append(Result(s.player, s.stake, "natural_win", _win_double(ctx, s)))
            else:
                results.append(Result(s.player, s.stake, "natural_loss", _lose(ctx, s)))
        return results
    # Banker has no natural: the best natural(s) are paid double by the bank and
    # share every other stake equally; the remainder goes to the first of them in
    # dealing order (docs/rules.md §2.5, Decision).
    winners = [s for s in punters if hand_points(s.cards) == best]
    losers = [s for s in punters if hand_points(s.cards) != best]
    stakes = {s.player: s.stake for s in punters}
    share, rest = divmod(sum(s.stake for s in losers), len(winners))
    for s in losers:
        ctx.move(stake(s.player), POT, s.stake, "stake_to_natural")
    gains: dict[PlayerId, int] = {}
    for i, s in enumerate(winners):
        gain = _win_double(ctx, s)
        extra = share + (rest if i == 0 else 0)
        ctx.move(POT, stack(s.player), extra, "stakes_shared")
        gains[s.player] = gain + extra
    for s in punters:
        if s.player in gains:
            results.append(Result(s.player, stakes[s.player], "natural_win", gains[s.player]))
        else:
            results.append(Result(s.player, stakes[s.player], "natural_loss", -stakes[s.player]))
    return results


def settle_showdown(ctx: Ctx) -> list[Result]:
    """Each punter against the banker on his own stake (docs/rules.md §2.8); the results."""
    st = ctx.st
    bp = hand_points(seat_of(st, st.banker).cards)
    results: list[Result] = []
    for p in st.deal_order:
        s = seat_of(st, p)
        if s.declared:
            continue
        pp, amount = hand_points(s.cards), s.stake
        if pp == 6 and bp == 6:
            # Stake + the banker's double (3 × stake) shared equally; odd chip to the banker.
            punter_share = (3 * amount) // 2
            ctx.move(stake(p), stack(p), amount, "stake_returned")
            ctx.move(BANK, stack(p), punter_share - amount, "six_six_share")
            outcome, net = "six_six_split", punter_share - amount
        elif bp >= pp:
            outcome = "tie_loss" if bp == pp else "loss"
            net = _lose(ctx, s)
        else:
            outcome, net = "win", _win_double(ctx, s)
        results.append(Result(p, amount, outcome, net, pp))
    return results


def feats(st: BaccaratState, hands: list[BaccaratSeat],
          nets: dict[PlayerId, int]) -> dict[PlayerId, list[str]]:
    """What the coup counts for each of the ``hands`` shown beyond his net: ``natural``
    (8 or 9 on two cards, §2.5), ``baccara`` for the punter who declared it (§2.6),
    ``extra_shoe`` for a banker dealt baccara, who earns one more shoe (§2.9), and
    ``sweep`` for a banker who took the stake of every punter of the coup (``nets``), two
    at least (a declarer, whose stake came back, is one he did not take)."""
    out: dict[PlayerId, list[str]] = {}
    punters = [n for p, n in nets.items() if p != st.banker]
    for seat in hands:
        mine = out.setdefault(seat.player, [])
        if len(seat.cards) == 2 and hand_points(seat.cards) in NATURALS:
            mine.append("natural")
        if seat.declared:
            mine.append("baccara")
        if seat.player == st.banker and hand_points(seat.cards[:2]) == 0:
            mine.append("extra_shoe")
        if seat.player == st.banker and len(punters) >= 2 and max(punters) < 0:
            mine.append("sweep")
    return out

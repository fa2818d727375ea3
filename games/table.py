"""Seating helpers every game shares: seat order, joining, leaving, timeouts.

docs/rules.md §0 "Seats": players sit in join order, and that order is clockwise.
"The player to X's left" is the next seat clockwise; "to X's right" the
previous one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from games.cards import Shoe
from games.engine import (
    Event,
    IllegalAction,
    PlayerId,
    Reason,
    SeatBase,
    Transfer,
    chips,
    count,
    flag,
    public,
    row,
    rows,
    shoe_revealed,
    stack,
    stood_up,
    wallet,
)

T = TypeVar("T", bound=SeatBase)


def seat_index(seats: Sequence[SeatBase], player: PlayerId) -> int:
    """Index of ``player``'s seat; refuses a player who is not seated."""
    for i, seat in enumerate(seats):
        if seat.player == player:
            return i
    raise IllegalAction(Reason.NOT_SEATED)


def find_seat(seats: Sequence[T], player: PlayerId) -> T:
    """``player``'s seat; refuses a player who is not seated."""
    return seats[seat_index(seats, player)]


def left_of(n: int, i: int, steps: int = 1) -> int:
    """The seat ``steps`` places clockwise (to the left) of seat ``i`` among ``n``."""
    return (i + steps) % n


def right_of(n: int, i: int, steps: int = 1) -> int:
    """The seat ``steps`` places counter-clockwise (to the right) of seat ``i`` among ``n``."""
    return (i - steps) % n


def clockwise_from(n: int, start: int) -> list[int]:
    """All ``n`` seat indexes clockwise, starting at ``start``."""
    return [(start + k) % n for k in range(n)]


def counter_clockwise_from(n: int, start: int) -> list[int]:
    """All ``n`` seat indexes counter-clockwise, starting at ``start``."""
    return [(start - k) % n for k in range(n)]


def check_join(seats: Sequence[SeatBase], player: PlayerId, max_players: int) -> None:
    """Refuse a second seat for one player, or a seat at a full table."""
    if any(s.player == player for s in seats):
        raise IllegalAction(Reason.ALREADY_SEATED)
    if len(seats) >= max_players:
        raise IllegalAction(Reason.TABLE_FULL)


def stood_up_after_two(seat: SeatBase) -> list[Event]:
    """docs/rules.md §0.7, every game's one rule: a second missed deadline in a row stands
    ``seat`` up. He is marked leaving: he stands up once the coup or hand is over and puts
    up nothing more meanwhile (no stake, no ante). The public event, or nothing."""
    if seat.timeouts >= 2 and not seat.leaving:
        seat.leaving = True
        return [stood_up(seat.player)]
    return []


def buy_in_transfers(player: PlayerId, amount: int) -> list[Transfer]:
    """Chips from the wallet to the player's stack when he sits down."""
    return [Transfer(src=wallet(player), dst=stack(player), amount=amount, reason="buy_in")] \
        if amount > 0 else []


def cash_out_transfers(player: PlayerId, amount: int) -> list[Transfer]:
    """The stack back to the wallet when the player leaves the table."""
    return [Transfer(src=stack(player), dst=wallet(player), amount=amount, reason="cash_out")] \
        if amount > 0 else []


def move(src: str, dst: str, amount: int, reason: str) -> list[Transfer]:
    """A transfer list for one movement; empty when ``amount`` is zero."""
    if amount < 0:
        raise ValueError("a transfer amount is never negative")
    return [Transfer(src=src, dst=dst, amount=amount, reason=reason)] if amount else []


# ------------------------------------------------------------ closing a table


def owner(account: str) -> PlayerId | None:
    """The player a ``stack:<id>`` or ``stake:<id>`` account belongs to; None for shared ones."""
    kind, _, who = account.partition(":")
    return int(who) if kind in ("stack", "stake") and who.lstrip("-").isdigit() else None


def closing_transfers(accounts: Mapping[str, int], seats: Sequence[PlayerId],
                      owners: Mapping[str, PlayerId | None] | None = None,
                      put_in: Mapping[str, Mapping[PlayerId, int]] | None = None,
                      ) -> list[Transfer]:
    """Transfers that empty every table account in ``accounts`` into wallets (/closetable).

    docs/rules.md §0.12: the coup or hand in progress is void. A player's own
    accounts (stack, stake) go back to him. A shared account (bank, pot) first
    gives back what each player put into it during the unsettled coup
    (``put_in``; should it hold less, each gets his share of it, rounded down),
    then what is left goes to the banker who owns it (``owners``); with no
    owner, it is shared equally among ``seats``, the odd chips to the first seats.
    """
    out: list[Transfer] = []
    for account, balance in sorted(accounts.items()):
        if balance <= 0:
            continue
        mine = owner(account)
        if mine is not None:
            out += move(account, wallet(mine), balance, "table_closed")
            continue
        left = balance
        paid = (put_in or {}).get(account, {})
        order = [*seats, *(p for p in paid if p not in seats)]  # in seat order
        refunds = {p: paid[p] for p in order if paid.get(p, 0) > 0}
        paid_in = sum(refunds.values())
        for player, amount in refunds.items():
            share = min(left, amount if paid_in <= balance else amount * balance // paid_in)
            out += move(account, wallet(player), share, "table_closed")
            left -= share
        heir = (owners or {}).get(account)
        heirs = [heir] if heir is not None else list(seats) or list(refunds)
        if left and not heirs:  # pragma: no cover - an engine keeps no chips without players
            raise ValueError(f"{account} holds chips nobody can take")
        for i, player in enumerate(heirs):
            share = left // len(heirs) + (1 if i < left % len(heirs) else 0)
            out += move(account, wallet(player), share, "table_closed")
    return out


def closing_events(coup: int, void: bool, seats: Sequence[PlayerId],
                   transfers: Sequence[Transfer], shoes: Sequence[Shoe | None]) -> list[Event]:
    """The public ``table_closed`` event (whether coup ``coup`` was void, and what each
    player got back, in seat order), then every shoe in play revealed (docs/rules.md §0.5)."""
    back: dict[PlayerId, int] = {p: 0 for p in seats}
    for t in transfers:
        if t.dst.startswith("wallet:"):
            player = int(t.dst.partition(":")[2])
            back[player] = back.get(player, 0) + t.amount
    events = [public("table_closed", coup=count(coup), void=flag(void),
                     returned=rows(*(row(p, amount=chips(a)) for p, a in back.items())))]
    events += [shoe_revealed(shoe.reveal()) for shoe in shoes if shoe is not None]
    return events

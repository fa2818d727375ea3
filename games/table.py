"""Seating helpers every game shares: seat order, joining, leaving, timeouts.

docs/rules.md §0 "Seats": players sit in join order, and that order is clockwise.
"The player to X's left" is the next seat clockwise; "to X's right" the
previous one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from games.engine import (
    IllegalAction,
    PlayerId,
    Reason,
    SeatBase,
    Transfer,
    stack,
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

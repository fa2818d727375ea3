"""What a backend books for one step: validated ledger rows and net balance changes.

Both backends share this so that SQLite and PostgreSQL book a step identically.
Double entry: each :class:`~games.engine.Transfer` becomes two ledger rows, the
source debited and the destination credited with the same reason, so the rows
of a step sum to zero whatever the transfers are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.engine import Transfer

from .base import HOUSE

_OWNED_PREFIXES = ("wallet:", "stack:", "stake:")
_SEAT_PREFIXES = ("stack:", "stake:")


def _id_after_prefix(account: str, prefixes: tuple[str, ...]) -> int | None:
    for prefix in prefixes:
        if account.startswith(prefix):
            try:
                return int(account[len(prefix):])
            except ValueError:
                raise ValueError(f"malformed account name {account!r}") from None
    return None


def ledger_owner(account: str) -> int | None:
    """The player whose history a ledger row on ``account`` belongs to (``/history``)."""
    return _id_after_prefix(account, _OWNED_PREFIXES)


def seat_owner(account: str) -> int | None:
    """The player whose chips a table account holds (``stack:`` / ``stake:``), else ``None``.

    These make up :attr:`storage.base.Wallet.on_table`; ``bank`` or ``pot`` belong to nobody.
    """
    return _id_after_prefix(account, _SEAT_PREFIXES)


@dataclass(frozen=True)
class LedgerRow:
    """One row to append: ``delta`` on ``account`` because of ``reason``; under ``coup``
    (``None``: the step's)."""

    account: str
    delta: int
    reason: str
    owner: int | None
    coup: int | None = None


@dataclass(frozen=True)
class Booking:
    """Everything one step writes besides the snapshot.

    ``wallets`` and ``table`` are sorted by key, so concurrent writers lock rows
    in the same order (PostgreSQL would otherwise be free to deadlock).
    """

    rows: tuple[LedgerRow, ...]
    wallets: tuple[tuple[int, int], ...]
    table: tuple[tuple[str, int, int | None], ...]


def plan(transfers: Sequence[Transfer], coups: Sequence[int] = (),
         holders: Sequence[int | None] = ()) -> Booking:
    """Validate ``transfers`` and turn them into ledger rows and net balance changes.

    ``coups``: the coup each transfer is booked under (empty: the step's). ``holders``:
    for each transfer, the player a row on an account no player's name owns (the bank) is
    booked to (empty, or ``None``: nobody). The ``house`` account only issues grants and
    bonuses, which storage books itself; an engine step naming it is a programming error
    (``ValueError``), as are ``coups`` or ``holders`` of another length than ``transfers``.
    """
    if (coups and len(coups) != len(transfers)) or (holders and len(holders) != len(transfers)):
        raise ValueError("coups and holders name one value per transfer")
    rows: list[LedgerRow] = []
    wallets: dict[int, int] = {}
    table: dict[str, int] = {}
    for i, t in enumerate(transfers):
        coup = coups[i] if coups else None
        for account, delta in ((t.src, -t.amount), (t.dst, t.amount)):
            if account == HOUSE:
                raise ValueError("a table step cannot move chips to or from the house")
            owner = ledger_owner(account)
            if owner is None and holders:
                owner = holders[i]
            rows.append(LedgerRow(account, delta, t.reason, owner, coup))
            user = _id_after_prefix(account, ("wallet:",))
            if user is not None:
                wallets[user] = wallets.get(user, 0) + delta
            else:
                table[account] = table.get(account, 0) + delta
    return Booking(
        rows=tuple(rows),
        wallets=tuple(sorted((u, d) for u, d in wallets.items() if d)),
        table=tuple(sorted((a, d, seat_owner(a)) for a, d in table.items() if d)),
    )


# Whole-database chip accounting (``audit()`` of both backends): ``issued`` is what the
# house granted (minus its ledger balance); ``wallets`` + ``on_tables`` must equal it;
# ``unbalanced_steps`` (steps whose ledger rows do not sum to zero) and ``ledger_drift``
# (accounts whose stored balance is not the sum of their ledger rows) must be 0. Wallets
# and table accounts are compared separately; closed tables' accounts are gone and their
# ledger rows sum to zero, which the outer join checks as well.
DRIFTING = """
SELECT s.chat_id, s.account FROM (
    SELECT l.chat_id, l.account, SUM(l.delta) AS total
    FROM ledger l WHERE l.account <> 'house'
    GROUP BY l.chat_id, l.account
) s
LEFT JOIN wallets w
    ON s.account = 'wallet:' || w.user_id AND w.chat_id = s.chat_id
LEFT JOIN table_accounts t
    ON t.chat_id = s.chat_id AND t.account = s.account
WHERE s.total <> COALESCE(w.balance, t.balance, 0)
"""
"""Accounts whose stored balance is not the sum of their ledger rows (chat, account)."""
AUDIT_QUERIES: dict[str, str] = {
    "issued": "SELECT -COALESCE(SUM(delta), 0) FROM ledger WHERE account = 'house'",
    "wallets": "SELECT COALESCE(SUM(balance), 0) FROM wallets",
    "on_tables": "SELECT COALESCE(SUM(balance), 0) FROM table_accounts",
    "unbalanced_steps": "SELECT COUNT(*) FROM (SELECT step_id FROM ledger"
                        " GROUP BY step_id HAVING SUM(delta) <> 0) s",
    "ledger_drift": f"SELECT COUNT(*) FROM ({DRIFTING}) d",
}

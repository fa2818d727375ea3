"""What an operator reads and repairs beside the game: health, figures, audit, wallets.

:class:`storage.base.Storage` is what the bot needs to play; an :class:`Inspector` is
what ``/readyz``, ``/metrics`` (:mod:`bot.health`) and ``python -m bot.admin`` need.
It works on the same open storage object (one for each backend, through the backend's
own unit-of-work helpers), so its reads see exactly what the bot committed and its one
write, :meth:`Inspector.import_wallets`, books chips through the ledger like any grant.

Conservation (:meth:`Inspector.audit_by_chat`), per chat: what the house issued there
(starting grants, daily bonuses, imports; minus what an import took back) equals the
chips in the chat's wallets plus those on its table; every step's ledger rows sum to
zero; every account's balance is the sum of its ledger rows.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any, Protocol, cast

from pydantic import BaseModel, ConfigDict

from .base import HOUSE, LedgerEntry, Storage
from .booking import DRIFTING
from .sqlite import _fetchall

IMPORT_REASON = "import"
"""The ledger reason of chips an import booked (house -> wallet, or back)."""

# Per chat, the figures of storage.booking.AUDIT_QUERIES (same SQL in both dialects).
AUDIT_BY_CHAT: dict[str, str] = {
    "issued": "SELECT chat_id, -SUM(delta) FROM ledger WHERE account = 'house' GROUP BY chat_id",
    "wallets": "SELECT chat_id, SUM(balance) FROM wallets GROUP BY chat_id",
    "on_table": "SELECT chat_id, SUM(balance) FROM table_accounts GROUP BY chat_id",
    "unbalanced_steps": "SELECT chat_id, COUNT(*) FROM (SELECT chat_id, step_id FROM ledger"
                        " GROUP BY chat_id, step_id HAVING SUM(delta) <> 0) s GROUP BY chat_id",
    "ledger_drift": f"SELECT chat_id, COUNT(*) FROM ({DRIFTING}) d GROUP BY chat_id",
}


class ChatAudit(BaseModel):
    """One chat's chip accounting; :attr:`ok` when nothing is lost or made up."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    issued: int = 0
    wallets: int = 0
    on_table: int = 0
    unbalanced_steps: int = 0
    ledger_drift: int = 0

    @property
    def ok(self) -> bool:
        """Held chips equal issued chips, and the ledger agrees with every balance."""
        return (self.issued == self.wallets + self.on_table
                and self.unbalanced_steps == 0 and self.ledger_drift == 0)


class TableRow(BaseModel):
    """An open table as an operator lists it (the state JSON holds hidden cards: never print
    it; draw the public view from it)."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    game: str
    version: int
    rev: int
    state_json: str
    meta_json: str
    updated_at: float
    last_step_at: float | None


class WalletTotal(BaseModel):
    """A player's chips in a chat as exported: the wallet plus what he has on the table."""

    model_config = ConfigDict(frozen=True)
    user_id: int
    name: str = ""
    total: int


class ImportReport(BaseModel):
    """What an import did (or, with conflicts and no overwrite, would not do)."""

    created: list[int]
    unchanged: list[int]
    adjusted: dict[int, int]
    """user id -> chips booked (negative: taken back to the house)."""
    conflicts: dict[int, tuple[int, int]]
    """user id -> (chips he holds now, chips in the file); nothing written when any."""


class Inspector(Protocol):
    """The operator's side of a storage backend (see the module docstring)."""

    async def ping(self) -> None:
        """One round trip to the database; raises if it does not answer."""
        ...

    async def outbox_depth(self) -> tuple[int, float | None]:
        """Undelivered outbox items and the creation time of the oldest (None: none)."""
        ...

    async def tables_by_game(self) -> dict[str, int]:
        """Open tables per game."""
        ...

    async def tables(self) -> list[TableRow]:
        """Every open table, by chat id."""
        ...

    async def ledger(self, *, chat_id: int, limit: int = 50) -> list[LedgerEntry]:
        """The chat's newest ledger rows, every account, newest first."""
        ...

    async def audit_by_chat(self) -> list[ChatAudit]:
        """Every chat's accounting, from one consistent snapshot, by chat id."""
        ...

    async def import_wallets(self, *, chat_id: int, wallets: Sequence[WalletTotal],
                             overwrite: bool = False) -> ImportReport:
        """Give each player of ``wallets`` his total in the chat, atomically (all or nothing).

        A missing wallet is created holding its total; a player who already holds his
        total is left alone (so importing twice changes nothing); a player holding
        another amount is a conflict: without ``overwrite`` nothing is written and the
        conflicts are reported, with it the difference is booked on his wallet
        (:class:`InsufficientFunds` if it would take more than his wallet holds).
        Every chip moved is a ledger row from or to the house, reason ``import``.
        """
        ...


def inspector(storage: Storage) -> Inspector:
    """The inspector of an open SQLite or PostgreSQL storage (or a wrapper's ``inner``)."""
    from .sqlite import SqliteStorage

    inner = getattr(storage, "inner", storage)
    if isinstance(inner, SqliteStorage):
        return SqliteInspector(inner)
    from .postgres import PostgresStorage

    if isinstance(inner, PostgresStorage):
        return PostgresInspector(inner)
    raise TypeError(f"no inspector for {type(inner).__name__}")


def _plan_import(held: dict[int, int], wallets: Sequence[WalletTotal],
                 overwrite: bool) -> tuple[ImportReport, list[tuple[int, str, int, bool]]]:
    """Compare the file with what players hold; the moves to book: (user, name, chips, new)."""
    report = ImportReport(created=[], unchanged=[], adjusted={}, conflicts={})
    moves: list[tuple[int, str, int, bool]] = []
    seen: set[int] = set()
    for w in wallets:
        if w.user_id in seen:
            raise ValueError(f"user {w.user_id} appears twice")
        if w.total < 0:
            raise ValueError(f"user {w.user_id}: a negative total")
        seen.add(w.user_id)
        now = held.get(w.user_id)
        if now is None:
            report.created.append(w.user_id)
            moves.append((w.user_id, w.name, w.total, True))
        elif now == w.total:
            report.unchanged.append(w.user_id)
        elif overwrite:
            report.adjusted[w.user_id] = w.total - now
            moves.append((w.user_id, w.name, w.total - now, False))
        else:
            report.conflicts[w.user_id] = (now, w.total)
    return report, moves


class _Reads:
    """The read side both backends share; the dialects differ in placeholders and in how a
    time is read (SQLite stores epoch seconds, PostgreSQL timestamptz)."""

    TIME = "{}"
    MARK = "?"

    async def _all(self, sql: str, *args: Any) -> list[Any]:
        raise NotImplementedError

    def _t(self, column: str) -> str:
        return self.TIME.format(column)

    async def ping(self) -> None:
        """``SELECT 1`` on one of the bot's connections."""
        await self._all("SELECT 1")

    async def outbox_depth(self) -> tuple[int, float | None]:
        """Undelivered outbox items and the creation time of the oldest."""
        rows = await self._all(f"SELECT COUNT(*), {self._t('MIN(created_at)')} FROM outbox"
                               " WHERE sent_at IS NULL")
        return int(rows[0][0]), rows[0][1]

    async def tables_by_game(self) -> dict[str, int]:
        """Open tables per game."""
        return {r[0]: int(r[1]) for r in await self._all(
            "SELECT game, COUNT(*) FROM tables GROUP BY game ORDER BY game")}

    async def tables(self) -> list[TableRow]:
        """Every open table, by chat id."""
        rows = await self._all(
            f"SELECT chat_id, game, version, rev, state, {self._t('updated_at')},"
            f" (SELECT {self._t('created_at')} FROM steps s WHERE s.chat_id = t.chat_id"
            "  AND s.kind = 'step' ORDER BY step_id DESC LIMIT 1), meta"
            " FROM tables t ORDER BY chat_id")
        return [TableRow(chat_id=r[0], game=r[1], version=r[2], rev=r[3], state_json=r[4],
                         updated_at=r[5], last_step_at=r[6],
                         meta_json=r[7] if isinstance(r[7], str) else json.dumps(r[7]))
                for r in rows]

    async def ledger(self, *, chat_id: int, limit: int = 50) -> list[LedgerEntry]:
        """The chat's newest ledger rows, every account, newest first."""
        first, second = (self.MARK.format(n) for n in (1, 2))
        rows = await self._all(
            f"SELECT step_id, chat_id, coup, account, delta, reason, game,"
            f" {self._t('created_at')} FROM ledger WHERE chat_id = {first}"
            f" ORDER BY entry_id DESC LIMIT {second}", chat_id, limit)
        return [LedgerEntry(step_id=r[0], chat_id=r[1], coup=r[2], account=r[3], delta=r[4],
                            reason=r[5], game=r[6], created_at=r[7]) for r in rows]


class SqliteInspector(_Reads):
    """:class:`Inspector` of a :class:`storage.sqlite.SqliteStorage` (its connection)."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage

    async def _all(self, sql: str, *args: Any) -> list[Any]:
        return cast(list[Any], await self.storage._run(_fetchall, sql, args))

    async def audit_by_chat(self) -> list[ChatAudit]:
        """Every chat's accounting (one read transaction: one snapshot)."""
        def read(conn: sqlite3.Connection) -> dict[str, list[Any]]:
            conn.execute("BEGIN")
            try:
                return {k: conn.execute(sql).fetchall() for k, sql in AUDIT_BY_CHAT.items()}
            finally:
                conn.execute("COMMIT")

        return _audits(await self.storage._run(read))

    async def import_wallets(self, *, chat_id: int, wallets: Sequence[WalletTotal],
                             overwrite: bool = False) -> ImportReport:
        """See :meth:`Inspector.import_wallets`."""

        def unit(conn: sqlite3.Connection) -> ImportReport:
            held = {int(u): int(b) for u, b in conn.execute(
                "SELECT w.user_id, w.balance + COALESCE((SELECT SUM(balance) FROM"
                " table_accounts t WHERE t.chat_id = w.chat_id AND t.owner = w.user_id), 0)"
                " FROM wallets w WHERE w.chat_id = ?", (chat_id,)).fetchall()}
            report, moves = _plan_import(held, wallets, overwrite)
            if report.conflicts:
                return report
            now = time.time()
            step_id = None
            for user, name, chips, new in moves:
                if new:
                    conn.execute("INSERT INTO wallets (chat_id, user_id, name, balance,"
                                 " created_at) VALUES (?, ?, ?, 0, ?)", (chat_id, user, name, now))
                if chips == 0:
                    continue
                if step_id is None:
                    step_id = conn.execute(
                        "INSERT INTO steps (chat_id, kind, coup, game, version, created_at)"
                        " VALUES (?, 'grant', 0, '', NULL, ?)", (chat_id, now)).lastrowid
                conn.executemany(
                    "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason,"
                    " game, created_at) VALUES (?, ?, 0, ?, ?, ?, ?, '', ?)",
                    [(step_id, chat_id, HOUSE, None, -chips, IMPORT_REASON, now),
                     (step_id, chat_id, f"wallet:{user}", user, chips, IMPORT_REASON, now)])
                conn.execute("UPDATE wallets SET balance = balance + ?"
                             " WHERE chat_id = ? AND user_id = ?", (chips, chat_id, user))
            return report

        return cast(ImportReport, await self.storage._write(unit))


def _audits(results: dict[str, list[Any]]) -> list[ChatAudit]:
    figures: dict[int, dict[str, int]] = {}
    for key, rows in results.items():
        for chat_id, value in rows:
            figures.setdefault(int(chat_id), {})[key] = int(value)
    return [ChatAudit(chat_id=c, **f) for c, f in sorted(figures.items())]


class PostgresInspector(_Reads):
    """:class:`Inspector` of a :class:`storage.postgres.PostgresStorage` (its pool)."""

    TIME = "EXTRACT(EPOCH FROM {})::float8"
    MARK = "${}"

    def __init__(self, storage: Any) -> None:
        self.storage = storage

    async def _all(self, sql: str, *args: Any) -> list[Any]:
        async with self.storage._read() as conn:
            return cast(list[Any], await conn.fetch(sql, *args))

    async def audit_by_chat(self) -> list[ChatAudit]:
        """Every chat's accounting, from one repeatable-read snapshot."""
        async with self.storage._read() as conn, conn.transaction(
                isolation="repeatable_read", readonly=True):
            results = {k: list(await conn.fetch(sql)) for k, sql in AUDIT_BY_CHAT.items()}
        return _audits(results)

    async def import_wallets(self, *, chat_id: int, wallets: Sequence[WalletTotal],
                             overwrite: bool = False) -> ImportReport:
        """See :meth:`Inspector.import_wallets`."""
        async with self.storage._tx() as conn:
            # the chat's wallets locked first, in key order, like every step (no deadlock)
            await conn.execute("SELECT 1 FROM wallets WHERE chat_id = $1"
                               " ORDER BY user_id FOR UPDATE", chat_id)
            held = {int(r[0]): int(r[1]) for r in await conn.fetch(
                "SELECT w.user_id, w.balance + COALESCE((SELECT SUM(balance) FROM"
                " table_accounts t WHERE t.chat_id = w.chat_id AND t.owner = w.user_id), 0)"
                " FROM wallets w WHERE w.chat_id = $1", chat_id)}
            report, moves = _plan_import(held, wallets, overwrite)
            if report.conflicts:
                return report
            step_id = None
            for user, name, chips, new in moves:
                if new:
                    await conn.execute("INSERT INTO wallets (chat_id, user_id, name, balance)"
                                       " VALUES ($1, $2, $3, 0)", chat_id, user, name)
                if chips == 0:
                    continue
                if step_id is None:
                    step_id = await conn.fetchval("INSERT INTO steps (chat_id, kind)"
                                                  " VALUES ($1, 'grant') RETURNING step_id",
                                                  chat_id)
                await conn.execute(
                    "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason)"
                    " VALUES ($1, $2, 0, $3, NULL, $4, $6), ($1, $2, 0, $5, $7, $8, $6)",
                    step_id, chat_id, HOUSE, -chips, f"wallet:{user}", IMPORT_REASON, user,
                    chips)
                await conn.execute("UPDATE wallets SET balance = balance + $1"
                                   " WHERE chat_id = $2 AND user_id = $3", chips, chat_id, user)
            return report


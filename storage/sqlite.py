"""The embedded backend: one SQLite file in WAL mode, through :mod:`aiosqlite`.

One connection per :class:`SqliteStorage`; an :class:`asyncio.Lock` keeps its
units of work from interleaving on that connection. Every write is a
``BEGIN IMMEDIATE`` transaction, so it takes the file's writer lock before it
reads anything: a second process (or a second storage object on the same
file) waits up to ``busy_timeout`` and then sees the committed version, which
is what makes the optimistic version check race-free.

Durability: ``synchronous=NORMAL`` (the default here) in WAL mode never
corrupts the database and never breaks atomicity, but a power loss (not a
process crash) can undo the last few commits, which then were never
acknowledged as durable on disk. A process kill loses nothing that committed.
``synchronous="FULL"`` makes every commit survive power loss too, at the cost
of an fsync per commit (see ``bench/storage_steps.py`` for the figures).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiosqlite

from games.engine import Transfer

from .base import (
    HOUSE,
    KEEP_SENT,
    BonusAlreadyClaimed,
    InsufficientFunds,
    LedgerEntry,
    OutboxDraft,
    OutboxItem,
    OutboxItemNotFound,
    StaleVersion,
    StorageError,
    TableExists,
    TableNotFound,
    TableRecord,
    Wallet,
)
from .booking import AUDIT_QUERIES, Booking, plan
from .migrate import migrations, sqlite_statements

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

_TABLE_COLUMNS = "chat_id, game, settings, state, version, deadline, meta, rev"
_OUTBOX_COLUMNS = "id, chat_id, kind, target, payload, created_at, attempts"
# Deletes the chat's sent rows of one kind older than its KEEP_SENT newest (ids only grow, so
# "newest" is "highest id"); both lookups walk the partial index outbox_sent, at most
# KEEP_SENT + 1 entries.
_PRUNE_SENT = (
    "DELETE FROM outbox WHERE chat_id = ? AND kind = ? AND sent_at IS NOT NULL AND id <= ("
    " SELECT id FROM outbox WHERE chat_id = ? AND kind = ? AND sent_at IS NOT NULL"
    " ORDER BY id DESC LIMIT 1 OFFSET ?)")


def _table(row: sqlite3.Row | tuple[Any, ...]) -> TableRecord:
    chat_id, game, settings, state, version, deadline, meta, rev = row
    return TableRecord(chat_id=chat_id, game=game, settings=json.loads(settings),
                       state_json=state, version=version, deadline=deadline,
                       meta=json.loads(meta), rev=rev)


def _outbox_item(row: sqlite3.Row | tuple[Any, ...]) -> OutboxItem:
    item_id, chat_id, kind, target, payload, created_at, attempts = row
    return OutboxItem(id=item_id, chat_id=chat_id, kind=kind, target=target,
                      payload=json.loads(payload), created_at=created_at, attempts=attempts)


def _is_negative_balance(exc: sqlite3.IntegrityError) -> bool:
    # The CHECK (balance >= 0) of wallets or table_accounts: the database, not
    # Python, is what refuses an overdraft.
    return "CHECK constraint failed: balance >= 0" in str(exc)


class SqliteStorage:
    """:class:`storage.base.Storage` on a SQLite file (``":memory:"`` works for a scratch run)."""

    def __init__(self, path: str | Path, *, starting_grant: int, daily_bonus: int,
                 synchronous: Synchronous = "NORMAL", busy_timeout_ms: int = 10_000) -> None:
        """Configure; nothing touches the file before :meth:`open`."""
        if starting_grant < 0 or daily_bonus < 0:
            raise ValueError("grants and bonuses cannot be negative")
        self.path = str(path)
        self.starting_grant = starting_grant
        self.daily_bonus = daily_bonus
        self.synchronous = synchronous
        self.busy_timeout_ms = busy_timeout_ms
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Open the file (creating its directory), set the pragmas, apply migrations."""
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN IMMEDIATE ourselves; the sqlite3
        # module's implicit deferred BEGIN would take the writer lock too late.
        db = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            async with db.execute("PRAGMA journal_mode = WAL") as cur:
                mode = await cur.fetchone()
            if self.path != ":memory:" and (mode is None or str(mode[0]).lower() != "wal"):
                raise StorageError(f"could not switch {self.path} to WAL mode")
            await db.execute(f"PRAGMA synchronous = {self.synchronous}")
            await db.execute("PRAGMA foreign_keys = ON")
            await self._migrate(db)
        except BaseException:
            await db.close()
            raise
        self._db = db

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    async def _migrate(self, db: aiosqlite.Connection) -> None:
        await db.execute("BEGIN IMMEDIATE")
        try:
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)")
            async with db.execute("SELECT version FROM schema_migrations") as cur:
                applied = {row[0] for row in await cur.fetchall()}
            for migration in migrations("sqlite"):
                if migration.version in applied:
                    continue
                for statement in sqlite_statements(migration.sql):
                    await db.execute(statement)
                await db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                                 (migration.version, migration.name, time.time()))
            await db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise

    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StorageError("storage is not open")
        return self._db

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One unit of work: commits if the block ends normally, otherwise rolls back."""
        db = self._conn()
        async with self._lock:
            await db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                await db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                if _is_negative_balance(exc):
                    raise InsufficientFunds("an account would go below zero") from exc
                raise
            except BaseException:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        # Same lock: a read must not run inside another coroutine's open transaction.
        db = self._conn()
        async with self._lock:
            yield db

    # -------------------------------------------------------------- wallets

    async def _wallet_row(self, db: aiosqlite.Connection, chat_id: int,
                          user_id: int) -> tuple[str, int] | None:
        rows = list(await db.execute_fetchall(
            "SELECT name, balance FROM wallets WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id)))
        return (rows[0][0], rows[0][1]) if rows else None

    async def _on_table(self, db: aiosqlite.Connection, chat_id: int, user_id: int) -> int:
        rows = list(await db.execute_fetchall(
            "SELECT COALESCE(SUM(balance), 0) FROM table_accounts"
            " WHERE chat_id = ? AND owner = ?", (chat_id, user_id)))
        return int(rows[0][0])

    async def _issue(self, db: aiosqlite.Connection, *, chat_id: int, user_id: int,
                     amount: int, kind: str, now: float) -> None:
        """Book ``amount`` from the house to the wallet (grant or bonus) as its own step."""
        if amount == 0:
            return
        cur = await db.execute(
            "INSERT INTO steps (chat_id, kind, coup, game, version, created_at)"
            " VALUES (?, ?, 0, '', NULL, ?)", (chat_id, kind, now))
        step_id = cur.lastrowid
        reason = "starting_grant" if kind == "grant" else "daily_bonus"
        await db.executemany(
            "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason, game,"
            " created_at) VALUES (?, ?, 0, ?, ?, ?, ?, '', ?)",
            [(step_id, chat_id, HOUSE, None, -amount, reason, now),
             (step_id, chat_id, f"wallet:{user_id}", user_id, amount, reason, now)])
        await db.execute(
            "UPDATE wallets SET balance = balance + ? WHERE chat_id = ? AND user_id = ?",
            (amount, chat_id, user_id))

    async def _ensure_wallet(self, db: aiosqlite.Connection, *, chat_id: int, user_id: int,
                             name: str, now: float) -> None:
        cur = await db.execute(
            "INSERT INTO wallets (chat_id, user_id, name, balance, created_at)"
            " VALUES (?, ?, ?, 0, ?) ON CONFLICT DO NOTHING", (chat_id, user_id, name, now))
        if cur.rowcount == 1:
            await self._issue(db, chat_id=chat_id, user_id=user_id,
                              amount=self.starting_grant, kind="grant", now=now)
        elif name:
            await db.execute("UPDATE wallets SET name = ? WHERE chat_id = ? AND user_id = ?"
                             " AND name <> ?", (name, chat_id, user_id, name))

    async def wallet(self, *, chat_id: int, user_id: int, name: str = "") -> Wallet:
        """The player's wallet, created on first use with the starting grant from the house.

        A non-empty ``name`` replaces the stored display name.
        """
        async with self._read() as db:
            row = await self._wallet_row(db, chat_id, user_id)
            if row is not None and (not name or row[0] == name):
                return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                              on_table=await self._on_table(db, chat_id, user_id))
        async with self._write() as db:
            await self._ensure_wallet(db, chat_id=chat_id, user_id=user_id, name=name,
                                      now=time.time())
            row = await self._wallet_row(db, chat_id, user_id)
            assert row is not None
            on_table = await self._on_table(db, chat_id, user_id)
        return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                      on_table=on_table)

    async def claim_daily_bonus(self, *, chat_id: int, user_id: int, today: dt.date) -> Wallet:
        """Credit the daily bonus once per calendar day; raises :class:`BonusAlreadyClaimed`.

        A ``today`` earlier than the last claimed day is refused too, so a clock
        moved back cannot pay a second bonus.
        """
        day = today.isoformat()
        now = time.time()
        async with self._write() as db:
            await self._ensure_wallet(db, chat_id=chat_id, user_id=user_id, name="", now=now)
            async with db.execute(
                    "UPDATE wallets SET last_bonus_day = ? WHERE chat_id = ? AND user_id = ?"
                    " AND (last_bonus_day IS NULL OR last_bonus_day < ?) RETURNING 1",
                    (day, chat_id, user_id, day)) as cur:
                claimed = await cur.fetchone()
            if claimed is None:
                raise BonusAlreadyClaimed(day)
            await self._issue(db, chat_id=chat_id, user_id=user_id, amount=self.daily_bonus,
                              kind="bonus", now=now)
            row = await self._wallet_row(db, chat_id, user_id)
            assert row is not None
            on_table = await self._on_table(db, chat_id, user_id)
        return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                      on_table=on_table)

    # --------------------------------------------------------------- tables

    async def create_table(self, *, chat_id: int, game: str, settings: dict[str, Any],
                           state_json: str, version: int,
                           meta: dict[str, Any] | None = None,
                           outbox: Sequence[OutboxDraft] = ()) -> TableRecord:
        """Open a table at rev 0 and write ``outbox`` with it.

        Raises :class:`TableExists` (nothing written) if the chat already has one.
        """
        now = time.time()
        meta = meta or {}
        try:
            async with self._write() as db:
                await db.execute(
                    "INSERT INTO tables (chat_id, game, settings, state, version, deadline, meta,"
                    " created_at, updated_at, rev) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, 0)",
                    (chat_id, game, json.dumps(settings), state_json, version, json.dumps(meta),
                     now, now))
                await self._queue(db, chat_id, outbox, now)
        except sqlite3.IntegrityError as exc:
            if "UNIQUE constraint failed: tables.chat_id" in str(exc):
                raise TableExists(str(chat_id)) from None
            raise
        return TableRecord(chat_id=chat_id, game=game, settings=settings, state_json=state_json,
                           version=version, deadline=None, meta=meta)

    async def load_table(self, *, chat_id: int) -> TableRecord:
        """The chat's open table; raises :class:`TableNotFound`."""
        async with self._read() as db:
            rows = list(await db.execute_fetchall(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE chat_id = ?", (chat_id,)))
        if not rows:
            raise TableNotFound(str(chat_id))
        return _table(rows[0])

    async def open_tables(self) -> list[TableRecord]:
        """Every open table, by chat id (resumed at start-up)."""
        async with self._read() as db, db.execute(
                f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY chat_id") as cur:
            rows = await cur.fetchall()
        return [_table(row) for row in rows]

    async def _stale_or_missing(self, db: aiosqlite.Connection, chat_id: int) -> StorageError:
        async with db.execute("SELECT version, rev FROM tables WHERE chat_id = ?",
                              (chat_id,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return TableNotFound(str(chat_id))
        return StaleVersion(f"table of chat {chat_id} is at version {row[0]}, rev {row[1]}")

    @staticmethod
    async def _queue(db: aiosqlite.Connection, chat_id: int, drafts: Sequence[OutboxDraft],
                     now: float) -> None:
        """Append ``drafts`` to the chat's outbox inside the caller's unit of work, in order."""
        if drafts:
            await db.executemany(
                "INSERT INTO outbox (chat_id, kind, target, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(chat_id, d.kind, d.target, json.dumps(d.payload), now) for d in drafts])

    async def _book(self, db: aiosqlite.Connection, *, chat_id: int, kind: str, coup: int,
                    game: str, version: int | None, booking: Booking, now: float) -> int:
        """Append the step and its ledger rows and move the balances; returns the step id.

        Statements are batched (``executemany``): each await is a round trip to
        the connection's thread, and those dominate a step's cost.
        """
        users = [user_id for user_id, _ in booking.wallets]
        if users:
            marks = ", ".join("?" * len(users))
            known = {row[0] for row in await db.execute_fetchall(
                f"SELECT user_id FROM wallets WHERE chat_id = ? AND user_id IN ({marks})",
                (chat_id, *users))}
            for user_id in users:
                if user_id not in known:
                    await self._ensure_wallet(db, chat_id=chat_id, user_id=user_id, name="",
                                              now=now)
        cur = await db.execute(
            "INSERT INTO steps (chat_id, kind, coup, game, version, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)", (chat_id, kind, coup, game, version, now))
        step_id = cur.lastrowid
        assert step_id is not None
        if booking.rows:
            await db.executemany(
                "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason, game,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(step_id, chat_id, coup, r.account, r.owner, r.delta, r.reason, game, now)
                 for r in booking.rows])
        if booking.wallets:
            await db.executemany(
                "UPDATE wallets SET balance = balance + ? WHERE chat_id = ? AND user_id = ?",
                [(delta, chat_id, user_id) for user_id, delta in booking.wallets])
        credits = [(chat_id, a, owner, d) for a, d, owner in booking.table if d > 0]
        debits = [(d, chat_id, a) for a, d, _ in booking.table if d < 0]
        if credits:
            await db.executemany(
                "INSERT INTO table_accounts (chat_id, account, owner, balance)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, account)"
                " DO UPDATE SET balance = balance + excluded.balance", credits)
        if debits:
            # A debit goes through UPDATE so the CHECK sees the resulting balance
            # (an upsert would check the negative insert row first); a debit of an
            # account that has no row matches nothing and is an overdraft too.
            cur = await db.executemany(
                "UPDATE table_accounts SET balance = balance + ? WHERE chat_id = ? AND account = ?",
                debits)
            if cur.rowcount != len(debits):
                raise InsufficientFunds("an account would go below zero")
        return step_id

    async def commit_step(self, *, chat_id: int, expected_version: int, state_json: str,
                          version: int, transfers: Sequence[Transfer], coup: int,
                          deadline: float | None,
                          meta: dict[str, Any] | None = None,
                          outbox: Sequence[OutboxDraft] = (),
                          expected_rev: int | None = None) -> int:
        """One table step as one unit of work, ``outbox`` included; returns the step id.

        Raises :class:`StaleVersion` if the stored version is not ``expected_version``
        (or, when ``expected_rev`` is given, the stored rev is not it),
        :class:`InsufficientFunds` if an account would go negative (in those cases
        nothing is written), :class:`TableNotFound`, and ``ValueError`` unless
        ``version > expected_version`` (a write that keeps the version would let
        two racing writers both win). Raises the table's rev by one.
        """
        if version <= expected_version:
            raise ValueError("a step must raise the table version")
        booking = plan(transfers)
        now = time.time()
        meta_json = None if meta is None else json.dumps(meta)
        rev_check = "" if expected_rev is None else " AND rev = ?"
        rev_args = () if expected_rev is None else (expected_rev,)
        async with self._write() as db:
            rows = list(await db.execute_fetchall(
                "UPDATE tables SET state = ?, version = ?, deadline = ?,"
                " meta = COALESCE(?, meta), rev = rev + 1, updated_at = ?"
                f" WHERE chat_id = ? AND version = ?{rev_check} RETURNING game",
                (state_json, version, deadline, meta_json, now, chat_id, expected_version,
                 *rev_args)))
            if not rows:
                raise await self._stale_or_missing(db, chat_id)
            step_id = await self._book(db, chat_id=chat_id, kind="step", coup=coup,
                                       game=rows[0][0], version=version, booking=booking,
                                       now=now)
            await self._queue(db, chat_id, outbox, now)
        return step_id

    async def update_meta(self, *, chat_id: int, meta: dict[str, Any], expected_rev: int,
                          outbox: Sequence[OutboxDraft] = ()) -> int:
        """Replace the table's host metadata if its rev is ``expected_rev``; returns the new rev.

        Compare-and-set: :class:`StaleVersion` (nothing written) if the rev
        differs, :class:`TableNotFound` without a table. ``outbox`` is written in
        the same unit of work.
        """
        now = time.time()
        async with self._write() as db:
            rows = list(await db.execute_fetchall(
                "UPDATE tables SET meta = ?, rev = rev + 1, updated_at = ?"
                " WHERE chat_id = ? AND rev = ? RETURNING rev",
                (json.dumps(meta), now, chat_id, expected_rev)))
            if not rows:
                raise await self._stale_or_missing(db, chat_id)
            await self._queue(db, chat_id, outbox, now)
        return int(rows[0][0])

    async def close_table(self, *, chat_id: int, expected_version: int,
                          transfers: Sequence[Transfer], coup: int,
                          outbox: Sequence[OutboxDraft] = ()) -> int:
        """Book the final transfers and delete the table; returns the step id.

        Refuses (:class:`InsufficientFunds`, nothing written) unless every table
        account ends at zero; the history stays in the ledger, and ``outbox``
        (written in the same unit) stays until it is delivered.
        """
        booking = plan(transfers)
        now = time.time()
        async with self._write() as db:
            async with db.execute("SELECT game, version FROM tables WHERE chat_id = ?",
                                  (chat_id,)) as cur:
                row = await cur.fetchone()
            if row is None:
                raise TableNotFound(str(chat_id))
            if row[1] != expected_version:
                raise StaleVersion(f"table of chat {chat_id} is at version {row[1]}")
            step_id = await self._book(db, chat_id=chat_id, kind="close", coup=coup, game=row[0],
                                       version=expected_version, booking=booking, now=now)
            async with db.execute("SELECT COUNT(*) FROM table_accounts"
                                  " WHERE chat_id = ? AND balance <> 0", (chat_id,)) as cur:
                left = await cur.fetchone()
            if left is not None and left[0]:
                raise InsufficientFunds("chips are still on the table")
            await db.execute("DELETE FROM table_accounts WHERE chat_id = ?", (chat_id,))
            await db.execute("DELETE FROM tables WHERE chat_id = ?", (chat_id,))
            await self._queue(db, chat_id, outbox, now)
        return step_id

    # --------------------------------------------------------------- outbox

    async def pending_outbox(self, *, chat_id: int | None = None,
                             limit: int = 500) -> list[OutboxItem]:
        """Undelivered outbox items of one chat (or of all chats), by id."""
        where, args = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        async with self._read() as db:
            rows = await db.execute_fetchall(
                f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL{where}"
                " ORDER BY id LIMIT ?", (*args, limit))
        return [_outbox_item(row) for row in rows]

    async def outbox_attempt(self, *, item_id: int) -> int:
        """Count one more delivery attempt (call it before a send); returns the new count.

        Raises :class:`OutboxItemNotFound` if there is no such row.
        """
        async with self._write() as db:
            rows = list(await db.execute_fetchall(
                "UPDATE outbox SET attempts = attempts + 1 WHERE id = ? RETURNING attempts",
                (item_id,)))
        if not rows:
            raise OutboxItemNotFound(str(item_id))
        return int(rows[0][0])

    async def finish_outbox(self, *, item_id: int, message_id: int | None = None) -> None:
        """Mark the item delivered (or given up) and blank its payload (DMs hold hidden cards).

        Idempotent: finishing a sent (or pruned) item changes nothing. The chat
        keeps its ``KEEP_SENT`` newest sent rows of each kind (so a burst of DMs never prunes
        the id of the live table message); older ones go in the same unit.
        """
        await self.finish_outbox_many(done=[(item_id, message_id)])

    async def finish_outbox_many(self, *, done: Sequence[tuple[int, int | None]]) -> None:
        """:meth:`finish_outbox` for several items (id, message id) in one unit."""
        async with self._write() as db:
            pruned: set[tuple[int, str]] = set()
            for item_id, message_id in done:
                rows = list(await db.execute_fetchall(
                    "UPDATE outbox SET sent_at = ?, message_id = ?, payload = '{}'"
                    " WHERE id = ? AND sent_at IS NULL RETURNING chat_id, kind",
                    (time.time(), message_id, item_id)))
                pruned.update((r[0], r[1]) for r in rows)
            for chat_id, kind in pruned:
                await db.execute(_PRUNE_SENT, (chat_id, kind, chat_id, kind, KEEP_SENT))

    async def last_sent(self, *, chat_id: int, kind: str, limit: int = 1) -> list[int]:
        """Message ids of the chat's newest sent items of ``kind`` that have one, newest first."""
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT message_id FROM outbox WHERE chat_id = ? AND sent_at IS NOT NULL"
                " AND kind = ? AND message_id IS NOT NULL ORDER BY id DESC LIMIT ?",
                (chat_id, kind, limit))
        return [int(row[0]) for row in rows]

    async def outbox_chats(self) -> list[int]:
        """Chats with undelivered outbox items (resumed at start-up), ascending."""
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT DISTINCT chat_id FROM outbox WHERE sent_at IS NULL ORDER BY chat_id")
        return [int(row[0]) for row in rows]

    # ------------------------------------------------------------ read side

    async def table_accounts(self, *, chat_id: int) -> dict[str, int]:
        """Non-zero balances of the chat's table accounts."""
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT account, balance FROM table_accounts WHERE chat_id = ? AND balance <> 0"
                " ORDER BY account", (chat_id,))
        return {row[0]: row[1] for row in rows}

    async def leaderboard(self, *, chat_id: int, limit: int = 10) -> list[Wallet]:
        """Richest players of the chat (wallet + on the table), richest first, then by user id."""
        async with self._read() as db, db.execute(
                "SELECT w.user_id, w.name, w.balance, COALESCE(t.on_table, 0)"
                " FROM wallets w LEFT JOIN ("
                "   SELECT owner, SUM(balance) AS on_table FROM table_accounts"
                "   WHERE chat_id = ? AND owner IS NOT NULL GROUP BY owner"
                " ) t ON t.owner = w.user_id"
                " WHERE w.chat_id = ?"
                " ORDER BY w.balance + COALESCE(t.on_table, 0) DESC, w.user_id LIMIT ?",
                (chat_id, chat_id, limit)) as cur:
            rows = await cur.fetchall()
        return [Wallet(chat_id=chat_id, user_id=r[0], name=r[1], balance=r[2], on_table=r[3])
                for r in rows]

    async def recent_coups(self, *, chat_id: int, user_id: int,
                           limit: int = 10) -> list[LedgerEntry]:
        """The player's latest ledger rows in the chat (wallet, stack, stake), newest first."""
        async with self._read() as db, db.execute(
                "SELECT step_id, chat_id, coup, account, delta, reason, game, created_at"
                " FROM ledger WHERE chat_id = ? AND owner = ? ORDER BY entry_id DESC LIMIT ?",
                (chat_id, user_id, limit)) as cur:
            rows = await cur.fetchall()
        return [LedgerEntry(step_id=r[0], chat_id=r[1], coup=r[2], account=r[3], delta=r[4],
                            reason=r[5], game=r[6], created_at=r[7]) for r in rows]

    async def chat_language(self, *, chat_id: int) -> str | None:
        """The chat's chosen language, if any."""
        async with self._read() as db, db.execute(
                "SELECT language FROM chats WHERE chat_id = ?", (chat_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else row[0]

    async def set_chat_language(self, *, chat_id: int, language: str) -> None:
        """Remember the chat's language."""
        async with self._write() as db:
            await db.execute(
                "INSERT INTO chats (chat_id, language) VALUES (?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
                (chat_id, language))

    async def audit(self) -> dict[str, int]:
        """Whole-database chip accounting, for operators and tests (see ``AUDIT_QUERIES``)."""
        out: dict[str, int] = {}
        async with self._read() as db:
            for key, sql in AUDIT_QUERIES.items():
                async with db.execute(sql) as cur:
                    row = await cur.fetchone()
                out[key] = int(row[0]) if row else 0
        return out

"""The embedded backend: one SQLite file in WAL mode, through :mod:`aiosqlite`.

One connection per :class:`SqliteStorage`, which runs its units of work one after
the other, in order, those waiting together in one trip to its thread
(:class:`storage.trips.Trips`). Every write is a ``BEGIN IMMEDIATE`` transaction
(or a savepoint inside a trip's), so it takes the file's writer lock before it
reads anything: a second process (or a second storage object on the same
file) waits up to ``busy_timeout`` and then sees the committed version, which
is what makes the optimistic version check race-free.

Each public method is one plain function run whole on the connection's thread
(one round trip from the event loop, transaction included), not a sequence
of awaited statements: see :func:`storage.trips.on_thread`.

Durability: ``synchronous=NORMAL`` (the default here) in WAL mode never
corrupts the database and never breaks atomicity, but a power loss (not a
process crash) can undo the last few commits, which then were never
acknowledged as durable on disk. A process kill loses nothing that committed.
``synchronous="FULL"`` makes every commit survive power loss too, at the cost
of an fsync per commit (see ``bench/storage_steps.py`` for the figures).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import aiosqlite

from games.engine import Transfer

from . import board
from .base import (
    HOUSE,
    KEEP_SENT,
    STALE_MARK,
    BoardStanding,
    BonusAlreadyClaimed,
    ChatWallet,
    Earned,
    InsufficientFunds,
    KeptUpdate,
    LedgerEntry,
    OutboxDraft,
    OutboxItem,
    OutboxItemNotFound,
    PlayerStats,
    Queued,
    Rating,
    Season,
    SeasonTitle,
    SettledCoup,
    Shown,
    StaleVersion,
    Standing,
    StorageError,
    TableExists,
    TableNotFound,
    TableRecord,
    Wallet,
)
from .booking import AUDIT_QUERIES, Booking, plan
from .migrate import migrations, sqlite_statements
from .ratings import rating_query, ratings_of, ratings_query
from .seasons import (
    coups_query,
    insert_season,
    insert_titles,
    season_of,
    seasons_query,
    title_of,
    title_rows,
    titles_query,
    unseasoned_query,
)
from .standings import (
    REBUILT_CHATS,
    Marks,
    achievements_in,
    achievements_query,
    due_sqlite,
    net_days_of,
    net_days_query,
    player_queries,
    player_stats_of,
    rebuild_sqlite,
    record_sqlite,
    standings_of,
    standings_query,
)
from .trips import Trips, on_thread, transaction

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]
T = TypeVar("T")

_TABLE_COLUMNS = "chat_id, game, settings, state, version, deadline, meta, rev"
_OUTBOX_COLUMNS = "id, chat_id, kind, target, payload, created_at, attempts"
# Deletes the chat's sent rows of one kind older than its KEEP_SENT newest (ids only grow, so
# "newest" is "highest id"); both lookups walk the partial index outbox_sent, at most
# KEEP_SENT + 1 entries.
_PRUNE_SENT = (
    "DELETE FROM outbox WHERE chat_id = ? AND kind = ? AND sent_at IS NOT NULL AND live = 0"
    " AND twin_floor IS NULL AND id <= ("
    " SELECT id FROM outbox WHERE chat_id = ? AND kind = ? AND sent_at IS NOT NULL"
    " ORDER BY id DESC LIMIT 1 OFFSET ?)")
# Items finished by one UPDATE of finish_outbox_many: three parameters each, far below
# SQLite's limit on parameters per statement (32766 since 3.32, 999 before).
_FINISH_CHUNK = 300


def _fetchall(conn: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> list[Any]:
    return conn.execute(sql, args).fetchall()


def _execute(conn: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> None:
    conn.execute(sql, args)


def _table(row: sqlite3.Row | tuple[Any, ...]) -> TableRecord:
    chat_id, game, settings, state, version, deadline, meta, rev = row
    return TableRecord(chat_id=chat_id, game=game, settings=json.loads(settings),
                       state_json=state, version=version, deadline=deadline,
                       meta_json=meta, rev=rev)


def _outbox_item(row: sqlite3.Row | tuple[Any, ...]) -> OutboxItem:
    item_id, chat_id, kind, target, payload, created_at, attempts = row
    return OutboxItem(id=item_id, chat_id=chat_id, kind=kind, target=target,
                      payload=json.loads(payload), created_at=created_at, attempts=attempts)


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)")
    applied = {row[0] for row in _fetchall(conn, "SELECT version FROM schema_migrations")}
    for migration in migrations("sqlite"):
        if migration.version in applied:
            continue
        for statement in sqlite_statements(migration.sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                     (migration.version, migration.name, time.time()))


def _wallet_row(conn: sqlite3.Connection, chat_id: int, user_id: int) -> tuple[str, int] | None:
    row = conn.execute("SELECT name, balance FROM wallets WHERE chat_id = ? AND user_id = ?",
                       (chat_id, user_id)).fetchone()
    return None if row is None else (row[0], row[1])


def _on_table(conn: sqlite3.Connection, chat_id: int, user_id: int) -> int:
    row = conn.execute("SELECT COALESCE(SUM(balance), 0) FROM table_accounts"
                       " WHERE chat_id = ? AND owner = ?", (chat_id, user_id)).fetchone()
    return int(row[0])


def _wallet(conn: sqlite3.Connection, chat_id: int, user_id: int) -> Wallet:
    row = _wallet_row(conn, chat_id, user_id)
    assert row is not None
    return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                  on_table=_on_table(conn, chat_id, user_id))


def _issue(conn: sqlite3.Connection, *, chat_id: int, user_id: int, amount: int, kind: str,
           now: float) -> None:
    """Book ``amount`` from the house to the wallet (grant or bonus) as its own step."""
    if amount == 0:
        return
    step_id = conn.execute(
        "INSERT INTO steps (chat_id, kind, coup, game, version, created_at)"
        " VALUES (?, ?, 0, '', NULL, ?)", (chat_id, kind, now)).lastrowid
    reason = "starting_grant" if kind == "grant" else "daily_bonus"
    conn.executemany(
        "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason, game,"
        " created_at) VALUES (?, ?, 0, ?, ?, ?, ?, '', ?)",
        [(step_id, chat_id, HOUSE, None, -amount, reason, now),
         (step_id, chat_id, f"wallet:{user_id}", user_id, amount, reason, now)])
    conn.execute("UPDATE wallets SET balance = balance + ? WHERE chat_id = ? AND user_id = ?",
                 (amount, chat_id, user_id))


def _stale_or_missing(conn: sqlite3.Connection, chat_id: int) -> StorageError:
    row = conn.execute("SELECT version, rev FROM tables WHERE chat_id = ?",
                       (chat_id,)).fetchone()
    if row is None:
        return TableNotFound(str(chat_id))
    return StaleVersion(f"table of chat {chat_id} is at version {row[0]}, rev {row[1]}")


_INSERT_OUTBOX = ("INSERT INTO outbox (chat_id, kind, target, payload, created_at)"
                  " VALUES (?, ?, ?, ?, ?)")


def _queue(conn: sqlite3.Connection, chat_id: int, drafts: Sequence[OutboxDraft],
           now: float) -> None:
    """Append ``drafts`` to the chat's outbox inside the caller's unit of work, in order."""
    if drafts:
        conn.executemany(_INSERT_OUTBOX, [(chat_id, d.kind, d.target, json.dumps(d.payload), now)
                                          for d in drafts])


def _queue_told(conn: sqlite3.Connection, chat_id: int, drafts: Sequence[OutboxDraft],
                now: float) -> Queued:
    """:func:`_queue`, and what it queued (see :class:`storage.base.Queued`)."""
    row = conn.execute("SELECT max(id) FROM outbox WHERE chat_id = ? AND sent_at IS NULL",
                       (chat_id,)).fetchone()
    queued = Queued(after=row[0])
    for d in drafts:
        payload = json.dumps(d.payload)
        item_id = conn.execute(_INSERT_OUTBOX, (chat_id, d.kind, d.target, payload, now)).lastrowid
        assert item_id is not None
        queued.items.append(OutboxItem(id=item_id, chat_id=chat_id, kind=d.kind, target=d.target,
                                       payload=json.loads(payload), created_at=now))
    return queued


def _finish_outbox(conn: sqlite3.Connection, done: Sequence[tuple[int, int | None]],
                   now: float, live: bool = False, sure: bool = False) -> None:
    """Mark ``done`` sent (an UPDATE per chunk of items), then prune the (chat, kind)s touched.

    An id listed twice keeps its first message id, as when the items were
    finished one by one (the second finds the row sent already).
    """
    touched: set[tuple[int, str]] = set()
    for start in range(0, len(done), _FINISH_CHUNK):
        chunk = done[start:start + _FINISH_CHUNK]
        cases = " ".join(["WHEN ? THEN ?"] * len(chunk))
        marks = ", ".join("?" * len(chunk))
        rows = _fetchall(
            conn,
            f"UPDATE outbox SET sent_at = ?, message_id = CASE id {cases} END, payload = '{{}}',"
            f" live = ?, twin_floor = CASE WHEN ? THEN NULL ELSE twin_floor END"
            f" WHERE id IN ({marks}) AND sent_at IS NULL RETURNING chat_id, kind",
            (now, *(value for pair in chunk for value in pair), int(live), int(sure),
             *(i for i, _ in chunk)))
        touched.update((r[0], r[1]) for r in rows)
    for chat_id, kind in touched:
        conn.execute(_PRUNE_SENT, (chat_id, kind, chat_id, kind, KEEP_SENT))


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
        self._trips: Trips | None = None

    # ------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Open the file (creating its directory), set the pragmas, apply migrations."""
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN IMMEDIATE ourselves; the sqlite3
        # module's implicit deferred BEGIN would take the writer lock too late.
        db = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await on_thread(db, self._setup)
        except BaseException:
            await db.close()
            raise
        self._db = db
        self._trips = Trips(db)

    def _setup(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if self.path != ":memory:" and (mode is None or str(mode[0]).lower() != "wal"):
            raise StorageError(f"could not switch {self.path} to WAL mode")
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        conn.execute("PRAGMA foreign_keys = ON")
        transaction(conn, _migrate)

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._db is not None:
            db, self._db = self._db, None
            if self._trips is not None:
                await self._trips.drain()  # what was asked for before runs
                self._trips = None
            await db.close()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(conn, *args)`` on the connection's thread, a read, after every unit asked
        for before it (:class:`storage.trips.Trips`)."""
        if self._trips is None:
            raise StorageError("storage is not open")
        return await self._trips.run(fn, *args, write=False)

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(conn, *args)`` as one unit of work (:func:`storage.trips.transaction`), after
        every unit asked for before it."""
        if self._trips is None:
            raise StorageError("storage is not open")
        return await self._trips.run(fn, *args, write=True)

    # -------------------------------------------------------------- wallets

    def _ensure_wallet(self, conn: sqlite3.Connection, *, chat_id: int, user_id: int, name: str,
                       now: float) -> None:
        cur = conn.execute(
            "INSERT INTO wallets (chat_id, user_id, name, balance, created_at)"
            " VALUES (?, ?, ?, 0, ?) ON CONFLICT DO NOTHING", (chat_id, user_id, name, now))
        if cur.rowcount == 1:
            _issue(conn, chat_id=chat_id, user_id=user_id, amount=self.starting_grant,
                   kind="grant", now=now)
        elif name:
            conn.execute("UPDATE wallets SET name = ? WHERE chat_id = ? AND user_id = ?"
                         " AND name <> ?", (name, chat_id, user_id, name))

    async def wallet(self, *, chat_id: int, user_id: int, name: str = "") -> Wallet:
        """The player's wallet, created on first use with the starting grant from the house.

        A non-empty ``name`` replaces the stored display name.
        """
        def created(conn: sqlite3.Connection) -> Wallet:
            self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name=name,
                                now=time.time())
            return _wallet(conn, chat_id, user_id)

        def unit(conn: sqlite3.Connection) -> Wallet:
            # Plain reads first; a transaction only when the wallet is new or renamed.
            row = _wallet_row(conn, chat_id, user_id)
            if row is not None and (not name or row[0] == name):
                return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                              on_table=_on_table(conn, chat_id, user_id))
            return transaction(conn, created)

        return await self._run(unit)

    async def claim_daily_bonus(self, *, chat_id: int, user_id: int, today: dt.date) -> Wallet:
        """Credit the daily bonus once per calendar day; raises :class:`BonusAlreadyClaimed`.

        A ``today`` earlier than the last claimed day is refused too, so a clock
        moved back cannot pay a second bonus.
        """
        day = today.isoformat()
        now = time.time()

        def unit(conn: sqlite3.Connection) -> Wallet:
            self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name="", now=now)
            if not _fetchall(
                    conn,
                    "UPDATE wallets SET last_bonus_day = ? WHERE chat_id = ? AND user_id = ?"
                    " AND (last_bonus_day IS NULL OR last_bonus_day < ?) RETURNING 1",
                    (day, chat_id, user_id, day)):
                raise BonusAlreadyClaimed(day)
            _issue(conn, chat_id=chat_id, user_id=user_id, amount=self.daily_bonus,
                   kind="bonus", now=now)
            return _wallet(conn, chat_id, user_id)

        return await self._write(unit)

    # --------------------------------------------------------------- tables

    async def create_table(self, *, chat_id: int, game: str, settings: dict[str, Any],
                           state_json: str, version: int, meta_json: str = "{}",
                           outbox: Sequence[OutboxDraft] = ()) -> TableRecord:
        """Open a table at rev 0 and write ``outbox`` with it.

        Raises :class:`TableExists` (nothing written) if the chat already has one.
        """
        now = time.time()
        row = (chat_id, game, json.dumps(settings), state_json, version, meta_json, now, now)

        def unit(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO tables (chat_id, game, settings, state, version, deadline, meta,"
                " created_at, updated_at, rev) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, 0)", row)
            _queue(conn, chat_id, outbox, now)

        try:
            await self._write(unit)
        except sqlite3.IntegrityError as exc:
            if "UNIQUE constraint failed: tables.chat_id" in str(exc):
                raise TableExists(str(chat_id)) from None
            raise
        return TableRecord(chat_id=chat_id, game=game, settings=settings, state_json=state_json,
                           version=version, deadline=None, meta_json=meta_json)

    async def load_table(self, *, chat_id: int) -> TableRecord:
        """The chat's open table; raises :class:`TableNotFound`."""
        rows = await self._run(
            _fetchall, f"SELECT {_TABLE_COLUMNS} FROM tables WHERE chat_id = ?", (chat_id,))
        if not rows:
            raise TableNotFound(str(chat_id))
        return _table(rows[0])

    async def open_tables(self) -> list[TableRecord]:
        """Every open table, by chat id (resumed at start-up)."""
        rows = await self._run(
            _fetchall, f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY chat_id")
        return [_table(row) for row in rows]

    def _book(self, conn: sqlite3.Connection, *, chat_id: int, kind: str, coup: int, game: str,
              version: int | None, booking: Booking, now: float) -> int:
        """Append the step and its ledger rows and move the balances; returns the step id."""
        users = [user_id for user_id, _ in booking.wallets]
        if users:
            marks = ", ".join("?" * len(users))
            known = {row[0] for row in _fetchall(
                conn, f"SELECT user_id FROM wallets WHERE chat_id = ? AND user_id IN ({marks})",
                (chat_id, *users))}
            for user_id in users:
                if user_id not in known:
                    self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name="", now=now)
        step_id = conn.execute(
            "INSERT INTO steps (chat_id, kind, coup, game, version, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)", (chat_id, kind, coup, game, version, now)).lastrowid
        assert step_id is not None
        if booking.rows:
            conn.executemany(
                "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason, game,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(step_id, chat_id, coup if r.coup is None else r.coup, r.account, r.owner,
                  r.delta, r.reason, game, now) for r in booking.rows])
        if booking.wallets:
            conn.executemany(
                "UPDATE wallets SET balance = balance + ? WHERE chat_id = ? AND user_id = ?",
                [(delta, chat_id, user_id) for user_id, delta in booking.wallets])
        credits = [(chat_id, a, owner, d) for a, d, owner in booking.table if d > 0]
        debits = [(d, chat_id, a) for a, d, _ in booking.table if d < 0]
        if credits:
            conn.executemany(
                "INSERT INTO table_accounts (chat_id, account, owner, balance)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, account)"
                " DO UPDATE SET balance = balance + excluded.balance", credits)
        if debits:
            # A debit goes through UPDATE so the CHECK sees the resulting balance
            # (an upsert would check the negative insert row first); a debit of an
            # account that has no row matches nothing and is an overdraft too.
            cur = conn.executemany(
                "UPDATE table_accounts SET balance = balance + ? WHERE chat_id = ? AND account = ?",
                debits)
            if cur.rowcount != len(debits):
                raise InsufficientFunds("an account would go below zero")
        return step_id

    async def commit_step(self, *, chat_id: int, expected_version: int, state_json: str,
                          version: int, transfers: Sequence[Transfer], coup: int,
                          deadline: float | None, meta_json: str | None = None,
                          outbox: Sequence[OutboxDraft] = (),
                          expected_rev: int | None = None, coups: Sequence[int] = (),
                          holders: Sequence[int | None] = (), queued: Queued | None = None,
                          settled: Sequence[SettledCoup] = ()) -> int:
        """One table step as one unit of work, ``outbox`` included; returns the step id.
        ``queued``: filled in with what ``outbox`` became, once committed. ``settled``: the
        coups it settles, recorded and counted (:mod:`storage.standings`).

        Raises :class:`StaleVersion` if the stored version is not ``expected_version``
        (or, when ``expected_rev`` is given, the stored rev is not it),
        :class:`InsufficientFunds` if an account would go negative (in those cases
        nothing is written), :class:`TableNotFound`, and ``ValueError`` unless
        ``version > expected_version`` (a write that keeps the version would let
        two racing writers both win). Raises the table's rev by one.
        """
        if version <= expected_version:
            raise ValueError("a step must raise the table version")
        booking = plan(transfers, coups, holders)
        now = time.time()
        rev_check = "" if expected_rev is None else " AND rev = ?"
        rev_args = () if expected_rev is None else (expected_rev,)

        def unit(conn: sqlite3.Connection) -> tuple[int, Queued | None]:
            rows = _fetchall(
                conn,
                "UPDATE tables SET state = ?, version = ?, deadline = ?,"
                " meta = COALESCE(?, meta), rev = rev + 1, updated_at = ?"
                f" WHERE chat_id = ? AND version = ?{rev_check} RETURNING game",
                (state_json, version, deadline, meta_json, now, chat_id, expected_version,
                 *rev_args))
            if not rows:
                raise _stale_or_missing(conn, chat_id)
            step_id = self._book(conn, chat_id=chat_id, kind="step", coup=coup, game=rows[0][0],
                                 version=version, booking=booking, now=now)
            record_sqlite(conn, step_id, chat_id, settled)
            board.record_sqlite(conn, step_id, chat_id, settled)
            if queued is not None:
                return step_id, _queue_told(conn, chat_id, outbox, now)
            _queue(conn, chat_id, outbox, now)
            return step_id, None

        step_id, written = await self._write(unit)
        if queued is not None:
            queued.fill(written)
        return step_id

    async def update_meta(self, *, chat_id: int, meta_json: str, expected_rev: int,
                          outbox: Sequence[OutboxDraft] = (), queued: Queued | None = None
                          ) -> int:
        """Replace the table's host metadata if its rev is ``expected_rev``; returns the new rev.

        Compare-and-set: :class:`StaleVersion` (nothing written) if the rev
        differs, :class:`TableNotFound` without a table. ``outbox`` is written in
        the same unit of work; ``queued`` is filled in with what it became, once committed.
        """
        now = time.time()

        def unit(conn: sqlite3.Connection) -> tuple[int, Queued | None]:
            rows = _fetchall(
                conn,
                "UPDATE tables SET meta = ?, rev = rev + 1, updated_at = ?"
                " WHERE chat_id = ? AND rev = ? RETURNING rev",
                (meta_json, now, chat_id, expected_rev))
            if not rows:
                raise _stale_or_missing(conn, chat_id)
            if queued is not None:
                return int(rows[0][0]), _queue_told(conn, chat_id, outbox, now)
            _queue(conn, chat_id, outbox, now)
            return int(rows[0][0]), None

        rev, written = await self._write(unit)
        if queued is not None:
            queued.fill(written)
        return rev

    async def close_table(self, *, chat_id: int, expected_version: int,
                          transfers: Sequence[Transfer], coup: int,
                          outbox: Sequence[OutboxDraft] = (),
                          holders: Sequence[int | None] = (),
                          settled: Sequence[SettledCoup] = ()) -> int:
        """Book the final transfers and delete the table; returns the step id.

        Refuses (:class:`InsufficientFunds`, nothing written) unless every table
        account ends at zero; the history stays in the ledger, and ``outbox``
        (written in the same unit) stays until it is delivered. ``settled`` as in
        :meth:`commit_step`.
        """
        booking = plan(transfers, holders=holders)
        now = time.time()

        def unit(conn: sqlite3.Connection) -> int:
            row = conn.execute("SELECT game, version FROM tables WHERE chat_id = ?",
                               (chat_id,)).fetchone()
            if row is None:
                raise TableNotFound(str(chat_id))
            if row[1] != expected_version:
                raise StaleVersion(f"table of chat {chat_id} is at version {row[1]}")
            step_id = self._book(conn, chat_id=chat_id, kind="close", coup=coup, game=row[0],
                                 version=expected_version, booking=booking, now=now)
            record_sqlite(conn, step_id, chat_id, settled)
            board.record_sqlite(conn, step_id, chat_id, settled)
            left = conn.execute("SELECT COUNT(*) FROM table_accounts"
                                " WHERE chat_id = ? AND balance <> 0", (chat_id,)).fetchone()
            if left is not None and left[0]:
                raise InsufficientFunds("chips are still on the table")
            conn.execute("DELETE FROM table_accounts WHERE chat_id = ?", (chat_id,))
            conn.execute("DELETE FROM tables WHERE chat_id = ?", (chat_id,))
            conn.execute("DELETE FROM presence WHERE chat_id = ?", (chat_id,))
            _queue(conn, chat_id, outbox, now)
            return step_id

        return await self._write(unit)

    # --------------------------------------------------------------- outbox

    async def pending_outbox(self, *, chat_id: int | None = None,
                             limit: int = 500) -> list[OutboxItem]:
        """Undelivered outbox items of one chat (or of all chats), by id."""
        where, args = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        rows = await self._run(
            _fetchall, f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL{where}"
            " ORDER BY id LIMIT ?", (*args, limit))
        return [_outbox_item(row) for row in rows]

    async def outbox_attempt(self, *, item_id: int, undo: bool = False,
                             floor: int | None = None) -> int:
        """Count one more delivery attempt (call it before a send); returns the new count.
        ``undo``: take back the attempt just counted, known to have sent nothing.
        ``floor``: see :meth:`storage.base.Storage.outbox_attempt` (the first one stays; an
        undo back to no attempt drops it).

        Raises :class:`OutboxItemNotFound` if there is no such row.
        """
        step = -1 if undo else 1
        rows = await self._write(
            _fetchall, "UPDATE outbox SET attempts = attempts + ?, twin_floor = CASE"
            " WHEN attempts + ? > 0 THEN coalesce(twin_floor, ?) END"
            " WHERE id = ? RETURNING attempts", (step, step, floor, item_id))
        if not rows:
            raise OutboxItemNotFound(str(item_id))
        return int(rows[0][0])

    async def finish_outbox(self, *, item_id: int, message_id: int | None = None,
                            live: bool = False, sure: bool = False) -> None:
        """Mark the item delivered (or given up) and blank its payload (DMs hold hidden cards).
        ``live``: the message carries buttons until :meth:`retire_sent` (a table message).

        Idempotent: finishing a sent (or pruned) item changes nothing. The chat
        keeps its ``KEEP_SENT`` newest sent rows of each kind (so a burst of DMs never prunes
        the id of the live table message), and every live one; older ones go in the same unit.
        ``sure``: the post made exactly this message, no twin (its floor goes).
        """
        await self._write(_finish_outbox, [(item_id, message_id)], time.time(), live, sure)

    async def twin_floors(self, *, chat_id: int) -> list[tuple[int, int]]:
        """(item id, floor) of the chat's posts that may have an unrecorded twin."""
        rows = await self._run(
            _fetchall, "SELECT id, twin_floor FROM outbox WHERE chat_id = ?"
            " AND twin_floor IS NOT NULL ORDER BY id", (chat_id,))
        return [(int(row[0]), int(row[1])) for row in rows]

    async def twins_resolved(self, *, item_ids: Sequence[int], upto: int | None = None) -> None:
        """The possible twins of these posts lost their buttons: their floors go (``upto``:
        rise to it, see :meth:`storage.base.Storage.twins_resolved`)."""
        if item_ids:
            marks = ", ".join("?" * len(item_ids))
            await self._write(_execute, f"UPDATE outbox SET twin_floor = CASE WHEN ? IS NULL"
                              f" THEN NULL ELSE max(twin_floor, ?) END"
                              f" WHERE id IN ({marks}) AND twin_floor IS NOT NULL",
                              (upto, upto, *item_ids))

    async def record_sent(self, *, chat_id: int, kind: str, message_id: int,
                          live: bool = False) -> None:
        """A message sent outside the outbox, kept as a sent item (see
        :meth:`storage.base.Storage.record_sent`)."""

        def unit(conn: sqlite3.Connection) -> None:
            now = time.time()
            rows = _fetchall(conn, "INSERT INTO outbox (chat_id, kind, target, created_at)"
                             " VALUES (?, ?, ?, ?) RETURNING id", (chat_id, kind, chat_id, now))
            _finish_outbox(conn, [(int(rows[0][0]), message_id)], now, live)

        await self._write(unit)

    async def live_sent(self, *, chat_id: int, kind: str | None = None) -> list[int]:
        """Message ids of the chat's sent items (of ``kind``, or of any) still marked live,
        newest (highest id) first (a message recorded late, :meth:`record_sent`, keeps its
        place)."""
        rows = await self._run(
            _fetchall, "SELECT message_id FROM outbox WHERE chat_id = ? AND live = 1"
            " AND (? IS NULL OR kind = ?) ORDER BY message_id DESC", (chat_id, kind, kind))
        return [int(row[0]) for row in rows]

    async def retire_sent(self, *, chat_id: int, message_ids: Sequence[int]) -> None:
        """These messages of the chat carry no live buttons any more."""
        if message_ids:
            marks = ", ".join("?" * len(message_ids))
            await self._write(_execute, f"UPDATE outbox SET live = 0 WHERE chat_id = ? AND live = 1"
                              f" AND message_id IN ({marks})", (chat_id, *message_ids))

    async def finish_outbox_many(self, *, done: Sequence[tuple[int, int | None]],
                                 live: bool = False, sure: bool = False) -> None:
        """:meth:`finish_outbox` for several items (id, message id) in one unit."""
        await self._write(_finish_outbox, done, time.time(), live, sure)

    async def last_sent(self, *, chat_id: int, kind: str, limit: int = 1) -> list[int]:
        """Message ids of the chat's newest sent items of ``kind`` that have one, newest first."""
        rows = await self._run(
            _fetchall, "SELECT message_id FROM outbox WHERE chat_id = ? AND sent_at IS NOT NULL"
            " AND kind = ? AND message_id IS NOT NULL ORDER BY id DESC LIMIT ?",
            (chat_id, kind, limit))
        return [int(row[0]) for row in rows]

    async def outbox_chats(self) -> list[int]:
        """Chats with undelivered outbox items (resumed at start-up), ascending."""
        rows = await self._run(
            _fetchall, "SELECT DISTINCT chat_id FROM outbox WHERE sent_at IS NULL ORDER BY chat_id")
        return [int(row[0]) for row in rows]

    # ------------------------------------------------------------ read side

    async def table_accounts(self, *, chat_id: int) -> dict[str, int]:
        """Non-zero balances of the chat's table accounts."""
        rows = await self._run(
            _fetchall, "SELECT account, balance FROM table_accounts WHERE chat_id = ?"
            " AND balance <> 0 ORDER BY account", (chat_id,))
        return {row[0]: row[1] for row in rows}

    async def leaderboard(self, *, chat_id: int, limit: int = 10) -> list[Wallet]:
        """Richest players of the chat (wallet + on the table), richest first, then by user id."""
        rows = await self._run(
            _fetchall,
            "SELECT w.user_id, w.name, w.balance, COALESCE(t.on_table, 0)"
            " FROM wallets w LEFT JOIN ("
            "   SELECT owner, SUM(balance) AS on_table FROM table_accounts"
            "   WHERE chat_id = ? AND owner IS NOT NULL GROUP BY owner"
            " ) t ON t.owner = w.user_id"
            " WHERE w.chat_id = ?"
            " ORDER BY w.balance + COALESCE(t.on_table, 0) DESC, w.user_id LIMIT ?",
            (chat_id, chat_id, limit))
        return [Wallet(chat_id=chat_id, user_id=r[0], name=r[1], balance=r[2], on_table=r[3])
                for r in rows]

    async def recent_coups(self, *, chat_id: int, user_id: int,
                           limit: int = 10) -> list[LedgerEntry]:
        """The player's latest ledger rows in the chat (wallet, stack, stake), newest first."""
        rows = await self._run(
            _fetchall,
            "SELECT step_id, chat_id, coup, account, delta, reason, game, created_at"
            " FROM ledger WHERE chat_id = ? AND owner = ? ORDER BY entry_id DESC LIMIT ?",
            (chat_id, user_id, limit))
        return [LedgerEntry(step_id=r[0], chat_id=r[1], coup=r[2], account=r[3], delta=r[4],
                            reason=r[5], game=r[6], created_at=r[7]) for r in rows]

    async def wallets_of(self, *, user_id: int) -> list[ChatWallet]:
        """Every wallet the player has, in any chat, richest first (wallet and table
        together), then by chat; none is created."""
        rows = await self._run(
            _fetchall,
            "SELECT w.chat_id, w.name, w.balance, COALESCE(t.on_table, 0),"
            " COALESCE(c.title, ''), COALESCE(tb.game, '')"
            " FROM wallets w LEFT JOIN ("
            "   SELECT chat_id, SUM(balance) AS on_table FROM table_accounts"
            "   WHERE owner = ? GROUP BY chat_id"
            " ) t ON t.chat_id = w.chat_id"
            " LEFT JOIN chats c ON c.chat_id = w.chat_id"
            " LEFT JOIN tables tb ON tb.chat_id = w.chat_id"
            " WHERE w.user_id = ?"
            " ORDER BY w.balance + COALESCE(t.on_table, 0) DESC, w.chat_id",
            (user_id, user_id))
        return [ChatWallet(wallet=Wallet(chat_id=r[0], user_id=user_id, name=r[1],
                                         balance=r[2], on_table=r[3]), title=r[4], game=r[5])
                for r in rows]

    async def player_stats(self, *, user_id: int, chat_id: int | None = None,
                           game: str | None = None) -> PlayerStats:
        """See :meth:`storage.base.Storage.player_stats`."""
        queries = player_queries("sqlite", user_id=user_id, chat_id=chat_id, game=game)

        def unit(conn: sqlite3.Connection) -> PlayerStats:
            totals, feats, runs = [conn.execute(sql, args).fetchall() for sql, args in queries]
            return player_stats_of(user_id, totals[0], feats, runs)

        return await self._run(unit)

    async def net_by_day(self, *, user_id: int, chat_id: int | None = None,
                         game: str | None = None) -> list[tuple[dt.date, int]]:
        """See :meth:`storage.base.Storage.net_by_day`."""
        sql, args = net_days_query("sqlite", user_id=user_id, chat_id=chat_id, game=game)
        return net_days_of(await self._run(_fetchall, sql, args))

    async def standings(self, *, chat_id: int, game: str | None = None,
                        since: dt.date | None = None, until: dt.date | None = None,
                        min_coups: int = 1, limit: int = 10) -> list[Standing]:
        """See :meth:`storage.base.Storage.standings`."""
        sql, args = standings_query("sqlite", chat_id=chat_id, game=game, since=since,
                                    until=until, min_coups=min_coups, limit=limit)
        return standings_of(await self._run(_fetchall, sql, args))

    async def achievements_due(self, *, chat_id: int,
                               settled: Sequence[SettledCoup]) -> list[Earned]:
        """See :meth:`storage.base.Storage.achievements_due`."""
        return await self._run(due_sqlite, chat_id, settled)

    async def achievements(self, *, user_id: int, chat_id: int | None = None) -> list[Earned]:
        """See :meth:`storage.base.Storage.achievements`."""
        sql, args = achievements_query("sqlite", user_id=user_id, chat_id=chat_id)
        return achievements_in(await self._run(_fetchall, sql, args))

    async def rating(self, *, user_id: int, chat_id: int) -> Rating | None:
        """See :meth:`storage.base.Storage.rating`."""
        m = Marks("sqlite")
        sql = rating_query(m, chat_id=chat_id, user_id=user_id)
        return next(iter(ratings_of(await self._run(_fetchall, sql, m.args))), None)

    async def ratings(self, *, chat_id: int, min_hands: int = 1,
                      limit: int = 10) -> list[Rating]:
        """See :meth:`storage.base.Storage.ratings`."""
        m = Marks("sqlite")
        sql = ratings_query(m, chat_id=chat_id, min_hands=min_hands, limit=limit)
        return ratings_of(await self._run(_fetchall, sql, m.args))

    async def rebuild_stats(self) -> int:
        """See :meth:`storage.base.Storage.rebuild_stats`: a unit of work per chat, so that
        the file's writer lock is never held long (a bot running beside waits for one chat's
        rebuild at most); each chat's figures are whole at every commit."""
        chats = await self._run(_fetchall, REBUILT_CHATS)
        count = sum([await self._write(rebuild_sqlite, chat_id) for (chat_id,) in chats])
        await self._write(board.refill_sqlite)  # the all-chats board, from the rebuilt days
        return count

    async def coups_between(self, *, chat_id: int, since: dt.date,
                            until: dt.date) -> list[SettledCoup]:
        """See :meth:`storage.base.Storage.coups_between`."""
        rows = await self._run(_fetchall, *coups_query("sqlite", chat_id, since, until))
        return [SettledCoup.model_validate_json(r[0]) for r in rows]

    async def unseasoned_chats(self, *, kind: str, first_day: dt.date,
                               last_day: dt.date) -> list[int]:
        """See :meth:`storage.base.Storage.unseasoned_chats`."""
        query = unseasoned_query("sqlite", kind, first_day, last_day)
        return [int(r[0]) for r in await self._run(_fetchall, *query)]

    async def record_season(self, *, chat_id: int, kind: str, first_day: dt.date,
                            last_day: dt.date, results: dict[str, Any],
                            titles: Mapping[str, int],
                            post: Callable[[Season], Sequence[OutboxDraft]]) -> Season | None:
        """See :meth:`storage.base.Storage.record_season`."""
        now = time.time()
        insert = insert_season("sqlite", chat_id, kind, first_day, last_day, now, results)

        def unit(conn: sqlite3.Connection) -> Season | None:
            rows = conn.execute(*insert).fetchall()
            if not rows:
                return None
            number = int(rows[0][0])
            conn.executemany(insert_titles("sqlite"), title_rows(chat_id, number, titles))
            season = Season(chat_id=chat_id, number=number, kind=kind, first_day=first_day,
                            last_day=last_day, posted_at=now, results=results)
            _queue(conn, chat_id, post(season), now)
            return season

        return await self._write(unit)

    async def seasons(self, *, chat_id: int) -> list[Season]:
        """See :meth:`storage.base.Storage.seasons`."""
        return [season_of(r) for r in await self._run(
            _fetchall, *seasons_query("sqlite", chat_id))]

    async def player_titles(self, *, user_id: int) -> list[SeasonTitle]:
        """See :meth:`storage.base.Storage.player_titles`."""
        return [title_of(r) for r in await self._run(
            _fetchall, *titles_query("sqlite", user_id))]

    async def chat_language(self, *, chat_id: int) -> str | None:
        """The chat's chosen language, if any."""
        rows = await self._run(
            _fetchall, "SELECT language FROM chats WHERE chat_id = ?", (chat_id,))
        return None if not rows else cast(str | None, rows[0][0])

    async def set_chat_language(self, *, chat_id: int, language: str) -> None:
        """Remember the chat's language."""
        await self._write(
            _fetchall,
            "INSERT INTO chats (chat_id, language) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
            (chat_id, language))

    async def set_chat_title(self, *, chat_id: int, title: str) -> None:
        """Remember the chat's title."""
        await self._write(
            _fetchall,
            "INSERT INTO chats (chat_id, title) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET title = excluded.title",
            (chat_id, title))

    async def chat_title(self, *, chat_id: int) -> str:
        """The chat's title as last remembered; empty if none was."""
        rows = await self._run(
            _fetchall, "SELECT title FROM chats WHERE chat_id = ?", (chat_id,))
        return str(rows[0][0] or "") if rows else ""

    async def chat_settings(self, *, chat_id: int) -> dict[str, Any]:
        """The chat's defaults for its next tables (``/settings default``); empty if none."""
        rows = await self._run(
            _fetchall, "SELECT settings FROM chats WHERE chat_id = ?", (chat_id,))
        return dict(json.loads(rows[0][0])) if rows and rows[0][0] else {}

    async def set_chat_settings(self, *, chat_id: int, settings: dict[str, Any]) -> None:
        """Replace the chat's defaults for its next tables (JSON values); listing the chat on
        the all-chats board or unlisting it moves its figures there (:mod:`storage.board`)."""
        def unit(conn: sqlite3.Connection) -> None:
            board.relist_sqlite(conn, chat_id, settings)
            conn.execute("INSERT INTO chats (chat_id, settings) VALUES (?, ?)"
                         " ON CONFLICT (chat_id) DO UPDATE SET settings = excluded.settings",
                         (chat_id, json.dumps(settings)))
        await self._write(unit)

    # ------------------------------------------------------------ kept updates

    async def keep_updates(self, *, updates: Sequence[tuple[int, str]],
                           read_below: int, done: Sequence[int] = ()) -> None:
        """See :meth:`storage.base.Storage.keep_updates`."""
        def unit(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT OR IGNORE INTO kept_updates (update_id, body)"
                             " VALUES (?, ?)", updates)
            conn.executemany("UPDATE kept_updates SET done = 1 WHERE update_id = ?",
                             [(i,) for i in done])
            conn.execute("DELETE FROM kept_updates WHERE done = 1 AND update_id < ?",
                         (read_below,))
        await self._write(unit)

    async def updates_done(self, *, update_ids: Sequence[int]) -> None:
        """See :meth:`storage.base.Storage.updates_done`."""
        def unit(conn: sqlite3.Connection) -> None:
            conn.executemany("UPDATE kept_updates SET done = 1 WHERE update_id = ?",
                             [(i,) for i in update_ids])
        await self._write(unit)

    async def kept_updates(self) -> list[KeptUpdate]:
        """See :meth:`storage.base.Storage.kept_updates`."""
        rows = await self._run(
            _fetchall, "SELECT update_id, body, done FROM kept_updates ORDER BY update_id")
        return [KeptUpdate(update_id=i, body=b, done=bool(d)) for i, b, d in rows]

    async def mark_alive(self, *, worker: str, at: float) -> None:
        """Mark this process (``worker``) alive at ``at``; marks an hour older go."""
        def unit(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO alive (worker, at) VALUES (?, ?)"
                         " ON CONFLICT (worker) DO UPDATE SET at = excluded.at", (worker, at))
            conn.execute("DELETE FROM alive WHERE at < ?", (at - STALE_MARK,))
        await self._write(unit)

    async def last_alive(self, *, other_than: str | None = None) -> float | None:
        """The newest mark of any process but ``other_than`` (None: none yet)."""
        rows = await self._run(_fetchall, "SELECT max(at) FROM alive WHERE worker IS NOT ?",
                               (other_than,))
        return float(rows[0][0]) if rows and rows[0][0] is not None else None

    async def add_presence(self, *, chat_id: int, decision: int, shown: Sequence[Shown]
                           ) -> None:
        """See :meth:`storage.base.Storage.add_presence`."""
        def unit(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM presence WHERE chat_id = ? AND decision < ?",
                         (chat_id, decision))
            conn.executemany(
                "INSERT INTO presence (chat_id, decision, player, channel, shown_at,"
                " message_id, digest) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(chat_id, decision, s.player, s.channel, s.shown_at, s.message_id, s.digest)
                 for s in shown])
        await self._write(unit)

    async def presence(self, *, chat_id: int, decision: int) -> list[Shown]:
        """See :meth:`storage.base.Storage.presence`."""
        rows = await self._run(
            _fetchall, "SELECT player, channel, shown_at, message_id, digest FROM presence"
            " WHERE chat_id = ? AND decision = ? ORDER BY shown_at", (chat_id, decision))
        return [Shown(player=r[0], channel=r[1], shown_at=r[2], message_id=r[3], digest=r[4])
                for r in rows]

    # ------------------------------------------------------------ all-chats board

    async def board(self, *, game: str | None = None, since: dt.date | None = None,
                    until: dt.date | None = None, min_coups: int = 1,
                    limit: int = 10) -> list[BoardStanding]:
        """See :meth:`storage.base.Storage.board`: a week or a month with its window, made
        first if it does not stand (:mod:`storage.board`)."""
        window = board.window_of(game, since, until)
        query = board.board_query("sqlite", game=game, since=since, until=until,
                                  min_coups=min_coups, limit=limit, window=window)
        rows = await self._run(board.board_sqlite, query, window)
        if rows is None and window is not None:
            await self._write(board.build_sqlite, window)
            rows = await self._run(board.board_sqlite, query, window)
        if rows is None:  # dropped again at once: added up without it
            rows = await self._run(board.board_sqlite, board.board_query(
                "sqlite", game=game, since=since, until=until, min_coups=min_coups,
                limit=limit), None)
        return board.board_of(rows or [])

    async def player_public(self, *, user_id: int) -> bool:
        """See :meth:`storage.base.Storage.player_public`."""
        rows = await self._run(_fetchall, "SELECT public FROM privacy WHERE user_id = ?",
                               (user_id,))
        return bool(rows and rows[0][0])

    async def set_player_public(self, *, user_id: int, public: bool) -> None:
        """See :meth:`storage.base.Storage.set_player_public`."""
        await self._write(
            _execute, "INSERT INTO privacy (user_id, public, set_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET public = excluded.public,"
            " set_at = excluded.set_at", (user_id, int(public), time.time()))

    async def audit(self) -> dict[str, int]:
        """Whole-database chip accounting, for operators and tests (see ``AUDIT_QUERIES``)."""
        def unit(conn: sqlite3.Connection) -> dict[str, int]:
            out: dict[str, int] = {}
            for key, sql in AUDIT_QUERIES.items():
                row = conn.execute(sql).fetchone()
                out[key] = int(row[0]) if row else 0
            return out

        return await self._run(unit)

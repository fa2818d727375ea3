"""The PostgreSQL backend, for a deployment of several bot processes (:mod:`asyncpg`).

Same interface and schema shape as :mod:`storage.sqlite`. A table step is one
transaction (READ COMMITTED) that starts with the conditional
``UPDATE tables ... WHERE version = $expected``: that row lock serializes the
table's writers, and a writer that waited re-reads the row, sees the new
version and matches nothing, so it gets :class:`StaleVersion` and writes
nothing. Balance rows are then touched in a fixed order (see
:class:`storage.booking.Booking`) so two steps cannot deadlock.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

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
from .migrate import migrations
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
    due_postgres,
    net_days_of,
    net_days_query,
    player_queries,
    player_stats_of,
    rebuild_postgres,
    record_postgres,
    standings_of,
    standings_query,
)

_BALANCE_CHECKS = {"wallets_balance_nonnegative", "table_accounts_balance_nonnegative"}
_MIGRATION_LOCK = 0x62616E636F  # "banco": serializes migrations of concurrent starters
_TABLE_COLUMNS = "chat_id, game, settings::text, state, version, deadline, meta::text, rev"
_OUTBOX_COLUMNS = ("id, chat_id, kind, target, payload::text,"
                   " EXTRACT(EPOCH FROM created_at)::float8, attempts")
# Deletes the chat's sent rows of one kind older than its KEEP_SENT newest (ids only grow, so
# "newest" is "highest id"); both lookups walk the partial index outbox_sent, at most
# KEEP_SENT + 1 entries.
# Two finishes of one chat racing in two processes may leave one row too many until the next.
_PRUNE_SENT = (
    "DELETE FROM outbox WHERE chat_id = $1 AND kind = $2 AND sent_at IS NOT NULL AND NOT live"
    " AND twin_floor IS NULL AND id <= ("
    " SELECT id FROM outbox WHERE chat_id = $1 AND kind = $2 AND sent_at IS NOT NULL"
    " ORDER BY id DESC OFFSET $3 LIMIT 1)")


def _table(row: asyncpg.Record) -> TableRecord:
    return TableRecord(chat_id=row[0], game=row[1], settings=json.loads(row[2]),
                       state_json=row[3], version=row[4], deadline=row[5],
                       meta_json=row[6], rev=row[7])


def _outbox_item(row: asyncpg.Record) -> OutboxItem:
    return OutboxItem(id=row[0], chat_id=row[1], kind=row[2], target=row[3],
                      payload=json.loads(row[4]), created_at=row[5], attempts=row[6])


_INSERT_OUTBOX = (
    "INSERT INTO outbox (chat_id, kind, target, payload)"
    " SELECT $1, k, t, p::jsonb FROM unnest($2::text[], $3::bigint[], $4::text[])"
    "   WITH ORDINALITY AS x(k, t, p, n) ORDER BY n")


async def _queue(conn: asyncpg.Connection, chat_id: int, drafts: Sequence[OutboxDraft],
                 told: bool = False) -> Queued | None:
    """Append ``drafts`` to the chat's outbox inside the caller's transaction, in order;
    ``told``: return what it queued (see :class:`storage.base.Queued`), else None.

    Callers hold the chat's ``tables`` row lock first, so a chat's ids follow its commits.
    """
    if told:
        after = await conn.fetchval(
            "SELECT max(id) FROM outbox WHERE chat_id = $1 AND sent_at IS NULL", chat_id)
        rows = await conn.fetch(
            f"{_INSERT_OUTBOX} RETURNING {_OUTBOX_COLUMNS}", chat_id,
            [d.kind for d in drafts], [d.target for d in drafts],
            [json.dumps(d.payload) for d in drafts]) if drafts else []
        return Queued(after, sorted((_outbox_item(r) for r in rows), key=lambda i: i.id))
    if drafts:
        await conn.execute(_INSERT_OUTBOX, chat_id, [d.kind for d in drafts],
                           [d.target for d in drafts], [json.dumps(d.payload) for d in drafts])
    return None


class PostgresStorage:
    """:class:`storage.base.Storage` on PostgreSQL through an asyncpg pool."""

    def __init__(self, dsn: str, *, starting_grant: int, daily_bonus: int,
                 schema: str | None = None, max_connections: int = 10) -> None:
        """Configure; ``schema`` (created if missing) holds the tables instead of ``public``."""
        if starting_grant < 0 or daily_bonus < 0:
            raise ValueError("grants and bonuses cannot be negative")
        if schema is not None and not schema.replace("_", "").isalnum():
            raise ValueError("schema must be a plain identifier")
        self.dsn = dsn
        self.starting_grant = starting_grant
        self.daily_bonus = daily_bonus
        self.schema = schema
        self.max_connections = max_connections
        self._pool: asyncpg.Pool | None = None

    # ------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Connect (creating the schema if asked) and apply pending migrations."""
        settings: dict[str, str] = {}
        if self.schema is not None:
            conn = await asyncpg.connect(self.dsn)
            try:
                # IF NOT EXISTS does not hold against a concurrent creator (a unique
                # violation): workers starting together on a new schema take turns
                async with conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            finally:
                await conn.close()
            settings["search_path"] = self.schema
        self._pool = await asyncpg.create_pool(self.dsn, min_size=1,
                                               max_size=self.max_connections,
                                               server_settings=settings)
        try:
            await self._migrate()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Close the pool (idempotent)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def _migrate(self) -> None:
        async with self._tx() as conn:
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY,"
                " name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
            applied = {r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")}
            for migration in migrations("postgres"):
                if migration.version not in applied:
                    await conn.execute(migration.sql)
                    await conn.execute("INSERT INTO schema_migrations (version, name)"
                                       " VALUES ($1, $2)", migration.version, migration.name)

    def _get_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError("storage is not open")
        return self._pool

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[asyncpg.Connection]:
        """One unit of work: commits if the block ends normally, otherwise rolls back."""
        async with self._get_pool().acquire() as conn:
            try:
                async with conn.transaction():
                    yield conn
            except asyncpg.CheckViolationError as exc:
                # The CHECK (balance >= 0): the database refuses the overdraft.
                if exc.constraint_name in _BALANCE_CHECKS:
                    raise InsufficientFunds("an account would go below zero") from exc
                raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[asyncpg.Connection]:
        async with self._get_pool().acquire() as conn:
            yield conn

    # -------------------------------------------------------------- wallets

    async def _issue(self, conn: asyncpg.Connection, *, chat_id: int, user_id: int,
                     amount: int, kind: str) -> None:
        """Book ``amount`` from the house to the wallet (grant or bonus) as its own step."""
        if amount == 0:
            return
        step_id = await conn.fetchval(
            "INSERT INTO steps (chat_id, kind) VALUES ($1, $2) RETURNING step_id", chat_id, kind)
        reason = "starting_grant" if kind == "grant" else "daily_bonus"
        await conn.execute(
            "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason)"
            " VALUES ($1, $2, 0, $3, NULL, $4, $6), ($1, $2, 0, $5, $7, $8, $6)",
            step_id, chat_id, HOUSE, -amount, f"wallet:{user_id}", reason, user_id, amount)
        await conn.execute(
            "UPDATE wallets SET balance = balance + $1 WHERE chat_id = $2 AND user_id = $3",
            amount, chat_id, user_id)

    async def _ensure_wallet(self, conn: asyncpg.Connection, *, chat_id: int, user_id: int,
                             name: str) -> None:
        created = await conn.fetchval(
            "INSERT INTO wallets (chat_id, user_id, name, balance) VALUES ($1, $2, $3, 0)"
            " ON CONFLICT DO NOTHING RETURNING true", chat_id, user_id, name)
        if created:
            await self._issue(conn, chat_id=chat_id, user_id=user_id,
                              amount=self.starting_grant, kind="grant")
        elif name:
            await conn.execute("UPDATE wallets SET name = $1 WHERE chat_id = $2 AND user_id = $3"
                               " AND name <> $1", name, chat_id, user_id)

    async def _wallet(self, conn: asyncpg.Connection, chat_id: int,
                      user_id: int) -> Wallet | None:
        row = await conn.fetchrow(
            "SELECT name, balance, (SELECT COALESCE(SUM(balance), 0)::bigint FROM table_accounts"
            "   WHERE chat_id = $1 AND owner = $2)"
            " FROM wallets WHERE chat_id = $1 AND user_id = $2", chat_id, user_id)
        if row is None:
            return None
        return Wallet(chat_id=chat_id, user_id=user_id, name=row[0], balance=row[1],
                      on_table=row[2])

    async def wallet(self, *, chat_id: int, user_id: int, name: str = "") -> Wallet:
        """The player's wallet, created on first use with the starting grant from the house.

        A non-empty ``name`` replaces the stored display name.
        """
        async with self._read() as conn:
            found = await self._wallet(conn, chat_id, user_id)
        if found is not None and (not name or found.name == name):
            return found
        async with self._tx() as conn:
            await self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name=name)
            found = await self._wallet(conn, chat_id, user_id)
        assert found is not None
        return found

    async def claim_daily_bonus(self, *, chat_id: int, user_id: int, today: dt.date) -> Wallet:
        """Credit the daily bonus once per calendar day; raises :class:`BonusAlreadyClaimed`.

        A ``today`` earlier than the last claimed day is refused too, so a clock
        moved back cannot pay a second bonus.
        """
        async with self._tx() as conn:
            await self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name="")
            claimed = await conn.fetchval(
                "UPDATE wallets SET last_bonus_day = $3 WHERE chat_id = $1 AND user_id = $2"
                " AND (last_bonus_day IS NULL OR last_bonus_day < $3) RETURNING true",
                chat_id, user_id, today)
            if not claimed:
                raise BonusAlreadyClaimed(today.isoformat())
            await self._issue(conn, chat_id=chat_id, user_id=user_id, amount=self.daily_bonus,
                              kind="bonus")
            found = await self._wallet(conn, chat_id, user_id)
        assert found is not None
        return found

    # --------------------------------------------------------------- tables

    async def create_table(self, *, chat_id: int, game: str, settings: dict[str, Any],
                           state_json: str, version: int, meta_json: str = "{}",
                           outbox: Sequence[OutboxDraft] = ()) -> TableRecord:
        """Open a table at rev 0 and write ``outbox`` with it.

        Raises :class:`TableExists` (nothing written) if the chat already has one.
        """
        try:
            async with self._tx() as conn:
                await conn.execute(
                    "INSERT INTO tables (chat_id, game, settings, state, version, meta, rev)"
                    " VALUES ($1, $2, $3::jsonb, $4, $5, $6::jsonb, 0)",
                    chat_id, game, json.dumps(settings), state_json, version, meta_json)
                await _queue(conn, chat_id, outbox)
        except asyncpg.UniqueViolationError:
            raise TableExists(str(chat_id)) from None
        return TableRecord(chat_id=chat_id, game=game, settings=settings, state_json=state_json,
                           version=version, deadline=None, meta_json=meta_json)

    async def load_table(self, *, chat_id: int) -> TableRecord:
        """The chat's open table; raises :class:`TableNotFound`."""
        async with self._read() as conn:
            row = await conn.fetchrow(
                f"SELECT {_TABLE_COLUMNS} FROM tables WHERE chat_id = $1", chat_id)
        if row is None:
            raise TableNotFound(str(chat_id))
        return _table(row)

    async def open_tables(self) -> list[TableRecord]:
        """Every open table, by chat id (resumed at start-up)."""
        async with self._read() as conn:
            rows = await conn.fetch(f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY chat_id")
        return [_table(row) for row in rows]

    async def _book(self, conn: asyncpg.Connection, *, chat_id: int, kind: str, coup: int,
                    game: str, version: int | None, booking: Booking) -> int:
        """Append the step and its ledger rows and move the balances; returns the step id.

        Rows go in batches (``unnest``): round trips dominate a step's cost. The
        caller holds the table's row lock, and only steps of this chat touch its
        balance rows, so batched updates cannot deadlock with each other.
        """
        users = [user_id for user_id, _ in booking.wallets]
        if users:
            known = {r[0] for r in await conn.fetch(
                "SELECT user_id FROM wallets WHERE chat_id = $1 AND user_id = ANY($2::bigint[])",
                chat_id, users)}
            for user_id in users:
                if user_id not in known:
                    await self._ensure_wallet(conn, chat_id=chat_id, user_id=user_id, name="")
        step_id: int = await conn.fetchval(
            "INSERT INTO steps (chat_id, kind, coup, game, version)"
            " VALUES ($1, $2, $3, $4, $5) RETURNING step_id", chat_id, kind, coup, game, version)
        if booking.rows:
            await conn.execute(
                "INSERT INTO ledger (step_id, chat_id, coup, account, owner, delta, reason, game)"
                " SELECT $1, $2, c, a, o, d, r, $3"
                " FROM unnest($4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::int[])"
                "   WITH ORDINALITY AS x(a, o, d, r, c, n) ORDER BY n",
                step_id, chat_id, game,
                [r.account for r in booking.rows], [r.owner for r in booking.rows],
                [r.delta for r in booking.rows], [r.reason for r in booking.rows],
                [coup if r.coup is None else r.coup for r in booking.rows])
        if booking.wallets:
            await conn.execute(
                "UPDATE wallets w SET balance = w.balance + x.d"
                " FROM unnest($2::bigint[], $3::bigint[]) AS x(u, d)"
                " WHERE w.chat_id = $1 AND w.user_id = x.u",
                chat_id, users, [d for _, d in booking.wallets])
        credits = [(a, d, owner) for a, d, owner in booking.table if d > 0]
        debits = [(a, d) for a, d, _ in booking.table if d < 0]
        if credits:
            await conn.execute(
                "INSERT INTO table_accounts (chat_id, account, owner, balance)"
                " SELECT $1, a, o, d FROM unnest($2::text[], $3::bigint[], $4::bigint[])"
                "   AS x(a, o, d)"
                " ON CONFLICT (chat_id, account)"
                " DO UPDATE SET balance = table_accounts.balance + excluded.balance",
                chat_id, [c[0] for c in credits], [c[2] for c in credits],
                [c[1] for c in credits])
        if debits:
            # A debit of an account that has no row matches nothing: an overdraft too.
            status = await conn.execute(
                "UPDATE table_accounts t SET balance = t.balance + x.d"
                " FROM unnest($2::text[], $3::bigint[]) AS x(a, d)"
                " WHERE t.chat_id = $1 AND t.account = x.a",
                chat_id, [a for a, _ in debits], [d for _, d in debits])
            if status != f"UPDATE {len(debits)}":
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
        ``version > expected_version``. Raises the table's rev by one.
        """
        if version <= expected_version:
            raise ValueError("a step must raise the table version")
        booking = plan(transfers, coups, holders)
        async with self._tx() as conn:
            game = await conn.fetchval(
                "UPDATE tables SET state = $1, version = $2, deadline = $3,"
                " meta = COALESCE($4::jsonb, meta), rev = rev + 1, updated_at = now()"
                " WHERE chat_id = $5 AND version = $6 AND ($7::bigint IS NULL OR rev = $7)"
                " RETURNING game",
                state_json, version, deadline, meta_json, chat_id, expected_version,
                expected_rev)
            if game is None:
                raise await self._stale_or_missing(conn, chat_id)
            step_id = await self._book(conn, chat_id=chat_id, kind="step", coup=coup, game=game,
                                       version=version, booking=booking)
            await record_postgres(conn, step_id, chat_id, settled)
            await board.record_postgres(conn, step_id, chat_id, settled)
            written = await _queue(conn, chat_id, outbox, queued is not None)
        if queued is not None:
            queued.fill(written)
        return step_id

    @staticmethod
    async def _stale_or_missing(conn: asyncpg.Connection, chat_id: int) -> StorageError:
        row = await conn.fetchrow("SELECT version, rev FROM tables WHERE chat_id = $1", chat_id)
        if row is None:
            return TableNotFound(str(chat_id))
        return StaleVersion(f"table of chat {chat_id} is at version {row[0]}, rev {row[1]}")

    async def update_meta(self, *, chat_id: int, meta_json: str, expected_rev: int,
                          outbox: Sequence[OutboxDraft] = (), queued: Queued | None = None
                          ) -> int:
        """Replace the table's host metadata if its rev is ``expected_rev``; returns the new rev.

        Compare-and-set: :class:`StaleVersion` (nothing written) if the rev
        differs, :class:`TableNotFound` without a table. ``outbox`` is written in
        the same transaction; ``queued`` is filled in with what it became, once committed.
        """
        async with self._tx() as conn:
            rev = await conn.fetchval(
                "UPDATE tables SET meta = $1::jsonb, rev = rev + 1, updated_at = now()"
                " WHERE chat_id = $2 AND rev = $3 RETURNING rev",
                meta_json, chat_id, expected_rev)
            if rev is None:
                raise await self._stale_or_missing(conn, chat_id)
            written = await _queue(conn, chat_id, outbox, queued is not None)
        if queued is not None:
            queued.fill(written)
        return int(rev)

    async def close_table(self, *, chat_id: int, expected_version: int,
                          transfers: Sequence[Transfer], coup: int,
                          outbox: Sequence[OutboxDraft] = (),
                          holders: Sequence[int | None] = (),
                          settled: Sequence[SettledCoup] = ()) -> int:
        """Book the final transfers and delete the table; returns the step id.

        Refuses (:class:`InsufficientFunds`, nothing written) unless every table
        account ends at zero; the history stays in the ledger, and ``outbox``
        (written in the same transaction) stays until it is delivered. ``settled`` as in
        :meth:`commit_step`.
        """
        booking = plan(transfers, holders=holders)
        async with self._tx() as conn:
            row = await conn.fetchrow(
                "SELECT game, version FROM tables WHERE chat_id = $1 FOR UPDATE", chat_id)
            if row is None:
                raise TableNotFound(str(chat_id))
            if row[1] != expected_version:
                raise StaleVersion(f"table of chat {chat_id} is at version {row[1]}")
            step_id = await self._book(conn, chat_id=chat_id, kind="close", coup=coup,
                                       game=row[0], version=expected_version, booking=booking)
            await record_postgres(conn, step_id, chat_id, settled)
            await board.record_postgres(conn, step_id, chat_id, settled)
            left = await conn.fetchval("SELECT COUNT(*) FROM table_accounts"
                                       " WHERE chat_id = $1 AND balance <> 0", chat_id)
            if left:
                raise InsufficientFunds("chips are still on the table")
            await conn.execute("DELETE FROM table_accounts WHERE chat_id = $1", chat_id)
            await conn.execute("DELETE FROM tables WHERE chat_id = $1", chat_id)
            await conn.execute("DELETE FROM presence WHERE chat_id = $1", chat_id)
            await _queue(conn, chat_id, outbox)
        return step_id

    # --------------------------------------------------------------- outbox

    async def pending_outbox(self, *, chat_id: int | None = None,
                             limit: int = 500) -> list[OutboxItem]:
        """Undelivered outbox items of one chat (or of all chats), by id."""
        async with self._read() as conn:
            if chat_id is None:
                rows = await conn.fetch(
                    f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL"
                    " ORDER BY id LIMIT $1", limit)
            else:
                rows = await conn.fetch(
                    f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL"
                    " AND chat_id = $1 ORDER BY id LIMIT $2", chat_id, limit)
        return [_outbox_item(row) for row in rows]

    async def outbox_attempt(self, *, item_id: int, undo: bool = False,
                             floor: int | None = None) -> int:
        """Count one more delivery attempt (call it before a send); returns the new count.
        ``undo``: take back the attempt just counted, known to have sent nothing.
        ``floor``: see :meth:`storage.base.Storage.outbox_attempt` (the first one stays; an
        undo back to no attempt drops it).

        Raises :class:`OutboxItemNotFound` if there is no such row.
        """
        async with self._tx() as conn:
            attempts = await conn.fetchval(
                "UPDATE outbox SET attempts = attempts + $2, twin_floor = CASE"
                " WHEN attempts + $2 > 0 THEN coalesce(twin_floor, $3) END"
                " WHERE id = $1 RETURNING attempts", item_id, -1 if undo else 1, floor)
        if attempts is None:
            raise OutboxItemNotFound(str(item_id))
        return int(attempts)

    async def finish_outbox(self, *, item_id: int, message_id: int | None = None,
                            live: bool = False, sure: bool = False) -> None:
        """Mark the item delivered (or given up) and blank its payload (DMs hold hidden cards).
        ``live``: the message carries buttons until :meth:`retire_sent` (a table message).

        Idempotent: finishing a sent (or pruned) item changes nothing. The chat
        keeps its ``KEEP_SENT`` newest sent rows of each kind (so a burst of DMs never prunes
        the id of the live table message), and every live one; older ones go in the same
        transaction. ``sure``: the post made exactly this message, no twin (its floor goes).
        """
        await self.finish_outbox_many(done=[(item_id, message_id)], live=live, sure=sure)

    async def twin_floors(self, *, chat_id: int) -> list[tuple[int, int]]:
        """(item id, floor) of the chat's posts that may have an unrecorded twin."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT id, twin_floor FROM outbox WHERE chat_id = $1 AND twin_floor IS NOT NULL"
                " ORDER BY id", chat_id)
        return [(int(row[0]), int(row[1])) for row in rows]

    async def twins_resolved(self, *, item_ids: Sequence[int], upto: int | None = None) -> None:
        """The possible twins of these posts lost their buttons: their floors go (``upto``:
        rise to it, see :meth:`storage.base.Storage.twins_resolved`)."""
        if item_ids:
            async with self._tx() as conn:
                await conn.execute("UPDATE outbox SET twin_floor = CASE WHEN $2::bigint IS NULL"
                                   " THEN NULL ELSE greatest(twin_floor, $2) END"
                                   " WHERE id = ANY($1::bigint[]) AND twin_floor IS NOT NULL",
                                   list(item_ids), upto)

    async def record_sent(self, *, chat_id: int, kind: str, message_id: int,
                          live: bool = False) -> None:
        """A message sent outside the outbox, kept as a sent item (see
        :meth:`storage.base.Storage.record_sent`)."""
        async with self._tx() as conn:
            await conn.execute("INSERT INTO outbox (chat_id, kind, target, sent_at, message_id,"
                               " live) VALUES ($1, $2, $1, now(), $3, $4)",
                               chat_id, kind, message_id, live)
            await conn.execute(_PRUNE_SENT, chat_id, kind, KEEP_SENT)

    async def live_sent(self, *, chat_id: int, kind: str | None = None) -> list[int]:
        """Message ids of the chat's sent items (of ``kind``, or of any) still marked live,
        newest (highest id) first (a message recorded late, :meth:`record_sent`, keeps its
        place)."""
        async with self._read() as conn:
            rows = await conn.fetch("SELECT message_id FROM outbox WHERE chat_id = $1 AND live"
                                    " AND ($2::text IS NULL OR kind = $2)"
                                    " ORDER BY message_id DESC", chat_id, kind)
        return [int(row[0]) for row in rows]

    async def retire_sent(self, *, chat_id: int, message_ids: Sequence[int]) -> None:
        """These messages of the chat carry no live buttons any more."""
        if message_ids:
            async with self._tx() as conn:
                await conn.execute("UPDATE outbox SET live = false WHERE chat_id = $1 AND live"
                                   " AND message_id = ANY($2::bigint[])", chat_id,
                                   list(message_ids))

    async def finish_outbox_many(self, *, done: Sequence[tuple[int, int | None]],
                                 live: bool = False, sure: bool = False) -> None:
        """:meth:`finish_outbox` for several items (id, message id) in one transaction."""
        async with self._tx() as conn:
            pruned: set[tuple[int, str]] = set()
            for item_id, message_id in done:
                row = await conn.fetchrow(
                    "UPDATE outbox SET sent_at = now(), message_id = $2, payload = '{}',"
                    " live = $3, twin_floor = CASE WHEN $4 THEN NULL ELSE twin_floor END"
                    " WHERE id = $1 AND sent_at IS NULL RETURNING chat_id, kind",
                    item_id, message_id, live, sure)
                if row is not None:
                    pruned.add((row[0], row[1]))
            for chat_id, kind in sorted(pruned):
                await conn.execute(_PRUNE_SENT, chat_id, kind, KEEP_SENT)

    async def last_sent(self, *, chat_id: int, kind: str, limit: int = 1) -> list[int]:
        """Message ids of the chat's newest sent items of ``kind`` that have one, newest first."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT message_id FROM outbox WHERE chat_id = $1 AND sent_at IS NOT NULL"
                " AND kind = $2 AND message_id IS NOT NULL ORDER BY id DESC LIMIT $3",
                chat_id, kind, limit)
        return [int(row[0]) for row in rows]

    async def outbox_chats(self) -> list[int]:
        """Chats with undelivered outbox items (resumed at start-up), ascending."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT chat_id FROM outbox WHERE sent_at IS NULL ORDER BY chat_id")
        return [int(row[0]) for row in rows]

    # ------------------------------------------------------------ read side

    async def table_accounts(self, *, chat_id: int) -> dict[str, int]:
        """Non-zero balances of the chat's table accounts."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT account, balance FROM table_accounts WHERE chat_id = $1 AND balance <> 0"
                " ORDER BY account", chat_id)
        return {row[0]: row[1] for row in rows}

    async def leaderboard(self, *, chat_id: int, limit: int = 10) -> list[Wallet]:
        """Richest players of the chat (wallet + on the table), richest first, then by user id."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT w.user_id, w.name, w.balance, COALESCE(t.on_table, 0)::bigint"
                " FROM wallets w LEFT JOIN ("
                "   SELECT owner, SUM(balance) AS on_table FROM table_accounts"
                "   WHERE chat_id = $1 AND owner IS NOT NULL GROUP BY owner"
                " ) t ON t.owner = w.user_id"
                " WHERE w.chat_id = $1"
                " ORDER BY w.balance + COALESCE(t.on_table, 0) DESC, w.user_id LIMIT $2",
                chat_id, limit)
        return [Wallet(chat_id=chat_id, user_id=r[0], name=r[1], balance=r[2], on_table=r[3])
                for r in rows]

    async def recent_coups(self, *, chat_id: int, user_id: int,
                           limit: int = 10) -> list[LedgerEntry]:
        """The player's latest ledger rows in the chat (wallet, stack, stake), newest first."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT step_id, chat_id, coup, account, delta, reason, game,"
                " EXTRACT(EPOCH FROM created_at)::float8"
                " FROM ledger WHERE chat_id = $1 AND owner = $2 ORDER BY entry_id DESC LIMIT $3",
                chat_id, user_id, limit)
        return [LedgerEntry(step_id=r[0], chat_id=r[1], coup=r[2], account=r[3], delta=r[4],
                            reason=r[5], game=r[6], created_at=r[7]) for r in rows]

    async def wallets_of(self, *, user_id: int) -> list[ChatWallet]:
        """Every wallet the player has, in any chat, richest first (wallet and table
        together), then by chat; none is created."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT w.chat_id, w.name, w.balance, COALESCE(t.on_table, 0) AS on_table,"
                " COALESCE(c.title, '') AS title, COALESCE(tb.game, '') AS game"
                " FROM wallets w LEFT JOIN ("
                "   SELECT chat_id, SUM(balance) AS on_table FROM table_accounts"
                "   WHERE owner = $1 GROUP BY chat_id"
                " ) t ON t.chat_id = w.chat_id"
                " LEFT JOIN chats c ON c.chat_id = w.chat_id"
                " LEFT JOIN tables tb ON tb.chat_id = w.chat_id"
                " WHERE w.user_id = $1"
                " ORDER BY w.balance + COALESCE(t.on_table, 0) DESC, w.chat_id", user_id)
        return [ChatWallet(wallet=Wallet(chat_id=r[0], user_id=user_id, name=r[1],
                                         balance=r[2], on_table=r[3]), title=r[4], game=r[5])
                for r in rows]

    async def player_stats(self, *, user_id: int, chat_id: int | None = None,
                           game: str | None = None) -> PlayerStats:
        """See :meth:`storage.base.Storage.player_stats` (one snapshot for its three reads)."""
        queries = player_queries("postgres", user_id=user_id, chat_id=chat_id, game=game)
        async with self._read() as conn, conn.transaction(isolation="repeatable_read",
                                                          readonly=True):
            totals, feats, runs = [await conn.fetch(sql, *args) for sql, args in queries]
        return player_stats_of(user_id, totals[0], feats, runs)

    async def net_by_day(self, *, user_id: int, chat_id: int | None = None,
                         game: str | None = None) -> list[tuple[dt.date, int]]:
        """See :meth:`storage.base.Storage.net_by_day`."""
        sql, args = net_days_query("postgres", user_id=user_id, chat_id=chat_id, game=game)
        async with self._read() as conn:
            return net_days_of(await conn.fetch(sql, *args))

    async def standings(self, *, chat_id: int, game: str | None = None,
                        since: dt.date | None = None, until: dt.date | None = None,
                        min_coups: int = 1, limit: int = 10) -> list[Standing]:
        """See :meth:`storage.base.Storage.standings`."""
        sql, args = standings_query("postgres", chat_id=chat_id, game=game, since=since,
                                    until=until, min_coups=min_coups, limit=limit)
        async with self._read() as conn:
            return standings_of(await conn.fetch(sql, *args))

    async def achievements_due(self, *, chat_id: int,
                               settled: Sequence[SettledCoup]) -> list[Earned]:
        """See :meth:`storage.base.Storage.achievements_due` (one snapshot for its reads)."""
        async with self._read() as conn, conn.transaction(isolation="repeatable_read",
                                                          readonly=True):
            return await due_postgres(conn, chat_id, settled)

    async def achievements(self, *, user_id: int, chat_id: int | None = None) -> list[Earned]:
        """See :meth:`storage.base.Storage.achievements`."""
        sql, args = achievements_query("postgres", user_id=user_id, chat_id=chat_id)
        async with self._read() as conn:
            return achievements_in(await conn.fetch(sql, *args))

    async def rating(self, *, user_id: int, chat_id: int) -> Rating | None:
        """See :meth:`storage.base.Storage.rating`."""
        m = Marks("postgres")
        sql = rating_query(m, chat_id=chat_id, user_id=user_id)
        async with self._read() as conn:
            return next(iter(ratings_of(await conn.fetch(sql, *m.args))), None)

    async def ratings(self, *, chat_id: int, min_hands: int = 1,
                      limit: int = 10) -> list[Rating]:
        """See :meth:`storage.base.Storage.ratings`."""
        m = Marks("postgres")
        sql = ratings_query(m, chat_id=chat_id, min_hands=min_hands, limit=limit)
        async with self._read() as conn:
            return ratings_of(await conn.fetch(sql, *m.args))

    async def rebuild_stats(self) -> int:
        """See :meth:`storage.base.Storage.rebuild_stats`: a transaction per chat, holding
        the chat's table row (if open) so that its steps wait; each chat's figures are whole
        at every commit."""
        async with self._read() as conn:
            chats = [r[0] for r in await conn.fetch(REBUILT_CHATS)]
        count = 0
        for chat_id in chats:
            async with self._tx() as conn:
                await conn.execute("SELECT 1 FROM tables WHERE chat_id = $1 FOR UPDATE", chat_id)
                count += await rebuild_postgres(conn, chat_id)
        async with self._tx() as conn:  # the all-chats board, from the rebuilt days
            await board.refill_postgres(conn)
        return count

    async def coups_between(self, *, chat_id: int, since: dt.date,
                            until: dt.date) -> list[SettledCoup]:
        """See :meth:`storage.base.Storage.coups_between`."""
        sql, args = coups_query("postgres", chat_id, since, until)
        async with self._read() as conn:
            rows = await conn.fetch(sql, *args)
        return [SettledCoup.model_validate_json(r[0]) for r in rows]

    async def unseasoned_chats(self, *, kind: str, first_day: dt.date,
                               last_day: dt.date) -> list[int]:
        """See :meth:`storage.base.Storage.unseasoned_chats`."""
        sql, args = unseasoned_query("postgres", kind, first_day, last_day)
        async with self._read() as conn:
            return [int(r[0]) for r in await conn.fetch(sql, *args)]

    async def record_season(self, *, chat_id: int, kind: str, first_day: dt.date,
                            last_day: dt.date, results: dict[str, Any],
                            titles: Mapping[str, int],
                            post: Callable[[Season], Sequence[OutboxDraft]]) -> Season | None:
        """See :meth:`storage.base.Storage.record_season`: holding the chat's table row
        (if open) first, as every writer of its outbox does, and the chat's seasons lock
        (so that two workers recording at once take turns: the second finds it recorded)."""
        now = time.time()
        sql, args = insert_season("postgres", chat_id, kind, first_day, last_day, now, results)
        async with self._tx() as conn:
            await conn.execute("SELECT 1 FROM tables WHERE chat_id = $1 FOR UPDATE", chat_id)
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('seasons'),"
                               " hashtext($1::text))", str(chat_id))
            number = await conn.fetchval(sql, *args)
            if number is None:
                return None
            await conn.executemany(insert_titles("postgres"),
                                   title_rows(chat_id, number, titles))
            season = Season(chat_id=chat_id, number=number, kind=kind, first_day=first_day,
                            last_day=last_day, posted_at=now, results=results)
            await _queue(conn, chat_id, post(season))
        return season

    async def seasons(self, *, chat_id: int) -> list[Season]:
        """See :meth:`storage.base.Storage.seasons`."""
        sql, args = seasons_query("postgres", chat_id)
        async with self._read() as conn:
            return [season_of(r) for r in await conn.fetch(sql, *args)]

    async def player_titles(self, *, user_id: int) -> list[SeasonTitle]:
        """See :meth:`storage.base.Storage.player_titles`."""
        sql, args = titles_query("postgres", user_id)
        async with self._read() as conn:
            return [title_of(r) for r in await conn.fetch(sql, *args)]

    async def chat_language(self, *, chat_id: int) -> str | None:
        """The chat's chosen language, if any."""
        async with self._read() as conn:
            language: str | None = await conn.fetchval(
                "SELECT language FROM chats WHERE chat_id = $1", chat_id)
        return language

    async def set_chat_language(self, *, chat_id: int, language: str) -> None:
        """Remember the chat's language."""
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, language) VALUES ($1, $2)"
                " ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
                chat_id, language)

    async def set_chat_title(self, *, chat_id: int, title: str) -> None:
        """Remember the chat's title."""
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, title) VALUES ($1, $2)"
                " ON CONFLICT (chat_id) DO UPDATE SET title = excluded.title",
                chat_id, title)

    async def chat_title(self, *, chat_id: int) -> str:
        """The chat's title as last remembered; empty if none was."""
        async with self._read() as conn:
            found: str | None = await conn.fetchval(
                "SELECT title FROM chats WHERE chat_id = $1", chat_id)
        return found or ""

    async def chat_settings(self, *, chat_id: int) -> dict[str, Any]:
        """The chat's defaults for its next tables (``/settings default``); empty if none."""
        async with self._read() as conn:
            found: str | None = await conn.fetchval(
                "SELECT settings::text FROM chats WHERE chat_id = $1", chat_id)
        return dict(json.loads(found)) if found else {}

    async def set_chat_settings(self, *, chat_id: int, settings: dict[str, Any]) -> None:
        """Replace the chat's defaults for its next tables (JSON values); listing the chat on
        the all-chats board or unlisting it moves its figures there (:mod:`storage.board`)."""
        async with self._tx() as conn:
            await board.relist_postgres(conn, chat_id, settings)
            await conn.execute(
                "INSERT INTO chats (chat_id, settings) VALUES ($1, $2::jsonb)"
                " ON CONFLICT (chat_id) DO UPDATE SET settings = excluded.settings",
                chat_id, json.dumps(settings))

    # ------------------------------------------------------------ kept updates

    async def keep_updates(self, *, updates: Sequence[tuple[int, str]],
                           read_below: int, done: Sequence[int] = ()) -> None:
        """See :meth:`storage.base.Storage.keep_updates`."""
        async with self._tx() as conn:
            await conn.executemany(
                "INSERT INTO kept_updates (update_id, body) VALUES ($1, $2)"
                " ON CONFLICT (update_id) DO NOTHING", updates)
            if done:
                await conn.execute("UPDATE kept_updates SET done = true"
                                   " WHERE update_id = ANY($1::bigint[])", list(done))
            await conn.execute("DELETE FROM kept_updates WHERE done AND update_id < $1",
                               read_below)

    async def updates_done(self, *, update_ids: Sequence[int]) -> None:
        """See :meth:`storage.base.Storage.updates_done`."""
        async with self._tx() as conn:
            await conn.execute("UPDATE kept_updates SET done = true"
                               " WHERE update_id = ANY($1::bigint[])", list(update_ids))

    async def kept_updates(self) -> list[KeptUpdate]:
        """See :meth:`storage.base.Storage.kept_updates`."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT update_id, body, done FROM kept_updates ORDER BY update_id")
        return [KeptUpdate(update_id=r[0], body=r[1], done=r[2]) for r in rows]

    async def mark_alive(self, *, worker: str, at: float) -> None:
        """Mark this worker alive at ``at``; marks an hour older go (dead workers')."""
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO alive (worker, at) VALUES ($1, $2)"
                " ON CONFLICT (worker) DO UPDATE SET at = excluded.at", worker, at)
            await conn.execute("DELETE FROM alive WHERE at < $1", at - STALE_MARK)

    async def last_alive(self, *, other_than: str | None = None) -> float | None:
        """The newest mark of any worker but ``other_than`` (None: none yet)."""
        async with self._read() as conn:
            value = await conn.fetchval(
                "SELECT max(at) FROM alive WHERE worker IS DISTINCT FROM $1", other_than)
        return None if value is None else float(value)

    async def add_presence(self, *, chat_id: int, decision: int, shown: Sequence[Shown]
                           ) -> None:
        """See :meth:`storage.base.Storage.add_presence`."""
        async with self._tx() as conn:
            await conn.execute("DELETE FROM presence WHERE chat_id = $1 AND decision < $2",
                               chat_id, decision)
            await conn.executemany(
                "INSERT INTO presence (chat_id, decision, player, channel, shown_at,"
                " message_id, digest) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                " ON CONFLICT DO NOTHING",
                [(chat_id, decision, s.player, s.channel, s.shown_at, s.message_id, s.digest)
                 for s in shown])

    async def presence(self, *, chat_id: int, decision: int) -> list[Shown]:
        """See :meth:`storage.base.Storage.presence`."""
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT player, channel, shown_at, message_id, digest FROM presence"
                " WHERE chat_id = $1 AND decision = $2 ORDER BY shown_at", chat_id, decision)
        return [Shown(player=r[0], channel=r[1], shown_at=r[2], message_id=r[3], digest=r[4])
                for r in rows]

    # ------------------------------------------------------------ all-chats board

    async def board(self, *, game: str | None = None, since: dt.date | None = None,
                    until: dt.date | None = None, min_coups: int = 1,
                    limit: int = 10) -> list[BoardStanding]:
        """See :meth:`storage.base.Storage.board`: a week or a month with its window, made
        first if it does not stand (:mod:`storage.board`)."""
        window = board.window_of(game, since, until)
        for attempt in range(3):
            sql, args = board.board_query("postgres", game=game, since=since, until=until,
                                          min_coups=min_coups, limit=limit, window=window)
            async with self._read() as conn, conn.transaction(isolation="repeatable_read",
                                                              readonly=True):
                # planned for its days' own rows: a generic plan of the window's query,
                # blind to how many rows a day and a window hold, took seconds
                await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
                if window is None or await conn.fetchval(*_args(
                        board.window_query("postgres", window))):
                    return board.board_of(await conn.fetch(sql, *args))
            if attempt == 0 and window is not None:
                async with self._tx() as conn:
                    await board.build_postgres(conn, window)
            else:  # dropped again at once: added up without it
                window = None
        raise AssertionError("unreachable: the last attempt reads without a window")

    async def player_public(self, *, user_id: int) -> bool:
        """See :meth:`storage.base.Storage.player_public`."""
        async with self._read() as conn:
            return bool(await conn.fetchval("SELECT public FROM privacy WHERE user_id = $1",
                                            user_id))

    async def set_player_public(self, *, user_id: int, public: bool) -> None:
        """See :meth:`storage.base.Storage.set_player_public`."""
        async with self._tx() as conn:
            await conn.execute(
                "INSERT INTO privacy (user_id, public) VALUES ($1, $2) ON CONFLICT (user_id)"
                " DO UPDATE SET public = excluded.public, set_at = now()", user_id, public)

    async def audit(self) -> dict[str, int]:
        """Whole-database chip accounting, for operators and tests (see ``SqliteStorage.audit``)."""
        out: dict[str, int] = {}
        # One snapshot for all five figures, so a concurrent step cannot skew them.
        async with self._read() as conn, conn.transaction(isolation="repeatable_read",
                                                          readonly=True):
            for key, sql in AUDIT_QUERIES.items():
                out[key] = int(await conn.fetchval(sql))
        return out


def _args(query: tuple[str, list[Any]]) -> tuple[Any, ...]:
    """A query as the positional arguments of an asyncpg call."""
    sql, args = query
    return (sql, *args)

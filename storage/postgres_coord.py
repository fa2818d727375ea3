"""What several bot processes on one PostgreSQL share beyond the data (:mod:`bot.coordination`).

* **Chat locks**: a session advisory lock per chat, taken on a pooled connection for the
  critical section; taking it also reads the table's row revision, so the caller can tell
  whether its in-memory copy of the table is still the committed one. A process that dies
  loses its connections, and with them its locks.
* **Deadlines**: the due time is a generated column of ``tables`` (from the host's
  metadata, migration 003); a worker claims due rows with ``FOR UPDATE SKIP LOCKED`` and a
  short lease, so a dead worker's claim passes to another after the lease.
* **Delivery leases**: the worker holding a chat's lease (a session advisory lock on its one
  lease connection) delivers the chat's outbox; another worker whose step added to it rings
  the holder (``NOTIFY``). A dead worker's leases end with its connection, and a sweep by
  any other worker takes the orphaned chats over.

Every key is derived from the schema too, so two deployments (or tests) in one database
never share a lock or a channel.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import asyncpg

log = logging.getLogger(__name__)

CHAT_LOCK, LEASE, RATE = 1, 2, 3
"""Namespaces of the advisory lock keys."""


def lock_key(schema: str | None, namespace: int, chat_id: int) -> int:
    """The advisory lock key of a chat in a namespace (a signed 64-bit integer), per schema."""
    digest = hashlib.blake2b(f"{schema}/{namespace}/{chat_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PgCoordination:
    """Locks, deadline claims and delivery leases of one deployment (one schema)."""

    def __init__(self, dsn: str, schema: str | None = None, max_locks: int = 32) -> None:
        self.dsn = dsn
        self.schema = schema
        self.max_locks = max_locks
        self.channel = "banco_outbox_" + hashlib.blake2b(
            (schema or "public").encode(), digest_size=6).hexdigest()
        self.leases: set[int] = set()
        """The chats whose outbox this process delivers."""
        self._pool: asyncpg.Pool | None = None
        self._lease_conn: asyncpg.Connection | None = None
        self._lease_lock = asyncio.Lock()
        self._listen_conn: asyncpg.Connection | None = None

    def key(self, namespace: int, chat_id: int) -> int:
        """The advisory lock key of a chat in a namespace (:func:`lock_key`)."""
        return lock_key(self.schema, namespace, chat_id)

    def _settings(self) -> dict[str, str]:
        return {"search_path": self.schema} if self.schema else {}

    async def open(self) -> None:
        """Connect: a pool for chat locks and claims, one lease connection."""
        self._pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=self.max_locks,
                                               server_settings=self._settings())
        self._lease_conn = await asyncpg.connect(self.dsn, server_settings=self._settings())

    async def close(self) -> None:
        """Disconnect; every lock and lease of this process ends."""
        for conn in (self._listen_conn, self._lease_conn):
            if conn is not None and not conn.is_closed():
                await conn.close()
        self._listen_conn = self._lease_conn = None
        self.leases.clear()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    def _get_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("coordination is not open")
        return self._pool

    # ------------------------------------------------------------ chat locks

    @asynccontextmanager
    async def chat_lock(self, chat_id: int) -> AsyncIterator[int | None]:
        """Hold the chat's lock across every process; yields the table's row revision as
        committed when the lock was taken (None: no table)."""
        key = self.key(CHAT_LOCK, chat_id)
        async with self._get_pool().acquire() as conn:
            rev = await conn.fetchval("SELECT chat_lock($1, $2)", key, chat_id)
            try:
                yield rev
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", key)

    async def rev(self, chat_id: int) -> int | None:
        """The table's row revision as committed now (None: no table)."""
        value = await self._get_pool().fetchval("SELECT rev FROM tables WHERE chat_id = $1",
                                                chat_id)
        return None if value is None else int(value)

    # ------------------------------------------------------------ deadlines

    async def claim_due(self, now: float, lease: float, limit: int) -> list[tuple[int, int]]:
        """Claim up to ``limit`` tables whose deadline has passed, each for ``lease``
        seconds: (chat id, version) of each. Rows another worker is claiming are skipped."""
        rows = await self._get_pool().fetch(
            "UPDATE tables SET due_claimed_until = $1 + $2, due_claimed_for = due"
            " WHERE chat_id IN ("
            " SELECT chat_id FROM tables WHERE due <= $1"
            "  AND (due_claimed_until IS NULL OR due_claimed_until < $1"
            "       OR due_claimed_for IS DISTINCT FROM due)"
            "  ORDER BY due LIMIT $3 FOR UPDATE SKIP LOCKED)"
            " RETURNING chat_id, version", now, lease, limit)
        return [(int(r[0]), int(r[1])) for r in rows]

    async def release_due(self, chat_id: int, now: float, retry: float) -> None:
        """The claim of the chat's deadline is over; a deadline that is still due (the
        timeout could not be applied) is tried again ``retry`` seconds from ``now``."""
        await self._get_pool().execute(
            "UPDATE tables SET due_claimed_until = CASE WHEN due <= $2 THEN $2 + $3 END,"
            " due_claimed_for = CASE WHEN due <= $2 THEN due END"
            " WHERE chat_id = $1", chat_id, now, retry)

    async def next_due(self) -> float | None:
        """The earliest deadline nobody is claiming."""
        value = await self._get_pool().fetchval(
            "SELECT min(CASE WHEN due_claimed_for = due THEN GREATEST(due, due_claimed_until)"
            " ELSE due END) FROM tables WHERE due IS NOT NULL")
        return None if value is None else float(value)

    # ------------------------------------------------------------ delivery leases

    async def lease_or_ring(self, chat_id: int) -> bool:
        """Take the chat's delivery lease (True), or ring its holder (False)."""
        if chat_id in self.leases:
            return True
        async with self._lease_lock:
            if chat_id in self.leases:
                return True
            conn = self._lease()
            got = bool(await conn.fetchval("SELECT lease_or_ring($1, $2, $3)",
                                           self.key(LEASE, chat_id), self.channel, chat_id))
            if got:
                self.leases.add(chat_id)
            return got

    async def take_orphans(self, limit: int) -> list[int]:
        """Take over up to ``limit`` chats (with an open table or pending outbox) whose
        lease nobody holds, at random: a dead worker's, or never delivered."""
        async with self._lease_lock:
            conn = self._lease()
            chats = [int(r[0]) for r in await conn.fetch(
                "SELECT chat_id FROM tables WHERE chat_id <> ALL($1::bigint[]) UNION"
                " SELECT DISTINCT chat_id FROM outbox WHERE sent_at IS NULL"
                "  AND chat_id <> ALL($1::bigint[])", list(self.leases))]
            if not chats:
                return []
            got = [int(r[0]) for r in await conn.fetch(
                "SELECT c FROM (SELECT c, k FROM unnest($1::bigint[], $2::bigint[]) AS x(c, k)"
                "  ORDER BY random()) AS y WHERE pg_try_advisory_lock(k) LIMIT $3",
                chats, [self.key(LEASE, c) for c in chats], limit)]
            self.leases.update(got)
            return got

    async def idle_leases(self) -> list[int]:
        """Held chats with neither an open table nor pending outbox."""
        if not self.leases:
            return []
        rows = await self._get_pool().fetch(
            "SELECT c FROM unnest($1::bigint[]) AS c"
            " WHERE NOT EXISTS (SELECT 1 FROM tables WHERE chat_id = c)"
            " AND NOT EXISTS (SELECT 1 FROM outbox WHERE chat_id = c AND sent_at IS NULL)",
            list(self.leases))
        return [int(r[0]) for r in rows]

    async def release(self, chat_id: int) -> None:
        """Give the chat's delivery lease up."""
        async with self._lease_lock:
            if chat_id in self.leases:
                self.leases.discard(chat_id)
                await self._lease().execute("SELECT pg_advisory_unlock($1)",
                                            self.key(LEASE, chat_id))

    async def listen(self, rung: Callable[[int], None]) -> None:
        """Call ``rung(chat_id)`` whenever another worker rings a chat."""

        def on_notify(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            try:
                rung(int(payload))
            except ValueError:
                log.warning("odd ring %r", payload)

        self._listen_conn = await asyncpg.connect(self.dsn, server_settings=self._settings())
        await self._listen_conn.add_listener(self.channel, on_notify)

    def _lease(self) -> asyncpg.Connection:
        if self._lease_conn is None:
            raise RuntimeError("coordination is not open")
        return self._lease_conn

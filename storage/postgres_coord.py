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
  any other worker takes the orphaned chats over. So do a live worker's, when its lease
  connection goes (a restart, a terminated backend): the database has let the locks go
  that moment, so the worker drops every lease it held at once (it no longer delivers
  them), connects again, and asks for those chats anew. A lost LISTEN connection is made
  again too, and every held chat is taken as rung (its rings may have been missed).
* **Table news**: a worker that committed a change of a table announces it to every worker
  (``NOTIFY`` on a channel of its own, the payload ``"<chat id>:<version>"`` and nothing
  else), so that each can push the new snapshot to the Mini App pages it serves. The same
  LISTEN connection hears it; when that connection is made again, announcements may have
  been missed, and the listener is told so.

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
QUERY_TIMEOUT = 10.0
"""Seconds a query on the lease or LISTEN connection may take: a longer one means the
connection is half-dead (it may never say it is gone), and it is replaced."""
RECONNECT_FIRST, RECONNECT_MAX = 0.1, 5.0
"""Seconds before connecting again after a connection was lost, doubling up to the
second while the database is unreachable."""
GONE = (OSError, TimeoutError, asyncpg.PostgresConnectionError,
        asyncpg.exceptions.OperatorInterventionError)
"""Errors of a query that mean its connection is gone (or as good as gone): the network,
a timeout, the server shutting the session down. Others leave the session as it was."""


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
        self.news_channel = "banco_table_" + hashlib.blake2b(
            (schema or "public").encode(), digest_size=6).hexdigest()
        self.leases: set[int] = set()
        """The chats whose outbox this process delivers."""
        self._pool: asyncpg.Pool | None = None
        self._open = False
        # None while lost (a new one is being made) or closed
        self._lease_conn: asyncpg.Connection | None = None
        self._lease_lock = asyncio.Lock()
        self._listen_conn: asyncpg.Connection | None = None
        self._rung: Callable[[int], None] | None = None
        self._ask_again: Callable[[list[int]], None] | None = None
        self._wanted: set[int] = set()  # chats to ask for once the lease connection is back
        self._mender: asyncio.Task[None] | None = None
        self._heard: Callable[[int, int], None] | None = None
        self._missed: Callable[[], None] | None = None

    def key(self, namespace: int, chat_id: int) -> int:
        """The advisory lock key of a chat in a namespace (:func:`lock_key`)."""
        return lock_key(self.schema, namespace, chat_id)

    def _settings(self) -> dict[str, str]:
        return {"search_path": self.schema} if self.schema else {}

    async def open(self) -> None:
        """Connect: a pool for chat locks and claims, one lease connection."""
        self._pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=self.max_locks,
                                               server_settings=self._settings())
        self._lease_conn = await self._connect()
        self._lease_conn.add_termination_listener(self._on_termination)
        self._open = True

    async def close(self) -> None:
        """Disconnect; every lock and lease of this process ends."""
        self._open = False
        if self._mender is not None:
            self._mender.cancel()
            await asyncio.gather(self._mender, return_exceptions=True)
            self._mender = None
        conns = (self._listen_conn, self._lease_conn)
        self._listen_conn = self._lease_conn = None
        self.leases.clear()
        self._wanted.clear()
        for conn in conns:
            if conn is not None and not conn.is_closed():
                await conn.close()
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

    async def clock_started(self, chat_id: int, decision: int, due: float) -> None:
        """The clock of the table's ``decision`` started from the facts of presence (no
        commit): ``due`` is its deadline while the record's decision is that one and keeps
        none of its own (migration 010); the row's revision stays."""
        await self._get_pool().execute(
            "UPDATE tables SET clock_decision = $2, clock_due = $3 WHERE chat_id = $1",
            chat_id, decision, due)

    async def clock_dropped(self, chat_id: int, decision: int) -> None:
        """The clock :meth:`clock_started` stored for the table's ``decision`` goes (nobody
        is awaited at it any more); one stored for another decision stays."""
        await self._get_pool().execute(
            "UPDATE tables SET clock_decision = NULL, clock_due = NULL"
            " WHERE chat_id = $1 AND clock_decision = $2", chat_id, decision)

    async def next_due(self) -> float | None:
        """The earliest deadline nobody is claiming."""
        value = await self._get_pool().fetchval(
            "SELECT min(CASE WHEN due_claimed_for = due THEN GREATEST(due, due_claimed_until)"
            " ELSE due END) FROM tables WHERE due IS NOT NULL")
        return None if value is None else float(value)

    # ------------------------------------------------------------ delivery leases

    async def lease_or_ring(self, chat_id: int) -> bool:
        """Take the chat's delivery lease (True), or ring its holder (False). While the lease
        connection is lost, False: the chat is asked for again once it is back."""
        if chat_id in self.leases:
            return True
        async with self._lease_lock:
            if chat_id in self.leases:
                return True
            conn = self._lease()
            if conn is not None:
                try:
                    got = bool(await conn.fetchval(
                        "SELECT lease_or_ring($1, $2, $3)", self.key(LEASE, chat_id),
                        self.channel, chat_id, timeout=QUERY_TIMEOUT))
                except Exception as exc:
                    if not self._gone_by(conn, exc):
                        raise
                else:
                    if conn is self._lease_conn:  # else the lock went with the connection
                        if got:
                            self.leases.add(chat_id)
                        return got
            self._wanted.add(chat_id)
            return False

    async def take_orphans(self, limit: int) -> list[int]:
        """Take over up to ``limit`` chats (with an open table or pending outbox) whose
        lease nobody holds, at random: a dead worker's, or never delivered. None while the
        lease connection is lost."""
        async with self._lease_lock:
            conn = self._lease()
            if conn is None:
                return []
            try:
                chats = [int(r[0]) for r in await conn.fetch(
                    "SELECT chat_id FROM tables WHERE chat_id <> ALL($1::bigint[]) UNION"
                    " SELECT DISTINCT chat_id FROM outbox WHERE sent_at IS NULL"
                    "  AND chat_id <> ALL($1::bigint[])", list(self.leases),
                    timeout=QUERY_TIMEOUT)]
                if not chats:
                    return []
                got = [int(r[0]) for r in await conn.fetch(
                    "SELECT c FROM (SELECT c, k FROM unnest($1::bigint[], $2::bigint[])"
                    "  AS x(c, k) ORDER BY random()) AS y WHERE pg_try_advisory_lock(k)"
                    " LIMIT $3", chats, [self.key(LEASE, c) for c in chats], limit,
                    timeout=QUERY_TIMEOUT)]
            except Exception as exc:
                if not self._gone_by(conn, exc):
                    raise
                return []
            if conn is not self._lease_conn:  # the locks went with the connection
                return []
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
            conn = self._lease()
            if chat_id in self.leases and conn is not None:
                self.leases.discard(chat_id)
                try:
                    await conn.execute("SELECT pg_advisory_unlock($1)",
                                       self.key(LEASE, chat_id), timeout=QUERY_TIMEOUT)
                except Exception as exc:  # a lost connection has let every lock go
                    if not self._gone_by(conn, exc):
                        raise

    async def listen(self, rung: Callable[[int], None],
                     ask_again: Callable[[list[int]], None]) -> None:
        """Call ``rung(chat_id)`` whenever another worker rings a chat. When the lease
        connection is back after a loss, ``ask_again(chats)`` is called with the chats held
        then (and those asked for meanwhile): their leases are to be asked for anew."""
        self._rung, self._ask_again = rung, ask_again
        conn = await self._connect()
        await conn.add_listener(self.channel, self._on_notify)
        if self._heard is not None:
            await conn.add_listener(self.news_channel, self._on_news)
        self._listen_conn = conn
        conn.add_termination_listener(self._on_termination)

    async def hear_news(self, heard: Callable[[int, int], None],
                        missed: Callable[[], None]) -> None:
        """Call ``heard(chat_id, version)`` for every change of a table any worker (this one
        too) announces (:meth:`announce`), on the LISTEN connection of :meth:`listen`; when
        that connection is made again after a loss, ``missed()``: announcements may have
        been lost meanwhile."""
        self._heard, self._missed = heard, missed
        conn = self._listen_conn
        if conn is not None:  # listening already: the news channel too from now on
            try:
                await conn.add_listener(self.news_channel, self._on_news)
            except Exception as exc:
                if not self._gone_by(conn, exc):
                    raise

    async def announce(self, news: list[tuple[int, int]]) -> None:
        """Tell every worker that these tables changed: one ``NOTIFY`` per (chat id,
        version), the payload ``"<chat id>:<version>"``."""
        if not news:
            return
        await self._get_pool().execute(
            "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", self.news_channel,
            [f"{chat_id}:{version}" for chat_id, version in news], timeout=QUERY_TIMEOUT)

    async def check_listening(self) -> None:
        """Make sure the LISTEN connection answers (a half-dead one may never say it is
        gone): when it does not, it is made again."""
        conn = self._listen_conn
        if conn is None:
            return
        try:
            await conn.execute("SELECT 1", timeout=QUERY_TIMEOUT)
        except Exception as exc:
            if not self._gone_by(conn, exc):
                raise

    # ------------------------------------------------------------ lost connections

    def _on_notify(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        try:
            chat_id = int(payload)
        except ValueError:
            log.warning("odd ring %r", payload)
            return
        if self._rung is not None:
            self._rung(chat_id)

    def _on_news(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        try:
            chat, _, version = payload.partition(":")
            news = int(chat), int(version)
        except ValueError:
            log.warning("odd news %r", payload)
            return
        if self._heard is not None:
            self._heard(*news)

    def _on_termination(self, conn: asyncpg.Connection) -> None:
        self._gone(conn)

    def _gone_by(self, conn: asyncpg.Connection, exc: Exception) -> bool:
        """Whether ``exc``, raised by a query on ``conn``, means that the connection is gone
        (then it is dropped as lost)."""
        if not (conn.is_closed() or isinstance(exc, GONE)):
            return False
        self._gone(conn)
        return True

    def _gone(self, conn: asyncpg.Connection) -> None:
        """A connection of ours is gone (it said so, or a query on it failed so): the locks
        of a lease connection went with it, so its leases end here at once (the courier
        stops delivering them); a new connection is made in the background."""
        if not self._open:
            return  # closing: no new connection
        if not conn.is_closed():
            conn.terminate()  # half-dead: its session (and locks) end when the server sees
        if conn is self._lease_conn:
            self._lease_conn = None
            held = sorted(self.leases)
            self.leases.clear()
            self._wanted.update(held)
            log.warning("lease connection lost: %d chats no longer delivered here, until "
                        "their leases are taken again", len(held))
        elif conn is self._listen_conn:
            self._listen_conn = None
            log.warning("listen connection lost: no rings heard until it is back")
        else:
            return  # an earlier one, dropped already
        if self._mender is None or self._mender.done():
            self._mender = asyncio.get_running_loop().create_task(self._mend())

    async def _mend(self) -> None:
        """Connect again what was lost, waiting longer after each failure (up to
        :data:`RECONNECT_MAX`) while the database is unreachable; then listen again, take
        every held chat as rung (rings may have been missed), and ask for the chats held
        before the lease connection went."""
        delay = RECONNECT_FIRST
        while self._open and (self._lease_conn is None
                              or (self._rung is not None and self._listen_conn is None)):
            await asyncio.sleep(delay)
            try:
                if self._lease_conn is None:
                    await self._mend_lease()
                if self._rung is not None and self._listen_conn is None:
                    await self._mend_listen()
            except Exception as exc:  # down, starting up, refusing: tried again
                log.debug("connecting again failed: %r", exc)
                delay = min(RECONNECT_MAX, delay * 2)

    async def _mend_lease(self) -> None:
        conn = await self._connect()
        async with self._lease_lock:  # no lease query runs on the lost one from here on
            if not self._open:
                await conn.close()
                return
            self._lease_conn = conn
            wanted = sorted(self._wanted)
            self._wanted.clear()
        conn.add_termination_listener(self._on_termination)
        if conn.is_closed():  # gone already: the listener will not hear it
            self._gone(conn)
            self._wanted.update(wanted)
            return
        log.info("lease connection back: asking again for %d chats", len(wanted))
        if self._ask_again is not None:
            self._ask_again(wanted)

    async def _mend_listen(self) -> None:
        conn = await self._connect()
        try:
            await conn.add_listener(self.channel, self._on_notify)
            if self._heard is not None:
                await conn.add_listener(self.news_channel, self._on_news)
        except BaseException:
            conn.terminate()
            raise
        if not self._open:
            await conn.close()
            return
        self._listen_conn = conn
        conn.add_termination_listener(self._on_termination)
        if conn.is_closed():
            self._gone(conn)
            return
        log.info("listen connection back: %d held chats taken as rung", len(self.leases))
        if self._rung is not None:
            for chat_id in sorted(self.leases):
                self._rung(chat_id)
        if self._missed is not None:  # every table's announcements may have been missed
            self._missed()

    async def _connect(self) -> asyncpg.Connection:
        return await asyncpg.connect(self.dsn, server_settings=self._settings(),
                                     timeout=QUERY_TIMEOUT)

    def _lease(self) -> asyncpg.Connection | None:
        """The lease connection; None while a lost one is being made again."""
        if not self._open:
            raise RuntimeError("coordination is not open")
        return self._lease_conn

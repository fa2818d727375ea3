"""Several bot processes ("workers") on one PostgreSQL, any of them handling any update.

With SQLite (one process) nothing here runs: the chat lock is an :class:`asyncio.Lock`,
deadlines are asyncio timers (:class:`bot.deadlines.Deadlines`), and the courier sends
every chat's outbox (:class:`bot.delivery.Courier`). In shared mode
(:func:`shared_mode`) each of these is replaced by what keeps several workers right,
built on :class:`storage.postgres_coord.PgCoordination`:

* :class:`ChatLocks`: a chat's critical section also holds the chat's advisory lock in
  the database, and the in-memory copy of the table is dropped when the row's revision
  says another worker committed since; outside a lock the table is read from storage.
* :class:`SharedDeadlines`: each worker polls for due tables and claims them with
  ``FOR UPDATE SKIP LOCKED``; the timeout runs under the chat lock and applies only if
  the decision is still the one that timed out, so a deadline fires exactly once.
* :class:`SharedCourier`: a chat's outbox is delivered by the worker holding the chat's
  lease, in order; a step committed elsewhere rings the holder; a dead worker's chats are
  taken over by a sweep (the live table message id is read from the outbox rows).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from telegram import Bot

from bot.deadlines import Deadlines, Expired
from bot.delivery import Courier, Doorbell, TableSide
from bot.hooks import Hooks
from bot.languages import Languages
from bot.pace import Pace
from bot.ratelimit import GroupWindowLimiter
from bot.shared_ratelimit import Budget, PgBudget, RedisBudget, SharedWindowLimiter
from storage.base import Storage

if TYPE_CHECKING:  # asyncpg is imported only in shared mode: one process starts as before
    from storage.postgres_coord import PgCoordination

log = logging.getLogger(__name__)

POLL = 1.0
"""Seconds between two looks for due deadlines at most (a local commit wakes it sooner)."""
CLAIM_LEASE = 10.0
"""Seconds a worker's claim of a deadline keeps others off it (then it passes on)."""
RETRY = 1.0
"""Seconds before a deadline whose timeout could not be applied is tried again."""
SWEEP = 1.0
"""Mean seconds between two sweeps for chats nobody delivers (a dead worker's)."""
TAKE_PER_SWEEP = 2
"""Chats a sweep takes over at most (the others are left to other workers' sweeps)."""


def shared_mode(storage_url: str, setting: bool | None) -> bool:
    """Whether workers share the database: SHARED when set, else whenever it is
    PostgreSQL (SQLite keeps the single-process path)."""
    if setting is not None:
        return setting
    return storage_url.split("://", 1)[0].lower() in ("postgresql", "postgres")


class ChatLocks:
    """The per-chat lock in the database, under the process's own asyncio lock (so that
    one process uses one connection per chat)."""

    def __init__(self, coord: PgCoordination) -> None:
        self.coord = coord
        self.valid: set[int] = set()
        """Chats whose lock this process holds: its copy of their table is current."""

    @contextlib.asynccontextmanager
    async def hold(self, chat_id: int, local: asyncio.Lock,
                   check: Callable[[int, int | None], None]) -> AsyncIterator[None]:
        """Hold the chat's lock; ``check(chat_id, rev)`` first drops a stale copy."""
        async with local, self.coord.chat_lock(chat_id) as rev:
            check(chat_id, rev)
            self.valid.add(chat_id)
            try:
                yield
            finally:
                self.valid.discard(chat_id)

    async def current(self, chat_id: int, rev: int | None) -> bool:
        """Whether a copy of the chat's table at ``rev`` is the committed one (outside the
        lock: the courier reading what to show; a row read costs less than a table)."""
        return chat_id in self.valid or (rev is not None
                                         and await self.coord.rev(chat_id) == rev)


class SharedDeadlines(Deadlines):
    """:class:`bot.deadlines.Deadlines` for several workers: the deadlines are the
    database's; a poller claims due ones. ``schedule`` only wakes the poller sooner."""

    def __init__(self, coord: PgCoordination, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self.coord = coord
        self.handler: Expired | None = None
        self.wake = asyncio.Event()
        self.next_wake = 0.0
        self.poller: asyncio.Task[None] | None = None
        self.running: set[asyncio.Task[None]] = set()

    def start(self, handler: Expired) -> None:
        """Poll for due deadlines and run ``handler(chat_id, version)`` for each claimed."""
        self.handler = handler
        self.poller = asyncio.get_running_loop().create_task(self._poll())

    def schedule(self, chat_id: int, version: int, deadline: float | None,
                 on_expiry: Expired) -> None:
        """A deadline was committed: look for due ones no later than it."""
        if deadline is not None and deadline < self.next_wake:
            self.next_wake = deadline
            self.wake.set()

    def cancel(self, chat_id: int) -> None:
        """Nothing to cancel: a table's stored deadline goes with its commit."""

    def pending(self, chat_id: int) -> bool:
        """Whether a timeout of the chat is being applied by this worker."""
        return any(t.get_name() == f"deadline:{chat_id}" for t in self.running)

    def stop(self) -> None:
        """Stop polling (the deadlines stay stored; claims lapse)."""
        if self.poller is not None:
            self.poller.cancel()

    async def _poll(self) -> None:
        while True:
            try:
                delay = await self._round()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("looking for due deadlines failed")
                delay = POLL
            self.next_wake = self.clock() + delay
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), delay)

    async def _round(self) -> float:
        """Claim and run what is due; the seconds until the next look."""
        claimed = await self.coord.claim_due(self.clock(), CLAIM_LEASE, 16)
        for chat_id, version in claimed:
            task = asyncio.get_running_loop().create_task(self._expire(chat_id, version),
                                                          name=f"deadline:{chat_id}")
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        if len(claimed) == 16:
            return 0.0
        due = await self.coord.next_due()
        return POLL if due is None else min(POLL, max(0.0, due - self.clock()))

    async def _expire(self, chat_id: int, version: int) -> None:
        try:
            if self.handler is not None:
                await self.handler(chat_id, version)
        except Exception:
            log.exception("the deadline of chat %s failed", chat_id)
        finally:
            try:
                await self.coord.release_due(chat_id, self.clock(), RETRY)
            except Exception:  # the claim lapses by itself
                log.exception("the deadline claim of chat %s was not released", chat_id)
            self.wake.set()


class SharedCourier(Courier):
    """:class:`bot.delivery.Courier` for several workers: this worker delivers the chats
    whose lease it holds; a step committed here for another worker's chat rings that
    worker; orphaned chats (their worker died) are taken over by a periodic sweep."""

    def __init__(self, coord: PgCoordination, bot: Bot, storage: Storage, doorbell: Doorbell,
                 tables: TableSide, pace: Pace | None = None,
                 hooks: Hooks | None = None) -> None:
        super().__init__(bot, storage, doorbell, tables, pace, hooks)
        self.coord = coord
        self.trying: set[int] = set()
        self.sweeper: asyncio.Task[None] | None = None
        self.background: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Hear other workers' rings, sweep for orphans, then start as a courier does."""
        await self.coord.listen(self._rung)
        self.sweeper = asyncio.get_running_loop().create_task(self._sweep())
        await super().start()

    async def stop(self, timeout: float) -> None:
        """Stop sweeping, then as a courier does (the leases end with the connection)."""
        if self.sweeper is not None:
            self.sweeper.cancel()
        await super().stop(timeout)

    def _wake(self, chat_id: int) -> None:
        if self.stopping or chat_id in self.lost:
            return
        if chat_id in self.coord.leases:
            super()._wake(chat_id)
            return
        if chat_id in self.trying:
            return  # the lease is being asked for; its answer covers this ring too
        self.trying.add(chat_id)
        self._spawn(self._lease(chat_id))

    async def _lease(self, chat_id: int) -> None:
        try:
            got = await self.coord.lease_or_ring(chat_id)
        finally:
            self.trying.discard(chat_id)
        if got:
            self._taken(chat_id)

    def _taken(self, chat_id: int) -> None:
        """This worker delivers the chat from now: what it shows is read anew."""
        self.table_ids.pop(chat_id, None)
        self.shown.pop(chat_id, None)
        self.newest.pop(chat_id, None)
        self.unsent.add(chat_id)
        super()._wake(chat_id)

    def _rung(self, chat_id: int) -> None:
        """Another worker committed something of a chat: deliver it if it is ours."""
        if chat_id in self.coord.leases:
            self.lost.discard(chat_id)  # a step there means the table is back
            self.unsent.add(chat_id)
            super()._wake(chat_id)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("delivery lease work failed", exc_info=task.exception())

    async def _sweep(self) -> None:
        while not self.stopping:
            await asyncio.sleep(SWEEP * random.uniform(0.5, 1.5))
            try:
                for chat_id in await self.coord.take_orphans(TAKE_PER_SWEEP):
                    log.info("chat %s: delivery taken over", chat_id)
                    self._taken(chat_id)
                for chat_id in await self.coord.idle_leases():
                    worker = self.workers.get(chat_id)
                    dms = self.dm_workers.get(chat_id)
                    if (worker is None or worker.done()) and (dms is None or dms.done()):
                        await self.coord.release(chat_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the delivery sweep failed")


class SharedLanguages(Languages):
    """:class:`bot.languages.Languages` for several workers: what it keeps is forgotten
    every ``fresh`` seconds, so a /language taken by another worker shows here too."""

    def __init__(self, storage: Storage, default: str, fresh: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(storage, default)
        self.fresh = fresh
        self.clock = clock
        self.since = clock()

    def _expire(self) -> None:
        if self.clock() - self.since >= self.fresh:
            self.known.clear()
            self.unset.clear()
            self.since = self.clock()

    async def of(self, chat_id: int, hint: str | None = None) -> str:
        """The chat's language, as stored at most ``fresh`` seconds ago."""
        self._expire()
        return await super().of(chat_id, hint)

    async def of_player(self, user_id: int, fallback: str) -> str:
        """A player's private language, as stored at most ``fresh`` seconds ago."""
        self._expire()
        return await super().of_player(user_id, fallback)


class Shared:
    """The shared-mode collaborators of one worker, built by :func:`open_shared`."""

    def __init__(self, coord: PgCoordination) -> None:
        self.coord = coord
        self.chat_locks = ChatLocks(coord)
        self.deadlines = SharedDeadlines(coord)

    def languages(self, storage: Storage, default: str) -> SharedLanguages:
        """The chat languages, re-read now and then (another worker may change one)."""
        return SharedLanguages(storage, default)

    def courier(self, bot: Bot, storage: Storage, doorbell: Doorbell, tables: TableSide,
                pace: Pace | None, hooks: Hooks | None) -> SharedCourier:
        """The courier that delivers the chats whose lease this worker holds."""
        return SharedCourier(self.coord, bot, storage, doorbell, tables, pace, hooks)

    async def close(self) -> None:
        """Stop polling and disconnect (every lock, claim and lease of the worker ends)."""
        self.deadlines.stop()
        await self.coord.close()


async def open_shared(storage_url: str, setting: bool | None) -> Shared | None:
    """The shared-mode collaborators when workers share the database, else None."""
    if not shared_mode(storage_url, setting):
        return None
    from storage.factory import postgres_target
    from storage.postgres_coord import PgCoordination

    dsn, schema = postgres_target(storage_url)
    coord = PgCoordination(dsn, schema)
    await coord.open()
    return Shared(coord)


def rate_limiter(storage_url: str, setting: bool | None, redis_url: str | None,
                 max_messages: int, period: float, max_retries: int,
                 overall_per_second: float) -> GroupWindowLimiter:
    """Telegram's budgets: this process's own, or shared by the workers (Redis when
    ``redis_url``, else PostgreSQL)."""
    if not shared_mode(storage_url, setting):
        return GroupWindowLimiter(max_messages, period, max_retries=max_retries,
                                  overall_per_second=overall_per_second)
    from storage.factory import postgres_target

    dsn, schema = postgres_target(storage_url)

    def budget(group_max: int, window: float, overall_max: int) -> Budget:
        if redis_url:
            return RedisBudget(redis_url, f"banco:{schema or 'public'}", group_max, window,
                               overall_max)
        return PgBudget(dsn, schema, group_max, window, overall_max)

    return SharedWindowLimiter(budget, max_messages, period, max_retries, overall_per_second)

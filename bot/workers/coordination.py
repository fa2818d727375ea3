"""Several bot processes ("workers") on one PostgreSQL, any of them handling any update.

With SQLite (one process) nothing here runs: the chat lock is an :class:`asyncio.Lock`,
deadlines are asyncio timers (:class:`bot.table.deadlines.Timers`), and the courier sends
every chat's outbox (:class:`bot.outbox.courier.Courier`). In shared mode
(:func:`shared_mode`) each of these is given what keeps several workers right,
built on :class:`storage.postgres_coord.PgCoordination`:

* :class:`ChatLocks`: a chat's critical section also holds the chat's advisory lock in
  the database, and the in-memory copy of the table is dropped when the row's revision
  says another worker committed since; outside a lock the table is read from storage.
* :class:`PolledDeadlines`: each worker polls for due tables and claims them with
  ``FOR UPDATE SKIP LOCKED``; the timeout runs under the chat lock and applies only if
  the decision is still the one that timed out, so a deadline fires exactly once.
* :class:`ChatLeases`: the courier delivers a chat's outbox only while this worker holds
  the chat's lease, in order; a step committed elsewhere rings the holder; a dead
  worker's chats are taken over by a sweep (the live table message id is read from the
  outbox rows). When this worker's lease connection goes, its leases end that moment (the
  courier stops delivering them, as another worker may take them over); once connected
  again it asks for them anew.
* :class:`TableNews`: with the Mini App on, every committed change of a table is announced
  to every worker (``NOTIFY``: the chat id and version, nothing else), and each worker
  pushes the new snapshot to the pages it serves; when its LISTEN connection is made again,
  every table with open pages here is taken as changed (announcements may have been missed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING

from bot.background import Background
from bot.outbox.courier import Courier
from bot.outbox.ratelimit import GroupWindowLimiter
from bot.table.deadlines import Expired
from bot.table.tables import Tables
from bot.workers.shared_ratelimit import Budget, PgBudget, RedisBudget, shared_limiter
from storage.factory import is_postgres, postgres_target

if TYPE_CHECKING:  # asyncpg is imported only in shared mode: one process starts as before
    from storage.postgres_coord import PgCoordination

log = logging.getLogger(__name__)

POLL = 1.0
"""Seconds between two looks for due deadlines at most (a local commit wakes it sooner)."""
CLAIM_LEASE = 10.0
"""Seconds a worker's claim of a deadline keeps others off it (then it passes on)."""
CLAIM_BATCH = 16
"""Due deadlines claimed at one look at most (a full batch looks again at once)."""
RETRY = 1.0
"""Seconds before a deadline whose timeout could not be applied is tried again."""
SWEEP = 1.0
"""Mean seconds between two sweeps for chats nobody delivers (a dead worker's)."""
TAKE_PER_SWEEP = 2
"""Chats a sweep takes over at most (the others are left to other workers' sweeps)."""
LANGUAGES_FRESH = 5.0
"""Seconds a worker keeps a chat's language (a /language taken by another shows after)."""


def shared_mode(storage_url: str, setting: bool | None) -> bool:
    """Whether workers share the database: SHARED when set, else whenever it is
    PostgreSQL (SQLite keeps the single-process path)."""
    return is_postgres(storage_url) if setting is None else setting


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


class PolledDeadlines:
    """:class:`bot.table.deadlines.Deadlines` for several workers: the deadlines are the
    database's; a poller claims due ones. ``schedule`` only wakes the poller sooner."""

    def __init__(self, coord: PgCoordination, clock: Callable[[], float] = time.time) -> None:
        self.coord = coord
        self.clock = clock
        self.handler: Expired | None = None
        self.wake = asyncio.Event()
        self.next_wake = 0.0
        self.poller: asyncio.Task[None] | None = None
        self.running = Background("a deadline's timeout")

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

    async def started(self, chat_id: int, decision: int, version: int, deadline: float,
                      on_expiry: Expired) -> None:
        """A clock started from the facts of presence, with no commit: its deadline is
        stored beside the table's record (any worker's poller finds it), then looked for."""
        await self.coord.clock_started(chat_id, decision, deadline)
        self.schedule(chat_id, version, deadline, on_expiry)

    def cancel(self, chat_id: int) -> None:
        """Nothing to cancel: a table's stored deadline goes with its commit."""

    async def dropped(self, chat_id: int, decision: int) -> None:
        """The clock stored for ``decision`` (from the facts of presence) goes: a step that
        left nobody awaited keeps the decision, and its stored clock would be claimed again
        every second, for nothing, for as long as the table waits."""
        await self.coord.clock_dropped(chat_id, decision)

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
        claimed = await self.coord.claim_due(self.clock(), CLAIM_LEASE, CLAIM_BATCH)
        for chat_id, version in claimed:
            self.running.spawn(self._expire(chat_id, version))
        if len(claimed) == CLAIM_BATCH:
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


class ChatLeases:
    """:class:`bot.outbox.courier.Leases` in the database: this worker delivers the chats whose
    lease it holds; a step committed here for another worker's chat rings that worker;
    orphaned chats (their worker died, or its lease connection did) are taken over by a
    periodic sweep. The leases this worker lost with its connection are asked for again
    when it is back."""

    def __init__(self, coord: PgCoordination) -> None:
        self.coord = coord
        self.courier: Courier | None = None
        self.trying: set[int] = set()
        self.sweeper: asyncio.Task[None] | None = None
        self.background = Background("delivery lease work")

    async def start(self, courier: Courier) -> None:
        """Hear other workers' rings and sweep for orphans, for ``courier``."""
        self.courier = courier
        await self.coord.listen(self._rung, self._ask_again)
        self.sweeper = asyncio.get_running_loop().create_task(self._sweep(courier))

    def stop(self) -> None:
        """Stop sweeping (the leases end with the connection)."""
        if self.sweeper is not None:
            self.sweeper.cancel()

    def holds(self, chat_id: int) -> bool:
        """Whether this worker holds the chat's lease."""
        return chat_id in self.coord.leases

    def ask(self, chat_id: int) -> None:
        """Ask for the chat's lease (its holder is rung if another worker has it)."""
        if chat_id in self.trying:
            return  # the lease is being asked for; its answer covers this ring too
        self.trying.add(chat_id)
        self.background.spawn(self._lease(chat_id))

    async def _lease(self, chat_id: int) -> None:
        try:
            got = await self.coord.lease_or_ring(chat_id)
        finally:
            self.trying.discard(chat_id)
        if got and self.courier is not None:
            self.courier.take_over(chat_id)

    def _ask_again(self, chats: list[int]) -> None:
        """The lease connection is back: ask for the chats held when it went."""
        for chat_id in chats:
            self.ask(chat_id)

    def _rung(self, chat_id: int) -> None:
        """Another worker committed something of a chat: deliver it if it is ours."""
        if self.holds(chat_id) and self.courier is not None:
            self.courier.rung_elsewhere(chat_id)

    async def _sweep(self, courier: Courier) -> None:
        while not courier.stopping:
            await asyncio.sleep(SWEEP * random.uniform(0.5, 1.5))
            try:
                await self.coord.check_listening()
                for chat_id in await self.coord.take_orphans(TAKE_PER_SWEEP):
                    log.info("chat %s: delivery taken over", chat_id)
                    courier.take_over(chat_id)
                for chat_id in await self.coord.idle_leases():
                    if courier.idle(chat_id):
                        await self.coord.release(chat_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the delivery sweep failed")


class TableNews:
    """Every worker hears every commit: :meth:`announce` (fed by its own task from the feed
    of committed tables, :mod:`bot.outbox.feed`) tells every worker that a table changed, in
    the background, the announcements of one turn of the loop in one round trip (a chat's
    newest version only);
    :meth:`hear` calls ``changed(chat_id)`` for each announcement heard (this worker's own
    too), and for every chat of ``open_chats()`` when announcements may have been missed.
    An announcement that fails is logged and lost: the commit stands, and the pages of
    other workers get the change with the table's next one (or a page's resync)."""

    def __init__(self, coord: PgCoordination) -> None:
        self.coord = coord
        self.pending: dict[int, int] = {}
        self.sending: asyncio.Task[None] | None = None
        self.reading: asyncio.Task[None] | None = None

    def announce(self, chat_id: int, version: int) -> None:
        """The chat's table was committed at ``version`` here: tell every worker."""
        self.pending[chat_id] = max(version, self.pending.get(chat_id, version))
        if self.sending is None:
            self.sending = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        try:
            while self.pending:
                await asyncio.sleep(0)  # this turn's commits: one round trip
                news, self.pending = sorted(self.pending.items()), {}
                try:
                    await self.coord.announce(news)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("announcing %d changed table(s) failed", len(news))
        finally:
            self.sending = None

    async def follow(self, tables: Tables, changed: Callable[[int], None],
                     open_chats: Callable[[], Iterable[int]]) -> None:
        """Announce every commit ``tables`` publishes (:meth:`announce`, version 0: closed,
        its pages on every worker show it closed) and :meth:`hear` every worker's."""
        reader = tables.feed.reader()

        async def announcing() -> None:
            while True:
                for chat_id, version in (await reader.read()).items():
                    self.announce(chat_id, version)

        self.reading = asyncio.get_running_loop().create_task(announcing())
        await self.hear(changed, open_chats)

    async def hear(self, changed: Callable[[int], None],
                   open_chats: Callable[[], Iterable[int]]) -> None:
        """Call ``changed(chat_id)`` for every table any worker announces, and for every chat
        of ``open_chats()`` once the LISTEN connection is back after a loss."""

        def heard(chat_id: int, version: int) -> None:
            changed(chat_id)

        def missed() -> None:
            chats = list(open_chats())
            log.info("table news may have been missed: %d chats with pages taken as "
                     "changed", len(chats))
            for chat_id in chats:
                changed(chat_id)

        await self.coord.hear_news(heard, missed)

    def stop(self) -> None:
        """Stop sending (what is pending is dropped)."""
        for task in (self.reading, self.sending):
            if task is not None:
                task.cancel()


class Shared:
    """The shared-mode collaborators of one worker, built by :func:`open_shared`."""

    def __init__(self, coord: PgCoordination) -> None:
        self.coord = coord
        self.chat_locks = ChatLocks(coord)
        self.deadlines = PolledDeadlines(coord)
        self.leases = ChatLeases(coord)
        self.news = TableNews(coord)

    async def close(self) -> None:
        """Stop polling and disconnect (every lock, claim and lease of the worker ends)."""
        self.deadlines.stop()
        self.news.stop()
        await self.coord.close()


async def open_shared(storage_url: str, setting: bool | None) -> Shared | None:
    """The shared-mode collaborators when workers share the database, else None."""
    if not shared_mode(storage_url, setting):
        return None
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

    dsn, schema = postgres_target(storage_url)

    def budget(group_max: int, window: float, overall_max: int) -> Budget:
        if redis_url:
            return RedisBudget(redis_url, f"banco:{schema or 'public'}", group_max, window,
                               overall_max)
        return PgBudget(dsn, schema, group_max, window, overall_max)

    return shared_limiter(budget, max_messages, period, max_retries, overall_per_second)

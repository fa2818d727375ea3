"""Telegram's budgets kept across every worker: per group N a minute, 30 a second overall.

:class:`bot.outbox.ratelimit.GroupWindowLimiter` counts in one process's memory. With several
workers on one bot token their messages add up at Telegram, so each message first
takes a slot in a shared count, in Redis (``REDIS_URL``) or else in PostgreSQL; when
neither window has room it waits until the oldest slot leaves. As in the one-process
limiter a message counts from the moment its call returned: the slot is moved to then.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from bot.outbox.ratelimit import Call, GroupWindowLimiter, JSONDict, Windows

log = logging.getLogger(__name__)

OVERALL_PERIOD = 1.0


class Budget(Protocol):
    """A shared count of messages per group and overall."""

    async def open(self) -> None:
        """Connect."""
        ...

    async def close(self) -> None:
        """Disconnect."""
        ...

    async def take(self, group: int, token: int) -> tuple[float, list[float]]:
        """Take one message of ``group`` (0: none) and of the overall budget: (0, the group's
        window's times) when taken, else (seconds to wait, []) and nothing was taken."""
        ...

    async def done(self, group: int, token: int) -> None:
        """The message of ``token`` (to ``group``, as taken) was delivered now: it counts
        from now."""
        ...


_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local gmax, gper, omax = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local wait = 0
if gmax > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - gper)
  if redis.call('ZCARD', KEYS[1]) >= gmax then
    local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    wait = tonumber(first[2]) + gper - now
  end
end
if omax > 0 and wait <= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 1)
  if redis.call('ZCARD', KEYS[2]) >= omax then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    wait = tonumber(first[2]) + 1 - now
  end
end
if wait > 0 then return {tostring(wait + 0.01)} end
local out = {'0'}
if gmax > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(gper * 1000) + 1000)
  local times = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 2, #times, 2 do out[#out + 1] = times[i] end
end
if omax > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], 2000)
end
return out
"""

_DONE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now, ARGV[1]) end
return 0
"""


class RedisBudget:
    """The shared count in Redis: a sorted set per group and one overall, by Redis time."""

    def __init__(self, url: str, prefix: str, group_max: int, period: float,
                 overall_max: int) -> None:
        self.url = url
        self.prefix = prefix
        self.group_max, self.period, self.overall_max = group_max, period, overall_max
        self.client: Any = None

    async def open(self) -> None:
        """Connect and load the scripts."""
        import redis.asyncio as redis  # an optional dependency: only with REDIS_URL

        self.client = redis.from_url(self.url)
        self._take = self.client.register_script(_TAKE)
        self._done = self.client.register_script(_DONE)

    async def close(self) -> None:
        """Disconnect."""
        if self.client is not None:
            await self.client.aclose()

    def _keys(self, group: int) -> list[str]:
        return [f"{self.prefix}:g:{group}", f"{self.prefix}:all"]

    async def take(self, group: int, token: int) -> tuple[float, list[float]]:
        """See :class:`Budget`."""
        out = await self._take(keys=self._keys(group), args=[
            self.group_max if group else 0, self.period, self.overall_max, token])
        wait = float(out[0])
        if wait > 0:
            return wait, []
        return 0.0, [float(x) for x in out[1:]]

    async def done(self, group: int, token: int) -> None:
        """See :class:`Budget`."""
        keys = self._keys(group) if group else self._keys(0)[1:]
        await self._done(keys=keys, args=[token])


class PgBudget:
    """The shared count in PostgreSQL (``rate_slots``, migration 003)."""

    def __init__(self, dsn: str, schema: str | None, group_max: int, period: float,
                 overall_max: int) -> None:
        from storage.postgres_coord import RATE, lock_key

        self.group_key = functools.partial(lock_key, schema, RATE)
        self.overall_key = lock_key(schema, RATE, 0)
        self.dsn, self.schema = dsn, schema
        self.group_max, self.period, self.overall_max = group_max, period, overall_max
        self.pool: Any = None

    async def open(self) -> None:
        """Connect."""
        import asyncpg

        self.pool = await asyncpg.create_pool(
            self.dsn, min_size=1, max_size=8,
            server_settings={"search_path": self.schema} if self.schema else {})

    async def close(self) -> None:
        """Disconnect."""
        if self.pool is not None:
            await self.pool.close()

    async def take(self, group: int, token: int) -> tuple[float, list[float]]:
        """See :class:`Budget`."""
        row = await self.pool.fetchrow(
            "SELECT wait, recent FROM rate_take($1, $2, $3, $4, $5, $6, $7)",
            group, self.group_max, self.period, self.overall_max,
            self.group_key(group), self.overall_key, token)
        return float(row[0]), [float(x) for x in row[1] or []]

    async def done(self, group: int, token: int) -> None:
        """See :class:`Budget`."""
        await self.pool.execute(
            "UPDATE rate_slots SET at = extract(epoch FROM clock_timestamp())"
            " WHERE token = $1", token)


class SharedAdmission:
    """:class:`bot.outbox.ratelimit.Admission` across the workers: a message first takes a slot
    in the shared :class:`Budget`. The process's own window of each group mirrors the
    shared one as of its last message, for the pace's spare count."""

    def __init__(self, budget: Budget, overall_max: int) -> None:
        self.budget = budget
        self.overall_max = overall_max

    async def open(self) -> None:
        """Connect to the shared count."""
        await self.budget.open()

    async def close(self) -> None:
        """Disconnect."""
        await self.budget.close()

    async def admit(self, windows: Windows, group: int | str | None, message: bool,
                    call: Call) -> bool | JSONDict | list[JSONDict]:
        """See :class:`bot.outbox.ratelimit.Admission`."""
        if not message or (group is None and self.overall_max <= 0):
            return await call()
        gid = group if isinstance(group, int) else 0
        w = windows.of(gid) if gid else None
        # one message of a group at a time in this process: its order is kept
        async with w.lock if w is not None else contextlib.nullcontext():
            token = secrets.randbits(62)
            while True:
                wait, recent = await self.budget.take(gid, token)
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            if w is not None:
                # the shared window in this process's clock, for the pace's spare count
                offset = time.monotonic() - time.time()
                w.times = deque(t + offset for t in recent)
            try:
                return await call()
            finally:
                try:
                    await self.budget.done(gid, token)
                except Exception:  # the slot stays at its start: counted a little early
                    log.exception("a message's slot was not moved to its end")


def shared_limiter(budget_of: Callable[[int, float, int], Budget], max_messages: int,
                   period: float = 60.0, max_retries: int = 3,
                   overall_per_second: float = 30) -> GroupWindowLimiter:
    """The rate limiter whose windows every worker shares (``budget_of(group_max, period,
    overall_max)`` makes the count)."""
    return GroupWindowLimiter(max_messages, period, max_retries, admission=SharedAdmission(
        budget_of(max_messages, period, int(overall_per_second)), int(overall_per_second)))

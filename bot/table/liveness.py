"""Whether the bot was down, and since when: each running process marks itself alive in the
storage every :data:`ALIVE_EVERY` seconds and once more as it stops
(:meth:`bot.table.lifecycle.Lifecycle.stop`); at start the newest mark of any process says
since when none ran, and a decision whose clock ran meanwhile is given its time again
(:meth:`bot.table.lifecycle.Lifecycle.resume_all`). With several workers, one worker's death
is no downtime while another runs: it marks again within :data:`ALIVE_EVERY` seconds (a dead
worker's last mark may be as fresh, so a starting worker waits for the next one to tell).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable

from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

ALIVE_EVERY = 2.0
"""Seconds between two marks of a running process."""
DOWN_AFTER = 3 * ALIVE_EVERY
"""With several workers: a newest mark older than this means that none ran meanwhile; a
newer one is looked at again after :data:`ALIVE_WAIT` (its worker may have died since)."""
ALIVE_WAIT = 1.5 * ALIVE_EVERY
"""Seconds in which a running worker surely marks itself again."""


class Liveness:
    """This process's alive marks."""

    def __init__(self, storage: Storage, *, shared: bool,
                 now: Callable[[], float] = time.time,
                 wait: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.storage = storage
        self.shared = shared
        self.now = now
        self.wait = wait
        self.worker = uuid.uuid4().hex
        self.beating: asyncio.Task[None] | None = None

    async def start(self) -> float | None:
        """Mark this process alive, now and from now on; returns since when no process ran
        (the newest mark before this one), or None: never before, or (several workers)
        another one runs."""
        last = await self.storage.last_alive()
        now = self.now()
        await self.storage.mark_alive(worker=self.worker, at=now)
        self.beating = asyncio.get_running_loop().create_task(self._beat())
        if last is None:
            return None
        if self.shared and now - last < DOWN_AFTER:
            # a fresh mark: its worker runs if it marks again (a dead one's stays as it is)
            await self.wait(ALIVE_WAIT)
            newest = await self.storage.last_alive(other_than=self.worker)
            if newest is not None and newest > last:
                return None
        return last

    async def stop(self) -> None:
        """This process stops running the tables' clocks: its last mark."""
        if self.beating is None:
            return
        self.beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.beating
        self.beating = None
        try:
            await self.storage.mark_alive(worker=self.worker, at=self.now())
        except (StorageError, OSError):
            log.warning("the last alive mark was not written")

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(ALIVE_EVERY)
            try:
                await self.storage.mark_alive(worker=self.worker, at=self.now())
            except asyncio.CancelledError:
                raise
            except Exception:  # the next beat tries again
                log.warning("the alive mark was not written", exc_info=True)

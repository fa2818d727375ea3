"""Whether the bot was down, and since when: each running process marks itself alive in the
storage every :data:`ALIVE_EVERY` seconds and once more as it stops
(:meth:`bot.table.lifecycle.Lifecycle.stop`); at start the newest mark of any process says
since when none ran, and a decision whose clock ran meanwhile is given its time again
(:meth:`bot.table.lifecycle.Lifecycle.resume_all`). With several workers, one worker's death
is no downtime while another runs: its mark is fresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable

from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

ALIVE_EVERY = 2.0
"""Seconds between two marks of a running process."""
DOWN_AFTER = 3 * ALIVE_EVERY
"""With several workers: a newest mark older than this means that none ran meanwhile."""


class Liveness:
    """This process's alive marks."""

    def __init__(self, storage: Storage, *, shared: bool,
                 now: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.shared = shared
        self.now = now
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
        if last is None or (self.shared and now - last < DOWN_AFTER):
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

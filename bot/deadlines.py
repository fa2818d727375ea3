"""Decision deadlines: one timer per table, rebuilt from storage at start-up.

The deadline itself is stored with every committed step (``TableRecord.deadline``),
so a restart loses nothing: :meth:`Deadlines.schedule` is called again for each
open table and a deadline already past fires at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from bot import metrics

log = logging.getLogger(__name__)

Expired = Callable[[int, int], Coroutine[Any, Any, None]]
"""What runs when a deadline passes: ``(chat_id, version)``."""


class Deadlines:
    """Runs a handler ``(chat_id, version)`` at each table's deadline (one per table)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.timers: dict[int, asyncio.TimerHandle] = {}
        self.running: set[asyncio.Task[None]] = set()

    def cancel(self, chat_id: int) -> None:
        """Forget the table's pending deadline."""
        timer = self.timers.pop(chat_id, None)
        if timer is not None:
            timer.cancel()

    def schedule(self, chat_id: int, version: int, deadline: float | None,
                 on_expiry: Expired) -> None:
        """Replace the table's deadline (none when ``deadline`` is None)."""
        self.cancel(chat_id)
        if deadline is None:
            return
        delay = max(0.0, deadline - self.clock())
        loop = asyncio.get_running_loop()
        self.timers[chat_id] = loop.call_later(delay, self._fire, chat_id, version, on_expiry,
                                               deadline)

    def pending(self, chat_id: int) -> bool:
        """Whether the table has a deadline scheduled."""
        return chat_id in self.timers

    def _fire(self, chat_id: int, version: int, on_expiry: Expired, due: float) -> None:
        self.timers.pop(chat_id, None)
        metrics.deadline_fired(due, self.clock())
        task = asyncio.get_running_loop().create_task(on_expiry(chat_id, version))
        self.running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a deadline handler failed", exc_info=task.exception())

    def stop(self) -> None:
        """Cancel every pending deadline (the process stops; they are stored)."""
        for chat_id in list(self.timers):
            self.cancel(chat_id)

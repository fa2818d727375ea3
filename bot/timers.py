"""Decision deadlines: one JobQueue job per table, rebuilt from storage at start-up.

The deadline itself is stored with every committed step (TableRecord.deadline),
so a restart loses nothing: :meth:`Timers.schedule` is called again for each
open table and a deadline already past fires at once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import CallbackContext, JobQueue

DeadlineHandler = Callable[[int, int], Awaitable[None]]


def job_name(chat_id: int) -> str:
    """The name of a table's deadline job."""
    return f"deadline:{chat_id}"


class Timers:
    """Schedules ``on_expiry(chat_id, version)`` at each table's deadline."""

    def __init__(self, job_queue: JobQueue[Any] | None, on_expiry: DeadlineHandler) -> None:
        self.job_queue = job_queue
        self.on_expiry = on_expiry

    def cancel(self, chat_id: int) -> None:
        """Forget the table's pending deadline."""
        if self.job_queue is None:
            return
        for job in self.job_queue.get_jobs_by_name(job_name(chat_id)):
            job.schedule_removal()

    def schedule(self, chat_id: int, version: int, deadline: float | None) -> None:
        """Replace the table's deadline job (none when ``deadline`` is None)."""
        self.cancel(chat_id)
        if deadline is None or self.job_queue is None:
            return
        delay = max(0.0, deadline - time.time())
        self.job_queue.run_once(self._fire, when=delay, data=(chat_id, version),
                                name=job_name(chat_id))

    async def _fire(self, context: CallbackContext) -> None:  # type: ignore[type-arg]
        job = context.job
        if job is None or not isinstance(job.data, tuple):
            return
        chat_id, version = job.data
        await self.on_expiry(chat_id, version)

"""Tasks started and not awaited: kept until they end (the event loop holds only weak
references to tasks), and a failure logged rather than lost."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from typing import Any

log = logging.getLogger(__name__)


class Background:
    """The running tasks of one kind of work (``what`` names it in the log)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(self.tasks)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s failed", self.what, exc_info=task.exception())

"""Decision deadlines: what runs a table's timeout when its deadline passes.

The deadline itself is stored with every committed step (``TableRecord.deadline``), or,
a clock started since the table's last commit, found from the facts of presence
(:mod:`bot.table.clock`), so a restart loses nothing: :meth:`Deadlines.schedule` is called
again for each open table and a deadline already past fires at once. One process keeps an asyncio
timer per table (:class:`Timers`); several workers on one database poll it for due
deadlines instead (:class:`bot.workers.coordination.PolledDeadlines`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from bot.background import Background
from bot.ops import metrics

Expired = Callable[[int, int], Coroutine[Any, Any, None]]
"""What runs when a deadline passes: ``(chat_id, version)``."""


class Deadlines(Protocol):
    """What the decision clock asks of deadlines (:class:`bot.table.clock.Clock`)."""

    def schedule(self, chat_id: int, version: int, deadline: float | None,
                 on_expiry: Expired) -> None:
        """The table's deadline is now ``deadline`` (None: it has none)."""
        ...

    async def started(self, chat_id: int, decision: int, version: int, deadline: float,
                      on_expiry: Expired) -> None:
        """The clock of the table's ``decision`` (at step ``version``) started from the facts
        of presence, with no commit: its deadline is ``deadline``."""
        ...

    def cancel(self, chat_id: int) -> None:
        """The table has no deadline any more (closed)."""
        ...

    async def dropped(self, chat_id: int, decision: int) -> None:
        """Nobody is awaited at the table's ``decision`` any more (every player stood up, or
        the table waits for players): a clock started for it has nothing to time out."""
        ...

    def stop(self) -> None:
        """The process stops: run no more deadlines (they stay stored)."""
        ...


class Timers:
    """Deadlines for one process: runs a handler ``(chat_id, version)`` at each table's
    deadline, from an asyncio timer (one per table)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.timers: dict[int, asyncio.TimerHandle] = {}
        self.running = Background("a deadline handler")

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

    async def started(self, chat_id: int, decision: int, version: int, deadline: float,
                      on_expiry: Expired) -> None:
        """A clock started: its deadline is this process's timer (a restart finds it again
        from the facts of presence)."""
        self.schedule(chat_id, version, deadline, on_expiry)

    async def dropped(self, chat_id: int, decision: int) -> None:
        """Nothing to drop: a timer fires once, and a restart schedules none for a table
        that awaits nobody."""

    def pending(self, chat_id: int) -> bool:
        """Whether the table has a deadline scheduled."""
        return chat_id in self.timers

    def _fire(self, chat_id: int, version: int, on_expiry: Expired, due: float) -> None:
        self.timers.pop(chat_id, None)
        metrics.deadline_fired(due, self.clock())
        self.running.spawn(on_expiry(chat_id, version))

    def stop(self) -> None:
        """Cancel every pending deadline (the process stops; they are stored)."""
        for chat_id in list(self.timers):
            self.cancel(chat_id)

"""Telegram's flood limits, kept on our side: at most N messages in any window per group.

Telegram allows about 20 messages a minute in a group (README, "Pace under Telegram's
limits"). PTB's ``AIORateLimiter`` enforces a leaky bucket of that size, which lets 20 go at
once and then one every 3 s, i.e. up to 40 in the first minute: enough to
earn a 429 with a wait of most of a minute. It also answers a 429 by pausing
every request of the bot, callback answers included. This limiter instead
counts messages (sends and edits) per group in a sliding window, so no
window of ``period`` seconds ever holds more than ``max_messages``, and a 429
(if Telegram still sends one) delays only the request that got it.

A message counts from the moment its call *returned*, which is after Telegram
received it, so network jitter cannot squeeze 21 into one window.

Stopping (:meth:`GroupWindowLimiter.stop`), nothing waits for its turn any longer: a full
window frees one slot every three seconds, so the sends queued behind a few busy groups
could hold a stopping bot for half an hour (its handlers, then PTB's stop, waiting on
them). A request still waiting :data:`STOPPING_WAIT` after the stop (or after it was made,
if later) fails with :class:`Stopping`; a call already made is never cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from aiolimiter import AsyncLimiter
from telegram import Bot
from telegram.error import NetworkError, RetryAfter
from telegram.ext import BaseRateLimiter, ExtBot

from bot.ops import metrics

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
# Methods that put a message in a chat (or change one): what Telegram's group limit counts.
MESSAGE_PREFIXES = ("send", "edit", "copy", "forward", "stop")
OVERALL_PER_SECOND = 30
STOPPING_WAIT = 0.5
"""Seconds a request may still wait for its turn (a group's window, the overall cap, the
pause a 429 asked for) once the bot is stopping: one whose slot is due at once still goes."""


class Stopping(NetworkError):
    """The bot is stopping and the request was still waiting for its turn: it was not sent.

    A network error, as every caller already expects one: a handler logs it and ends, the
    courier keeps the item in the outbox (for the next start, once ``STOP_FLUSH`` is over).
    """

    def __init__(self, endpoint: str) -> None:
        super().__init__(f"{endpoint} not sent: the bot is stopping")


class Window:
    """The messages of one group in the last ``period`` seconds (completion times)."""

    def __init__(self, max_messages: int, period: float) -> None:
        self.max_messages = max_messages
        self.period = period
        self.times: deque[float] = deque()
        self.lock = asyncio.Lock()
        self.queued = 0
        """This process's messages to the group on their way: waiting for room, or sent
        and not yet answered (not in ``times`` yet)."""

    def count(self, now: float) -> int:
        """The messages of the window at ``now``; those older than ``period`` are dropped
        (completion times only grow: one message of a group at a time, so the oldest
        are first)."""
        times = self.times
        while times and now - times[0] >= self.period:
            times.popleft()
        return len(times)

    async def wait_turn(self) -> None:
        """Sleep until one more message fits in the window."""
        while True:
            now = time.monotonic()
            if self.count(now) < self.max_messages:
                return
            await asyncio.sleep(self.times[0] + self.period - now + 0.01)

    def sent(self) -> None:
        """A message was delivered just now."""
        self.times.append(time.monotonic())


def retry_seconds(exc: RetryAfter) -> float:
    """The seconds a 429 asks to wait (PTB gives them as a number or as a timedelta)."""
    pause = exc.retry_after
    return float(pause if isinstance(pause, int | float) else pause.total_seconds())


class _NoCap(contextlib.AbstractAsyncContextManager[None]):
    """The overall cap, lifted."""

    async def __aexit__(self, *exc: object) -> None:
        return None


Call = Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]]
"""PTB's request, to be made once the budgets allow it."""


class Windows:
    """This process's window of each group (idle ones are dropped when there are many)."""

    def __init__(self, max_messages: int, period: float) -> None:
        self.max_messages = max_messages
        self.period = period
        self.by_group: dict[int | str, Window] = {}

    def of(self, group: int | str) -> Window:
        """The window of one group."""
        if len(self.by_group) > 1024:
            now = time.monotonic()
            for key, w in list(self.by_group.items()):
                if not w.lock.locked() and not w.queued and (
                        not w.times or now - w.times[-1] >= w.period):
                    del self.by_group[key]
        if group not in self.by_group:
            self.by_group[group] = Window(self.max_messages, self.period)
        return self.by_group[group]

    def spare(self, group: int) -> int:
        """How many more messages the group's window takes right now."""
        w = self.by_group.get(group)
        if w is None:
            return self.max_messages
        return self.max_messages - w.count(time.monotonic())

    def room(self, group: int) -> int:
        """How many more messages the group's window takes now after the ones already on
        their way: one more sent now goes without waiting if this is positive."""
        w = self.by_group.get(group)
        return self.spare(group) - (w.queued if w is not None else 0)


class Admission(Protocol):
    """When a request may go: counted in this process (:class:`LocalAdmission`) or across
    the workers (:class:`bot.workers.shared_ratelimit.SharedAdmission`)."""

    async def open(self) -> None:
        """Connect to whatever keeps the count."""
        ...

    async def close(self) -> None:
        """Disconnect."""
        ...

    async def admit(self, windows: Windows, group: int | str | None, message: bool,
                    call: Call) -> bool | JSONDict | list[JSONDict]:
        """Make ``call`` once the group's window (``group``: None outside groups) and the
        overall cap allow it; ``message``: it puts a message in a chat."""
        ...


class LocalAdmission:
    """The budgets of one process: its windows, and 30 messages a second overall
    (``overall_per_second`` of 0 lifts that cap: only the load bench does, so that it
    measures the bot rather than this cap)."""

    def __init__(self, overall_per_second: float = OVERALL_PER_SECOND) -> None:
        self.overall: AsyncLimiter | contextlib.AbstractAsyncContextManager[None] = (
            AsyncLimiter(overall_per_second, 1) if overall_per_second > 0 else _NoCap())

    async def open(self) -> None:
        """Nothing to set up."""

    async def close(self) -> None:
        """Nothing to release."""

    async def admit(self, windows: Windows, group: int | str | None, message: bool,
                    call: Call) -> bool | JSONDict | list[JSONDict]:
        """See :class:`Admission`."""
        if group is None:
            if not message:
                # Telegram's ~30/s counts messages; a callback answer must never queue
                # behind them (the presser waits for his pop-up)
                return await call()
            async with self.overall:
                return await call()
        w = windows.of(group)
        # one message of a group at a time: the window knows every earlier one's completion
        async with w.lock:
            await w.wait_turn()
            async with self.overall:
                try:
                    return await call()
                finally:
                    w.sent()


class GroupWindowLimiter(BaseRateLimiter[int]):
    """PTB's rate limiter: ``max_messages`` per ``period`` seconds per group and 30 messages
    a second overall, as ``admission`` counts them (by default in this process)."""

    def __init__(self, max_messages: int, period: float = 60.0, max_retries: int = 3,
                 overall_per_second: float = OVERALL_PER_SECOND,
                 admission: Admission | None = None) -> None:
        self.max_retries = max_retries
        self.windows = Windows(max_messages, period)
        self.admission = admission or LocalAdmission(overall_per_second)
        # the requests waiting for their turn, each as the timeout a stop brings forward
        self.waiting: set[asyncio.Timeout] = set()
        self.stopping = False
        self.ephemeral_in_budget = True
        """Whether a message only one member of the group sees (Bot API 10.2's
        ``receiver_user_id``) counts against the group's window (EPHEMERAL_IN_GROUP_BUDGET):
        Telegram does not say whether it does, so by default it is counted."""

    async def initialize(self) -> None:
        """Connect the admission's count."""
        await self.admission.open()

    async def shutdown(self) -> None:
        """Disconnect it."""
        await self.admission.close()

    def spare(self, group: int) -> int:
        """How many more messages the group's window takes right now."""
        return self.windows.spare(group)

    def stop(self) -> None:
        """The bot is stopping: from now on no request waits for its turn longer than
        :data:`STOPPING_WAIT`; one that would fails with :class:`Stopping`."""
        if self.stopping:
            return
        self.stopping = True
        if self.waiting:
            log.info("stopping: %d request(s) waiting for their turn fail unless it comes "
                     "within %.1f s", len(self.waiting), STOPPING_WAIT)
        deadline = self._deadline()
        for wait in self.waiting:
            wait.reschedule(deadline)

    def _deadline(self) -> float | None:
        """Until when a request may wait for its turn from now (None: as long as it takes)."""
        if not self.stopping:
            return None
        return asyncio.get_running_loop().time() + STOPPING_WAIT

    def room(self, group: int) -> int:
        """How many more messages the group's window takes now after those on their way
        (:meth:`Windows.room`)."""
        return self.windows.room(group)

    async def process_request(
        self,
        callback: Call,
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | JSONDict | list[JSONDict]:
        """Wait for room in the group's window, send, and retry after a 429."""
        group: int | str | None = None
        chat_id = data.get("chat_id")
        with contextlib.suppress(TypeError, ValueError):
            chat_id = int(chat_id) if chat_id is not None else None
        is_group = (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str)
        message = endpoint.lower().startswith(MESSAGE_PREFIXES)
        if is_group and message and not (not self.ephemeral_in_budget and (
                "receiver_user_id" in data or endpoint.startswith("editEphemeral"))):
            # (a message one member sees is left out of the group's window by the setting;
            # it still counts against the bot's overall cap)
            group = chat_id
        retries = rate_limit_args if rate_limit_args is not None else self.max_retries
        queue = self.windows.of(group) if group is not None else None
        if queue is not None:
            queue.queued += 1  # on its way: what room() leaves out
        # the wait for a turn is one asyncio timeout, so that a stop can end it wherever it
        # is (the group's lock, its window, the overall cap, a shared count, a 429's pause)
        wait = asyncio.timeout_at(self._deadline())

        async def call() -> bool | JSONDict | list[JSONDict]:
            # from here the request may reach Telegram: a stop no longer cuts it short
            self.waiting.discard(wait)
            if not wait.expired():  # (expired, the task is already cancelled: it ends here)
                wait.reschedule(None)
            return await callback(*args, **kwargs)

        self.waiting.add(wait)
        try:
            async with wait:
                for attempt in range(retries + 1):
                    try:
                        return await self.admission.admit(self.windows, group, message, call)
                    except RetryAfter as exc:
                        metrics.retry_after(endpoint)
                        if attempt == retries:
                            raise
                        seconds = retry_seconds(exc)
                        log.warning("%s to chat %s: Telegram asks to wait %.0f s", endpoint,
                                    chat_id, seconds)
                        self.waiting.add(wait)
                        wait.reschedule(self._deadline())
                        await asyncio.sleep(seconds + 0.1)
        except TimeoutError:
            if not wait.expired():  # not the stop's: the request's own
                raise
            log.warning("stopping: %s to chat %s not sent, it was still waiting for its turn",
                        endpoint, chat_id)
            raise Stopping(endpoint) from None
        finally:
            self.waiting.discard(wait)
            if queue is not None:
                queue.queued -= 1
        raise AssertionError("unreachable")


def is_stopping(bot: Bot) -> bool:
    """Whether the bot's stop began (:func:`stopping`): nothing should wait any longer."""
    limiter = bot.rate_limiter if isinstance(bot, ExtBot) else None
    return isinstance(limiter, GroupWindowLimiter) and limiter.stopping


def stopping(bot: Bot) -> None:
    """The bot is stopping: its rate limiter, if one of ours, holds no request any longer
    (:meth:`GroupWindowLimiter.stop`)."""
    limiter = bot.rate_limiter if isinstance(bot, ExtBot) else None
    if isinstance(limiter, GroupWindowLimiter):
        limiter.stop()

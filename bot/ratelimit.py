"""Telegram's flood limits, kept on our side: at most N messages in any window per group.

Telegram allows about 20 messages a minute in a group (DESIGN.md). PTB's
``AIORateLimiter`` enforces a leaky bucket of that size, which lets 20 go at
once and then one every 3 s, i.e. up to 40 in the first minute: enough to
earn a 429 with a wait of most of a minute. It also answers a 429 by pausing
every request of the bot, callback answers included. This limiter instead
counts messages (sends and edits) per group in a sliding window, so no
window of ``period`` seconds ever holds more than ``max_messages``, and a 429
(if Telegram still sends one) delays only the request that got it.

A message counts from the moment its call *returned*, which is after Telegram
received it, so network jitter cannot squeeze 21 into one window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot import metrics

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
# Methods that put a message in a chat (or change one): what Telegram's group limit counts.
MESSAGE_PREFIXES = ("send", "edit", "copy", "forward", "stop")
OVERALL_PER_SECOND = 30


class Window:
    """The messages of one group in the last ``period`` seconds (completion times)."""

    def __init__(self, max_messages: int, period: float) -> None:
        self.max_messages = max_messages
        self.period = period
        self.times: deque[float] = deque()
        self.lock = asyncio.Lock()

    async def wait_turn(self) -> None:
        """Sleep until one more message fits in the window."""
        while True:
            now = time.monotonic()
            while self.times and now - self.times[0] >= self.period:
                self.times.popleft()
            if len(self.times) < self.max_messages:
                return
            await asyncio.sleep(self.times[0] + self.period - now + 0.01)

    def sent(self) -> None:
        """A message was delivered just now."""
        self.times.append(time.monotonic())


class _NoCap(contextlib.AbstractAsyncContextManager[None]):
    """The overall cap, lifted."""

    async def __aexit__(self, *exc: object) -> None:
        return None


class GroupWindowLimiter(BaseRateLimiter[int]):
    """``max_messages`` per ``period`` seconds per group; 30 messages a second overall.

    ``overall_per_second`` of 0 lifts the overall cap: only the load bench does, so that
    it measures the bot rather than this cap.
    """

    def __init__(self, max_messages: int, period: float = 60.0, max_retries: int = 3,
                 overall_per_second: float = OVERALL_PER_SECOND) -> None:
        self.max_messages = max_messages
        self.period = period
        self.max_retries = max_retries
        self.windows: dict[int | str, Window] = {}
        self.overall: AsyncLimiter | contextlib.AbstractAsyncContextManager[None] = (
            AsyncLimiter(overall_per_second, 1) if overall_per_second > 0 else _NoCap())

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def window(self, group: int | str) -> Window:
        """The window of one group (idle ones are dropped when there are many)."""
        if len(self.windows) > 1024:
            now = time.monotonic()
            for key, w in list(self.windows.items()):
                if not w.lock.locked() and (not w.times or now - w.times[-1] >= w.period):
                    del self.windows[key]
        if group not in self.windows:
            self.windows[group] = Window(self.max_messages, self.period)
        return self.windows[group]

    def spare(self, group: int) -> int:
        """How many more messages the group's window takes right now."""
        w = self.windows.get(group)
        if w is None:
            return self.max_messages
        now = time.monotonic()
        return self.max_messages - sum(1 for t in w.times if now - t < w.period)

    async def _once(self, group: int | str | None, message: bool,
                    callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
                    args: Any, kwargs: dict[str, Any]) -> bool | JSONDict | list[JSONDict]:
        if group is None:
            if not message:
                # Telegram's ~30/s counts messages; a callback answer must never queue
                # behind them (the presser waits for his pop-up)
                return await callback(*args, **kwargs)
            async with self.overall:
                return await callback(*args, **kwargs)
        w = self.window(group)
        # one message of a group at a time: the window knows every earlier one's completion
        async with w.lock:
            await w.wait_turn()
            async with self.overall:
                try:
                    return await callback(*args, **kwargs)
                finally:
                    w.sent()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
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
        if is_group and message:
            group = chat_id
        retries = rate_limit_args if rate_limit_args is not None else self.max_retries
        for attempt in range(retries + 1):
            try:
                return await self._once(group, message, callback, args, kwargs)
            except RetryAfter as exc:
                metrics.retry_after(endpoint)
                if attempt == retries:
                    raise
                wait = exc.retry_after
                seconds = float(wait if isinstance(wait, int | float) else wait.total_seconds())
                log.warning("%s to chat %s: Telegram asks to wait %.0f s", endpoint, chat_id,
                            seconds)
                await asyncio.sleep(seconds + 0.1)
        raise AssertionError("unreachable")

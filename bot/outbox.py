"""Sending to Telegram after a step is committed: coalesced table edits, retried messages.

Per group chat one worker task sends, in order, the new messages queued for it
and, when nothing else waits, at most one edit of the table message: the
newest render replaces any older one not yet sent, so a burst of steps costs
one edit. A 429, a 5xx or a timeout never loses anything: the step is already
committed, the message is retried with a back-off and the table message is
re-rendered from the newest state. Direct messages go through one FIFO lock
per player so his cards arrive in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

log = logging.getLogger(__name__)

NEW_MESSAGE_ATTEMPTS = 6
MAX_BACKOFF = 20.0


@dataclass
class Render:
    """A table message as it should look now."""

    text: str
    markup: InlineKeyboardMarkup | None


@dataclass
class NewMessage:
    """A new group message (settlement, announcement); ``table`` posts the table anew."""

    text: str = ""
    table: bool = False


TableMoved = Callable[[int, int], Awaitable[None]]


def _retry_after(exc: RetryAfter) -> float:
    value = exc.retry_after
    return float(value if isinstance(value, int | float) else value.total_seconds())


class ChatOutbox:
    """The sending queue of one group chat."""

    def __init__(self, bot: Bot, chat_id: int, message_id: int | None,
                 on_table_posted: TableMoved) -> None:
        self.bot = bot
        self.chat_id = chat_id
        self.message_id = message_id
        self.on_table_posted = on_table_posted
        self.queue: deque[NewMessage] = deque()
        self.render: Render | None = None
        self.dirty = False
        self.wake = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        self.task: asyncio.Task[None] | None = None
        self.closed = False

    def post(self, item: NewMessage) -> None:
        """Queue a new group message."""
        self.queue.append(item)
        self._kick()

    def update(self, render: Render) -> None:
        """The table message should now look like ``render`` (older renders are dropped)."""
        self.render = render
        self.dirty = True
        self._kick()

    def _kick(self) -> None:
        if self.closed:
            return
        self.idle.clear()
        self.wake.set()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        """Send what is queued, then stop."""
        self.closed = True
        self.wake.set()
        if self.task is not None:
            try:
                await asyncio.wait_for(self.idle.wait(), timeout=10)
            except TimeoutError:
                self.task.cancel()

    async def _run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.queue or self.dirty:
                if self.queue:
                    await self._send_new(self.queue.popleft())
                else:
                    await self._edit()
            self.idle.set()
            if self.closed:
                return

    async def _send_new(self, item: NewMessage) -> None:
        if item.table:
            if self.render is None:
                return
            # the fresh table message carries the newest render: no edit needed
            render, self.dirty = self.render, False
            msg_id = await self._send_retrying(render.text, render.markup)
            if msg_id is None:
                self.dirty = True
                return
            self.message_id = msg_id
            try:
                await self.on_table_posted(self.chat_id, msg_id)
            except Exception:  # the id is kept in memory; it is re-saved on the next post
                log.exception("could not save the table message id of chat %s", self.chat_id)
            return
        await self._send_retrying(item.text, None)

    async def _send_retrying(self, text: str, markup: InlineKeyboardMarkup | None) -> int | None:
        delay = 0.5
        for attempt in range(NEW_MESSAGE_ATTEMPTS):
            try:
                msg = await self.bot.send_message(self.chat_id, text, reply_markup=markup)
                return msg.message_id
            except RetryAfter as exc:
                await asyncio.sleep(_retry_after(exc) + 0.1)
            except Forbidden:
                log.warning("chat %s does not accept messages from the bot", self.chat_id)
                return None
            except BadRequest as exc:
                log.warning("chat %s refused a message: %s", self.chat_id, exc.message)
                return None
            except (NetworkError, TelegramError) as exc:
                log.warning("sendMessage to chat %s failed (attempt %d): %s",
                            self.chat_id, attempt + 1, exc)
                await asyncio.sleep(delay)
                delay = min(MAX_BACKOFF, delay * 2)
        log.error("gave up a message to chat %s after %d attempts", self.chat_id,
                  NEW_MESSAGE_ATTEMPTS)
        return None

    async def _edit(self) -> None:
        render, self.dirty = self.render, False
        if render is None:
            return
        if self.message_id is None:
            self.queue.appendleft(NewMessage(table=True))
            self.dirty = True
            return
        delay = 0.5
        while True:
            try:
                await self.bot.edit_message_text(render.text, chat_id=self.chat_id,
                                                 message_id=self.message_id,
                                                 reply_markup=render.markup)
                return
            except RetryAfter as exc:
                await asyncio.sleep(_retry_after(exc) + 0.1)
            except BadRequest as exc:
                text = exc.message.lower()
                if "not modified" in text:
                    return
                if "not found" in text or "can't be edited" in text:
                    self.message_id = None
                    self.queue.appendleft(NewMessage(table=True))
                    self.dirty = True
                    return
                log.warning("edit refused in chat %s: %s", self.chat_id, exc.message)
                return
            except Forbidden:
                log.warning("chat %s does not accept edits from the bot", self.chat_id)
                return
            except (NetworkError, TelegramError) as exc:
                log.warning("editMessageText in chat %s failed: %s", self.chat_id, exc)
                await asyncio.sleep(delay)
                delay = min(MAX_BACKOFF, delay * 2)
            if self.dirty:
                # a newer render arrived while we waited: send that one instead
                return


DmBlocked = Callable[[int], Awaitable[None]]


class DirectMessages:
    """Direct messages with hidden cards; never logged above DEBUG."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.locks: dict[int, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, user_id: int, text: str, on_forbidden: DmBlocked,
             markup: InlineKeyboardMarkup | None = None) -> None:
        """Send ``text`` to ``user_id`` in the background, in order per player."""
        lock = self.locks.setdefault(user_id, asyncio.Lock())
        task = asyncio.get_running_loop().create_task(
            self._send(lock, user_id, text, on_forbidden, markup))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, lock: asyncio.Lock, user_id: int, text: str,
                    on_forbidden: DmBlocked, markup: InlineKeyboardMarkup | None) -> None:
        async with lock:
            delay = 0.5
            for attempt in range(NEW_MESSAGE_ATTEMPTS):
                try:
                    await self.bot.send_message(user_id, text, reply_markup=markup)
                    log.debug("DM to %s: %s", user_id, text)
                    return
                except RetryAfter as exc:
                    await asyncio.sleep(_retry_after(exc) + 0.1)
                except Forbidden:
                    await on_forbidden(user_id)
                    return
                except BadRequest as exc:
                    log.warning("DM to %s refused: %s", user_id, exc.message)
                    return
                except (NetworkError, TelegramError) as exc:
                    log.warning("DM to %s failed (attempt %d): %s", user_id, attempt + 1,
                                type(exc).__name__)
                    await asyncio.sleep(delay)
                    delay = min(MAX_BACKOFF, delay * 2)
            log.error("gave up a DM to %s", user_id)

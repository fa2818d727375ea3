"""The sandbox as Telegram for a bot on a webhook: each pending update POSTed to its URL.

While a webhook is set (setWebhook), :class:`Delivery` sends every update of the queue
as JSON to the webhook's URL, with the ``X-Telegram-Bot-Api-Secret-Token`` header when
a secret token was set, as Telegram does:

* in order per chat: an update waits while an earlier one of its chat is on its way or
  waiting for a retry; updates of different chats go in parallel, at most the webhook's
  ``max_connections`` at once;
* an answer other than 2xx, a refused connection or a timeout keeps the update pending;
  its chat is retried after a backoff (doubling from ``retry_first`` to ``retry_max``
  seconds) and getWebhookInfo reports the last error;
* an update leaves the queue once delivered (``pending_update_count`` counts the rest).

``spread``: URLs; when there are some, each attempt goes to one of them chosen at
random instead of the registered URL, as a load balancer in front of several bot
workers would (the bot's setWebhook still turns delivery on and off, and its secret
token still goes with every request). Every attempt is kept in ``attempts`` (the last
thousand), which ``GET /sandbox/webhook`` shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

import aiohttp

from sandbox.botapi import allowed
from sandbox.state import World, now

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def chat_key(update: dict[str, Any]) -> Hashable:
    """What Telegram keeps in order: the update's chat (a press: its message's chat), else
    its sender; an update with neither goes on its own."""
    for value in update.values():
        if not isinstance(value, dict):
            continue
        chat = value.get("chat")
        message = value.get("message")
        if chat is None and isinstance(message, dict):
            chat = message.get("chat")
        if isinstance(chat, dict) and isinstance(chat.get("id"), int):
            chat_id: int = chat["id"]
            return chat_id
        sender = value.get("from")
        if isinstance(sender, dict) and isinstance(sender.get("id"), int):
            return ("user", sender["id"])
    return ("update", update.get("update_id"))


class Delivery:
    """The webhook sender of one world; runs between :meth:`start` and :meth:`stop`."""

    def __init__(self, world: World, *, spread: Sequence[str] = (), retry_first: float = 0.1,
                 retry_max: float = 2.0, timeout: float = 10.0, seed: int | None = None) -> None:
        self.world = world
        self.spread = list(spread)
        self.retry_first = retry_first
        self.retry_max = retry_max
        self.timeout = timeout
        self.random = random.Random(seed)
        self.attempts: deque[dict[str, Any]] = deque(maxlen=1000)
        self._flying: dict[int, asyncio.Task[None]] = {}  # id() of the update dict -> its POST
        self._backoff: dict[Hashable, tuple[int, float]] = {}  # chat -> (failures, retry at)
        self._url = ""
        self._session: aiohttp.ClientSession | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin delivering (nothing goes out while no webhook is set)."""
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.timeout))
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop: POSTs under way are abandoned, their updates stay pending."""
        tasks = [t for t in (self._task, *self._flying.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._flying.clear()
        if self._session is not None:
            await self._session.close()

    def state(self) -> dict[str, Any]:
        """The control API's view: the webhook, the spread, what is pending and in flight,
        every recent attempt."""
        hook = self.world.webhook
        return {"url": hook.get("url", ""), "secret_token": hook.get("secret_token"),
                "spread": list(self.spread), "pending": len(self.world.updates),
                "in_flight": len(self._flying), "attempts": list(self.attempts)}

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.world.outbound.clear()
            wait = self._dispatch(loop.time())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.world.outbound.wait(), wait)

    def _dispatch(self, moment: float) -> float | None:
        """Start a POST for each update that may go now; the seconds until a backoff ends
        (None: until something changes)."""
        hook = self.world.webhook
        url = hook.get("url") or ""
        if url != self._url:
            self._url = url
            self._backoff.clear()
        if not url:
            return None
        world = self.world
        world.updates = [u for u in world.updates if allowed(world, u)]
        limit = int(hook.get("max_connections", 40))
        held: set[Hashable] = set()
        due: float | None = None
        for update in world.updates:
            key = chat_key(update)
            if id(update) in self._flying:
                held.add(key)
                continue
            if key in held:
                continue
            held.add(key)
            backoff = self._backoff.get(key)
            if backoff is not None and backoff[1] > moment:
                due = backoff[1] if due is None else min(due, backoff[1])
                continue
            if len(self._flying) >= limit:
                break
            self._flying[id(update)] = asyncio.get_running_loop().create_task(
                self._post(update, key))
        return None if due is None else max(0.0, due - moment)

    async def _post(self, update: dict[str, Any], key: Hashable) -> None:
        hook = self.world.webhook
        target = self.random.choice(self.spread) if self.spread else hook["url"]
        headers = {"Content-Type": "application/json"}
        if hook.get("secret_token"):
            headers[SECRET_HEADER] = hook["secret_token"]
        status: int | None = None
        error: str | None = None
        assert self._session is not None
        try:
            # ASCII JSON: a lone surrogate of a fuzzed update travels as its escape
            async with self._session.post(target, data=json.dumps(update).encode(),
                                          headers=headers) as response:
                status = response.status
                await response.read()
                if not 200 <= status < 300:
                    error = f"Wrong response from the webhook: {status} {response.reason}"
        except TimeoutError:
            error = "Read timeout expired"
        except aiohttp.ClientConnectorError:
            error = "Connection refused"
        except (aiohttp.ClientError, OSError) as exc:
            error = f"Connection error: {type(exc).__name__}"
        finally:
            self._flying.pop(id(update), None)
        self.attempts.append({"update_id": update.get("update_id"), "url": target,
                              "status": status, "error": error, "time": time.time()})
        if error is None:
            updates = self.world.updates
            for index, item in enumerate(updates):
                if item is update:
                    del updates[index]
                    break
            self._backoff.pop(key, None)
        else:
            failures = self._backoff.get(key, (0, 0.0))[0] + 1
            pause = min(self.retry_max, self.retry_first * 2 ** min(failures - 1, 30))
            self._backoff[key] = (failures, asyncio.get_running_loop().time() + pause)
            if self.world.webhook.get("url") == hook.get("url"):
                self.world.webhook["last_error_date"] = now()
                self.world.webhook["last_error_message"] = error
        self.world.outbound.set()

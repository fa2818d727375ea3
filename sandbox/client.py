"""Async client of the sandbox control API, for tests and scripts.

async with SandboxClient(handle.url) as sb:
    await sb.reset()
    await sb.add_user(1, "Ann")
    await sb.send(1, 1, "/start")
    msg = await sb.wait_for(lambda: sb.last_bot_message(1))
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


class SandboxError(Exception):
    """The control API refused a call (status and its message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class SandboxClient:
    """Mirrors the control API of sandbox.server one method per endpoint."""

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        # Plain HTTP needs no CA bundle, and loading one costs a noticeable fraction of a second.
        verify = self.base_url.startswith("https:")
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, verify=verify)

    async def __aenter__(self) -> SandboxClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    async def _call(
        self, verb: str, path: str, body: dict[str, Any] | None = None, **query: Any
    ) -> Any:
        # ASCII JSON: a lone surrogate in a fuzzed update travels as its \ud800 escape
        # (httpx's own encoder writes UTF-8, which cannot hold one)
        response = await self._http.request(
            verb,
            path,
            content=None if body is None else json.dumps(body).encode(),
            headers=None if body is None else {"Content-Type": "application/json"},
            params={k: v for k, v in query.items() if v is not None} or None,
        )
        payload = response.json()
        if response.status_code >= 400:
            message = (
                payload.get("error", response.text) if isinstance(payload, dict) else response.text
            )
            raise SandboxError(response.status_code, message)
        return payload

    # --- world set-up ---------------------------------------------------------

    async def reset(self) -> None:
        """Forget users, chats, messages, updates, the log and faults."""
        await self._call("POST", "/sandbox/reset")

    async def add_user(
        self,
        id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = None,
        *,
        last_name: str | None = None,
    ) -> dict[str, Any]:
        """Create a user (and his private chat, id == user id)."""
        body: dict[str, Any] = {"id": id, "first_name": first_name}
        if username is not None:
            body["username"] = username
        if language_code is not None:
            body["language_code"] = language_code
        if last_name is not None:
            body["last_name"] = last_name
        result: dict[str, Any] = await self._call("POST", "/sandbox/users", body)
        return result

    async def add_chat(
        self,
        id: int,
        title: str,
        type: str = "group",
        members: list[int] | None = None,
        admins: list[int] | None = None,
    ) -> dict[str, Any]:
        """Create a group (negative id) with members and admins (first admin = creator)."""
        body = {
            "id": id,
            "title": title,
            "type": type,
            "members": members or [],
            "admins": admins or [],
        }
        result: dict[str, Any] = await self._call("POST", "/sandbox/chats", body)
        return result

    async def add_bot(self, chat_id: int, by_user: int, *, admin: bool = False) -> dict[str, Any]:
        """Add the bot to a group: my_chat_member and new_chat_members updates."""
        body = {"chat_id": chat_id, "by_user": by_user, "admin": admin}
        result: dict[str, Any] = await self._call("POST", "/sandbox/add_bot", body)
        return result

    async def remove_bot(
        self, chat_id: int, by_user: int, *, kicked: bool = False
    ) -> dict[str, Any]:
        """Remove the bot from a group (my_chat_member update); ``kicked`` bans it, as
        Telegram does when a member is removed from a supergroup."""
        body = {"chat_id": chat_id, "by_user": by_user, "kicked": kicked}
        result: dict[str, Any] = await self._call("POST", "/sandbox/remove_bot", body)
        return result

    # --- people act ---------------------------------------------------------------

    async def send(
        self, chat_id: int, user_id: int, text: str, *, reply_to: int | None = None
    ) -> dict[str, Any]:
        """A user writes (optionally replying to a message); returns
        {message_id, update_id (None if not delivered), delivered}."""
        body: dict[str, Any] = {"chat_id": chat_id, "user_id": user_id, "text": text}
        if reply_to is not None:
            body["reply_to"] = reply_to
        result: dict[str, Any] = await self._call("POST", "/sandbox/send", body)
        return result

    async def press(
        self,
        chat_id: int,
        message_id: int,
        user_id: int,
        data: str,
        *,
        forge: bool = False,
        wait: float = 5.0,
    ) -> dict[str, Any]:
        """Press a button; wait up to `wait` s for the answer.

        Returns {callback_query_id, answered, text, show_alert, ...}.
        """
        on = {"chat_id": chat_id, "message_id": message_id}
        return await self._press(on, user_id, data, forge=forge, wait=wait)

    async def _press(
        self, on: dict[str, int], user_id: int, data: str, *, forge: bool, wait: float
    ) -> dict[str, Any]:
        body = {**on, "user_id": user_id, "data": data, "forge": forge, "wait": wait}
        result: dict[str, Any] = await self._call("POST", "/sandbox/press", body)
        return result

    async def press_ephemeral(
        self, chat_id: int, ephemeral_message_id: int, user_id: int, data: str, *,
        forge: bool = False, wait: float = 5.0
    ) -> dict[str, Any]:
        """The receiver presses a button of one of his ephemeral messages (nobody else can:
        404); the bot's callback_query carries that message (message_id 0). Returns what
        press() does, with ephemeral_message_id."""
        on = {"chat_id": chat_id, "ephemeral_message_id": ephemeral_message_id}
        return await self._press(on, user_id, data, forge=forge, wait=wait)

    async def raw_update(self, update: dict[str, Any]) -> int:
        """Queue one update body verbatim (any shape); returns its update_id."""
        return (await self.raw_updates([update]))[0]

    async def raw_updates(self, updates: list[dict[str, Any]]) -> list[int]:
        """Queue update bodies verbatim, in order; returns their update_ids."""
        result: dict[str, Any] = await self._call(
            "POST", "/sandbox/raw_updates", {"updates": updates}
        )
        ids: list[int] = result["update_ids"]
        return ids

    async def block(self, user_id: int, blocked: bool = True) -> dict[str, Any]:
        """The user blocks (or unblocks) the bot."""
        body = {"user_id": user_id, "blocked": blocked}
        result: dict[str, Any] = await self._call("POST", "/sandbox/block", body)
        return result

    async def set_offline(self, user_id: int, offline: bool = True) -> dict[str, Any]:
        """The user goes offline (or back online): ephemeral messages sent to him while
        offline are never delivered, though the bot's call succeeds. Returns the user."""
        body = {"user_id": user_id, "offline": offline}
        result: dict[str, Any] = await self._call("POST", "/sandbox/offline", body)
        return result

    async def fail(
        self,
        method: str,
        error_code: int | None = None,
        description: str | None = None,
        *,
        count: int = 1,
        retry_after: int | None = None,
        chat_id: int | None = None,
        delay: float | None = None,
        after: bool = False,
        text: str | None = None,
    ) -> dict[str, Any]:
        """Make the next `count` calls of `method` ("*" = any) fail and/or hang `delay` s;
        with `after`, each call takes effect first and only its answer is late or an error;
        with `text`, only calls whose text contains it count."""
        body: dict[str, Any] = {"method": method, "count": count, "after": after}
        if text is not None:
            body["text"] = text
        for key, value in (
            ("error_code", error_code),
            ("description", description),
            ("retry_after", retry_after),
            ("chat_id", chat_id),
            ("delay", delay),
        ):
            if value is not None:
                body[key] = value
        result: dict[str, Any] = await self._call("POST", "/sandbox/fail", body)
        return result

    async def faults(self) -> list[dict[str, Any]]:
        """Injected faults with calls left."""
        result: list[dict[str, Any]] = await self._call("GET", "/sandbox/faults")
        return result

    async def clear_faults(self) -> None:
        """Forget every injected fault."""
        await self._call("DELETE", "/sandbox/faults")

    async def flood(
        self, enabled: bool = True, *, group_per_minute: int = 20, private_per_minute: int = 60
    ) -> dict[str, Any]:
        """Turn Telegram-like flood limits (429 with retry_after) on or off."""
        body = {
            "enabled": enabled,
            "group_per_minute": group_per_minute,
            "private_per_minute": private_per_minute,
        }
        result: dict[str, Any] = await self._call("POST", "/sandbox/flood", body)
        return result

    async def webhook_spread(self, urls: list[str]) -> dict[str, Any]:
        """Deliver webhook updates to one of ``urls`` chosen at random (a load balancer in
        front of workers); an empty list: to the URL the bot set."""
        result: dict[str, Any] = await self._call("POST", "/sandbox/webhook", {"spread": urls})
        return result

    # --- Mini Apps ------------------------------------------------------------------

    async def register_miniapp(
        self, short_name: str, url: str, token: str | None = None, *, title: str | None = None
    ) -> dict[str, Any]:
        """@BotFather's /newapp: the bot's app ``short_name`` opens ``url`` (replacing an app
        of that name). ``token`` signs initData until the bot has called the Bot API."""
        body: dict[str, Any] = {"short_name": short_name, "url": url}
        if token is not None:
            body["token"] = token
        if title is not None:
            body["title"] = title
        result: dict[str, Any] = await self._call("POST", "/sandbox/miniapp", body)
        return result

    async def miniapps(self) -> list[dict[str, Any]]:
        """The bot's registered apps: [{short_name, url, title, link, has_token}]."""
        result: list[dict[str, Any]] = await self._call("GET", "/sandbox/miniapp")
        return result

    async def open_miniapp(
        self,
        user_id: int,
        *,
        link: str | None = None,
        url: str | None = None,
        chat_id: int | None = None,
        theme: str = "light",
    ) -> dict[str, Any]:
        """A user opens an app from a direct link (``link``, with ``chat_id`` the chat it was
        in) or a ``web_app`` button (``url``): {url, init_data, theme_params, app}, the URL
        Telegram's web view would load and the signed initData it carries."""
        body: dict[str, Any] = {"user_id": user_id, "theme": theme}
        if link is not None:
            body["link"] = link
        if url is not None:
            body["url"] = url
        if chat_id is not None:
            body["chat_id"] = chat_id
        result: dict[str, Any] = await self._call("POST", "/sandbox/miniapp/open", body)
        return result

    # --- reading --------------------------------------------------------------------

    async def messages(
        self, chat_id: int, *, include_deleted: bool = True, viewer: int | None = None
    ) -> list[dict[str, Any]]:
        """Every message of a chat in order (users' and the bot's); with ``viewer``, as that
        user sees it: with the ephemeral messages delivered to him (``ephemeral`` true)."""
        result: list[dict[str, Any]] = await self._call(
            "GET", f"/sandbox/chats/{chat_id}/messages", viewer=viewer
        )
        if not include_deleted:
            result = [m for m in result if not m["deleted"]]
        return result

    async def view(self, chat_id: int, user_id: int) -> list[dict[str, Any]]:
        """A group as one user sees it: its messages and his own ephemeral ones."""
        return await self.messages(chat_id, viewer=user_id)

    async def ephemeral_messages(self, chat_id: int) -> list[dict[str, Any]]:
        """Every ephemeral message of a chat, for any receiver, each with ``receiver_id``,
        ``ephemeral_message_id`` and ``delivered`` (false: sent while he was offline)."""
        result: list[dict[str, Any]] = await self._call(
            "GET", f"/sandbox/chats/{chat_id}/ephemeral"
        )
        return result

    async def log(
        self, method: str | None = None, *, exclude: str | None = None, since: int | None = None
    ) -> list[dict[str, Any]]:
        """The Bot API call log, optionally filtered by method."""
        result: list[dict[str, Any]] = await self._call(
            "GET", "/sandbox/log", method=method, exclude=exclude, since=since
        )
        return result

    async def answers(self) -> list[dict[str, Any]]:
        """Every press with its callback answer."""
        result: list[dict[str, Any]] = await self._call("GET", "/sandbox/answers")
        return result

    async def answer(self, callback_query_id: str, *, wait: float = 0.0) -> dict[str, Any]:
        """One press with its answer, waiting up to `wait` s (at most 60) for the answer."""
        result: dict[str, Any] = await self._call(
            "GET", f"/sandbox/answers/{callback_query_id}", wait=wait
        )
        return result

    async def commands(self) -> list[dict[str, Any]]:
        """Stored setMyCommands lists: [{scope, language_code, commands}]."""
        result: list[dict[str, Any]] = await self._call("GET", "/sandbox/commands")
        return result

    async def updates(self) -> list[dict[str, Any]]:
        """Updates the bot has not confirmed yet."""
        result: list[dict[str, Any]] = await self._call("GET", "/sandbox/updates")
        return result

    async def webhook(self) -> dict[str, Any]:
        """The webhook delivery: url, secret_token, spread, pending, in_flight and every
        recent attempt ({update_id, url, status, error, time})."""
        result: dict[str, Any] = await self._call("GET", "/sandbox/webhook")
        return result

    async def state(self) -> dict[str, Any]:
        """Bot, users and chats."""
        result: dict[str, Any] = await self._call("GET", "/sandbox/state")
        return result

    # --- helpers ----------------------------------------------------------------------

    async def last_bot_message(self, chat_id: int) -> dict[str, Any] | None:
        """The bot's latest not-deleted message in a chat, or None."""
        mine = await self.bot_messages(chat_id)
        return mine[-1] if mine else None

    async def bot_messages(self, chat_id: int) -> list[dict[str, Any]]:
        """The bot's not-deleted messages in a chat."""
        return [m for m in await self.messages(chat_id) if m["from_bot"] and not m["deleted"]]

    @staticmethod
    def buttons(message: dict[str, Any] | None) -> list[tuple[str, str | None]]:
        """(text, callback_data) of every inline button of a message, row by row."""
        if not message or not message.get("reply_markup"):
            return []
        return [
            (button["text"], button.get("callback_data"))
            for row in message["reply_markup"].get("inline_keyboard", [])
            for button in row
        ]

    async def wait_for(
        self,
        predicate: Callable[[], Awaitable[T | None] | T | None],
        timeout: float = 10.0,
        interval: float = 0.05,
    ) -> T:
        """Poll `predicate` (sync or async) until it returns something truthy; return that.

        Raises TimeoutError with the last value seen if it never does.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last: Any = None
        while True:
            value = predicate()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            last = value
            if loop.time() >= deadline:
                raise TimeoutError(f"condition not met within {timeout} s (last value: {last!r})")
            await asyncio.sleep(interval)

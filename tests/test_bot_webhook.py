"""Webhook mode: its settings, and the server that answers Telegram's POSTs once each
update is handled."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from pydantic import ValidationError
from telegram import Update
from telegram.ext import ApplicationBuilder, ContextTypes, TypeHandler
from telegram.request import BaseRequest, RequestData

from bot.__main__ import settings_problems
from bot.config import Settings
from bot.gateway import webhook
from bot.gateway.webhook import webhook_runner

SECRET = "Abc_123-xyz"
ANN = {"id": 7, "is_bot": False, "first_name": "Ann"}
GROUP = {"id": -5, "type": "supergroup", "title": "Table"}


def message(update_id: int, text: str) -> dict[str, Any]:
    return {"update_id": update_id, "message": {
        "message_id": 3, "date": 1_700_000_000, "chat": GROUP, "from": ANN, "text": text}}


def problems(**env: str) -> str:
    with pytest.raises(ValidationError) as caught:
        Settings(_env_file=None, **env)  # type: ignore[call-arg]
    return settings_problems(caught.value)


def test_a_webhook_needs_a_secret_telegram_accepts() -> None:
    assert problems(webhook_url="https://bot.example") == (
        "banco: cannot start, the settings are wrong:\n"
        "  WEBHOOK_SECRET is required with WEBHOOK_URL (1-256 characters of A-Z, a-z, 0-9, _ "
        "and -)")
    for bad in ("with space", "x" * 257, "ключ"):
        assert problems(webhook_url="https://bot.example", webhook_secret=bad).endswith(
            "  WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and - (what "
            "Telegram accepts as a secret_token)")
    assert problems(webhook_url="bot.example", webhook_secret=SECRET).endswith(
        "  WEBHOOK_URL must be an https:// (or http://) URL")
    assert problems(webhook_url="https://bot.example", webhook_secret=SECRET,
                    webhook_path="telegram").endswith("  WEBHOOK_PATH must start with /")
    assert problems(webhook_port="http").endswith(
        "  WEBHOOK_PORT: Input should be a valid integer, unable to parse string as an integer")


def test_webhook_settings_and_their_defaults() -> None:
    plain = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (plain.webhook_url, plain.webhook_listen, plain.webhook_port, plain.webhook_path,
            plain.webhook_secret) == ("", "0.0.0.0", 8080, "/telegram", None)
    hooked = Settings(_env_file=None, webhook_url="https://bot.example/", webhook_path="/tg/x",  # type: ignore[call-arg]
                      webhook_secret="x" * 256)
    assert hooked.webhook_endpoint == "https://bot.example/tg/x"
    assert "x" * 256 not in repr(hooked)  # the secret is never printed with the settings


class Offline(BaseRequest):
    """No network: getMe is answered here (Application.initialize asks it); nothing else."""

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    @property
    def read_timeout(self) -> float:
        return 1.0

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        assert url.endswith("/getMe"), url
        return 200, json.dumps({"ok": True, "result": {
            "id": 1, "is_bot": True, "first_name": "Banco", "username": "banco_bot"}}).encode()


Handle = Callable[[Update], Awaitable[None]]


class Handlers:
    """What the test's Application does with an update: records it, then ``then(update)``;
    ``release`` is what a held handler waits for (set at the latest when the test ends)."""

    def __init__(self) -> None:
        self.seen: list[Update] = []
        self.then: Handle | None = None
        self.errors: list[str] = []
        self.release = asyncio.Event()
        self.runner: web.AppRunner | None = None  # the webhook server's

    async def handle(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        self.seen.append(update)
        if self.then is not None:
            await self.then(update)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        self.errors.append(repr(context.error))


@pytest.fixture
async def served() -> AsyncIterator[tuple[Handlers, str]]:
    """A running Application (concurrent updates as the bot's) with one handler for every
    update, behind the webhook server on a free port."""
    app = (ApplicationBuilder().token("1:x").request(Offline()).get_updates_request(Offline())
           .updater(None).concurrent_updates(64).build())
    handlers = Handlers()
    app.add_handler(TypeHandler(Update, handlers.handle))
    app.add_error_handler(handlers.on_error)
    await app.initialize()
    await app.start()
    runner = webhook_runner(app, "/telegram", SECRET)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    handlers.runner = runner
    yield handlers, f"http://127.0.0.1:{runner.addresses[0][1]}"
    handlers.release.set()
    await runner.cleanup()
    await app.stop()
    await app.shutdown()


async def post(url: str, body: bytes, secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    async with aiohttp.ClientSession() as session, session.post(
            url, data=body, headers=headers) as response:
        return response.status


def taken(handlers: Handlers) -> list[Update]:
    """The updates handled since the last call."""
    out = list(handlers.seen)
    handlers.seen.clear()
    return out


async def test_a_request_without_the_secret_or_with_another_is_refused_unread(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served
    body = json.dumps(message(1, "/balance")).encode()
    for secret in (None, "", "Abc_123-xyY", SECRET + "x", "Abc_123-xy", "\u043a\u043b\u044e\u0447"):
        assert await post(f"{base}/telegram", body, secret) == 403, secret
    assert taken(handlers) == []
    assert await post(f"{base}/telegram", body, SECRET) == 200
    [update] = taken(handlers)
    assert update.message is not None
    assert (update.update_id, update.message.text, update.message.chat.id) == (1, "/balance", -5)


async def test_unreadable_updates_are_taken_and_ignored_a_body_not_json_is_400(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served
    url = f"{base}/telegram"
    missing_chat = {"update_id": 2, "message": {"message_id": 1, "date": 1, "text": "/start"}}
    assert await post(url, json.dumps(missing_chat).encode(), SECRET) == 200
    surrogate = message(3, "/newtable \ud800")
    assert await post(url, json.dumps(surrogate).encode(), SECRET) == 200
    assert await post(url, b"[1, 2]", SECRET) == 200  # no update id: nothing to act on
    assert await post(url, b"{not json", SECRET) == 400
    assert await post(url, b"\xff\xfe", SECRET) == 400
    bare, odd = taken(handlers)
    # the message without its chat: a bare update (no handler of the bot's acts on it)
    assert (bare.update_id, bare.message, bare.callback_query) == (2, None, None)
    assert odd.message is not None
    assert (odd.update_id, odd.message.text) == (3, "/newtable \ud800")
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:
            assert response.status == 405
        async with session.post(f"{base}/other", json={}) as response:
            assert response.status == 404
    assert taken(handlers) == []


async def within(seconds: float, awaitable: Awaitable[Any]) -> Any:
    """``awaitable``'s result, or the test fails after ``seconds``."""
    return await asyncio.wait_for(awaitable, seconds)


async def test_a_post_is_answered_only_once_its_update_has_been_handled(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served
    started, release = asyncio.Event(), handlers.release
    order: list[str] = []

    async def held(update: Update) -> None:
        started.set()
        await release.wait()
        order.append(f"handled {update.update_id}")

    handlers.then = held
    posting = asyncio.create_task(post(f"{base}/telegram", json.dumps(message(11, "/balance"))
                                       .encode(), SECRET))
    await within(5, started.wait())
    # a worker killed now has answered nothing: Telegram would send the update again
    done, _ = await asyncio.wait({posting}, timeout=0.5)
    assert done == set()
    release.set()
    assert await within(5, posting) == 200
    order.append("answered")
    assert order == ["handled 11", "answered"]


async def test_an_update_whose_handler_fails_is_answered_200_once_the_error_is_handled(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served

    async def fails(update: Update) -> None:
        raise ValueError(f"no table for update {update.update_id}")

    handlers.then = fails
    # any other answer and Telegram would send it again and again, holding up its chat
    assert await post(f"{base}/telegram", json.dumps(message(12, "/table")).encode(),
                      SECRET) == 200
    assert handlers.errors == ["ValueError('no table for update 12')"]
    assert [u.update_id for u in taken(handlers)] == [12]


async def test_updates_of_several_chats_are_handled_at_once(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served
    started = {21: asyncio.Event(), 22: asyncio.Event()}
    release = handlers.release

    async def held(update: Update) -> None:
        started[update.update_id].set()
        await release.wait()

    handlers.then = held
    other = {**message(22, "/balance"), "message": {
        **message(22, "/balance")["message"], "chat": {**GROUP, "id": -6}}}
    posts = [asyncio.create_task(post(f"{base}/telegram", json.dumps(body).encode(), SECRET))
             for body in (message(21, "/balance"), other)]
    # the second chat's update is handled while the first chat's is still held
    await within(5, asyncio.gather(*(e.wait() for e in started.values())))
    release.set()
    assert await within(5, asyncio.gather(*posts)) == [200, 200]
    assert sorted(u.effective_chat.id for u in taken(handlers) if u.effective_chat) == [-6, -5]


async def test_a_handling_past_the_wait_is_answered_200_and_goes_on(
    served: tuple[Handlers, str], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    handlers, base = served
    monkeypatch.setattr(webhook, "HANDLING_WAIT", 0.2)
    release, finished = handlers.release, asyncio.Event()

    async def held(update: Update) -> None:
        await release.wait()
        finished.set()

    handlers.then = held
    with caplog.at_level(logging.WARNING, logger="bot.gateway.webhook"):
        assert await within(5, post(f"{base}/telegram", json.dumps(message(31, "/top"))
                                    .encode(), SECRET)) == 200
    assert [r.getMessage() for r in caplog.records] == [
        "update 31 still handled after 0 s: answered, its handling goes on"]
    assert not finished.is_set()
    release.set()
    await within(5, finished.wait())


async def test_stopping_the_server_closes_its_port_and_answers_the_updates_under_way(
    served: tuple[Handlers, str],
) -> None:
    handlers, base = served
    started = asyncio.Event()

    async def held(update: Update) -> None:
        started.set()
        await handlers.release.wait()

    handlers.then = held
    posting = asyncio.create_task(post(f"{base}/telegram", json.dumps(message(41, "/bonus"))
                                       .encode(), SECRET))
    await within(5, started.wait())
    assert handlers.runner is not None
    stopping = asyncio.create_task(handlers.runner.cleanup())  # as serve() on SIGTERM
    done, _ = await asyncio.wait({stopping}, timeout=0.5)
    assert done == set()  # waiting for the update under way
    with pytest.raises(aiohttp.ClientConnectorError):  # no new request taken
        await post(f"{base}/telegram", json.dumps(message(42, "/bonus")).encode(), SECRET)
    handlers.release.set()
    assert await within(5, posting) == 200
    await within(5, stopping)
    assert [u.update_id for u in taken(handlers)] == [41]

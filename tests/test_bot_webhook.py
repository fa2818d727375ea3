"""Webhook mode: its settings, and the server that takes Telegram's POSTs into the queue."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from pydantic import ValidationError
from telegram import Update
from telegram.ext import Application, ApplicationBuilder

from bot.__main__ import settings_problems
from bot.config import Settings
from bot.webhook import webhook_app

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


@pytest.fixture
async def served() -> AsyncIterator[tuple[Application, str]]:  # type: ignore[type-arg]
    """A real (not started) Application behind the webhook server on a free port."""
    app = ApplicationBuilder().token("1:x").updater(None).build()
    runner = web.AppRunner(webhook_app(app, "/telegram", SECRET), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield app, f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def post(url: str, body: bytes, secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    async with aiohttp.ClientSession() as session, session.post(
            url, data=body, headers=headers) as response:
        return response.status


def queued(app: Application) -> list[Update]:  # type: ignore[type-arg]
    out = []
    while not app.update_queue.empty():
        out.append(app.update_queue.get_nowait())
    return out


async def test_a_request_without_the_secret_or_with_another_is_refused_unread(
    served: tuple[Application, str],  # type: ignore[type-arg]
) -> None:
    app, base = served
    body = json.dumps(message(1, "/balance")).encode()
    for secret in (None, "", "Abc_123-xyY", SECRET + "x", "Abc_123-xy", "\u043a\u043b\u044e\u0447"):
        assert await post(f"{base}/telegram", body, secret) == 403, secret
    assert queued(app) == []
    assert await post(f"{base}/telegram", body, SECRET) == 200
    [update] = queued(app)
    assert update.message is not None
    assert (update.update_id, update.message.text, update.message.chat.id) == (1, "/balance", -5)


async def test_unreadable_updates_are_taken_and_ignored_a_body_not_json_is_400(
    served: tuple[Application, str],  # type: ignore[type-arg]
) -> None:
    app, base = served
    url = f"{base}/telegram"
    missing_chat = {"update_id": 2, "message": {"message_id": 1, "date": 1, "text": "/start"}}
    assert await post(url, json.dumps(missing_chat).encode(), SECRET) == 200
    surrogate = message(3, "/newtable \ud800")
    assert await post(url, json.dumps(surrogate).encode(), SECRET) == 200
    assert await post(url, b"[1, 2]", SECRET) == 200  # no update id: nothing to act on
    assert await post(url, b"{not json", SECRET) == 400
    assert await post(url, b"\xff\xfe", SECRET) == 400
    bare, odd = queued(app)
    # the message without its chat: a bare update that no handler acts on
    assert (bare.update_id, bare.message, bare.callback_query) == (2, None, None)
    assert odd.message is not None
    assert (odd.update_id, odd.message.text) == (3, "/newtable \ud800")
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:
            assert response.status == 405
        async with session.post(f"{base}/other", json={}) as response:
            assert response.status == 404
    assert queued(app) == []

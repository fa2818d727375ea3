"""Webhook mode: the real bot takes its updates from the sandbox's POSTs, refuses a request
without its secret, survives unreadable updates, and stops cleanly on SIGTERM without
deleting the webhook."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import httpx
from harness import BotProcess, Game, Player, decode_action
from telegram import Update
from test_e2e_faults import open_table, prefer

from sandbox.client import SandboxClient

SECRET = "e2e_Webhook-secret-42"
GAME = "twenty_one"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def webhook_bot(url: str, data_dir: Path, port: int, started: list[BotProcess]) -> BotProcess:
    """``python -m bot`` started in webhook mode on ``port`` (added to ``started``)."""
    bot = BotProcess(url, data_dir, timeout=60, extra={
        "WEBHOOK_URL": f"http://127.0.0.1:{port}", "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": str(port), "WEBHOOK_PATH": "/telegram", "WEBHOOK_SECRET": SECRET})
    started.append(bot)
    bot.start()
    return bot


async def post(port: int, body: dict[str, Any], secret: str | None) -> int:
    """POST an update to the bot's webhook as someone who is not Telegram might."""
    headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
    async with httpx.AsyncClient() as client:
        response = await client.post(f"http://127.0.0.1:{port}/telegram", json=body,
                                     headers=headers)
    return response.status_code


async def quiet(sb: SandboxClient, seconds: float = 0.5) -> int:
    """Wait until the bot has made no Bot API call for ``seconds``; the last log seq."""
    last = -1
    while True:
        seq = max(e["seq"] for e in await sb.log())
        if seq == last:
            return seq
        last = seq
        await asyncio.sleep(seconds)


async def delivered(sb: SandboxClient, update_id: int) -> None:
    """Wait until the bot has answered the sandbox's POST of ``update_id`` with 200."""
    async def done() -> bool:
        return any(a["update_id"] == update_id and a["status"] == 200
                   for a in (await sb.webhook())["attempts"])
    await sb.wait_for(done, timeout=20)


async def test_a_table_played_through_the_webhook_ignores_requests_without_the_secret(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    port = free_port()
    bot = webhook_bot(handle.url, tmp_path / "data", port, bot_factory)
    game = Game(sb, bot, -4401, [Player(4411, "Ann"), Player(4412, "Bob"), Player(4413, "Cid")])
    await open_table(game, GAME)
    for _ in range(2):
        message = await game.synced()
        await game.step(game.awaited(message)[0], prefer(GAME, message))

    # everything came by the webhook, which the bot set with its secret and kept the queue
    assert await sb.log("getUpdates") == []
    calls = [e["params"] for e in await sb.log("setWebhook")]
    assert [(c["url"], c["secret_token"], c["drop_pending_updates"]) for c in calls] == [
        (f"http://127.0.0.1:{port}/telegram", SECRET, False)]
    assert calls[0]["allowed_updates"] == list(Update.ALL_TYPES)
    # the last press's POST is answered once its update is handled, a moment after the
    # step it made shows: nothing stays pending
    hook = await sb.wait_for(lambda: _settled(sb), timeout=10)
    assert hook["pending"] == 0
    assert {(a["url"], a["status"]) for a in hook["attempts"]} == {
        (f"http://127.0.0.1:{port}/telegram", 200)}

    # the awaited player's press, forged: refused without the secret or with another one
    message = await game.synced()
    awaited = game.awaited(message)[0]
    kinds = prefer(GAME, message)
    data = next(d for kind in kinds for _, d in sb.buttons(message)
                if (a := decode_action(d)) and a[2] == kind and a[3] != "?")
    chat = {"id": game.chat_id, "type": "supergroup", "title": f"Table {game.chat_id}"}
    forged = {"update_id": 900_001, "callback_query": {
        "id": "forged-press-1", "chat_instance": "1", "data": data,
        "from": {"id": awaited.id, "is_bot": False, "first_name": awaited.name},
        "message": {"message_id": message["message_id"], "date": int(time.time()),
                    "chat": chat}}}
    before = bot.db_table(game.chat_id)
    seq = await quiet(sb)
    assert await post(port, forged, None) == 403
    assert await post(port, forged, "wrong-secret") == 403
    assert await post(port, forged, SECRET[:-1]) == 403
    await asyncio.sleep(1.5)
    assert bot.db_table(game.chat_id) == before
    assert await sb.log(since=seq) == []  # no answer, no edit, no message
    assert "refused: a wrong secret token" in bot.log_text()
    assert "refused: no secret token" in bot.log_text()
    # the same update with the secret (the sandbox delivers it) is the press it looks like
    [update_id] = await sb.raw_updates([forged])
    await delivered(sb, update_id)
    await sb.wait_for(lambda: bot.db_table(game.chat_id)[2] > before[2], timeout=20)

    # unreadable updates are taken (200) and ignored; the table goes on
    for body in ({"message": {"message_id": 1, "date": 1, "text": "/balance"}},
                 {"message": {"message_id": 2, "date": 1, "chat": chat, "text": "\ud800"}},
                 {"callback_query": {"id": "q", "data": data}}):
        [update_id] = await sb.raw_updates([body])
        await delivered(sb, update_id)
    message = await game.synced()
    if game.awaited(message):
        await game.step(game.awaited(message)[0], prefer(GAME, message))
    assert "Traceback" not in bot.log_text()


async def test_sigterm_flushes_what_was_taken_and_keeps_the_webhook_for_the_restart(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    port = free_port()
    bot = webhook_bot(handle.url, tmp_path / "data", port, bot_factory)
    game = Game(sb, bot, -4501, [Player(4511, "Ann"), Player(4512, "Bob")])
    await open_table(game, GAME)
    ann = game.players[0]

    # a group message that takes 0.8 s to go out is under way when SIGTERM comes
    await sb.fail("sendMessage", delay=0.8, count=1, chat_id=game.chat_id)
    seq = await quiet(sb)
    sent = await sb.send(game.chat_id, ann.id, "/balance")
    await delivered(sb, sent["update_id"])
    started = time.monotonic()
    assert bot.proc is not None
    bot.proc.terminate()
    while bot.proc.poll() is None and time.monotonic() - started < 10:
        await asyncio.sleep(0.02)  # this loop serves the sandbox the bot is still calling
    took = time.monotonic() - started
    assert took < 3.0, f"SIGTERM took {took:.1f} s"
    assert bot.proc.returncode == 0
    answers = [e for e in await sb.log("sendMessage", since=seq)
               if e["params"].get("chat_id") == game.chat_id]
    assert [(e["ok"], "chips in the wallet" in e["params"]["text"]) for e in answers] == [
        (True, True)]
    log = bot.log_text()
    assert "Traceback" not in log, log[-3000:]
    assert "HTTPXRequest is not initialized" not in log
    # the webhook stays: other workers may be serving it
    assert await sb.log("deleteWebhook") == []
    assert (await sb.webhook())["url"] == f"http://127.0.0.1:{port}/telegram"

    # while the bot is down, Telegram keeps what it cannot deliver and tries again
    down = await sb.send(game.chat_id, ann.id, "/balance")

    async def refused() -> bool:
        return any(a["update_id"] == down["update_id"] and a["error"] == "Connection refused"
                   for a in (await sb.webhook())["attempts"])
    await sb.wait_for(refused, timeout=20)
    assert (await sb.webhook())["pending"] == 1
    game.bot = webhook_bot(handle.url, tmp_path / "data", port, bot_factory)
    await delivered(sb, down["update_id"])

    async def answered() -> bool:
        return len([e for e in await sb.log("sendMessage", since=seq)
                    if e["params"].get("chat_id") == game.chat_id and e["ok"]]) == 2
    await sb.wait_for(answered, timeout=20)
    message = await game.synced()
    await game.step(game.awaited(message)[0], prefer(GAME, message))


async def _settled(sb: Any) -> dict[str, Any] | None:
    """The sandbox's webhook state once nothing is pending, else None."""
    hook = await sb.webhook()
    return hook if hook["pending"] == 0 else None

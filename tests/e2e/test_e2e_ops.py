"""What an operator sees of the real bot: its health port while it plays, its JSON log, and
the admin CLI acting on a table the bot is running (tests/test_admin_cli.py runs the CLI on
its own)."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
from harness import (
    DEFAULT,
    ROOT,
    BotProcess,
    Game,
    Player,
    answered_badly,
    decode_action,
    group_with_bot,
)
from prometheus_client.parser import text_string_to_metric_families

from bot.view import i18n

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]
CHAT = -1001


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def http_get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(
            f"http://127.0.0.1:{port}{path}") as resp:
        return resp.status, await resp.text()


async def scrape(port: int) -> dict[str, float]:
    """The bot's /metrics as ``name{label="value",...}`` -> value (labels sorted)."""
    out = {}
    for family in text_string_to_metric_families((await http_get(port, "/metrics"))[1]):
        for s in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


async def ready(port: int) -> None:
    for _ in range(200):
        try:
            if (await http_get(port, "/readyz"))[0] == 200:
                return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError("the bot never became ready")


def db_count(bot: BotProcess, sql: str) -> int:
    db = sqlite3.connect(f"file:{bot.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        return int(db.execute(sql).fetchone()[0])
    finally:
        db.close()


async def test_metrics_and_json_log_of_a_played_coup(sandbox, bot_factory,
                                                     tmp_path: Path) -> None:
    handle, sb = sandbox
    port = free_port()
    bot = BotProcess(handle.url, tmp_path / "data",
                     extra={"HEALTH_PORT": str(port), "LOG_FORMAT": "json"})
    bot_factory.append(bot)
    bot.start()
    await ready(port)
    assert await http_get(port, "/healthz") == (200, "ok\n")
    game = Game(sb, bot, CHAT, PLAYERS)
    await game.setup()
    await game.enable_dms()
    # Telegram refuses the group's next message once with a 429
    await sb.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1,
                  chat_id=CHAT)
    await game.command(PLAYERS[0], "/newtable twenty_one")
    for p in PLAYERS:
        await game.step(p, ["join"])
    # Ann presses Join again: refused (she sits already), nothing changes
    message = await game.synced()
    join = next(d for _, d in sb.buttons(message) if (decode_action(d) or (0, 0, ""))[2] == "join")
    refused = await sb.press(CHAT, message["message_id"], PLAYERS[0].id, join, wait=10)
    assert refused["answered"]
    await game.step(PLAYERS[0], ["start"])
    await game.play_until_settled({}, DEFAULT)

    presses = len(await sb.answers())
    assert await answered_badly(sb) == []
    for _ in range(100):  # the courier may still be delivering the coup's last messages
        m = await scrape(port)
        steps = db_count(bot, "SELECT COUNT(*) FROM steps WHERE kind = 'step'")
        if m["banco_outbox_pending"] == 0 and m["banco_steps_total"] == steps:
            break
        await asyncio.sleep(0.1)
    assert m["banco_steps_total"] == steps > 5
    assert m['banco_commit_seconds_count{op="step"}'] == steps
    assert m['banco_commit_seconds_count{op="open"}'] == 1
    accepted = m['banco_presses_total{outcome="accepted"}']
    assert accepted + m['banco_presses_total{outcome="refused"}'] + m.get(
        'banco_presses_total{outcome="answered"}', 0) == presses
    assert m['banco_refusals_total{reason="wrong_phase"}'] == 1
    assert sum(v for k, v in m.items() if k.startswith("banco_refusals_total")) == 1
    assert m['banco_messages_total{kind="answer"}'] == presses
    assert m['banco_messages_total{kind="settlement"}'] == 1
    assert m['banco_messages_total{kind="table_post"}'] >= 1
    assert m['banco_messages_total{kind="table_edit"}'] >= 1
    assert m['banco_telegram_retry_after_total{method="sendMessage"}'] == 1
    assert m['banco_tables_open{game="twenty_one"}'] == 1
    assert m['banco_tables_open{game="baccarat"}'] == 0
    assert m["banco_ready"] == 1

    # the next coup's first decision times out (DECISION_TIMEOUT=3): a deadline fired, on time
    for _ in range(200):
        m = await scrape(port)
        if m["banco_deadline_lag_seconds_count"] >= 1:
            break
        await asyncio.sleep(0.1)
    assert m["banco_deadline_lag_seconds_count"] >= 1
    assert m["banco_deadline_lag_seconds_sum"] / m["banco_deadline_lag_seconds_count"] < 1.0

    records = [json.loads(line) for line in bot.log_text().splitlines() if line.strip()]
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)
    assert any(r["logger"] == "bot.app" and " ready; " in r["message"] for r in records)
    assert any(r["logger"] == "bot.ops.health" and r["level"] == "INFO" for r in records)
    # the autouse transcript check reads this JSON log for hidden cards, as it reads text logs


def admin(bot: BotProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot.admin`` on the bot's own database (its DATA_DIR)."""
    env = {k: v for k, v in bot.env.items() if k != "DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "bot.admin", *args], cwd=bot.data_dir,
                          env={**env, "PYTHONPATH": str(ROOT)}, text=True,
                          capture_output=True, timeout=60)


async def test_admin_closes_a_table_the_bot_is_running(sandbox, bot_factory,
                                                       tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", CHAT, PLAYERS,
                                timeout=60, table="twenty_one", start=True)
    bot, sb = game.bot, game.sb
    message = await game.synced()  # the cut awaited: every chip of the chat sits at the table
    assert db_count(bot, "SELECT SUM(balance) FROM table_accounts") == 3000

    listed = json.loads(admin(bot, "tables", "--json").stdout)
    assert [(t["chat"], t["game"], [p["name"] for p in t["players"]]) for t in listed] == [
        (CHAT, "twenty_one", ["Ann", "Bob", "Cid"])]
    done = admin(bot, "close", str(CHAT))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"chat {CHAT}: table closed; 3000 chip(s) back to the wallets\n"
    assert db_count(bot, "SELECT COUNT(*) FROM tables") == 0
    assert db_count(bot, "SELECT SUM(balance) FROM wallets") == 3000
    assert admin(bot, "audit").returncode == 0

    # the running bot still shows the old table; a press there learns it is closed, and the
    # closing text the CLI queued replaces the table message
    data: Any = next(d for _, d in sb.buttons(message) if decode_action(d))
    awaited = game.awaited(message)[0]
    answer = await sb.press(CHAT, message["message_id"], awaited.id, data, wait=10)
    assert answer["text"] == i18n.plain(i18n.t("en", "no_table")), answer

    async def closed() -> bool:
        texts = [m["text"] for m in await sb.bot_messages(CHAT)]
        return any(t.startswith(i18n.plain(i18n.t("en", "closed_table"))) for t in texts)

    await sb.wait_for(closed, timeout=20)
    # nothing left to send: the closing text is marked sent once Telegram has taken it, a
    # moment after the group shows it (the mark is written after the send)
    await sb.wait_for(
        lambda: db_count(bot, "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == 0,
        timeout=10)

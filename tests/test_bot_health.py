"""The operator's port, logs and start-up checks: /healthz, /readyz and /metrics on a real
SQLite storage, JSON log lines, and ``python -m bot`` without a token in the container."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bot.ops import metrics
from bot.ops.health import HealthServer, start_health
from bot.ops.logs import JsonFormatter
from games.engine import Transfer
from storage.base import OutboxDraft, StaleVersion, Storage
from storage.inspect import inspector
from storage.sqlite import SqliteStorage

ROOT = Path(__file__).resolve().parents[1]
CHAT = -100


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a /metrics page: (name, sorted labels) -> value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(
            f"http://127.0.0.1:{port}{path}") as resp:
        return resp.status, await resp.text()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Storage, HealthServer, int]]:
    """A real SQLite storage (timed, as the bot wires it) and its health server on a free
    port, not ready yet; both closed afterwards."""
    storage = metrics.timed(SqliteStorage(tmp_path / "banco.sqlite3", starting_grant=1000,
                                          daily_bonus=100))
    await storage.open()
    server = HealthServer(inspector(storage), "127.0.0.1", 0)
    assert await server.start()
    assert server.bound
    try:
        yield storage, server, server.bound
    finally:
        await server.stop()
        await storage.close()


async def test_health_ready_and_metrics_follow_the_database(
        served: tuple[Storage, HealthServer, int]) -> None:
    storage, server, port = served
    assert await get(port, "/healthz") == (200, "ok\n")
    assert await get(port, "/readyz") == (503, "starting or stopping\n")
    server.set_ready(True)
    assert await get(port, "/readyz") == (200, "ready\n")

    status, page = await get(port, "/metrics")
    before = samples(page)
    assert status == 200
    assert before[("banco_ready", ())] == 1
    assert before[("banco_outbox_pending", ())] == 0
    assert before[("banco_outbox_oldest_age_seconds", ())] == 0
    assert before[("banco_tables_open", (("game", "twenty_one"),))] == 0

    await storage.wallet(chat_id=CHAT, user_id=1, name="Ann")
    await storage.create_table(chat_id=CHAT, game="twenty_one", settings={},
                               state_json="{}", version=1)
    await storage.commit_step(
        chat_id=CHAT, expected_version=1, state_json="{}", version=2, coup=1,
        deadline=None, transfers=[Transfer(src="wallet:1", dst="stack:1", amount=5,
                                           reason="buy_in")],
        outbox=[OutboxDraft(kind="group", target=CHAT, payload={"text": "a"}),
                OutboxDraft(kind="dm", target=1, payload={"text": "b"})])
    with pytest.raises(StaleVersion):
        await storage.commit_step(chat_id=CHAT, expected_version=1, state_json="{}",
                                  version=2, coup=1, deadline=None, transfers=[])
    time.sleep(0.05)
    after = samples((await get(port, "/metrics"))[1])
    assert after[("banco_tables_open", (("game", "twenty_one"),))] == 1
    assert after[("banco_tables_open", (("game", "baccarat"),))] == 0
    assert after[("banco_outbox_pending", ())] == 2
    assert 0.05 <= after[("banco_outbox_oldest_age_seconds", ())] < 5
    assert after[("banco_steps_total", ())] - before[("banco_steps_total", ())] == 1
    count = ("banco_commit_seconds_count", (("op", "step"),))
    assert after[count] - before.get(count, 0) == 2  # the refused one took time too
    stale = ("banco_commit_refused_total", (("reason", "stale"),))
    assert after[stale] - before.get(stale, 0) == 1

    await storage.close()
    assert await get(port, "/readyz") == (503, "database: StorageError\n")
    assert (await get(port, "/healthz"))[0] == 200
    await server.stop()
    with pytest.raises(aiohttp.ClientConnectionError):
        await get(port, "/healthz")


def healthcheck(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot.healthcheck`` as the container runs it (HEALTH_HOST=0.0.0.0)."""
    return subprocess.run([sys.executable, "-m", "bot.healthcheck", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "HEALTH_HOST": "0.0.0.0", "HEALTH_PORT": str(port)})


async def test_the_container_probe_answers_what_the_port_says(
        served: tuple[Storage, HealthServer, int]) -> None:
    _, server, port = served
    live = await asyncio.to_thread(healthcheck, port)
    assert (live.returncode, live.stdout) == (0, f"http://127.0.0.1:{port}/healthz: 200 ok\n")
    starting = await asyncio.to_thread(healthcheck, port, "--ready")
    assert (starting.returncode, starting.stderr) == (
        1, f"http://127.0.0.1:{port}/readyz: 503 starting or stopping\n")
    server.set_ready(True)
    assert (await asyncio.to_thread(healthcheck, port, "--ready")).returncode == 0
    await server.stop()
    down = await asyncio.to_thread(healthcheck, port)
    assert down.returncode == 1 and "Connection refused" in down.stderr


async def test_a_taken_port_is_logged_and_the_bot_goes_on_without_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    storage = SqliteStorage(tmp_path / "banco.sqlite3", starting_grant=1000, daily_bonus=100)
    await storage.open()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with caplog.at_level(logging.ERROR, "bot.ops.health"):
            assert await start_health(inspector(storage), "127.0.0.1",
                                      taken.getsockname()[1]) is None
        assert "not available" in caplog.text
        assert await start_health(inspector(storage), "127.0.0.1", 0) is None  # 0: off
    finally:
        taken.close()
        await storage.close()


def test_a_json_log_line_holds_time_level_logger_message_and_the_traceback() -> None:
    formatter = JsonFormatter()
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("bot.table.tables").makeRecord(
            "bot.table.tables", logging.ERROR, __file__, 1, "chat %s: %s", (CHAT, "café ♠"),
            sys.exc_info(), extra={"chat": CHAT})
    record.created = 1_700_000_000.25
    line = formatter.format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data.pop("exc_info").startswith("Traceback (most recent call last):")
    assert data == {"time": "2023-11-14T22:13:20.250Z", "level": "ERROR",
                    "logger": "bot.table.tables", "message": "chat -100: café ♠", "chat": CHAT}


def run_bot(env: dict[str, str], tmp_path: Path) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "SANDBOX")}
    return subprocess.Popen(
        [sys.executable, "-m", "bot"], cwd=tmp_path, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**clean, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path / "data"),
             "HEALTH_PORT": "0", "SANDBOX_PORT": "0", **env})


def test_the_container_without_a_token_stops_at_once_and_says_why(tmp_path: Path) -> None:
    proc = run_bot({"REQUIRE_TOKEN": "1"}, tmp_path)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert out.strip().splitlines()[-1].startswith("BOT_TOKEN is not set: the bot cannot "
                                                   "reach Telegram")
    assert "SANDBOX=1" in out
    assert not (tmp_path / "data" / "sandbox.json").exists()


def test_sandbox_asked_for_explicitly_starts_it_even_in_the_container(tmp_path: Path) -> None:
    proc = run_bot({"REQUIRE_TOKEN": "1", "SANDBOX": "1"}, tmp_path)
    try:
        assert proc.stdout is not None
        seen: list[str] = []
        for line in proc.stdout:  # the bot logs its start-up; ready comes after the page
            seen.append(line)
            if " ready; " in line:
                break
        assert any(line.startswith("Sandbox page: http://127.0.0.1:") for line in seen), seen
    finally:
        proc.kill()  # a graceful stop would wait out the long poll; start-up is what counts
        proc.wait(20)


def test_messages_and_presses_are_counted_under_their_labels() -> None:
    """Each message sent and press counts once under its own label (their children are
    looked up once, the counts go on)."""
    def count(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = (count("banco_messages_total", kind=metrics.DM),
              count("banco_messages_total", kind=metrics.TABLE_EDIT),
              count("banco_presses_total", outcome="refused"),
              count("banco_refusals_total", reason="stale"))
    for _ in range(3):
        metrics.sent(metrics.DM)
    metrics.sent(metrics.TABLE_EDIT)
    metrics.pressed(False, "stale")
    metrics.pressed(False, "stale")
    after = (count("banco_messages_total", kind=metrics.DM),
             count("banco_messages_total", kind=metrics.TABLE_EDIT),
             count("banco_presses_total", outcome="refused"),
             count("banco_refusals_total", reason="stale"))
    assert [a - b for a, b in zip(after, before, strict=True)] == [3, 1, 2, 2]

"""Fixtures: a sandbox per test (in this event loop) and the bot process against it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import harness
import pytest
from harness import BotProcess

from sandbox.client import SandboxClient
from sandbox.server import SandboxHandle, start_sandbox


@pytest.fixture
async def sandbox() -> AsyncIterator[tuple[SandboxHandle, SandboxClient]]:
    """A fresh fake Bot API server on a free port."""
    handle = await start_sandbox("127.0.0.1", 0)
    client = SandboxClient(handle.url)
    try:
        yield handle, client
    finally:
        await client.aclose()
        await handle.stop()


@pytest.fixture
def bot_factory(tmp_path: Path) -> Iterator[list[BotProcess]]:
    """Processes started by a test; all stopped at its end."""
    started: list[BotProcess] = []
    yield started
    for proc in started:
        proc.kill()  # graceful shutdown would wait for the long poll


@pytest.fixture(autouse=True)
async def transcript(sandbox: tuple[SandboxHandle, SandboxClient],
                     bot_factory: list[BotProcess]) -> AsyncIterator[None]:
    """At the end of every e2e test: the whole Bot API log holds no hidden card in a group
    message before the engine made it public, every keyboard in it is one Telegram takes
    where it went (:func:`harness.keyboard_check`), and the bot's log holds no card at
    all."""
    harness.LIVE.clear()
    yield
    _, sb = sandbox
    for game in harness.LIVE:
        await game.sample_public()
    log = await sb.log()
    checked, private = harness.transcript_check(log, harness.LIVE)
    assert checked > 0
    keyboards = harness.keyboard_check(log)
    logs: dict[Path, int] = {}
    for proc in bot_factory:
        logs[proc.log_path] = logs.get(proc.log_path, 0) + proc.expected_tracebacks
    for path, expected in logs.items():
        text = path.read_text(errors="replace") if path.exists() else ""
        harness.log_check(text, private, expected)
    print(f"\ntranscript: {checked} group texts checked, {len(private)} private cards, "
          f"keyboards checked: {keyboards}")

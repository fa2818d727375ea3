"""Fixtures: a sandbox per test (in this event loop) and the bot process against it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from harness import BotProcess

from bot.sandbox.client import SandboxClient
from bot.sandbox.server import SandboxHandle, start_sandbox


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

"""A stop's parts share one deadline: whatever hangs, post_stop and post_shutdown together
end within the stop's few seconds, and every part, the database's closing last, is
reached."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bot.app import STOP_WITHIN, build_application, post_shutdown, post_stop
from bot.config import Settings


class Hanging:
    """A part of the stop that never ends by itself; it notes when it was asked to."""

    def __init__(self, reached: list[str], name: str) -> None:
        self.reached = reached
        self.name = name

    async def __call__(self, *args: Any) -> None:
        self.reached.append(self.name if not args else f"{self.name} {args[0]:.2f}")
        await asyncio.Event().wait()


async def test_a_stop_whose_every_part_hangs_still_ends_within_its_deadline(
        tmp_path: Path) -> None:
    app = build_application(Settings(_env_file=None, data_dir=tmp_path), "1:x",
                            "http://127.0.0.1:9/bot")
    reached: list[str] = []
    data = app.bot_data
    data.health = SimpleNamespace(stop=Hanging(reached, "health"))  # type: ignore[assignment]
    data.webapp = SimpleNamespace(stop=Hanging(reached, "webapp"))  # type: ignore[assignment]
    data.shared = SimpleNamespace(close=Hanging(reached, "shared"))  # type: ignore[assignment]
    data.deadlines = SimpleNamespace(  # type: ignore[assignment]
        stop=lambda: reached.append("deadlines"))
    data.services = SimpleNamespace(  # type: ignore[assignment]
        lifecycle=SimpleNamespace(stop=Hanging(reached, "alive")),
        courier=SimpleNamespace(stop=Hanging(reached, "courier")),
        storage=SimpleNamespace(close=Hanging(reached, "database")))

    started = time.monotonic()
    await post_stop(app)
    await post_shutdown(app)
    took = time.monotonic() - started

    # the database's closing may take a fifth of a second past the deadline, never more
    assert took <= STOP_WITHIN + 0.25, f"the stop took {took:.2f} s"
    assert [r.split()[0] for r in reached] == ["health", "webapp", "deadlines", "alive",
                                               "courier", "shared", "database"]
    # the courier was offered no more of its flush than the stop had left for it
    flush = float(reached[4].split()[1])
    assert 0 < flush <= STOP_WITHIN - 0.5, reached

"""The sandbox world kept in a JSON file across restarts.

`StateFile.load()` reads the file at start (if there is one); `touch()` after a change
schedules a save, at most one a second; `flush()` saves now (at stop). A save writes a
temporary file beside the real one, syncs it and renames it over, so a kill at any
moment leaves either the old file or the new one, never a torn one. What a snapshot
keeps and drops is told by `World.snapshot`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from pathlib import Path

from sandbox.state import World

log = logging.getLogger(__name__)


class StateFile:
    """One world saved to and loaded from one file."""

    def __init__(self, world: World, path: Path, interval: float = 1.0) -> None:
        self.world = world
        self.path = path
        self.interval = interval
        self._timer: asyncio.TimerHandle | None = None
        self._saving: asyncio.Task[None] | None = None
        self._last_text: str | None = None
        self._last_save = 0.0

    def load(self) -> bool:
        """Restore the world from the file; False if there is none.

        A file that cannot be read as a snapshot is moved aside (``.bad`` suffix, kept for
        a look) and the world starts empty.
        """
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return False
        try:
            self.world.restore(json.loads(text))
        except (ValueError, KeyError, TypeError) as error:
            aside = self.path.with_name(f"{self.path.name}.bad")
            os.replace(self.path, aside)
            log.warning("sandbox state %s unreadable (%s); moved to %s", self.path, error, aside)
            self.world.reset()
            return False
        self._last_text = text
        log.info("sandbox state loaded from %s", self.path)
        return True

    def touch(self) -> None:
        """Something may have changed: save within a second (one save for many changes)."""
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._last_save + self.interval - time.monotonic())
        self._timer = loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._saving is not None and not self._saving.done():
            self.touch()  # the save under way may predate the change: save once more after
            return
        self._saving = asyncio.get_running_loop().create_task(self._save())

    async def _save(self, in_thread: bool = True) -> None:
        self._last_save = time.monotonic()
        text = self._text()
        if text == self._last_text:
            return
        try:
            if in_thread:  # the loop goes on serving while the disk works
                await asyncio.to_thread(_write_atomically, self.path, text)
            else:
                _write_atomically(self.path, text)
        except OSError as error:
            log.warning("sandbox state not saved to %s: %s", self.path, error)
            return
        self._last_text = text

    def _text(self) -> str:
        return json.dumps(self.world.snapshot(), ensure_ascii=False, separators=(",", ":"))

    async def flush(self) -> None:
        """Save now (waiting for a save under way), and cancel the pending one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._saving is not None:
            with contextlib.suppress(Exception):
                await self._saving
        self._saving = None
        # in this thread: at interpreter exit the loop's thread pool may be shut down already
        await self._save(in_thread=False)


def _write_atomically(path: Path, text: str) -> None:
    """Write a temporary file, sync it, rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)

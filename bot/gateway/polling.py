"""Polling with webhook mode's guarantee: an update is done with only once it is handled.

Telegram takes an update as read when a getUpdates asks for the ones after it, and PTB's
Updater asks again as soon as a batch is in its queue, before any handler ran: a crash
then lost the batch (the presses were never answered, the commands never done). Webhook
mode answers Telegram only after handling (:mod:`bot.gateway.webhook`).

Here every batch a getUpdates returns is written to the storage before PTB sees it
(:meth:`Journal.keep`, from :class:`bot.gateway.intake.ScreeningBot`), and each update is
marked done once its handlers ran (:meth:`Journal.done`, from the application's
``process_update``). The marks are not a write each (on SQLite every write waits behind
the steps' commits on the one connection): they go with the next batch's write, or, when
no batch comes within :data:`DONE_DELAY`, together in one write (and at the stop,
:meth:`Journal.close`). The next start hands the updates left undone to the application
before it polls (:meth:`Journal.left`); those Telegram also sends again (it had not taken
them as read) are dropped as they come. A handled update is forgotten once a later fetch
shows Telegram took it as read. An update handled again after a crash (done, but the
crash came before its mark was written) is one Telegram's webhook would send again too: a
press is answered the same and not applied again (its callback query id keys its step;
an older one finds the table moved on: stale), a typed amount is keyed by its message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any

from storage.base import KeptUpdate, Storage

log = logging.getLogger(__name__)

DONE_DELAY = 0.5
"""Seconds the marks of handled updates wait for the next batch's write to carry them;
then they are written together on their own. A mark a crash loses meanwhile only means
its update is handled again at the next start (see above)."""


class Journal:
    """The fetched updates kept in the storage until handled (polling mode only)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.kept: set[int] = set()
        """Updates kept and not yet handled."""
        self.before: set[int] = set()
        """Updates kept before this start: Telegram may send them again; they are dropped."""
        self.handled: list[int] = []
        """Updates handled whose marks are not written yet."""
        self.writer: asyncio.Task[None] | None = None
        """Writes :attr:`handled` after :data:`DONE_DELAY`, unless a batch's write took them."""

    async def left(self) -> list[KeptUpdate]:
        """At start: the updates the last run fetched and never finished handling, in
        order (to hand to the application before polling)."""
        kept = await self.storage.kept_updates()
        self.before = {k.update_id for k in kept}
        undone = [k for k in kept if not k.done]
        self.kept = {k.update_id for k in undone}
        if undone:
            log.info("%d update(s) fetched before the last stop were never handled: "
                     "handled now", len(undone))
        return undone

    async def keep(self, raw: Sequence[Any], offset: int | None) -> list[Any]:
        """A getUpdates batch (asked with ``offset``), kept before anything acts on it;
        what is new in it. An entry without an integer id is passed on as it is (it
        cannot be kept, and nothing acts on it)."""
        fresh: list[Any] = []
        rows: list[tuple[int, str]] = []
        for item in raw:
            update_id = item.get("update_id") if isinstance(item, dict) else None
            if isinstance(update_id, int) and not isinstance(update_id, bool):
                if update_id in self.before:
                    continue  # kept by the last run: handled, or handed over at start
                # escaped: a lone surrogate (broken Unicode a client sent) is no UTF-8
                rows.append((update_id, json.dumps(item, separators=(",", ":"))))
            fresh.append(item)
        if rows:
            # the batch asked with ``offset``: Telegram took every update below it as read;
            # the marks of those handled since the last write go with it
            done, self.handled = self.handled, []
            try:
                await self.storage.keep_updates(updates=rows, read_below=offset or 0,
                                                done=done)
            except BaseException:
                self.handled[:0] = done
                raise
            self.kept.update(update_id for update_id, _ in rows)
        return fresh

    async def done(self, update_id: int) -> None:
        """The update's handlers ran: it needs no handling after a crash. Its mark is
        written with the next batch, or within :data:`DONE_DELAY`."""
        if update_id not in self.kept:
            return
        self.kept.discard(update_id)
        self.handled.append(update_id)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self._write_later())

    async def _write_later(self) -> None:
        await asyncio.sleep(DONE_DELAY)
        await self.flush()

    async def flush(self) -> None:
        """Write the marks not written yet, in one write."""
        done, self.handled = self.handled, []
        if not done:
            return
        try:
            await self.storage.updates_done(update_ids=done)
        except asyncio.CancelledError:  # the stop's own flush writes them
            self.handled[:0] = done
            raise
        except Exception:  # they stay kept: the next start handles them again
            log.exception("updates %s: could not mark them handled", done)

    async def close(self) -> None:
        """At the stop, once the handlers ran: the marks not written yet are written."""
        writer, self.writer = self.writer, None
        if writer is not None and not writer.done():
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        await self.flush()

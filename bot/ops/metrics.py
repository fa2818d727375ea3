"""The bot's Prometheus metrics (``/metrics`` on the health port, :mod:`bot.ops.health`).

Counters are incremented where things happen: a committed step and its commit time
(:class:`TimedStorage` around the storage), a press accepted or refused with its reason
(:func:`pressed`), a message sent or edited by kind (:func:`sent`), a 429 from Telegram
(:mod:`bot.outbox.ratelimit`), a deadline fired late (:mod:`bot.table.deadlines`). What lives in the
database (the outbox's depth and age, open tables per game) is read at scrape time
(:func:`refresh`). Labels are fixed small sets: never a chat, a user or a card.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

from games import registry
from storage.base import InsufficientFunds, StaleVersion, Storage, TableNotFound
from storage.inspect import Inspector

STEPS = Counter("banco_steps", "Table steps committed (presses, timeouts, settings)")
COMMIT_SECONDS = Histogram(
    "banco_commit_seconds", "Time of one storage unit of work that writes a table",
    ["op"], buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
COMMIT_REFUSED = Counter("banco_commit_refused", "Table writes storage refused, by why",
                         ["reason"])
PRESSES = Counter("banco_presses", "Button presses and typed amounts, by outcome",
                  ["outcome"])
REFUSALS = Counter("banco_refusals", "Refused presses, by reason", ["reason"])
MESSAGES = Counter("banco_messages", "Messages sent or edited in Telegram, by kind",
                   ["kind"])
RETRY_AFTER = Counter("banco_telegram_retry_after", "429 answers from Telegram, by method",
                      ["method"])
DEADLINE_LAG = Histogram(
    "banco_deadline_lag_seconds", "How late a decision deadline fired (fire time - due)",
    buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))
OUTBOX_PENDING = Gauge("banco_outbox_pending", "Undelivered outbox items")
OUTBOX_AGE = Gauge("banco_outbox_oldest_age_seconds",
                   "Age of the oldest undelivered outbox item (0 when none)")
TABLES = Gauge("banco_tables_open", "Open tables, by game", ["game"])
READY = Gauge("banco_ready", "1 once start-up finished and until the stop began")
SENDS_WAITING = Gauge("banco_sends_waiting",
                      "Bot API requests waiting for their turn (a group's window, the overall cap)")

# The kinds of MESSAGES: what an operator tells apart (posts cost the group budget, DMs not).
TABLE_POST, TABLE_EDIT, TABLE_RETIRE = "table_post", "table_edit", "table_retire"
SETTLEMENT, GROUP, DM, ANSWER = "settlement", "group", "dm", "answer"
EPHEMERAL = "ephemeral"
"""A private view shown in the group to one player (sent or edited)."""


@functools.cache
def _child(metric: MetricWrapperBase, label: str) -> Any:
    """``metric.labels(label)``, looked up once: a label's child never changes, and
    ``labels`` takes a lock and a look-up with every message sent, press and commit."""
    return metric.labels(label)


def sent(kind: str) -> None:
    """One message of ``kind`` went out (a send, or an edit Telegram took)."""
    _child(MESSAGES, kind).inc()


def pressed(committed: bool, refusal: str = "") -> None:
    """A button press was refused for ``refusal``, or accepted (it committed), or answered
    without a step (an amount prompt, a choice of cards, *My cards*)."""
    if refusal:
        _child(PRESSES, "refused").inc()
        _child(REFUSALS, refusal).inc()
    else:
        _child(PRESSES, "accepted" if committed else "answered").inc()


def retry_after(method: str) -> None:
    """Telegram answered ``method`` with a 429."""
    RETRY_AFTER.labels(method).inc()


def deadline_fired(due: float, now: float) -> None:
    """A deadline due at ``due`` fired at ``now``."""
    DEADLINE_LAG.observe(max(0.0, now - due))


async def refresh(inspector: Inspector, clock: Callable[[], float] = time.time) -> None:
    """Read the figures that live in the database into their gauges (before a scrape)."""
    pending, oldest = await inspector.outbox_depth()
    OUTBOX_PENDING.set(pending)
    OUTBOX_AGE.set(max(0.0, clock() - oldest) if oldest is not None else 0.0)
    counts = await inspector.tables_by_game()
    for game in {*registry.GAMES, *counts}:
        TABLES.labels(game).set(counts.get(game, 0))


WRITE_REFUSALS: dict[type[Exception], str] = {
    StaleVersion: "stale", InsufficientFunds: "funds", TableNotFound: "no_table"}
"""What storage raises when it refuses a table write, each with its ``reason`` label."""


class TimedStorage:
    """The storage, with every table write timed and counted; everything else passes through.

    ``inner`` is the real backend (:func:`storage.inspect.inspector` looks through it).
    """

    def __init__(self, inner: Storage) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def _timed(self, op: str, call: Callable[[], Awaitable[Any]]) -> Any:
        start = time.perf_counter()
        try:
            return await call()
        except tuple(WRITE_REFUSALS) as exc:
            COMMIT_REFUSED.labels(next(label for cls, label in WRITE_REFUSALS.items()
                                       if isinstance(exc, cls))).inc()
            raise
        finally:
            _child(COMMIT_SECONDS, op).observe(time.perf_counter() - start)

    async def commit_step(self, **kwargs: Any) -> int:
        """:meth:`storage.base.Storage.commit_step`, timed; counted once committed."""
        step_id = await self._timed("step", lambda: self.inner.commit_step(**kwargs))
        STEPS.inc()
        return cast(int, step_id)

    async def update_meta(self, **kwargs: Any) -> int:
        """:meth:`storage.base.Storage.update_meta`, timed."""
        return cast(int, await self._timed("meta", lambda: self.inner.update_meta(**kwargs)))

    async def create_table(self, **kwargs: Any) -> Any:
        """:meth:`storage.base.Storage.create_table`, timed."""
        return await self._timed("open", lambda: self.inner.create_table(**kwargs))

    async def close_table(self, **kwargs: Any) -> int:
        """:meth:`storage.base.Storage.close_table`, timed."""
        return cast(int, await self._timed("close", lambda: self.inner.close_table(**kwargs)))


def timed(storage: Storage) -> Storage:
    """``storage`` with its table writes measured (see :class:`TimedStorage`)."""
    return cast(Storage, TimedStorage(storage))

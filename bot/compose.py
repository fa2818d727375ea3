"""The composition root: every collaborator of a bot process built in one place, each
handed the others it needs.

The bot (:mod:`bot.app`), the operator's CLI (:mod:`bot.admin`), the benches and the
tests' host all build through here, so they run what production wires: the storage, the
chat languages, the deadlines (one process: :class:`Timers`; several workers: the
database's), the doorbell, the tables and their decision clock, a table's life with its
alive marks, the presses, the courier with its pace, the Mini App's links and server, and
the services the handlers call. No collaborator reaches another through a third: what one
needs of another is passed to it here (:class:`Service` names each once).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import Bot
from telegram.ext import ExtBot

from bot.config import Settings
from bot.gateway.context import Services
from bot.gateway.ephemeral import Ephemeral
from bot.gateway.webapp.auth import Members
from bot.gateway.webapp.server import WebApp
from bot.ops import metrics
from bot.ops.hooks import Hooks
from bot.outbox.courier import Courier, Doorbell
from bot.outbox.pace import Pace
from bot.outbox.ratelimit import GroupWindowLimiter
from bot.outbox.reports import Reports
from bot.table.clock import IDLE_CLOSE, Clock
from bot.table.deadlines import Deadlines, Timers
from bot.table.languages import Languages
from bot.table.lifecycle import Lifecycle
from bot.table.liveness import Liveness
from bot.table.presses import Presses
from bot.table.tables import Tables
from bot.view.applink import AppLinks
from bot.workers.coordination import LANGUAGES_FRESH, Shared
from storage.base import Storage
from storage.factory import open_storage


@dataclass
class Service:
    """The table service of one process, without Telegram: what a step needs to be taken,
    committed and queued for delivery (the operator's CLI needs no more)."""

    storage: Storage
    languages: Languages
    doorbell: Doorbell
    reports: Reports
    deadlines: Deadlines
    clock: Clock
    tables: Tables
    lifecycle: Lifecycle
    presses: Presses
    bot_username: str


@dataclass
class Host(Service):
    """A bot process's collaborators: the table service and the courier that delivers its
    outbox to Telegram."""

    courier: Courier
    pace: Pace


def storage_of(settings: Settings) -> Storage:
    """The bot's database, as its settings name it (not opened yet)."""
    return open_storage(settings.storage_url, starting_grant=settings.starting_grant,
                        daily_bonus=settings.daily_bonus)


def service(storage: Storage, *, language: str = "en", decision_timeout: float = 60,
            bot_username: str = "", idle_close: int = IDLE_CLOSE, turn_dms: bool = True,
            links: AppLinks | None = None, hooks: Hooks | None = None,
            shared: Shared | None = None, alive: bool = False,
            now: Callable[[], float] = time.time) -> Service:
    """The table service on an opened ``storage``. With ``shared`` (several workers on one
    PostgreSQL) the chat locks and deadlines are the database's and a chat's language is
    re-read now and then (another worker may change it); ``alive``: the process marks
    itself alive (:mod:`bot.table.liveness`), so a start after downtime gives the awaited
    back the time no process ran; ``now``: the wall clock (a test's may be fake)."""
    languages = Languages(storage, language, fresh=None if shared is None else LANGUAGES_FRESH)
    doorbell = Doorbell()
    deadlines: Deadlines = Timers() if shared is None else shared.deadlines
    tables = Tables(storage, languages, doorbell, deadlines, decision_timeout=decision_timeout,
                    idle_close=idle_close, bot_username=bot_username, hooks=hooks, now=now,
                    turn_dms=turn_dms, chat_locks=None if shared is None else shared.chat_locks,
                    links=links)
    liveness = Liveness(storage, shared=shared is not None, now=now) if alive else None
    reports = Reports()
    return Service(storage=storage, languages=languages, doorbell=doorbell, reports=reports,
                   deadlines=deadlines, clock=tables.clock, tables=tables,
                   lifecycle=Lifecycle(tables, reports, liveness),
                   presses=Presses(tables, storage, languages, clock=now),
                   bot_username=bot_username)


def host(table_service: Service, bot: Bot, *, pace: Pace | None = None,
         hooks: Hooks | None = None, shared: Shared | None = None) -> Host:
    """The service with its courier (not started): with ``shared``, it delivers the chats
    whose lease this worker holds; ``pace``: when a table edit may spend the group's budget
    (none: every edit at once)."""
    pace = pace or Pace(gap=0.0, per_coup=1 << 30, reserve=0)
    courier = Courier(bot, table_service.storage, table_service.doorbell,
                      table_service.tables.feed, table_service.reports, pace, hooks,
                      None if shared is None else shared.leases,
                      None if shared is None else shared.chat_locks)
    return Host(**vars(table_service), courier=courier, pace=pace)


def bot_host(settings: Settings, storage: Storage, bot: ExtBot[Any],
             shared: Shared | None) -> Host:
    """The bot's own host, as its settings tune it (:func:`bot.app.post_init`)."""
    hooks = Hooks(settings.data_dir / "shown.jsonl" if settings.test_hooks else None)
    # the Mini App's links (the group's Open button, private web_app buttons), when it is set
    links = AppLinks.of(bot.username, settings.webapp_short_name, bot.token,
                        settings.webapp_url) if settings.webapp_on else None
    limiter = bot.rate_limiter
    if isinstance(limiter, GroupWindowLimiter):
        waiting = limiter.waiting
        metrics.SENDS_WAITING.set_function(lambda: len(waiting))
    pace = Pace(settings.group_edit_gap, settings.group_edits_per_coup, settings.group_reserve,
                limiter.spare if isinstance(limiter, GroupWindowLimiter) else None)
    table_service = service(storage, language=settings.default_language,
                            decision_timeout=settings.decision_timeout,
                            idle_close=settings.idle_close, bot_username=bot.username,
                            turn_dms=settings.turn_dms, links=links, hooks=hooks,
                            shared=shared, alive=True)
    return host(table_service, bot, pace=pace, hooks=hooks, shared=shared)


def services(built: Host, *, daily_bonus: int, ephemeral: Ephemeral | None = None,
             ephemeral_counted: bool = True) -> Services:
    """What the handlers call (:mod:`bot.gateway.context`); ``ephemeral``: views shown in
    the group to one player alone (None: off)."""
    return Services(storage=built.storage, languages=built.languages,
                    lifecycle=built.lifecycle, presses=built.presses, courier=built.courier,
                    daily_bonus=daily_bonus, bot_username=built.bot_username,
                    reserve=built.pace.reserve, ephemeral=ephemeral,
                    ephemeral_counted=ephemeral_counted)


def webapp(built: Service, *, token: str, members: Members, sdk_url: str, max_age: float,
           title_of: Callable[[int], Awaitable[str]] | None = None,
           now: Callable[[], float] = time.time) -> WebApp:
    """The Mini App's server over the service (not started)."""
    return WebApp(token=token, lifecycle=built.lifecycle, tables=built.tables,
                  clock=built.clock, languages=built.languages, presses=built.presses,
                  members=members, sdk_url=sdk_url, max_age=max_age, now=now,
                  title_of=title_of)

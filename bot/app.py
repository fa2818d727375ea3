"""The Application: its handlers, its start and its stop.

``post_init`` has every collaborator built once by the composition root
(:mod:`bot.compose`: the storage, the chat languages, the deadlines, the tables and their
decision clock, a table's life, the presses, the courier that delivers the durable
outbox, the Mini App's server), then resumes the open tables. Stopping, the rate
limiter stops holding sends first (:class:`BancoApplication`), so that the handlers
still running end at once; ``post_stop`` then lets the courier finish within
``STOP_FLUSH`` seconds while the HTTP client is still open (what is left stays queued
in the database); ``post_shutdown`` closes the database. The whole stop has one deadline
(:class:`StopClock`) that every part shares.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections.abc import Awaitable
from typing import Any, NoReturn

from telegram import (
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import compose
from bot.config import Settings
from bot.gateway import board, buttons, commands, standings
from bot.gateway.context import CONTEXT_TYPES, BotData
from bot.gateway.ephemeral import Ephemeral
from bot.gateway.intake import ScreeningBot, screened
from bot.gateway.polling import Journal
from bot.gateway.transport import api_request, updates_request
from bot.gateway.webapp.auth import Members
from bot.ops import metrics
from bot.ops.health import start_health
from bot.outbox.ratelimit import GroupWindowLimiter, stopping
from bot.table.seasons import Seasons
from bot.view.codec import PRIVACY_PATTERN
from bot.workers import coordination
from storage.base import Storage
from storage.inspect import inspector

log = logging.getLogger(__name__)

GROUP_COMMANDS = ("newtable", "table", "balance", "bonus", "stats", "top", "season", "history",
                  "rules", "verify", "language", "privacy", "help")
ADMIN_COMMANDS = (*GROUP_COMMANDS, "settings", "closetable")
PRIVATE_COMMANDS = ("start", "stats", "privacy", "rules", "help")

DESCRIPTIONS = {
    "en": {
        "start": "Start: get your cards here", "help": "Commands", "newtable": "Open a table",
        "table": "Show the table again", "balance": "Your chips", "bonus": "Daily bonus",
        "stats": "Your stats", "top": "Standings",
        "season": "This season, or a past one", "history": "Your latest results",
        "rules": "Rules of a game", "verify": "Check the shoe",
        "language": "Language of the chat", "settings": "Table settings (admins)",
        "closetable": "Close the table (admins)",
        "privacy": "Your name on the all-chats board",
    },
    "ru": {
        "start": "Старт: карты будут приходить сюда", "help": "Команды",
        "newtable": "Открыть стол", "table": "Показать стол снова", "balance": "Ваши фишки",
        "bonus": "Ежедневный бонус", "stats": "Ваша статистика", "top": "Рейтинг",
        "season": "Текущий сезон или прошедший",
        "history": "Ваши последние итоги", "rules": "Правила игры",
        "verify": "Проверить шуз", "language": "Язык чата",
        "settings": "Настройки стола (админы)", "closetable": "Закрыть стол (админы)",
        "privacy": "Ваше имя в общем рейтинге",
    },
}


App = Application[Any, Any, Any, Any, BotData, Any]
"""The application: its ``bot_data`` is our typed :class:`BotData`."""


class BancoApplication(Application):  # type: ignore[type-arg]
    """PTB's Application, whose stop first ends the rate limiter's waits.

    PTB's stop (polling's, and webhook mode's after the server's) waits for every update
    taken to be handled; a handler's reply to a group whose window is full would wait for
    its turn, a slot every three seconds, and the stop with it (once half an hour, with
    Telegram unreachable). Now such a send fails at once and is logged.
    """

    stop_clock: StopClock | None = None
    """The stop's one deadline, from its first sign on (:func:`stop_clock`)."""

    def _raise_system_exit(self) -> NoReturn:  # type: ignore[override]
        """PTB's SIGTERM/SIGINT handler in polling mode: the stop's clock starts here, before
        the updater's stop takes its share."""
        stop_clock(self).begin()
        raise SystemExit

    async def stop(self) -> None:
        """The limiter's waits end (:func:`bot.outbox.ratelimit.stopping`), then PTB's stop."""
        stop_clock(self).begin()
        stopping(self.bot)
        await super().stop()

    async def process_update(self, update: object) -> None:
        """PTB's, then, in polling mode, the update is marked handled
        (:meth:`bot.gateway.polling.Journal.done`): a crash before that hands it to the
        handlers again at the next start. (PTB's own runs every handler and the error
        handler; it raises nothing the handlers raise.)"""
        await super().process_update(update)
        journal = getattr(self.bot, "journal", None)
        if journal is not None and isinstance(update, Update):
            await journal.done(update.update_id)


def menu(lang: str, names: tuple[str, ...]) -> list[BotCommand]:
    """The command menu for one scope and language."""
    return [BotCommand(n, DESCRIPTIONS[lang][n]) for n in names]


async def register_commands(app: App) -> None:
    """set_my_commands per scope (private, groups, group admins) and language."""
    scopes = ((BotCommandScopeDefault(), PRIVATE_COMMANDS),
              (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
              (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
              (BotCommandScopeAllChatAdministrators(), ADMIN_COMMANDS))
    for scope, names in scopes:
        for lang in (None, "en", "ru"):
            try:
                await app.bot.set_my_commands(menu(lang or "en", names), scope=scope,
                                              language_code=lang)
            except TelegramError as exc:
                log.warning("setMyCommands failed for %s/%s: %s", scope.type, lang, exc)


def bot_settings(app: App) -> Settings:
    """The settings the application was built with."""
    settings = app.bot_data.settings
    assert settings is not None, "built by build_application"
    return settings


async def post_init(app: App) -> None:
    """Open and migrate the database, build the collaborators (:mod:`bot.compose`), resume
    every open table."""
    settings = bot_settings(app)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    storage = metrics.timed(compose.storage_of(settings))
    await storage.open()
    health = await start_health(inspector(storage), settings.health_host, settings.health_port)
    app.bot_data.health = health
    # several workers on one PostgreSQL: locks, deadlines and delivery in the database
    shared = await coordination.open_shared(settings.storage_url, settings.shared)
    app.bot_data.shared = shared
    host = compose.bot_host(settings, storage, app.bot, shared)
    app.bot_data.deadlines = host.deadlines
    services = compose.services(host, daily_bonus=settings.daily_bonus,
                                ephemeral=Ephemeral(app.bot) if settings.ephemeral else None,
                                ephemeral_counted=settings.ephemeral_in_group_budget)
    app.bot_data.services = services
    if settings.webapp_on:
        bot = app.bot

        async def status(chat_id: int, user_id: int) -> tuple[str, bool]:
            member = await bot.get_chat_member(chat_id, user_id)
            return str(member.status), bool(getattr(member, "is_member", False))

        async def title_of(chat_id: int) -> str:
            """The group's name as an update showed it, else as stored (after a restart)."""
            if chat_id not in services.titles and (
                    stored := await host.storage.chat_title(chat_id=chat_id)):
                services.titles[chat_id] = stored
            return services.titles.get(chat_id, "")

        webapp = compose.webapp(host, token=bot.token, members=Members(status),
                                sdk_url=settings.webapp_sdk_url,
                                max_age=settings.webapp_max_age, title_of=title_of)
        await webapp.start(settings.webapp_listen, settings.webapp_port)
        app.bot_data.webapp = webapp
        if shared is not None:  # every worker hears every commit, for the pages it serves
            await shared.news.follow(host.tables, webapp.changed, lambda: list(webapp.chats))
    await register_commands(app)
    resumed = await host.lifecycle.resume_all()
    if shared is not None:
        shared.deadlines.start(host.clock.on_deadline)
    host.lifecycle.start()  # it hears what the courier reports of its deliveries
    await host.courier.start()
    rollover = Seasons(host.storage, host.languages, host.doorbell)
    app.bot_data.seasons = asyncio.get_running_loop().create_task(rollover.run())
    if not settings.webhook_url and isinstance(app.bot, ScreeningBot):
        await keep_polled(app, storage)
    tune_gc()  # last: what starting built, the resumed tables included, is frozen
    if health is not None:
        health.set_ready(True)
    log.info("bot @%s ready; %d open table(s) resumed", app.bot.username, resumed)


STOP_WITHIN = 2.5
"""Seconds a stop may take from its signal (in webhook mode: from the end of the webhook's
requests, which have their own bound) to the database's closing; the process exits just
after. Each part of the stop (PTB's own, the health and Mini App servers, the courier's
flush, the shared coordination, the database) gets what the parts before it left: a part
still busy then is abandoned, so the whole stop ends in bounded time whatever hangs."""

STOP_HEALTH = 0.5
"""Seconds at most for the health server's part (a local port to close)."""

STOP_PAGES = 1.0
"""Seconds at most for the Mini App server's part (its pages close together in half a
second, then the server); the courier's flush comes after, in what is left."""

STOP_MARK = 0.2
"""Seconds at most for the stop's last alive mark (:mod:`bot.table.liveness`)."""

STOP_CLOSING = 0.5
"""Of :data:`STOP_WITHIN`, what the parts before ``post_shutdown`` leave to its closings
(the coordination, then the database, whose thread must end for the process to exit)."""


class StopClock:
    """The one deadline of a stop, set on its first sign (the signal, or the application's
    stop), which every part of the stop reads."""

    def __init__(self, within: float = STOP_WITHIN) -> None:
        self.within = within
        self.by: float | None = None
        """The event loop's time by which the stop is over (None: not stopping yet)."""

    def begin(self) -> None:
        """The stop begins now, unless it began already."""
        if self.by is None:
            self.by = asyncio.get_running_loop().time() + self.within

    def left(self, keep: float = 0.0) -> float:
        """Seconds left of the stop, less ``keep`` for the parts after (never below 0)."""
        self.begin()
        assert self.by is not None
        return max(0.0, self.by - keep - asyncio.get_running_loop().time())


def stop_clock(app: App | BancoApplication) -> StopClock:
    """The application's stop clock (one per application)."""
    clock = getattr(app, "stop_clock", None)
    if clock is None:
        clock = StopClock()
        app.stop_clock = clock  # type: ignore[union-attr]
    return clock


async def _bounded(what: str, step: Awaitable[Any], seconds: float) -> None:
    """Await one part of a stop for at most ``seconds``; whatever it raises is logged, not
    raised: the next parts, and the database's closing, must run whatever happens."""
    try:
        await asyncio.wait_for(step, seconds)
    except TimeoutError:
        log.warning("stopping: %s took over %.1f s; abandoned", what, seconds)
    except Exception:
        log.exception("stopping: %s failed", what)


async def keep_polled(app: App, storage: Storage) -> None:
    """Polling mode: from now on each fetched update is kept until handled
    (:mod:`bot.gateway.polling`); those the last run fetched and never finished handling
    go to the application's queue first, ahead of anything polled."""
    bot = app.bot
    assert isinstance(bot, ScreeningBot)
    journal = Journal(storage)
    left = await journal.left()
    for update in screened([json.loads(k.body) for k in left], bot):
        bot.insert_callback_data(update)
        await app.update_queue.put(update)
    with bot._unfrozen():  # a Bot is frozen once built
        bot.journal = journal


async def post_stop(app: App) -> None:
    """Before the HTTP client closes: let the courier send for up to STOP_FLUSH seconds
    (fewer if the stop's clock has fewer left); whatever is still pending stays in the
    outbox for the next start. The health port closes first: a stopping worker is no
    longer ready. Each part gets what is left of the stop's clock, :data:`STOP_CLOSING`
    kept for ``post_shutdown`` (the servers no more than their own limits), and runs
    whatever the one before it did (a part that raised would otherwise skip
    ``post_shutdown``, and the database's thread, which is no daemon, would keep the
    process alive)."""
    clock = stop_clock(app)
    journal = getattr(app.bot, "journal", None)
    if journal is not None:  # polling: every handler ran; their marks go in one write
        await _bounded("the handled updates' marks", journal.close(),
                       min(STOP_HEALTH, clock.left(STOP_CLOSING)))
    if app.bot_data.seasons is not None:
        app.bot_data.seasons.cancel()
    health = app.bot_data.health
    if health is not None:
        await _bounded("the health server", health.stop(),
                       min(STOP_HEALTH, clock.left(STOP_CLOSING)))
    webapp = app.bot_data.webapp
    if webapp is not None:
        await _bounded("the Mini App server", webapp.stop(),
                       min(STOP_PAGES, clock.left(STOP_CLOSING)))
    svc = app.bot_data.services
    if svc is not None:
        settings = bot_settings(app)
        try:
            if app.bot_data.deadlines is not None:
                app.bot_data.deadlines.stop()
        except Exception:
            log.exception("stopping: the deadlines failed to stop")
        # the last alive mark (one small write): the next start gives back the time no
        # process ran
        await _bounded("the alive mark", svc.lifecycle.stop(),
                       min(STOP_MARK, clock.left(STOP_CLOSING)))
        # the courier cancels its sends once its flush is over, then records what it
        # knows; a tenth of what is left is kept for that
        left = clock.left(STOP_CLOSING)
        await _bounded("the courier", svc.courier.stop(min(settings.stop_flush, 0.9 * left)),
                       left)


async def post_shutdown(app: App) -> None:
    """Close the database (each connection whatever the other's closing did), in what is
    left of the stop's clock; the database's own closing is given a fifth of a second even
    when nothing is left (its thread must end for the process to exit)."""
    clock = stop_clock(app)
    shared = app.bot_data.shared
    if shared is not None:
        await _bounded("the shared coordination", shared.close(), clock.left(STOP_CLOSING / 2))
    svc = app.bot_data.services
    if svc is not None:
        await _bounded("the database", svc.storage.close(), max(clock.left(), 0.2))


def build_application(settings: Settings, token: str,
                      base_url: str | None = None) -> App:
    """The Application with every handler, the rate limiter and the job queue."""
    file_url = base_url.replace("/bot", "/file/bot", 1) if base_url else None
    bot = ScreeningBot(
        token, base_url=base_url or "https://api.telegram.org/bot",
        base_file_url=file_url or "https://api.telegram.org/file/bot",
        request=api_request(settings.transport),
        get_updates_request=updates_request(settings.transport),
        rate_limiter=coordination.rate_limiter(
            settings.storage_url, settings.shared, settings.redis_url,
            settings.group_messages_per_minute, settings.group_rate_period,
            settings.rate_limit_retries, settings.overall_messages_per_second))
    if isinstance(bot.rate_limiter, GroupWindowLimiter):
        bot.rate_limiter.ephemeral_in_budget = settings.ephemeral_in_group_budget
    builder = (ApplicationBuilder().bot(bot).application_class(BancoApplication)
               .context_types(CONTEXT_TYPES)
               .concurrent_updates(64)
               .post_init(post_init).post_stop(post_stop).post_shutdown(post_shutdown))
    app = builder.build()
    app.bot_data.settings = settings
    group = filters.ChatType.GROUPS
    # presses first: most updates are presses, and a handler of group 0 is asked in turn
    # (no press is a command or a message, so the order decides nothing else)
    app.add_handler(CallbackQueryHandler(board.on_privacy_press, pattern=PRIVACY_PATTERN))
    app.add_handler(CallbackQueryHandler(buttons.on_button))
    for name, callback in (("start", commands.cmd_start), ("help", commands.cmd_help),
                           ("newtable", commands.cmd_newtable), ("table", commands.cmd_table),
                           ("balance", commands.cmd_balance), ("bonus", commands.cmd_bonus),
                           ("stats", standings.cmd_stats), ("top", board.cmd_top),
                           ("privacy", board.cmd_privacy),
                           ("season", standings.cmd_season),
                           ("history", commands.cmd_history),
                           ("rules", commands.cmd_rules),
                           ("verify", commands.cmd_verify), ("language", commands.cmd_language),
                           ("settings", commands.cmd_settings),
                           ("closetable", commands.cmd_closetable)):
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(TypeHandler(Update, buttons.remember_chat), group=-1)
    app.add_handler(MessageHandler(group & filters.TEXT & ~filters.COMMAND,
                                   buttons.on_group_text))
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND,
                                   buttons.on_private_text))
    app.add_handler(ChatMemberHandler(buttons.on_my_chat_member,
                                      ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(buttons.on_error)
    return app


GC_THRESHOLDS = (50_000, 10, 10)
"""The cyclic collector's thresholds for a serving bot (Python's own are 700, 10, 10).

A step briefly holds a few thousand containers (a decoded update, a pokerkit clone, the
record's JSON, the drawing), and many steps are in flight at once, so with a first
threshold of 700 the collector ran in the middle of nearly every step and promoted what
was still in use to the older generations, whose collections then walked the whole heap
(some 300,000 objects at 200 tables: the pokerkit cache, the tables, the drawn lines).
Almost nothing a step makes is cyclic garbage (reference counting frees it), so the
collector is kept for the rare real cycle. bench/load.py, stud at 200 tables: bot CPU
per step 4.1-4.6 ms with Python's thresholds, 3.5 ms with these and :func:`tune_gc`'s
freeze."""


def tune_gc() -> None:
    """Collect once and freeze what start-up made (modules, schemas, the application, its
    collaborators and the resumed tables: called at the end of :func:`post_init`), so that
    no later collection walks it again; then collect less often (:data:`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run(settings: Settings, token: str, base_url: str | None) -> None:
    """Poll for updates (with WEBHOOK_URL: serve the webhook, bot/gateway/webhook.py) until
    SIGINT/SIGTERM."""
    app = build_application(settings, token, base_url)
    if settings.event_loop == "uvloop":
        import uvloop

        # libuv's loop: every await, timer and socket read of the bot costs less CPU
        asyncio.set_event_loop(uvloop.new_event_loop())
    if settings.webhook_url:
        from bot.gateway.webhook import run_webhook

        run_webhook(app, settings)
        return
    app.run_polling(allowed_updates=Update.ALL_TYPES)

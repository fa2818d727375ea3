"""What every handler of :mod:`bot.gateway.commands` and :mod:`bot.gateway.buttons` shares:
the typed context (the services ``post_init`` has :mod:`bot.compose` build), and how a
handler answers in the chat it was written in.

Whatever arrives is untrusted: names, texts, arguments and button data are cleaned of
broken Unicode (lone UTF-16 surrogates) before use (:func:`clean`), and a chat that refuses
the bot (kicked, blocked) never makes an answer raise (:func:`reply`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import CallbackContext, ContextTypes, ExtBot

from bot.config import Settings
from bot.gateway.ephemeral import Ephemeral
from bot.gateway.webapp.server import WebApp
from bot.ops.health import HealthServer
from bot.outbox.courier import Courier
from bot.outbox.ratelimit import GroupWindowLimiter
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.lifecycle import Lifecycle
from bot.table.presses import Presses
from bot.view import i18n
from bot.workers.coordination import Shared
from storage.base import Storage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Services:
    """The collaborators the handlers call, and what they need to know of the others, built
    once in ``post_init`` (:func:`bot.compose.services`)."""

    storage: Storage
    languages: Languages
    lifecycle: Lifecycle
    presses: Presses
    courier: Courier
    daily_bonus: int
    bot_username: str
    """The bot's @username: a group message that names it is meant for the bot."""
    reserve: int
    """The group's messages of a minute the courier's refreshes leave to commands
    (:attr:`bot.outbox.pace.Pace.reserve`)."""
    ephemeral: Ephemeral | None = None
    """Views shown in the group to one player alone (None: off, EPHEMERAL=0)."""
    ephemeral_counted: bool = True
    """Whether those count against the group's budget (EPHEMERAL_IN_GROUP_BUDGET)."""
    titles: dict[int, str] = field(default_factory=dict)
    """Each group's title as this process last stored it (see :func:`remember_chat`)."""


@dataclass
class BotData:
    """What the application keeps beside its handlers (PTB's ``bot_data``, typed): its
    settings from the start, and once ``post_init`` has run its services, its deadlines,
    its health port and, with several workers, what they share."""

    settings: Settings | None = None
    services: Services | None = None
    deadlines: Deadlines | None = None
    health: HealthServer | None = None
    shared: Shared | None = None
    webapp: WebApp | None = None
    seasons: asyncio.Task[None] | None = None
    """The seasons' rollover (:meth:`bot.table.seasons.Seasons.run`), once started."""


Context = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
"""What every handler is given: PTB's context with our :class:`BotData`."""

CONTEXT_TYPES = ContextTypes(bot_data=BotData)
"""The context types the application is built with (:func:`bot.app.build_application`)."""


def services(context: Context) -> Services:
    """The application's services (created in post_init)."""
    found = context.bot_data.services
    if found is None:
        raise RuntimeError("an update before the services were built")
    return found


def clean(text: str | None) -> str:
    """``text`` with broken Unicode (lone surrogates) replaced, so it can be sent and logged."""
    if not text:
        return ""
    return text.encode("utf-8", "replace").decode("utf-8")



def is_group(update: Update) -> bool:
    """True in groups and supergroups."""
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def reply(update: Update, text: str, **kwargs: Any) -> int | None:
    """Answer in the chat the update came from; a chat that refuses the bot is logged. The
    answer's message id (None when nothing was sent)."""
    msg = update.effective_message
    if msg is None or not text:
        return None
    kwargs.setdefault("parse_mode", ParseMode.HTML)  # every text of ours is Telegram HTML
    try:
        return (await msg.reply_text(text, **kwargs)).message_id
    except TelegramError as exc:
        log.warning("reply in chat %s failed: %s", msg.chat_id, type(exc).__name__)
        return None


async def say(update: Update, context: Context, *parts: str,
              keep_reserve: bool = False) -> None:
    """Answer what someone typed, never held for a minute by the group's budget.

    Telegram takes about 20 sends and edits a minute in a group, and the table messages,
    results and every other answer share them (README, "Pace under Telegram's limits"); a
    reply queued behind a full minute waited up to 60 s. So an answer goes in the group only
    while the group's
    window has room for it now, after the messages already on their way. A command's
    answer may take the last messages of the minute: the courier's refreshes leave them
    to commands (:attr:`bot.outbox.pace.Pace.reserve`), and so does an answer to a typed amount
    (``keep_reserve``), which goes in the group only with the reserve still free.
    Otherwise the answer goes at once to the sender's private chat, which is outside the
    group's budget, and one short group line says so only where it is affordable: when
    an answer of several messages goes privately while one more still fits. Only a sender
    the bot may not write to privately gets his answer in the group, in its turn there.
    """
    parts = tuple(p for p in parts if p)
    chat, user = update.effective_chat, update.effective_user
    if not parts:
        return
    if chat is None or user is None or not is_group(update):
        for part in parts:
            await reply(update, part)
        return
    svc = services(context)
    reserve = svc.reserve if keep_reserve else 0
    room = group_room(context, chat.id)
    if room >= len(parts) + reserve:
        for part in parts:
            await reply(update, part)
        return
    lang = await svc.languages.of(chat.id)
    if await privately(context, user.id, clean(chat.title) or str(chat.id), parts, lang):
        if len(parts) > 1 and room >= 1 + reserve:
            await reply(update, i18n.t(lang, "answered_privately", name=clean(user.full_name)))
        return
    for part in parts:
        await reply(update, part)


def group_room(context: Context, chat_id: int) -> int:
    """How many messages the group's window takes now without waiting (unbounded without
    the bot's own limiter)."""
    limiter = getattr(context.bot, "rate_limiter", None)
    return limiter.room(chat_id) if isinstance(limiter, GroupWindowLimiter) else 1 << 30


async def privately(context: Context, user_id: int, group: str,
                    parts: Sequence[str], lang: str) -> bool:
    """Send a group answer to the sender's private chat, under the group's name; False when
    he has none with the bot (or Telegram refused the message): nothing reached him."""
    head = i18n.t(lang, "from_group", chat=group)
    for i, part in enumerate(parts):
        try:
            await context.bot.send_message(user_id, f"{head}\n{part}" if i == 0 else part,
                                           parse_mode=ParseMode.HTML)
        except (Forbidden, BadRequest) as exc:
            if i == 0:
                return False
            log.warning("private answer to %s cut short: %s", user_id, type(exc).__name__)
            return True
        except TelegramError as exc:  # it may have arrived: not repeated in the group
            log.warning("private answer to %s failed: %s", user_id, type(exc).__name__)
            return True
    return True

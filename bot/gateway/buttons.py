"""Thin handlers: turn an update into "player X does Y at the table of chat Z".

Whatever arrives is untrusted: names, texts, arguments and button data are
cleaned of broken Unicode (lone UTF-16 surrogates) before use, and a chat that
refuses the bot (kicked, blocked) never makes a handler raise. Every button
press is answered at most once, with the truth: a press whose step committed is
answered as done even if something failed afterwards, and an answer whose fate is
unknown is not repeated.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from telegram import (
    CallbackQuery,
    ChatMember,
    ChatMemberUpdated,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError
from telegram.ext import CallbackContext, ContextTypes, ExtBot

from bot.config import Settings
from bot.gateway.ephemeral import Ephemeral
from bot.gateway.webapp.server import WebApp
from bot.ops import metrics
from bot.ops.health import HealthServer
from bot.outbox.courier import Courier
from bot.outbox.kinds import GROUP
from bot.outbox.ratelimit import GroupWindowLimiter, is_stopping, retry_seconds
from bot.table.languages import Languages
from bot.table.lifecycle import Lifecycle
from bot.table.presses import Presses
from bot.table.table_settings import parse_setting
from bot.view import answers, i18n, outcomes, render
from bot.view.answers import Answer
from bot.view.codec import ActionButton, Malformed, MyCards, NewTable, SetLanguage, decode, encode
from bot.view.outcomes import (
    AmountAsked,
    Cards,
    HostReason,
    LanguageSet,
    NotOpened,
    Opened,
    Outcome,
    PickInPrivate,
    Refused,
)
from bot.view.render import Keyboard
from bot.view.rulebook import chunks, game_of, rules_text, to_html
from bot.workers.coordination import Shared
from games import registry
from storage.base import BonusAlreadyClaimed, Storage

log = logging.getLogger(__name__)

ANSWER_ATTEMPTS = 5
ANSWER_WITHIN = 8.0
"""Seconds from a press's first answer within which it may be sent again: Telegram takes an
answer for about 15 s after the press, and the update itself may have waited a little."""
ANSWER_BACKOFF = 0.25
"""The pause before the second answer; it doubles at each further one."""
ANSWER_READ = 5.0
"""An answer's read timeout (PTB's default), shortened to what is left of ANSWER_WITHIN."""
ANSWER_READ_MIN = 0.5
"""An answer with less time than this left to wait for its reply is not tried."""


@dataclass(frozen=True)
class Services:
    """The collaborators the handlers call, built once in ``post_init``."""

    storage: Storage
    languages: Languages
    lifecycle: Lifecycle
    presses: Presses
    courier: Courier
    daily_bonus: int
    ephemeral: Ephemeral | None = None
    """Views shown in the group to one player alone (None: off, EPHEMERAL=0)."""
    ephemeral_counted: bool = True
    """Whether those count against the group's budget (EPHEMERAL_IN_GROUP_BUDGET)."""
    titles: dict[int, str] = field(default_factory=dict)
    """Each group's title as this process last stored it (see :func:`remember_chat`)."""


@dataclass
class BotData:
    """What the application keeps beside its handlers (PTB's ``bot_data``, typed): its
    settings from the start, and once ``post_init`` has run its services, its health port
    and, with several workers, what they share."""

    settings: Settings | None = None
    services: Services | None = None
    health: HealthServer | None = None
    shared: Shared | None = None
    webapp: WebApp | None = None


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


def args(context: Context) -> list[str]:
    """The command's arguments, cleaned."""
    return [clean(a) for a in context.args or []]


def is_group(update: Update) -> bool:
    """True in groups and supergroups."""
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def is_admin(update: Update, context: Context) -> bool:
    """The sender is an administrator or the creator of the chat (getChatMember)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


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


async def recorded(context: Context, chat_id: int, message_id: int | None,
                   live: bool = False) -> None:
    """A picker the bot posted in a group, kept among its sent messages: the courier's
    searches for a post of unknown outcome leave it alone, and with ``live`` the chat's next
    table post takes its buttons, as it does an older table message's. Private chats keep
    nothing."""
    if message_id is None or chat_id > 0:
        return
    try:
        await services(context).storage.record_sent(chat_id=chat_id, kind=GROUP,
                                                    message_id=message_id, live=live)
    except Exception as exc:  # the picker works all the same: never worth failing for
        log.warning("picker of chat %s not recorded: %s", chat_id, type(exc).__name__)


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
    reserve = svc.courier.pace.reserve if keep_reserve else 0
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


async def chat_lang(update: Update, context: Context) -> str:
    """The language to answer in: the chat's, from the sender's language_code at first."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return "en"
    return await services(context).languages.of(chat.id, user.language_code if user else None)


async def bonus(svc: Services, chat_id: int, user_id: int, name: str) -> str:
    """/bonus once a day."""
    lang = await svc.languages.of(chat_id)
    await svc.storage.wallet(chat_id=chat_id, user_id=user_id, name=name)
    try:
        w = await svc.storage.claim_daily_bonus(chat_id=chat_id, user_id=user_id,
                                                today=dt.datetime.now(dt.UTC).date())
    except BonusAlreadyClaimed:
        return i18n.t(lang, "bonus_taken")
    return i18n.t(lang, "bonus_ok", amount=svc.daily_bonus, balance=w.balance)


async def remember_chat(update: Update, context: Context) -> None:
    """Before any handler: a group's title, stored when this process first sees it or sees
    it changed (a private /balance names each chat by it)."""
    chat = update.effective_chat
    if chat is None or not chat.title or not is_group(update):
        return
    svc = services(context)
    title = clean(chat.title)
    if svc.titles.get(chat.id) == title:
        return
    try:
        await svc.storage.set_chat_title(chat_id=chat.id, title=title)
    except Exception as exc:  # a name to show later: never worth failing the update for
        log.warning("title of chat %s not stored: %s", chat.id, type(exc).__name__)
        return
    svc.titles[chat.id] = title


async def cmd_start(update: Update, context: Context) -> None:
    """/start: in private, enables DMs (and shows cards for a deep-linked table)."""
    user = update.effective_user
    lang = await chat_lang(update, context)
    if is_group(update) or user is None:
        await say(update, context, i18n.t(lang, "welcome_group"))
        return
    payload = args(context)[0] if args(context) else None
    svc = services(context)
    opened = await svc.presses.dm_opened(user.id, payload)
    shown = (answers.dm_opened(await svc.languages.of(opened.chat_id), opened)
             if opened is not None else None)  # in the table's language
    if shown is not None:
        text, keyboard = shown
        await reply(update, text, reply_markup=keyboard.markup() if keyboard else None)
        return
    await reply(update, i18n.t(lang, "welcome_private" if not payload else "dm_enabled"))


async def cmd_help(update: Update, context: Context) -> None:
    """/help: the list of commands."""
    await say(update, context, i18n.t(await chat_lang(update, context), "help"))


def game_picker(lang: str) -> InlineKeyboardMarkup:
    """One button per game for /newtable."""
    rows = [[InlineKeyboardButton(i18n.game_name(lang, g), callback_data=encode(NewTable(g)))]
            for g in registry.GAMES]
    return InlineKeyboardMarkup(rows)


async def cmd_newtable(update: Update, context: Context) -> None:
    """/newtable [GAME] [key=value...]: open a table, or show the game picker; at an open
    table, which game it is (every button of a picker would be refused)."""
    lang = await chat_lang(update, context)
    chat, user = update.effective_chat, update.effective_user
    if not is_group(update) or chat is None or user is None:
        await say(update, context, i18n.t(lang, "group_only"))
        return
    game = await services(context).lifecycle.open_game(chat.id)
    if game is not None:
        await say(update, context, i18n.t(lang, "table_exists", game=i18n.game_name(lang, game)))
        return
    if not args(context):
        picker = await reply(update, i18n.t(lang, "pick_game"), reply_markup=game_picker(lang))
        await recorded(context, chat.id, picker, live=True)  # retired once a table opens
        return
    settings = {}
    for arg in args(context)[1:]:
        key, _, value = arg.partition("=")
        if key and value:
            settings[key] = parse_setting(value)
    refusal = await services(context).lifecycle.open_table(
        chat.id, args(context)[0].lower(), user.id, user.language_code, settings)
    if refusal:
        await say(update, context, refusal)


async def cmd_table(update: Update, context: Context) -> None:
    """/table: post the table message again at the bottom of the chat."""
    chat = update.effective_chat
    if chat is None or not await services(context).lifecycle.repost(chat.id):
        await say(update, context, i18n.t(await chat_lang(update, context), "no_table"))


async def cmd_balance(update: Update, context: Context) -> None:
    """/balance: the sender's chips in this chat; in his private chat, in every chat he
    plays in (chips are per chat: a wallet here would play nowhere, so none is made)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    name = clean(user.full_name)
    if chat.type == ChatType.PRIVATE:
        held = await services(context).storage.wallets_of(user_id=user.id)
        await reply(update, render.balances_text(
            lang, name, [w for w in held if w.wallet.chat_id != chat.id]))
        return
    w = await services(context).storage.wallet(chat_id=chat.id, user_id=user.id, name=name)
    await say(update, context, i18n.t(lang, "balance", name=name, balance=w.balance,
                                      on_table=w.on_table))


async def cmd_bonus(update: Update, context: Context) -> None:
    """/bonus: the daily bonus."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    await say(update, context,
              await bonus(services(context), chat.id, user.id, clean(user.full_name)))


async def cmd_top(update: Update, context: Context) -> None:
    """/top: the richest players of the chat."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    rows = await services(context).storage.leaderboard(chat_id=chat.id, limit=10)
    if not rows:
        await say(update, context, i18n.t(lang, "top_empty"))
        return
    lines = [i18n.t(lang, "top_title")]
    lines += [i18n.t(lang, "top_line", rank=i + 1, name=w.name or str(w.user_id),
                     total=w.balance + w.on_table) for i, w in enumerate(rows)]
    await say(update, context, "\n".join(lines))


async def cmd_history(update: Update, context: Context) -> None:
    """/history: the sender's latest results in this chat; in his private chat, in every
    chat he plays in (as /balance there lists his chips)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    storage = services(context).storage
    if chat.type == ChatType.PRIVATE:
        held = [w for w in await storage.wallets_of(user_id=user.id)
                if w.wallet.chat_id != chat.id]
        await reply(update, render.histories_text(lang, clean(user.full_name), [
            (w, render.history_lines(lang, await storage.recent_coups(
                chat_id=w.wallet.chat_id, user_id=user.id, limit=200))) for w in held]))
        return
    entries = await storage.recent_coups(chat_id=chat.id, user_id=user.id, limit=200)
    lines = render.history_lines(lang, entries)
    if not lines:
        await say(update, context, i18n.t(lang, "history_empty", name=clean(user.full_name)))
        return
    await say(update, context, "\n".join([
        i18n.t(lang, "history_title", name=clean(user.full_name)), *lines]))


async def cmd_rules(update: Update, context: Context) -> None:
    """/rules GAME: the rules text in the chat's language; GAME as players call it
    (/rules Chemin de fer, /rules twenty-one, /rules очко)."""
    lang = await chat_lang(update, context)
    game = game_of(" ".join(args(context))) if args(context) else None
    if game is None:
        await say(update, context, "\n".join([i18n.t(lang, "rules_pick"), *(
            f"{i18n.game_name(lang, g)} — /rules {g}" for g in registry.GAMES)]))
        return
    text = rules_text(game, lang)
    if text is None:
        await say(update, context, i18n.t(lang, "rules_missing", game=i18n.game_name(lang, game)))
        return
    await say(update, context, *chunks(to_html(text)))


async def cmd_verify(update: Update, context: Context) -> None:
    """/verify: the shoe commitment and how to check a revealed shoe; the asker's own cards'
    proof goes to his private chat."""
    chat, user = update.effective_chat, update.effective_user
    if chat is not None:
        await say(update, context, await services(context).lifecycle.verify(
            chat.id, user.id if user else None, clean(user.full_name) if user else ""))


async def cmd_language(update: Update, context: Context) -> None:
    """/language [ru|en]: the chat's language."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    if args(context) and args(context)[0].lower() in i18n.LANGUAGES:
        new = args(context)[0].lower()
        await services(context).lifecycle.set_language(chat.id, new)
        await say(update, context, i18n.t(new, "language_set"))
        return
    markup = InlineKeyboardMarkup([[
        InlineKeyboardButton("English", callback_data=encode(SetLanguage("en"))),
        InlineKeyboardButton("Русский", callback_data=encode(SetLanguage("ru"))),
    ]])
    await recorded(context, chat.id,
                   await reply(update, i18n.t(lang, "language_pick"), reply_markup=markup))


async def cmd_settings(update: Update, context: Context) -> None:
    """/settings [KEY VALUE] shows or changes the table's settings; /settings default [GAME]
    KEY [VALUE] sets (or forgets) the chat's default for its next tables. Admins only."""
    chat = update.effective_chat
    lang = await chat_lang(update, context)
    if chat is None or not is_group(update) or not await is_admin(update, context):
        await say(update, context, i18n.t(lang, "admins_only"))
        return
    lifecycle = services(context).lifecycle
    given = args(context)
    if given and given[0].lower() == "default":
        given = given[1:]
        game = given[0].lower() if len(given) >= 2 and given[0].lower() in registry.GAMES \
            else None
        if game is not None:
            given = given[1:]
        await say(update, context, await lifecycle.set_default(
            chat.id, given[0] if given else None, given[1] if len(given) >= 2 else None, game))
        return
    key = given[0] if len(given) >= 2 else None
    value = given[1] if len(given) >= 2 else None
    await say(update, context, await lifecycle.settings(chat.id, key, value))


async def cmd_closetable(update: Update, context: Context) -> None:
    """/closetable: admins only; every chip back to the wallets."""
    chat = update.effective_chat
    lang = await chat_lang(update, context)
    if chat is None or not is_group(update) or not await is_admin(update, context):
        await say(update, context, i18n.t(lang, "admins_only"))
        return
    refusal = await services(context).lifecycle.close_table(chat.id)
    if refusal:
        await say(update, context, refusal)


async def answer(query: CallbackQuery, text: str, alert: bool = False) -> bool:
    """Answer a press, within the query's lifetime (Telegram takes an answer for about 15 s).

    An answer whose fate is unknown (a 5xx, a network error, a timeout: it may or may not
    have arrived) is sent again after a short pause, until :data:`ANSWER_WITHIN` seconds
    from the first try: a second answer to an answered query is refused with a harmless
    400, and without it the player would see a spinner and no pop-up. A 429 waits as it
    asks; a 400 (the query too old, or already answered) ends it."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + ANSWER_WITHIN
    words = i18n.plain(clean(text))[:200]
    for attempt in range(ANSWER_ATTEMPTS):
        left = give_up - loop.time()
        try:
            await query.answer(words, show_alert=alert, read_timeout=min(ANSWER_READ, left))
            metrics.sent(metrics.ANSWER)
            return True
        except RetryAfter as exc:
            pause = min(retry_seconds(exc), 5.0)
        except BadRequest as exc:
            # after an unknown fate, "too old or already answered" mostly means it arrived
            log.log(logging.INFO if attempt else logging.WARNING,
                    "answer to a press refused: %s", exc.message)
            return False
        except NetworkError as exc:  # a 5xx, a timeout, a lost connection
            log.warning("answer to a press failed: %s", type(exc).__name__)
            pause = ANSWER_BACKOFF * 2 ** attempt
        except TelegramError as exc:
            log.warning("answer to a press failed: %s", type(exc).__name__)
            return False
        if loop.time() + pause + ANSWER_READ_MIN > give_up or is_stopping(query.get_bot()):
            break  # (a stop waits for the handlers: it must not wait for these retries)
        await asyncio.sleep(pause)
    log.warning("a press got no answer (tried %d time(s))", attempt + 1)
    return False


async def on_button(update: Update, context: Context) -> None:
    """Every inline button; every query is answered once, refusals as a short pop-up."""
    query = update.callback_query
    if query is None:
        return
    try:
        outcome, lang, chat_id = await _press(update, query, context)
        said = await _worded(context, outcome, lang, chat_id)
    except Exception:
        # nothing was committed: every commit returns an outcome, and what follows a commit
        # (its wording) cannot raise here
        log.exception("press failed (chat %s, button %s)",
                      update.effective_chat.id if update.effective_chat else None,
                      callback_tag(query.data))
        metrics.pressed(False, "internal_error")
        await answer(query, i18n.t(await _lang_or_en(update, context), "internal_error"))
        return
    metrics.pressed(outcome.committed, outcomes.refusal(outcome))
    if chat_id is not None:
        said = await _shown_here(context, query, outcome, said, chat_id)
    await answer(query, said.text, said.alert)
    svc = services(context)
    user = update.effective_user
    here = pressed_here(query)
    try:
        if said.prompt is not None and chat_id is not None and user is not None:
            text, placeholder = said.prompt
            shown = await svc.ephemeral.send(chat_id, user.id, lang, text) \
                if said.prompt_here and svc.ephemeral is not None and _room(context, chat_id) \
                else None
            if shown is not None:  # to him alone: he writes the amount in the group
                await svc.presses.ask_shown(chat_id, user.id, shown)
                return
            # pressed on his prompt in his private chat: asked there, outside the group
            where = (query.message.chat.id if said.prompt_private and query.message
                     else chat_id)
            await context.bot.send_message(
                where, text, parse_mode=ParseMode.HTML, reply_markup=ForceReply(
                    selective=True, input_field_placeholder=placeholder or None))
        if said.keyboard is not None and here is not None and svc.ephemeral is not None \
                and chat_id is not None and user is not None:
            await svc.ephemeral.edit(chat_id, user.id, here, None, said.keyboard)
        elif said.keyboard is not None and query.message is not None:
            await query.edit_message_reply_markup(said.keyboard.markup())
        if said.dm is not None and chat_id is not None:
            await svc.presses.send_pick(chat_id, *said.dm)
    except TelegramError as exc:
        log.warning("after a press: %s", type(exc).__name__)


def pressed_here(query: CallbackQuery) -> int | None:
    """The ephemeral message id of the message pressed, when it is one the presser alone
    sees in a group (Bot API 10.2; its ``message_id`` is 0); None for any other."""
    message = query.message
    if message is None or message.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return None
    number = message.api_kwargs.get("ephemeral_message_id")
    return number if isinstance(number, int) and number > 0 else None


def _room(context: Context, chat_id: int) -> bool:
    """Whether a view for one player goes in the group now without waiting: always where
    those are outside the group's budget, else while its window has room (a press's answer
    must not wait for the minute to pass; the pop-up and the private chat remain)."""
    return not services(context).ephemeral_counted or group_room(context, chat_id) >= 1


async def _shown_here(context: Context, query: CallbackQuery, outcome: Outcome, said: Answer,
                      chat_id: int) -> Answer:
    """Where the press shows the presser something private (*My cards*, a choice among his
    cards opened from the group), it goes to him alone in the group, and the pop-up only
    says so (a *My cards* pop-up still holds his cards: Telegram may not deliver the view).
    The answer as it stands where that is off, or did not go."""
    svc = services(context)
    eph, user = svc.ephemeral, query.from_user
    # (both come only from a group's message: a private chat's turns into the selection)
    if eph is None or pressed_here(query) is not None or not _room(context, chat_id):
        return said
    if isinstance(outcome, Cards) and outcome.view is not None:
        async def send(lang: str, text: str, keyboard: Keyboard | None) -> int | None:
            return await eph.send(chat_id, user.id, lang, text, keyboard, query.id)

        if await svc.presses.show_private(chat_id, user.id, send):
            return dataclasses.replace(said, alert=False)
        return said
    if isinstance(outcome, PickInPrivate) and said.dm is not None:
        _, text, keyboard = said.dm
        lang = await svc.presses.lang_of(chat_id, user.id, user.language_code)
        number = await eph.send(chat_id, user.id, lang, text, keyboard, query.id)
        if number is None:
            return said
        await svc.presses.ephemeral_shown(chat_id, user.id, number, outcome.selection.decision)
        return Answer(i18n.t(lang, "see_below"))
    return said


async def _worded(context: Context, outcome: Outcome, lang: str, chat_id: int | None
                  ) -> Answer:
    """A press's outcome in the presser's ``lang``; an amount asked in the group is prompted
    in the group's language."""
    group = lang
    if isinstance(outcome, AmountAsked) and not outcome.private and chat_id is not None:
        group = await services(context).languages.of(chat_id)
    return answers.answer(outcome, lang, group)


async def _lang_or_en(update: Update, context: Context) -> str:
    chat = update.effective_chat
    try:
        return await services(context).languages.of(chat.id) if chat is not None else "en"
    except Exception:  # the storage itself may be what failed
        return "en"


async def _press(update: Update, query: CallbackQuery, context: Context
                 ) -> tuple[Outcome, str, int | None]:
    """What a press does: the outcome to answer with, the presser's language to word it in
    (a pop-up is his own), and the table's chat."""
    svc = services(context)
    user = query.from_user
    message = query.message
    chat_id = message.chat.id if message is not None else None
    lang = (await svc.presses.lang_of(chat_id, user.id, user.language_code)
            if chat_id is not None else i18n.lang_of(user.language_code))
    try:
        button = decode(clean(query.data))
    except Malformed:
        return Refused(HostReason.FORGED), lang, None
    if isinstance(button, ActionButton):
        private = message is not None and message.chat.type == ChatType.PRIVATE
        # a keyboard shown to him alone in the group is his own, as a private one is
        here = pressed_here(query) is not None
        if private:
            # a private keyboard (card selection, a private decision): it acts on the table
            # it names, and is answered in his language there; the host checks the presser
            # may act there exactly as in the group
            chat_id = button.chat_id
            lang = await svc.presses.lang_of(chat_id, user.id, user.language_code)
        if chat_id is None:
            return Refused(HostReason.FORGED), lang, None
        name = clean(user.full_name)
        return await svc.presses.press(chat_id, user.id, name, button, private or here,
                                       key=query.id, language=user.language_code,
                                       here=here), lang, chat_id
    if chat_id is None:
        return Refused(HostReason.FORGED), lang, None
    if isinstance(button, MyCards):
        if button.chat_id != chat_id:
            return Refused(HostReason.OTHER_TABLE), lang, chat_id
        return await svc.presses.my_cards(chat_id, user.id), lang, chat_id
    if isinstance(button, NewTable):
        if message is None or message.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
            return Refused(HostReason.GROUP_ONLY), lang, chat_id
        refusal = await svc.lifecycle.open_table(chat_id, button.game, user.id, user.language_code)
        return (NotOpened(refusal) if refusal else Opened(button.game)), lang, chat_id
    assert isinstance(button, SetLanguage)
    await svc.lifecycle.set_language(chat_id, button.language)
    return LanguageSet(button.language), lang, chat_id


async def on_group_text(update: Update, context: Context) -> None:
    """A plain group message: an amount, if the sender was asked to type one."""
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or msg is None or not msg.text:
        return
    svc = services(context)
    text = clean(msg.text)
    mention = f"@{svc.lifecycle.tables.bot_username}".lower()
    mentioned = mention in text.lower()
    if mentioned:
        text = re.sub(re.escape(mention), " ", text, flags=re.IGNORECASE).strip()
    got = await svc.presses.typed_amount(
        chat.id, user.id, clean(user.full_name), text, mentioned, key=f"m{msg.message_id}")
    if got is None:
        return
    if svc.ephemeral is not None and svc.presses.asked_alone(chat.id, user.id) \
            and _room(context, chat.id):
        # asked from his view shown to him alone: answered there, in his words, as the
        # prompt was; the group's line (below) only where that did not go
        lang = await svc.presses.lang_of(chat.id, user.id, user.language_code)
        if await svc.ephemeral.send(chat.id, user.id, lang,
                                    answers.typed_answer(got, lang)) is not None:
            return
    # answered in the group's language
    await reply_amount(update, context, chat.id, user.id,
                       answers.typed_answer(got, await svc.languages.of(chat.id)))


async def on_private_text(update: Update, context: Context) -> None:
    """A message in a player's private chat: the amount he was asked there, if he was."""
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or msg is None or not msg.text:
        return
    svc = services(context)
    table_chat = await svc.presses.private_ask(user.id)
    if table_chat is None:
        return
    got = await svc.presses.typed_amount(
        table_chat, user.id, clean(user.full_name), clean(msg.text),
        key=f"p{user.id}.{msg.message_id}", private=True, language=user.language_code)
    if got is not None:  # answered in his own language
        lang = await svc.presses.lang_of(table_chat, user.id, user.language_code)
        await reply_amount(update, context, table_chat, user.id, answers.typed_answer(got, lang))


async def reply_amount(update: Update, context: Context, table_chat: int,
                       user_id: int, text: str) -> None:
    """What a typed amount that was not taken got. While he is still asked, the reply stays
    open for the next try (no ✏️ press again), where the group's budget leaves room for it
    beside the reserve kept for commands; otherwise it is answered as any typed answer is
    (:func:`say`)."""
    svc = services(context)
    if svc.presses.asked(table_chat, user_id) and (
            not is_group(update)
            or group_room(context, table_chat) > svc.courier.pace.reserve):
        await reply(update, text, reply_markup=ForceReply(selective=True))
        return
    await say(update, context, text, keep_reserve=True)


async def on_my_chat_member(update: Update, context: Context) -> None:
    """The bot was added to a group (greet it, resume its table) or removed (pause it)."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    svc = services(context)
    was = change.old_chat_member.status
    now = change.new_chat_member.status
    out = (ChatMember.LEFT, ChatMember.BANNED)
    chat_id = change.chat.id
    if now in out and was not in out:
        await svc.lifecycle.group_lost(chat_id)
        return
    if was in out and now in (ChatMember.MEMBER, ChatMember.ADMINISTRATOR):
        svc.courier.regained(chat_id)
        lang = await svc.languages.of(chat_id, change.from_user.language_code)
        try:
            await context.bot.send_message(chat_id, i18n.t(lang, "welcome_group"),
                                           parse_mode=ParseMode.HTML)
        except TelegramError as exc:
            log.warning("greeting in chat %s failed: %s", chat_id, type(exc).__name__)
        await svc.lifecycle.group_back(chat_id)


def callback_tag(data: str | None) -> str:
    """The type of a pressed button (``a``, ``m``, ``n``, ``l``) for logs: never its arguments."""
    tag = (data or "").split("|", 1)[0]
    return tag if tag in ("a", "m", "n", "l") else "?"


async def on_error(update: object, context: Context) -> None:
    """Log the error with its traceback, never the update itself (it may hold cards). Button
    presses answer their own failures (:func:`on_button`), so none is answered twice."""
    if not isinstance(update, Update):
        log.error("error outside an update", exc_info=context.error)
        return
    chat = update.effective_chat
    user = update.effective_user
    log.error("error while handling update %s (chat %s, user %s)", update.update_id,
              chat.id if chat else None, user.id if user else None, exc_info=context.error)

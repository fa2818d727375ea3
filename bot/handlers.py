"""Thin handlers: turn an update into "player X does Y at the table of chat Z" for the host."""

from __future__ import annotations

import logging
from typing import Any

from telegram import (
    ChatMember,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import i18n, render
from bot.callbacks import ActionButton, Malformed, MyCards, NewTable, SetLanguage, decode, encode
from bot.host import Host, parse_setting
from bot.rulebook import chunks, rules_text
from games import registry

log = logging.getLogger(__name__)


def host_of(context: ContextTypes.DEFAULT_TYPE) -> Host:
    """The application's table host (created in post_init)."""
    host: Host = context.application.bot_data["host"]
    return host


def is_group(update: Update) -> bool:
    """True in groups and supergroups."""
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """The sender is an administrator or the creator of the chat (getChatMember)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


async def reply(update: Update, text: str, **kwargs: Any) -> None:
    """Answer in the chat the update came from."""
    msg = update.effective_message
    if msg is not None and text:
        await msg.reply_text(text, **kwargs)


async def chat_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> str:
    """The language to answer in: the chat's, from the sender's language_code at first."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return "en"
    return await host_of(context).language(chat.id, user.language_code if user else None)


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start: in private, enables DMs (and shows cards for a deep-linked table)."""
    user = update.effective_user
    lang = await chat_lang(update, context)
    if is_group(update) or user is None:
        await reply(update, i18n.t(lang, "welcome_group"))
        return
    payload = context.args[0] if context.args else None
    opened = await host_of(context).dm_opened(user.id, payload)
    if opened is not None:
        await reply(update, opened[0], reply_markup=opened[1])
        return
    await reply(update, i18n.t(lang, "welcome_private" if not payload else "dm_enabled"))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: the list of commands."""
    await reply(update, i18n.t(await chat_lang(update, context), "help"))


def game_picker(lang: str) -> InlineKeyboardMarkup:
    """One button per game for /newtable."""
    rows = [[InlineKeyboardButton(i18n.game_name(lang, g), callback_data=encode(NewTable(g)))]
            for g in registry.GAMES]
    return InlineKeyboardMarkup(rows)


async def cmd_newtable(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newtable [GAME] [key=value...]: open a table, or show the game picker."""
    lang = await chat_lang(update, context)
    chat, user = update.effective_chat, update.effective_user
    if not is_group(update) or chat is None or user is None:
        await reply(update, i18n.t(lang, "group_only"))
        return
    if not context.args:
        await reply(update, i18n.t(lang, "pick_game"), reply_markup=game_picker(lang))
        return
    settings = {}
    for arg in context.args[1:]:
        key, _, value = arg.partition("=")
        if key and value:
            settings[key] = parse_setting(value)
    refusal = await host_of(context).open_table(chat.id, context.args[0].lower(), user.id,
                                                user.language_code, settings)
    if refusal:
        await reply(update, refusal)


async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/table: post the table message again at the bottom of the chat."""
    chat = update.effective_chat
    if chat is None or not await host_of(context).refresh(chat.id, repost=True):
        await reply(update, i18n.t(await chat_lang(update, context), "no_table"))


async def cmd_balance(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/balance: the sender's chips in this chat."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    w = await host_of(context).balance(chat.id, user.id, user.full_name)
    await reply(update, i18n.t(lang, "balance", name=user.full_name, balance=w.balance,
                               on_table=w.on_table))


async def cmd_bonus(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/bonus: the daily bonus."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    amount = context.application.bot_data["settings"].daily_bonus
    await reply(update, await host_of(context).bonus(chat.id, user.id, user.full_name, amount))


async def cmd_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/top: the richest players of the chat."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    rows = await host_of(context).storage.leaderboard(chat_id=chat.id, limit=10)
    if not rows:
        await reply(update, i18n.t(lang, "top_empty"))
        return
    lines = [i18n.t(lang, "top_title")]
    lines += [i18n.t(lang, "top_line", rank=i + 1, name=w.name or str(w.user_id),
                     total=w.balance + w.on_table) for i, w in enumerate(rows)]
    await reply(update, "\n".join(lines))


async def cmd_history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/history: the sender's latest results in this chat."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    entries = await host_of(context).storage.recent_coups(chat_id=chat.id, user_id=user.id,
                                                         limit=200)
    lines = render.history_lines(lang, entries)
    if not lines:
        await reply(update, i18n.t(lang, "history_empty", name=user.full_name))
        return
    await reply(update, "\n".join([i18n.t(lang, "history_title", name=user.full_name), *lines]))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/rules GAME: the rules text in the chat's language."""
    lang = await chat_lang(update, context)
    games = ", ".join(registry.GAMES)
    if not context.args or context.args[0].lower() not in registry.GAMES:
        await reply(update, i18n.t(lang, "rules_usage", games=games))
        return
    game = context.args[0].lower()
    text = rules_text(game, lang)
    if text is None:
        await reply(update, i18n.t(lang, "rules_missing", game=i18n.game_name(lang, game)))
        return
    for part in chunks(text):
        await reply(update, part)


async def cmd_verify(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/verify: the shoe commitment and how to check a revealed shoe."""
    chat = update.effective_chat
    if chat is not None:
        await reply(update, await host_of(context).verify(chat.id))


async def cmd_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/language [ru|en]: the chat's language."""
    chat = update.effective_chat
    if chat is None:
        return
    lang = await chat_lang(update, context)
    if context.args and context.args[0].lower() in i18n.LANGUAGES:
        new = context.args[0].lower()
        await host_of(context).set_language(chat.id, new)
        await reply(update, i18n.t(new, "language_set"))
        return
    markup = InlineKeyboardMarkup([[
        InlineKeyboardButton("English", callback_data=encode(SetLanguage("en"))),
        InlineKeyboardButton("Русский", callback_data=encode(SetLanguage("ru"))),
    ]])
    await reply(update, i18n.t(lang, "language_pick"), reply_markup=markup)


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings [KEY VALUE]: admins only."""
    chat = update.effective_chat
    lang = await chat_lang(update, context)
    if chat is None or not is_group(update) or not await is_admin(update, context):
        await reply(update, i18n.t(lang, "admins_only"))
        return
    args = context.args or []
    key = args[0] if len(args) >= 2 else None
    value = args[1] if len(args) >= 2 else None
    await reply(update, await host_of(context).settings(chat.id, key, value))


async def cmd_closetable(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/closetable: admins only; every chip back to the wallets."""
    chat = update.effective_chat
    lang = await chat_lang(update, context)
    if chat is None or not is_group(update) or not await is_admin(update, context):
        await reply(update, i18n.t(lang, "admins_only"))
        return
    await reply(update, await host_of(context).close_table(chat.id))


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every inline button; every query is answered, refusals as a short pop-up."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    message = query.message
    chat_id = message.chat.id if message is not None else None
    host = host_of(context)
    lang = await host.language(chat_id) if chat_id is not None else "en"
    try:
        button = decode(query.data)
    except Malformed:
        await query.answer(i18n.t(lang, "forged"))
        return
    if chat_id is None:
        await query.answer(i18n.t(lang, "forged"))
        return
    if isinstance(button, ActionButton):
        private = message is not None and message.chat.type == ChatType.PRIVATE
        if private:
            # a private keyboard (card selection, a private decision): it acts on the table
            # it names; the host checks the presser may act there exactly as in the group
            chat_id = button.chat_id
        outcome = await host.press(chat_id, user.id, user.full_name, button, private)
        await query.answer(outcome.text, show_alert=outcome.alert)
        if outcome.keyboard is not None and message is not None:
            await query.edit_message_reply_markup(outcome.keyboard)
    elif isinstance(button, MyCards):
        if button.chat_id != chat_id:
            await query.answer(i18n.t(lang, "other_table"))
            return
        await query.answer(await host.my_cards(chat_id, user.id), show_alert=True)
    elif isinstance(button, NewTable):
        if message is None or message.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
            await query.answer(i18n.t(lang, "group_only"))
            return
        refusal = await host.open_table(chat_id, button.game, user.id, user.language_code)
        await query.answer(refusal or i18n.game_name(lang, button.game), show_alert=bool(refusal))
    else:
        await host.set_language(chat_id, button.language)
        await query.answer(i18n.t(button.language, "language_set"))


async def on_group_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A plain group message: an amount, if the sender was asked to type one."""
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or msg is None or not msg.text:
        return
    answer = await host_of(context).typed_amount(chat.id, user.id, user.full_name, msg.text)
    if answer:
        await reply(update, answer)


async def on_my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was added to a group: greet it in the adder's language."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    was = change.old_chat_member.status
    now = change.new_chat_member.status
    if was in (ChatMember.LEFT, ChatMember.BANNED) and now in (ChatMember.MEMBER,
                                                               ChatMember.ADMINISTRATOR):
        host = host_of(context)
        lang = await host.language(change.chat.id, change.from_user.language_code)
        await context.bot.send_message(change.chat.id, i18n.t(lang, "welcome_group"))


def callback_tag(data: str | None) -> str:
    """The type of a pressed button (``a``, ``m``, ``n``, ``l``) for logs: never its arguments."""
    tag = (data or "").split("|", 1)[0]
    return tag if tag in ("a", "m", "n", "l") else "?"


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the error with its traceback, never the update itself (it may hold cards); a press
    that failed still gets its answer, so the presser is not left with a spinning button."""
    if not isinstance(update, Update):
        log.error("error outside an update", exc_info=context.error)
        return
    chat = update.effective_chat
    user = update.effective_user
    query = update.callback_query
    log.error("error while handling update %s (chat %s, user %s, button %s)",
              update.update_id, chat.id if chat else None, user.id if user else None,
              callback_tag(query.data) if query else "-", exc_info=context.error)
    if query is None:
        return
    lang = "en"
    try:
        if chat is not None:
            lang = await host_of(context).language(chat.id)
    except Exception:  # the storage itself may be what failed
        log.warning("no language for chat %s; answering in English",
                    chat.id if chat else None)
    try:
        await query.answer(i18n.t(lang, "internal_error"))
    except TelegramError as exc:
        # already answered before the failure, or Telegram is down: nothing more to do
        log.warning("could not answer a failed press: %s", type(exc).__name__)

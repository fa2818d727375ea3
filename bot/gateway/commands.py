"""The /commands: each turns a command into "player X asks Y of the table of chat Z", and
answers in words (:func:`bot.gateway.context.say`: never held for a minute by the group's
budget). Arguments are untrusted and cleaned before use.
"""

from __future__ import annotations

import datetime as dt
import logging

from telegram import ChatMember, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from bot.gateway.context import Context, Services, clean, is_group, reply, say, services
from bot.outbox.kinds import GROUP
from bot.table.table_settings import parse_setting
from bot.view import answers, applink, i18n, keyboards, wallets
from bot.view.codec import NewTable, SetLanguage, encode
from bot.view.rulebook import chunks, game_of, rules_text, to_html
from games import registry
from storage.base import BonusAlreadyClaimed

log = logging.getLogger(__name__)

def args(context: Context) -> list[str]:
    """The command's arguments, cleaned."""
    return [clean(a) for a in context.args or []]


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
    await reply(update, i18n.t(lang, "welcome_private" if not payload else "dm_enabled"),
                reply_markup=profile_markup(context, lang))


def profile_markup(context: Context, lang: str) -> InlineKeyboardMarkup | None:
    """A private chat's *My profile* button (the app's profile page), when the Mini App is
    configured; None otherwise. Never for a group: Telegram refuses a ``web_app`` button
    there."""
    settings = context.bot_data.settings
    if settings is None or not settings.webapp_on:
        return None
    return keyboards.profile_keyboard(lang, applink.page_url(settings.webapp_url,
                                                             "profile")).markup()


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
        await reply(update, wallets.balances_text(
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
        await reply(update, wallets.histories_text(lang, clean(user.full_name), [
            (w, wallets.history_lines(lang, await storage.recent_coups(
                chat_id=w.wallet.chat_id, user_id=user.id, limit=200))) for w in held]))
        return
    entries = await storage.recent_coups(chat_id=chat.id, user_id=user.id, limit=200)
    lines = wallets.history_lines(lang, entries)
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

"""The all-chats board: /top global (:meth:`storage.base.Storage.board`, worded by
:mod:`bot.view.board`) and /privacy, a player's choice whether his name shows there, by
text or by the two buttons of its picker. A picker's buttons name the player who asked for
it: anyone else's press, and any data no picker of ours holds, changes nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import TelegramError

from bot.gateway.buttons import answer
from bot.gateway.commands import args, chat_lang, recorded
from bot.gateway.context import Context, clean, reply, say, services
from bot.gateway.standings import cmd_top as cmd_top_here
from bot.gateway.standings import top_args
from bot.view import board, i18n, standings
from bot.view.codec import Malformed, decode_privacy

log = logging.getLogger(__name__)

CHOICES = {"public": True, "hidden": False}
"""/privacy's words."""


async def top_global(update: Update, context: Context, words: Sequence[str]) -> None:
    """/top global [today|week|month|all] [game]: the players of every listed chat by net
    chips won in play over the period, with as many coups as /top asks; in a group or in
    private alike."""
    lang = await chat_lang(update, context)
    asked = top_args(words)
    if asked is None or asked[0] not in standings.PERIODS:
        await say(update, context, i18n.t(lang, "board_usage"))
        return
    period, game = asked
    since, until = standings.period_days(period, dt.datetime.now(dt.UTC).date())
    lines = await services(context).storage.board(game=game, since=since, until=until,
                                                  min_coups=standings.MIN_COUPS, limit=10)
    await say(update, context, board.board_text(lang, lines, period=period, game=game))


async def cmd_privacy(update: Update, context: Context) -> None:
    """/privacy: whether the sender's name shows on the all-chats board, with the buttons
    that change it; /privacy public|hidden changes it."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await chat_lang(update, context)
    storage = services(context).storage
    given = [w.lower() for w in args(context)]
    if given:
        if len(given) > 1 or given[0] not in CHOICES:
            await say(update, context, i18n.t(lang, "privacy_usage"))
            return
        await storage.set_player_public(user_id=user.id, public=CHOICES[given[0]])
        await say(update, context, i18n.t(
            lang, "privacy_now_public" if CHOICES[given[0]] else "privacy_now_hidden"))
        return
    public = await storage.player_public(user_id=user.id)
    sent = await reply(update, board.privacy_text(lang, clean(user.full_name), public),
                       reply_markup=board.privacy_keyboard(lang, user.id).markup())
    await recorded(context, chat.id, sent)


async def on_privacy_press(update: Update, context: Context) -> None:
    """A press on a /privacy button: the presser's own picker's sets his choice (a pop-up
    says it, the picker shows it); another's, or forged data, is refused by a pop-up."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    svc = services(context)
    message = query.message
    lang = (await svc.presses.lang_of(message.chat.id, user.id, user.language_code)
            if message is not None else i18n.lang_of(user.language_code))
    try:
        button = decode_privacy(clean(query.data))
    except Malformed:
        await answer(query, i18n.t(lang, "forged"), alert=True)
        return
    if button.user_id != user.id:
        await answer(query, i18n.t(lang, "privacy_not_yours"), alert=True)
        return
    await svc.storage.set_player_public(user_id=user.id, public=button.public)
    await answer(query, i18n.t(
        lang, "privacy_now_public" if button.public else "privacy_now_hidden"))
    if message is None:
        return
    shown = await svc.languages.of(message.chat.id)  # the picker stays in its chat's words
    try:
        await query.edit_message_text(
            board.privacy_text(shown, clean(user.full_name), button.public),
            parse_mode=ParseMode.HTML,
            reply_markup=board.privacy_keyboard(shown, user.id).markup())
    except TelegramError as exc:  # unchanged (pressed twice), or gone: the pop-up said it
        log.info("privacy picker not edited: %s", type(exc).__name__)


async def cmd_top(update: Update, context: Context) -> None:
    """/top global ...: the all-chats board (:func:`top_global`), anywhere; any other /top:
    the chat's (:func:`bot.gateway.standings.cmd_top`)."""
    words = args(context)
    if words and words[0].lower() == board.WORD:
        await top_global(update, context, words[1:])
        return
    await cmd_top_here(update, context)

"""Everything but the /commands: button presses, typed amounts, the bot's membership of a
group, the titles of groups, and errors.

Whatever arrives is untrusted: names, texts and button data are cleaned of broken Unicode
(lone UTF-16 surrogates) before use, and a chat that refuses the bot (kicked, blocked)
never makes a handler raise. Every button press is answered at most once, with the truth:
a press whose step committed is answered as done even if something failed afterwards, and
an answer whose fate is unknown is not repeated.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re

from telegram import CallbackQuery, ChatMember, ChatMemberUpdated, ForceReply, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

from bot.gateway.context import Context, clean, group_room, is_group, reply, say, services
from bot.ops import metrics
from bot.outbox.ratelimit import is_stopping, retry_seconds
from bot.view import answers, i18n, outcomes
from bot.view.answers import Answer
from bot.view.codec import ActionButton, Malformed, MyCards, NewTable, SetLanguage, decode
from bot.view.keyboards import Keyboard
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


async def answer(query: CallbackQuery, text: str, alert: bool = False) -> bool:
    """Answer a press, within the query's lifetime (Telegram takes an answer for about 15 s).

    An answer whose fate is unknown (a 5xx, a network error, a timeout: it may or may not
    have arrived) is sent again after a short pause, until :data:`ANSWER_WITHIN` seconds
    from the first try: a second answer to an answered query is refused with a harmless
    400, and without it the player would see a spinner and no pop-up. A 429 waits as it
    asks; a 400 (the query too old, or already answered) ends it."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + ANSWER_WITHIN
    bot = query.get_bot()
    # the raw call (answerCallbackQuery's result is a bare true: nothing to build from it)
    params = {"callback_query_id": query.id, "text": i18n.plain(clean(text))[:200],
              "show_alert": alert}
    for attempt in range(ANSWER_ATTEMPTS):
        left = give_up - loop.time()
        try:
            await bot.do_api_request("answerCallbackQuery", params,
                                     read_timeout=min(ANSWER_READ, left))
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
        if loop.time() + pause + ANSWER_READ_MIN > give_up or is_stopping(bot):
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
    mention = f"@{svc.bot_username}".lower()
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
            or group_room(context, table_chat) > svc.reserve):
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

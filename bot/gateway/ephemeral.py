"""Messages in a group that one member alone sees: Bot API 10.2's ephemeral messages.

A player's private view (his turn as his private prompt shows it: the table from his seat,
his cards, his decision; the amount he is asked) can be shown in the group to him alone,
without a private chat: ``sendMessage`` with ``receiver_user_id``. python-telegram-bot 22.8
predates it, so the calls go through its raw request path
(:meth:`telegram.Bot.do_api_request`, under the bot's rate limiter, which counts them in the
group's budget unless EPHEMERAL_IN_GROUP_BUDGET says otherwise).

What Telegram answers is checked: an ephemeral message has ``message_id`` 0, an
``ephemeral_message_id`` and its ``receiver_user``. A Bot API server that does not know the
parameter would post the message for the whole group, so the first message of a process is
a probe that holds nothing private, turned into the view only once its answer shows it is
seen by its receiver alone. Any answer that is not is deleted and ends the use of
ephemeral messages for the process: the durable channels (the private chat, the pop-up,
the deep link) remain, as they do for a message Telegram takes and never delivers.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Bot
from telegram.error import TelegramError

from bot.ops import metrics
from bot.outbox.telegram import HTML, BotApi
from bot.view import i18n
from bot.view.keyboards import Keyboard

log = logging.getLogger(__name__)


class Ephemeral:
    """Sends and edits the messages one member of a group sees (while they work here)."""

    def __init__(self, bot: Bot, enabled: bool = True) -> None:
        self.api = BotApi(bot)
        self.enabled = enabled
        """False once an answer showed a message seen by everyone (or by setting)."""
        self.verified = False
        """Whether an answer of this Bot API server showed a message its receiver alone sees."""
        self.probing = asyncio.Lock()

    async def send(self, chat_id: int, user_id: int, lang: str, text: str,
                   keyboard: Keyboard | None = None, query_id: str | None = None) -> int | None:
        """Show ``text`` (Telegram HTML) with ``keyboard`` in the group to ``user_id`` alone,
        for his press ``query_id``; its ephemeral message id, or None when it was not sent
        (off, refused, or not seen by him alone). A keyboard loses its ``web_app`` buttons
        here (:meth:`Keyboard.in_group`), as it does in :meth:`edit`."""
        if not self.enabled:
            return None
        markup = keyboard.in_group().as_json() if keyboard is not None else None
        if self.verified:
            return await self._send(chat_id, user_id, text, markup, query_id)
        async with self.probing:
            if self.verified:
                return await self._send(chat_id, user_id, text, markup, query_id)
            probe = await self._send(chat_id, user_id, i18n.t(lang, "only_you"), None, query_id)
            if probe is None:
                return None
            return probe if await self.edit(chat_id, user_id, probe, text, keyboard) else None

    async def edit(self, chat_id: int, user_id: int, message_id: int, text: str | None,
                   keyboard: Keyboard | None = None) -> bool:
        """Edit the ephemeral message ``message_id`` of ``user_id``: its text and keyboard,
        or (``text`` None) its keyboard alone. Whether Telegram took it."""
        ids: dict[str, Any] = {"chat_id": chat_id, "receiver_user_id": user_id,
                               "ephemeral_message_id": message_id}
        markup = keyboard.in_group().as_json() if keyboard is not None else None
        try:
            if text is None:
                await self.api.call("editEphemeralMessageReplyMarkup", **ids, reply_markup=markup)
            else:
                await self.api.call("editEphemeralMessageText", **ids, text=text,
                                    parse_mode=HTML, reply_markup=markup)
        except TelegramError as exc:
            log.warning("a view in chat %s not edited: %s", chat_id, type(exc).__name__)
            return False
        metrics.sent(metrics.EPHEMERAL)
        return True

    async def _send(self, chat_id: int, user_id: int, text: str, markup: str | None,
                    query_id: str | None) -> int | None:
        try:
            sent = await self.api.call("sendMessage", chat_id=chat_id, receiver_user_id=user_id,
                                       callback_query_id=query_id, text=text, parse_mode=HTML,
                                       reply_markup=markup)
        except TelegramError as exc:
            log.warning("a view in chat %s not sent: %s", chat_id, type(exc).__name__)
            return None
        if not isinstance(sent, dict):
            return None
        receiver = sent.get("receiver_user")
        number = sent.get("ephemeral_message_id")
        if (sent.get("message_id") == 0 and isinstance(number, int) and number > 0
                and isinstance(receiver, dict) and receiver.get("id") == user_id):
            self.verified = True
            metrics.sent(metrics.EPHEMERAL)
            return number
        # seen by the whole group: gone at once, and no more of them from this process
        self.enabled = False
        log.error("the Bot API server posted a message meant for one member to the whole "
                  "group: ephemeral messages are off until the bot restarts")
        message_id = sent.get("message_id")
        if isinstance(message_id, int) and message_id:
            try:
                await self.api.call("deleteMessage", chat_id=chat_id, message_id=message_id)
            except TelegramError as exc:
                log.error("that message could not be deleted: %s", type(exc).__name__)
        return None

"""Telegram for the courier: a Bot API call, made again until Telegram answers it.

The courier's sends, edits and posts all go through :meth:`BotApi.request`: a 429 is waited
out, a call left without an answer is made again after a growing backoff (it may have gone
through), and a refusal is told by its kind: :class:`Lost` (the group refuses the bot),
:class:`Blocked` (a player does), :class:`Refused` (Telegram refuses the call itself).
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from typing import Any

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.warnings import PTBUserWarning

from bot.outbox.ratelimit import retry_seconds

log = logging.getLogger(__name__)

# BotApi.call goes through Bot.do_api_request on purpose (no Message built from an answer):
# PTB's "Please use 'Bot.x' instead" is not for us. Filtered once here, not around each call
# (warnings.catch_warnings around an await is neither cheap nor safe with concurrent calls).
warnings.filterwarnings("ignore", message=r"Please use 'Bot\.", category=PTBUserWarning)

MAX_BACKOFF = 20.0
HTML = "HTML"
"""Every text the bot drafts is Telegram HTML (values escaped, see :mod:`bot.view.i18n`)."""


class Lost(Exception):
    """The group refuses the bot (kicked, blocked): its items wait for it to come back."""


class Blocked(Exception):
    """A player does not accept the bot's messages (a 403 in a private chat)."""


class Refused(Exception):
    """Telegram refused the call itself (a 400): making it again changes nothing."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def says(self, *phrases: str) -> bool:
        """Whether Telegram's reason holds one of these (lowercase) phrases."""
        return any(phrase in self.message.lower() for phrase in phrases)


class Unanswered(Exception):
    """A call made once got no answer (a network error, a timeout, a 5xx): it may have
    gone through or not."""


class BotApi:
    """The Bot API calls of the courier, on PTB's bot (its rate limiter and transport)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def call(self, method: str, **params: Any) -> Any:
        """A Bot API call whose answer is read as plain JSON: the courier needs at most the
        message id, and building a full Message object from every answer costs more than
        the rest of the call. None values are left out (no keyboard: the keyboard goes);
        a keyboard comes as the JSON string the Bot API takes."""
        return await self.bot.do_api_request(
            method, api_kwargs={k: v for k, v in params.items() if v is not None})

    async def request(self, method: str, *, private: bool = False, once: bool = False,
                       uncertain: list[bool] | None = None, **params: Any) -> Any:
        """Make a Bot API call in ``params["chat_id"]`` until Telegram answers it; its answer.

        A 429 is waited out and the call made again (it did nothing). A call left without an
        answer (a network error, a timeout, a 5xx) may have gone through: it is made again
        after a backoff growing to :data:`MAX_BACKOFF`, and noted in ``uncertain``; with
        ``once`` it is not made again but raises :class:`Unanswered`. A refusal raises: a
        403 :class:`Lost` in a group and :class:`Blocked` in a ``private`` chat, a 400
        :class:`Refused`; a group that became a supergroup (its id is no more) is
        :class:`Lost` too."""
        chat_id = params["chat_id"]
        delay = 0.5
        while True:
            try:
                return await self.call(method, **params)
            except RetryAfter as exc:
                await asyncio.sleep(retry_seconds(exc) + 0.1)
            except Forbidden as exc:
                if private:
                    raise Blocked from exc
                log.warning("chat %s refuses the bot: %s", chat_id, exc.message)
                raise Lost from exc
            except BadRequest as exc:
                raise Refused(exc.message) from exc
            except ChatMigrated as exc:
                log.warning("chat %s moved to %s", chat_id, exc.new_chat_id)
                raise Lost from exc
            except TelegramError as exc:
                log.warning("%s in chat %s failed: %s", method, chat_id, type(exc).__name__)
                if once:
                    raise Unanswered from exc
                if uncertain is not None:
                    uncertain.append(True)
                await asyncio.sleep(delay)
                delay = min(MAX_BACKOFF, delay * 2)


def markup_param(data: Any) -> str | None:
    """An outbox item's keyboard (JSON) as the ``reply_markup`` parameter."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) if data else None

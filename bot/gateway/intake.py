"""Reading updates: one unreadable update never holds up the others.

python-telegram-bot parses a getUpdates batch as a whole: one update it cannot
read (a field missing or of the wrong type) fails the batch, and polling asks
for the same batch again forever. :class:`ScreeningBot` reads each update of a
batch on its own first; one that cannot be read is replaced by a bare update
with the same id (which no handler acts on), logged by id only, so the offset
moves past it and the rest of the batch is handled normally. The same goes for an
update the library would read with a required field left empty (a message without its
chat, a press without its presser): :func:`well_formed` checks those first.

Each update is read once. The message a button press comes with is the bot's own,
text and keyboard included; the bot needs its chat and id alone (and an ephemeral message's
own id), so only those are read (a keyboard of twenty buttons cost more to read than the
rest of the update).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
from collections.abc import Sequence
from typing import Any, cast

from telegram import CallbackQuery, Chat, Message, Update
from telegram._utils.datetime import extract_tzinfo_from_defaults, from_timestamp
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.constants import ZERO_DATE
from telegram.ext import ExtBot

from bot.gateway.polling import Journal
from bot.gateway.transport import LeanBot

log = logging.getLogger(__name__)


MESSAGES = ("message", "edited_message", "channel_post", "edited_channel_post")
MEMBERS = ("my_chat_member", "chat_member")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _user(value: Any) -> bool:
    return (isinstance(value, dict) and _int(value.get("id"))
            and isinstance(value.get("first_name"), str))


def _chat(value: Any) -> bool:
    return (isinstance(value, dict) and _int(value.get("id"))
            and isinstance(value.get("type"), str))


def _message(value: Any) -> bool:
    return (isinstance(value, dict) and _int(value.get("message_id")) and _chat(value.get("chat"))
            and ("from" not in value or _user(value["from"])))


def well_formed(item: dict[str, Any]) -> bool:
    """The Bot API's required fields of the kinds of update the bot handles are there and of
    the right type (the library fills a missing one with None rather than refusing it)."""
    for key in MESSAGES:
        if key in item and not _message(item[key]):
            return False
    query = item.get("callback_query")
    if query is not None and not (
            isinstance(query, dict) and isinstance(query.get("id"), str)
            and _user(query.get("from"))
            and ("message" not in query or _message(query["message"]))
            and ("data" not in query or isinstance(query["data"], str))):
        return False
    for key in MEMBERS:
        change = item.get(key)
        if change is not None and not (
                isinstance(change, dict) and _chat(change.get("chat"))
                and _user(change.get("from"))
                and all(isinstance(change.get(k), dict) and _user(change[k].get("user"))
                        and isinstance(change[k].get("status"), str)
                        for k in ("old_chat_member", "new_chat_member"))):
            return False
    return True


# The messages presses came on, each read once: cut to its id, date and chat, a table
# message reads the same at every press of its buttons, and a Message is immutable.
_PRESSED: dict[str, Message] = {}
_PRESSED_MAX = 1024
PRESSED_KEYS = ("message_id", "date", "chat", "ephemeral_message_id")
"""What the bot reads of a pressed message: its chat and id, and (Bot API 10.2, a message
only its receiver sees, whose ``message_id`` is 0) its ``ephemeral_message_id``, which
python-telegram-bot 22.8 does not know and keeps in ``api_kwargs``."""


def _pressed_message(cut: dict[str, Any], bot: ExtBot[Any]) -> Message:
    """``Message.de_json(cut, bot)`` of a press's message cut to :data:`PRESSED_KEYS`, built
    from those fields directly: PTB's reading goes through each of a message's hundred
    fields (and, for the ephemeral id it does not know, fails once to find it out)."""
    unknown = {k: v for k, v in cut.items() if k not in ("message_id", "date", "chat")}
    date = cut["date"]  # none: unreadable, as PTB finds it (a null one reads as None)
    sent = cast(dt.datetime, ZERO_DATE if date == 0 else from_timestamp(
        date, tzinfo=extract_tzinfo_from_defaults(bot)))
    message = Message(message_id=cut["message_id"], date=sent,
                      chat=Chat.de_json(cut["chat"], bot), api_kwargs=unknown or None)
    message.set_bot(bot)
    return message


UPDATE_KEYS = frozenset(("update_id", "callback_query"))
"""A press's update holds these alone: it is built directly, not through PTB's reading of
every kind of update."""


def _read(item: dict[str, Any], bot: ExtBot[Any]) -> Update:
    """The update; a press's message cut to what the bot reads of it (id, date, chat) and
    read once per message (PTB would build its hundred fields at every press)."""
    query = item.get("callback_query")
    if not isinstance(query, dict) or not isinstance(query.get("message"), dict):
        return Update.de_json(item, bot)
    message = query["message"]
    cut = {k: message[k] for k in PRESSED_KEYS if k in message}
    key = json.dumps(cut, sort_keys=True)
    pressed_on = _PRESSED.get(key)
    if pressed_on is None or getattr(pressed_on, "_bot", None) is not bot:
        pressed_on = _pressed_message(cut, bot)
        if len(_PRESSED) >= _PRESSED_MAX:
            _PRESSED.clear()
        _PRESSED[key] = pressed_on
    read = CallbackQuery.de_json({k: v for k, v in query.items() if k != "message"}, bot)
    with read._unfrozen():
        read.message = pressed_on
    if item.keys() <= UPDATE_KEYS:
        update = Update(item["update_id"], callback_query=read)
        update.set_bot(bot)
        return update
    update = Update.de_json({k: v for k, v in item.items() if k != "callback_query"}, bot)
    with update._unfrozen():
        update.callback_query = read
    return update


def screened(raw: list[Any], bot: ExtBot[Any]) -> list[Update]:
    """The batch read update by update; an unreadable one becomes a bare update with its id
    (no handler acts on it), and an entry without an integer id, which cannot be
    acknowledged by id, is dropped."""
    out: list[Update] = []
    for item in raw:
        update_id = item.get("update_id") if isinstance(item, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            log.warning("dropped an update without an id")
            continue
        try:
            if not well_formed(item):
                raise ValueError("a required field is missing or of the wrong type")
            update = _read(item, bot)
        except Exception as exc:  # whatever cannot be read, nobody can act on
            log.warning("update %s could not be read (%s); ignored", update_id,
                        type(exc).__name__)
            update = Update(update_id)
        out.append(update)
    return out


@functools.lru_cache(maxsize=8)
def _allowed_json(types: tuple[str, ...]) -> str:
    """``allowed_updates`` as the JSON array PTB would send it (``json.dumps`` of the list)."""
    return json.dumps(list(types))


class ScreeningBot(LeanBot):
    """The bot (its raw calls lean, :class:`bot.gateway.transport.LeanBot`), with getUpdates
    batches screened and read update by update.

    ``get_updates`` is PTB's own, but for reading the batch: PTB reads it as a whole
    (:meth:`telegram.Update.de_list`), which one unreadable update fails.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = kwargs.get("get_updates_request")
        with self._unfrozen():  # a Bot is frozen once built
            # the poll's own read timeout, to which each long poll adds its duration (as PTB)
            self.poll_read_timeout: float = (request.read_timeout or 0.0) if request else 5.0
            # polling mode: where fetched updates are kept until handled (set at start)
            self.journal: Journal | None = None

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: int | float | dt.timedelta | None = None,
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update, ...]:
        """One getUpdates call (long polling), each update read on its own."""
        base = (self.poll_read_timeout if isinstance(read_timeout, DefaultValue)
                else (read_timeout or 0.0))
        poll = timeout.total_seconds() if isinstance(timeout, dt.timedelta) else (timeout or 0)
        if allowed_updates is not None and not isinstance(allowed_updates, str):
            # the JSON the parameter is sent as anyway, made once: PTB would walk the list of
            # all update types item by item on every poll
            allowed_updates = _allowed_json(tuple(allowed_updates))
        raw = await self._post(
            "getUpdates",
            {"timeout": timeout, "offset": offset, "limit": limit,
             "allowed_updates": allowed_updates},
            read_timeout=float(base) + poll, write_timeout=write_timeout,
            connect_timeout=connect_timeout, pool_timeout=pool_timeout, api_kwargs=api_kwargs)
        items = raw if isinstance(raw, list) else []
        if self.journal is not None:  # kept until handled, before PTB can take it as read
            items = await self.journal.keep(items, offset)
        updates = tuple(screened(items, self))
        for update in updates:
            self.insert_callback_data(update)
        return updates

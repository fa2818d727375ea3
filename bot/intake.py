"""Reading updates: one unreadable update never holds up the others.

python-telegram-bot parses a getUpdates batch as a whole: one update it cannot
read (a field missing or of the wrong type) fails the batch, and polling asks
for the same batch again forever. :class:`ScreeningBot` reads each update of a
batch on its own first; one that cannot be read is replaced by a bare update
with the same id (which no handler acts on), logged by id only, so the offset
moves past it and the rest of the batch is handled normally. The same goes for an
update the library would read with a required field left empty (a message without its
chat, a press without its presser): :func:`well_formed` checks those first.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Update
from telegram.ext import ExtBot

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


def screened(raw: list[Any], bot: ExtBot[Any]) -> list[Any]:
    """The batch with every unreadable update replaced by a bare one (same id); an entry
    without an integer id cannot be acknowledged by id and is dropped."""
    out: list[Any] = []
    for item in raw:
        update_id = item.get("update_id") if isinstance(item, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            log.warning("dropped an update without an id")
            continue
        try:
            if not well_formed(item):
                raise ValueError("a required field is missing or of the wrong type")
            Update.de_json(item, bot)
        except Exception as exc:  # whatever cannot be read, nobody can act on
            log.warning("update %s could not be read (%s); ignored", update_id,
                        type(exc).__name__)
            item = {"update_id": update_id}
        out.append(item)
    return out


class ScreeningBot(ExtBot[Any]):
    """The bot, with getUpdates batches screened update by update."""

    async def _post(self, endpoint: str, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        result = await super()._post(endpoint, data, *args, **kwargs)
        if endpoint == "getUpdates" and isinstance(result, list):
            return screened(result, self)
        return result

"""Reading updates: one unreadable update never holds up the others.

python-telegram-bot parses a getUpdates batch as a whole: one update it cannot
read (a field missing or of the wrong type) fails the batch, and polling asks
for the same batch again forever. :class:`ScreeningBot` reads each update of a
batch on its own first; one that cannot be read is replaced by a bare update
with the same id (which no handler acts on), logged by id only, so the offset
moves past it and the rest of the batch is handled normally.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Update
from telegram.ext import ExtBot

log = logging.getLogger(__name__)


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
            Update.de_json(item, bot)
        except Exception as exc:  # whatever the library cannot read, nobody can act on
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

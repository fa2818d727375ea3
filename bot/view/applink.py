"""The links that open a table's Mini App, and the table a link names.

From a group, Telegram opens a Mini App only through a URL button to a direct link,
``https://t.me/<bot>/<app>?startapp=<param>``; the page then receives ``param`` as
``start_param`` in its signed ``initData``. Anyone can craft such a link, so the param
only says which table's link was opened: ``<chat id>_<tag>``, the tag an HMAC of the chat
id under a key only the bot has (:func:`link_key`), so that a table's link cannot be
guessed from another's. Who may see what is decided by the seats and the group's
membership (:mod:`bot.gateway.webapp.auth`), never by the param.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

TAG_BYTES = 12
"""96 bits: 16 characters of base64url."""

_PARAM = re.compile(r"^(-?\d{1,16})_([A-Za-z0-9_-]{16})$")


def link_key(bot_token: str) -> bytes:
    """The key of the tables' link tags, derived from the bot's token (never the token)."""
    return hmac.new(b"banco-table-link", bot_token.encode(), hashlib.sha256).digest()


def _tag(key: bytes, chat_id: int) -> str:
    digest = hmac.new(key, str(chat_id).encode(), hashlib.sha256).digest()[:TAG_BYTES]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def start_param(key: bytes, chat_id: int) -> str:
    """The ``startapp`` param of a table's link: ``-1001234_<tag>`` (only ``A-Z a-z 0-9 _ -``,
    as Telegram allows)."""
    return f"{chat_id}_{_tag(key, chat_id)}"


def chat_of(key: bytes, param: str | None) -> int | None:
    """The chat a ``start_param`` names, or None when it is not one of our links (a crafted
    or mangled param)."""
    m = _PARAM.match(param or "")
    if m is None:
        return None
    chat_id = int(m.group(1))
    return chat_id if hmac.compare_digest(m.group(2), _tag(key, chat_id)) else None


def open_url(bot_username: str, short_name: str, param: str) -> str:
    """The direct link a group's URL button opens the table with."""
    return f"https://t.me/{bot_username}/{short_name}?startapp={param}"

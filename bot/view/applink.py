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
from dataclasses import dataclass, field

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


def web_app_url(webapp_url: str, param: str) -> str:
    """The page a private chat's ``web_app`` button opens: ``WEBAPP_URL?table=<param>`` (an
    inline ``web_app`` button's ``initData`` has no ``start_param``); ``&table=`` where the
    configured URL already has a query, and any fragment kept after it."""
    return _with_query(webapp_url, f"table={param}")


def page_url(webapp_url: str, page: str) -> str:
    """The app's ``page`` (``profile``, ``standings``) as a private chat's ``web_app``
    button opens it: ``WEBAPP_URL?page=<page>``, joined as :func:`web_app_url` joins."""
    return _with_query(webapp_url, f"page={page}")


def _with_query(url: str, query: str) -> str:
    base, hash_, fragment = url.partition("#")
    joint = "&" if "?" in base else "?"
    if base.endswith(("?", "&")):
        joint = ""
    return f"{base}{joint}{query}{hash_}{fragment}"


@dataclass(frozen=True)
class AppLinks:
    """What drawing a table's links to the Mini App needs, made once at the composition root
    (:mod:`bot.compose`) when the app is configured (``WEBAPP_URL`` and ``WEBAPP_SHORT_NAME``)
    and handed down to where keyboards are drawn; None everywhere when it is not."""

    bot_username: str
    short_name: str
    key: bytes = field(repr=False)
    """The link tags' key (:func:`link_key`), never the token."""
    url: str
    """``WEBAPP_URL``, the page itself."""

    @classmethod
    def of(cls, bot_username: str, short_name: str, bot_token: str, url: str) -> AppLinks:
        """The links of a bot with this token."""
        return cls(bot_username, short_name, link_key(bot_token), url)

    def param(self, chat_id: int) -> str:
        """The table's param (:func:`start_param`)."""
        return start_param(self.key, chat_id)

    def group_url(self, chat_id: int) -> str:
        """The group's URL button: the direct link (:func:`open_url`)."""
        return open_url(self.bot_username, self.short_name, self.param(chat_id))

    def private_url(self, chat_id: int) -> str:
        """A private chat's ``web_app`` button (:func:`web_app_url`)."""
        return web_app_url(self.url, self.param(chat_id))

"""Mini Apps in the sandbox: BotFather's /newapp, and opening an app as Telegram would.

A registered app has a short name and a URL (`World.miniapps`). Opening one as a user gives
the URL Telegram's client loads in its web view: the app's URL with a fragment carrying
``tgWebAppData`` (the initData, signed with the bot's token as Telegram signs it),
``tgWebAppVersion``, ``tgWebAppPlatform`` and ``tgWebAppThemeParams``. Two launches are
emulated:

* a direct link ``https://t.me/<bot>/<short_name>?startapp=<param>`` (a URL button, which
  works in groups): initData has ``start_param``, ``chat_type`` and ``chat_instance``;
* a ``web_app`` inline button (private chats only): initData has ``query_id`` instead.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import init_data_py

from sandbox.state import BOT_USERNAME, Chat, User

# What the sandbox's client reports as tgWebAppVersion and tgWebAppPlatform.
WEBAPP_VERSION = "10.2"
WEBAPP_PLATFORM = "web"

# Telegram's default themes (its web client's light and dark palettes), every documented key.
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#999999",
        "link_color": "#2481cc",
        "button_color": "#2481cc",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#efeff3",
        "header_bg_color": "#ffffff",
        "bottom_bar_bg_color": "#ffffff",
        "accent_text_color": "#2481cc",
        "section_bg_color": "#ffffff",
        "section_header_text_color": "#6d6d72",
        "section_separator_color": "#e7e7e7",
        "subtitle_text_color": "#999999",
        "destructive_text_color": "#ff3b30",
    },
    "dark": {
        "bg_color": "#212121",
        "text_color": "#ffffff",
        "hint_color": "#aaaaaa",
        "link_color": "#8774e1",
        "button_color": "#8774e1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#181818",
        "header_bg_color": "#212121",
        "bottom_bar_bg_color": "#212121",
        "accent_text_color": "#8774e1",
        "section_bg_color": "#212121",
        "section_header_text_color": "#aaaaaa",
        "section_separator_color": "#0f0f0f",
        "subtitle_text_color": "#aaaaaa",
        "destructive_text_color": "#ff595a",
    },
}

SHORT_NAME = re.compile(r"[A-Za-z0-9_]{3,30}")
START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,512}")
DIRECT_LINK = re.compile(
    r"(?:https?://)?(?:t\.me|telegram\.me)/(?P<bot>[A-Za-z0-9_]+)/(?P<app>[A-Za-z0-9_]+)/?"
    r"(?:\?(?P<query>[^#]*))?(?:#.*)?",
    re.IGNORECASE,
)


class OpenError(Exception):
    """An app that cannot be opened: HTTP status and a message saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class DirectLink:
    """A parsed ``t.me/<bot>/<app>?startapp=`` link."""

    bot: str
    short_name: str
    start_param: str | None


def parse_direct_link(link: str) -> DirectLink:
    """The bot, app and start param of a direct link, or OpenError 400."""
    found = DIRECT_LINK.fullmatch(link.strip())
    if found is None:
        raise OpenError(400, f"not a direct link to a Mini App (https://t.me/<bot>/<app>"
                             f"?startapp=...): {link!r}")
    query = dict(parse_qsl(found["query"] or "", keep_blank_values=True))
    start = query.get("startapp")
    if start is not None and not START_PARAM.fullmatch(start):
        raise OpenError(400, "startapp must be 1-512 characters of A-Z, a-z, 0-9, _ and -")
    return DirectLink(found["bot"], found["app"], start or None)


def chat_instance(chat_id: int) -> str:
    """A stable identifier of a chat for this bot, as Telegram gives in initData and
    callback queries: a decimal string that is not the chat id."""
    digest = hashlib.sha256(f"{BOT_USERNAME}:{chat_id}".encode()).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1)


def user_json(user: User) -> str:
    """initData's ``user`` field: the WebAppUser as Telegram serialises it (compact JSON)."""
    data: dict[str, Any] = {"id": user.id, "first_name": user.first_name}
    if user.last_name:
        data["last_name"] = user.last_name
    if user.username:
        data["username"] = user.username
    data["language_code"] = user.language_code or "en"
    data["allows_write_to_pm"] = True
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def new_query_id() -> str:
    """A web_app button's query_id, shaped like Telegram's (24 base64url characters)."""
    return secrets.token_urlsafe(18)


def sign(user: User, token: str, *, start_param: str | None = None, chat: Chat | None = None,
         query_id: str | None = None) -> str:
    """The raw signed initData for a user opening an app."""
    pairs: list[tuple[str, str]] = []
    if query_id is not None:
        pairs.append(("query_id", query_id))
    pairs.append(("user", user_json(user)))
    if chat is not None:
        chat_type = "sender" if chat.type == "private" else chat.type
        pairs += [("chat_instance", chat_instance(chat.id)), ("chat_type", chat_type)]
    if start_param is not None:
        pairs.append(("start_param", start_param))
    return init_data_py.sign(pairs, token)


def launch_url(app_url: str, init_data: str, theme: str,
               start_param: str | None = None) -> str:
    """The URL the client's web view loads: the app's URL (plus ``tgWebAppStartParam`` in
    its query for a direct link, as Telegram adds) and the launch fragment."""
    parts = urlsplit(app_url)
    query = parts.query
    if start_param is not None:
        query = "&".join(q for q in (query, urlencode({"tgWebAppStartParam": start_param})) if q)
    fragment = "&".join([
        f"tgWebAppData={quote(init_data, safe='')}",
        f"tgWebAppVersion={WEBAPP_VERSION}",
        f"tgWebAppPlatform={WEBAPP_PLATFORM}",
        "tgWebAppThemeParams=" + quote(json.dumps(THEMES[theme], separators=(",", ":")),
                                       safe=""),
    ])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, fragment))

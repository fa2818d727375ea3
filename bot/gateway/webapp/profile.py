"""The Mini App's profile and standings pages (docs/webapp.md): the player's own figures in
every chat, and a chat's standings as /top gives them.

Who asks is the validated ``initData``'s user alone (:func:`bot.gateway.webapp.auth.opener`,
sent as ``Authorization: tma <initData>``); nothing else the page sends says who he is.
The profile is always his own. A chat's standings are shown only to one of its players: he
has a wallet there (he played or was granted chips in it), or sits at its table, or
Telegram says he is a member of the group. The chat asked for is named by the table's link
(``table``, else the link the app was opened with, ``start_param``: both only say which
link was opened) or by its id (``chat``, from the page's list of his chats); either way
the same check decides, so a stranger gets no chat's standings, whatever he names.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from bot.gateway.webapp.auth import Opener, Refusal, Why, claimed_language, opener
from bot.gateway.webapp.replies import json_reply as _json
from bot.view import applink, i18n, profile, standings, webview
from games import registry

if TYPE_CHECKING:
    from bot.gateway.webapp.server import WebApp

PAGES = ("profile", "standings")
"""The ``page`` query of ``/app/`` that serves these pages instead of the table."""

CHAT_ID = re.compile(r"^-?\d{1,16}$")


class Profiles:
    """The pages' routes, over the Mini App's server (its token, storage and members)."""

    def __init__(self, web_app: WebApp, sdk_url: str) -> None:
        self.web = web_app
        self.storage = web_app.tables.storage
        html = Path(__file__).with_name("static") / "stats.html"
        self.index = html.read_text(encoding="utf-8").replace(
            "{{SDK_URL}}", sdk_url) if html.exists() else ""

    def route(self, app: web.Application) -> None:
        """Add the pages' API to ``app``."""
        app.router.add_get("/app/api/profile", self.profile)
        app.router.add_get("/app/api/standings", self.standings)

    def page(self) -> web.Response:
        """The pages' HTML (``/app/?page=profile`` or ``standings``)."""
        return web.Response(text=self.index, content_type="text/html", headers={
            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"})

    def who(self, request: web.Request) -> Opener:
        """The validated user the page was opened by; :class:`Refusal` (``auth``) else."""
        auth = request.headers.get("Authorization", "")
        return opener(auth[4:] if auth.startswith("tma ") else "", self.web.token,
                      self.web.max_age)

    async def lang(self, who: Opener, chat_id: int | None = None) -> str:
        """The reader's language, as the table page picks it: his private chat's, else
        Telegram's, else (with a chat) the group's."""
        if chat_id is not None:
            return await self.web.lang(chat_id, who)
        return await self.web.languages.of_player(who.user_id, i18n.lang_of(who.language))

    def refused(self, request: web.Request, why: Why, status: int = 403) -> web.Response:
        """A refusal in the language the request's (unvalidated) ``initData`` claims."""
        auth = request.headers.get("Authorization", "")
        lang = i18n.lang_of(claimed_language(auth[4:] if auth.startswith("tma ") else ""))
        key = "app_stats_bad_init" if why is Why.AUTH else "app_standings_refused"
        return _json({"ok": False, "code": why.value, "text": i18n.plain(i18n.t(lang, key))},
                     status)

    async def chats(self, user_id: int) -> dict[int, str]:
        """The chats where he has a wallet, richest first: their names."""
        return {w.wallet.chat_id: w.title for w in await self.storage.wallets_of(
            user_id=user_id)}

    async def profile(self, request: web.Request) -> web.Response:
        """His figures in all his chats and per game, titles, achievements, poker ratings
        and net day by day."""
        try:
            who = self.who(request)
        except Refusal as no:
            return self.refused(request, no.why)
        lang = await self.lang(who)
        store, user = self.storage, who.user_id
        chats = await self.chats(user)
        per_game = [(game, await store.player_stats(user_id=user, game=game))
                    for game in registry.GAMES]
        ratings = [(title, r) for chat_id, title in chats.items()
                   if (r := await store.rating(user_id=user, chat_id=chat_id)) is not None]
        body = profile.profile(
            lang, who.name, await store.player_stats(user_id=user),
            [(game, stats) for game, stats in per_game if stats.coups],
            await store.player_titles(user_id=user), await store.achievements(user_id=user),
            ratings, await store.net_by_day(user_id=user), chats)
        return _json({"ok": True, "name": who.name, **body})

    async def standings(self, request: web.Request) -> web.Response:
        """The standings of a chat he plays in: a period and a game as /top takes them."""
        try:
            who = self.who(request)
        except Refusal as no:
            return self.refused(request, no.why)
        query = request.query
        period = query.get("period", "all")
        game = query.get("game") or None
        if period not in standings.PERIODS or (game is not None and game not in registry.GAMES):
            return _json({"ok": False, "code": "bad_request", "text": i18n.plain(i18n.t(
                await self.lang(who), "app_bad_request"))}, 400)
        chats = await self.chats(who.user_id)
        asked, link = query.get("chat", ""), query.get("table") or who.start_param
        chat_id: int | None = None
        if asked:
            chat_id = int(asked) if CHAT_ID.match(asked) else None
        elif link:
            chat_id = applink.chat_of(self.web.key, link)
        elif chats:
            chat_id = next(iter(chats))  # no link names one: his first chat
        else:  # he plays in no chat yet: no standings to show him
            lang = await self.lang(who)
            return _json({"ok": True, "chat": None, "lang": lang, "ui": profile.ui(lang),
                          "chats": []})
        if chat_id is None or not await self.may_see(chat_id, who.user_id, chats):
            return self.refused(request, Why.NOT_MEMBER)
        lang = await self.lang(who, chat_id)
        today = dt.datetime.now(dt.UTC).date()
        since, until = standings.period_days(period, today)
        rows = await self.storage.standings(chat_id=chat_id, game=game, since=since,
                                            until=until, min_coups=standings.MIN_COUPS, limit=10)
        ratings = await self.storage.ratings(chat_id=chat_id, min_hands=profile.MIN_HANDS,
                                             limit=10)
        title = chats.get(chat_id) or await self.storage.chat_title(chat_id=chat_id)
        return _json({"ok": True, **profile.board(lang, chat_id, title, rows, ratings,
                                                  period=period, game=game, chats=chats)})

    async def may_see(self, chat_id: int, user_id: int, chats: dict[int, str]) -> bool:
        """Whether he is one of the chat's players: a wallet there, a seat at its table, or
        a member of the group as Telegram says."""
        if chat_id in chats:
            return True
        table = await self.web.tables.find(chat_id)
        if table is not None and webview.seated(table.sight, user_id):
            return True
        return await self.web.members.member(chat_id, user_id)


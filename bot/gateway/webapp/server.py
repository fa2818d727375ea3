"""The Mini App's server (docs/webapp.md): the page, its WebSocket, its actions.

Every worker serves it (aiohttp, on ``WEBAPP_LISTEN:WEBAPP_PORT``; TLS stays at the proxy).
A page says who opened it with its raw ``initData`` (:mod:`bot.gateway.webapp.auth`) and
gets the table as its viewer may see it (:func:`bot.view.webview.snapshot`). The server's
own task reads the feed of committed tables (:mod:`bot.outbox.feed`; with several workers
also the database's announcement of another worker's commit): after each commit every page
of that table gets its own new snapshot, coalesced, never an older one than it has. Nothing
of the server runs inside a commit. An action from a page is a press: the same decoder and
the same commit path as a button (:meth:`bot.table.presses.Presses.press`), keyed so that a
retried POST acts once. A page that shows a player his turn is a fact of presence, as a
delivered prompt is (:meth:`bot.table.lifecycle.Lifecycle.turn_shown`): it commits nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.gateway.webapp.auth import Members, Opener, Refusal, Why, opener
from bot.gateway.webapp.auth import claimed_language as _language
from bot.gateway.webapp.profile import PAGES, Profiles
from bot.gateway.webapp.replies import json_reply as _json
from bot.outbox.feed import Reader
from bot.table.clock import Clock
from bot.table.languages import Languages
from bot.table.lifecycle import Lifecycle
from bot.table.presses import Presses
from bot.table.record import Table, TableMeta
from bot.table.tables import Tables
from bot.view import answers, applink, i18n, webview
from bot.view.codec import MAX_AMOUNT, ActionButton
from bot.view.outcomes import Outcome, Refused
from games.engine import MAX_CHOICES

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
KEY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
KIND = re.compile(r"^[a-z_]{1,24}$")
MAX_BODY = 4096
HEARTBEAT = 25.0
MAX_PAGES = 20_000
"""Open pages a worker serves at most (a page over it is closed at once)."""
CLOSE_WAIT = 0.5
"""Seconds a stop waits for the pages to close, then for the requests under way to end."""


class ActBody(BaseModel):
    """An action's body, read strictly: anything else is refused."""

    model_config = ConfigDict(extra="forbid", strict=True)
    table: str | None = Field(default=None, max_length=64)
    kind: str = Field(max_length=24)
    coup: int = Field(ge=0, le=10**9)
    decision: int = Field(ge=0, le=10**12)
    amount: int | None = Field(default=None, ge=0, le=MAX_AMOUNT)
    choice: int | None = Field(default=None, ge=0, lt=MAX_CHOICES)
    cards: int | None = Field(default=None, ge=0, lt=1 << 16)
    key: str = Field(max_length=64)


@dataclass(eq=False)
class Page:
    """One open page: its socket, its viewer, the table, the newest snapshot it has."""

    ws: web.WebSocketResponse
    who: Opener
    chat_id: int
    lang: str
    sent: tuple[int, int, bool] = (-1, -1, False)
    """The version, revision and whether its clock had started, of the newest snapshot
    sent (a clock started from the facts of presence is no commit: its deadline is news)."""
    shown_turn: int = -1
    """The decision whose turn this page showed its viewer (his clock was told)."""
    opened: float | None = None
    """When the table it shows was opened (:attr:`bot.table.record.TableMeta.opened`); None
    once it was told the table closed."""


@dataclass
class Chat:
    """A table's open pages here, and its one pending push."""

    pages: set[Page] = field(default_factory=set)
    pushing: asyncio.Task[None] | None = None
    again: bool = False


class WebApp:
    """The Mini App's routes, its pages and their pushes."""

    def __init__(self, *, token: str, lifecycle: Lifecycle, tables: Tables, clock: Clock,
                 languages: Languages, presses: Presses, members: Members, sdk_url: str,
                 max_age: float, now: Callable[[], float] = time.time,
                 title_of: Callable[[int], Awaitable[str]] | None = None) -> None:
        self.token = token
        self.key = applink.link_key(token)
        self.lifecycle = lifecycle
        self.tables = tables
        # the decision clock, whose deadline a page shows as the table message does
        self.clock = clock
        self.languages = languages
        self.presses = presses
        self.members = members
        self.max_age = max_age
        self.now = now
        # the group's name (the page's title; "" if unknown)
        self.title_of = title_of or _untitled
        self.chats: dict[int, Chat] = {}
        self.index = (STATIC / "index.html").read_text(encoding="utf-8").replace(
            "{{SDK_URL}}", sdk_url) if (STATIC / "index.html").exists() else ""
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.stopping = False
        # the feed of committed tables, read by the server's own task (:meth:`_follow`)
        self.feed = self.tables.feed
        self.reader: Reader | None = None
        self.following: asyncio.Task[None] | None = None
        self.profiles = Profiles(self, sdk_url)

    # ------------------------------------------------------------------ serving

    def app(self) -> web.Application:
        """The aiohttp application of the routes (docs/webapp.md)."""
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/app/", self.page)
        app.router.add_get("/app", self.slash)
        app.router.add_get("/app/ws", self.socket)
        app.router.add_post("/app/api/act", self.act)
        app.router.add_get("/app/static/{name}", self.static)
        self.profiles.route(app)
        return app

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (0: a free port, then :attr:`port`)."""
        self.runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=CLOSE_WAIT)
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        self.reader = self.feed.reader()
        self.following = asyncio.get_running_loop().create_task(self._follow(self.reader))
        log.info("Mini App served on %s:%s", host, self.port)

    async def _follow(self, reader: Reader) -> None:
        """Every table the feed publishes: its pages here get their new snapshots."""
        while True:
            for chat_id in await reader.read():
                self.changed(chat_id)

    async def stop(self) -> None:
        """Close every page, then the server, in bounded time (:data:`CLOSE_WAIT` for the
        pages, the runner's ``shutdown_timeout`` for the rest).

        The pages close together, each waiting at most that long for its close frame's
        answer (a page that never answers would hold its close for aiohttp's 10 s). A
        closing page leaves :attr:`chats` as it goes, so what is walked is a copy. A page
        closed by the stop is no page its viewer closed: he is not sent his turn
        elsewhere (:meth:`leave`), his page reconnects to the next worker."""
        self.stopping = True
        if self.following is not None and self.reader is not None:
            self.following.cancel()
            self.feed.drop(self.reader)
        chats = list(self.chats.values())
        pushes = [chat.pushing for chat in chats if chat.pushing is not None]
        for push in pushes:
            push.cancel()
        closing = [asyncio.ensure_future(page.ws.close(code=WSCloseCode.GOING_AWAY))
                   for chat in chats for page in list(chat.pages)]
        waited = [*pushes, *closing]
        if waited:
            _, late = await asyncio.wait(waited, timeout=CLOSE_WAIT)
            for task in late:
                task.cancel()
            await asyncio.gather(*waited, return_exceptions=True)
        if self.runner is not None:
            runner, self.runner = self.runner, None
            await runner.cleanup()

    async def page(self, request: web.Request) -> web.StreamResponse:
        """The page: index.html with the Mini App script's URL (the profile's or the
        standings' page for ``?page=profile|standings``)."""
        if request.query.get("page") in PAGES:
            return self.profiles.page()
        return web.Response(text=self.index, content_type="text/html", headers={
            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"})

    async def slash(self, request: web.Request) -> web.StreamResponse:
        """``/app`` is ``/app/`` (the page's paths are relative to it)."""
        raise web.HTTPMovedPermanently(f"/app/{request.rel_url.query_string and '?'}"
                                       f"{request.rel_url.query_string}")

    async def static(self, request: web.Request) -> web.StreamResponse:
        """The page's own files (no directory, no dot-files)."""
        name = request.match_info["name"]
        if not re.fullmatch(r"[a-z0-9_-]+\.(js|css|svg)", name) or not (STATIC / name).is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(STATIC / name, headers={"X-Content-Type-Options": "nosniff",
                                                        "Cache-Control": "no-cache"})

    # ------------------------------------------------------------------- who

    async def admit(self, init_data: str, table: str | None) -> tuple[Opener, int, Table]:
        """The validated opener, the chat his link names and its table, when he may see it;
        :class:`Refusal` otherwise."""
        who, chat_id, loaded = await self.admit_closed(init_data, table)
        if loaded is None:
            raise Refusal(Why.NO_TABLE)
        return who, chat_id, loaded

    async def admit_closed(self, init_data: str, table: str | None
                           ) -> tuple[Opener, int, Table | None]:
        """:meth:`admit`, and a member of a group whose table is closed (no table: None);
        anyone else is told there is no table (who is a member of a chat without one is
        nobody's business)."""
        who = opener(init_data, self.token, self.max_age)
        chat_id = applink.chat_of(self.key, who.start_param or table)
        if chat_id is None:
            raise Refusal(Why.NO_TABLE)
        loaded = await self.tables.find(chat_id)
        if loaded is not None and webview.seated(loaded.sight, who.user_id):
            return who, chat_id, loaded
        if not await self.members.member(chat_id, who.user_id):
            raise Refusal(Why.NO_TABLE if loaded is None else Why.NOT_MEMBER)
        return who, chat_id, loaded

    async def lang(self, chat_id: int, who: Opener) -> str:
        """The viewer's language: his private chat's, else Telegram's, else the group's."""
        return await self.presses.lang_of(chat_id, who.user_id, who.language)

    def refusal(self, why: Why, lang: str) -> dict[str, Any]:
        """An error frame."""
        key = {Why.AUTH: "app_bad_init", Why.NOT_MEMBER: "app_not_member",
               Why.NO_TABLE: "app_no_table"}[why]
        return {"type": "error", "code": why.value, "text": i18n.plain(i18n.t(lang, key))}

    # --------------------------------------------------------------- snapshot

    async def snapshot(self, table: Table, meta: TableMeta, who: Opener, lang: str
                       ) -> dict[str, Any]:
        """What ``who`` may see of ``table`` now (``meta``: its record with its clock as the
        facts of presence say, :meth:`bot.table.clock.Clock.started`)."""
        sight = table.sight
        viewer = webview.Viewer(who.user_id, who.name, webview.seated(sight, who.user_id))
        due = None
        if not meta.paused and table.engine.awaiting(table.state):
            due = self.clock.drawn_due(meta)
        title = await self.title_of(table.chat_id)
        return webview.snapshot(lang, title, table.scene(who.user_id, due), viewer,
                                rev=table.rec.rev, now=self.now())

    # ---------------------------------------------------------------- the socket

    async def socket(self, request: web.Request) -> web.StreamResponse:
        """A page's live table: hello, then snapshots pushed; resync on request."""
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_BODY)
        await ws.prepare(request)
        page: Page | None = None
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    break
                try:
                    frame = json.loads(msg.data)
                except ValueError:
                    break
                if not isinstance(frame, dict):
                    break
                if page is None:
                    page = await self.hello(ws, frame)
                    if page is None:
                        break
                elif frame.get("type") == "resync":
                    page.sent = (-1, -1, False)
                    self.changed(page.chat_id)
        finally:
            if page is not None:
                await self.leave(page)
            if not ws.closed:
                await ws.close()
        return ws

    async def hello(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> Page | None:
        """The first frame: who, which table; the first snapshot, or an error frame."""
        init_data = frame.get("init_data")
        table = frame.get("table")
        if frame.get("type") != "hello" or not isinstance(init_data, str) or not (
                table is None or isinstance(table, str)):
            await ws.send_json(self.refusal(Why.AUTH, "en"))
            return None
        try:
            who, chat_id, loaded = await self.admit_closed(init_data, table)
        except Refusal as no:
            await ws.send_json(self.refusal(no.why, i18n.lang_of(_language(init_data))))
            return None
        chats = sum(len(c.pages) for c in self.chats.values())
        if chats >= MAX_PAGES:
            return None
        page = Page(ws, who, chat_id, await self.lang(chat_id, who))
        self.chats.setdefault(chat_id, Chat()).pages.add(page)
        self.lifecycle.page_opened(chat_id, who.user_id)
        if loaded is None:  # closed (since the page was opened): it waits for the next one
            await self.closed(page)
        else:
            meta = await self.clock.started(loaded)
            await self.turns_shown(loaded, [page] if await self.push_to(page, loaded, meta)
                                   else [])
        return page

    def watching(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` has the table's page open here (it shows him his turn)."""
        chat = self.chats.get(chat_id)
        return chat is not None and any(p.who.user_id == user_id and not p.ws.closed
                                        for p in chat.pages)

    async def leave(self, page: Page) -> None:
        """A page closed. If it was its viewer's last here, the table hears it
        (:meth:`bot.table.lifecycle.Lifecycle.page_closed`): the turn it showed him goes to
        his private chat, or to the group's table."""
        chat = self.chats.get(page.chat_id)
        if chat is None:
            return
        chat.pages.discard(page)
        if not chat.pages and chat.pushing is None:
            del self.chats[page.chat_id]
        if not self.stopping and not self.watching(page.chat_id, page.who.user_id):
            await self.lifecycle.page_closed(page.chat_id, page.who.user_id)

    def changed(self, chat_id: int) -> None:
        """The chat's table was committed (here or by another worker): its pages get their
        new snapshots, in one push at a time (a commit during a push runs one more)."""
        chat = self.chats.get(chat_id)
        if chat is None or not chat.pages:
            return
        if chat.pushing is not None:
            chat.again = True
            return
        chat.pushing = asyncio.get_running_loop().create_task(self._push(chat_id, chat))

    async def _push(self, chat_id: int, chat: Chat) -> None:
        try:
            while True:
                chat.again = False
                await asyncio.sleep(0)  # the commits of this turn of the loop: one push
                table = await self.tables.find(chat_id)
                if table is None:
                    # closed: each page says so and stays, to show the chat's next table
                    for page in list(chat.pages):
                        await self.closed(page)
                    return
                meta = await self.clock.started(table)
                shown = [page for page in list(chat.pages)
                         if await self.push_to(page, table, meta)]
                await self.turns_shown(table, shown)
                if not chat.again:
                    return
        except Exception:  # a push must never take the worker down
            log.exception("push to the pages of chat %s failed", chat_id)
        finally:
            chat.pushing = None
            if not chat.pages:
                self.chats.pop(chat_id, None)

    async def push_to(self, page: Page, table: Table, meta: TableMeta) -> bool:
        """The page's snapshot, if newer than what it has (``meta``: the table's record with
        its clock). True when it showed its viewer his turn for the first time (his clock
        is to hear it: :meth:`turns_shown`)."""
        if page.opened is not None and page.opened != table.meta.opened:
            await self.closed(page)  # the table it showed was closed and another opened
        mark = (table.state.version, table.rec.rev, meta.due is not None)
        if mark <= page.sent:
            return False
        snap = await self.snapshot(table, meta, page.who, page.lang)
        if not await _send(page.ws, snap):
            return False
        page.sent = mark
        page.opened = meta.opened
        if (page.who.user_id in snap["table"]["awaiting"] and meta.due is None
                and not meta.paused and page.shown_turn != meta.decision):
            page.shown_turn = meta.decision
            return True
        return False

    async def closed(self, page: Page) -> None:
        """Tell ``page`` its table is closed (``closed``, with the closing text in its
        viewer's language: it shows no table and no action any more); the next table of the
        chat is pushed to it in full."""
        page.sent, page.shown_turn = (-1, -1, False), -1
        page.opened = None
        await _send(page.ws, {"type": "closed", "text": i18n.plain(
            i18n.t(page.lang, "closed_table"))})

    async def turns_shown(self, table: Table, pages: list[Page]) -> None:
        """These pages have just shown their viewers their turn: the clock hears it once for
        them all, after every page of the table got its snapshot (a commit waits its turn
        at the storage; the other pages need not wait for it)."""
        if pages:
            await self.lifecycle.turn_shown(table.chat_id, table.meta.decision,
                                            [page.who.user_id for page in pages])

    # ---------------------------------------------------------------- actions

    async def act(self, request: web.Request) -> web.Response:
        """An action from a page: validated, decoded and committed like a button press."""
        auth = request.headers.get("Authorization", "")
        init_data = auth[4:] if auth.startswith("tma ") else ""
        status = 400
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:  # over MAX_BODY: answered as any bad body
            raw, status = b"", 413
        try:
            body = ActBody.model_validate_json(raw)
        except (ValidationError, ValueError):
            return _json({"ok": False, "text": i18n.plain(i18n.t(
                i18n.lang_of(_language(init_data)), "app_bad_request"))}, status)
        try:
            who, chat_id, loaded = await self.admit(init_data, body.table)
        except Refusal as no:
            return _json({"ok": False, **self.refusal(no.why, i18n.lang_of(
                _language(init_data)))}, 403)
        lang = await self.lang(chat_id, who)
        if not KEY.match(body.key) or not KIND.match(body.kind):
            return _json({"ok": False, "text": i18n.plain(i18n.t(lang, "app_bad_request"))},
                         400)
        amount = body.amount
        if amount is None:  # a plain "Stake 1": the one amount it stands for
            amount = webview.fixed_amount(loaded.sight, who.user_id, body.kind)
        button = ActionButton(chat_id, body.coup, body.decision, body.kind,
                              amount=amount, choice=body.choice, confirm=body.cards)
        outcome = await self.presses.press(
            chat_id, who.user_id, who.name, button, private=True,
            key=f"w{who.user_id}:{body.key}", language=who.language,
            typed=body.amount is not None)
        table = await self.tables.find(chat_id)
        if table is None:  # closed meanwhile: the page shows it closed
            return _json({"ok": False, **self.refusal(Why.NO_TABLE, lang)}, 403)
        said = _said(outcome, lang, await self.group_lang(chat_id))
        return _json({"ok": bool(outcome.committed), "text": said,
                      "snapshot": await self.snapshot(table, await self.clock.started(table),
                                                      who, lang)})

    async def group_lang(self, chat_id: int) -> str:
        """The group's language."""
        return await self.languages.of(chat_id)


def _said(outcome: Outcome, lang: str, group: str) -> str:
    """What a page shows of an action's outcome (a pop-up's words)."""
    if isinstance(outcome, Refused):
        return answers.refusal_text(lang, outcome)
    return i18n.plain(answers.answer(outcome, lang, group).text)


async def _untitled(chat_id: int) -> str:
    """No group's name known (a server without the bot's chats: its tests)."""
    return ""


async def _send(ws: web.WebSocketResponse, frame: dict[str, Any]) -> bool:
    if ws.closed:
        return False
    try:
        await ws.send_str(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))
    except (ConnectionError, RuntimeError):
        return False
    return True


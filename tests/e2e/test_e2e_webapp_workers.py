"""The Mini App on two workers behind a load balancer, the one serving pages killed mid-coup.

Two ``python -m bot`` processes in webhook mode share one PostgreSQL (a schema of their
own), each serving the Mini App on a port of its own; in front of them a small round-robin
proxy of the test's own (:class:`Balancer`: WebSockets and HTTP, as the load balancer in
production) sends each new page socket and each action POST to the next worker that takes
the connection. A chemin de fer table has three players seated and its first coup under
way; four pages follow it (the three players and a member of the group watching), each a
WebSocket client that, when it loses its socket, opens a new one through the proxy after
0.5 s and says hello again, as the page's script does.

Before the kill, moves through the proxy land on both workers, and every page, whichever
worker serves it, gets each one (a commit on one worker is announced to the other). Then
the worker serving most pages is SIGKILLed, a move is made through the other one, and every
page must be back at the table's current version (the database's) within 3 s of the kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import harness
import init_data_py
from aiohttp import WSMsgType, web
from harness import BotProcess, Game, Player, until
from storage_backends import PG_DSN, drop_schema
from test_e2e_downtime import prompts_given_back
from test_e2e_webhook import free_port
from test_e2e_workers import SECRET, Database, SharedView

from bot.view import applink

TOKEN = "test-token"  # the harness's BOT_TOKEN
CHAT = -9100
BACKOFF = 0.5
RESYNC_WITHIN = 3.0


def init_data(user: Player, chat_id: int) -> str:
    """What Telegram hands a page ``user`` opened from the table's link."""
    fields = {"user": json.dumps({"id": user.id, "first_name": user.name,
                                  "language_code": "en"}, separators=(",", ":")),
              "chat_instance": "-4455667788", "chat_type": "supergroup",
              "start_param": applink.start_param(applink.link_key(TOKEN), chat_id)}
    return init_data_py.sign(fields, TOKEN, auth_date=time.time())


def webapp_worker(api_url: str, data_dir: Path, database_url: str, hook_port: int,
                  app_port: int, timeout: float) -> BotProcess:
    """One worker: webhook mode on ``hook_port``, the Mini App on ``app_port``, the shared
    database and data directory."""
    return BotProcess(api_url, data_dir, timeout=timeout, extra={
        "DATABASE_URL": database_url, "WEBHOOK_URL": f"http://127.0.0.1:{hook_port}",
        "WEBHOOK_LISTEN": "127.0.0.1", "WEBHOOK_PORT": str(hook_port),
        "WEBHOOK_PATH": "/telegram", "WEBHOOK_SECRET": SECRET, "STOP_FLUSH": "0.5",
        "WEBAPP_URL": f"http://127.0.0.1:{app_port}/app/", "WEBAPP_SHORT_NAME": "table",
        "WEBAPP_LISTEN": "127.0.0.1", "WEBAPP_PORT": str(app_port)})


class Balancer:
    """A round-robin proxy in front of the workers' Mini App ports: each new page socket
    and each POST goes to the next worker, or the one after it when that refuses the
    connection; a page socket whose worker goes away is closed (the page reconnects)."""

    def __init__(self, ports: Sequence[int]) -> None:
        self.ports = list(ports)
        self.turn = 0
        self.served: dict[web.WebSocketResponse, int] = {}
        """The open page sockets and the index of the worker each is relayed to."""
        self.runner: web.AppRunner | None = None
        self.session: aiohttp.ClientSession | None = None
        self.url = ""

    async def start(self) -> str:
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        app = web.Application()
        app.router.add_get("/app/ws", self.socket)
        app.router.add_post("/app/api/act", self.act)
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/app/"
        return self.url

    async def stop(self) -> None:
        for ws in list(self.served):
            await ws.close()
        if self.runner is not None:
            await self.runner.cleanup()
        if self.session is not None:
            await self.session.close()

    def order(self) -> list[int]:
        """The workers' indexes, from the next one round."""
        first = self.turn
        self.turn = (self.turn + 1) % len(self.ports)
        return [(first + i) % len(self.ports) for i in range(len(self.ports))]

    async def socket(self, request: web.Request) -> web.StreamResponse:
        assert self.session is not None
        upstream = None
        for index in self.order():
            try:
                upstream = await self.session.ws_connect(
                    f"http://127.0.0.1:{self.ports[index]}/app/ws")
            except (aiohttp.ClientError, OSError):
                continue
            break
        if upstream is None:
            return web.Response(status=502)
        client = web.WebSocketResponse()
        await client.prepare(request)
        self.served[client] = index

        async def up() -> None:
            async for msg in client:
                if msg.type != WSMsgType.TEXT:
                    break
                await upstream.send_str(msg.data)

        async def down() -> None:
            async for msg in upstream:
                if msg.type != WSMsgType.TEXT:
                    break
                await client.send_str(msg.data)

        tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.served.pop(client, None)
            await upstream.close()
            await client.close()
        return client

    async def act(self, request: web.Request) -> web.Response:
        assert self.session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items()
                   if k.lower() in ("authorization", "content-type")}
        for index in self.order():
            try:
                async with self.session.post(f"http://127.0.0.1:{self.ports[index]}/app/api/act",
                                             data=body, headers=headers) as response:
                    return web.Response(body=await response.read(), status=response.status,
                                        content_type=response.content_type)
            except aiohttp.ClientConnectorError:
                continue  # that worker is down: the next one
        return web.Response(status=502)


class Page:
    """A page of the Mini App: its socket through the proxy, its newest snapshot; when the
    socket goes, a new one after :data:`BACKOFF` and hello again (the page's script)."""

    def __init__(self, user: Player, url: str, session: aiohttp.ClientSession,
                 progress: asyncio.Event, chat_id: int = CHAT) -> None:
        self.user = user
        self.chat_id = chat_id
        self.url = url
        self.session = session
        self.progress = progress
        self.snapshot: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.closings: list[str] = []
        """The texts of the ``closed`` frames it got (its table was closed)."""
        self.sockets = 0
        self.task: asyncio.Task[None] | None = None

    @property
    def version(self) -> int:
        return -1 if self.snapshot is None else int(self.snapshot["version"])

    def start(self) -> None:
        self.task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def run(self) -> None:
        while True:
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with self.session.ws_connect(self.url + "ws") as ws:
                    self.sockets += 1
                    await ws.send_json({"type": "hello", "init_data": init_data(self.user,
                                                                           self.chat_id),
                                        "table": None})
                    async for msg in ws:
                        if msg.type != WSMsgType.TEXT:
                            break
                        frame = json.loads(msg.data)
                        if frame.get("type") == "snapshot":
                            if frame["version"] >= self.version:
                                self.snapshot = frame
                        elif frame.get("type") == "closed":
                            self.snapshot = None  # the next table's first is taken
                            self.closings.append(frame["text"])
                        else:
                            self.errors.append(frame)
                        self.progress.set()
            await asyncio.sleep(BACKOFF)


async def move(session: aiohttp.ClientSession, url: str, snap: dict[str, Any],
               player: Player) -> dict[str, Any]:
    """``player`` answers his snapshot's decision through the proxy (his first action, by
    kind, that the table takes: not as the page orders them, which is the chat's wording's
    order); the answer."""
    answer: dict[str, Any] = {}
    moves = sorted((a for a in snap["actions"] if a["input"] != "utility"),
                   key=lambda a: a["kind"])
    for action in moves:
        body: dict[str, Any] = {"table": None, "kind": action["kind"],
                                "coup": snap["table"]["coup"], "decision": snap["decision"],
                                "key": uuid.uuid4().hex}
        if action["input"] == "amount":
            body["amount"] = (action["presets"] or [action["min"]])[0]
        if action["input"] == "choice":
            body["choice"] = 0
        if action["input"] == "own_cards":
            body["cards"] = 0
        async with session.post(url + "api/act", json=body, headers={
                "Authorization": f"tma {init_data(player, CHAT)}"}) as response:
            answer = await response.json()
        if answer.get("ok"):
            return answer
    raise AssertionError(f"{player.name} could not act: {snap['actions']} {answer}")


async def test_pages_follow_the_table_across_workers_and_a_workers_death(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    schema = f"t_{uuid.uuid4().hex[:16]}"
    database_url = f"{PG_DSN}?schema={schema}"
    data_dir = tmp_path / "data"
    hook_ports = [free_port() for _ in range(2)]
    app_ports = [free_port() for _ in range(2)]
    workers = [webapp_worker(handle.url, data_dir, database_url, h, a, timeout=60.0)
               for h, a in zip(hook_ports, app_ports, strict=True)]
    balancer = Balancer(app_ports)
    pages: list[Page] = []
    db: Database | None = None
    view: SharedView | None = None
    conn: asyncpg.Connection | None = None
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
    try:
        for w in workers:
            bot_factory.append(w)
            w.start()
        await sb.webhook_spread([f"http://127.0.0.1:{p}/telegram" for p in hook_ports])
        await sb.wait_for(lambda: (data_dir / "bot.log").exists()
                          and (data_dir / "bot.log").read_text().count(" ready;") >= 2,
                          timeout=60)
        db = Database(schema)
        view = SharedView(handle.url, data_dir, db)
        conn = await asyncpg.connect(PG_DSN, server_settings={"search_path": schema})
        players = [Player(91001, "Ann"), Player(91002, "Bob"), Player(91003, "Cid")]
        watcher = Player(91004, "Eve")
        game = Game(sb, view, CHAT, players)
        for p in (*players, watcher):
            await sb.add_user(p.id, p.name, username=p.name.lower(), language_code="en")
        await sb.add_chat(CHAT, "Table", "supergroup",
                          members=[p.id for p in (*players, watcher)], admins=[players[0].id])
        await sb.add_bot(CHAT, players[0].id)
        await game.enable_dms()
        await game.command(players[0], "/newtable chemin_de_fer")
        for p in players:
            await game.step(p, ["join"])
        await game.step(players[0], ["start"])

        url = await balancer.start()
        progress = asyncio.Event()
        pages = [Page(p, url, session, progress) for p in (*players, watcher)]
        for page in pages:
            page.start()
            await until(lambda page=page: page.snapshot is not None, progress,
                        f"{page.user.name}'s first snapshot", 10)
        assert not any(page.errors for page in pages), [page.errors for page in pages]
        assert pages[3].snapshot is not None and pages[3].snapshot["me"]["seated"] is False
        assert set(balancer.served.values()) == {0, 1}  # pages on both workers

        async def stored() -> int:
            return int(await conn.fetchval("SELECT version FROM tables WHERE chat_id = $1",
                                            CHAT))

        async def all_current() -> bool:
            version = await stored()
            return all(page.version == version for page in pages)

        def awaited() -> tuple[Page, dict[str, Any]]:
            snap = pages[0].snapshot
            assert snap is not None
            who = snap["table"]["awaiting"]
            assert who, snap["table"]
            page = next(p for p in pages if p.user.id == who[0])
            assert page.snapshot is not None
            return page, page.snapshot

        # moves through the proxy, on both workers in turn: every page gets each one
        for _ in range(3):
            await until(all_current, progress, "every page at the current version", 10)
            page, snap = awaited()
            await move(session, url, snap, page.user)
            await until(all_current, progress, "every page at the move's version", 10)

        # the worker serving most pages dies; a move through the other one
        counts = [list(balancer.served.values()).count(i) for i in range(2)]
        victim = counts.index(max(counts))
        served_by_victim = counts[victim]
        page, snap = awaited()
        before = await stored()
        killed = time.monotonic()
        workers[victim].kill()
        answer = await move(session, url, snap, page.user)
        assert answer["snapshot"]["version"] > before
        await until(all_current, progress,
                    "every page back at the current version after the kill", RESYNC_WITHIN)
        took = time.monotonic() - killed
        version = await stored()
        print(f"\nworker {victim} (serving {served_by_victim} of 4 pages) killed; every page "
              f"at version {version} {took:.3f} s after the kill; page sockets opened: "
              f"{[p.sockets for p in pages]}")
        assert took <= RESYNC_WITHIN
        assert set(balancer.served.values()) == {1 - victim}
        assert not any(page.errors for page in pages), [page.errors for page in pages]
        # the watcher never got anyone's hidden cards; each player only his own
        for page in pages:
            assert page.snapshot is not None
        assert pages[3].snapshot is not None and pages[3].snapshot["me"]["cards"] == []
    finally:
        for page in pages:
            await page.stop()
        await balancer.stop()
        await session.close()
        for w in workers:
            w.kill()
        if conn is not None:
            await conn.close()
        if view is not None:
            view.freeze([g.chat_id for g in harness.LIVE])
        if db is not None:
            db.close()
        await drop_schema(schema)


class TwoWorkers:
    """Two workers on one schema (webhook updates spread over both), a group of three players
    with their private chats open, and a chemin de fer table with all three seated and its
    first coup started; pages are opened on one worker or the other by the test."""

    def __init__(self, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path,
                 timeout: float = 60.0) -> None:
        self.handle, self.sb = sandbox
        self.schema = f"t_{uuid.uuid4().hex[:16]}"
        self.database_url = f"{PG_DSN}?schema={self.schema}"
        self.data_dir = tmp_path / "data"
        self.timeout = timeout
        self.bot_factory = bot_factory
        self.processes: list[BotProcess] = []
        """Every worker process made (restarted ones too): all killed before the schema goes."""
        self.hook_ports = [free_port() for _ in range(2)]
        self.app_ports = [free_port() for _ in range(2)]
        self.workers = [self.worker(i) for i in range(2)]
        self.players = [Player(92001, "Ann"), Player(92002, "Bob"), Player(92003, "Cid")]
        self.pages: list[Page] = []
        self.progress = asyncio.Event()
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        self.db: Database | None = None
        self.view: SharedView | None = None
        self.conn: asyncpg.Connection | None = None

    def worker(self, index: int) -> BotProcess:
        """Worker ``index`` (not started): a new process on its ports."""
        w = webapp_worker(self.handle.url, self.data_dir, self.database_url,
                          self.hook_ports[index], self.app_ports[index], timeout=self.timeout)
        self.bot_factory.append(w)
        self.processes.append(w)
        return w

    def url(self, index: int) -> str:
        """Worker ``index``'s Mini App (a page opened there stays there)."""
        return f"http://127.0.0.1:{self.app_ports[index]}/app/"

    async def route(self, *indexes: int) -> None:
        """Send every update to these workers (one: that worker alone)."""
        await self.sb.webhook_spread([f"http://127.0.0.1:{self.hook_ports[i]}/telegram"
                                      for i in indexes])

    async def start(self) -> Game:
        for w in self.workers:
            w.start()
        await self.route(0, 1)
        log = self.data_dir / "bot.log"
        await self.sb.wait_for(lambda: log.exists() and log.read_text().count(" ready;") >= 2,
                               timeout=60)
        self.db = Database(self.schema)
        self.view = SharedView(self.handle.url, self.data_dir, self.db)
        self.conn = await asyncpg.connect(PG_DSN, server_settings={"search_path": self.schema})
        game = Game(self.sb, self.view, CHAT, self.players)
        await game.setup()
        await game.enable_dms()
        await game.command(self.players[0], "/newtable chemin_de_fer")
        for p in self.players:
            await game.step(p, ["join"])
        await game.step(self.players[0], ["start"])
        return game

    def open_page(self, user: Player, index: int) -> Page:
        """``user``'s page, on worker ``index``."""
        page = Page(user, self.url(index), self.session, self.progress)
        self.pages.append(page)
        page.start()
        return page

    async def stored(self) -> tuple[int, dict[str, Any]] | None:
        """The table's version and record as committed now (None: no table), with what its
        next commit keeps in it of the facts of presence: its decision's deadline (the
        stored one, which a clock started from them sets) and the prompts delivered."""
        assert self.conn is not None
        row = await self.conn.fetchrow("SELECT version, meta::text, due FROM tables"
                                       " WHERE chat_id = $1", CHAT)
        if row is None:
            return None
        meta = json.loads(row[1])
        if meta.get("due") is None:
            meta["due"] = row[2]
        prompts = meta.setdefault("prompts", {})
        for player, message_id in await self.conn.fetch(
                "SELECT player, message_id FROM presence WHERE chat_id = $1 AND decision = $2"
                " AND channel = 'prompt'", CHAT, meta.get("decision", 0)):
            prompts.setdefault(str(player), {"message_id": message_id})
        return int(row[0]), meta

    async def close(self) -> None:
        for page in self.pages:
            await page.stop()
        await self.session.close()
        for w in self.processes:
            w.kill()
        if self.conn is not None:
            await self.conn.close()
        if self.view is not None:
            self.view.freeze([g.chat_id for g in harness.LIVE])
        if self.db is not None:
            self.db.close()
        await drop_schema(self.schema)


CLOSED = "The table is closed; every chip went back to the wallets."


async def test_a_close_on_one_worker_reaches_the_pages_of_the_other(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    two = TwoWorkers(sandbox, bot_factory, tmp_path)
    try:
        game = await two.start()
        ann, bob, _ = two.players
        on_b = two.open_page(bob, 1)  # Bob's page on worker B, Ann's on worker A
        on_a = two.open_page(ann, 0)
        for page in (on_a, on_b):
            await until(lambda page=page: page.snapshot is not None, two.progress,
                        f"{page.user.name}'s first snapshot", 10)
        assert on_b.snapshot is not None and on_b.snapshot["table"]["open"]

        # Ann closes the table on worker A: both pages say so, and show no table
        await two.route(0)
        await game.command(ann, "/closetable")
        for page in (on_a, on_b):
            await until(lambda page=page: page.closings, two.progress,
                        f"{page.user.name}'s page told the table closed", 10)
            assert page.closings == [CLOSED] and page.snapshot is None
        assert await two.stored() is None

        # a new table opened on worker A shows on the page of worker B
        await game.command(ann, "/newtable baccarat")
        for page in (on_a, on_b):
            await until(lambda page=page: page.snapshot is not None, two.progress,
                        f"{page.user.name}'s page shows the new table", 10)
            snap = page.snapshot
            assert snap is not None and snap["table"]["game"] == "baccarat", snap["table"]
            assert [a["kind"] for a in snap["actions"]] == ["join"], snap["actions"]
        assert not any(page.errors for page in two.pages), [p.errors for p in two.pages]
    finally:
        await two.close()


async def test_a_page_that_closes_on_another_worker_brings_the_prompt_it_stood_in_for(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    two = TwoWorkers(sandbox, bot_factory, tmp_path)
    try:
        pages, watched, decision = await _turn_left_to_a_page(two)
        sb = two.sb

        # worker A dies; the page reconnects to worker B, and closes there
        two.workers[0].kill()
        page = pages[watched.id]
        await page.stop()
        moved = two.open_page(watched, 1)
        await until(lambda: moved.snapshot is not None, two.progress,
                    f"{watched.name}'s page on worker B", 10)
        await moved.stop()

        _is_his_prompt(await sb.wait_for(_prompt_of(sb, watched, decision), timeout=15),
                       watched)
    finally:
        await two.close()


async def test_a_page_that_showed_a_turn_when_every_worker_stopped_brings_its_prompt_after(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    two = TwoWorkers(sandbox, bot_factory, tmp_path)
    try:
        pages, watched, decision = await _turn_left_to_a_page(two)
        sb = two.sb

        # every worker stops (its pages close with it, not by their players); the player
        # does not open the page again: the start after brings his turn to his private chat
        for w in two.workers:
            w.stop()
        await pages[watched.id].stop()
        two.worker(0).start()

        _is_his_prompt(await sb.wait_for(_prompt_of(sb, watched, decision), timeout=15),
                       watched)
    finally:
        await two.close()


async def _turn_left_to_a_page(two: TwoWorkers) -> tuple[dict[int, Any], Player, int]:
    """Every player's page open on worker A, which takes every update from now on; moves
    made from the pages there until a decision's awaited player is shown his turn on his
    page and gets no prompt in his private chat: the pages, him, and the decision."""
    await two.start()
    await two.route(0)
    pages = {p.id: two.open_page(p, 0) for p in two.players}
    sb = two.sb

    async def current() -> tuple[int, dict[str, Any]] | None:
        stored = await two.stored()
        if stored is None or not all(p.version == stored[0] for p in pages.values()):
            return None
        return stored

    async def prompted(player: Player, decision: int) -> bool:
        return any((a := harness.decode_action(d)) is not None and a[1] == decision
                   for m in await sb.bot_messages(player.id) for _, d in sb.buttons(m))

    for _ in range(6):
        await until(current, two.progress, "every page current", 10)
        snap = next(iter(pages.values())).snapshot
        assert snap is not None
        awaited = snap["table"]["awaiting"]
        assert awaited, snap["table"]
        mover = pages[awaited[0]]
        assert mover.snapshot is not None
        await move(two.session, two.url(0), mover.snapshot, mover.user)
        _, meta = await until(
            lambda: _clock_started(current), two.progress, "the next decision's clock", 10)
        snap = pages[two.players[0].id].snapshot
        assert snap is not None
        shown = [p for p in two.players if p.id in snap["table"]["awaiting"]
                 and not await prompted(p, meta["decision"])]
        if shown:
            return pages, shown[0], int(meta["decision"])
    raise AssertionError("no turn was left to a page")


def _is_his_prompt(message: dict[str, Any], player: Player) -> None:
    """``message`` is ``player``'s turn prompt: the table from his seat, his turn, his
    buttons."""
    lines = message["text"].splitlines()
    assert lines[0].startswith("Chemin de fer · ") and lines[-1] == PROMPT_END, lines
    assert any(line.startswith(f"▶ {player.name} ") and line.endswith(" · to act")
               for line in lines), lines


def _prompt_of(sb: Any, player: Player, decision: int) -> Any:
    """A condition: ``player``'s private message with buttons of ``decision``, if any."""
    async def prompt() -> dict[str, Any] | None:
        for m in reversed(await sb.bot_messages(player.id)):
            if any((a := harness.decode_action(d)) is not None and a[1] == decision
                   for _, d in sb.buttons(m)):
                return m  # type: ignore[no-any-return]
        return None
    return prompt


async def _clock_started(current: Any) -> tuple[int, dict[str, Any]] | None:
    stored = await current()
    if stored is None or stored[1].get("due") is None:
        return None
    return stored  # type: ignore[no-any-return]


PROMPT_END = "Your move at the table — choose here:"


async def test_a_deadline_that_passed_while_every_worker_was_down_is_given_back(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    two = TwoWorkers(sandbox, bot_factory, tmp_path, timeout=3.0)
    try:
        await two.start()
        sb = two.sb

        # the bank's auction, played in the app: each player's prompt in his private chat
        async def prompted() -> dict[str, Any] | None:
            stored = await two.stored()
            meta = stored[1] if stored else {}
            return meta if meta.get("due") and len(meta.get("prompts", {})) == 3 else None

        meta = await sb.wait_for(prompted, timeout=10)
        prompts = {int(p): shown["message_id"] for p, shown in meta["prompts"].items()}
        stored = await two.stored()
        assert stored is not None
        for w in two.workers:  # every worker dies; the deadline passes meanwhile
            w.kill()
        await sb.wait_for(lambda: time.time() > meta["due"] + 1.0, timeout=10)
        seq = max(e["seq"] for e in await sb.log())
        started = time.time()
        back = two.worker(0)
        back.start()

        # each prompt counts down the time given back
        await prompts_given_back(sb, seq, prompts, started)
        now = await two.stored()
        assert now is not None and now[0] == stored[0]  # nobody timed out
    finally:
        await two.close()

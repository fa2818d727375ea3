"""Mini App benchmark: tables played from their pages (not a test; it prints figures).

Starts the sandbox (fake Bot API) in this process and the bot as a real process
(``python -m bot``, SQLite, polling) with the Mini App on, or with ``--workers 2`` two
workers on PostgreSQL (a schema of their own, webhook mode, the sandbox spreading updates
over both) behind a round-robin WebSocket/HTTP proxy of our own (the production load
balancer; tests/e2e/test_e2e_webapp_workers.py). It opens ``--tables`` groups with a table
of ``--game`` (chemin de fer by default), seats three players at each through the group's
buttons and starts the first coup; then it opens ``--pages`` pages per table (the three
players and ``pages - 3`` members watching) as WebSocket clients and, for ``--seconds``,
every player plays from his page alone: whenever his page's snapshot awaits him (or, the
table between coups, offers the first player *Start*), he thinks 1-3 s (none with
``--flat-out``), then POSTs /app/api/act answering the snapshot's ``decision`` (the kind
the e2e tests' policy prefers for the phase; amounts at their minimum). A page that loses
its socket opens a new one after 0.5 s and says hello again, as the page's script does.
The tables begin one after another over ``--ramp`` seconds (10 by default: groups do not all
start at one instant; 200 tables' 600 players bidding within the same 2 s are a burst of
some 4 s of the bot's CPU), and once every table is in its first coup (its lobby's message
retired, a call once a table) the measured window of ``--seconds`` opens: every figure
below counts only what it holds (a POST sent before it is not measured).
With ``--workers 2``, one worker is SIGKILLed halfway through the window.

It prints one JSON object:

* ``press_to_all_pages_ms`` {p50, p95, p99}: from sending an accepted POST until every
  page of its table has a snapshot at least at the version the POST's answer carries;
* ``group_calls_per_coup``: sendMessage and editMessageText calls to the groups (the
  sandbox's Bot API log) per coup settled (the bot's settlement outbox rows) in the window;
* ``cpu_ms_per_step``: the bot processes' CPU per committed step (``steps`` rows in the
  window), as bench/load.py measures it;
* ``leaks``: frames holding a card another seat held hidden at that frame's version. The
  oracle is each player's own page: his ``me.cards`` at each version he got (the engine's
  view of his seat); every other page's frame at that version must not hold one of them
  except among its face-up cards, its own cards or the cards the public texts (facts, log,
  result) show the watcher at that version, or this frame's own when the watcher got no
  frame of that version (a multi-deck shoe has duplicates: a burned 5c while the banker
  holds another). So a hidden card written into the public texts for
  everyone would go unseen here (tests/test_webapp_server.py's engine oracle covers that).
  ``leak_pairs_checked`` says how many (frame, other seat) pairs had an oracle;
* ``resync_after_kill_s`` (``--workers 2``): seconds from the kill until every page was at
  its table's version in the database again; null with one worker;
* tables, pages, seconds, steps, and a few more (coups, presses, refusals, errors).

The bot runs with production pacing of the group (GROUP_EDIT_GAP, GROUP_EDITS_PER_COUP,
GROUP_RESERVE, TURN_DMS and the group limit at their defaults), only the overall
30-messages-a-second cap lifted (as bench/load.py does), so ``group_calls_per_coup`` is what
a group would get. Only 127.0.0.1 traffic.

    .venv/bin/python bench/app.py [--tables 20] [--pages 4] [--seconds 30] [--workers 1|2]
        [--flat-out] [--game chemin_de_fer] [--timeout 30] [--ramp 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import init_data_py
import uvloop
from aiohttp import WSMsgType

HERE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(HERE), str(HERE / "tests"), str(HERE / "tests" / "e2e"), str(HERE / "bench")]

from harness import DEFAULT, POLICIES, BotProcess, cards_in  # noqa: E402
from load import (  # noqa: E402
    GAMES,
    BenchClient,
    Figures,
    chat_of,
    cpu_seconds,
    drivers,
    own_cpu_seconds,
    percentile,
)
from load import Table as GroupDriver  # noqa: E402
from storage_backends import PG_DSN, drop_schema  # noqa: E402
from test_e2e_webapp_workers import Balancer  # noqa: E402
from test_e2e_webhook import free_port  # noqa: E402
from test_e2e_workers import SECRET  # noqa: E402

from bot.view import applink, i18n  # noqa: E402
from sandbox.server import start_sandbox  # noqa: E402

TOKEN = "test-token"  # the harness's BOT_TOKEN
LANG = "en"
SEATS = 3
BACKOFF = 0.5
POST_TIMEOUT = 15.0
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
GROUP_CALLS = ("sendMessage", "editMessageText")
DEBUG = bool(os.environ.get("BENCH_DEBUG"))
PHASES = {v: k.split(":", 1)[1] for k, v in i18n.games_texts().words[LANG].items()
          if k.startswith("phase:")}
"""An English phase word back to the phase the policies name."""


def init_data(user_id: int, name: str, chat_id: int) -> str:
    """What Telegram hands a page ``user_id`` opened from the table's link."""
    fields = {"user": json.dumps({"id": user_id, "first_name": name, "language_code": LANG},
                                 separators=(",", ":")),
              "chat_instance": str(-chat_id), "chat_type": "supergroup",
              "start_param": applink.start_param(applink.link_key(TOKEN), chat_id)}
    return init_data_py.sign(fields, TOKEN, auth_date=time.time())


def frame_cards(value: Any, out: set[str]) -> None:
    """Every card a frame holds: card strings, and cards written for people in its texts."""
    if isinstance(value, str):
        if CARD.match(value):
            out.add(value)
        else:
            out.update(cards_in(value))
    elif isinstance(value, dict):
        for v in value.values():
            frame_cards(v, out)
    elif isinstance(value, list):
        for v in value:
            frame_cards(v, out)


class Page:
    """One page of a table: its socket (made again after a loss), its newest snapshot, when
    it reached each version, and what leak check needs of every frame."""

    def __init__(self, run: Run, table: TablePages, user_id: int, name: str,
                 seated: bool) -> None:
        self.run = run
        self.table = table
        self.user_id = user_id
        self.name = name
        self.seated = seated
        self.data = init_data(user_id, name, table.chat_id)
        self.snapshot: dict[str, Any] | None = None
        self.version = -1
        self.reached: list[tuple[float, int]] = []
        self.changed = asyncio.Event()
        self.sockets = 0
        self.live = False
        """Whether its socket is open and has brought a snapshot (a page whose worker died
        is not current, whatever version it last had, until it has resynced)."""
        self.errors: list[str] = []

    async def follow(self) -> None:
        while not self.run.over:
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with self.run.session.ws_connect(self.run.url + "ws") as ws:
                    self.sockets += 1
                    await ws.send_json({"type": "hello", "init_data": self.data,
                                        "table": None})
                    async for msg in ws:
                        if msg.type != WSMsgType.TEXT:
                            break
                        self.frame(json.loads(msg.data))
            self.live = False
            if self.run.over:
                return
            await asyncio.sleep(BACKOFF)

    def frame(self, frame: dict[str, Any]) -> None:
        now = time.perf_counter()
        if frame.get("type") != "snapshot":
            self.errors.append(str(frame.get("code")))
            return
        self.live = True
        version = int(frame["version"])
        shown: set[str] = set()
        frame_cards(frame, shown)
        face_up = {c for s in frame["table"]["seats"] for c in s["face_up"]}
        own = set(frame["me"]["cards"])
        # the public texts (a burned card, the last result): the watcher's at this version
        # explain a card; without his frame of this version, this frame's own
        public: set[str] = set()
        frame_cards([frame["table"].get(k) for k in ("facts", "log", "result")], public)
        if self.seated:
            self.run.own_cards[(self.table.chat_id, self.user_id, version)] = own
        else:
            self.run.public[(self.table.chat_id, version)] = public
        self.run.frames.append((self.table.chat_id, self.user_id, version,
                                frozenset(shown - face_up - own), frozenset(public)))
        if DEBUG:
            self.run.raw[(self.table.chat_id, self.user_id, version)] = frame
        if version >= self.version:
            self.snapshot = frame
            if version > self.version:
                self.version = version
                self.reached.append((now, version))
                if len(self.reached) > 64:
                    del self.reached[:32]
        self.changed.set()
        self.table.check(now)

    def reached_at(self, version: int) -> float | None:
        """When this page first had a snapshot at ``version`` or later."""
        first = None
        for at, v in reversed(self.reached):
            if v < version:
                break
            first = at
        return first


class TablePages:
    """A table's pages, and the accepted POSTs whose version not every page has yet."""

    def __init__(self, run: Run, chat_id: int, players: list[tuple[int, str]],
                 watchers: list[tuple[int, str]]) -> None:
        self.run = run
        self.chat_id = chat_id
        self.pages = [Page(run, self, uid, name, True) for uid, name in players] + [
            Page(run, self, uid, name, False) for uid, name in watchers]
        self.waiting: list[tuple[int, float]] = []

    def check(self, now: float) -> None:
        """Every waiting POST whose version every page has: its latency measured."""
        if not self.waiting:
            return
        still = []
        for version, sent in self.waiting:
            times = [p.reached_at(version) for p in self.pages]
            if all(t is not None for t in times):
                self.run.latencies.append((max(t for t in times if t is not None) - sent)
                                          * 1000)
            else:
                still.append((version, sent))
        self.waiting = still

    def current(self, versions: dict[int, int]) -> bool:
        """Whether every page is at the table's version (``versions``: the database's)."""
        version = versions.get(self.chat_id)
        return version is not None and all(p.live and p.version >= version for p in self.pages)


class Run:
    """What one benchmark run shares: its options, the HTTP session, the figures."""

    def __init__(self, args: argparse.Namespace, url: str,
                 session: aiohttp.ClientSession) -> None:
        self.args = args
        self.url = url
        self.session = session
        self.over = False
        self.playing = False
        self.measuring = False
        self.rng = random.Random(7)
        self.latencies: list[float] = []
        self.answers: list[float] = []
        self.own_cards: dict[tuple[int, int, int], set[str]] = {}
        self.frames: list[tuple[int, int, int, frozenset[str], frozenset[str]]] = []
        self.posts = self.accepted = self.refused = self.failed = 0
        self.refusals: dict[str, int] = {}
        self.raw: dict[tuple[int, int, int], dict[str, Any]] = {}
        self.public: dict[tuple[int, int], set[str]] = {}
        self.policy = POLICIES.get(args.game, {})

    def choose(self, snap: dict[str, Any], first: bool) -> dict[str, Any] | None:
        """The action a player takes on his snapshot (None: nothing to do): when awaited,
        the first kind the policy prefers for the phase (else the first offered); the table
        between coups, Start for its first player."""
        actions = {a["kind"]: a for a in snap["actions"]}
        if snap["me"]["id"] not in snap["table"]["awaiting"]:
            if not snap["table"]["awaiting"] and first and "start" in actions:
                return actions["start"]
            return None
        phase = PHASES.get(snap["table"]["phase"], snap["table"]["phase"]).replace(" ", "_")
        prefer = self.policy.get(phase, self.policy.get("", DEFAULT))
        for kind in prefer:
            if kind in actions:
                return actions[kind]
        return next((a for a in snap["actions"] if a["input"] != "utility"), None)

    async def play(self, page: Page, first: bool, start: float) -> None:
        """A player at his page: from ``start`` (seconds into the ramp, his table's), acts on
        each snapshot that asks him to."""
        done: tuple[int, int] | None = None
        while not self.playing:
            await asyncio.sleep(0.05)
        await asyncio.sleep(start)
        while not self.over:
            page.changed.clear()
            snap = page.snapshot
            if self.playing and snap is not None and (snap["decision"], snap["version"]) != done:
                action = self.choose(snap, first)
                if action is not None:
                    if not self.args.flat_out:
                        await asyncio.sleep(self.rng.uniform(1.0, 3.0))
                        snap = page.snapshot or snap
                        action = self.choose(snap, first)
                    if action is not None and not self.over:
                        done = (snap["decision"], snap["version"])
                        await self.act(page, snap, action)
                        continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(page.changed.wait(), 1.0)
            if not page.changed.is_set():
                done = None  # nothing came: look again (a refused move, a lost answer)

    async def act(self, page: Page, snap: dict[str, Any], action: dict[str, Any]) -> None:
        body: dict[str, Any] = {"table": None, "kind": action["kind"],
                                "coup": snap["table"]["coup"], "decision": snap["decision"],
                                "key": uuid.uuid4().hex}
        if action["input"] == "amount":
            body["amount"] = action["min"] if action["min"] is not None else action["presets"][0]
        elif action["input"] == "plain" and action["min"] is not None:
            body["amount"] = action["min"]  # a button of one amount ("Stake 10") names it
        elif action["input"] == "choice":
            body["choice"] = 0
        elif action["input"] == "own_cards":
            body["cards"] = 0
        sent = time.perf_counter()
        self.posts += 1
        try:
            async with self.session.post(
                    self.url + "api/act", json=body,
                    headers={"Authorization": f"tma {page.data}"},
                    timeout=aiohttp.ClientTimeout(total=POST_TIMEOUT)) as response:
                answer = await response.json(content_type=None)
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
            self.failed += 1
            return
        if not isinstance(answer, dict) or not answer.get("ok"):
            self.refused += 1
            text = answer.get("text") if isinstance(answer, dict) else answer
            why = f"{action['kind']}: {text}"
            self.refusals[why] = self.refusals.get(why, 0) + 1
            return
        self.accepted += 1
        if not self.measuring:
            return  # the ramp: its presses are not measured
        self.answers.append((time.perf_counter() - sent) * 1000)
        version = int(answer["snapshot"]["version"])
        page.table.waiting.append((version, sent))
        page.table.check(time.perf_counter())

    def leaks(self) -> tuple[int, int]:
        """(frames holding another seat's hidden card, (frame, seat) pairs checked)."""
        seats: dict[int, list[int]] = {}
        for chat, user, _ in self.own_cards:
            seats.setdefault(chat, [])
            if user not in seats[chat]:
                seats[chat].append(user)
        leaked = checked = 0
        for chat, viewer, version, cards, texts in self.frames:
            shown = cards - self.public.get((chat, version), texts)
            bad = False
            for other in seats.get(chat, []):
                if other == viewer:
                    continue
                hidden = self.own_cards.get((chat, other, version))
                if hidden is None:
                    continue
                checked += 1
                if hidden & shown and DEBUG and leaked < 3:
                    print(json.dumps({"viewer": viewer, "other": other, "cards": sorted(
                        hidden & shown), "frame": self.raw.get((chat, viewer, version)),
                        "others": self.raw.get((chat, other, version))}), file=sys.stderr)
                bad = bad or bool(hidden & shown)
            leaked += bad
        return leaked, checked


async def set_up(sb: BenchClient, world: Any, driver: GroupDriver, watchers: list[int],
                 game: str) -> None:
    """A group with the bot, its players and watchers; each player's private chat opened,
    a table opened, every player seated and the first coup started (through the group's
    buttons, bench/load.py's driver)."""
    for p in driver.players:
        await sb.add_user(p.id, p.name, username=p.name.lower(), language_code=LANG)
    for w in watchers:
        await sb.add_user(w, f"W{w}", username=f"w{w}", language_code=LANG)
    ids = [p.id for p in driver.players]
    await sb.add_chat(driver.chat_id, f"App {driver.chat_id}", "supergroup",
                      members=ids + watchers, admins=[ids[0]])
    await sb.add_bot(driver.chat_id, ids[0])
    for p in driver.players:
        await sb.send(p.id, p.id, "/start")
        await driver.until(lambda p=p: any(m.from_bot for m in world.messages.get(p.id, [])),
                           timeout=60)
    await sb.send(driver.chat_id, ids[0], f"/newtable {game}")
    await driver.play(asyncio.Event(), until_started=True)


class Database:
    """Reads of the bot's database: SQLite (one worker) or the workers' PostgreSQL schema."""

    def __init__(self, sqlite_path: Path | None, schema: str | None) -> None:
        self.sqlite_path = sqlite_path
        self.schema = schema
        self.conn: Any = None

    async def open(self) -> None:
        if self.schema is not None:
            import asyncpg

            self.conn = await asyncpg.connect(PG_DSN, server_settings={
                "search_path": self.schema})

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()

    def _sqlite(self, sql: str, *args: Any) -> list[Any]:
        db = sqlite3.connect(f"file:{self.sqlite_path}?mode=ro", uri=True, timeout=10)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()

    async def versions(self) -> dict[int, int]:
        """Every open table's version."""
        sql = "SELECT chat_id, version FROM tables"
        rows = await self.conn.fetch(sql) if self.conn is not None else self._sqlite(sql)
        return {int(r[0]): int(r[1]) for r in rows}

    async def counts(self, t0: float, t1: float) -> tuple[int, int]:
        """(table steps committed, coups settled) within [t0, t1]."""
        if self.conn is not None:
            steps = await self.conn.fetchval(
                "SELECT count(*) FROM steps WHERE kind = 'step' AND created_at"
                " BETWEEN to_timestamp($1) AND to_timestamp($2)", t0, t1)
            settled = await self.conn.fetchval(
                "SELECT count(*) FROM outbox WHERE kind = 'settle' AND created_at"
                " BETWEEN to_timestamp($1) AND to_timestamp($2)", t0, t1)
            return int(steps), int(settled)
        steps = self._sqlite("SELECT count(*) FROM steps WHERE kind = 'step' AND created_at"
                             " BETWEEN ? AND ?", t0, t1)[0][0]
        settled = self._sqlite("SELECT count(*) FROM outbox WHERE kind = 'settle' AND"
                               " created_at BETWEEN ? AND ?", t0, t1)[0][0]
        return int(steps), int(settled)


async def until_current(tables: list[TablePages], db: Database, timeout: float) -> float | None:
    """Wait until every page is at its table's version in the database; when (perf_counter),
    or None if not within ``timeout``."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        versions = await db.versions()
        if all(t.current(versions) for t in tables):
            return time.perf_counter()
        await asyncio.sleep(0.02)
    return None


async def run(args: argparse.Namespace) -> dict[str, Any]:
    handle = await start_sandbox("127.0.0.1", 0)
    sb = BenchClient(handle.url, timeout=60)
    tmp = tempfile.TemporaryDirectory(prefix="banco-app-")
    data_dir = Path(tmp.name) / "data"
    world = handle.world
    schema = f"bench_{uuid.uuid4().hex[:12]}" if args.workers > 1 else None
    app_ports = [free_port() for _ in range(args.workers)]
    extra = {"WEBAPP_SHORT_NAME": "table", "WEBAPP_LISTEN": "127.0.0.1",
             "OVERALL_MESSAGES_PER_SECOND": "0", "TEST_HOOKS": "0"}
    bots: list[BotProcess] = []
    for port in app_ports:
        env = {**extra, "WEBAPP_URL": f"http://127.0.0.1:{port}/app/",
               "WEBAPP_PORT": str(port)}
        if schema is not None:
            hook = free_port()
            env.update({"DATABASE_URL": f"{PG_DSN}?schema={schema}",
                        "WEBHOOK_URL": f"http://127.0.0.1:{hook}", "WEBHOOK_LISTEN": "127.0.0.1",
                        "WEBHOOK_PORT": str(hook), "WEBHOOK_PATH": "/telegram",
                        "WEBHOOK_SECRET": SECRET, "STOP_FLUSH": "0.5"})
        bot = BotProcess(handle.url, data_dir, timeout=args.timeout, extra=env)
        for key in ("GROUP_MESSAGES_PER_MINUTE", "GROUP_EDIT_GAP", "GROUP_EDITS_PER_COUP",
                    "GROUP_RESERVE", "TURN_DMS"):
            bot.env.pop(key, None)  # the production pace of the group
        bots.append(bot)
    figures = Figures()
    ns = argparse.Namespace(chats=args.tables, players=SEATS, game=args.game)
    groups, unhook = drivers(sb, world, ns, figures)
    balancer = Balancer(app_ports) if args.workers > 1 else None
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                    cookie_jar=aiohttp.DummyCookieJar())
    db = Database(data_dir / "banco.sqlite3", schema)
    tasks: list[asyncio.Task[Any]] = []
    try:
        if schema is not None:
            await sb.webhook_spread([bot.env["WEBHOOK_URL"] + "/telegram" for bot in bots])
        for bot in bots:
            bot.start()
        await wait_ready(data_dir, len(bots))
        await db.open()
        watchers = {g.chat_id: [g.players[0].id + 50 + k for k in range(args.pages - SEATS)]
                    for g in groups}
        await asyncio.wait_for(asyncio.gather(*(
            set_up(sb, world, g, watchers[g.chat_id], args.game) for g in groups)),
            timeout=120 + 3 * args.tables)
        unhook()
        url = (await balancer.start() if balancer is not None
               else f"http://127.0.0.1:{app_ports[0]}/app/")
        bench = Run(args, url, session)
        tables = [TablePages(bench, g.chat_id, [(p.id, p.name) for p in g.players],
                             [(w, f"W{w}") for w in watchers[g.chat_id]]) for g in groups]
        for t in tables:
            tasks += [asyncio.create_task(p.follow()) for p in t.pages]
        if await until_current(tables, db, 60 + args.tables / 5) is None:
            raise RuntimeError("the pages did not all open")
        for n, t in enumerate(tables):
            begin = args.ramp * n / len(tables)  # the groups begin one after another
            tasks += [asyncio.create_task(bench.play(p, i == 0, begin))
                      for i, p in enumerate(t.pages) if p.seated]
        bench.playing = True
        await asyncio.sleep(args.ramp)
        # and every table is in its coups (its lobby's message retired, once a table: the
        # window counts the coups' calls alone)
        async with asyncio.timeout(60 + args.tables / 5):
            while not all(p.snapshot is not None and p.snapshot["table"]["coup"] >= 1
                          for t in tables for p in t.pages[:1]):
                await asyncio.sleep(0.05)
        cpu0 = [cpu_seconds(b.proc.pid) or 0.0 for b in bots]  # type: ignore[union-attr]
        cpu1 = list(cpu0)
        own0 = own_cpu_seconds()
        t0, start = time.time(), time.perf_counter()
        bench.measuring = True
        resync: float | None = None
        if args.workers > 1:
            await asyncio.sleep(args.seconds / 2)
            victim = 0
            cpu1[victim] = cpu_seconds(bots[victim].proc.pid) or cpu0[victim]  # type: ignore[union-attr]
            pages = [p for t in tables for p in t.pages]
            sockets = [p.sockets for p in pages]
            killed = time.perf_counter()
            bots[victim].kill()
            # its pages have noticed once one of them opened a new socket; then every page
            # must be live again and at its table's version
            while all(p.sockets == n for p, n in zip(pages, sockets, strict=True)) \
                    and time.perf_counter() - killed < 10:
                await asyncio.sleep(0.01)
            back = await until_current(tables, db, 30)
            resync = None if back is None else round(back - killed, 3)
        await asyncio.sleep(max(0.0, args.seconds - (time.perf_counter() - start)))
        bench.playing = False
        t1 = time.time()
        for i, bot in enumerate(bots):
            if bot.proc is not None and bot.proc.poll() is None:
                cpu1[i] = cpu_seconds(bot.proc.pid) or cpu1[i]
        own1 = own_cpu_seconds()
        load = os.getloadavg()
        steps, settled = await db.counts(t0, t1)
        log = await sb.log()
        chats = {t.chat_id for t in tables}
        group_calls = sum(1 for e in log if e["method"] in GROUP_CALLS and e.get("ok", True)
                          and chat_of(e) in chats and t0 <= e["time"] <= t1)
        if DEBUG:  # one table's group calls in the window, to see what they are
            one = min(chats)
            for e in log:
                if e["method"] in GROUP_CALLS and chat_of(e) == one and t0 <= e["time"] <= t1:
                    text = str((e.get("params") or {}).get("text", ""))[:90].replace("\n", " | ")
                    print(f"{e['time'] - t0:7.2f} {e['method']:16} {text}", file=sys.stderr)
        bench.over = True
        leaked, checked = bench.leaks()
        bot_cpu = sum(cpu1) - sum(cpu0)
        return {
            "game": args.game,
            "workers": args.workers,
            "tables": args.tables,
            "pages": args.pages * args.tables,
            "pages_per_table": args.pages,
            "flat_out": args.flat_out,
            "ramp_seconds": args.ramp,
            "seconds": round(t1 - t0, 1),
            "steps": steps,
            "coups_settled": settled,
            "posts": bench.posts,
            "accepted": bench.accepted,
            "refused": bench.refused,
            "failed_posts": bench.failed,
            "refusals": dict(sorted(bench.refusals.items(), key=lambda kv: -kv[1])[:5]),
            "press_to_all_pages_ms": {"p50": percentile(bench.latencies, 50),
                                      "p95": percentile(bench.latencies, 95),
                                      "p99": percentile(bench.latencies, 99),
                                      "n": len(bench.latencies)},
            # the POST's own round trip (its answer), for comparison
            "post_answer_ms": {"p50": percentile(bench.answers, 50),
                               "p95": percentile(bench.answers, 95)},
            "group_calls": group_calls,
            "group_calls_per_coup": round(group_calls / settled, 2) if settled else None,
            "cpu_ms_per_step": round(bot_cpu * 1000 / steps, 2) if steps else None,
            "leaks": leaked,
            "frames": len(bench.frames),
            "leak_pairs_checked": checked,
            "resync_after_kill_s": resync,
            "page_errors": sum(len(p.errors) for t in tables for p in t.pages),
            "bot_tracebacks": bots[0].log_text().count("Traceback"),
            "driver_cpu_seconds": round(own1 - own0, 1),
            "cores": os.cpu_count(),
            "load_average_1m_at_end": round(load[0], 2),
        }
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for bot in bots:
            bot.kill()
        if balancer is not None:
            await balancer.stop()
        await session.close()
        await db.close()
        if schema is not None:
            await drop_schema(schema)
        unhook()
        await sb.aclose()
        await handle.stop()
        tmp.cleanup()


async def wait_ready(data_dir: Path, workers: int) -> None:
    """Until every worker has logged that it is ready."""
    log = data_dir / "bot.log"
    for _ in range(1200):
        if log.exists() and log.read_text(errors="replace").count(" ready;") >= workers:
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("the bot did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--pages", type=int, default=4,
                        help="pages per table: the three players and pages-3 watchers")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, choices=(1, 2), default=1)
    parser.add_argument("--flat-out", action="store_true", help="no think time")
    parser.add_argument("--ramp", type=float, default=10.0,
                        help="seconds over which the tables begin, before the measured window")
    parser.add_argument("--game", choices=GAMES, default="chemin_de_fer")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="the bot's DECISION_TIMEOUT in seconds")
    args = parser.parse_args()
    if args.pages < SEATS:
        parser.error(f"--pages: at least the {SEATS} players'")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        print(json.dumps(runner.run(run(args)), indent=2))


if __name__ == "__main__":
    main()

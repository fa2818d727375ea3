"""Three workers on one PostgreSQL behind a load balancer, one of them killed again and again.

Three ``python -m bot`` processes in webhook mode share one database (a schema of its
own) and one data directory (their logs and test hooks); the sandbox POSTs each update to
a random one of them, as a load balancer would, and retries elsewhere when one is down.
Six tables (one of each game) play, with presses and with deadlines running out, while a
worker is SIGKILLed and restarted every few seconds: at a random moment, or at a
dangerous one (the moment its answer to a press lands, at the very call that posts a
table or a result, right after it answered 200 to a press). In every game at least once,
the kill is aimed at a new table message of that table: the sandbox has posted it and the
answer, with its message id, never reaches the worker; the worker stays down until
another one has taken the chat over. After every kill the players hold back, the workers
are frozen (SIGSTOP) once nothing is pending, and every group must show exactly one
message with live table buttons. Afterwards: every step was
applied exactly once, every deadline fired exactly once and none is left overdue, the
chips add up, every settled coup is announced exactly once in its group and counted once
in the standings (which equal their rebuild from the recorded coups), every press was
answered exactly once and truthfully, and each group has exactly one message with live
table buttons, the table's current one.

Each worker is reached through a relay of the test's own (:class:`Relays`), both ways:
the sandbox's webhook POSTs go to the worker through it and the worker's Bot API calls go
to the sandbox through it. That is how the test knows which worker took which press and
which answered it, and how it kills a worker at the very call it is making.

A steps row does not say whose press made it, so "truthfully" is checked by time: a
press's step can only be committed between the moment a worker was handed the press and
the moment that worker answered it or died (``Press.window``); each step that is not a
logged timeout and falls in some press's window must be matched to a press answered as
accepted, and each press answered as accepted to one such step.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import math
import os
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import aiohttp
import asyncpg
import harness
from aiohttp import web
from harness import SETTLED_RE, BotProcess, Game, Player, decode_action, settled_coups
from storage_backends import PG_DSN, drop_schema
from test_e2e_faults import open_table, prefer
from test_e2e_webhook import free_port

from bot.view import i18n
from games import registry
from sandbox.client import SandboxClient, SandboxError
from storage.booking import AUDIT_QUERIES
from storage.postgres_coord import LEASE, lock_key
from storage.standings import DERIVED

SECRET = "workers_Secret-1"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
TIMEOUT = 2.0
PLAY = 45.0
T = TypeVar("T")
TIMED_OUT_RE = re.compile(r"chat (-?\d+): step (\d+) timed out")


class Database:
    """Synchronous reads of the workers' PostgreSQL schema, for the harness (which reads
    the bot's database while it plays): a connection on a loop of its own thread."""

    def __init__(self, schema: str) -> None:
        self.schema = schema
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.conn: asyncpg.Connection = self.run(asyncpg.connect(
            PG_DSN, server_settings={"search_path": schema}))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def fetch(self, sql: str, *args: Any) -> list[Any]:
        return self.run(self.conn.fetch(sql, *args))

    def close(self) -> None:
        self.run(self.conn.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class SharedView(BotProcess):
    """What the harness reads of "the bot": the shared data directory (logs, test hooks)
    and the shared database. It is no process of its own."""

    def __init__(self, url: str, data_dir: Path, db: Database) -> None:
        super().__init__(url, data_dir)
        self.db = db
        # the last rows read, per chat: what the transcript check reads once the schema
        # is gone
        self.frozen: dict[int, tuple[tuple[str, str, int] | None, dict[str, Any]]] | None = None

    def freeze(self, chats: Sequence[int]) -> None:
        """Keep the tables as they are now; the database is not read any more."""
        self.frozen = {c: (self.db_table(c), self.db_meta(c)) for c in chats}

    def db_table(self, chat_id: int) -> tuple[str, str, int] | None:
        if self.frozen is not None:
            return self.frozen[chat_id][0]
        rows = self.db.fetch("SELECT game, state, version FROM tables WHERE chat_id = $1",
                             chat_id)
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def db_meta(self, chat_id: int) -> dict[str, Any]:
        if self.frozen is not None:
            return self.frozen[chat_id][1]
        rows = self.db.fetch("SELECT meta::text FROM tables WHERE chat_id = $1", chat_id)
        return json.loads(rows[0][0]) if rows else {}


def worker(api_url: str, data_dir: Path, database_url: str, port: int) -> BotProcess:
    """One worker: webhook mode on ``port``, the shared database and data directory, its
    Bot API calls to ``api_url`` (its relay)."""
    return BotProcess(api_url, data_dir, timeout=TIMEOUT, extra={
        "DATABASE_URL": database_url, "WEBHOOK_URL": f"http://127.0.0.1:{port}",
        "WEBHOOK_LISTEN": "127.0.0.1", "WEBHOOK_PORT": str(port), "WEBHOOK_PATH": "/telegram",
        "WEBHOOK_SECRET": SECRET, "STOP_FLUSH": "0.5"})


# --- the relays and the killer: whose call is whose, and death at the worst moment --------


@dataclass
class Attempt:
    """One webhook POST of a press to a worker, as its relay saw it (wall-clock times)."""

    worker: int
    start: float  # before the POST left the relay: the worker cannot have had it earlier
    end: float
    status: int | None  # the worker's HTTP status; None: no answer (connection lost)
    refused: bool  # the connection was refused: the worker never saw the press


def _params(body: bytes) -> dict[str, Any]:
    """A request's parameters, from a JSON or a urlencoded body."""
    try:
        value = json.loads(body)
    except ValueError:
        return dict(parse_qsl(body.decode("utf-8", "replace")))
    return value if isinstance(value, dict) else {}


def table_marks(message: dict[str, Any]) -> set[tuple[int, int]]:
    """(coup, decision) of every table action button (``a|...``) of a message."""
    markup = message.get("reply_markup")
    markup = json.loads(markup) if isinstance(markup, str) else markup
    rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
    return {action[:2] for row in rows for button in row
            if (action := decode_action(button.get("callback_data"))) is not None}


Handler = Callable[[web.Request], Coroutine[Any, Any, web.Response]]


@dataclass
class Relays:
    """One relay per worker, in this process on a port of its own: ``/telegram`` passes
    the sandbox's webhook POSTs on to the worker, ``/bot<token>/<method>`` its Bot API
    calls on to the sandbox. They record each press's POSTs and answers with the worker
    concerned, and report the dangerous moments to ``on_moment(kind, worker, group)``."""

    sandbox_url: str
    on_moment: Callable[[str, int, int], None] = lambda kind, worker, group: None
    attempts: dict[str, list[Attempt]] = field(default_factory=dict)
    answers: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)  # each press's callback data
    # (group, message id) -> (worker, wall-clock time) of each message sent to a group
    posts: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)
    runners: list[web.AppRunner] = field(default_factory=list)
    sessions: list[aiohttp.ClientSession] = field(default_factory=list)

    async def start(self, ports: Sequence[int]) -> list[str]:
        """A relay in front of the worker of each port; their base URLs."""
        timeout = aiohttp.ClientTimeout(total=30)
        # a new connection per POST: a pooled one to a killed worker would fail as if the
        # worker had taken the press, and while it is down the connection must be refused
        hooks = aiohttp.ClientSession(timeout=timeout,
                                      connector=aiohttp.TCPConnector(force_close=True))
        api = aiohttp.ClientSession(timeout=timeout)
        self.sessions = [hooks, api]
        urls = []
        for index, port in enumerate(ports):
            app = web.Application(client_max_size=64 * 1024 * 1024)
            app.router.add_post("/telegram", self._webhook(hooks, index, port))
            app.router.add_route("*", "/bot{token}/{method}", self._bot_api(api, index))
            runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            self.runners.append(runner)
            urls.append(f"http://127.0.0.1:{runner.addresses[0][1]}")
        return urls

    async def stop(self) -> None:
        for runner in self.runners:
            await runner.cleanup()
        for session in self.sessions:
            await session.close()

    def _webhook(self, session: aiohttp.ClientSession, index: int, port: int) -> Handler:
        async def deliver(request: web.Request) -> web.Response:
            body = await request.read()
            headers = {k: v for k, v in request.headers.items()
                       if k.lower() in ("content-type", SECRET_HEADER.lower())}
            query = _params(body).get("callback_query")
            qid = None
            if isinstance(query, dict) and "id" in query:
                qid = str(query["id"])
                self.data[qid] = str(query.get("data"))
            start, status, refused = time.time(), None, False
            try:
                async with session.post(f"http://127.0.0.1:{port}/telegram", data=body,
                                        headers=headers) as response:
                    await response.read()
                    status = response.status
            except aiohttp.ClientConnectorError:
                refused = True
            except (aiohttp.ClientError, TimeoutError, OSError):
                pass
            if qid is not None:
                self.attempts.setdefault(qid, []).append(
                    Attempt(index, start, time.time(), status, refused))
                if status == 200:
                    self.on_moment("delivered", index, 0)
            # what a load balancer says of a worker that did not answer: try again
            return web.Response(status=status or 502)
        return deliver

    def _bot_api(self, session: aiohttp.ClientSession, index: int) -> Handler:
        async def call(request: web.Request) -> web.Response:
            body = await request.read()
            headers = {k: v for k, v in request.headers.items() if k.lower() == "content-type"}
            async with session.request(request.method, self.sandbox_url + request.path_qs,
                                       data=body, headers=headers) as response:
                payload = await response.read()
                status, ctype = response.status, response.content_type
            method = request.match_info["method"].lower()
            if method == "answercallbackquery":
                params = _params(body)
                qid = str(params.get("callback_query_id"))
                self.answers.setdefault(qid, []).append((index, time.time()))
                if accepted(self.data.get(qid, ""), params.get("text")):
                    self.on_moment("answer", index, 0)
            elif method in ("sendmessage", "editmessagetext") and status == 200:
                sent = json.loads(payload).get("result")
                group = sent.get("chat", {}).get("id", 0) if isinstance(sent, dict) else 0
                if group < 0 and method == "sendmessage":
                    self.posts[(group, sent["message_id"])] = (index, time.time())
                if group < 0 and method == "sendmessage" and table_marks(sent):
                    # a new table message, posted: its id never reaches the worker
                    self.on_moment("table", index, group)
                if group < 0 and ((method == "sendmessage" and table_marks(sent))
                                  or SETTLED_RE.search(sent.get("text") or "")):
                    self.on_moment("post", index, group)
            # after a kill this goes to nobody: the worker died at the very call
            return web.Response(body=payload, status=status, content_type=ctype)
        return call


class Killer:
    """SIGKILLs one worker at a time and starts it again a moment later. Every few seconds
    it either kills a random worker at once or arms one of ``MOMENTS`` and kills the worker
    whose relay reports that moment first (:meth:`moment`): its answer to a press it
    committed has just reached the sandbox ("answer": it never learns it landed); the very
    call that posts a table or a result in a group has just taken effect ("post"); it has
    just answered 200 to a press ("delivered"). Besides, each of ``targets`` (groups) gets a
    kill aimed at the post of a new table message there ("table"; the answer and its message
    id never reach the worker), and the worker stays down until ``taken_over(group)`` (the
    chat delivered by another worker). After each kill ``check(why)`` (a frozen look at
    the groups) runs, for a table kill before the killed worker starts again."""

    MOMENTS = ("answer", "post", "delivered")

    def __init__(self, workers: Sequence[BotProcess], rng: random.Random,
                 targets: Sequence[int] = (),
                 check: Callable[[str], Coroutine[Any, Any, None]] | None = None,
                 taken_over: Callable[[int], Coroutine[Any, Any, None]] | None = None) -> None:
        self.workers = list(workers)
        self.rng = rng
        self.restart_rng = random.Random(rng.random())
        self.targets = list(targets)  # groups still to get a kill at a table post
        self.check = check
        self.taken_over = taken_over
        self.seize: Callable[[int], None] | None = None  # called before a table kill
        self.target: int | None = None
        self.hit: int | None = None  # the group of the table kill being made
        self.hits: list[int] = []  # the groups of the table kills made
        self.armed: str | None = None
        self.fired = asyncio.Event()
        self.down: set[int] = set()
        # wall-clock times each worker was killed (it was dead by then)
        self.deaths: dict[int, list[float]] = {i: [] for i in range(len(self.workers))}
        self.kills: dict[str, int] = {}
        self.restarts: set[asyncio.Task[None]] = set()

    @property
    def total(self) -> int:
        return sum(n for why, n in self.kills.items() if why != "missed")

    def moment(self, kind: str, index: int, group: int = 0) -> None:
        """Worker ``index`` is at a dangerous moment (in ``group``, for a post): kill it
        there if that one is armed."""
        if self.armed == kind and not self.down and self.target in (None, group):
            self.armed = None
            self.hit = group if kind == "table" else None
            if kind == "table":
                self.hits.append(group)
                if self.seize is not None:
                    self.seize(group)
            self._kill(index, kind)
            self.fired.set()

    def _kill(self, index: int, why: str) -> None:
        self.workers[index].kill()
        self.deaths[index].append(time.time())
        self.down.add(index)
        self.kills[why] = self.kills.get(why, 0) + 1
        task = asyncio.get_running_loop().create_task(self._restart(index, self.hit))
        self.restarts.add(task)
        task.add_done_callback(self.restarts.discard)

    async def _restart(self, index: int, group: int | None) -> None:
        if group is not None and self.taken_over is not None:
            await self.taken_over(group)  # another worker delivers the chat, this one dead
            if self.check is not None:
                await self.check(f"table kill in chat {group}, w{index} still down")
        else:
            await asyncio.sleep(self.restart_rng.uniform(0.3, 1.5))
        self.workers[index].start()
        self.down.discard(index)

    async def settled(self) -> None:
        """Every killed worker started again."""
        while self.restarts:
            await asyncio.gather(*list(self.restarts))

    async def run(self, until: float, others: int = 4) -> None:
        """Kill until ``until`` (monotonic), every target had its table kill and there were
        ``others`` kills of other kinds (for three times as long at most), then let the last
        one come back."""
        end = until + 3 * (until - time.monotonic())
        while time.monotonic() < until or (time.monotonic() < end and (
                self.targets or self.total - self.kills.get("table", 0) < others)):
            await asyncio.sleep(self.rng.uniform(3.0, 6.0))
            await self.settled()
            mode = self.rng.choice(("random", *self.MOMENTS))
            if self.targets and self.rng.random() < 0.5:
                mode, self.target = "table", self.targets.pop(0)
            if mode == "random":
                self._kill(self.rng.randrange(len(self.workers)), mode)
            else:
                self.fired.clear()
                self.armed = mode
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.fired.wait(), 10.0 if self.target else 5.0)
                self.armed = None
                # a kill made as the wait ran out is a kill: its target had its table kill
                # (counted missed, it was targeted again, and hit twice)
                if not self.fired.is_set():
                    self.kills["missed"] = self.kills.get("missed", 0) + 1
                    if self.target is not None:  # its table posted nothing: later
                        self.targets.append(self.target)
                    self.target = None
                    continue
                self.target = self.hit = None
            await self.settled()
            if self.check is not None and mode != "table":  # a table kill's ran before
                await self.check(f"{mode} kill")
        await self.settled()

    def sent_by(self, relays: Relays, chat: int, message_id: int, t0: float) -> str:
        """Which worker sent a group message, when, and when that worker was next killed."""
        if (chat, message_id) not in relays.posts:
            return "sent by no worker seen"
        index, at = relays.posts[(chat, message_id)]
        died = [t - t0 for t in self.deaths[index] if t >= at][:1]
        return (f"sent by w{index} at {at - t0:.3f}s, "
                + (f"killed at {died[0]:.3f}s" if died else "not killed after"))


# --- the players ------------------------------------------------------------------------------


async def drive(game: Game, name: str, until: Callable[[], bool], rng: random.Random,
                counts: dict[str, int], allowed: asyncio.Event) -> None:
    """Players of one table, until ``until()``: the awaited one presses by the harness's
    policy, or now and then lets his clock run out; an empty table is joined and started
    again. A press lost with a killed worker (taken, never applied), or refused because
    the bot redrew the message under his finger, is simply made again. They press only
    while ``allowed`` is set (the frozen looks hold them back)."""
    while not until():
        await allowed.wait()
        try:
            message = await game.synced()
            awaited = game.awaited(message)
            if not awaited:
                player = rng.choice(game.players)
                await game.step(player, ["join", "start"])
            elif rng.random() < 0.15:
                counts["waits"] += 1
                await asyncio.sleep(TIMEOUT + 0.5)
            else:
                await game.step(rng.choice(awaited), prefer(name, message))
                counts["presses"] += 1
        except (AssertionError, TimeoutError, OSError, KeyError, SandboxError) as exc:
            # (SandboxError: his press found the button gone, the bot redrew his private
            # prompt under his finger, e.g. as his clock ran out while the players waited)
            counts["retries"] += 1
            counts[type(exc).__name__] = counts.get(type(exc).__name__, 0) + 1
            await asyncio.sleep(0.3)


# --- what the presses did, what the groups show -----------------------------------------------


def accepted(data: str, text: str | None) -> bool:
    """Whether a press was answered as a committed step: the pop-up of an accepted press
    (bot.table.presses ``_next``) is the action's label, alone or followed by " · " and whose
    move it is now (a Join's says the chips he sits down with); every refusal, and every
    answer that commits no step (pick your cards in private, type an amount), says
    something else."""
    action = decode_action(data)
    if action is None or not text:
        return False
    labels = [i18n.plain(i18n.action_label(lang, action[2])) for lang in ("en", "ru")]
    if action[2] == "join":  # "🪑 You sit down with 1000": the chips he sits down with
        labels = [i18n.plain(i18n.t(lang, "join_done", amount="\0")).split("\0")[0]
                  for lang in ("en", "ru")]
        return any(str(text).startswith(label) for label in labels)
    return any(text == label or str(text).startswith(f"{label} · ") for label in labels)


@dataclass
class Press:
    """One callback query as the sandbox and the relays saw it."""

    qid: str
    chat: int  # the table's group (a private keyboard's press names it in its data)
    user: int
    data: str
    text: str | None
    calls: int  # answerCallbackQuery calls that reached the sandbox, refused ones included
    attempts: list[Attempt]
    answers: list[tuple[int, float]]
    deaths: list[tuple[int, float]] = field(default_factory=list)  # of workers that took it
    # when a step of this press can have been committed: from the first POST that reached
    # a worker to the last moment a worker that took it was still working on it
    window: tuple[float, float] | None = None
    step: int | None = None  # the step matched to it

    @property
    def accepted(self) -> bool:
        return accepted(self.data, self.text)

    def describe(self, t0: float) -> str:
        tries = ", ".join(f"w{a.worker} {a.start - t0:.3f}-{a.end - t0:.3f}s "
                          f"{'refused' if a.refused else a.status}" for a in self.attempts)
        answers = ", ".join(f"w{w} {t - t0:.3f}s" for w, t in self.answers)
        deaths = ", ".join(f"w{w} {t - t0:.3f}s" for w, t in self.deaths)
        return (f"press {self.qid} of user {self.user} {self.data!r} answered {self.calls}x "
                f"{self.text!r}; POSTs: [{tries}]; answers: [{answers}]; killed: [{deaths}]")


def answered_once(press: Press) -> bool:
    """One answer reached the presser: exactly one call, or a second one only where the
    worker that answered first died before its 200 (the update comes again, as Telegram
    sends it again, and is answered again with the same truth; Telegram refuses a second
    answer to one query, so the presser sees one pop-up)."""
    if press.calls == 1:
        return True
    if press.calls != 2 or not press.answers:
        return False
    first = press.answers[0][0]
    taken = [a for a in press.attempts if not a.refused]
    return len(taken) >= 2 and any(w == first for w, _ in press.deaths)


def presses_of(answers: list[dict[str, Any]], relays: Relays, killer: Killer) -> list[Press]:
    """Every callback query the players made, with its window (see :class:`Press`)."""
    out = []
    for a in answers:
        qid, data = str(a["callback_query_id"]), str(a["data"])
        chat = int(data.split("|")[1]) if decode_action(data) else int(a["chat_id"])
        press = Press(qid, chat, int(a["user_id"]), data, a["text"], int(a["answer_calls"]),
                      relays.attempts.get(qid, []), relays.answers.get(qid, []))
        taken = [a for a in press.attempts if not a.refused]
        ends = []
        for attempt in taken:
            # the worker was done with it at its answer, or dead; a worker that answered
            # the POST with an error did not take the press
            done = [t for w, t in press.answers if w == attempt.worker and t >= attempt.start]
            died = [t for t in killer.deaths[attempt.worker] if t >= attempt.start][:1]
            press.deaths += [(attempt.worker, t) for t in died
                             if (attempt.worker, t) not in press.deaths]
            if attempt.status is not None and not 200 <= attempt.status < 300:
                done.append(attempt.end)
            ends.append(min(done + died, default=math.inf))
        if taken:
            press.window = (min(a.start for a in taken), max(ends))
        out.append(press)
    return out


def untruthful(presses: list[Press], steps: list[tuple[int, int, float]],
               timed_out: set[tuple[int, int]], t0: float) -> tuple[list[str], dict[str, int]]:
    """Every press answered truthfully: each step not committed by a deadline (a logged
    timeout) that was committed while a press of its table was being processed is matched
    to one such press answered as accepted (a press's step is committed after its update
    reached a worker and before that worker answered it or died); a step no accepted press
    can explain, or an accepted press with no step, is a problem. Returns the problems and
    figures."""
    problems: list[str] = []
    figures = {"matched": 0, "outside": 0}
    by_chat: dict[int, list[Press]] = {}
    for press in presses:
        by_chat.setdefault(press.chat, []).append(press)
    for chat, version, at in sorted(steps, key=lambda s: s[2]):
        during = [p for p in by_chat.get(chat, []) if p.window
                  and p.window[0] <= at <= p.window[1]]
        if (chat, version) in timed_out:
            continue
        if not during:  # neither a logged deadline's nor a press's: counted, shown
            figures["outside"] += 1
            continue
        free = [p for p in during if p.accepted and p.step is None]
        if free:  # the one whose window closes first: intervals matched to points, greedily
            min(free, key=lambda p: p.window[1] if p.window else math.inf).step = version
            figures["matched"] += 1
            continue
        problems.append(
            f"chat {chat}: step {version} committed at {at - t0:.3f}s while only these "
            f"presses, none answered as accepted, were being processed: "
            + "; ".join(p.describe(t0) for p in during))
    problems += [f"chat {p.chat}: answered as accepted, yet no step was committed while it "
                 f"was processed: {p.describe(t0)}" for p in presses
                 if p.accepted and p.step is None]
    return problems, figures


def process_state(worker: BotProcess) -> str:
    """A worker's process as the kernel has it: running, sleeping, stopped (T), or gone."""
    proc = worker.proc
    if proc is None:
        return "never started"
    if proc.poll() is not None:
        return f"pid {proc.pid} exited with {proc.returncode}"
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return f"pid {proc.pid} unreadable"
    return f"pid {proc.pid} state {fields[0]}"


async def live_tables(sb: SandboxClient, db: Database, chats: Sequence[int],
                      who: Callable[[int, int], str], current: bool = True) -> dict[int, str]:
    """Chats whose group has not exactly one message with table action buttons, that of
    the table's current coup and decision (without ``current``: any one); what they show
    (``who``: a message's sender)."""
    out = {}
    for chat in chats:
        state, meta = db.fetch("SELECT state, meta::text FROM tables WHERE chat_id = $1",
                               chat)[0]
        coup, decision = json.loads(state)["coup"], json.loads(meta).get("decision", 0)
        live = [(m["message_id"], sorted(table_marks(m)), (m["text"] or "").split("\n")[0])
                for m in await sb.bot_messages(chat) if table_marks(m)]
        if len(live) != 1 or (current and live[0][1] != [(coup, decision)]):
            out[chat] = (f"chat {chat}: table at coup {coup}, decision {decision}; messages "
                         f"with table buttons: " + "; ".join(
                             f"#{mid} buttons of (coup, decision) {marks} {line!r} "
                             f"{who(chat, mid)}" for mid, marks, line in live))
    return out


@dataclass
class FrozenLooks:
    """The look after each kill (:class:`Killer`): the players hold back (``allowed``
    cleared), and once nothing is pending (no outbox row, no table message whose predecessor
    is still live in the record, no webhook POST waiting or under way) every worker is
    frozen (SIGSTOP) and each group must show exactly one message with live table buttons
    (the table's current decision may still be on its way: a held edit is no outbox row).

    And the takeover after a kill at a table post (:meth:`seize`, :meth:`taken_over`): the
    test takes the chat's delivery lease as the killed worker's connection ends, a player
    asks for the table again (``/table``) while nobody delivers the chat, so the post of
    unknown outcome waits in the outbox before a later one, and only then the lease goes to
    another worker (as a slow takeover with a busy table would have it)."""

    sb: SandboxClient
    db: Database
    workers: Sequence[BotProcess]
    chats: Sequence[int]
    who: Callable[[int, int], str]
    t0: float
    schema: str
    askers: dict[int, int]  # a player of each group (who asks for the table)
    allowed: asyncio.Event = field(default_factory=asyncio.Event)
    looks: int = 0
    problems: list[str] = field(default_factory=list)
    # the test's own connection queued for, then holding, a group's delivery lease
    lease: tuple[asyncpg.Connection, int, concurrent.futures.Future[Any]] | None = None

    async def still(self) -> bool:
        pending = self.db.fetch("SELECT count(*) FROM outbox WHERE sent_at IS NULL")[0][0]
        retiring = self.db.fetch("SELECT count(*) FROM (SELECT chat_id FROM outbox WHERE live"
                                 " GROUP BY chat_id HAVING count(*) > 1) AS x")[0][0]
        webhook = await self.sb.webhook()
        return bool(pending == retiring == webhook["pending"] == webhook["in_flight"] == 0)

    async def look(self, why: str) -> None:
        """Freeze the workers at a still moment and look at every group."""
        self.allowed.clear()
        try:
            for _ in range(50):
                await self.sb.wait_for(self.still, timeout=60)
                for w in self.workers:
                    w.pause()
                try:
                    if await self.still():
                        self.looks += 1
                        wrong = await live_tables(self.sb, self.db, self.chats, self.who,
                                                  current=False)
                        self.problems += [f"frozen after a {why} at {time.time() - self.t0:.3f}s:"
                                          f" {what}" for what in wrong.values()]
                        return
                finally:
                    for w in self.workers:
                        w.resume()
            self.problems.append(f"never still after a {why}")
        finally:
            self.allowed.set()

    def seize(self, group: int) -> None:
        """Queue for the group's delivery lease, which the worker about to be killed holds:
        returns once the request waits in the database, so that it gets the lease the
        moment that worker's connection ends, before any other worker."""
        conn = self.db.run(asyncpg.connect(PG_DSN))
        key = lock_key(self.schema, LEASE, group)
        got = asyncio.run_coroutine_threadsafe(
            conn.fetchval("SELECT pg_advisory_lock($1)", key), self.db.loop)
        self.lease = (conn, key, got)
        pid = conn.get_server_pid()
        while not got.done() and not self.db.fetch(
                "SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted", pid)[0][0]:
            time.sleep(0.002)

    async def taken_over(self, group: int) -> None:
        """The killed worker's chat, its lease held by the test (:meth:`seize`): a player
        asks for the table again; then the lease goes and every outbox row the group has
        by then is delivered (by another worker: the killed one stays down)."""
        assert self.lease is not None
        conn, key, got = self.lease
        await asyncio.wrap_future(got)  # the killed worker's connection has ended
        await self.sb.send(group, self.askers[group], "/table")

        def asked() -> bool:  # committed: two table posts wait, the first of unknown outcome
            return self.db.fetch("SELECT count(*) FROM outbox WHERE chat_id = $1"
                                 " AND kind = 'table' AND sent_at IS NULL", group)[0][0] >= 2
        await self.sb.wait_for(asked, timeout=30)
        last = self.db.fetch("SELECT coalesce(max(id), 0) FROM outbox WHERE chat_id = $1",
                             group)[0][0]
        self.db.run(conn.execute("SELECT pg_advisory_unlock($1)", key))
        self.db.run(conn.close())
        self.lease = None

        def delivered() -> bool:
            return self.db.fetch("SELECT count(*) FROM outbox WHERE chat_id = $1 AND id <= $2"
                                 " AND sent_at IS NULL", group, last)[0][0] == 0
        await self.sb.wait_for(delivered, timeout=60)


async def unannounced(sb: SandboxClient, db: Database, chat: int, shown: dict[int, int],
                      who: Callable[[int, int], str]) -> str:
    """The settlements of a chat whose result does not stand once in the group: each
    outbox row's coup, message and delivery, and what that message says now."""
    texts = {m["message_id"]: m for m in await sb.messages(chat)}
    out = []
    for payload, message_id, sent in db.fetch(
            "SELECT payload::text, message_id, sent_at IS NOT NULL FROM outbox"
            " WHERE chat_id = $1 AND kind = 'settle' ORDER BY id", chat):
        found = SETTLED_RE.search(json.loads(payload).get("text", ""))
        coup = int(found.group(1) or found.group(2)) if found else None
        if coup is not None and shown.get(coup) == 1:
            continue
        now = texts.get(message_id) or {}
        out.append(f"coup {coup}: outbox sent={sent} into message #{message_id} "
                   f"({who(chat, message_id) if message_id else '-'}), which now reads "
                   f"{(now.get('text') or '').split(chr(10))[0]!r}"
                   f"{' (deleted)' if now.get('deleted') else ''}")
    return "; ".join(out)


# --- the test ---------------------------------------------------------------------------------


async def test_three_workers_one_killed_again_and_again_apply_every_step_once(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    schema = f"t_{uuid.uuid4().hex[:16]}"
    database_url = f"{PG_DSN}?schema={schema}"
    data_dir = tmp_path / "data"
    ports = [free_port() for _ in range(3)]
    rng = random.Random(1313)
    relays = Relays(handle.url)
    workers: list[BotProcess] = []
    db: Database | None = None
    view: SharedView | None = None
    try:
        urls = await relays.start(ports)
        workers += [worker(url, data_dir, database_url, port)
                    for url, port in zip(urls, ports, strict=True)]
        chats = [-8800 - n for n in range(len(registry_games()))]
        killer = Killer(workers, rng, targets=chats)
        relays.on_moment = killer.moment
        for w in workers:
            bot_factory.append(w)
            w.start()
        await sb.webhook_spread([f"{url}/telegram" for url in urls])
        handle.delivery.random.seed(rng.random())  # which worker each POST goes to
        await sb.wait_for(lambda: (data_dir / "bot.log").exists()
                          and (data_dir / "bot.log").read_text().count(" ready;") >= 3,
                          timeout=60)
        db = Database(schema)
        view = SharedView(handle.url, data_dir, db)
        games = registry_games()
        tables: list[tuple[Game, str]] = []
        for n, name in enumerate(games):
            chat = -8800 - n
            players = [Player(88000 + 10 * n + k, who) for k, who in
                       enumerate(("Ann", "Bob", "Cid"))]
            game = Game(sb, view, chat, players)
            await open_table(game, name)
            tables.append((game, name))

        t0 = time.time()

        def sender(chat: int, message_id: int) -> str:
            return killer.sent_by(relays, chat, message_id, t0)
        frozen = FrozenLooks(sb, db, workers, chats, sender, t0, schema,
                             {g.chat_id: g.players[0].id for g, _ in tables})
        frozen.allowed.set()
        killer.check, killer.taken_over = frozen.look, frozen.taken_over
        killer.seize = frozen.seize
        counts = {"presses": 0, "waits": 0, "retries": 0}
        played = asyncio.Event()

        async def kill() -> None:
            await killer.run(time.monotonic() + PLAY)
            played.set()
        started = time.monotonic()
        drivers = [drive(g, name, played.is_set, random.Random(rng.random()), counts,
                         frozen.allowed) for g, name in tables]
        await asyncio.gather(kill(), *drivers)
        print(f"\n{killer.total} kills {killer.kills} in {time.monotonic() - started:.0f}s, "
              f"{frozen.looks} frozen looks, {counts}")
        assert killer.total >= 6 and killer.total - killer.kills.get("random", 0) >= 2
        assert sorted(killer.hits) == sorted(chats)  # a kill at a table post in every game
        # one live table message per group at every frozen look
        assert not frozen.problems, "\n".join(frozen.problems)

        # every worker up again: whatever was pending is delivered, nothing stays overdue;
        # then the workers are frozen (SIGSTOP) at such a quiet moment, so that what the
        # checks read stays as it is (the tables go on timing out, and a settlement committed
        # after the checks began would read as unannounced)
        loud: list[str] = []  # what kept the last look from being quiet

        async def quiet() -> bool:
            pending = db.fetch("SELECT count(*) FROM outbox WHERE sent_at IS NULL")[0][0]
            overdue = db.fetch("SELECT count(*) FROM tables WHERE due < $1",
                               time.time() - 3 * TIMEOUT)[0][0]
            # a table message posted, the one before it not yet retired
            retiring = db.fetch("SELECT count(*) FROM (SELECT chat_id FROM outbox WHERE live"
                                " GROUP BY chat_id HAVING count(*) > 1) AS x")[0][0]
            webhook = await sb.webhook()
            # and each group's table message shows the table's decision (an edit the pace
            # holds back a moment is no outbox row)
            stale = await live_tables(sb, db, [g.chat_id for g, _ in tables],
                                      lambda chat, message: "")
            counts = {"unsent outbox rows": pending, "tables overdue": overdue,
                      "chats retiring a table message": retiring,
                      "webhook updates pending": webhook["pending"],
                      "webhook posts in flight": webhook["in_flight"]}
            loud[:] = [f"{k}: {v}" for k, v in counts.items() if v] + list(stale.values())
            return not loud
        for _ in range(50):
            try:
                await sb.wait_for(quiet, timeout=60)
            except TimeoutError:
                overdue = db.fetch("SELECT chat_id, version, due FROM tables WHERE due < $1",
                                   time.time() - 3 * TIMEOUT)
                waiting = db.fetch("SELECT pid, state, wait_event_type, wait_event, query"
                                   " FROM pg_stat_activity WHERE state <> 'idle'"
                                   " AND pid <> pg_backend_pid()")
                raise AssertionError("the workers were not quiet within 60 s: "
                                     + "; ".join(loud) + f" (at {time.time() - t0:.1f} s;"
                                     f" overdue tables: {overdue}; workers: "
                                     f"{[process_state(w) for w in workers]}; database "
                                     f"sessions at work: {waiting}; log tail: "
                                     f"{view.log_text()[-3000:]})") from None
            for w in workers:
                w.pause()
            if await quiet():
                break
            for w in workers:  # a step came between the look and the freeze: again
                w.resume()
        else:
            raise AssertionError("the workers were never quiet at once: " + "; ".join(loud))
        await asyncio.sleep(1.0)

        problems: list[str] = []
        if frozen.looks != killer.total:  # a frozen look after each kill
            problems.append(f"{frozen.looks} frozen looks for {killer.total} kills")

        # every step applied exactly once: one steps row per version, none skipped
        versions: dict[int, list[int]] = {}
        steps: list[tuple[int, int, float]] = []
        for chat, version, at in db.fetch(
                "SELECT chat_id, version, extract(epoch FROM created_at)::float8 FROM steps"
                " WHERE kind = 'step' ORDER BY chat_id, version"):
            versions.setdefault(chat, []).append(version)
            steps.append((chat, version, at))
        assert len(versions) == 6
        for chat, seen in versions.items():
            final = view.db_table(chat)
            assert final is not None
            if seen != list(range(1, final[2] + 1)):
                problems.append(f"steps of chat {chat}: {seen}")
        assert sum(len(v) for v in versions.values()) > 100

        # every deadline fired exactly once, by whichever worker claimed it
        fired = [(int(c), int(v)) for c, v in TIMED_OUT_RE.findall(view.log_text())]
        assert len(fired) >= 6
        if len(fired) != len(set(fired)) or not all(v in versions[c] for c, v in fired):
            problems.append(f"deadlines fired: {sorted(fired)}")

        # chips conserved
        audit = {k: int(db.fetch(sql)[0][0]) for k, sql in AUDIT_QUERIES.items()}
        assert audit["issued"] > 0, audit
        if not (audit["wallets"] + audit["on_tables"] == audit["issued"]
                and audit["unbalanced_steps"] == 0 and audit["ledger_drift"] == 0):
            problems.append(f"chips: {audit}")

        # every settled coup announced once: as many results in the group as settlements
        # the bot committed (each an outbox row of its own), each coup once
        total = 0
        for game, name in tables:
            shown = await settled_coups(sb, game.chat_id)
            settled = db.fetch("SELECT count(*) FROM outbox WHERE chat_id = $1"
                               " AND kind = 'settle'", game.chat_id)[0][0]
            if not set(shown.values()) <= {1} or len(shown) != settled:
                problems.append(f"{name} (chat {game.chat_id}): results shown per coup "
                                f"{shown} for {settled} settlements: "
                                + await unannounced(sb, db, game.chat_id, shown, sender))
            total += settled
        assert total >= 6

        # every settled coup counted once in the standings (one recorded coup per
        # settlement), and the figures equal their rebuild from the recorded coups alone
        recorded = dict(db.fetch("SELECT chat_id, count(*) FROM coups GROUP BY chat_id"))
        settles = dict(db.fetch("SELECT chat_id, count(*) FROM outbox WHERE kind = 'settle'"
                                " GROUP BY chat_id"))
        if recorded != settles:
            problems.append(f"coups recorded {recorded} for settlements {settles}")
        derived = standings_rows(db)
        rebuilt = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "bot.admin", "rebuild-stats"], text=True,
            capture_output=True, timeout=120, cwd=harness.ROOT,
            env={**os.environ, "PYTHONPATH": str(harness.ROOT), "DATABASE_URL": database_url})
        if rebuilt.stdout != f"{sum(recorded.values())} coup(s) folded into the standings\n" \
                or standings_rows(db) != derived:
            problems.append(f"standings rebuilt ({rebuilt.stdout}{rebuilt.stderr}) differ")
        takeovers = view.log_text().count("delivery taken over")

        # every press answered exactly once (none left spinning, none answered twice), and
        # truthfully: accepted only if it committed a step, refused only if it did not
        answers = await sb.answers()
        presses = presses_of(answers, relays, killer)
        for press in presses:
            if not answered_once(press):
                problems.append(f"chat {press.chat}: {press.describe(t0)}")
        lies, matched = untruthful(presses, steps, {(c, v + 1) for c, v in fired}, t0)
        problems += lies
        good = sum(p.accepted for p in presses)
        assert good > 100 and matched["matched"] > 100, matched
        redelivered = sum(1 for p in presses if sum(not a.refused for a in p.attempts) > 1)
        failed_posts = sum(1 for p in presses for a in p.attempts if a.status != 200)

        # exactly one message per group carries live table buttons: the table's current one
        async def one_live() -> bool:
            return not await live_tables(sb, db, chats, sender)
        try:
            await sb.wait_for(one_live, timeout=15)
        except TimeoutError:
            problems += (await live_tables(sb, db, chats, sender)).values()

        print(f"{killer.total} kills {killer.kills}; {len(presses)} presses, "
              f"{sum(p.calls for p in presses)} answers ({good} accepted, "
              f"{matched['matched']} matched to their step), {len(fired)} deadlines, "
              f"{takeovers} takeovers, {total} settlements, {counts['retries']} retries by "
              f"the players, {failed_posts} webhook POSTs of presses failed, "
              f"{redelivered} presses taken by two workers or more, "
              f"{matched['outside']} steps neither a logged deadline's nor made during a press")
        assert takeovers >= 1
        assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)
    finally:
        for w in workers:
            w.kill()
        await relays.stop()
        if view is not None:
            view.freeze([g.chat_id for g in harness.LIVE])
        if db is not None:
            db.close()
        await drop_schema(schema)


def standings_rows(db: Database) -> list[list[tuple[Any, ...]]]:
    """Every row of the standings' derived tables, in key order."""
    return [[tuple(r) for r in db.fetch(f"SELECT * FROM {table} ORDER BY 1, 2, 3, 4")]
            for table in DERIVED]


def registry_games() -> list[str]:
    return list(registry.GAMES)

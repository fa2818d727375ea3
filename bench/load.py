"""Load benchmark: the real bot process playing many group tables at once (not a test).

Starts the sandbox (fake Bot API) in this process and ``python -m bot`` against it
with its own temporary data directory, creates ``--chats`` groups of ``--players``
players, opens a table of ``--game`` in each and, for ``--seconds``, lets every
awaited player press the first button of his kind a player would (the policy of the
end-to-end tests), in all chats concurrently. Then it stops the bot and the sandbox
and prints one JSON object:

* steps committed (rows of the bot's SQLite ``steps`` ledger inside the timed window,
  timeouts included) and steps per second; coups settled (settlement texts, sent or edited in);
* press -> answer latency (ms, p50/p95/p99) of ``SandboxClient.press`` round trips:
  the HTTP call, the update's trip through getUpdates, the bot's commit, its answer;
* group messages and edits per chat per minute and the most any chat got in one 60-s
  window (from the sandbox's Bot API log);
* errors: non-OK Bot API answers by method and code, unanswered presses, refused
  presses (a stale or not-your-turn pop-up: the table message lagged the table);
* the bot's RSS at the end, its CPU seconds and CPU milliseconds per committed step,
  the machine's cores and load average.

The bot runs with the e2e harness's settings (tests/e2e/harness.py): every step edits the
table message (GROUP_EDIT_GAP 0, no cap on edits per coup, GROUP_RESERVE 0) and turns are
shown in the group only (TURN_DMS off); cards still go by DM. That is more group edits
than production, which holds table refreshes back, and no turn prompts by DM, which
production sends: one Bot API call per step either way. Its DECISION_TIMEOUT is
``--timeout``. The players act on every new drawing of the table message (its text and
buttons; not its number, which names the decision and stays while several steps share
it) and talk to the sandbox's control API over aiohttp (:class:`BenchClient`): with httpx
the players took more CPU per step than the bot and, at 200 tables, a whole core.

The sandbox's flood limits are off, the bot's group limit is raised and its overall
30-messages-a-second cap lifted, so the figures are the bot's own throughput;
``--telegram-limits`` turns Telegram's limits on in the sandbox (20 a minute per group,
60 per private chat) and keeps the bot's production limits. ``--transport`` picks the
bot's HTTP client (``TRANSPORT``: aiohttp, or httpx for PTB's default). Only 127.0.0.1
traffic.

    .venv/bin/python bench/load.py [--game chemin_de_fer] [--chats 20] [--players 4]
        [--seconds 60] [--timeout 10] [--telegram-limits] [--transport aiohttp|httpx]

``--compare`` runs, one after the other and each in its own process, two variants of
the bot for every game of ``--games`` at every size of ``--sizes`` (each pair back to
back, so that both meet the same moment of a shared, noisy machine) and prints a
side-by-side table of bot CPU ms per step, steps per second and press latency. The
variants are both transports (httpx then aiohttp) or, with ``--baseline REV``, the bot
as it was at commit REV and the bot of this checkout; ``--rounds N`` repeats every pair
N times. The baseline is exported with ``git archive`` and run with the driver reading
its own rules of play (``BENCH_ROOT``: its bot, games and e2e harness, this sandbox),
so that the old bot is played as its own tests played it:

    .venv/bin/python bench/load.py --compare [--seconds 30] [--baseline REV] [--rounds 1]
        [--games chemin_de_fer,twenty_one,stud_poker] [--sizes 20,200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import uvloop

HERE = Path(__file__).resolve().parents[1]
# BENCH_ROOT: another checkout whose bot, games and e2e harness (the rules of play) are used;
# the sandbox is always this checkout's
ROOT = Path(os.environ.get("BENCH_ROOT") or HERE).resolve()
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "e2e"), str(HERE)]

# The e2e harness's bot process and button codec: the same `python -m bot` start and the
# same reading of buttons and of the ⏳ line. Its Game class is not reused: it re-reads
# the whole chat over HTTP and checks every step against the database, which would make
# this process, not the bot, the bottleneck on a small machine.
from harness import (  # noqa: E402
    DEFAULT,
    POLICIES,
    PRIVATE_TURN,
    SETTLED_MARK,
    BotProcess,
    decode_action,
)

try:  # the bot's texts: where they are now, or where a baseline's bot kept them
    from bot.view import i18n
except ImportError:
    from bot import i18n  # type: ignore[no-redef,attr-defined]
from games import registry  # noqa: E402
from sandbox.client import SandboxClient, SandboxError  # noqa: E402
from sandbox.server import start_sandbox  # noqa: E402
from sandbox.state import Message, World  # noqa: E402

GAMES = ("chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker")
TRANSPORTS = ("httpx", "aiohttp")
GROUP_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
LANG = "en"
PRESS_WAIT = 10.0
# A taken Join's pop-up names the chips he sits down with ("🪑 You sit down with 1000"); a
# bot of BENCH_ROOT from before that says the label
JOINED = (i18n.plain(i18n.t(LANG, "join_done", amount="")) if "join_done" in i18n.TEXTS[LANG]
          else i18n.action_label(LANG, "join"))

class BenchClient(SandboxClient):
    """The sandbox's control API over aiohttp rather than httpx: the same calls, at a small
    part of the driver's CPU (httpx looked for the absent sniffio module on every request
    and scanned its pool; at 200 tables the players took a whole core and starved the bot).
    """

    def __init__(self, base_url: str, *, timeout: float) -> None:
        super().__init__(base_url, timeout=timeout)
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def aclose(self) -> None:
        """Close both HTTP clients."""
        if self._session is not None:
            await self._session.close()
        await super().aclose()

    async def _call(self, verb: str, path: str, body: dict[str, Any] | None = None,
                    **query: Any) -> Any:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                self.base_url, timeout=self._timeout,
                connector=aiohttp.TCPConnector(limit=0), cookie_jar=aiohttp.DummyCookieJar())
        params = {k: str(v).lower() if isinstance(v, bool) else str(v)
                  for k, v in query.items() if v is not None}
        async with self._session.request(
                verb, path, params=params or None,
                data=None if body is None else json.dumps(body).encode(),
                headers=None if body is None else {"Content-Type": "application/json"},
        ) as response:
            text = await response.text()
        payload = json.loads(text)
        if response.status >= 400:
            message = payload.get("error", text) if isinstance(payload, dict) else text
            raise SandboxError(response.status, message)
        return payload


@dataclass
class Player:
    """A sandbox user; names have one width so none is part of another."""

    id: int
    name: str


@dataclass
class Figures:
    """What the drivers measure themselves."""

    latencies: list[float] = field(default_factory=list)
    presses: int = 0
    accepted: int = 0
    refused: int = 0
    unanswered: int = 0
    vanished: int = 0
    driver_errors: list[str] = field(default_factory=list)


def buttons(message: Message | None) -> list[tuple[str, str]]:
    """(text, callback data) of a message's inline buttons."""
    if message is None or not message.reply_markup:
        return []
    return [(b["text"], b["callback_data"])
            for row in message.reply_markup.get("inline_keyboard", []) for b in row
            if "callback_data" in b]


class Table:
    """One group and its players, pressing what the table message offers them.

    It reads the chats from the in-process sandbox world (what the players' screens
    show) and acts only through the control API, as the e2e tests do.
    """

    def __init__(self, sb: SandboxClient, world: World, chat_id: int, players: list[Player],
                 game: str, figures: Figures) -> None:
        self.sb = sb
        self.world = world
        self.chat_id = chat_id
        self.players = players
        self.by_name = {p.name: p for p in players}
        self.game = game
        self.policy = POLICIES.get(game, {})
        self.figures = figures
        self.wake = asyncio.Event()
        self.started = False
        self.last_drawn: tuple[tuple[int, int], tuple[int, str, tuple[str, ...]]] | None = None

    def table_message(self) -> Message | None:
        """The newest bot message carrying table buttons."""
        for m in reversed(self.world.messages.get(self.chat_id, [])):
            if m.from_bot and not m.deleted and any(
                    d.startswith(("a|", "m|")) for _, d in buttons(m)):
                return m
        return None

    async def press(self, chat: int, message_id: int, player: Player, data: str,
                    expect: str) -> bool:
        """Press a button; True if the bot answered ``expect`` (the action was taken)."""
        t0 = time.perf_counter()
        try:
            answer = await self.sb.press(chat, message_id, player.id, data, wait=PRESS_WAIT)
        except SandboxError as exc:
            if exc.status != 400:
                raise
            # the bot edited the message between our look and the press: the button is
            # gone, as it would be under a player's finger
            self.figures.vanished += 1
            return False
        self.figures.latencies.append((time.perf_counter() - t0) * 1000)
        self.figures.presses += 1
        if not answer["answered"]:
            self.figures.unanswered += 1
            return False
        if answer["text"] == expect or answer["text"].startswith(expect + " · ") or (
                expect == JOINED and answer["text"].startswith(expect)):
            return True
        self.figures.refused += 1
        return False

    def dm_keyboard(self, player: Player, version: int, confirm: bool = False) -> Message | None:
        """The newest message in ``player``'s private chat with this table's buttons for
        step ``version``: the decision keyboard, or (``confirm``) a card pick's."""
        for m in reversed(self.world.messages.get(player.id, [])):
            if not m.from_bot or m.deleted:
                continue
            for _, d in buttons(m):
                a = decode_action(d)
                if (a is not None and d.split("|")[1] == str(self.chat_id) and a[1] == version
                        and (a[3][:1] == "k" if confirm else a[3][:1] not in ("s", "k"))):
                    return m
        return None

    async def first_of(self, player: Player, prefer: list[str], chat: int,
                       message: Message) -> str | None:
        """Press, in ``chat``, the first button of a preferred kind the bot accepts."""
        decoded = [(t, d, decode_action(d)) for t, d in buttons(message)]
        for kind in prefer:
            label = JOINED if kind == "join" else i18n.action_label(LANG, kind)
            pick = [d for t, d, a in decoded
                    if a and a[2] == kind and a[3] == "?" and t.endswith("…")]
            if pick:
                # a choice among his own cards: the pick keyboard comes to his DM, where he
                # confirms it as it is (keeps every card)
                if not await self.press(chat, message.message_id, player, pick[0],
                                        i18n.t(LANG, "see_private")):
                    return None
                version = decode_action(pick[0])[1]  # type: ignore[index]
                keyboard = await self.until(
                    lambda v=version: self.dm_keyboard(player, v, True))
                if keyboard is None:
                    return None
                confirm = next(d for _, d in buttons(keyboard)
                               if decode_action(d)[3][:1] == "k")  # type: ignore[index]
                ok = await self.press(player.id, keyboard.message_id, player, confirm, label)
                return kind if ok else None
            # (not "?", a typed amount, nor "t<n>", a switch that only redraws the keyboard)
            for _, data, _ in [(t, d, a) for t, d, a in decoded
                               if a and a[2] == kind and a[3] != "?" and a[3][:1] != "t"]:
                if await self.press(chat, message.message_id, player, data, label):
                    return kind
        return None

    async def until(self, probe: Any, timeout: float = 5.0) -> Any:
        """Wait (woken by the bot's calls) until ``probe()`` returns something."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.wake.clear()
            value = probe()
            if value:
                return value
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), deadline - time.monotonic())
        return None

    async def act(self, message: Message, version: int) -> str | None:
        """One decision on what ``message`` shows: the kind pressed, '' if nothing to do."""
        lines = (message.text or "").splitlines()
        turn = next((ln for ln in lines if ln.startswith("⏳")), "")
        phase = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Phase:")),
                     "") or phase_word(message)
        # "⏳ Ann, Bob · 30 s" (a bot before the compact table: "⏳ Ann, Bob — until …")
        names = turn[1:].split("—")[0].split(" · ")[0].strip().split(", ") if turn else []
        awaited = [self.by_name[n] for n in names if n in self.by_name]
        if not awaited:
            # between coups: unseated players join, then the first one starts
            text = message.text or ""
            kinds = {decode_action(d)[2] for _, d in buttons(message) if decode_action(d)}  # type: ignore[index]
            for p in self.players:
                if "join" in kinds and not seated(text, p.name) and await self.first_of(
                        p, ["join"], self.chat_id, message):
                    return "join"
            if "start" in kinds and await self.first_of(
                    self.players[0], ["start"], self.chat_id, message):
                self.started = True
                return "start"
            return ""
        player = awaited[0]
        prefer = self.policy.get(phase.replace(" ", "_"), self.policy.get("", DEFAULT))
        if any(m in turn for m in PRIVATE_TURN):
            dm = await self.until(lambda: self.dm_keyboard(player, version))
            if dm is None:
                return ""
            return await self.first_of(player, prefer, player.id, dm) or ""
        return await self.first_of(player, prefer, self.chat_id, message) or ""

    def drawn(self, message: Message) -> tuple[int, str, tuple[str, ...]]:
        """What a player reads on the table message to decide: its text and buttons, but
        for the time left on the turn line (the bot redraws the table once the turn's clock
        starts; the same turn is not acted on twice)."""
        seen = self.last_drawn
        if seen is not None and seen[0] == (message.message_id, len(message.edits)):
            return seen[1]
        text = "\n".join(line.split(" · ")[0] if line.startswith("⏳") else line
                         for line in (message.text or "").splitlines())
        drawn = (message.message_id, text, tuple(d for _, d in buttons(message)))
        self.last_drawn = ((message.message_id, len(message.edits)), drawn)
        return drawn

    async def play(self, stop: asyncio.Event, until_started: bool = False) -> None:
        """Act on every new step the table message shows until ``stop`` (or, for the
        set-up, until the first coup has started)."""
        # what was acted on: the table message as drawn (see `drawn`). Not the buttons'
        # number: it names the decision, which several steps may share (players joining,
        # some of several awaited players answering)
        done: tuple[int, str, tuple[str, ...]] | None = None
        retry = False  # nothing was taken at that step: look again after a quiet second
        while not stop.is_set() and not (until_started and self.started):
            self.wake.clear()
            message = self.table_message()
            drawn = None if message is None else self.drawn(message)
            if message is not None and drawn != done:
                versions = {a[1] for _, d in buttons(message) if (a := decode_action(d))}
                try:
                    retry = not await self.act(message, max(versions, default=-1))
                except Exception as exc:
                    self.figures.driver_errors.append(f"{self.chat_id}: {exc!r}")
                    retry = True
                done = drawn
                continue
            try:
                await asyncio.wait_for(self.wake.wait(), 1.0)
            except TimeoutError:
                if retry:
                    done = None


def phase_word(message: Message) -> str:
    """The phase on a compact table message: the italic of its first line."""
    text = message.text or ""
    units = text.encode("utf-16-le")
    first_line = len(text.split("\n", 1)[0].encode("utf-16-le")) // 2
    for e in message.entities:
        if e["type"] == "italic" and e["offset"] < first_line:
            return units[2 * e["offset"]:2 * (e["offset"] + e["length"])].decode("utf-16-le")
    return ""


def seated(text: str, name: str) -> bool:
    """Whether ``name`` has a seat line ("1. Ann …", or "▶ Ann (banker) · …")."""
    return f". {name}" in text or any(
        line.removeprefix("▶ ").startswith(name + " ") for line in text.splitlines())


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))], 1)


def chat_of(entry: dict[str, Any]) -> int | None:
    """The chat a Bot API call went to."""
    chat = (entry.get("params") or {}).get("chat_id")
    try:
        return int(chat) if chat is not None else None
    except (TypeError, ValueError):
        return None


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (kB) of a process, from /proc."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """User + system CPU time of this process (the sandbox and the drivers)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def steps_between(db_path: Path, t0: float, t1: float) -> tuple[int, int]:
    """(table steps committed in [t0, t1], sum of the open tables' versions)."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        steps = db.execute("SELECT count(*) FROM steps WHERE kind = 'step' AND created_at "
                           "BETWEEN ? AND ?", (t0, t1)).fetchone()[0]
        versions = db.execute("SELECT coalesce(sum(version), 0) FROM tables").fetchone()[0]
    finally:
        db.close()
    return int(steps), int(versions)


def group_figures(log: list[dict[str, Any]], chats: list[int], t0: float, t1: float
                  ) -> dict[str, Any]:
    """Group messages and edits per chat per minute, the fullest 60-s window, settlements."""
    minutes = (t1 - t0) / 60
    times: dict[int, list[float]] = {c: [] for c in chats}
    sends = edits = settled = 0
    for e in log:
        chat = chat_of(e)
        if chat not in times or e["method"] not in GROUP_METHODS or not e["ok"]:
            continue
        times[chat].append(e["time"])  # type: ignore[index]
        if not t0 <= e["time"] <= t1:
            continue
        # a coup's result is an edit of the table message it concludes (or, without one,
        # a new message): either way its first lines name the settlement
        # (the compact settlement's title is its second line, under the headline)
        first = "\n".join(str(e["params"].get("text") or "").split("\n", 2)[:2])
        settled += e["method"] != "editMessageReplyMarkup" and any(
            k in first for k in SETTLED_MARK)
        if e["method"] == "sendMessage":
            sends += 1
        else:
            edits += 1
    fullest = 0
    for ts in times.values():
        ts.sort()
        j = 0
        for i, t in enumerate(ts):
            while t - ts[j] >= 60:
                j += 1
            fullest = max(fullest, i - j + 1)
    n = len(chats)
    return {
        "coups_settled": settled,
        "group_messages_per_chat_per_minute": round(sends / n / minutes, 1),
        "group_edits_per_chat_per_minute": round(edits / n / minutes, 1),
        "max_group_messages_in_60s_window_per_chat": fullest,
    }



def drivers(sb: SandboxClient, world: World, args: argparse.Namespace, figures: Figures
            ) -> tuple[list[Table], Callable[[], None]]:
    """The drivers of ``args.chats`` groups of ``args.players`` players of ``args.game``,
    each woken by every Bot API call to its group or its players; and the undo of that."""
    tables: list[Table] = []
    owner: dict[int, Table] = {}
    record = world.record

    def record_and_wake(method: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        # every Bot API call wakes the driver of the chat it went to (group or a DM)
        record(method, params, response)
        table = owner.get(chat_of({"params": params}) or 0)
        if table is not None:
            table.wake.set()

    def unhook() -> None:
        world.record = record  # type: ignore[method-assign]

    world.record = record_and_wake  # type: ignore[method-assign]
    for c in range(args.chats):
        chat_id = -1_000_000 - c
        players = [Player(10_000 + c * 100 + j, f"U{10_000 + c * 100 + j}")
                   for j in range(args.players)]
        table = Table(sb, world, chat_id, players, args.game, figures)
        tables.append(table)
        owner[chat_id] = table
        owner.update({p.id: table for p in players})
    return tables, unhook


async def set_up_all(sb: SandboxClient, world: World, tables: list[Table],
                     args: argparse.Namespace) -> None:
    """Every group at once: its users, the group with the bot, each player's private chat
    opened, a table of ``args.game`` opened and its first coup started."""

    async def set_up(table: Table) -> None:
        for p in table.players:
            await sb.add_user(p.id, p.name, username=p.name.lower(), language_code=LANG)
        ids = [p.id for p in table.players]
        await sb.add_chat(table.chat_id, f"Load {table.chat_id}", "supergroup",
                          members=ids, admins=[ids[0]])
        await sb.add_bot(table.chat_id, ids[0])
        for p in table.players:  # open the private chat: cards come by DM
            await sb.send(p.id, p.id, "/start")
            await table.until(lambda p=p: any(
                m.from_bot for m in world.messages.get(p.id, [])), timeout=60)
        await sb.send(table.chat_id, ids[0], f"/newtable {args.game}")
        await table.play(asyncio.Event(), until_started=True)

    await asyncio.wait_for(asyncio.gather(*(set_up(t) for t in tables)),
                           timeout=120 + 3 * args.chats)


async def play_for(tables: list[Table], figures: Figures, seconds: float,
                   measure: Callable[[], None]) -> tuple[float, float]:
    """Every table plays for ``seconds`` (the figures counted from a clean start);
    ``measure()`` runs the moment it ends; presses under way then finish (or give up
    within PRESS_WAIT) and count. Returns the window (wall-clock start and end)."""
    stop = asyncio.Event()
    t0 = time.time()
    figures.latencies.clear()
    figures.presses = figures.refused = figures.unanswered = figures.vanished = 0
    players = [asyncio.create_task(t.play(stop)) for t in tables]
    await asyncio.sleep(seconds)
    stop.set()
    t1 = time.time()
    measure()
    _, pending = await asyncio.wait(players, timeout=PRESS_WAIT + 5)
    for task in pending:
        task.cancel()
    return t0, t1

async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Set up, play for ``args.seconds``, measure, tear down."""
    handle = await start_sandbox("127.0.0.1", 0)
    sb = BenchClient(handle.url, timeout=PRESS_WAIT + 20)
    tmp = tempfile.TemporaryDirectory(prefix="banco-load-")
    data_dir = Path(tmp.name) / "data"
    limit = "20" if args.telegram_limits else "100000"
    bot = BotProcess(handle.url, data_dir, timeout=args.timeout,
                     extra={"GROUP_MESSAGES_PER_MINUTE": limit,
                            "OVERALL_MESSAGES_PER_SECOND": "30" if args.telegram_limits else "0",
                            "TRANSPORT": args.transport,
                            # as in production: no test hook writes what each step showed
                            "TEST_HOOKS": "0"})
    figures = Figures()
    world = handle.world
    tables, unhook = drivers(sb, world, args, figures)
    try:
        if args.telegram_limits:
            await sb.flood(True, group_per_minute=20, private_per_minute=60)
        bot.start()
        await set_up_all(sb, world, tables, args)
        cpu0 = cpu_seconds(bot.proc.pid)  # type: ignore[union-attr]
        own0 = own_cpu_seconds()
        pid = bot.proc.pid  # type: ignore[union-attr]
        at_end: dict[str, Any] = {}

        def measure() -> None:
            at_end.update(memory=proc_status(pid), cpu1=cpu_seconds(pid),
                          own1=own_cpu_seconds(), load=os.getloadavg())

        t0, t1 = await play_for(tables, figures, args.seconds, measure)
        memory, cpu1, own1, load = (at_end[k] for k in ("memory", "cpu1", "own1", "load"))
        steps, versions = steps_between(data_dir / "banco.sqlite3", t0, t1)
        log = await sb.log()
        bot.kill()
        errors: dict[str, int] = {}
        calls: dict[str, int] = {}
        for e in log:
            if not e["ok"]:
                key = f"{e['method']}:{e.get('error_code')}"
                errors[key] = errors.get(key, 0) + 1
            if t0 <= e["time"] <= t1:
                calls[e["method"]] = calls.get(e["method"], 0) + 1
        seconds = t1 - t0
        bot_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        return {
            "game": args.game,
            "transport": args.transport,
            "bot_root": str(ROOT),
            "chats": args.chats,
            "players": args.players,
            "seconds": round(seconds, 1),
            "telegram_limits": args.telegram_limits,
            "decision_timeout": args.timeout,
            "steps_committed": steps,
            "steps_per_second": round(steps / seconds, 1),
            "sum_of_table_versions": versions,
            **group_figures(log, [t.chat_id for t in tables], t0, t1),
            "presses": figures.presses,
            # the bot's Bot API calls in the timed window per committed step, by method
            "bot_api_calls_per_step": {m: round(n / max(steps, 1), 2) for m, n in
                                       sorted(calls.items(), key=lambda kv: -kv[1])},
            "press_answer_ms": {"p50": percentile(figures.latencies, 50),
                                "p95": percentile(figures.latencies, 95),
                                "p99": percentile(figures.latencies, 99),
                                "max": percentile(figures.latencies, 100)},
            "errors": {
                "bot_api_not_ok": errors,
                "unanswered_presses": figures.unanswered,
                "refused_presses": figures.refused,
                "button_gone_before_press": figures.vanished,
                "driver": figures.driver_errors[:10],
                "bot_tracebacks": bot.log_text().count("Traceback"),
            },
            "bot_rss_mb": round(memory.get("VmRSS", 0) / 1024, 1),
            "bot_peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
            "bot_cpu_seconds": None if bot_cpu is None else round(bot_cpu, 1),
            "bot_cpu_ms_per_step": (None if bot_cpu is None or not steps
                                    else round(bot_cpu * 1000 / steps, 2)),
            # the sandbox and the players share this process: if it nears one core, the
            # figures measure it rather than the bot
            "sandbox_and_driver_cpu_seconds": round(own1 - own0, 1),
            "cores": os.cpu_count(),
            "load_average_1m_at_end": round(load[0], 2),
        }
    finally:
        bot.kill()
        unhook()
        await sb.aclose()
        await handle.stop()
        tmp.cleanup()


COMPARE_COLUMNS = ("game", "chats", "bot", "bot_cpu_ms_per_step", "steps_per_second",
                   "p50_ms", "p95_ms", "errors", "driver_cpu_s", "load_1m")


def baseline_checkout(rev: str) -> Path:
    """The repository's tree at ``rev``, exported once into a temporary directory."""
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", rev],
                            capture_output=True, text=True, check=True).stdout.strip()
    where = Path(tempfile.gettempdir()) / f"banco-baseline-{commit}"
    if not (where / "bot").is_dir():
        where.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(HERE), "archive", commit],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
        # a bot from before OVERALL_MESSAGES_PER_SECOND had the 30/s cap fixed in code: lift
        # it in the copy, so that the old bot too is measured rather than its limiter
        limiter = where / "bot" / "ratelimit.py"
        if limiter.exists():
            code = limiter.read_text()
            if "overall_per_second" not in code:
                limiter.write_text(code.replace("OVERALL_PER_SECOND = 30\n",
                                                "OVERALL_PER_SECOND = 10**9\n"))
    return where


def compare(args: argparse.Namespace) -> None:
    """Two variants of the bot, pair by pair, each run its own process; a table at the end."""
    if args.baseline:
        old = baseline_checkout(args.baseline)
        variants = [(args.baseline, [], {"BENCH_ROOT": str(old)}), ("this", [], {})]
    else:
        variants = [(t, ["--transport", t], {}) for t in TRANSPORTS]
    rows: list[dict[str, Any]] = []
    for game in args.games.split(","):
        for chats in (int(n) for n in args.sizes.split(",")):
            for _, (label, extra, env) in ((r, v) for r in range(args.rounds)
                                           for v in variants):
                cmd = [sys.executable, str(Path(__file__).resolve()), "--game", game,
                       "--chats", str(chats), "--players", str(args.players),
                       "--seconds", str(args.seconds), "--timeout", str(args.timeout),
                       *extra]
                r = run_json(cmd, env, f"{game} x{chats} {label}")
                if r is None:
                    continue
                errors = r["errors"]
                row = {"game": game, "chats": chats, "bot": label,
                       "bot_cpu_ms_per_step": r["bot_cpu_ms_per_step"],
                       "steps_per_second": r["steps_per_second"],
                       "p50_ms": r["press_answer_ms"]["p50"],
                       "p95_ms": r["press_answer_ms"]["p95"],
                       "errors": sum(errors["bot_api_not_ok"].values())
                       + errors["unanswered_presses"] + len(errors["driver"])
                       + errors["bot_tracebacks"],
                       "driver_cpu_s": r["sandbox_and_driver_cpu_seconds"],
                       "load_1m": r["load_average_1m_at_end"]}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print_table(rows, COMPARE_COLUMNS)


def run_json(cmd: list[str], env: dict[str, str], what: str) -> dict[str, Any] | None:
    """One benchmark run in its own process: the JSON object it prints, or None (and its
    error output) when it failed."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=False,
                         env={**os.environ, **env})
    try:
        result: dict[str, Any] = json.loads(out.stdout)
    except ValueError:
        print(f"{what} failed:\n{out.stderr[-2000:]}", file=sys.stderr)
        return None
    return result


def print_table(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    """``rows`` as a Markdown table of ``columns``, padded to line up."""
    if not rows:
        return
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    print("| " + " | ".join(c.ljust(widths[c]) for c in columns) + " |")
    print("|" + "|".join("-" * (widths[c] + 2) for c in columns) + "|")
    for r in rows:
        print("| " + " | ".join(str(r[c]).ljust(widths[c]) for c in columns) + " |")


def main() -> None:
    """Parse the options, run, print the figures as JSON (or, with --compare, a table)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, default="chemin_de_fer")
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="the bot's DECISION_TIMEOUT in seconds")
    parser.add_argument("--telegram-limits", action="store_true",
                        help="sandbox flood limits on, the bot at its production limits")
    parser.add_argument("--transport", choices=TRANSPORTS, default="aiohttp",
                        help="the bot's HTTP client (TRANSPORT); httpx is PTB's default")
    parser.add_argument("--compare", action="store_true",
                        help="two bots for --games x --sizes; prints a table")
    parser.add_argument("--baseline", default="",
                        help="with --compare: the bot at this commit against this checkout's "
                             "(default: httpx against aiohttp)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --compare: how many times each pair runs")
    parser.add_argument("--games", default="chemin_de_fer,twenty_one,stud_poker")
    parser.add_argument("--sizes", default="20,200", help="numbers of chats, comma-separated")
    args = parser.parse_args()
    if args.compare:
        compare(args)
        return
    engine = registry.engine(args.game)
    if not engine.min_players <= args.players <= engine.max_players:
        parser.error(f"{args.game} seats {engine.min_players}..{engine.max_players} players")
    # the sandbox and the players run on uvloop too, so that this process keeps up with
    # the bot (when it is the slower of the two, the bot idles between presses)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        print(json.dumps(runner.run(run(args)), indent=2))


if __name__ == "__main__":
    main()

"""End-to-end harness: the sandbox in this process, the real bot as ``python -m bot``.

Players act only through the sandbox control API (messages, button presses),
exactly as people would; the bot's database is read to know the true hidden
cards, so the transcript check can tell a leak from a card the rules turned
up. It is written only while the bot is stopped (:meth:`BotProcess.write_state`:
a test fixes the next shoe), and the restart resumes from it like any restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.ops.hooks import raw_cards
from bot.view import i18n
from games import registry
from games.cards import pretty
from sandbox import spec
from sandbox.client import SandboxClient, SandboxError

ROOT = Path(__file__).resolve().parents[2]
PRETTY = {pretty(r + s): r + s for r in "23456789TJQKA" for s in "cdhs"}
CARD_RE = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")
SETTLED_MARK = ("settled", "расчёт")
RAW_RE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
RECORD_RE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (\w+) ")
GROUP_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
# what only its receiver sees in a group (Bot API 10.2): private, as a DM is
EPHEMERAL_METHODS = ("editEphemeralMessageText", "editEphemeralMessageReplyMarkup")
# what the ⏳ line says when the awaited players decide by a keyboard in their DMs
PRIVATE_TURN = tuple(
    i18n.t(lang, "turn_private_nodeadline", names="\0").split("\0")[1] for lang in ("en", "ru")
)
# what the table says to an awaited player of a private step who has no private chat
BY_CARDS = tuple(
    i18n.t(lang, "buttons_in_cards", names="\0").split("\0")[1] for lang in ("en", "ru")
)
LIVE: list[Game] = []
"""The games of the running test, checked at its end by the autouse fixture."""


def cards_in(text: str) -> list[str]:
    """Every card written in human form in ``text``, as card strings."""
    return [PRETTY[m.group(0)] for m in CARD_RE.finditer(text)]


async def until(condition: Callable[[], Any], progress: asyncio.Event, what: str,
                timeout: float) -> Any:
    """Wait until ``condition()`` (maybe async) holds, looking again whenever ``progress``
    is set (a page got a frame or an answer) and every 50 ms (the database may move without
    one); return what it gave."""
    deadline = time.monotonic() + timeout
    while True:
        progress.clear()
        holds = condition()
        if asyncio.iscoroutine(holds):
            holds = await holds
        if holds:
            return holds
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"not within {timeout} s: {what}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(progress.wait(), min(left, 0.05))

class BotProcess:
    """``python -m bot`` against the sandbox, with its own data directory."""

    def __init__(
        self, url: str, data_dir: Path, timeout: float = 3.0, extra: dict[str, str] | None = None
    ) -> None:
        self.url = url
        self.data_dir = data_dir
        self.timeout = timeout
        self.log_path = data_dir / "bot.log"
        self.env = {
            **os.environ,
            "BOT_TOKEN": "test-token",
            "BOT_API_BASE_URL": url,
            "DATA_DIR": str(data_dir),
            "DECISION_TIMEOUT": str(timeout),
            "GROUP_MESSAGES_PER_MINUTE": "600",
            # every step edits the table, turns only in the group: what most tests read;
            # the pace tests (test_e2e_pace.py) run the production defaults
            "GROUP_EDIT_GAP": "0",
            "GROUP_EDITS_PER_COUP": "1000000",
            "GROUP_RESERVE": "0",
            "TURN_DMS": "0",
            # tables left to time out do not close themselves (test_e2e_absent.py turns it on)
            "IDLE_CLOSE": "0",
            "LOG_LEVEL": "INFO",
            "TEST_HOOKS": "1",
            "HEALTH_PORT": "0",  # many bots at once: the ops tests give theirs a free port
            "PYTHONPATH": str(ROOT),
            **(extra or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        # tracebacks a test provokes on purpose (the error handler logs them)
        self.expected_tracebacks = 0

    def start(self) -> None:
        """Start the process (its log appends to bot.log)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=self.data_dir,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def pause(self) -> None:
        """SIGSTOP: the process does nothing more until :meth:`resume` (a frozen moment)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after :meth:`pause`."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """Kill -9: a crash, nothing flushed."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, then kill if it hangs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def log_text(self) -> str:
        """Everything the bot logged."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def db_meta(self, chat_id: int) -> dict[str, Any]:
        """The host's bookkeeping of the chat's open table (meta column), read-only."""
        db = sqlite3.connect(f"file:{self.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT meta FROM tables WHERE chat_id = ?", (chat_id,)).fetchone()
        finally:
            db.close()
        return json.loads(row[0]) if row and row[0] else {}

    def db_presence(self, chat_id: int) -> list[tuple[int, str, float, int | None]]:
        """Where the turns of the table's decision under way were shown (player, channel,
        when, a prompt's message id): the facts of presence, read-only."""
        decision = self.db_meta(chat_id).get("decision", 0)
        db = sqlite3.connect(f"file:{self.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT player, channel, shown_at, message_id FROM presence"
                              " WHERE chat_id = ? AND decision = ? ORDER BY shown_at",
                              (chat_id, decision)).fetchall()
        finally:
            db.close()

    def db_due(self, chat_id: int) -> float | None:
        """When the decision under way times out as the bot's clock runs it: the record's
        deadline, else, once every awaited player's turn was shown (the facts of presence,
        which no commit waits for), the timeout after the last of them to be shown."""
        meta = self.db_meta(chat_id)
        if meta.get("due") is not None:
            return max(float(meta["due"]), float(meta.get("grace_until") or 0.0))
        row = self.db_table(chat_id)
        if row is None:
            return None
        engine = registry.engine(row[0])
        awaited = engine.awaiting(engine.state_type.model_validate_json(row[1]))
        first: dict[int, float] = {}
        for player, _, at, _ in self.db_presence(chat_id):
            first.setdefault(player, at)
        if not awaited or any(p not in first for p in awaited):
            return None
        timeout = meta.get("timeout") or self.timeout
        return max(max(first[p] for p in awaited) + timeout,
                   float(meta.get("grace_until") or 0.0))

    def db_prompts(self, chat_id: int) -> dict[int, int]:
        """The open turn prompts of the table (player: message id): the record's, and those
        delivered since its last commit (the facts of presence)."""
        prompts = {int(p): int(shown["message_id"])
                   for p, shown in self.db_meta(chat_id).get("prompts", {}).items()}
        for player, channel, _, message_id in self.db_presence(chat_id):
            if channel == "prompt" and message_id is not None:
                prompts.setdefault(player, message_id)
        return prompts

    def shown_version(self, chat_id: int, message_id: int) -> int | None:
        """The step the bot last drew into table message ``message_id`` (its test hook)."""
        path = self.data_dir / "tables.jsonl"
        if not path.exists():
            return None
        version = None
        for line in path.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("chat") == chat_id and row.get("message") == message_id:
                version = row["version"]
        return version

    def shown_cards(self, chat_id: int) -> list[str]:
        """The cards of public events the bot recorded for the chat (its test hook)."""
        path = self.data_dir / "shown.jsonl"
        if not path.exists():
            return []
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return [c for r in rows if r.get("chat") == chat_id for c in r.get("cards", [])]

    def write_state(self, chat_id: int, state_json: str) -> None:
        """Replace the stored state of the chat's table (same version) while the process is
        stopped; a new process resumes from it as from any commit."""
        assert self.proc is None or self.proc.poll() is not None, "stop the bot first"
        db = sqlite3.connect(self.data_dir / "banco.sqlite3", timeout=5)
        try:
            with db:
                changed = db.execute(
                    "UPDATE tables SET state = ? WHERE chat_id = ?", (state_json, chat_id)
                ).rowcount
        finally:
            db.close()
        assert changed == 1

    def db_table(self, chat_id: int) -> tuple[str, str, int] | None:
        """(game, state json, version) of the chat's open table, read-only."""
        db = sqlite3.connect(f"file:{self.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute(
                "SELECT game, state, version FROM tables WHERE chat_id = ?", (chat_id,)
            ).fetchone()
        finally:
            db.close()
        return (row[0], row[1], row[2]) if row else None


async def group_with_bot(sandbox: Any, bot_factory: list[BotProcess], data_dir: Path,
                         chat_id: int, players: list[Player], *, timeout: float = 3.0,
                         table: str | None = None, start: bool = False) -> Game:
    """A bot process started on ``data_dir``, a group of ``players`` with it, each player's
    private chat opened; with ``table``, that game's table opened, and with ``start`` every
    player seated and the first coup started."""
    handle, sb = sandbox
    bot = BotProcess(handle.url, data_dir, timeout=timeout)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, chat_id, players)
    await game.setup()
    await game.enable_dms()
    if table:
        await game.command(players[0], f"/newtable {table}")
    if start:
        for p in players:
            await game.step(p, ["join"])
        await game.step(players[0], ["start"])
    return game


def decode_action(data: str | None) -> tuple[int, int, str, str] | None:
    """(coup, version, kind, arg) of an action button."""
    if not data or not data.startswith("a|"):
        return None
    _, _, coup, version, kind, arg = data.split("|")
    return int(coup), int(version), kind, arg


# How the tests and bench/load.py play: phase word on the table message -> button kinds
# to try, in order; DEFAULT for any other phase
POLICIES: dict[str, dict[str, list[str]]] = {
    "chemin_de_fer": {
        "auction": ["bid", "pass"],
        "bank_offer": ["name_bank", "decline"],
        "cut": ["cut"],
        "staking": ["stake", "banco", "pass"],
        "punter_draw": ["stand", "draw"],
        "banker_draw": ["draw", "stand"],
        "void_choice": ["continue", "retire"],
    },
    "banchok": {"joining": ["turn"]},
    "draw_poker": {"": ["open", "call", "check", "discard", "fold"]},
}
DEFAULT = [
    "cut",
    "stake",
    "bid",
    "name_bank",
    "stand",
    "check",
    "call",
    "discard",
    "draw",
    "pass",
    "continue",
    "accept",
    "post_bank",
    "buy",
    "fold",
]


@dataclass
class Player:
    """A sandbox user."""

    id: int
    name: str


@dataclass
class Game:
    """One group with players, driven through buttons."""

    sb: SandboxClient
    bot: BotProcess
    chat_id: int
    players: list[Player]
    hidden_checks: int = 0
    seen_public: set[str] = field(default_factory=set)
    # (sandbox log seq when sampled, every card public so far): see transcript_check
    samples: list[tuple[int, frozenset[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        LIVE.append(self)

    async def sample_public(self) -> None:
        """Remember which cards the engine has made public by now (public view, and the cards
        of its public events the bot records through its test hook), with the log position."""
        entries = await self.sb.log(since=self.samples[-1][0] if self.samples else None)
        seq = max((e["seq"] for e in entries), default=self.samples[-1][0] if self.samples else 0)
        public = set(self.samples[-1][1]) if self.samples else set()
        row = self.bot.db_table(self.chat_id)
        if row is not None:
            engine = registry.engine(row[0])
            view = engine.view(engine.state_type.model_validate_json(row[1]), None)
            for s in view.seats:
                public.update(s.face_up)
            public.update(raw_cards(view.facts.values()))
            public.update(self.bot.shown_cards(self.chat_id))
            revealed = self.bot.db_meta(self.chat_id).get("revealed") or {}
            public.update((revealed.get("record") or {}).get("order", []))
        self.samples.append((seq, frozenset(public)))

    async def setup(self, admin: int | None = None) -> None:
        """Create the users and the group and add the bot."""
        for p in self.players:
            await self.sb.add_user(p.id, p.name, username=p.name.lower(), language_code="en")
        ids = [p.id for p in self.players]
        await self.sb.add_chat(
            self.chat_id,
            f"Table {self.chat_id}",
            "supergroup",
            members=ids,
            admins=[admin or ids[0]],
        )
        await self.sb.add_bot(self.chat_id, ids[0])

    async def enable_dms(self, players: Sequence[Player] | None = None) -> None:
        """/start in private for each player."""
        for p in players or self.players:
            await self.sb.send(p.id, p.id, "/start")
            await self.sb.wait_for(lambda p=p: self.sb.last_bot_message(p.id), timeout=20)

    async def table_message(self) -> dict[str, Any] | None:
        """The newest bot message carrying table buttons."""
        for m in reversed(await self.sb.bot_messages(self.chat_id)):
            if any(d and (d.startswith("a|") or d.startswith("m|")) for _, d in self.sb.buttons(m)):
                return m
        return None

    async def version(self) -> int | None:
        """The step number the table message shows."""
        m = await self.table_message()
        for _, d in self.sb.buttons(m):
            a = decode_action(d)
            if a:
                return a[1]
        return None

    async def synced(self) -> dict[str, Any]:
        """Wait until the table message shows the stored version; return it."""

        async def ok() -> dict[str, Any] | None:
            return await synced_now(self)

        message = await self.sb.wait_for(ok, timeout=20)
        await self.sample_public()
        return message

    def awaited(self, message: dict[str, Any]) -> list[Player]:
        """Players named on the ⏳ line."""
        for line in message["text"].splitlines():
            if line.startswith("⏳"):
                names = line[1:].split(" · ")[0].strip().split(", ")
                return [p for p in self.players if p.name in names]
        return []

    async def press(self, player: Player, data: str, message_id: int) -> dict[str, Any]:
        """Press one button as ``player``."""
        return await self.sb.press(self.chat_id, message_id, player.id, data, wait=10)

    async def command(self, player: Player, text: str) -> None:
        """A player writes in the group."""
        await self.sb.send(self.chat_id, player.id, text)

    def check_hidden(self, text: str) -> None:
        """No card still hidden (per the stored state) in a group text, unless a public card
        of the same rank and suit (multi-deck shoes) explains it."""
        row = self.bot.db_table(self.chat_id)
        if row is None:
            return
        engine = registry.engine(row[0])
        state = engine.state_type.model_validate_json(row[1])
        public = engine.view(state, None)
        shown: set[str] = set()
        for s in public.seats:
            shown.update(s.face_up)
        shown.update(raw_cards(public.facts.values()))
        self.seen_public |= shown
        if self.samples:  # cards of public events (e.g. last coup's, before a reshuffle)
            self.seen_public |= self.samples[-1][1]
        hidden: set[str] = set()
        for s in public.seats:
            hidden.update(engine.view(state, s.player).my_cards)
        leaked = {c for c in cards_in(text) if c in hidden and c not in self.seen_public}
        assert not leaked, f"hidden card(s) {sorted(leaked)} in a group message:\n{text}"
        self.hidden_checks += 1

    async def step(
        self, player: Player, prefer: Sequence[str], amounts: str = "min"
    ) -> tuple[str, dict[str, Any]]:
        """``player`` presses the first preferred kind offered that he may do; returns it.

        The group's buttons first; when the table says he decides in the private chat (a
        step with a private action), the keyboard the bot sent to his DM, as a player would.
        """
        for attempt in range(3):
            message = await self.synced()
            self.check_hidden(message["text"])
            try:
                done = await self._press_first(player, prefer, self.chat_id, message, amounts)
            except SandboxError as exc:
                # the bot redrew the message under his finger: he looks again and presses
                if exc.status != 400 or attempt == 2:
                    raise
                continue
            if done is not None:
                return done
            break
        offered = [t for t, _ in self.sb.buttons(message)]
        if self.decides_in_private(message, player):
            dm = await self.dm_keyboard(player, self.bot.db_meta(self.chat_id).get("decision", 0))
            done = await self._press_first(player, prefer, player.id, dm, amounts)
            if done is not None:
                return done
            offered = [t for t, _ in self.sb.buttons(dm)]
        raise AssertionError(
            f"{player.name} could do none of {prefer}: {offered}\n{message['text']}"
        )

    async def _press_first(
        self, player: Player, prefer: Sequence[str], chat: int, message: dict[str, Any],
        amounts: str,
    ) -> tuple[str, dict[str, Any]] | None:
        """Press, in ``chat``, the first button of a preferred kind the bot accepts."""
        buttons = [(t, d, decode_action(d)) for t, d in self.sb.buttons(message)]
        for kind in prefer:
            private = [
                (t, d, a)
                for t, d, a in buttons
                if a and a[2] == kind and a[3] == "?" and t.endswith("…")
            ]
            if private:
                answer = await self.private_choice(player, private[0][1], message["message_id"],
                                                   chat)
                return kind, answer
            # (not "?", a typed amount, nor "t<n>", a switch that only redraws the keyboard)
            options = [(t, d, a) for t, d, a in buttons
                       if a and a[2] == kind and a[3] != "?" and a[3][:1] != "t"]
            if amounts == "max":
                options.reverse()
            for _, data, _ in options:
                before = self.bot.db_table(self.chat_id)
                answer = await self.sb.press(chat, message["message_id"], player.id, data,
                                             wait=10)
                assert answer["answered"], "every callback query is answered"
                row = self.bot.db_table(self.chat_id)
                if row is None or before is None or row[2] != before[2]:
                    return kind, answer
        return None

    def decides_in_private(self, message: dict[str, Any], player: Player) -> bool:
        """The table message says ``player`` decides in his private chat, or, without one,
        on his view under *My cards*."""
        lines = message["text"].splitlines()
        line = next((ln for ln in lines if ln.startswith("⏳")), "")
        by_cards = any(ln.endswith(BY_CARDS) and player.name in ln for ln in lines)
        return (any(m in line for m in PRIVATE_TURN) or by_cards) \
            and player in self.awaited(message)

    async def dm_keyboard(self, player: Player, version: int) -> dict[str, Any]:
        """The newest message in ``player``'s private chat with this table's buttons for
        the decision that began at step ``version`` (sent after the commit, so maybe a
        moment later)."""

        def decision(data: str | None) -> bool:
            a = decode_action(data)
            return (a is not None and data is not None
                    and data.split("|")[1] == str(self.chat_id)
                    and a[1] == version and a[3][:1] not in ("s", "k"))

        async def ready() -> dict[str, Any] | None:
            for m in reversed(await self.sb.bot_messages(player.id)):
                if any(decision(d) for _, d in self.sb.buttons(m)):
                    return m
            return None

        return await self.sb.wait_for(ready, timeout=10)

    async def private_choice(
        self, player: Player, data: str, message_id: int, chat: int | None = None
    ) -> dict[str, Any]:
        """Press a "pick your cards" button (in the group or his DM), then confirm an empty
        pick in the private chat."""
        version = decode_action(data)[1]
        await self.sb.press(self.chat_id if chat is None else chat, message_id, player.id,
                            data, wait=10)

        async def keyboard() -> dict[str, Any] | None:
            m = await self.sb.last_bot_message(player.id)
            ok = m and any(
                d and d.startswith("a|") and d.split("|")[5].startswith("k")
                and d.split("|")[3] == str(version)
                for _, d in self.sb.buttons(m)
            )
            return m if ok else None

        m = await self.sb.wait_for(keyboard, timeout=10)
        confirm = next(d for _, d in self.sb.buttons(m) if d and d.split("|")[5].startswith("k"))
        before = self.bot.db_table(self.chat_id)
        answer = await self.sb.press(player.id, m["message_id"], player.id, confirm, wait=10)
        row = self.bot.db_table(self.chat_id)
        assert row is None or before is None or row[2] != before[2], answer
        return answer

    async def play_until_settled(
        self, policy: dict[str, Sequence[str]], default: Sequence[str], max_steps: int = 80
    ) -> int:
        """Let awaited players act by ``policy`` (phase word -> kinds) until a coup settles."""
        before = await self.settlements()
        for n in range(max_steps):
            if len(await self.settlements()) > len(before):
                return n
            message = await self.synced()
            if len(await self.settlements()) > len(before):
                return n
            awaited = self.awaited(message)
            if not awaited:
                await asyncio.sleep(0.1)
                continue
            prefer = policy.get(phase_of(message), default)
            await self.step(awaited[0], prefer)
        raise AssertionError("the coup did not settle")

    async def settlements(self) -> list[dict[str, Any]]:
        """The settlement messages so far."""
        return [
            m
            for m in await self.sb.bot_messages(self.chat_id)
            if any(k in line for line in m["text"].splitlines()[:2] for k in SETTLED_MARK)
        ]

    async def group_counts(self) -> tuple[int, int]:
        """(new messages, edits) the bot sent to this group so far."""
        sends = await self.sb.log("sendMessage")
        edits = await self.sb.log("editMessageText")

        def ours(entries: list[dict[str, Any]]) -> int:
            return sum(1 for e in entries if _chat(e) == self.chat_id and _ok(e))

        return ours(sends), ours(edits)



def _chat(entry: dict[str, Any]) -> int | None:
    params = entry.get("params") or entry.get("request") or {}
    chat = params.get("chat_id")
    try:
        return int(chat) if chat is not None else None
    except (TypeError, ValueError):
        return None


def _ok(entry: dict[str, Any]) -> bool:
    return bool(entry.get("ok", True))


def _texts(params: dict[str, Any]) -> list[str]:
    """The text of a call and the text of every inline button it carries."""
    out = [str(params.get("text") or "")]
    markup = params.get("reply_markup")
    if isinstance(markup, str):
        try:
            markup = json.loads(markup)
        except ValueError:
            markup = None
    if isinstance(markup, dict):
        out += [str(b.get("text", "")) for row in markup.get("inline_keyboard", []) for b in row]
    return out


def transcript_check(log: list[dict[str, Any]], games: Sequence[Game]) -> tuple[int, set[str]]:
    """Every group text and button of the Bot API log against the cards players were shown
    privately: a card sent privately (a DM, its buttons, a My cards pop-up, a message in the
    group its receiver alone sees) may appear in a
    group only once the engine made a copy of it public. Returns (group texts checked, every
    card shown privately); raises AssertionError on a leak."""
    by_chat = {g.chat_id: g for g in games}
    private: set[str] = set()
    checked = 0
    for entry in sorted(log, key=lambda e: e["seq"]):
        params = entry.get("params") or {}
        method = entry["method"]
        if method == "answerCallbackQuery":
            private.update(cards_in(str(params.get("text") or "")))
            continue
        chat = _chat(entry)
        if chat is None or method not in GROUP_METHODS + EPHEMERAL_METHODS:
            continue
        cards = [c for text in _texts(params) for c in cards_in(text)]
        if chat > 0 or method in EPHEMERAL_METHODS or params.get("receiver_user_id"):
            private.update(cards)  # a private chat, or a message its receiver alone sees
            continue
        checked += 1
        game = by_chat.get(chat)
        if game is None:
            assert not set(cards) & private, f"hidden card in an unwatched chat {chat}"
            continue
        public = next((p for q, p in game.samples if q >= entry["seq"]),
                      game.samples[-1][1] if game.samples else frozenset())
        leaked = sorted({c for c in cards if c in private and c not in public})
        assert not leaked, (f"hidden card(s) {leaked} in group message #{entry['seq']} "
                            f"({method}): {params.get('text')!r}")
    return checked, private


# every call that may carry an inline keyboard, and where it goes (its chat's type)
MARKUP_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup",
                  *EPHEMERAL_METHODS)
# what a button may hold besides its text, one action of these
BUTTON_ACTIONS = ("url", "callback_data", "web_app", "login_url", "switch_inline_query",
                  "switch_inline_query_current_chat", "switch_inline_query_chosen_chat",
                  "copy_text", "callback_game", "pay")
MAX_CALLBACK_DATA = 64  # bytes, as Telegram takes it


def keyboard_check(log: list[dict[str, Any]]) -> dict[str, int]:
    """Every inline keyboard of the Bot API log as Telegram takes it, per chat type: valid
    for the spec (``sandbox/api.min.json``: an ``InlineKeyboardMarkup`` of buttons with
    only the spec's fields, a text and exactly one action), callback data of at most 64
    bytes, a ``web_app`` button only in a private chat (never in a group, nor in a message
    there that one member alone sees), and no keyboard refused. Returns how many keyboards
    were checked for each of "private", "group" and "ephemeral"; raises AssertionError on
    the first bad one."""
    button_fields = {f["name"] for f in spec.types()["InlineKeyboardButton"]["fields"]}
    counts = {"private": 0, "group": 0, "ephemeral": 0}
    for entry in sorted(log, key=lambda e: e["seq"]):
        params = entry.get("params") or {}
        markup = params.get("reply_markup")
        chat = _chat(entry)
        if entry["method"] not in MARKUP_METHODS or markup is None or chat is None:
            continue
        where = f"#{entry['seq']} {entry['method']} in chat {chat}: {markup}"
        refused = str(entry.get("description") or "")
        assert _ok(entry) or "not modified" in refused or not any(
            w in refused for w in ("BUTTON", "keyboard", "markup")), f"refused ({refused}): {where}"
        spec.validate_call(entry["method"], params)  # raises on a markup of the wrong shape
        if isinstance(markup, str):
            markup = json.loads(markup)
        if "inline_keyboard" not in markup:
            continue  # a ForceReply: no buttons
        kind = ("private" if chat > 0 else "ephemeral"
                if entry["method"] in EPHEMERAL_METHODS or params.get("receiver_user_id")
                else "group")
        counts[kind] += 1
        for button in (b for row in markup["inline_keyboard"] for b in row):
            assert button.get("text") and set(button) <= button_fields, where
            actions = [k for k in BUTTON_ACTIONS if k in button]
            assert len(actions) == 1, f"{actions}: {where}"
            data = button.get("callback_data")
            assert data is None or 1 <= len(data.encode()) <= MAX_CALLBACK_DATA, where
            assert "web_app" not in button or kind == "private", f"web_app: {where}"
    return counts


def log_check(text: str, private: set[str], expected_tracebacks: int) -> None:
    """The bot's own log: only the tracebacks a test provoked, and no card any player was
    shown privately in a record at INFO or above (continuation lines belong to their record)."""
    assert text.count("Traceback") == expected_tracebacks, text[-3000:]
    level = "INFO"
    for line in text.splitlines():
        m = RECORD_RE.match(line)
        if m:
            level = m.group(1)
        pieces = [line]
        if line.startswith("{"):  # LOG_FORMAT=json: one record per line, its texts escaped
            record = json.loads(line)
            level = record["level"]
            pieces = [v for value in record.values() for v in str(value).splitlines()]
        if level == "DEBUG":
            continue
        for piece in pieces:
            found = set(cards_in(piece)) | set(RAW_RE.findall(piece))
            assert not found & private, f"card(s) {sorted(found & private)} in a log line: {line}"


# --- faults, fuzzing and stops: what test_e2e_faults / _fuzz / _stop check -------------------

SETTLED_RE = re.compile(r"(?:coup|hand) #(\d+) settled|(?:кон|раздача) №(\d+): расчёт")
INTERNAL_ERROR = {i18n.t(lang, "internal_error") for lang in ("en", "ru")}


async def settled_coups(sb: SandboxClient, chat_id: int) -> dict[int, int]:
    """How many times each coup's settlement stands in the group, counted over the FINAL text
    of every bot message (edits applied, deleted messages left out): a settlement delivered
    as a new message or as an edit of the table message counts once either way."""
    counts: dict[int, int] = {}
    for m in await sb.bot_messages(chat_id):
        for found in SETTLED_RE.finditer(m["text"] or ""):
            coup = int(found.group(1) or found.group(2))
            counts[coup] = counts.get(coup, 0) + 1
    return counts


def chips(bot: BotProcess) -> tuple[int, int]:
    """(chips in wallets and table accounts, chips ever granted or given as bonuses), over the
    bot's whole database: equal while no chip is created or lost."""
    db = sqlite3.connect(f"file:{bot.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        held = db.execute("SELECT COALESCE(SUM(balance), 0) FROM wallets").fetchone()[0]
        held += db.execute("SELECT COALESCE(SUM(balance), 0) FROM table_accounts").fetchone()[0]
        issued = db.execute(
            "SELECT COALESCE(SUM(delta), 0) FROM ledger WHERE account LIKE 'wallet:%'"
            " AND reason IN ('starting_grant', 'daily_bonus')"
        ).fetchone()[0]
    finally:
        db.close()
    return held, issued


def balances(bot: BotProcess) -> dict[str, int]:
    """Every wallet and table account with its balance (to show that no chip moved)."""
    db = sqlite3.connect(f"file:{bot.data_dir / 'banco.sqlite3'}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT chat_id, user_id, balance FROM wallets").fetchall()
        out = {f"{c}/wallet:{u}": b for c, u, b in rows}
        rows = db.execute("SELECT chat_id, account, balance FROM table_accounts").fetchall()
        out.update({f"{c}/{a}": b for c, a, b in rows})
    finally:
        db.close()
    return out


async def answered_badly(sb: SandboxClient, retried: bool = False) -> list[dict[str, Any]]:
    """Callback queries the bot did not answer exactly once (none: all is well). With
    ``retried`` (faults on the answers' replies), an answer whose reply was lost may have
    been sent once more, which Telegram refuses: the player still saw one pop-up."""
    most = 2 if retried else 1
    return [a for a in await sb.answers()
            if not a["answered"] or not 1 <= a["answer_calls"] <= most]


async def synced_now(game: Game) -> dict[str, Any] | None:
    """The table message if it shows the stored version right now, else None (no waiting)."""
    row = game.bot.db_table(game.chat_id)
    m = await game.table_message()
    if row is None or m is None:
        return None
    shown = game.bot.shown_version(game.chat_id, m["message_id"])
    # read again: the bot may have drawn a newer step into it after the first read
    if shown != row[2] or await game.table_message() != m:
        return None
    return m


# a Russian table's phase words back to the phases the policies name
PHASES = {v: k.split(":", 1)[1] for k, v in i18n.games_texts().words["ru"].items()
          if k.startswith("phase:")}


def phase_of(message: dict[str, Any]) -> str:
    """The phase word on a table message, the italic of its first line ("" if none)."""
    text = message["text"] or ""
    units = text.encode("utf-16-le")
    first_line = len(text.split("\n", 1)[0].encode("utf-16-le")) // 2
    for e in message.get("entities") or ():
        if e["type"] == "italic" and e["offset"] < first_line:
            word = units[2 * e["offset"]:2 * (e["offset"] + e["length"])].decode("utf-16-le")
            return PHASES.get(word, word).replace(" ", "_")
    return ""

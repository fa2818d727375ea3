"""Three workers on one PostgreSQL behind a load balancer, one of them killed again and again.

Three ``python -m bot`` processes in webhook mode share one database (a schema of its
own) and one data directory (their logs and test hooks); the sandbox POSTs each update to
a random one of them, as a load balancer would, and retries elsewhere when one is down.
Six tables (one of each game) play, with presses and with deadlines running out, while a
worker is SIGKILLed and restarted every few seconds. Afterwards: every step was applied
exactly once, every deadline fired exactly once and none is left overdue, the chips add
up, and every settled coup is announced exactly once in its group.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
import uuid
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import harness
from harness import BotProcess, Game, Player, settled_coups
from storage_backends import PG_DSN, drop_schema
from test_e2e_faults import open_table, prefer
from test_e2e_webhook import free_port

from storage.booking import AUDIT_QUERIES

SECRET = "workers_Secret-1"
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


def worker(url: str, data_dir: Path, database_url: str, port: int) -> BotProcess:
    """One worker: webhook mode on ``port``, the shared database and data directory."""
    return BotProcess(url, data_dir, timeout=TIMEOUT, extra={
        "DATABASE_URL": database_url, "WEBHOOK_URL": f"http://127.0.0.1:{port}",
        "WEBHOOK_LISTEN": "127.0.0.1", "WEBHOOK_PORT": str(port), "WEBHOOK_PATH": "/telegram",
        "WEBHOOK_SECRET": SECRET, "STOP_FLUSH": "0.5"})


async def drive(game: Game, name: str, until: float, rng: random.Random,
                counts: dict[str, int]) -> None:
    """Players of one table: the awaited one presses by the harness's policy, or now and
    then lets his clock run out; an empty table is joined and started again. A press lost
    with a killed worker (taken, never applied) is simply made again."""
    while time.monotonic() < until:
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
        except (AssertionError, TimeoutError, OSError, KeyError) as exc:
            counts["retries"] += 1
            counts[type(exc).__name__] = counts.get(type(exc).__name__, 0) + 1
            await asyncio.sleep(0.3)


async def kill_again_and_again(workers: Sequence[BotProcess], until: float,
                               rng: random.Random) -> int:
    """SIGKILL a random worker every few seconds and start it again a moment later."""
    kills = 0
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(3.0, 6.0))
        victim = rng.choice(list(workers))
        victim.kill()
        kills += 1
        await asyncio.sleep(rng.uniform(0.3, 1.5))
        victim.start()
    return kills


async def test_three_workers_one_killed_again_and_again_apply_every_step_once(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    schema = f"t_{uuid.uuid4().hex[:16]}"
    database_url = f"{PG_DSN}?schema={schema}"
    data_dir = tmp_path / "data"
    ports = [free_port() for _ in range(3)]
    workers = [worker(handle.url, data_dir, database_url, port) for port in ports]
    db: Database | None = None
    view: SharedView | None = None
    try:
        for w in workers:
            bot_factory.append(w)
            w.start()
        await sb.webhook_spread([f"http://127.0.0.1:{port}/telegram" for port in ports])
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

        rng = random.Random(1313)
        until = time.monotonic() + PLAY
        counts = {"presses": 0, "waits": 0, "retries": 0}
        drivers = [drive(g, name, until, random.Random(rng.random()), counts)
                   for g, name in tables]
        kills, *_ = await asyncio.gather(kill_again_and_again(workers, until, rng), *drivers)
        print(f"\n{kills} kills, {counts}")
        assert kills >= 6

        # every worker up again: whatever was pending is delivered, nothing stays overdue
        async def quiet() -> bool:
            pending = db.fetch("SELECT count(*) FROM outbox WHERE sent_at IS NULL")[0][0]
            overdue = db.fetch("SELECT count(*) FROM tables WHERE due < $1",
                               time.time() - 3 * TIMEOUT)[0][0]
            return pending == 0 and overdue == 0
        await sb.wait_for(quiet, timeout=60)
        await asyncio.sleep(1.0)

        # every step applied exactly once: one steps row per version, none skipped
        versions: dict[int, list[int]] = {}
        for chat, version in db.fetch("SELECT chat_id, version FROM steps WHERE kind = 'step'"
                                      " ORDER BY chat_id, version"):
            versions.setdefault(chat, []).append(version)
        assert len(versions) == 6
        for chat, seen in versions.items():
            final = view.db_table(chat)
            assert final is not None
            assert seen == list(range(1, final[2] + 1)), f"chat {chat}: {seen}"
        assert sum(len(v) for v in versions.values()) > 100

        # every deadline fired exactly once, by whichever worker claimed it
        fired = [(int(c), int(v)) for c, v in TIMED_OUT_RE.findall(view.log_text())]
        assert len(fired) == len(set(fired)) and len(fired) >= 6
        assert all(v in versions[c] for c, v in fired)

        # chips conserved
        audit = {k: int(db.fetch(sql)[0][0]) for k, sql in AUDIT_QUERIES.items()}
        assert audit["wallets"] + audit["on_tables"] == audit["issued"] > 0, audit
        assert audit["unbalanced_steps"] == 0 and audit["ledger_drift"] == 0, audit

        # every settled coup announced once: as many results in the group as settlements
        # the bot committed (each an outbox row of its own), each coup once
        total = 0
        for game, name in tables:
            shown = await settled_coups(sb, game.chat_id)
            settled = db.fetch("SELECT count(*) FROM outbox WHERE chat_id = $1"
                               " AND kind = 'settle'", game.chat_id)[0][0]
            assert set(shown.values()) <= {1}, f"{name}: {shown}"
            assert len(shown) == settled, f"{name}: {shown} for {settled} settlements"
            total += settled
        assert total >= 6
        takeovers = view.log_text().count("delivery taken over")
        print(f"{total} settlements, {len(fired)} deadlines, {takeovers} takeovers")
        assert takeovers >= 1
    finally:
        for w in workers:
            w.kill()
        if view is not None:
            view.freeze([g.chat_id for g in harness.LIVE])
        if db is not None:
            db.close()
        await drop_schema(schema)


def registry_games() -> list[str]:
    from games import registry

    return list(registry.GAMES)

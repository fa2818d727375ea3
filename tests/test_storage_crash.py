"""Kill a process driving storage at random moments: after each restart no chip and no
announcement is lost, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
from storage_backends import GRANT, PG_DSN

from storage.base import KEEP_SENT

WORKER = Path(__file__).with_name("storage_crash_worker.py")
ROOT = Path(__file__).resolve().parent.parent
CHAT = -42

Fetch = Callable[..., list[tuple[Any, ...]]]
"""Runs one query (``?`` placeholders) on the database as the restart finds it."""


def check_consistent(fetch: Fetch) -> int:
    """Check the chips and the outbox with plain SQL; returns the table version."""
    def one(sql: str, *args: object) -> Any:
        rows = fetch(sql, *args)
        return 0 if not rows else rows[0][0]  # an account never credited holds nothing

    assert one("SELECT COUNT(*) FROM (SELECT step_id FROM ledger GROUP BY step_id"
               " HAVING SUM(delta) <> 0) s") == 0
    players = one("SELECT COUNT(*) FROM wallets WHERE chat_id = ?", CHAT)
    issued = one("SELECT -SUM(delta) FROM ledger WHERE account = 'house'")
    assert issued == GRANT * players
    held = one("SELECT (SELECT SUM(balance) FROM wallets)"
               " + (SELECT COALESCE(SUM(balance), 0) FROM table_accounts)")
    assert held == issued
    # Every account's balance is the sum of its ledger rows.
    for account, total in fetch("SELECT account, SUM(delta) FROM ledger WHERE account <> 'house'"
                                " GROUP BY account"):
        if account.startswith("wallet:"):
            stored = one("SELECT balance FROM wallets WHERE chat_id = ? AND user_id = ?",
                         CHAT, int(account.removeprefix("wallet:")))
        else:
            stored = one("SELECT balance FROM table_accounts WHERE chat_id = ?"
                         " AND account = ?", CHAT, account)
        assert stored == total, account
    [(version, state, rev)] = fetch("SELECT version, state, rev FROM tables WHERE chat_id = ?",
                                    CHAT)
    assert version == rev == one("SELECT COUNT(*) FROM steps WHERE kind = 'step'"
                                 " AND chat_id = ?", CHAT)
    # The snapshot and the balances committed together.
    stored_accounts = dict(fetch("SELECT account, balance FROM table_accounts"
                                 " WHERE chat_id = ? AND balance <> 0", CHAT))
    assert json.loads(state)["accounts"] == stored_accounts
    check_outbox(fetch, version)
    return int(version)


def check_outbox(fetch: Fetch, version: int) -> None:
    """Each committed version has exactly one outbox row; none names a later version.

    The worker sends in id order and records the version it announced as the
    message id, so the sent rows come first and run up to some version ``s``;
    pruning leaves the newest ``KEEP_SENT`` of them; the rest, up to the table's
    version, are still pending with their payload.
    """
    rows = [(bool(sent), json.loads(payload), message_id, attempts) for sent, payload,
            message_id, attempts in fetch(
                "SELECT sent_at IS NOT NULL, payload, message_id, attempts FROM outbox"
                " WHERE chat_id = ? ORDER BY id", CHAT)]
    sent = [r for r in rows if r[0]]
    pending = [r for r in rows if not r[0]]
    assert rows == sent + pending  # delivered in order
    assert all(payload == {} and attempts >= 1 for _, payload, _, attempts in sent)
    assert all(message_id is None for _, _, message_id, _ in pending)
    named = [m for _, _, m, _ in sent] + [payload["version"] for _, payload, _, _ in pending]
    last_sent = sent[-1][2] if sent else 0
    assert len(sent) == min(KEEP_SENT, last_sent)
    assert named == list(range(last_sent - len(sent) + 1, version + 1))


def sqlite_fetch(path: Path) -> Fetch:
    """A fetch on the SQLite file (after checking the file itself is sound)."""
    def fetch(sql: str, *args: object) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(path)
        try:
            return list(conn.execute(sql, args).fetchall())
        finally:
            conn.close()

    assert fetch("PRAGMA integrity_check") == [("ok",)]
    return fetch


@contextmanager
def postgres_fetch(schema: str) -> Iterator[Fetch]:
    """A fetch inside one read-only snapshot of the schema.

    A killed client's last COMMIT may still be landing on the server; one
    snapshot sees it whole or not at all.
    """
    loop = asyncio.new_event_loop()
    conn = loop.run_until_complete(asyncpg.connect(PG_DSN,
                                                   server_settings={"search_path": schema}))
    try:
        loop.run_until_complete(conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))

        def fetch(sql: str, *args: object) -> list[tuple[Any, ...]]:
            numbers = iter(range(1, 100))
            pg_sql = re.sub(r"\?", lambda _: f"${next(numbers)}", sql)
            return [tuple(r) for r in loop.run_until_complete(conn.fetch(pg_sql, *args))]

        yield fetch
    finally:
        loop.run_until_complete(conn.close())
        loop.close()


def kill_repeatedly(url: str, kills: int, seconds: tuple[float, float],
                    check: Callable[[], int]) -> None:
    """Start the worker on ``url``, SIGKILL it after a random while, check, ``kills`` times."""
    rng = random.Random(4242)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent)])}
    versions = [0]
    for kill in range(kills):
        proc = subprocess.Popen([sys.executable, str(WORKER), url, str(kill)],
                                stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(*seconds))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL  # it was still running: killed mid-work
        versions.append(check())
    # The table resumed from its last commit every time and went on from there.
    assert versions == sorted(versions)
    assert versions[-1] > kills


def test_sigkill_at_random_moments_never_loses_a_chip_or_a_message_sqlite(
        tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    kill_repeatedly(str(path), 20, (0.01, 0.15), lambda: check_consistent(sqlite_fetch(path)))


def test_sigkill_at_random_moments_never_loses_a_chip_or_a_message_postgres() -> None:
    schema = f"crash_{uuid.uuid4().hex[:12]}"

    def check() -> int:
        with postgres_fetch(schema) as fetch:
            return check_consistent(fetch)

    try:
        kill_repeatedly(f"{PG_DSN}?schema={schema}", 8, (0.05, 0.3), check)
    finally:
        async def drop() -> None:
            conn = await asyncpg.connect(PG_DSN)
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            finally:
                await conn.close()

        asyncio.run(drop())

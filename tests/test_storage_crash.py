"""Kill a process driving SQLite storage at random moments: after each restart no chip is lost."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from storage_backends import GRANT

WORKER = Path(__file__).with_name("storage_crash_worker.py")
ROOT = Path(__file__).resolve().parent.parent
CHAT = -42
KILLS = 20


def check_consistent(path: Path) -> int:
    """Check the database as a restart finds it, with plain SQL; returns the table version."""
    conn = sqlite3.connect(path)
    try:
        def one(sql: str, *args: object) -> object:
            row = conn.execute(sql, args).fetchone()
            return 0 if row is None else row[0]  # an account never credited holds nothing

        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert one("SELECT COUNT(*) FROM (SELECT step_id FROM ledger GROUP BY step_id"
                   " HAVING SUM(delta) <> 0)") == 0
        players = one("SELECT COUNT(*) FROM wallets WHERE chat_id = ?", CHAT)
        issued = one("SELECT -SUM(delta) FROM ledger WHERE account = 'house'")
        assert issued == GRANT * players
        held = one("SELECT (SELECT SUM(balance) FROM wallets)"
                   " + (SELECT COALESCE(SUM(balance), 0) FROM table_accounts)")
        assert held == issued
        # Every account's balance is the sum of its ledger rows.
        for account, total in conn.execute(
                "SELECT account, SUM(delta) FROM ledger WHERE account <> 'house'"
                " GROUP BY account"):
            if account.startswith("wallet:"):
                stored = one("SELECT balance FROM wallets WHERE chat_id = ? AND user_id = ?",
                             CHAT, int(account.removeprefix("wallet:")))
            else:
                stored = one("SELECT balance FROM table_accounts WHERE chat_id = ?"
                             " AND account = ?", CHAT, account)
            assert stored == total, account
        version, state = conn.execute("SELECT version, state FROM tables WHERE chat_id = ?",
                                      (CHAT,)).fetchone()
        assert version == one("SELECT COUNT(*) FROM steps WHERE kind = 'step' AND chat_id = ?",
                              CHAT)
        # The snapshot and the balances committed together.
        stored_accounts = dict(conn.execute(
            "SELECT account, balance FROM table_accounts WHERE chat_id = ? AND balance <> 0",
            (CHAT,)).fetchall())
        assert json.loads(state)["accounts"] == stored_accounts
        return int(version)
    finally:
        conn.close()


def test_sigkill_at_random_moments_never_loses_a_chip(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(4242)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent)])}
    versions = [0]
    for kill in range(KILLS):
        proc = subprocess.Popen([sys.executable, str(WORKER), str(path), str(kill)],
                                stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.01, 0.15))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL  # it was still running: killed mid-work
        versions.append(check_consistent(path))
    # The table resumed from its last commit every time and went on from there.
    assert versions == sorted(versions)
    assert versions[-1] > KILLS

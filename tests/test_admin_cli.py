"""``python -m bot.admin`` run as a subprocess on databases made by playing: the bot's own
Tables, Presses and Courier (tests/test_bot_tables.py) on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage_backends import PG_DSN, backend
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    PREFERRED,
    Host,
    RecordingBot,
    composed,
    make_host,
    play_until_settled,
    press,
    seat_three,
)

from bot.view import i18n
from games.cards import pretty
from storage.inspect import inspector

ROOT = Path(__file__).resolve().parents[1]
OTHER = -200
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


def admin(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh process, with the bot's settings in ``env``."""
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR")}
    return subprocess.run([sys.executable, "-m", "bot.admin", *args], text=True,
                          capture_output=True, timeout=120, cwd=ROOT,
                          env={**base, "PYTHONPATH": str(ROOT), **env})


async def played_host(make: Any) -> tuple[Host, RecordingBot]:
    """The bot's collaborators on SQLite (``make_host``), after :func:`played`."""
    bot = RecordingBot()
    host = await make(bot)
    await played(host, bot)
    return host, bot


async def played(host: Host, bot: RecordingBot) -> None:
    """Three players at twenty-one: one coup settled, the next one dealt (cards in hands)."""
    await seat_three(host, bot)
    await press(host, bot, ANN, ["start"])
    await play_until_settled(host, bot)
    for _ in range(30):
        if await hidden_cards(host):
            return
        table = await host.tables.load(CHAT)
        await press(host, bot, table.engine.awaiting(table.state)[0], PREFERRED)
    raise AssertionError("no card was dealt")


async def hidden_cards(host: Host) -> set[str]:
    """The cards players hold face down now (the state knows them; nobody else may)."""
    table = await host.tables.load(CHAT)
    public = {c for s in table.sight.view().seats for c in s.face_up}
    return {c for s in table.sight.view().seats
            for c in table.sight.view(s.player).my_cards} - public


async def test_tables_and_show_give_the_public_table_its_chips_and_ledger(
        make_host: Any, tmp_path: Path) -> None:  # noqa: F811
    host, _ = await played_host(make_host)
    env = {"DATA_DIR": str(tmp_path)}
    table = await host.tables.load(CHAT)

    listed = admin(env, "tables", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["chat"], row["game"], row["phase"], row["coup"], row["version"]) == (
        CHAT, "twenty_one", table.state.phase, table.state.coup, table.state.version)
    assert row["players"] == [{"user": ANN, "name": "Ann"}, {"user": BOB, "name": "Bob"},
                              {"user": CID, "name": "Cid"}]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["last_step"])
    text = admin(env, "tables")
    assert text.stdout.splitlines()[1].split() == [
        str(CHAT), "twenty_one", table.state.phase, str(table.state.coup), row["last_step"],
        "Ann,", "Bob,", "Cid"]

    shown = admin(env, "show", str(CHAT), "--json", "--ledger", "5")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["table_accounts"] == await host.storage.table_accounts(chat_id=CHAT)
    assert sum(data["table_accounts"].values()) == 3000
    newest = await inspector(host.storage).ledger(chat_id=CHAT, limit=5)
    assert [(r["step"], r["account"], r["delta"], r["reason"]) for r in data["ledger"]] == [
        (e.step_id, e.account, e.delta, e.reason) for e in newest]
    assert data["public_view"].startswith("Twenty-one")
    # never a hidden card, in either form, anywhere in what the operator reads
    hidden = await hidden_cards(host)
    assert hidden
    for out in (shown.stdout, admin(env, "show", str(CHAT)).stdout, listed.stdout):
        assert not (set(CARD.findall(out)) | {c for c in hidden if pretty(c) in out}) & hidden

    missing = admin(env, "show", str(OTHER))
    assert (missing.returncode, missing.stderr) == (1, f"chat {OTHER} has no open table\n")
    nowhere = admin({"DATA_DIR": str(tmp_path / "none")}, "tables")
    assert nowhere.returncode == 2 and "no database at" in nowhere.stderr


async def test_close_returns_every_chip_and_the_audit_holds_until_a_chip_is_made_up(
        make_host: Any, tmp_path: Path) -> None:  # noqa: F811
    host, _ = await played_host(make_host)
    await host.courier.stop(1)  # what the CLI queues stays to be read
    env = {"DATA_DIR": str(tmp_path)}
    closed = admin(env, "close", str(CHAT))
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout == f"chat {CHAT}: table closed; 3000 chip(s) back to the wallets\n"
    assert await host.storage.open_tables() == []
    assert sum(w.balance for w in await host.storage.leaderboard(chat_id=CHAT)) == 3000
    closing = [i for i in await host.storage.pending_outbox(chat_id=CHAT) if i.kind == "close"]
    assert closing[-1].payload["text"].startswith(i18n.t("en", "closed_table"))
    again = admin(env, "close", str(CHAT))
    assert (again.returncode, again.stderr) == (1, f"chat {CHAT}: "
                                                   f"{i18n.plain(i18n.t('en', 'no_table'))}\n")

    audit = admin(env, "audit", "--json")
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout) == {"chats": [
        {"chat_id": CHAT, "issued": 3000, "wallets": 3000, "on_table": 0,
         "unbalanced_steps": 0, "ledger_drift": 0, "ok": True}], "violations": []}

    await host.storage.wallet(chat_id=OTHER, user_id=ANN)
    db = sqlite3.connect(tmp_path / "banco.sqlite3")
    with db:
        db.execute("UPDATE wallets SET balance = balance + 5 WHERE chat_id = ? AND user_id = ?",
                   (CHAT, BOB))
    db.close()
    broken = admin(env, "audit")
    assert broken.returncode == 1
    lines = broken.stdout.splitlines()
    assert lines[1].split() == [str(OTHER), "1000", "1000", "0", "0", "0", "ok"]
    assert lines[2].split() == [str(CHAT), "3000", "3005", "0", "0", "1", "VIOLATION"]
    assert lines[3] == "2 chat(s), 1 violation(s)"
    assert admin(env, "audit", "--chat", str(OTHER)).returncode == 0


async def test_export_then_import_is_idempotent_and_refuses_to_overwrite_silently(
        make_host: Any, tmp_path: Path) -> None:  # noqa: F811
    host, _ = await played_host(make_host)
    env = {"DATA_DIR": str(tmp_path)}
    exported = admin(env, "export", str(CHAT))
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    board = {w.user_id: w for w in await host.storage.leaderboard(chat_id=CHAT)}
    assert (data["format"], data["version"], data["chat"]) == ("banco-wallets", 1, CHAT)
    assert data["wallets"] == [
        {"user": u, "name": board[u].name, "total": board[u].balance + board[u].on_table,
         "balance": board[u].balance, "on_table": board[u].on_table} for u in (ANN, BOB, CID)]
    file = tmp_path / "wallets.json"
    assert admin(env, "export", str(CHAT), "-o", str(file)).returncode == 0
    assert json.loads(file.read_text())["wallets"] == data["wallets"]

    same = admin(env, "import", str(file))  # into the chat it came from: nothing to do
    assert same.stdout == f"chat {CHAT}: 0 created, 3 unchanged, 0 adjusted (+0 chips)\n"
    moved = admin(env, "import", str(file), "--chat", str(OTHER))
    assert moved.stdout == f"chat {OTHER}: 3 created, 0 unchanged, 0 adjusted (+0 chips)\n"
    twice = admin(env, "import", str(file), "--chat", str(OTHER))
    assert twice.stdout == f"chat {OTHER}: 0 created, 3 unchanged, 0 adjusted (+0 chips)\n"
    totals = {u: w["total"] for u, w in zip((ANN, BOB, CID), data["wallets"], strict=True)}
    assert {w.user_id: w.balance for w in await host.storage.leaderboard(chat_id=OTHER)} == (
        totals)

    data["wallets"][1]["total"] += 5
    file.write_text(json.dumps(data))
    refused = admin(env, "import", str(file), "--chat", str(OTHER))
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"conflict: user {BOB} holds {totals[BOB]} in chat {OTHER}, the file says "
        f"{totals[BOB] + 5}", "nothing imported (--overwrite books the differences)"]
    assert (await host.storage.wallet(chat_id=OTHER, user_id=BOB)).balance == totals[BOB]
    forced = admin(env, "import", str(file), "--chat", str(OTHER), "--overwrite")
    assert forced.stdout == f"chat {OTHER}: 0 created, 2 unchanged, 1 adjusted (+5 chips)\n"
    assert (await host.storage.wallet(chat_id=OTHER, user_id=BOB)).balance == totals[BOB] + 5
    assert admin(env, "audit").returncode == 0  # the house issued what the import added


async def test_backup_while_the_bot_plays_is_a_consistent_database(
        make_host: Any, tmp_path: Path) -> None:  # noqa: F811
    host, bot = await played_host(make_host)
    copy = tmp_path / "copy" / "banco.sqlite3"
    copy.parent.mkdir()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.admin", "backup", str(copy), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path)})
    done = asyncio.ensure_future(proc.communicate())
    steps = 0
    while not done.done():  # the bot writes all the while
        table = await host.tables.load(CHAT)
        await press(host, bot, (table.engine.awaiting(table.state) or [ANN])[0], PREFERRED)
        steps += 1
    out, err = await done
    assert steps > 3
    assert proc.returncode == 0, err
    assert out.decode().startswith(f"backup of {tmp_path / 'banco.sqlite3'} written to {copy}")
    db = sqlite3.connect(copy)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        tables = db.execute("SELECT COUNT(*) FROM tables").fetchone()
    finally:
        db.close()
    assert tables == (1,)
    assert admin({"DATA_DIR": str(copy.parent)}, "audit").returncode == 0
    exists = admin({"DATA_DIR": str(tmp_path)}, "backup", str(copy))
    assert (exists.returncode, exists.stderr) == (2, f"{copy} exists (--force replaces it)\n")


@pytest.fixture
async def pg_host(tmp_path: Path) -> AsyncIterator[tuple[Host, RecordingBot, str]]:
    """The bot's collaborators on a fresh PostgreSQL schema; its DATABASE_URL."""
    async with backend("postgres", tmp_path) as db:
        bot = RecordingBot()
        host = composed(db.storage, bot)
        host.lifecycle.start()
        await host.courier.start()
        try:
            yield host, bot, f"{PG_DSN}?schema={db.schema}"
        finally:
            await host.courier.stop(1)
            await host.lifecycle.stop()
            host.deadlines.stop()


async def test_the_cli_on_postgresql(pg_host: tuple[Host, RecordingBot, str],
                                     tmp_path: Path) -> None:
    host, bot, url = pg_host
    await played(host, bot)
    env = {"DATABASE_URL": url}
    [row] = json.loads(admin(env, "tables", "--json").stdout)
    assert (row["chat"], row["game"]) == (CHAT, "twenty_one")
    file = tmp_path / "wallets.json"
    assert admin(env, "export", str(CHAT), "-o", str(file)).returncode == 0
    closed = admin(env, "close", str(CHAT))
    assert closed.stdout == f"chat {CHAT}: table closed; 3000 chip(s) back to the wallets\n"
    assert admin(env, "import", str(file)).stdout == (
        f"chat {CHAT}: 0 created, 3 unchanged, 0 adjusted (+0 chips)\n")
    audit = json.loads(admin(env, "audit", "--json").stdout)
    assert audit["chats"] == [{"chat_id": CHAT, "issued": 3000, "wallets": 3000,
                               "on_table": 0, "unbalanced_steps": 0, "ledger_drift": 0,
                               "ok": True}]
    backup = admin(env, "backup", str(tmp_path / "x.db"))
    assert (backup.returncode, backup.stderr) == (
        2, "backup copies SQLite; for PostgreSQL use pg_dump\n")

"""Units of work that wait together go to SQLite's thread in one trip (storage/trips.py):
each write commits or changes nothing on its own, in the order asked for."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest
from storage_backends import BACKENDS, GRANT, Backend, backend

from games.engine import Transfer
from storage.base import InsufficientFunds
from storage.trips import Trips, on_thread

CHATS = (-100, -101, -102)


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        yield b


async def step(db: Backend, chat: int, version: int, src: str, dst: str, amount: int) -> int:
    return await db.storage.commit_step(
        chat_id=chat, expected_version=version, state_json=f'{{"v": {version + 1}}}',
        version=version + 1, transfers=[Transfer(src=src, dst=dst, amount=amount,
                                                 reason="move")],
        coup=1, deadline=None)


async def test_steps_asked_for_together_commit_each_and_an_overdraft_changes_nothing(
        db: Backend) -> None:
    for chat in CHATS:
        await db.storage.create_table(chat_id=chat, game="baccarat", settings={},
                                      state_json='{"v": 0}', version=0, meta_json="{}")
        await step(db, chat, 0, "wallet:1", "stack:1", 300)
    ledger = (await db.raw("SELECT COUNT(*) FROM ledger"))[0][0]
    outcomes = await asyncio.gather(
        step(db, CHATS[0], 1, "stack:1", "stake:1", 100),
        step(db, CHATS[1], 1, "stack:1", "stake:1", 301),  # more than his stack
        step(db, CHATS[2], 1, "stack:1", "stake:1", 300),
        return_exceptions=True)
    assert [type(o) for o in outcomes] == [int, InsufficientFunds, int]
    versions = [(await db.storage.load_table(chat_id=c)).version for c in CHATS]
    assert versions == [2, 1, 2]
    assert [await db.storage.table_accounts(chat_id=c) for c in CHATS] == [
        {"stack:1": 200, "stake:1": 100}, {"stack:1": 300}, {"stake:1": 300}]
    assert (await db.raw("SELECT COUNT(*) FROM ledger"))[0][0] == ledger + 4
    assert (await db.storage.wallet(chat_id=CHATS[1], user_id=1)).balance == GRANT - 300


@pytest.fixture
async def conn(tmp_path: Path) -> AsyncIterator[aiosqlite.Connection]:
    """A connection with one table, whose statements are recorded in ``conn.statements``."""
    db = await aiosqlite.connect(tmp_path / "t.db", isolation_level=None)
    statements: list[str] = []

    def setup(raw: sqlite3.Connection) -> None:
        raw.execute("CREATE TABLE t (v INTEGER NOT NULL CHECK (v >= 0))")
        raw.set_trace_callback(statements.append)

    await on_thread(db, setup)
    db.statements = statements  # type: ignore[attr-defined]
    try:
        yield db
    finally:
        await db.close()


def insert(raw: sqlite3.Connection, value: int) -> int:
    raw.execute("INSERT INTO t (v) VALUES (?)", (value,))
    return value


def values(raw: sqlite3.Connection) -> list[int]:
    return [r[0] for r in raw.execute("SELECT v FROM t ORDER BY rowid")]


async def test_writes_waiting_together_share_one_transaction_each_in_a_savepoint(
        conn: aiosqlite.Connection) -> None:
    trips = Trips(conn)
    results = await asyncio.gather(
        *(trips.run(insert, v, write=True) for v in (1, 2)),
        trips.run(values, write=False),
        trips.run(insert, 3, write=True))
    assert results == [1, 2, [1, 2], 3]
    assert conn.statements == [  # type: ignore[attr-defined]
        # the first found the thread free: it went at once, in its own transaction
        "BEGIN IMMEDIATE", "INSERT INTO t (v) VALUES (1)", "COMMIT",
        # the others waited for it, and went together
        "BEGIN IMMEDIATE",
        "SAVEPOINT unit", "INSERT INTO t (v) VALUES (2)", "RELEASE unit",
        "SELECT v FROM t ORDER BY rowid",
        "SAVEPOINT unit", "INSERT INTO t (v) VALUES (3)", "RELEASE unit",
        "COMMIT"]


def insert_then_fail(raw: sqlite3.Connection, value: int) -> None:
    raw.execute("INSERT INTO t (v) VALUES (?)", (value,))
    raise LookupError(f"no {value}")


async def test_a_write_that_fails_in_a_shared_trip_leaves_nothing_and_raises_to_its_caller_alone(
        conn: aiosqlite.Connection) -> None:
    trips = Trips(conn)
    outcomes = await asyncio.gather(
        trips.run(values, write=False),  # (goes alone: the others wait for it together)
        trips.run(insert, 1, write=True),
        trips.run(insert_then_fail, 2, write=True),
        trips.run(insert, -3, write=True),  # refused by the CHECK
        trips.run(insert, 4, write=True),
        return_exceptions=True)
    assert outcomes[:2] == [[], 1] and outcomes[4] == 4
    assert isinstance(outcomes[2], LookupError) and str(outcomes[2]) == "no 2"
    assert isinstance(outcomes[3], sqlite3.IntegrityError)
    assert await trips.run(values, write=False) == [1, 4]


async def test_a_unit_whose_caller_gave_up_before_its_trip_does_not_run(
        conn: aiosqlite.Connection) -> None:
    trips = Trips(conn)
    on_thread_now, go_on = threading.Event(), threading.Event()

    def held(raw: sqlite3.Connection) -> int:
        on_thread_now.set()
        go_on.wait(10)
        return insert(raw, 1)

    first = asyncio.create_task(trips.run(held, write=True))
    await asyncio.to_thread(on_thread_now.wait, 10)  # the first unit is on the thread
    given_up = asyncio.create_task(trips.run(insert, 2, write=True))
    kept = asyncio.create_task(trips.run(insert, 3, write=True))
    await asyncio.sleep(0)  # both are waiting for the next trip
    given_up.cancel()
    go_on.set()
    assert await first == 1 and await kept == 3
    with pytest.raises(asyncio.CancelledError):
        await given_up
    assert await trips.run(values, write=False) == [1, 3]

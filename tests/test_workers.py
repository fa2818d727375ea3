"""Several workers on one PostgreSQL, in-process: each worker is the bot's own collaborators
(storage, Tables, Presses, the shared courier and deadlines) on its own connections to one
schema, as ``post_init`` wires them in shared mode; only Telegram is replaced (the
recording fake of test_bot_tables.py, one per test, seen by every worker).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest
from storage_backends import PG_DSN, drop_schema
from test_bot_tables import (
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    RecordingBot,
    buttons,
    composed,
    table_message,
    worded,
)

from bot.outbox.courier import Courier
from bot.table.languages import Languages
from bot.table.lifecycle import Lifecycle
from bot.table.presses import Presses
from bot.table.tables import Tables
from bot.workers import coordination
from bot.workers.coordination import Shared
from bot.workers.shared_ratelimit import PgBudget, RedisBudget, shared_limiter
from storage.postgres import PostgresStorage
from storage.postgres_coord import PgCoordination

REDIS_URL = "redis://127.0.0.1:6379/0"


Call = tuple[str, str, Any]
"""A Telegram call as the fake saw it begin: (worker, method, chat id); in order."""


class Tagged:
    """One worker's view of the shared fake Telegram: records which worker called what."""

    def __init__(self, bot: RecordingBot, tag: str, calls: list[Call]) -> None:
        self.bot, self.tag, self.calls, self.id = bot, tag, calls, bot.id

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any]) -> Any:
        self.calls.append((self.tag, method, api_kwargs.get("chat_id")))
        return await self.bot.do_api_request(method, api_kwargs)


@dataclass
class Worker:
    """The collaborators of one bot process in shared mode."""

    name: str
    storage: PostgresStorage
    shared: Shared
    tables: Tables
    lifecycle: Lifecycle
    presses: Presses
    courier: Courier
    timeouts: list[int]
    alive: bool = True

    async def die(self) -> None:
        """The process is gone: its connections close, its locks and leases with them."""
        if self.alive:
            self.alive = False
            self.courier.stopping = True
            await self.shared.close()
            await self.courier.stop(0.1)
            await self.lifecycle.stop()
            await self.storage.close()


@pytest.fixture
async def cluster() -> AsyncIterator[Any]:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    workers: list[Worker] = []
    bot = RecordingBot()
    calls: list[Call] = []

    async def make(name: str, timeout: float = 60) -> Worker:
        storage = PostgresStorage(PG_DSN, starting_grant=1000, daily_bonus=100, schema=schema,
                                  max_connections=4)
        await storage.open()
        shared = await coordination.open_shared(f"{PG_DSN}?schema={schema}", None)
        assert shared is not None
        host = composed(storage, Tagged(bot, name, calls), shared=shared,
                        decision_timeout=timeout)
        timeouts: list[int] = []
        on_deadline = host.clock.on_deadline

        async def counted(chat_id: int, version: int) -> None:
            before = (await storage.load_table(chat_id=chat_id)).version
            await on_deadline(chat_id, version)
            after = await storage.load_table(chat_id=chat_id)
            if after.version != before:
                timeouts.append(before)

        shared.deadlines.start(counted)
        host.lifecycle.start()
        await host.courier.start()
        worker = Worker(name, storage, shared, host.tables, host.lifecycle, host.presses,
                        host.courier, timeouts)
        workers.append(worker)
        return worker

    yield make, bot, calls
    for worker in workers:
        await worker.die()
    await drop_schema(schema)


async def drained(*workers: Worker) -> None:
    """Wait until no outbox item is pending and no live worker is sending."""
    for _ in range(600):
        await asyncio.sleep(0.02)
        live = [w for w in workers if w.alive]
        busy = any(chat.sending() for w in live for chat in w.courier.chats.values()) or any(
            not t.done() for w in live for t in w.shared.leases.background)
        if not busy and not await live[0].storage.pending_outbox():
            return
    raise AssertionError("the outbox did not drain")


async def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait until ``condition()`` holds, for ``timeout`` seconds at most."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.02)


async def terminate(conn: asyncpg.Connection) -> None:
    """End a connection's server process from outside (an administrator, a restart)."""
    killer = await asyncpg.connect(PG_DSN)
    try:
        assert await killer.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())
    finally:
        await killer.close()


async def join_three(workers: list[Worker], bot: RecordingBot) -> list[str]:
    """Ann, Bob and Cid press Join on the same table at once, each through another worker."""
    msg = table_message(bot)
    join = next(b for b in buttons(msg) if b.kind == "join")
    outcomes = await asyncio.gather(*(
        w.presses.press(CHAT, p, NAMES[p], join) for w, p in zip(workers, (ANN, BOB, CID),
                                                                 strict=True)))
    return [worded(o).text for o in outcomes]


async def test_presses_on_three_workers_at_once_are_serialized_not_refused(
        cluster: Any) -> None:
    make, bot, _ = cluster
    workers = [await make(n) for n in ("a", "b", "c")]
    assert await workers[0].lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(*workers)
    for w in workers:
        async with w.tables.lock(CHAT):
            await w.tables.load(CHAT)  # a copy at rev 0 in each worker
    assert await join_three(workers, bot) == ["🪑 You sit down with 1000"] * 3
    table = await workers[1].storage.load_table(chat_id=CHAT)
    assert table.version == 3 and table.rev == 3
    async with workers[2].tables.lock(CHAT):
        seats = (await workers[2].tables.load(CHAT)).sight.view().seats
    assert sorted(s.player for s in seats) == [ANN, BOB, CID]


async def test_a_chat_lock_held_by_one_worker_keeps_the_others_waiting(cluster: Any) -> None:
    make, _, _ = cluster
    a, b = await make("a"), await make("b")
    order: list[str] = []
    async with a.tables.lock(CHAT):
        waiting = asyncio.create_task(_hold(b, order))
        await asyncio.sleep(0.3)
        order.append("a done")
    await waiting
    assert order == ["a done", "b in"]


async def test_locked_holds_the_chat_on_every_worker_and_reads_another_workers_commit(
        cluster: Any) -> None:
    make, _, _ = cluster
    a, b = await make("a"), await make("b")
    async with b.tables.locked(CHAT) as table:
        assert table is None  # no table in the chat yet
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a, b)
    async with b.tables.locked(CHAT) as table:
        assert table is not None and table.rec.rev == 0  # b keeps a copy at rev 0
    revs: list[int] = []

    async def read_on_b() -> None:
        async with b.tables.locked(CHAT) as table:
            assert table is not None
            revs.append(table.rec.rev)

    async with a.tables.locked(CHAT) as table:
        assert table is not None
        await a.tables.commit(table, redraw=False)
        waiting = asyncio.create_task(read_on_b())
        await asyncio.sleep(0.3)
        assert revs == []  # a holds the chat's lock in the database: b waits
    await waiting
    assert revs == [1]  # b's copy at rev 0 is dropped under the lock, a's commit read


async def _hold(worker: Worker, order: list[str]) -> None:
    async with worker.tables.lock(CHAT):
        order.append("b in")


async def test_one_worker_delivers_a_chat_and_another_workers_steps_ring_it(
        cluster: Any) -> None:
    make, bot, calls = cluster
    a, b = await make("a"), await make("b")
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a, b)
    assert CHAT in a.shared.coord.leases and CHAT not in b.shared.coord.leases
    calls.clear()
    join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
    for p in (ANN, BOB, CID):
        assert worded(await b.presses.press(CHAT, p, NAMES[p], join)).text == \
            "🪑 You sit down with 1000"
    await drained(a, b)
    assert {tag for tag, *_ in calls} == {"a"}
    assert [s.name for s in (await b.tables.load(CHAT)).sight.view().seats] == [
        "Ann", "Bob", "Cid"]
    assert "Cid" in table_message(bot).text


async def test_a_dead_workers_chats_are_delivered_by_another(cluster: Any) -> None:
    make, bot, calls = cluster
    a, b = await make("a"), await make("b")
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a, b)
    assert CHAT in a.shared.coord.leases
    bot.slow = asyncio.Event()  # a's sends hang: it dies with the joins undelivered
    join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
    for p in (ANN, BOB):
        assert worded(await b.presses.press(CHAT, p, NAMES[p], join)).text == \
            "🪑 You sit down with 1000"
    await asyncio.sleep(0.2)
    await a.die()
    calls.clear()
    bot.slow.set()
    bot.slow = None
    start = time.monotonic()
    for _ in range(200):
        # and b has sent: a's last send, held until after its death, may show Bob first
        if CHAT in b.shared.coord.leases and "Bob" in table_message(bot).text and calls:
            break
        await asyncio.sleep(0.05)
    assert CHAT in b.shared.coord.leases and "Bob" in table_message(bot).text
    assert time.monotonic() - start < 5  # within a few sweeps
    assert {tag for tag, *_ in calls} == {"b"}
    await drained(b)


async def test_a_worker_whose_lease_connection_dies_stops_delivering_at_once_and_recovers(
        cluster: Any, caplog: pytest.LogCaptureFixture) -> None:
    make, bot, calls = cluster
    caplog.set_level(logging.INFO)
    a, b = await make("a"), await make("b")
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a, b)
    assert a.shared.leases.holds(CHAT) and not b.shared.leases.holds(CHAT)
    join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
    old = a.shared.coord._lease_conn
    assert old is not None
    # a's new lease connection waits for this lock, so b's sweep takes the chat over first
    # (else a, connected again within a moment, would mostly win its chat back)
    async with a.shared.coord._lease_lock:
        lost_at = len(calls)  # a is idle: whatever is sent from here on, b must send it
        await terminate(old)
        await until(lambda: b.shared.leases.holds(CHAT), "b took the orphaned chat over")
    for w, p in ((a, ANN), (b, BOB), (a, CID)):
        assert worded(await w.presses.press(CHAT, p, NAMES[p], join)).text == \
            "🪑 You sit down with 1000"
    # the later joins were delivered (a's own rang b: no outbox item to wait for)...
    await until(lambda: "Cid" in table_message(bot).text, "the joins delivered")
    await drained(a, b)
    after = [tag for tag, _, chat in calls[lost_at:] if chat == CHAT]
    assert after and set(after) == {"b"}  # ...by b alone: a stopped when its lease went
    assert not a.shared.leases.holds(CHAT) and b.shared.leases.holds(CHAT)
    # a is whole again: a new live lease connection, on which it holds leases again
    await until(lambda: a.shared.coord._lease_conn not in (None, old), "a reconnected")
    new = a.shared.coord._lease_conn
    assert new is not None and not new.is_closed()
    await b.die()
    died_at = len(calls)
    start = next(x for x in buttons(table_message(bot)) if x.kind == "start")
    assert (await a.presses.press(CHAT, ANN, "Ann", start)).committed
    await until(lambda: any(x.kind == "cut" for x in buttons(table_message(bot))),
                "a delivered the started coup")
    await drained(a)
    assert a.shared.leases.holds(CHAT) and a.shared.coord._lease_conn is new
    assert {tag for tag, _, chat in calls[died_at:] if chat == CHAT} == {"a"}
    messages = [r.getMessage() for r in caplog.records if r.name == "storage.postgres_coord"]
    assert len([m for m in messages if "lease connection lost" in m]) == 1
    assert len([m for m in messages if "lease connection back" in m]) == 1
    assert not [r for r in caplog.records if r.getMessage() == "the delivery sweep failed"]


async def test_a_worker_whose_listen_connection_dies_hears_rings_again(cluster: Any) -> None:
    make, bot, calls = cluster
    a, b = await make("a"), await make("b")
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a, b)
    assert a.shared.leases.holds(CHAT)
    old = a.shared.coord._listen_conn
    assert old is not None
    lost_at = len(calls)
    await terminate(old)
    join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
    for p in (ANN, BOB):  # b's steps ring a: before a listens again, or after
        assert worded(await b.presses.press(CHAT, p, NAMES[p], join)).text == \
            "🪑 You sit down with 1000"
    await until(lambda: "Bob" in table_message(bot).text, "a delivered b's steps")
    await drained(a, b)
    assert {tag for tag, _, chat in calls[lost_at:] if chat == CHAT} == {"a"}
    new = a.shared.coord._listen_conn
    assert new is not None and new is not old and not new.is_closed()
    assert a.shared.leases.holds(CHAT)


async def test_every_deadline_fires_once_on_whichever_worker_claims_it(cluster: Any) -> None:
    make, bot, _ = cluster
    workers = [await make(n, timeout=0.3) for n in ("a", "b", "c")]
    assert await workers[0].lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(*workers)
    assert await join_three(workers, bot) == ["🪑 You sit down with 1000"] * 3
    await drained(*workers)
    start = next(x for x in buttons(table_message(bot)) if x.kind == "start")
    assert (await workers[1].presses.press(CHAT, ANN, "Ann", start)).committed
    await asyncio.sleep(3)  # nobody presses: every decision times out, until all stand up
    fired = sorted(v for w in workers for v in w.timeouts)
    async with workers[0].tables.lock(CHAT):
        table = await workers[0].tables.load(CHAT)
    # each decision timed out once, one after the other, up to the table's last step
    assert fired == list(range(4, table.state.version))
    assert table.engine.awaiting(table.state) == [] and table.meta.due is None
    # and nothing is left for the pollers to claim: the clock the facts of presence stored
    # for the last decision goes once its deadline finds nobody awaited
    for _ in range(100):
        if await workers[0].shared.coord.next_due() is None:
            break
        await asyncio.sleep(0.05)
    assert await workers[0].shared.coord.next_due() is None
    accounts = await workers[0].storage.table_accounts(chat_id=CHAT)
    wallets = sum(w.balance for w in await workers[0].storage.leaderboard(chat_id=CHAT))
    assert wallets + sum(accounts.values()) == 3000


async def two_seated_and_started(a: Worker, bot: RecordingBot) -> None:
    """A table of twenty-one at which Ann and Bob sit, its first coup started, all shown."""
    assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await drained(a)
    join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
    for p in (ANN, BOB):
        await a.presses.press(CHAT, p, NAMES[p], join)
    await drained(a)
    start = next(x for x in buttons(table_message(bot)) if x.kind == "start")
    assert (await a.presses.press(CHAT, ANN, "Ann", start)).committed
    await drained(a)


async def test_a_deadline_claimed_by_a_dead_worker_passes_to_another(cluster: Any) -> None:
    make, bot, _ = cluster
    a = await make("a", timeout=0.5)
    await two_seated_and_started(a, bot)
    table = await a.storage.load_table(chat_id=CHAT)
    # the clock started from the facts of presence (no commit): stored for every poller
    due = (await a.tables.clock.started(await a.tables.load(CHAT))).due
    assert table.meta["due"] is None and due is not None
    assert await a.shared.coord.next_due() == due
    a.shared.deadlines.stop()  # a hangs from here on, then dies before the deadline
    await a.die()
    b = await make("b", timeout=0.5)
    for _ in range(100):
        if b.timeouts:
            break
        await asyncio.sleep(0.05)
    assert b.timeouts == [table.version]
    assert time.time() < due + 3


async def test_workers_starting_together_on_a_new_schema_all_start() -> None:
    # CREATE SCHEMA IF NOT EXISTS alone let all but one of them fail (a unique violation)
    for _ in range(5):
        schema = f"t_{uuid.uuid4().hex[:16]}"
        starters = [PostgresStorage(PG_DSN, starting_grant=1000, daily_bonus=100,
                                    schema=schema, max_connections=2) for _ in range(4)]
        try:
            outcomes = await asyncio.gather(*(s.open() for s in starters),
                                            return_exceptions=True)
            assert outcomes == [None] * 4
            assert (await starters[3].wallet(chat_id=CHAT, user_id=ANN)).balance == 1000
        finally:
            for s in starters:
                await s.close()
            await drop_schema(schema)


def test_workers_share_the_database_exactly_when_the_storage_is_postgresql() -> None:
    assert coordination.shared_mode("postgresql://db/test", None)
    assert coordination.shared_mode("Postgres://db/test", None)
    assert not coordination.shared_mode("sqlite:///banco.db", None)
    assert not coordination.shared_mode("postgres", None)  # a plain path: an SQLite file
    assert not coordination.shared_mode("postgresql://db/test", False)
    assert coordination.shared_mode("sqlite:///banco.db", True)


async def test_shared_locks_and_leases_are_per_schema() -> None:
    a = PgCoordination(PG_DSN, "one")
    b = PgCoordination(PG_DSN, "two")
    assert a.key(1, CHAT) != b.key(1, CHAT) and a.key(1, CHAT) != a.key(2, CHAT)
    assert a.channel != b.channel


@pytest.mark.parametrize("kind", ["postgres", "redis"])
async def test_two_workers_together_keep_the_group_and_overall_budgets(kind: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    storage = PostgresStorage(PG_DSN, starting_grant=1000, daily_bonus=100, schema=schema)
    await storage.open()  # the migrations (rate_slots)
    await storage.close()

    def budget(group_max: int, period: float, overall_max: int) -> Any:
        if kind == "redis":
            return RedisBudget(REDIS_URL, f"banco-test:{schema}", group_max, period,
                               overall_max)
        return PgBudget(PG_DSN, schema, group_max, period, overall_max)

    limiters = [shared_limiter(budget, 4, 1.5, overall_per_second=6) for _ in range(2)]
    for limiter in limiters:
        await limiter.initialize()
    done: list[tuple[float, int]] = []

    def send(group: int) -> Any:
        async def call() -> bool:
            await asyncio.sleep(0.01)
            done.append((time.monotonic(), group))
            return True
        return call

    try:
        t0 = time.monotonic()
        await asyncio.gather(*(
            limiters[i % 2].process_request(send(g), (), {}, "sendMessage", {"chat_id": g},
                                            None)
            for i in range(10) for g in (-1, -2)))
        elapsed = time.monotonic() - t0
    finally:
        for limiter in limiters:
            await limiter.shutdown()
        conn = await asyncpg.connect(PG_DSN)
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()
    assert len(done) == 20
    for t, _ in done:  # no 1.5 s window of a group holds more than 4, nor a second 6
        for g in (-1, -2):
            assert sum(1 for u, h in done if h == g and t <= u < t + 1.5) <= 4
        assert sum(1 for u, _ in done if t <= u < t + 1.0) <= 6
    # 10 messages of a group at 4 per 1.5 s take two full windows at least
    assert elapsed >= 3.0


async def test_a_dead_workers_claim_never_holds_back_the_next_decisions_deadline(
        cluster: Any) -> None:
    make, bot, _ = cluster
    a = await make("a", timeout=0.5)
    await two_seated_and_started(a, bot)
    a.shared.deadlines.stop()
    # a claims the deadline (as if it were due) and dies holding the claim for 60 s
    assert [c for c, _ in await a.shared.coord.claim_due(time.time() + 5, 60, 16)] == [CHAT]
    await a.die()
    b = await make("b", timeout=0.5)
    async with b.tables.lock(CHAT):
        table = await b.tables.load(CHAT)
    [cutter] = table.engine.awaiting(table.state)
    cut = next(x for x in buttons(table_message(bot)) if x.kind == "cut")
    assert (await b.presses.press(CHAT, cutter, NAMES[cutter], cut)).committed
    decided = time.time()
    for _ in range(100):
        if b.timeouts:
            break
        await asyncio.sleep(0.05)
    # the next decision timed out on time, not when the dead worker's claim lapsed
    assert b.timeouts == [table.state.version + 1]
    assert time.time() - decided < 3


async def test_a_language_chosen_on_one_worker_reaches_the_others(cluster: Any) -> None:
    make, _, _ = cluster
    a, b = await make("a"), await make("b")
    now = [0.0]
    langs_a = Languages(a.storage, "en", fresh=5, clock=lambda: now[0])
    langs_b = Languages(b.storage, "en", fresh=5, clock=lambda: now[0])
    assert await langs_b.of(CHAT) == "en"
    await langs_a.choose(CHAT, "ru")
    now[0] = 4.9
    assert await langs_b.of(CHAT) == "en"  # kept a moment
    now[0] = 5.0
    assert await langs_b.of(CHAT) == "ru"


async def test_every_worker_hears_every_commit_and_what_it_missed(cluster: Any) -> None:
    """Table news (the Mini App's pages on every worker): a commit on one worker is heard by
    all, as the chat alone; the channel carries "<chat id>:<version>" and nothing else; a
    worker whose LISTEN connection was lost takes every chat with pages as changed."""
    make, bot, _ = cluster
    a, b = await make("a"), await make("b")
    heard: dict[str, list[int]] = {"a": [], "b": []}
    for w in (a, b):
        await w.shared.news.follow(w.tables, heard[w.name].append, lambda: [CHAT, -77])
    payloads: list[str] = []
    spy = await asyncpg.connect(PG_DSN)
    await spy.add_listener(a.shared.coord.news_channel, lambda *args: payloads.append(args[3]))
    try:
        assert await a.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
        await drained(a, b)
        join = next(x for x in buttons(table_message(bot)) if x.kind == "join")
        await b.presses.press(CHAT, ANN, NAMES[ANN], join)
        await until(lambda: CHAT in heard["b"] and CHAT in heard["a"], "both heard the join")
        version = (await a.storage.load_table(chat_id=CHAT)).version
        await until(lambda: f"{CHAT}:{version}" in payloads, "the join announced")
        assert all(p.split(":")[0] == str(CHAT) and p.split(":")[1].isdigit()
                   for p in payloads), payloads
        assert a.shared.coord.news_channel != PgCoordination(PG_DSN, "other").news_channel
        # a's LISTEN connection dies: once it is back, every chat with pages is changed
        old = a.shared.coord._listen_conn
        assert old is not None
        heard["a"].clear()
        await terminate(old)
        await until(lambda: {CHAT, -77} <= set(heard["a"]), "a took its pages as changed")
        before = heard["a"].count(CHAT)
        await b.presses.press(CHAT, CID, NAMES[CID], join)
        await until(lambda: heard["a"].count(CHAT) > before, "a hears news again")
    finally:
        await spy.close()

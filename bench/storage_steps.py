"""Benchmark: table steps committed per second (not a test).

Each step is one ``commit_step`` unit of work like a real coup's step: a new
state snapshot (~2 KB) with its version check and three transfers (stake,
settlement to the bank, a win back to a stack), i.e. six ledger rows and
four balance updates. Runs SQLite in WAL mode with ``synchronous=NORMAL`` and
``FULL``, and PostgreSQL, one writer at a time and then several tables in
parallel, and prints one JSON object. The ``*_with_outbox`` figures add what
the durable outbox costs a real step: two drafts written with it (a group
message and a DM), each then counted (``outbox_attempt``) and marked sent
(``finish_outbox``) as the sender does, i.e. five units of work per step.

    .venv/bin/python bench/storage_steps.py [--steps 2000] [--tables 8]
        [--pg postgresql://postgres@127.0.0.1:5432/test] [--no-pg]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

from games.engine import Transfer
from storage.base import OutboxDraft, Storage
from storage.postgres import PostgresStorage
from storage.sqlite import SqliteStorage

STATE = json.dumps({"padding": "x" * 2000})


def transfers(i: int) -> list[Transfer]:
    """The chips of one step; the same chips go round, so balances never run out."""
    p = 1 + i % 4
    return [Transfer(src=f"stack:{p}", dst=f"stake:{p}", amount=10, reason="stake"),
            Transfer(src=f"stake:{p}", dst="bank", amount=10, reason="lost"),
            Transfer(src="bank", dst=f"stack:{1 + (i + 1) % 4}", amount=10, reason="won")]


async def run_table(storage: Storage, chat: int, steps: int, outbox: bool) -> None:
    """Seat four players with 500 chips each, then commit ``steps`` steps (and deliver)."""
    await storage.create_table(chat_id=chat, game="bench", settings={}, state_json=STATE,
                               version=0)
    await storage.commit_step(
        chat_id=chat, expected_version=0, state_json=STATE, version=1, coup=0, deadline=None,
        transfers=[Transfer(src=f"wallet:{p}", dst=f"stack:{p}", amount=500, reason="buy_in")
                   for p in range(1, 5)])
    for i in range(steps):
        drafts = [OutboxDraft(kind="group", target=chat, payload={"text": "x" * 200}),
                  OutboxDraft(kind="dm", target=1 + i % 4, payload={"cards": ["9h", "Ks"]})]
        await storage.commit_step(chat_id=chat, expected_version=i + 1, state_json=STATE,
                                  version=i + 2, transfers=transfers(i), coup=i, deadline=None,
                                  outbox=drafts if outbox else ())
        if outbox:
            for item in await storage.pending_outbox(chat_id=chat):
                await storage.outbox_attempt(item_id=item.id)
                await storage.finish_outbox(item_id=item.id, message_id=i)


async def measure(storage: Storage, steps: int, tables: int, outbox: bool = False) -> float:
    """Steps per second over ``tables`` tables committing concurrently."""
    base = -1_000_000 - int(time.time() * 1000) % 100_000 * 100
    start = time.perf_counter()
    await asyncio.gather(*(run_table(storage, base - n, steps // tables, outbox)
                           for n in range(tables)))
    return round((steps // tables) * tables / (time.perf_counter() - start), 1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--no-pg", action="store_true")
    args = parser.parse_args()
    out: dict[str, object] = {"steps": args.steps, "transfers_per_step": 3}
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("NORMAL", "FULL"):
            sqlite = SqliteStorage(Path(tmp) / f"{sync}.db", starting_grant=10_000,
                                   daily_bonus=0, synchronous=sync)
            await sqlite.open()
            try:
                out[f"sqlite_wal_{sync.lower()}_steps_per_second"] = await measure(
                    sqlite, args.steps, 1)
                out[f"sqlite_wal_{sync.lower()}_steps_per_second_with_outbox"] = await measure(
                    sqlite, args.steps, 1, outbox=True)
            finally:
                await sqlite.close()
    if not args.no_pg:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        pg = PostgresStorage(args.pg, starting_grant=10_000, daily_bonus=0, schema=schema,
                             max_connections=args.tables)
        await pg.open()
        try:
            out["postgres_steps_per_second"] = await measure(pg, args.steps, 1)
            out[f"postgres_{args.tables}_tables_steps_per_second"] = await measure(
                pg, args.steps, args.tables)
            out["postgres_steps_per_second_with_outbox"] = await measure(
                pg, args.steps, 1, outbox=True)
            out[f"postgres_{args.tables}_tables_steps_per_second_with_outbox"] = await measure(
                pg, args.steps, args.tables, outbox=True)
        finally:
            await pg.close()
            import asyncpg

            conn = await asyncpg.connect(args.pg)
            await conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
            await conn.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    asyncio.run(main())

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
Each ``*_cpu_us_per_step`` figure is the process's CPU time (event loop and
database threads together) per step in the run of the ``*_steps_per_second``
figure of the same name.

``--baseline REV`` compares the SQLite figures of the code at commit REV
(exported with ``git archive``) with this checkout's: each variant runs in its
own process, alternating, ``--rounds`` times, and a table of the figures and
their medians is printed.

    .venv/bin/python bench/storage_steps.py [--steps 2000] [--tables 8]
        [--pg postgresql://postgres@127.0.0.1:5432/test] [--no-pg]
        [--baseline REV [--rounds 3]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from games.engine import Transfer
from storage.base import OutboxDraft, Storage
from storage.postgres import PostgresStorage
from storage.sqlite import SqliteStorage

STATE = json.dumps({"padding": "x" * 2000})
ROOT = Path(__file__).resolve().parent.parent


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


async def measure(out: dict[str, object], key: str, storage: Storage, steps: int, tables: int,
                  outbox: bool = False) -> None:
    """Steps per second over ``tables`` tables committing concurrently, and CPU per step."""
    base = -1_000_000 - int(time.time() * 1000) % 100_000 * 100
    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(run_table(storage, base - n, steps // tables, outbox)
                           for n in range(tables)))
    done = (steps // tables) * tables
    out[key] = round(done / (time.perf_counter() - start), 1)
    cpu_us = (time.process_time() - cpu) / done * 1e6
    out[key.replace("steps_per_second", "cpu_us_per_step")] = round(cpu_us, 1)


def export(rev: str, where: Path) -> Path:
    """The packages this bench imports (storage, games) as they are at ``rev``, in ``where``."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "storage", "games"],
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=tar, check=True)
    return where


def compare(args: argparse.Namespace) -> None:
    """The SQLite figures at ``args.baseline`` and here, alternating, each in its own process."""
    runs: dict[str, list[dict[str, float]]] = {args.baseline: [], "this": []}
    with tempfile.TemporaryDirectory() as tmp:
        variants = [(args.baseline, export(args.baseline, Path(tmp))), ("this", ROOT)]
        for _ in range(args.rounds):
            for label, tree in variants:
                # This script, importing storage (and games) from ``tree`` first.
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                    [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])}
                done = subprocess.run([sys.executable, __file__, "--steps", str(args.steps),
                                       "--no-pg"], capture_output=True, text=True, check=True,
                                      env=env)
                runs[label].append(json.loads(done.stdout))
                print(label, done.stdout.replace("\n", ""), file=sys.stderr, flush=True)
    keys = [k for k in runs["this"][0] if k.startswith("sqlite_")]
    width = max(map(len, keys))
    print(f"| {'figure'.ljust(width)} | " + " | ".join(
        f"{label} (each round; median)" for label in runs) + " |")
    print(f"|{'-' * (width + 2)}|" + "|".join("---" for _ in runs) + "|")
    for key in keys:
        cells = [", ".join(str(r[key]) for r in rounds)
                 + f"; {statistics.median(r[key] for r in rounds)}"
                 for rounds in runs.values()]
        print(f"| {key.ljust(width)} | " + " | ".join(cells) + " |")


def parse() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--baseline", default="",
                        help="compare the SQLite figures of the code at this commit with this "
                        "checkout's")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --baseline: how many times each variant runs")
    return parser.parse_args()


async def main(args: argparse.Namespace) -> None:
    """Every figure, printed as one JSON object."""
    out: dict[str, object] = {"steps": args.steps, "transfers_per_step": 3}
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("NORMAL", "FULL"):
            sqlite = SqliteStorage(Path(tmp) / f"{sync}.db", starting_grant=10_000,
                                   daily_bonus=0, synchronous=sync)
            await sqlite.open()
            try:
                key = f"sqlite_wal_{sync.lower()}_steps_per_second"
                await measure(out, key, sqlite, args.steps, 1)
                await measure(out, f"{key}_with_outbox", sqlite, args.steps, 1, outbox=True)
            finally:
                await sqlite.close()
    if not args.no_pg:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        pg = PostgresStorage(args.pg, starting_grant=10_000, daily_bonus=0, schema=schema,
                             max_connections=args.tables)
        await pg.open()
        try:
            tables = f"postgres_{args.tables}_tables_steps_per_second"
            await measure(out, "postgres_steps_per_second", pg, args.steps, 1)
            await measure(out, tables, pg, args.steps, args.tables)
            await measure(out, "postgres_steps_per_second_with_outbox", pg, args.steps, 1,
                          outbox=True)
            await measure(out, f"{tables}_with_outbox", pg, args.steps, args.tables,
                          outbox=True)
        finally:
            await pg.close()
            import asyncpg

            conn = await asyncpg.connect(args.pg)
            await conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
            await conn.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    ARGS = parse()
    if ARGS.baseline:
        compare(ARGS)
    else:
        asyncio.run(main(ARGS))

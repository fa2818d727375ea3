"""Workers benchmark: one, two and three bot processes on one PostgreSQL, side by side.

For each count of ``--workers`` (and first, as the reference, one process with
``SHARED=0``: PostgreSQL without the shared-mode machinery), starts the sandbox in this
process with its webhook spread over that many workers (each update to a random one, as
a load balancer would) and the workers in webhook mode on a fresh schema; creates
``--chats`` groups playing ``--game`` exactly as bench/load.py does (its drivers), lets
them play ``--seconds``, and reads from the database the steps committed in the window.
It prints a table: steps per second, presses, press -> answer latency p50/p99 (ms), the
workers' CPU ms per step (all together), refused/unanswered presses, tracebacks.

The bot's group limit is raised and the overall cap lifted (as in bench/load.py), so the
figures are the bot's own; the shared budgets are still counted (in PostgreSQL, or in
Redis with ``--redis``). The sandbox and the players share this process: on a small
machine it takes a core of its own, which the table reports.

    .venv/bin/python bench/workers.py [--game chemin_de_fer] [--chats 20] [--players 4]
        [--seconds 30] [--workers 1,2,3] [--redis] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import uvloop

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(BENCH.parent / "tests" / "e2e"), str(BENCH.parent / "tests"),
                str(BENCH.parent)]

from harness import BotProcess  # noqa: E402
from load import (  # noqa: E402
    GAMES,
    PRESS_WAIT,
    Figures,
    cpu_seconds,
    drivers,
    own_cpu_seconds,
    percentile,
    play_for,
    set_up_all,
)
from storage_backends import PG_DSN, drop_schema  # noqa: E402
from test_e2e_webhook import free_port  # noqa: E402

from sandbox.client import SandboxClient  # noqa: E402
from sandbox.server import start_sandbox  # noqa: E402

SECRET = "bench_workers_secret"
REDIS_URL = "redis://127.0.0.1:6379/0"


async def steps_between(schema: str, t0: float, t1: float) -> int:
    """Table steps committed in [t0, t1] (the ``steps`` ledger)."""
    conn = await asyncpg.connect(PG_DSN, server_settings={"search_path": schema})
    try:
        return int(await conn.fetchval(
            "SELECT count(*) FROM steps WHERE kind = 'step'"
            " AND created_at BETWEEN to_timestamp($1) AND to_timestamp($2)", t0, t1))
    finally:
        await conn.close()


async def run(args: argparse.Namespace, workers: int, shared: bool) -> dict[str, Any]:
    """Set up ``workers`` processes, play for ``args.seconds``, measure, tear down."""
    ports = [free_port() for _ in range(workers)]
    handle = await start_sandbox("127.0.0.1", 0, webhook_spread=[
        f"http://127.0.0.1:{port}/telegram" for port in ports])
    sb = SandboxClient(handle.url, timeout=PRESS_WAIT + 20)
    tmp = tempfile.TemporaryDirectory(prefix="banco-workers-")
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    extra = {"DATABASE_URL": f"{PG_DSN}?schema={schema}", "SHARED": "1" if shared else "0",
             "GROUP_MESSAGES_PER_MINUTE": "100000", "OVERALL_MESSAGES_PER_SECOND": "0",
             "TEST_HOOKS": "0", "WEBHOOK_LISTEN": "127.0.0.1", "WEBHOOK_PATH": "/telegram",
             "WEBHOOK_SECRET": SECRET, **({"REDIS_URL": REDIS_URL} if args.redis else {})}
    procs = [BotProcess(handle.url, Path(tmp.name) / f"w{n}", timeout=args.timeout,
                        extra={**extra, "WEBHOOK_URL": f"http://127.0.0.1:{port}",
                               "WEBHOOK_PORT": str(port)})
             for n, port in enumerate(ports)]
    figures = Figures()
    world = handle.world
    tables, unhook = drivers(sb, world, args, figures)
    try:
        for proc in procs:
            proc.start()
        await set_up_all(sb, world, tables, args)
        cpu0 = [cpu_seconds(p.proc.pid) or 0.0 for p in procs]
        own0 = own_cpu_seconds()
        cpu1: list[float] = []
        own1: list[float] = []

        def measure() -> None:
            cpu1.extend(cpu_seconds(p.proc.pid) or 0.0 for p in procs)
            own1.append(own_cpu_seconds())

        t0, t1 = await play_for(tables, figures, args.seconds, measure)
        steps = await steps_between(schema, t0, t1)
        seconds = t1 - t0
        cpu = sum(cpu1) - sum(cpu0)
        return {
            "workers": workers, "shared": shared, "game": args.game, "chats": args.chats,
            "seconds": round(seconds, 1), "steps": steps,
            "steps_per_second": round(steps / seconds, 1), "presses": figures.presses,
            "p50_ms": percentile(figures.latencies, 50),
            "p99_ms": percentile(figures.latencies, 99),
            "cpu_ms_per_step": round(cpu * 1000 / steps, 2) if steps else None,
            "cpu_per_worker_s": [round(b - a, 1) for a, b in zip(cpu0, cpu1, strict=True)],
            "refused": figures.refused, "unanswered": figures.unanswered,
            "driver_errors": len(figures.driver_errors),
            "tracebacks": sum(p.log_text().count("Traceback") for p in procs),
            "sandbox_cpu_s": round(own1[0] - own0, 1),
            "load_1m": round(os.getloadavg()[0], 2),
        }
    except BaseException:
        for proc in procs:
            print(f"--- {proc.log_path}\n{proc.log_text()[-3000:]}", file=sys.stderr)
        raise
    finally:
        for proc in procs:
            proc.kill()
        unhook()
        await sb.aclose()
        await handle.stop()
        tmp.cleanup()
        await drop_schema(schema)


COLUMNS = (("workers", "workers"), ("steps_per_second", "steps/s"), ("presses", "presses"),
           ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("cpu_ms_per_step", "CPU ms/step"),
           ("refused", "refused"), ("unanswered", "unanswered"), ("tracebacks", "tracebacks"),
           ("sandbox_cpu_s", "driver CPU s"), ("load_1m", "load 1m"))


def table(rows: list[dict[str, Any]]) -> str:
    """The rows side by side, one line each."""
    def cell(row: dict[str, Any], key: str) -> str:
        value = row[key]
        if key == "workers":
            return f"{value}{'' if row['shared'] else ' (SHARED=0)'}"
        return "-" if value is None else f"{value:.1f}" if isinstance(value, float) else str(
            value)

    widths = [max(len(title), *(len(cell(r, k)) for r in rows)) for k, title in COLUMNS]
    lines = ["  ".join(t.rjust(w) for (_, t), w in zip(COLUMNS, widths, strict=True))]
    lines += ["  ".join(cell(r, k).rjust(w) for (k, _), w in zip(COLUMNS, widths, strict=True))
              for r in rows]
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, run every count of workers, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, default="chemin_de_fer")
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--workers", default="1,2,3", help="worker counts, comma-separated")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the one process with SHARED=0")
    parser.add_argument("--redis", action="store_true", help="count the budgets in Redis")
    parser.add_argument("--json", action="store_true", help="print each row as JSON too")
    args = parser.parse_args()
    runs = [] if args.no_reference else [(1, False)]
    runs += [(int(n), True) for n in args.workers.split(",")]
    rows = []
    for workers, shared in runs:
        row = uvloop.run(run(args, workers, shared))
        if args.json:
            print(json.dumps(row), flush=True)
        rows.append(row)
    print(f"\n{args.game}, {args.chats} chats of {args.players} players, {args.seconds:.0f} s "
          f"each, {os.cpu_count()} cores, budgets in {'Redis' if args.redis else 'PostgreSQL'}")
    print(table(rows))


if __name__ == "__main__":
    main()

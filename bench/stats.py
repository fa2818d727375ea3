"""Benchmark: /top and /stats queries over 1,000,000 recorded coups (not a test).

Generates the coups straight into a fresh SQLite file (2,000 chats of 30 players each drawn
from 40,000, 4 to 6 players a coup, over the 400 days up to today, the six games, a banker
in the banking games, poker hands and feats), with a wallet named for every player of a
chat; fills the derived tables with ``rebuild_stats`` (the fold every step uses); then
times, through the storage API as the bot calls it, ``standings`` of a random chat (today,
the last 7 days, the last 30, all time; of any game and of one), ``player_stats`` of a
random player (one chat, all his chats) and ``ratings`` of a random chat (/top rating: its
poker rating, players from 5 rated hands). Prints one JSON object: how long generation and
the rebuild took, and the median and 95th percentile in milliseconds of each query over
``--calls`` calls. Target: 50 ms each.

    .venv/bin/python bench/stats.py [--coups 1000000] [--calls 50] [--db FILE]
        [--pg postgresql://postgres@127.0.0.1:5432/test] [--ratings-only]

``--pg``: the same on PostgreSQL (in a scratch schema, dropped afterwards) after SQLite.
``--ratings-only``: only ``stat_ratings`` is filled (the rated coups folded by
:func:`storage.ratings.fold` chat by chat in recorded order, as a rebuild folds them, without
the other tables' rebuild, the long part) and only ``ratings`` is timed.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from storage import ratings
from storage.base import SettledCoup, Storage
from storage.sqlite import SqliteStorage
from storage.standings import CATEGORY_ORDER

CHATS, PLAYERS, SEATS, DAYS = 2_000, 40_000, 30, 400
BANKING = ("chemin_de_fer", "baccarat", "banchok", "twenty_one")
POKER = ("draw_poker", "stud_poker")
FEATS = {"chemin_de_fer": ("natural", "banco", "banco_won"), "baccarat": ("natural", "banco"),
         "banchok": ("natural",), "twenty_one": ("natural", "bust"),
         "draw_poker": ("voluntary", "showdown", "showdown_won"),
         "stud_poker": ("voluntary", "showdown", "showdown_won")}
COLUMNS = "step_id, chat_id, game, coup, opened, settled_at, banker, record"


def chat_id(i: int) -> int:
    """The i-th chat's id (a supergroup's, negative)."""
    return -1_000_000_000_000 - i


def coups(rng: random.Random, total: int, today: dt.date) -> Iterator[tuple[Any, ...]]:
    """``total`` coups as rows of ``coups`` (step 1 recorded them all), chat by chat, each
    chat's in time order."""
    end = dt.datetime.combine(today, dt.time(23, 59), dt.UTC).timestamp()
    start = end - DAYS * 86_400
    for c in range(CHATS):
        pool = rng.sample(range(1, PLAYERS + 1), SEATS)
        games = rng.sample(BANKING + POKER, rng.randint(1, 3))
        n = total // CHATS + (c < total % CHATS)
        banker = pool[0]
        for number, settled_at in enumerate(sorted(rng.uniform(start, end) for _ in range(n))):
            game = rng.choice(games)
            players = rng.sample(pool, rng.randint(4, 6))
            nets = {p: rng.randint(-200, 200) for p in players}
            if game in BANKING:
                if banker not in players or rng.random() < 0.3:
                    banker = players[0]
                hands = {p: {"n": rng.randint(0, 9), "bust": False} for p in players}
                coup_banker: int | None = banker
            else:
                hands = {p: {"category": rng.choice(CATEGORY_ORDER), "ranks": [rng.randrange(13)]}
                         for p in players if rng.random() < 0.5}
                coup_banker = None
            feats = {p: [f for f in FEATS[game] if rng.random() < 0.2] for p in players}
            record = {"game": game, "coup": number + 1, "opened": start, "settled_at": settled_at,
                      "banker": coup_banker, "nets": nets,
                      "winners": [p for p, v in nets.items() if v > 0], "hands": hands,
                      "feats": feats}
            yield (1, chat_id(c), game, number + 1, start, settled_at, coup_banker,
                   json.dumps(record))


def generate(path: Path, total: int, today: dt.date) -> None:
    """Write ``total`` coups, their step and the chats' wallets into the (migrated) file."""
    rng = random.Random(33)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO steps (chat_id, kind, created_at) VALUES (0, 'step', 0)")
    conn.executemany(f"INSERT INTO coups ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     coups(rng, total, today))
    conn.execute("INSERT OR IGNORE INTO wallets (chat_id, user_id, name, balance, created_at)"
                 " SELECT DISTINCT c.chat_id, CAST(j.key AS INTEGER), 'Player ' || j.key, 1000, 0"
                 " FROM coups c, json_each(c.record, '$.nets') j")
    conn.execute("COMMIT")
    conn.close()


def timings(samples: list[float]) -> dict[str, float]:
    """Median and 95th percentile, in milliseconds."""
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}


async def measure(calls: int, query: Callable[[random.Random], Awaitable[Any]]
                  ) -> dict[str, float]:
    """Time ``calls`` calls of ``query`` (after one to warm up), each with fresh arguments."""
    rng = random.Random(7)
    await query(rng)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await query(rng)
        samples.append(time.perf_counter() - start)
    return timings(samples)


def rated(path: Path) -> int:
    """Fill ``stat_ratings`` as a rebuild would: each chat's rated coups folded in recorded
    order (the other coups change no rating); returns how many coups were rated."""
    conn = sqlite3.connect(path, isolation_level=None)
    skills: dict[ratings.Key, ratings.Skill] = {}
    count = 0
    for chat, record in conn.execute(f"SELECT chat_id, record FROM coups WHERE game IN {POKER}"
                                     " ORDER BY coup_id"):
        changed = ratings.fold(skills, chat, SettledCoup.model_validate_json(record))
        skills.update(changed)
        count += bool(changed)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO stat_ratings VALUES (?, ?, ?, ?, ?)",
                     [(*k, *v) for k, v in sorted(skills.items())])
    conn.execute("COMMIT")
    conn.close()
    return count


async def rating_queries(storage: Storage, calls: int) -> dict[str, dict[str, float]]:
    """The figures of /top rating's query."""
    async def rating(rng: random.Random) -> Any:
        return await storage.ratings(chat_id=chat_id(rng.randrange(CHATS)), min_hands=5)

    return {"ratings": await measure(calls, rating)}


async def queries(storage: Storage, players: list[tuple[int, int]], calls: int,
                  today: dt.date) -> dict[str, dict[str, float]]:
    """The figures of each query; ``players``: (chat, user) pairs to pick from."""
    periods = {"today": today, "week": today - dt.timedelta(days=6),
               "month": today - dt.timedelta(days=29), "all": None}
    out: dict[str, dict[str, float]] = {}
    for period, since in periods.items():
        for game in (None, "chemin_de_fer"):
            async def top(rng: random.Random, since: dt.date | None = since,
                          game: str | None = game) -> Any:
                return await storage.standings(chat_id=chat_id(rng.randrange(CHATS)),
                                               game=game, since=since, min_coups=3)
            out[f"standings_{period}{'_game' if game else ''}"] = await measure(calls, top)

    async def one_chat(rng: random.Random) -> Any:
        chat, user = rng.choice(players)
        return await storage.player_stats(user_id=user, chat_id=chat)

    async def all_chats(rng: random.Random) -> Any:
        return await storage.player_stats(user_id=rng.choice(players)[1])

    out["player_stats_chat"] = await measure(calls, one_chat)
    out["player_stats_all"] = await measure(calls, all_chats)
    return out | await rating_queries(storage, calls)


async def sqlite_run(path: Path, total: int, calls: int, today: dt.date,
                     ratings_only: bool = False) -> dict[str, Any]:
    """Generate, rebuild and measure on SQLite."""
    storage = SqliteStorage(path, starting_grant=1000, daily_bonus=100)
    await storage.open()
    await storage.close()
    start = time.perf_counter()
    generate(path, total, today)
    generated = time.perf_counter() - start
    storage = SqliteStorage(path, starting_grant=1000, daily_bonus=100)
    if ratings_only:
        start = time.perf_counter()
        count = rated(path)
        folded_s = time.perf_counter() - start
        await storage.open()
        try:
            return {"coups": total, "rated": count, "generate_s": round(generated, 1),
                    "ratings_fold_s": round(folded_s, 1),
                    "rows": {"stat_ratings": sqlite3.connect(path).execute(
                        "SELECT COUNT(*) FROM stat_ratings").fetchone()[0]},
                    "queries": await rating_queries(storage, calls)}
        finally:
            await storage.close()
    await storage.open()
    try:
        start = time.perf_counter()
        folded = await storage.rebuild_stats()
        rebuilt = time.perf_counter() - start
        conn = sqlite3.connect(path)
        players = conn.execute("SELECT chat_id, user_id FROM stat_players"
                               " ORDER BY random() LIMIT 1000").fetchall()
        rows = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("stat_days", "stat_feats", "stat_players", "stat_ratings")}
        conn.close()
        return {"coups": folded, "rows": rows, "generate_s": round(generated, 1),
                "rebuild_s": round(rebuilt, 1),
                "queries": await queries(storage, players, calls, today)}
    finally:
        await storage.close()


async def pg_run(dsn: str, path: Path, calls: int, today: dt.date,
                 ratings_only: bool = False) -> dict[str, Any]:
    """Copy the SQLite file's coups and wallets into a scratch schema, rebuild, measure
    (``ratings_only``: copy its ``stat_ratings`` too, measure ``ratings`` alone)."""
    import asyncpg

    from storage.postgres import PostgresStorage

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    storage = PostgresStorage(dsn, starting_grant=1000, daily_bonus=100, schema=schema)
    await storage.open()
    try:
        src = sqlite3.connect(path)
        conn = await asyncpg.connect(dsn, server_settings={"search_path": schema})
        start = time.perf_counter()
        await conn.execute("INSERT INTO steps (chat_id, kind) VALUES (0, 'step')")
        await conn.copy_records_to_table(
            "coups", columns=[c.strip() for c in COLUMNS.split(",")],
            records=src.execute(f"SELECT {COLUMNS} FROM coups ORDER BY coup_id"))
        await conn.copy_records_to_table(
            "wallets", columns=["chat_id", "user_id", "name", "balance"],
            records=src.execute("SELECT chat_id, user_id, name, balance FROM wallets"))
        if ratings_only:
            await conn.copy_records_to_table(
                "stat_ratings", columns=["chat_id", "user_id", "mu", "sigma", "hands"],
                records=src.execute("SELECT chat_id, user_id, mu, sigma, hands"
                                    " FROM stat_ratings"))
        await conn.execute("ANALYZE")
        copied = time.perf_counter() - start
        if ratings_only:
            await conn.close()
            src.close()
            return {"copy_s": round(copied, 1), "queries": await rating_queries(storage, calls)}
        start = time.perf_counter()
        folded = await storage.rebuild_stats()
        rebuilt = time.perf_counter() - start
        await conn.execute("ANALYZE")
        players = [tuple(r) for r in await conn.fetch(
            "SELECT chat_id, user_id FROM stat_players ORDER BY random() LIMIT 1000")]
        await conn.close()
        src.close()
        return {"coups": folded, "copy_s": round(copied, 1), "rebuild_s": round(rebuilt, 1),
                "queries": await queries(storage, players, calls, today)}
    finally:
        await storage.close()
        conn = await asyncpg.connect(dsn)
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()


async def main(args: argparse.Namespace) -> None:
    """Run the benchmark and print its JSON."""
    today = dt.datetime.now(dt.UTC).date()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(args.db or Path(scratch) / "stats.db")
        if path.exists():
            raise SystemExit(f"{path} exists: the benchmark writes a fresh file")
        out: dict[str, Any] = {"sqlite": await sqlite_run(path, args.coups, args.calls, today,
                                                          args.ratings_only)}
        if args.pg:
            out["postgres"] = await pg_run(args.pg, path, args.calls, today, args.ratings_only)
    print(json.dumps(out, indent=2))


def parse() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--coups", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--db", help="the SQLite file to write (default: a scratch one)")
    parser.add_argument("--pg", help="also on this PostgreSQL database")
    parser.add_argument("--ratings-only", action="store_true",
                        help="fill stat_ratings alone and time /top rating's query alone")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))

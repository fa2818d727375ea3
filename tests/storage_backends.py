"""Shared helpers of the storage tests: open a backend on a scratch database, random chip moves.

Not a test module. The PostgreSQL backend uses a fresh schema per test that is
dropped afterwards (the ledger is append-only, so rows cannot be cleaned up
one by one); if the server is unreachable the test fails rather than skips.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from games.engine import Transfer
from storage.postgres import PostgresStorage
from storage.sqlite import SqliteStorage

PG_DSN = os.environ.get("BANCO_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/test")
GRANT = 1000
BONUS = 100
BACKENDS = ["sqlite", "postgres"]
RAW_ERRORS = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)
"""What the databases raise when a constraint or trigger refuses raw SQL."""


@dataclass
class Backend:
    """A scratch database: ``storage`` is open; ``raw`` runs SQL behind the storage's back."""

    kind: str
    storage: SqliteStorage | PostgresStorage
    sqlite_path: Path | None = None
    schema: str | None = None

    def another(self) -> SqliteStorage | PostgresStorage:
        """A second, independent storage object on the same database (not opened)."""
        if self.kind == "sqlite":
            return SqliteStorage(self.sqlite_path or "", starting_grant=GRANT, daily_bonus=BONUS)
        return PostgresStorage(PG_DSN, starting_grant=GRANT, daily_bonus=BONUS,
                               schema=self.schema)

    async def raw(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Run one statement on a separate connection in autocommit; ``?`` placeholders."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.sqlite_path or "", isolation_level=None)
            try:
                return list(conn.execute(sql, args).fetchall())
            finally:
                conn.close()
        numbers = iter(range(1, 100))
        pg_sql = re.sub(r"\?", lambda _: f"${next(numbers)}", sql)
        conn2 = await asyncpg.connect(PG_DSN, server_settings={"search_path": self.schema or ""})
        try:
            return [tuple(r) for r in await conn2.fetch(pg_sql, *args)]
        finally:
            await conn2.close()


@asynccontextmanager
async def backend(kind: str, tmp_path: Path) -> AsyncIterator[Backend]:
    """An opened storage of ``kind`` on a fresh database, torn down afterwards."""
    if kind == "sqlite":
        path = tmp_path / "data" / "banco.db"
        storage: SqliteStorage | PostgresStorage = SqliteStorage(
            path, starting_grant=GRANT, daily_bonus=BONUS)
        await storage.open()
        try:
            yield Backend(kind, storage, sqlite_path=path)
        finally:
            await storage.close()
        return
    schema = f"t_{uuid.uuid4().hex[:16]}"
    storage = PostgresStorage(PG_DSN, starting_grant=GRANT, daily_bonus=BONUS, schema=schema,
                              max_connections=4)
    await storage.open()
    try:
        yield Backend(kind, storage, schema=schema)
    finally:
        await storage.close()
        await drop_schema(schema)


async def drop_schema(schema: str) -> None:
    """Remove a test's PostgreSQL schema and everything in it (if it was made at all)."""
    conn = await asyncpg.connect(PG_DSN)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def random_transfers(rng: random.Random, wallets: dict[int, int],
                     table: dict[str, int]) -> list[Transfer]:
    """One plausible step: a buy-in, a stake, a settlement through the pot, or a cash-out.

    Amounts never exceed what the source holds, given ``wallets`` (player ->
    balance) and ``table`` (account -> balance) as they are before the step.
    """
    players = sorted(wallets)
    p = rng.choice(players)
    stack, stake = f"stack:{p}", f"stake:{p}"
    roll = rng.random()
    if roll < 0.25 and wallets[p] > 0:
        return [Transfer(src=f"wallet:{p}", dst=stack, amount=rng.randint(1, wallets[p]),
                         reason="buy_in")]
    if roll < 0.55 and table.get(stack, 0) > 0:
        return [Transfer(src=stack, dst=stake, amount=rng.randint(1, table[stack]),
                         reason="stake")]
    if roll < 0.85:
        stakes = [a for a in sorted(table) if a.startswith("stake:") and table[a] > 0]
        if stakes:
            # Every stake goes to the pot, and the pot to one winner's stack: a settlement.
            moves = [Transfer(src=a, dst="pot", amount=table[a], reason="lost") for a in stakes]
            pot = sum(table[a] for a in stakes) + table.get("pot", 0)
            winner = rng.choice(players)
            moves.append(Transfer(src="pot", dst=f"stack:{winner}", amount=pot, reason="won"))
            return moves
    if table.get(stack, 0) > 0:
        return [Transfer(src=stack, dst=f"wallet:{p}", amount=table[stack], reason="cash_out")]
    return []


def apply_net(balances: dict[str, int], transfers: list[Transfer]) -> None:
    """The model: apply ``transfers`` to ``balances`` (account -> chips), dropping zeros."""
    for t in transfers:
        balances[t.src] = balances.get(t.src, 0) - t.amount
        balances[t.dst] = balances.get(t.dst, 0) + t.amount
    for account in [a for a, v in balances.items() if v == 0]:
        del balances[account]

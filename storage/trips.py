"""Trips to SQLite's thread: the units of work waiting for the connection go in one trip,
their writes in one transaction.

One connection serves the whole process, one unit of work at a time, in order. Under load
many units wait while one is on the thread (at twenty busy tables, some sixteen on
average), and each of them, alone, would cost a trip (a future, a queue put, a thread
wake-up and a ``call_soon_threadsafe`` back) and, if it writes, its own ``BEGIN IMMEDIATE``
and ``COMMIT``. :class:`Trips` takes all the units waiting when the thread is free, in the
order they came, to the thread in one trip (:func:`run_batch`); a unit asked for when
nothing is on the thread and nothing waits goes at once, taken there by its caller:

* a lone unit runs as it always did: a write in its own transaction (:func:`transaction`),
  a read as it is; so do units that only read;
* several with a write among them run in one ``BEGIN IMMEDIATE`` ... ``COMMIT``, each write
  inside a savepoint of its own. A write that fails is rolled back to its savepoint
  (nothing of it stays) and raises to its caller alone; the others commit. A read sees
  every write queued before it, as it would have one trip later.

Each caller is answered after the ``COMMIT`` that holds his write: what a write returns is
durable as before. If the ``COMMIT`` itself fails, every unit of the trip raises it and
none of their writes stays. A caller cancelled before his unit went to the thread cancels
the unit; once it is on the thread, it runs to its end (it commits or rolls back with the
trip, and the caller does not learn which).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import aiosqlite

from .base import InsufficientFunds, StorageError

T = TypeVar("T")


def _is_negative_balance(exc: sqlite3.IntegrityError) -> bool:
    # The CHECK (balance >= 0) of wallets or table_accounts: the database, not
    # Python, is what refuses an overdraft.
    return "CHECK constraint failed: balance >= 0" in str(exc)


def _refused(exc: BaseException) -> BaseException:
    """What a unit that raised ``exc`` raises to its caller: an overdraft refused by the
    database is :class:`InsufficientFunds`."""
    if isinstance(exc, sqlite3.IntegrityError) and _is_negative_balance(exc):
        refused = InsufficientFunds("an account would go below zero")
        refused.__cause__ = exc
        return refused
    return exc


def on_thread(db: aiosqlite.Connection, fn: Callable[..., T], *args: Any) -> Awaitable[T]:
    """``fn(conn, *args)`` run on ``db``'s worker thread, with its raw :class:`sqlite3.Connection`.

    Every public aiosqlite call (execute, a fetch, a cursor's close, BEGIN,
    COMMIT) is a round trip to that thread: a future, a queue put, a thread
    wake-up and a ``call_soon_threadsafe`` back to the event loop. A unit of
    work awaited statement by statement cost some 25 of them per table step;
    as one synchronous function it costs one. ``Connection._execute`` (queue a
    function for the thread) and ``Connection._conn`` are private, but they
    are what aiosqlite's own public methods are built on (checked on 0.22);
    this is the only place that touches them. ``fn`` runs on the thread that
    owns the connection, after whatever was queued before it, so nothing else
    runs on the connection in the middle of it. Once queued it runs to its end
    even if the awaiting task is cancelled.
    """
    return cast(Awaitable[T], db._execute(fn, db._conn, *args))  # type: ignore[no-untyped-call]


def transaction(conn: sqlite3.Connection, fn: Callable[..., T], *args: Any) -> T:
    """``fn(conn, *args)`` as one unit of work: kept if it returns, else undone whole.

    Its own ``BEGIN IMMEDIATE`` ... ``COMMIT`` (which takes the file's writer lock before
    ``fn`` reads anything), or, inside a transaction already open (a trip's), a savepoint
    of its own.
    """
    nested = conn.in_transaction
    conn.execute("SAVEPOINT unit" if nested else "BEGIN IMMEDIATE")
    try:
        result = fn(conn, *args)
        conn.execute("RELEASE unit" if nested else "COMMIT")
    except BaseException as exc:
        if nested:
            conn.execute("ROLLBACK TO unit")
            conn.execute("RELEASE unit")
        elif conn.in_transaction:
            conn.execute("ROLLBACK")
        refused = _refused(exc)
        if refused is exc:
            raise
        raise refused from exc
    return result


@dataclass
class Unit:
    """One caller's unit of work: ``fn(conn, *args)``, a write or a read."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    write: bool
    future: asyncio.Future[Any] = field(default_factory=lambda: (
        asyncio.get_running_loop().create_future()))


Outcome = tuple[bool, Any]
"""A unit's outcome: (True, what it returned) or (False, what it raised)."""


def _outcome(conn: sqlite3.Connection, unit: Unit) -> Outcome:
    try:
        if unit.write:
            return True, transaction(conn, unit.fn, *unit.args)
        return True, unit.fn(conn, *unit.args)
    except Exception as exc:
        return False, exc


def run_batch(conn: sqlite3.Connection, units: list[Unit]) -> list[Outcome]:
    """The units, in order, on the connection's thread: see the module's docstring."""
    if len(units) == 1 or not any(unit.write for unit in units):
        return [_outcome(conn, unit) for unit in units]
    conn.execute("BEGIN IMMEDIATE")
    try:
        outcomes = [_outcome(conn, unit) for unit in units]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


class Trips:
    """The units of work of one aiosqlite connection, run in order, those waiting together."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self.waiting: list[Unit] = []
        self.runner: asyncio.Task[None] | None = None
        # a caller's unit is on the thread, taken there by the caller himself; and what
        # :meth:`drain` waits on for it to be back
        self.alone = False
        self.back: asyncio.Future[None] | None = None

    async def run(self, fn: Callable[..., T], *args: Any, write: bool) -> T:
        """``fn(conn, *args)`` on the connection's thread, after every unit asked for before
        it: a write as a unit of work that commits or changes nothing, a read as it is.

        With nothing on the thread and nothing waiting, the caller takes his unit there at
        once, alone; units asked for meanwhile wait and go together once it is back."""
        if self.runner is None and not self.alone:
            self.alone = True
            try:
                if write:
                    return await on_thread(self.db, transaction, fn, *args)
                return await on_thread(self.db, fn, *args)
            finally:
                self.alone = False
                if self.waiting:
                    self.runner = asyncio.get_running_loop().create_task(self._drain())
                if self.back is not None and not self.back.done():
                    self.back.set_result(None)
        unit = Unit(fn, args, write)
        self.waiting.append(unit)
        return cast(T, await unit.future)

    async def _drain(self) -> None:
        """Take the waiting units to the thread, all of them a trip, until none waits."""
        try:
            while self.waiting:
                units = [u for u in self.waiting if not u.future.done()]  # (cancelled: gone)
                self.waiting = []
                if units:
                    await self._trip(units)
        finally:
            self.runner = None
            for unit in self.waiting:  # (only if this task itself was cancelled)
                if not unit.future.done():
                    unit.future.set_exception(StorageError("storage is closing"))
            self.waiting = []

    async def _trip(self, units: list[Unit]) -> None:
        try:
            outcomes = await on_thread(self.db, run_batch, units)
        except BaseException as exc:
            for unit in units:
                if not unit.future.done():
                    unit.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for unit, (ok, value) in zip(units, outcomes, strict=True):
            if unit.future.done():
                continue
            if ok:
                unit.future.set_result(value)
            else:
                unit.future.set_exception(value)

    async def drain(self) -> None:
        """Wait until every unit asked for has run."""
        while self.runner is not None or self.alone:
            if self.runner is not None:
                await asyncio.shield(self.runner)
                continue
            self.back = asyncio.get_running_loop().create_future()  # a caller's own unit
            await self.back

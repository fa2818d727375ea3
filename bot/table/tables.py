"""The tables: one lock per chat, a copy of each table, and the one commit path.

Every change to a table goes through :meth:`Tables.commit` under the chat's lock:
the engine's step (state, transfers, the next deadline) or a change of the host's
record alone is committed with the row revision it was computed from, together
with everything it must send (the outbox, see :mod:`bot.outbox.courier`). Only then is
the courier rung. A :class:`storage.base.StaleVersion` means someone else's write
won: nothing of this one happened. The host knows no game: it drives every engine
through the contract in :mod:`games.engine`. Each table's decision clock is
:mod:`bot.table.clock`; a table's life (open, close, pause, /verify) is
:mod:`bot.table.lifecycle`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from bot.ops.hooks import Hooks
from bot.outbox.courier import Doorbell
from bot.outbox.feed import Feed
from bot.table.clock import IDLE_CLOSE, Clock
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.plan import Cause, plan
from bot.table.record import Table, TableMeta, load
from bot.view.applink import AppLinks
from games.engine import Step, visible_events
from storage.base import OutboxDraft, Storage, StorageError, TableNotFound


class ChatLocks(Protocol):
    """The chat's lock shared by several workers (:class:`bot.workers.coordination.ChatLocks`
    is the one there is): held around every change, and telling whether this process's
    copy of a table is the committed one."""

    valid: set[int]

    def hold(self, chat_id: int, local: asyncio.Lock,
             check: Callable[[int, int | None], None]) -> AbstractAsyncContextManager[None]:
        """Hold the chat's lock; ``check(chat_id, rev)`` first drops a stale copy."""
        ...

    async def current(self, chat_id: int, rev: int | None) -> bool:
        """Whether a copy of the chat's table at ``rev`` is the committed one."""
        ...


class Tables:
    """Every chat's table: its lock, this process's copy of it, and its commit."""

    def __init__(self, storage: Storage, languages: Languages, doorbell: Doorbell,
                 deadlines: Deadlines, *, decision_timeout: float, bot_username: str,
                 hooks: Hooks | None = None, now: Callable[[], float] = time.time,
                 turn_dms: bool = True, chat_locks: ChatLocks | None = None,
                 links: AppLinks | None = None, idle_close: int = IDLE_CLOSE) -> None:
        self.storage = storage
        # several workers on one database (bot/workers/coordination.py): the chat's lock is the
        # database's too, and this process's copy of a table is trusted only under it
        self.chat_locks = chat_locks
        self.languages = languages
        self.doorbell = doorbell
        # every committed step's deadline is the clock's, and runs out through this commit
        # links: the Mini App's, when the bot has one (its buttons; /settings screen app)
        self.clock = Clock(self, deadlines, decision_timeout=decision_timeout,
                           turn_dms=turn_dms, now=now, links=links, idle_close=idle_close,
                           shared=chat_locks is not None)
        self.bot_username = bot_username
        self.hooks = hooks or Hooks()
        self.locks: dict[int, asyncio.Lock] = {}
        self.tables: dict[int, Table] = {}
        # every commit, published once for the channels that read it (the Mini App's pages,
        # the other workers): :meth:`publish`
        self.feed = Feed()

    def lock(self, chat_id: int) -> AbstractAsyncContextManager[Any]:
        """The one lock of a chat's table."""
        local = self.locks.setdefault(chat_id, asyncio.Lock())
        if self.chat_locks is None:
            return local
        return self.chat_locks.hold(chat_id, local, self._check_rev)

    def _check_rev(self, chat_id: int, rev: int | None) -> None:
        """Drop the copy of a table another worker changed (``rev``: the row's now)."""
        table = self.tables.get(chat_id)
        if table is not None and table.rec.rev != rev:
            del self.tables[chat_id]

    async def load(self, chat_id: int) -> Table:
        """The chat's table as stored (raises TableNotFound): what this process last
        committed, else read from storage. Every write of this process goes through
        :meth:`commit`, which keeps the copy exact, and any refused write drops it. With
        several workers the copy is used only under the chat's lock (checked there)."""
        table = self.tables.get(chat_id)
        if table is None or (self.chat_locks is not None and not await self.chat_locks.current(
                chat_id, table.rec.rev)):
            try:
                table = load(await self.storage.load_table(chat_id=chat_id))
            except TableNotFound:
                self.forget(chat_id)  # closed by another worker: its copy is gone too
                raise
            self.tables[chat_id] = table
        return table

    async def find(self, chat_id: int) -> Table | None:
        """The chat's table as stored (:meth:`load`), or None when the chat has none."""
        try:
            return await self.load(chat_id)
        except TableNotFound:
            return None

    @asynccontextmanager
    async def locked(self, chat_id: int) -> AsyncIterator[Table | None]:
        """Under the chat's lock (:meth:`lock`), its table as committed, or None when the
        chat has none: where every change of a table begins."""
        async with self.lock(chat_id):
            yield await self.find(chat_id)

    def forget(self, chat_id: int) -> None:
        """Drop what this process holds of the chat's table (it is read again)."""
        self.tables.pop(chat_id, None)

    # ----------------------------------------------------------- the commit path

    async def commit(self, table: Table, step: Step[Any] | None = None, *,
                     meta: TableMeta | None = None, outbox: Sequence[OutboxDraft] = (),
                     timed_out: Sequence[int] = (), actor: int | None = None,
                     decided: bool = True, action: str = "", redraw: bool = True
                     ) -> TableMeta:
        """Commit an engine step (or, without one, a change of the record alone) with what
        it must send; raises StaleVersion or InsufficientFunds, and then nothing happened.
        What the step does and owes is its plan (:mod:`bot.table.plan`, where ``timed_out``,
        ``actor``, ``decided`` and ``action`` are its :class:`~bot.table.plan.Cause`).
        ``redraw=False``: a change of the record the table message already shows (the
        courier is rung only for what it must send)."""
        # a shallow copy: a changed field gets a new value, the committed record is untouched;
        # what the facts of presence say of its decision (its clock, its delivered prompts) is
        # kept in it from here on (:meth:`bot.table.clock.Clock.shown`)
        meta = (await self.clock.shown(table, meta)).model_copy()
        if step is None:
            return await self._commit_record(table, meta, list(outbox), redraw)
        planned = await plan(self.clock, self.languages, table, step, meta, outbox,
                             Cause(actor, action, decided, timed_out))
        chat_id, rec = table.chat_id, table.rec
        meta_json, state_json = planned.meta.stored(), step.state.model_dump_json()
        try:
            await self.storage.commit_step(
                chat_id=chat_id, expected_version=table.state.version, state_json=state_json,
                version=step.state.version, transfers=step.transfers, coup=planned.coup,
                coups=planned.coups, holders=planned.holders, deadline=planned.deadline,
                meta_json=meta_json, outbox=planned.drafts, expected_rev=rec.rev)
        except StorageError:
            self.forget(chat_id)
            self.doorbell.ring(chat_id)  # another writer's outbox (a closing text) goes out
            raise
        # committed: from here on nothing can lose the step
        self.tables[chat_id] = Table(rec.model_copy(update={
            "state_json": state_json, "version": step.state.version, "deadline": planned.deadline,
            "meta_json": meta_json, "rev": rec.rev + 1}), planned.meta, table.engine, step.state,
            planned.sight)
        self.clock.stepped(chat_id, step.state.version, planned.deadline, planned.meta)
        self.hooks.public_events(chat_id, visible_events(step.events, None))
        self.hooks.hidden_cards(chat_id, table.engine, step.state)
        self.publish(chat_id, bool(planned.drafts))
        return planned.meta

    async def _commit_record(self, table: Table, meta: TableMeta, drafts: list[OutboxDraft],
                             redraw: bool) -> TableMeta:
        """Commit a change of the host's record alone (no engine step) with what it must
        send (see :meth:`commit`)."""
        chat_id, rec = table.chat_id, table.rec
        meta_json = meta.stored()
        try:
            await self.storage.update_meta(chat_id=chat_id, meta_json=meta_json,
                                           expected_rev=rec.rev, outbox=drafts)
        except StorageError:
            self.forget(chat_id)
            raise
        self.tables[chat_id] = Table(rec.model_copy(update={"meta_json": meta_json,
                                                            "rev": rec.rev + 1}),
                                     meta, table.engine, table.state, table.cached_sight)
        self.publish(chat_id, bool(drafts), redraw=redraw)
        return meta

    def publish(self, chat_id: int, outbox: bool = True, *, redraw: bool = True) -> None:
        """The chat's table was committed (opened, changed, closed): published once, to the
        courier (its doorbell, when ``outbox`` got items or the table message may show
        something new: ``redraw``) and to every reader of the :attr:`feed` (the pages, the
        other workers), who take it from there in their own tasks."""
        if outbox or redraw:
            self.doorbell.ring(chat_id, outbox)
        table = self.tables.get(chat_id)
        self.feed.publish(chat_id, table.state.version if table is not None else 0)


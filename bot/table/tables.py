"""The tables: one lock per chat, a copy of each table, and the one commit path.

Every change to a table goes through :meth:`Tables.commit` under the chat's lock:
the engine's step (state, transfers, the next deadline, the coups it settles as the
standings count them) or a change of the host's record alone is committed with the row
revision it was computed from, together with everything it must send (the outbox, see
:mod:`bot.outbox.courier`). Only then is the courier rung. A
:class:`storage.base.StaleVersion` means someone else's write won: nothing of this one
happened. The host knows no game: it drives every engine
through the contract in :mod:`games.engine`. Each table's decision clock is
:mod:`bot.table.clock`; a table's life (open, close, pause, /verify) is
:mod:`bot.table.lifecycle`.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from bot.ops.hooks import Hooks
from bot.outbox.courier import Doorbell
from bot.outbox.feed import Feed
from bot.table import achievements
from bot.table.clock import IDLE_CLOSE, Clock
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.plan import Cause, Plan, plan
from bot.table.record import Table, TableMeta, load
from bot.view import screens
from bot.view.applink import AppLinks
from bot.view.screens import TableScreen
from games.engine import Step, visible_events
from storage.base import OutboxDraft, Queued, Storage, StorageError, TableNotFound


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
        earned = await achievements.due(self.storage, table, step, meta, self.clock.now())
        planned = await achievements.told(self.storage, self.languages, table, earned, await plan(
            self.clock, self.languages, table, step, meta, outbox,
            Cause(actor, action, decided, timed_out), achievements.pairs(earned)))
        chat_id, rec = table.chat_id, table.rec
        meta_json, state_json = planned.meta.stored(), step.state.model_dump_json()
        queued = Queued() if planned.drafts else None  # handed to the courier (no read back)
        try:
            await self.storage.commit_step(
                chat_id=chat_id, expected_version=table.state.version, state_json=state_json,
                version=step.state.version, transfers=step.transfers, coup=planned.coup,
                coups=planned.coups, holders=planned.holders, deadline=planned.deadline,
                meta_json=meta_json, outbox=planned.drafts, expected_rev=rec.rev,
                queued=queued, settled=planned.settled)
        except StorageError:
            self.forget(chat_id)
            self.feed.forget(chat_id)  # drawn as the other writer left it
            self.doorbell.ring(chat_id)  # another writer's outbox (a closing text) goes out
            raise
        self._stepped(table, step, planned, state_json, meta_json)
        await self.publish(chat_id, bool(planned.drafts), queued=queued)
        return planned.meta

    def _stepped(self, table: Table, step: Step[Any], planned: Plan, state_json: str,
                 meta_json: str) -> None:
        """The step is committed (from here on nothing can lose it): this process's copy of
        the table becomes the committed one, the clock and the tests' hooks learn of it."""
        chat_id, rec = table.chat_id, table.rec
        self.tables[chat_id] = Table(rec.model_copy(update={
            "state_json": state_json, "version": step.state.version, "deadline": planned.deadline,
            "meta_json": meta_json, "rev": rec.rev + 1}), planned.meta, table.engine, step.state,
            planned.sight)
        self.clock.stepped(chat_id, step.state.version, planned.deadline, planned.meta)
        self.hooks.public_events(chat_id, visible_events(step.events, None))
        self.hooks.hidden_cards(chat_id, table.engine, step.state)

    async def _commit_record(self, table: Table, meta: TableMeta, drafts: list[OutboxDraft],
                             redraw: bool) -> TableMeta:
        """Commit a change of the host's record alone (no engine step) with what it must
        send (see :meth:`commit`)."""
        chat_id, rec = table.chat_id, table.rec
        meta_json = meta.stored()
        queued = Queued() if drafts else None
        try:
            await self.storage.update_meta(chat_id=chat_id, meta_json=meta_json,
                                           expected_rev=rec.rev, outbox=drafts, queued=queued)
        except StorageError:
            self.forget(chat_id)
            raise
        self.tables[chat_id] = Table(rec.model_copy(update={"meta_json": meta_json,
                                                            "rev": rec.rev + 1}),
                                     meta, table.engine, table.state, table.cached_sight)
        await self.publish(chat_id, bool(drafts), redraw=redraw, queued=queued)
        return meta

    async def publish(self, chat_id: int, outbox: bool = True, *, redraw: bool = True,
                      meta: TableMeta | None = None, news: bool = True,
                      queued: Queued | None = None) -> None:
        """The chat's table as this process holds it (opened, changed, closed: none) is
        published once on the :attr:`feed`, with the group's table message drawn from it
        (:meth:`drawing`; ``meta``: its record with its clock started, if not as
        committed): every reader of the feed (the pages, the other workers) takes it from
        there in its own task, and so does the courier, rung when ``outbox`` got items or
        the table message may show something new (``redraw``), with the items as the
        commit ``queued`` them (taken instead of read back when the courier can).
        ``news=False``: no commit, the same version drawn anew for the courier (it had none)."""
        table = self.tables.get(chat_id)
        if table is None:
            self.feed.publish(chat_id, 0, news=news)
        else:
            self.feed.publish(chat_id, table.state.version,
                              await self.drawing(table, meta or table.meta),
                              rev=table.rec.rev, news=news)
        if outbox or redraw:
            self.doorbell.ring(chat_id, outbox, queued)

    async def drawing(self, table: Table, meta: TableMeta) -> Callable[[], TableScreen]:
        """The group's table message of ``table`` with the record ``meta``, as the view draws
        it from the public scene, in the chat's language, when first read. Its clock is the
        facts of presence's; a turn nobody has been shown yet has none: its clock starts
        when this drawing is delivered, so it shows the time left as from the drawing.
        The drawing after the clock's start then reads the same (the deadline a few ms
        later, the same seconds): one edit per turn, not one without the time and one
        with it."""
        chat_id, clock = table.chat_id, self.clock
        lang = await self.languages.of(chat_id)
        links = clock.links
        scene = functools.partial(
            table.scene, None, prompted=clock.told_elsewhere(chat_id, meta, table.sight),
            open_url=links.group_url(chat_id) if links else None, app=clock.in_app(meta),
            no_dm=frozenset(meta.dm_blocked), told=frozenset(
                p for p, at in meta.hinted.items() if at != meta.decision), meta=meta)
        running = not meta.paused and bool(table.engine.awaiting(table.state))
        due = clock.due_of(meta) if running else None
        now, timeout, grace = clock.now, clock.timeout_of(meta), meta.grace_until or 0.0

        def draw() -> TableScreen:
            from_now = max(now() + timeout, grace) if running and due is None else None
            return screens.table_render(lang, scene(due if from_now is None else from_now))

        return draw


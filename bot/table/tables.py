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
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from markupsafe import Markup

from bot.ops.hooks import Hooks
from bot.outbox import kinds
from bot.outbox.courier import Doorbell
from bot.outbox.feed import Feed
from bot.table import sends
from bot.table.clock import IDLE_CLOSE, Clock
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.record import Table, TableMeta, load
from bot.view import render, screens
from bot.view.applink import AppLinks
from bot.view.sight import Sight
from games.banking import bank_holders
from games.engine import IllegalAction, Step, Transfer, visible_events
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
        ``decided=False``: the actor's action answers no decision (a utility such as
        *Leave*): an awaited actor goes on with the decision he has, its buttons and its
        clock. ``action``: the kind of the actor's action (his closed prompt names it).
        ``redraw=False``: a change of the record the table message already shows (the
        courier is rung only for what it must send)."""
        # a shallow copy: nothing below changes a field of the record in place (a changed
        # field gets a new value), so the committed table's record is never touched; what
        # the facts of presence say of its decision (its clock, its delivered prompts) is
        # kept in it from here on (:meth:`bot.table.clock.Clock.shown`)
        meta = (await self.clock.shown(table, meta)).model_copy()
        drafts = list(outbox)
        chat_id = table.chat_id
        rec = table.rec
        if step is None:
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
        if timed_out:  # one more decision nobody took (docs/rules.md §0.12, idle_close)
            meta.idle += 1
        elif actor is not None:
            meta.idle = 0
        if meta.asks:
            # an ask to type an amount is answered by his action, and ends with its phase
            same = (step.state.coup, step.state.phase) == (table.state.coup, table.state.phase)
            if actor in meta.asks or not same:
                asked = meta.asks
                meta.asks = {p: a for p, a in meta.asks.items() if same and p != actor}
                drafts += sends.asks_over(chat_id, asked, meta.asks)
        lang = await self.languages.of(chat_id)
        clock = self.clock
        fresh = clock.new_decision(table, step.state,
                                   {actor, *timed_out} if decided else set(timed_out))
        if fresh:
            # a new decision: its clock starts once every awaited player has been shown it
            meta.decision, meta.due = step.state.version, None
        elif not table.engine.awaiting(step.state):
            meta.due = None
        deadline = clock.due_of(meta) if table.engine.awaiting(step.state) else None
        sight = Sight(table.engine, step.state)
        awaited = set(sight.view().awaiting)
        readers = ({p for e in step.events for p in e.to or ()} | awaited | set(meta.prompts)
                   | set(meta.ephemerals))
        langs = {p: await self.languages.of_player(p, lang) for p in readers}
        prompts = clock.prompted(meta, sight)
        on_page = clock.page_shows(chat_id, meta, prompts)  # their open page shows their turn
        prompts -= on_page
        if not fresh:  # the decision goes on: a new prompt only where its buttons changed
            prompts = frozenset(p for p in prompts if _offer(table.sight, p) != _offer(sight, p))
        # a delivered prompt of the decision that goes on is edited where it changed; any
        # other open prompt loses its keyboard and says what became of its decision
        going_on = {p: r for p, r in meta.prompts.items()
                    if r.decision == meta.decision and p in awaited and p not in meta.dm_blocked}
        closed = {p: r for p, r in meta.prompts.items() if p not in going_on}
        prompts = prompts - set(going_on)
        settled, new_drafts = sends.step_drafts(
            lang, langs, table, step, sight, meta, timed_out, prompts,
            {p: (r.message_id, r.digest) for p, r in going_on.items()},
            clock.drawn_due(meta) if awaited else None, app=clock.app_url(chat_id),
            on_page=on_page,
            in_app=clock.in_app(meta),
            elsewhere=bool(awaited) and awaited <= clock.told_elsewhere(chat_id, meta, sight))
        drafts += new_drafts
        coup, coups = booked_coups(step, settled)
        if meta.prompts:
            edited = {d.target: str(d.payload["digest"]) for d in new_drafts
                      if d.kind == kinds.DM_EDIT}
            meta.prompts = {p: r.model_copy(update={"digest": edited[p]}) if p in edited
                            else r for p, r in going_on.items()}
            drafts += [sends.closed_prompt(
                langs[p], chat_id, table.sight, p, r.message_id, table.meta.coup_log,
                meta.names, screens.prompt_outcome(
                    langs[p], p, actor if decided else None, action, timed_out,
                    table.state.coup != step.state.coup, step.events, meta.names,
                    game=table.game, coup=table.state.coup))
                for p, r in closed.items()]
        if meta.ephemerals:  # a view shown in the group to one player: as his prompt is
            def outcome(p: int) -> Markup:
                return screens.prompt_outcome(langs[p], p, actor if decided else None, action,
                                              timed_out, table.state.coup != step.state.coup,
                                              step.events, meta.names, game=table.game,
                                              coup=table.state.coup)
            meta.ephemerals, edits = sends.ephemeral_drafts(
                langs, chat_id, table.sight, sight, meta.decision, meta.ephemerals, outcome)
            drafts += edits
        meta_json = meta.stored()  # with what the step changed in it
        state_json = step.state.model_dump_json()
        try:
            await self.storage.commit_step(
                chat_id=chat_id, expected_version=table.state.version, state_json=state_json,
                version=step.state.version, transfers=step.transfers, coup=coup, coups=coups,
                holders=holders_of(table.sight, step.transfers), deadline=deadline,
                meta_json=meta_json, outbox=drafts, expected_rev=rec.rev)
        except StorageError:
            self.forget(chat_id)
            self.doorbell.ring(chat_id)  # another writer's outbox (a closing text) goes out
            raise
        # committed: from here on nothing can lose the step
        self.tables[chat_id] = Table(rec.model_copy(update={
            "state_json": state_json, "version": step.state.version, "deadline": deadline,
            "meta_json": meta_json, "rev": rec.rev + 1}), meta, table.engine, step.state, sight)
        clock.stepped(chat_id, step.state.version, deadline, meta)
        self.hooks.public_events(chat_id, visible_events(step.events, None))
        self.hooks.hidden_cards(chat_id, table.engine, step.state)
        self.publish(chat_id, bool(drafts))
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


def booked_coups(step: Step[Any], settled: int | None) -> tuple[int, list[int]]:
    """The coup a step's chips are booked under (and /history shows them under): the coup
    it settles, if it settles one, else the coup the table is in after it, so a bank posted
    or antes paid for a coup about to begin are that coup's, not the one before (nor a coup
    #0). A step that settles a coup and deals the next (poker's next antes) books what came
    after the settlement under the next: the per-transfer coups, or none when one coup
    takes them all."""
    if settled is None:
        return step.state.coup, []
    after = len(step.transfers) - (step.settled if step.settled is not None
                                   else len(step.transfers))
    if not after or step.state.coup == settled:
        return settled, []
    return settled, [settled] * (len(step.transfers) - after) + [step.state.coup] * after


def holders_of(sight: Sight, transfers: Sequence[Transfer]) -> list[int | None]:
    """Whose each transfer's bank side is (see :func:`games.banking.bank_holders`), the banker
    before the step being the seat the table showed as the banker; empty when no transfer
    touches a bank."""
    banker = next((s.player for s in sight.view().seats if s.role == "banker"), None)
    holders = bank_holders(transfers, banker)
    return holders if any(h is not None for h in holders) else []


def _offer(sight: Sight, player: int) -> tuple[Any, ...]:
    """What a player's decision offers him (his legal actions but the utilities, which do
    not make a decision), to tell when it changes."""
    try:
        return tuple(s for s in sight.legal(player) if s.kind not in render.UTILITIES)
    except IllegalAction:
        return ()

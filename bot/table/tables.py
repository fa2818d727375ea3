"""The tables: one lock per chat; load, ask the engine, commit with what must be sent.

Every change to a table goes through :meth:`Tables.commit` under the chat's lock:
the engine's step (state, transfers, the next deadline) or a change of the host's
record alone is committed with the row revision it was computed from, together
with everything it must send (the outbox, see :mod:`bot.outbox.courier`). Only then is
the courier rung. A :class:`storage.base.StaleVersion` means someone else's write
won: nothing of this one happened. The host knows no game: it drives every engine
through the contract in :mod:`games.engine`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from markupsafe import Markup
from pydantic import BaseModel
from telegram.helpers import create_deep_linked_url

from bot.ops.hooks import Hooks
from bot.outbox import kinds
from bot.outbox.courier import Doorbell
from bot.table import sends, table_settings
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.record import OpenPrompt, Proof, Table, TableMeta, load
from bot.view import i18n, render, screens
from bot.view.screens import Render
from bot.view.sight import Sight
from games import registry
from games.banking import bank_holders
from games.engine import (
    CardsProven,
    GameState,
    IllegalAction,
    Purpose,
    Settlement,
    ShoeFacts,
    ShoeRevealed,
    Step,
    StoodUp,
    TimedOut,
    Transfer,
    visible_events,
)
from games.verify.check import compact
from storage.base import (
    InsufficientFunds,
    OutboxDraft,
    StaleVersion,
    Storage,
    StorageError,
    TableExists,
    TableNotFound,
)


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

log = logging.getLogger(__name__)

MAX_COUP_LINES = 60
# How much earlier than the clock's real deadline the group's table message may show it
# and stay as it is (the clock starts when the drawing is delivered, a moment after it
# was drawn)
SHOWN_SLACK = 0.5


class Tables:
    """Every chat's table: open, play (commit), settings, close, pause and resume."""

    def __init__(self, storage: Storage, languages: Languages, doorbell: Doorbell,
                 deadlines: Deadlines, *, decision_timeout: float, bot_username: str,
                 hooks: Hooks | None = None, clock: Callable[[], float] = time.time,
                 turn_dms: bool = True, chat_locks: ChatLocks | None = None) -> None:
        self.storage = storage
        # several workers on one database (bot/workers/coordination.py): the chat's lock is the
        # database's too, and this process's copy of a table is trusted only under it
        self.chat_locks = chat_locks
        self.languages = languages
        self.doorbell = doorbell
        self.deadlines = deadlines
        self.decision_timeout = decision_timeout
        self.turn_dms = turn_dms
        self.bot_username = bot_username
        self.hooks = hooks or Hooks()
        self.clock = clock
        self.locks: dict[int, asyncio.Lock] = {}
        self.tables: dict[int, Table] = {}
        # per chat: the decision being shown, and the awaited players it was shown to
        self.seen: dict[int, tuple[int, set[int]]] = {}

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
            table = load(await self.storage.load_table(chat_id=chat_id))
            self.tables[chat_id] = table
        return table

    def forget(self, chat_id: int) -> None:
        """Drop what this process holds of the chat's table (it is read again)."""
        self.tables.pop(chat_id, None)

    def turn_dm_of(self, meta: TableMeta) -> bool:
        """Whether the table prompts each awaited player in his private chat."""
        return self.turn_dms if meta.turn_dm is None else meta.turn_dm

    def timeout_of(self, meta: TableMeta) -> float:
        """The table's decision timeout in seconds."""
        return meta.timeout if meta.timeout is not None else self.decision_timeout

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
        # field gets a new value), so the committed table's record is never touched
        meta = (meta or table.meta).model_copy()
        drafts = list(outbox)
        chat_id = table.chat_id
        rec = table.rec
        if step is None:
            meta_json = meta.model_dump_json()
            try:
                await self.storage.update_meta(chat_id=chat_id, meta_json=meta_json,
                                               expected_rev=rec.rev, outbox=drafts)
            except StorageError:
                self.forget(chat_id)
                raise
            self.tables[chat_id] = Table(rec.model_copy(update={"meta_json": meta_json,
                                                                "rev": rec.rev + 1}),
                                         meta, table.engine, table.state, table.cached_sight)
            if redraw or drafts:
                self.doorbell.ring(chat_id, bool(drafts))
            return meta
        if meta.asks:
            # an ask to type an amount is answered by his action, and ends with its phase
            same = (step.state.coup, step.state.phase) == (table.state.coup, table.state.phase)
            if actor in meta.asks or not same:
                meta.asks = {p: a for p, a in meta.asks.items() if same and p != actor}
        lang = await self.languages.of(chat_id)
        fresh = self._new_decision(table, step.state,
                                   {actor, *timed_out} if decided else set(timed_out))
        if fresh:
            # a new decision: its clock starts once every awaited player has been shown it
            meta.decision, meta.due = step.state.version, None
        elif not table.engine.awaiting(step.state):
            meta.due = None
        deadline = self._due_of(meta) if table.engine.awaiting(step.state) else None
        sight = Sight(table.engine, step.state)
        awaited = set(sight.view().awaiting)
        readers = {p for e in step.events for p in e.to or ()} | awaited | set(meta.prompts)
        langs = {p: await self.languages.of_player(p, lang) for p in readers}
        prompts = self._prompted(meta, sight)
        if not fresh:  # the decision goes on: a new prompt only where its buttons changed
            prompts = frozenset(p for p in prompts if _offer(table.sight, p) != _offer(sight, p))
        # a delivered prompt of the decision that goes on is edited where it changed; any
        # other open prompt loses its keyboard and says what became of its decision
        going_on = {p: r for p, r in meta.prompts.items()
                    if r.decision == meta.decision and p in awaited and p not in meta.dm_blocked}
        closed = {p: r for p, r in meta.prompts.items() if p not in going_on}
        prompts = prompts - set(going_on)
        settled, new_drafts = self._step_drafts(
            lang, langs, table, step, sight, meta, timed_out, prompts,
            {p: (r.message_id, r.digest) for p, r in going_on.items()})
        drafts += new_drafts
        coup, coups = booked_coups(step, settled)
        if meta.prompts:
            edited = {d.target: str(d.payload["digest"]) for d in new_drafts
                      if d.kind == kinds.DM_EDIT}
            meta.prompts = {p: r.model_copy(update={"digest": edited[p]}) if p in edited
                            else r for p, r in going_on.items()}
            drafts += [sends.closed_prompt(
                langs[p], chat_id, table.sight, p, r.message_id, table.meta.coup_log,
                meta.names, _outcome(langs[p], p, actor if decided else None, action,
                                     timed_out, table.state.coup != step.state.coup))
                for p, r in closed.items()]
        meta_json = meta.model_dump_json()  # with what the step changed in it
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
        if not meta.paused:
            self.deadlines.schedule(chat_id, step.state.version, deadline, self.on_deadline)
        if meta.due is None:
            self.seen.pop(chat_id, None)
        self.hooks.public_events(chat_id, visible_events(step.events, None))
        self.doorbell.ring(chat_id, bool(drafts))
        return meta

    def _step_drafts(self, lang: str, langs: dict[int, str], table: Table, step: Step[Any],
                     sight: Sight, meta: TableMeta, timed_out: Sequence[int],
                     prompts: frozenset[int], open_prompts: dict[int, tuple[int, str]]
                     ) -> tuple[int | None, list[OutboxDraft]]:
        """What a step sends (and its record updated in ``meta``): the coup's result, stand-
        ups, the table anew for a new coup, and each player's private events in his own
        language. Also the coup the step settles, if it settles one."""
        old, new, chat_id = table.state, step.state, table.chat_id
        view = sight.view()
        names = meta.names
        seated = {s.player: s.name for seats in (table.sight.view().seats, view.seats)
                  for s in seats}
        if any(names.get(p) != n for p, n in seated.items()):
            names = meta.names = {**names, **seated}
        log = list(meta.coup_log)
        public = visible_events(step.events, None)
        # a timeout is told by the engine's own event, folded into what it did for him; the
        # host's line only for an awaited player whose engine said nothing of it
        told = {e.player for e in public if isinstance(e, TimedOut)}
        if untold := [p for p in timed_out if p not in told]:
            log.append({"kind": screens.TIMED_OUT, "data": {"players": untold}})
        settled: tuple[Settlement, list[dict[str, Any]]] | None = None
        announcements = []
        for event, by_timeout in screens.timeouts_folded(screens.deals_merged(public)):
            if isinstance(event, ShoeRevealed):
                meta.revealed = revealed_record(event)
                if event.purpose is Purpose.BANK_DRAW:
                    continue  # a shoe only drawn from for the bank: /verify proves it, and
                    # the log says nothing of its being finished (only a talia's shoe is)
            if isinstance(event, StoodUp):
                player = event.player
                name = names.get(player, str(player)) if player is not None else "?"
                announcements.append(i18n.t(lang, "stood_up", name=name))
            if isinstance(event, Settlement):
                settled = (event, log)
                log = []
            elif screens.logged(event):
                log.append(screens.log_entry(event, by_timeout))
        if new.coup != old.coup and settled is None and new.coup > 0:
            log = log[-4:]  # a new coup began without a result (a void coup, a stand-off)
        meta.coup_log = log[-MAX_COUP_LINES:]
        drafts = []
        if settled is not None:
            result, coup_log = settled
            meta.last_result = result.model_dump(mode="json")
            drafts.append(sends.settlement(chat_id, screens.result_text(
                lang, view.game, result, names, coup_log)))
        drafts += [sends.group_message(chat_id, text) for text in announcements]
        if (settled is not None or new.coup != meta.msg_coup) and view.seats:
            meta.msg_coup = new.coup
            drafts.append(sends.table_post(chat_id))
        # a player's proof of his own cards is kept for him, and sent when he asks (/verify)
        proven = [e for e in step.events if isinstance(e, CardsProven)]
        if proven:
            meta.proofs = {**meta.proofs, **{
                p: Proof(hand=e.coup, record=compact(e.record)) for e in proven
                if (p := e.player) is not None}}
        deadline = (self._due_of(meta) or self._due_from_now(meta)) if view.awaiting else None
        drafts += sends.direct_messages(
            langs, chat_id, sight, [e for e in step.events if not isinstance(e, CardsProven)],
            names, prompts, meta.decision, meta.coup_log, deadline, open_prompts)
        return (settled[0].coup if settled is not None else None), drafts

    @staticmethod
    def _new_decision(table: Table, new: GameState, acted: set[int | None]) -> bool:
        """Whether a step begins a new decision. Not when the awaited players are the same
        or fewer and none of them acted: some of several simultaneously awaited players
        answered, or a bystander did something (joined, left); the others go on with the
        decision they were given, its buttons and its clock."""
        engine, old = table.engine, table.state
        now_waiting = set(engine.awaiting(new))
        before = set(engine.awaiting(old))
        if not now_waiting:
            return False  # nobody's decision: the buttons are anybody's (join, start)
        return not (new.coup == old.coup and new.phase == old.phase
                    and now_waiting <= before and not now_waiting & acted)

    @staticmethod
    def _due_of(meta: TableMeta) -> float | None:
        """When the decision under way times out: never before it was shown (None until
        then), never before a resume's grace ends."""
        if meta.due is None:
            return None
        return max(meta.due, meta.grace_until or 0.0)

    def _due_from_now(self, meta: TableMeta) -> float:
        """When a decision whose clock started now would time out (see :meth:`_due_of`)."""
        return max(self.clock() + self.timeout_of(meta), meta.grace_until or 0.0)

    def _due(self, table: Table) -> float | None:
        """When the table's deadline really falls (None: nobody is awaited, or the turn is
        not visible yet to every awaited player)."""
        if not table.engine.awaiting(table.state):
            return None
        return self._due_of(table.meta)

    def _prompted(self, meta: TableMeta, sight: Sight) -> frozenset[int]:
        """The awaited players who get their turn in their private chat: all who have one
        with the bot, unless the table turned turn DMs off (a private step's decision goes
        there anyway)."""
        awaited = sight.view().awaiting
        if not self.turn_dm_of(meta) and not sight.private:
            return frozenset()
        return frozenset(p for p in awaited if p not in meta.dm_blocked)

    async def turn_seen(self, chat_id: int, decision: int, players: Sequence[int],
                        shown: float | None = None,
                        prompt: tuple[int, str] | None = None) -> None:
        """``players`` have been shown decision ``decision`` (their DM prompt, or the group's
        table message, was delivered): once every awaited player has, its clock starts.
        ``shown``: the group's table message was delivered counting down to this deadline
        (drawn as from its drawing, see :meth:`current_render`). ``prompt``: the one
        player's turn prompt was delivered as this message, showing this digest: it is
        kept open (and brought up to date if the table moved on meanwhile), or closed at
        once if its decision is already gone."""
        seen_decision, seen = self.seen.get(chat_id, (None, set()))
        if seen_decision != decision:
            seen = set()
        seen |= set(players)
        self.seen[chat_id] = (decision, seen)
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return
            meta = table.meta
            awaited = set(table.engine.awaiting(table.state))
            start = not (meta.decision != decision or meta.due is not None or meta.paused
                         or not awaited or not awaited <= seen)
            if start:
                meta = meta.model_copy(update={"due": self.clock() + self.timeout_of(meta)})
            outbox: list[OutboxDraft] = []
            if prompt is not None and len(players) == 1:
                meta, outbox = await self._prompt_seen(table, meta, decision, players[0],
                                                       *prompt)
            if not start and not outbox and meta is table.meta:
                return
            real = self._due_of(meta)
            # drawn to within half a second before the deadline (never after it): the
            # table message stays; the date-time entity shows whole seconds anyway
            drawn = shown is not None and real is not None and 0 <= real - shown < SHOWN_SLACK
            try:
                await self.commit(table, meta=meta, outbox=outbox, redraw=start and not drawn)
            except StorageError:
                log.warning("the clock of chat %s was not started", chat_id)
                return
            if start:
                self.deadlines.schedule(chat_id, table.state.version, real, self.on_deadline)

    async def _prompt_seen(self, table: Table, meta: TableMeta, decision: int, player: int,
                           message_id: int, digest: str) -> tuple[TableMeta, list[OutboxDraft]]:
        """A delivered turn prompt: open while its decision is, edited at once if the table
        moved on since it was drawn; closed if its decision is gone already."""
        lang = await self.languages.of_player(player, await self.languages.of(table.chat_id))
        sight = table.sight
        if meta.decision == decision and player in sight.view().awaiting:
            # drawn as its step drew it: the time left as from now until the clock starts
            now = screens.prompt(lang, table.chat_id, sight, player,
                                 self._due_of(meta) or self._due_from_now(meta),
                                 meta.coup_log, meta.names, decision=decision)
            prompts = {**meta.prompts, player: OpenPrompt(
                message_id=message_id, decision=decision, digest=now.digest)}
            meta = meta.model_copy(update={"prompts": prompts})
            return meta, [] if now.digest == digest else [
                sends.prompt_edit(player, message_id, now)]
        return meta, [sends.closed_prompt(lang, table.chat_id, sight, player, message_id,
                                            meta.coup_log, meta.names,
                                            i18n.t(lang, "prompt_over"))]

    async def on_deadline(self, chat_id: int, version: int) -> None:
        """The deadline of step ``version`` passed: apply the engine's safe defaults."""
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return
            due = self._due(table)
            if table.state.version != version or due is None or table.meta.paused:
                return
            if due > self.clock() + 0.05:
                self.deadlines.schedule(chat_id, version, due, self.on_deadline)
                return
            awaited = table.engine.awaiting(table.state)
            if not awaited:
                return
            step = table.engine.timeout(table.state)
            try:
                await self.commit(table, step, timed_out=awaited)
            except (StaleVersion, InsufficientFunds, TableNotFound):  # closed: bot.admin
                log.warning("timeout step of chat %s not committed", chat_id)
                return
            log.info("chat %s: step %s timed out", chat_id, version)

    # ----------------------------------------------------------- what the courier asks

    async def current_render(self, chat_id: int) -> Render | None:
        """The chat's table message as it should look now; None without a table."""
        try:
            table = await self.load(chat_id)
        except TableNotFound:
            return None
        lang = await self.languages.of(chat_id)
        meta = table.meta
        due = None
        if not meta.paused and table.engine.awaiting(table.state):
            # a turn nobody has been shown yet: its clock starts when this drawing is
            # delivered (turn_seen), so it shows the time left as from now. The drawing
            # after the clock's commit then reads the same (the deadline a few ms later,
            # the same seconds): one edit per turn, not one without the time and one with it
            due = self._due_of(meta) or self._due_from_now(meta)
        return screens.table_render(lang, chat_id, table.sight, due,
                                    meta.coup_log, meta.names, decision=meta.decision,
                                    prompted=self._prompted(meta, table.sight),
                                    last=meta.last_result)

    async def group_lost(self, chat_id: int) -> None:
        """The group refuses the bot (kicked, blocked): the table pauses, no deadline runs,
        and what it must send waits in the outbox until the bot is back."""
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return
            if table.meta.paused:
                return
            self.deadlines.cancel(chat_id)
            await self.commit(table, meta=table.meta.model_copy(update={"paused": True}))
        log.warning("chat %s refuses the bot: its table pauses", chat_id)

    async def group_back(self, chat_id: int) -> None:
        """The bot is back in the group: the table resumes; whoever is awaited gets a whole
        decision time from now."""
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return
            if not table.meta.paused:
                return
            lang = await self.languages.of(chat_id)
            grace = self.clock() + self.timeout_of(table.meta)
            meta = table.meta.model_copy(update={"paused": False, "grace_until": grace})
            await self.commit(table, meta=meta, outbox=[
                sends.group_message(chat_id, i18n.t(lang, "table_resumed")),
                sends.table_post(chat_id)])
            # a clock already running restarts from the grace; one not started yet starts
            # when the reposted table is shown
            self.deadlines.schedule(chat_id, table.state.version,
                                    self._due(self.tables[chat_id]), self.on_deadline)

    async def dm_blocked(self, chat_id: int, user_id: int) -> None:
        """The bot may not write to ``user_id``: offer the deep link once per table."""
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return
            if user_id in table.meta.dm_blocked:
                return
            lang = await self.languages.of(chat_id)
            link = create_deep_linked_url(self.bot_username,
                                          screens.deep_link_payload(chat_id))
            name = table.meta.names.get(user_id, str(user_id))
            meta = table.meta.model_copy(update={"dm_blocked": [*table.meta.dm_blocked,
                                                                user_id]})
            await self.commit(table, meta=meta, outbox=[sends.group_message(
                chat_id, i18n.t(lang, "dm_blocked", name=name, link=link))])

    async def table_missing(self, chat_id: int) -> None:
        """The live table message is gone (deleted, replaced by a result): post it anew."""
        await self.repost(chat_id)

    # ----------------------------------------------------------- a table's life

    async def resume_all(self) -> int:
        """At start-up: reschedule every open table's deadline and redraw its message."""
        records = await self.storage.open_tables()
        for rec in records:
            table = load(rec)
            if not table.meta.paused:
                self.deadlines.schedule(rec.chat_id, table.state.version, self._due(table),
                                        self.on_deadline)
            self.doorbell.ring(rec.chat_id)
        return len(records)

    async def open_table(self, chat_id: int, game: str, user_id: int,
                         language_code: str | None,
                         settings: dict[str, Any] | None = None) -> str | None:
        """Open a table of ``game``; returns a refusal text or None."""
        lang = await self.languages.of(chat_id, language_code)
        if game not in registry.GAMES:
            return i18n.t(lang, "unknown_game", games=", ".join(registry.GAMES))
        engine = registry.engine(game)
        async with self.lock(chat_id):
            # the chat's defaults for its next tables (/settings default), under /newtable's
            wanted, host = table_settings.for_new_table(
                await self.storage.chat_settings(chat_id=chat_id), game, dict(settings or {}))
            try:
                state = engine.new_table(dict(wanted))
            except (ValueError, TypeError, IllegalAction) as exc:
                return i18n.t(lang, "settings_bad", error=type(exc).__name__)
            meta = TableMeta(opener=user_id, msg_coup=state.coup, **host)
            try:
                rec = await self.storage.create_table(
                    chat_id=chat_id, game=game, settings=wanted,
                    state_json=state.model_dump_json(), version=state.version,
                    meta_json=meta.model_dump_json(), outbox=[sends.table_post(chat_id)])
            except TableExists:
                self.forget(chat_id)
                rec = await self.storage.load_table(chat_id=chat_id)
                return i18n.t(lang, "table_exists", game=i18n.game_name(lang, rec.game))
            self.tables[chat_id] = Table(rec, meta, engine, state)
        self.doorbell.ring(chat_id)
        return None

    async def open_game(self, chat_id: int) -> str | None:
        """The game of the chat's open table; None without one."""
        try:
            return (await self.load(chat_id)).game
        except TableNotFound:
            return None

    async def repost(self, chat_id: int) -> bool:
        """/table: post the table message again at the bottom of the chat."""
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return False
            await self.commit(table, outbox=[sends.table_post(chat_id, asked=True)])
        return True

    async def set_language(self, chat_id: int, lang: str) -> None:
        """/language: the chat's language; the table is drawn again in it."""
        await self.languages.choose(chat_id, lang)
        self.doorbell.ring(chat_id)

    async def settings(self, chat_id: int, key: str | None, value: str | None) -> str:
        """/settings [KEY VALUE]: show, or change one setting of the open table
        (:func:`bot.table.table_settings.change`)."""
        return await table_settings.change(self, chat_id, key, value)

    async def set_default(self, chat_id: int, key: str | None, value: str | None,
                          game: str | None = None) -> str:
        """/settings default [GAME] KEY [VALUE]: the chat's default for its next tables
        (:func:`bot.table.table_settings.set_default`)."""
        return await table_settings.set_default(self, chat_id, key, value, game)

    async def close_table(self, chat_id: int) -> str | None:
        """/closetable: the game voids its coup, every table chip goes back to a wallet; the
        closing text is posted at the bottom of the chat and the table message retires.
        Returns a refusal text or None."""
        lang = await self.languages.of(chat_id)
        async with self.lock(chat_id):
            try:
                table = await self.load(chat_id)
            except TableNotFound:
                return i18n.t(lang, "no_table")
            step = table.engine.close(table.state)
            names = dict(table.meta.names)
            lines: list[str] = [i18n.t(lang, "closed_table")]
            lines += [i18n.event_text(lang, e, names) for e in visible_events(step.events, None)
                      if not isinstance(e, ShoeRevealed)]
            for event in step.events:
                if isinstance(event, ShoeRevealed):
                    lines.append(revealed_text(lang, Revealed.model_validate(
                        revealed_record(event)), names))
            closed = []  # every open turn prompt says the table is closed, without buttons
            for player, open_prompt in table.meta.prompts.items():
                mine = await self.languages.of_player(player, lang)
                closed.append(sends.closed_prompt(
                    mine, chat_id, table.sight, player, open_prompt.message_id,
                    table.meta.coup_log, names, i18n.t(mine, "prompt_closed")))
            await self.storage.close_table(
                chat_id=chat_id, expected_version=table.state.version,
                transfers=step.transfers, coup=table.state.coup,
                holders=holders_of(table.sight, step.transfers),
                outbox=[sends.closing(chat_id, "\n\n".join(lines)), *closed])
            self.deadlines.cancel(chat_id)
            self.tables.pop(chat_id, None)
        self.doorbell.ring(chat_id)
        return None

    async def verify(self, chat_id: int, user_id: int | None = None, name: str = "") -> str:
        """/verify: the current commitment and the last revealed shoe, with how to check; and
        to the asker (``user_id``), in his private chat, the proof of his own cards of his
        latest poker hand, if he has one."""
        lang = await self.languages.of(chat_id)
        try:
            table = await self.load(chat_id)
        except TableNotFound:
            return i18n.t(lang, "no_table")
        yours = table.meta.proofs.get(user_id) if user_id is not None else None
        if user_id is not None and yours is not None:
            mine = await self.languages.of_player(user_id, lang)
            async with self.lock(chat_id):
                try:
                    table = await self.load(chat_id)
                except TableNotFound:
                    return i18n.t(lang, "no_table")
                yours = table.meta.proofs.get(user_id)
                if yours is not None:
                    await self.commit(table, outbox=[sends.dm_message(user_id, i18n.t(
                        mine, "your_proof", hand=yours.hand, record=yours.record))],
                        redraw=False)
        text = self._verify_text(lang, table)
        if yours is not None:
            return "\n\n".join([i18n.t(lang, "proof_sent", name=name, hand=yours.hand), text])
        return text

    def _verify_text(self, lang: str, table: Table) -> str:
        """/verify's text for the group (see :meth:`verify`)."""
        shoe = table.sight.view().shoe
        commitment = shoe.commitments[0] if shoe is not None and shoe.commitments else None
        parts: list[str] = [i18n.t(lang, "verify_current", commitment=commitment) if commitment
                 else i18n.t(lang, "verify_none")]
        if commitment and shoe is not None and shoe.cut is not None:
            # public already: the cut and the burned cards were shown
            parts[0] += "\n" + " ".join([
                i18n.t(lang, "verify_current_cut", cut=shoe.cut,
                       how=cut_how(lang, shoe, table.meta.names)), *burned_text(lang, shoe)])
        revealed = Revealed.kept(table.meta.revealed)
        if revealed is not None:
            # the record goes last and whole: the verifier reads it from a saved message
            record = Markup("<pre>{}</pre>").format(compact(revealed.record))
            parts += [revealed_text(lang, revealed, table.meta.names, with_record=False),
                      i18n.t(lang, "verify_how")]
            while parts and len("\n\n".join(parts)) + len(record) + 2 > render.MAX_TEXT:
                parts.pop(0)  # the record is what the verifier needs whole
            return "\n\n".join([*parts, record])
        return "\n\n".join(parts)


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


def revealed_record(event: ShoeRevealed) -> dict[str, Any]:
    """A revealed shoe as the table record keeps it for /verify (:class:`Revealed`)."""
    return Revealed(record=event.record, shoe=event.shoe, whole=event.whole,
                    shown=event.shown, purpose=event.purpose).model_dump(mode="json")


class Revealed(BaseModel):
    """The last revealed shoe: its record, whole, and its typed facts."""

    record: dict[str, Any]
    shoe: ShoeFacts
    whole: bool = False
    shown: int = 0
    purpose: Purpose = Purpose.COUPS

    @classmethod
    def kept(cls, data: dict[str, Any] | None) -> Revealed | None:
        """The record's ``revealed``, or None (none yet, or kept in an older shape)."""
        try:
            return cls.model_validate(data) if data else None
        except ValueError:
            return None


def revealed_text(lang: str, revealed: Revealed, names: dict[int, str],
                  with_record: bool = True) -> str:
    """How a revealed shoe's dealing order was made (docs/rules.md §0.4, §0.5): committed
    order, the cut and who chose it, burned cards, what is proven; then the record that
    ``python -m games.verify`` checks."""
    shoe = revealed.shoe
    what = (i18n.t(lang, "verify_all") if revealed.whole
            else i18n.t(lang, "verify_shown", count=revealed.shown))
    text = " ".join([i18n.t(lang, "verify_revealed", commitment=shoe.commitments[0],
                            size=shoe.size, cut=shoe.cut or 0,
                            how=cut_how(lang, shoe, names, revealed.purpose)),
                     *burned_text(lang, shoe), what])
    return text + Markup("\n<pre>{}</pre>").format(compact(revealed.record)) if with_record \
        else text


def burned_text(lang: str, shoe: ShoeFacts) -> list[str]:
    """The sentence on a shoe's cards burned face up after the cut, if any were."""
    return [i18n.t(lang, "verify_burned", burned=len(shoe.burned))] if shoe.burned else []


def cut_how(lang: str, shoe: ShoeFacts, names: dict[int, str],
            purpose: Purpose = Purpose.COUPS) -> str:
    """Who set a shoe's cut, in words (docs/rules.md §0.4), as the shoe recorded it: the
    cutter's own depth, or the timeout rule's when his time ran out (a chosen depth may
    equal the rule's: the record, not the values, tells them apart); a shoe nobody cuts
    (poker's deck, a draw for the bank) says why."""
    cut = shoe.cut or 0
    name = None if shoe.cutter is None else names.get(shoe.cutter, str(shoe.cutter))
    if shoe.by_timeout:
        return i18n.t(lang, "verify_cut_rule", player=name or "?", cut=cut, size=shoe.size)
    if name is not None:
        return i18n.t(lang, "verify_cut_by", player=name, cut=cut)
    if purpose is Purpose.BANK_DRAW:
        return i18n.t(lang, "verify_uncut_draw")
    return i18n.t(lang, "verify_uncut_hand" if purpose is Purpose.ONE_HAND else "verify_uncut")


def _offer(sight: Sight, player: int) -> tuple[Any, ...]:
    """What a player's decision offers him (his legal actions but the utilities, which do
    not make a decision), to tell when it changes."""
    try:
        return tuple(s for s in sight.legal(player) if s.kind not in render.UTILITIES)
    except IllegalAction:
        return ()


def _outcome(lang: str, player: int, actor: int | None, action: str, timed_out: Sequence[int],
             new_coup: bool) -> Markup:
    """What became of a player's decision, in one line of his closed prompt."""
    if player == actor and action:
        return i18n.t(lang, "prompt_done", label=i18n.action_label(lang, action))
    if player in timed_out:
        return i18n.t(lang, "prompt_timed_out")
    return i18n.t(lang, "prompt_coup_over" if new_coup else "prompt_over")

"""The decision clock: when an awaited player's time runs out, and what happens then.

A decision's clock starts only once every awaited player has been shown it. Where each
player's turn is showing is data, recorded with the table as appended facts of presence
(:class:`storage.base.Shown`, one per decision, player and channel): the courier appends one
when his turn prompt, or the group's table message, is delivered; the Mini App's server when
his open page showed it (:meth:`Clock.turn_seen`). Appending a fact commits nothing: the
clock reads the facts, and once every awaited player's turn was shown, the decision is due
its timeout after the last of them (:meth:`Clock.started`), never before a resume's grace
ends. That deadline is scheduled at once (:meth:`bot.table.deadlines.Deadlines.started`);
the table's record learns it at its next commit (which folds the facts in:
:meth:`Clock.shown`), and a start-up reads it from the facts again. When it runs out, the
engine's safe defaults are committed (:meth:`Clock.on_deadline`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.outbox import payloads
from bot.outbox.kinds import SeenPrompt
from bot.outbox.reports import PROMPT
from bot.table import sends
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.record import OpenPrompt, Table, TableMeta
from bot.view import i18n, screens
from bot.view.applink import AppLinks
from bot.view.sight import Sight
from games.engine import GameState, Step
from storage.base import (
    InsufficientFunds,
    OutboxDraft,
    Shown,
    StaleVersion,
    Storage,
    StorageError,
    TableNotFound,
)


class Committing(Protocol):
    """What the clock needs of the tables (:class:`bot.table.tables.Tables`, which owns the
    clock): a chat's table under its lock, the storage its facts of presence are kept in, the one
    commit path a timeout goes through, and the feed a started clock is published on."""

    languages: Languages
    storage: Storage

    def locked(self, chat_id: int) -> AbstractAsyncContextManager[Table | None]:
        """The chat's table as committed (None: no table), under the chat's lock."""
        ...

    async def commit(self, table: Table, step: Step[Any] | None = None, *,
                     meta: TableMeta | None = None, outbox: Sequence[OutboxDraft] = (),
                     timed_out: Sequence[int] = (), redraw: bool = True) -> TableMeta:
        """Commit a step (or a change of the record) with what it must send."""
        ...

    async def publish(self, chat_id: int, outbox: bool = True, *, redraw: bool = True,
                      meta: TableMeta | None = None, news: bool = True) -> None:
        """Tell the channels the chat's table has something new to show (``meta``: its
        record with its clock started, if not as committed)."""
        ...

log = logging.getLogger(__name__)

IDLE_CLOSE = 6
"""A table closes itself after this many decisions in a row timed out with nobody acting
(docs/rules.md §0.12), unless the bot's IDLE_CLOSE or the table's /settings idle_close say
otherwise."""

# How much earlier than the clock's real deadline the group's table message may show it
# and stay as it is (the clock starts when the drawing is delivered, a moment after it
# was drawn)
SHOWN_SLACK = 0.5


class Clock:
    """Each table's decision clock: its timeout, when it starts and when it runs out."""

    def __init__(self, tables: Committing, deadlines: Deadlines, *, decision_timeout: float,
                 turn_dms: bool, now: Callable[[], float] = time.time,
                 links: AppLinks | None = None, idle_close: int = IDLE_CLOSE,
                 shared: bool = False) -> None:
        self.tables = tables
        self.deadlines = deadlines
        self.decision_timeout = decision_timeout
        self.turn_dms = turn_dms
        self.idle_close = idle_close
        self.now = now
        # the Mini App's links when the bot has one (WEBAPP_URL and WEBAPP_SHORT_NAME)
        self.links = links
        # per chat, the players who have the table's Mini App open on this worker (its
        # server says: :meth:`page_opened`): his page shows him his turn, live
        self.pages: dict[int, set[int]] = {}
        # per chat, the facts of presence of one decision of one table (when it opened, the
        # decision) as stored, when this process is the only one appending them (not
        # ``shared``): read from storage once per decision
        self.shared = shared
        self.facts: dict[int, tuple[tuple[float | None, int], list[Shown]]] = {}
        # closes a table nobody plays at any more (its lifecycle sets it:
        # :meth:`bot.table.lifecycle.Lifecycle.close_idle`)
        self.on_idle: Callable[[int], Awaitable[Any]] = _nothing

    def idle_limit(self, meta: TableMeta) -> int:
        """After how many decisions in a row timed out with nobody acting the table closes
        itself (0: never): the table's /settings idle_close, else the bot's IDLE_CLOSE."""
        return self.idle_close if meta.idle_close is None else meta.idle_close

    def idle_due(self, meta: TableMeta) -> bool:
        """Whether the table has gone as many decisions unplayed as closes it."""
        limit = self.idle_limit(meta)
        return limit > 0 and meta.idle >= limit

    def turn_dm_of(self, meta: TableMeta) -> bool:
        """Whether the table's setting prompts each awaited player in his private chat
        (:meth:`prompts_in_private` says whether it does)."""
        return self.turn_dms if meta.turn_dm is None else meta.turn_dm

    def prompts_in_private(self, meta: TableMeta) -> bool:
        """Whether each awaited player gets his turn in his private chat: as the table's
        ``turn_dm`` says, and always at a table played in the Mini App (its group does not
        show turns; a player whose page is not open must still see his)."""
        return self.in_app(meta) or self.turn_dm_of(meta)

    @property
    def app_on(self) -> bool:
        """Whether the bot has the Mini App."""
        return self.links is not None

    def screen_of(self, meta: TableMeta) -> str:
        """Where the table is played (/settings screen): ``app`` or ``chat``; by default
        ``app`` where the bot has the Mini App. Without the app, always ``chat``."""
        if not self.app_on:
            return "chat"
        return meta.screen or "app"

    def in_app(self, meta: TableMeta) -> bool:
        """Whether the table is played in the Mini App: its group gets each coup's card and
        result, and its players their turns in private (:func:`bot.view.screens.table_render`,
        ``app``)."""
        return self.screen_of(meta) == "app"

    def app_url(self, chat_id: int) -> str | None:
        """The Mini App's page for the table, for a private chat's ``web_app`` button."""
        return self.links.private_url(chat_id) if self.links is not None else None

    def timeout_of(self, meta: TableMeta) -> float:
        """The table's decision timeout in seconds."""
        return meta.timeout if meta.timeout is not None else self.decision_timeout

    @staticmethod
    def new_decision(table: Table, new: GameState, acted: set[int | None]) -> bool:
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
    def due_of(meta: TableMeta) -> float | None:
        """When the decision under way times out: never before it was shown (None until
        then), never before a resume's grace ends."""
        if meta.due is None:
            return None
        return max(meta.due, meta.grace_until or 0.0)

    def due_from_now(self, meta: TableMeta) -> float:
        """When a decision whose clock started now would time out (see :meth:`due_of`)."""
        return max(self.now() + self.timeout_of(meta), meta.grace_until or 0.0)

    def drawn_due(self, meta: TableMeta) -> float:
        """The deadline a drawing of the decision under way shows: its own, or, while its
        clock waits for every awaited player to see it, the time left as from now."""
        return self.due_of(meta) or self.due_from_now(meta)

    async def due(self, table: Table) -> float | None:
        """When the table's deadline really falls (None: nobody is awaited, or the turn is
        not visible yet to every awaited player)."""
        if not table.engine.awaiting(table.state):
            return None
        return self.due_of(await self.started(table))

    # ------------------------------------------------------------ presence

    def page_opened(self, chat_id: int, player: int) -> None:
        """``player`` has the table's Mini App open on this worker."""
        self.pages.setdefault(chat_id, set()).add(player)

    def page_gone(self, chat_id: int, player: int) -> None:
        """``player``'s last page of the table on this worker closed."""
        players = self.pages.get(chat_id)
        if players is not None:
            players.discard(player)
            if not players:
                del self.pages[chat_id]

    def watching(self, chat_id: int, player: int) -> bool:
        """Whether ``player`` has the table's page open on this worker (it shows him his
        turn, as a private prompt would)."""
        return player in self.pages.get(chat_id, ())

    async def presence(self, table: Table, decision: int) -> list[Shown]:
        """The facts of presence of the table's ``decision`` (a table opened since in the
        chat has facts of its own: a closed table's went with it)."""
        key = (table.meta.opened, decision)
        kept = self.facts.get(table.chat_id)
        if kept is not None and kept[0] == key:
            return kept[1]
        facts = await self.tables.storage.presence(chat_id=table.chat_id, decision=decision)
        if not self.shared:
            self.facts[table.chat_id] = (key, facts)
        return facts

    async def _append(self, table: Table, decision: int, facts: list[Shown]) -> None:
        await self.tables.storage.add_presence(chat_id=table.chat_id, decision=decision,
                                               shown=facts)
        key = (table.meta.opened, decision)
        kept = self.facts.get(table.chat_id)
        if kept is not None and kept[0] == key:
            self.facts[table.chat_id] = (key, kept[1] + facts)

    def _start(self, table: Table, facts: Sequence[Shown]) -> float | None:
        """When the clock of the table's decision started, by these facts of it: the moment
        the last awaited player's turn was first shown (None: someone's is not yet)."""
        awaited = set(table.engine.awaiting(table.state))
        first: dict[int, float] = {}
        for fact in facts:
            first[fact.player] = min(fact.shown_at, first.get(fact.player, fact.shown_at))
        if not awaited or not awaited <= first.keys():
            return None
        return max(first[p] for p in awaited)

    async def started(self, table: Table, meta: TableMeta | None = None) -> TableMeta:
        """``meta`` (the table's record by default) with its decision's deadline as the facts
        of presence say: ``due`` set once every awaited player's turn was shown. A record
        that has it already, or a paused table's, is returned as it is."""
        meta = meta or table.meta
        if meta.due is not None or meta.paused or not table.engine.awaiting(table.state):
            return meta
        start = self._start(table, await self.presence(table, meta.decision))
        if start is None:
            return meta
        return meta.model_copy(update={"due": start + self.timeout_of(meta)})

    async def shown(self, table: Table, meta: TableMeta | None = None) -> TableMeta:
        """``meta`` with what the facts of presence say of its decision folded in: its
        deadline (:meth:`started`), and the turn prompts delivered to awaited players,
        open (kept from here on in ``prompts``, edited and closed by the next steps)."""
        meta = await self.started(table, meta)
        awaited = table.sight.view().awaiting
        if not any(p not in meta.prompts and p not in meta.dm_blocked for p in awaited):
            return meta
        delivered = {f.player: OpenPrompt(message_id=f.message_id, decision=meta.decision,
                                          digest=f.digest or "")
                     for f in await self.presence(table, meta.decision)
                     if f.channel == PROMPT and f.message_id is not None
                     and f.player in awaited and f.player not in meta.prompts
                     and f.player not in meta.dm_blocked}
        if not delivered:
            return meta
        return meta.model_copy(update={"prompts": {**meta.prompts, **delivered}})

    def told_elsewhere(self, chat_id: int, meta: TableMeta, sight: Sight) -> frozenset[int]:
        """The awaited players who see their turn away from the group: in their private
        chat (:meth:`prompted`) or, in a table played in the Mini App, on their open page.
        The group's card need show none of them his turn."""
        prompted = self.prompted(meta, sight)
        if not self.in_app(meta):
            return prompted
        return prompted | {p for p in sight.view().awaiting if self.watching(chat_id, p)}

    def prompted(self, meta: TableMeta, sight: Sight) -> frozenset[int]:
        """The awaited players who get their turn in their private chat: all who have one
        with the bot, unless the table turned turn DMs off (a private step's decision goes
        there anyway; a table played in the Mini App never does). A player without one
        (``dm_blocked``) learns his turn from the group's table, app mode or not: that is
        the fallback of :func:`bot.view.screens.table_render` (``app``)."""
        awaited = sight.view().awaiting
        if not self.prompts_in_private(meta) and not sight.private:
            return frozenset()
        return frozenset(p for p in awaited if p not in meta.dm_blocked)

    def page_shows(self, chat_id: int, meta: TableMeta, prompted: frozenset[int]
                   ) -> frozenset[int]:
        """Those of ``prompted`` (the awaited players who get ``meta.decision`` in private)
        whose page of a table played in the Mini App is open on this worker: it shows them
        their turn, live, and a prompt would be one more message for nothing. They are kept
        in ``meta.on_page`` (the record being committed, changed here), so that a page that
        closes before its turn is taken brings the prompt, whichever worker hears it close
        (:meth:`bot.table.lifecycle.Lifecycle.page_closed`). Another worker's pages are not
        known here: their players get their prompts (one too many, never one too few)."""
        kept = {p: d for p, d in meta.on_page.items() if d == meta.decision}
        if not self.in_app(meta):
            shown: frozenset[int] = frozenset()
        else:
            shown = frozenset(p for p in prompted if self.watching(chat_id, p))
            kept.update(dict.fromkeys(shown, meta.decision))
        if kept != meta.on_page:
            meta.on_page = kept
        return shown

    @staticmethod
    def prompt_owed(meta: TableMeta, player: int) -> bool:
        """Whether ``player``'s prompt of the current decision was left to his page
        (:meth:`page_shows`) and is owed now (the caller commits ``meta.on_page`` without
        him once it is asked)."""
        return meta.on_page.get(player) == meta.decision

    def schedule(self, chat_id: int, version: int, deadline: float | None) -> None:
        """The table's deadline is now ``deadline`` (None: it has none)."""
        self.deadlines.schedule(chat_id, version, deadline, self.on_deadline)

    def stepped(self, chat_id: int, version: int, deadline: float | None,
                meta: TableMeta) -> None:
        """A step was committed with ``deadline``: it runs unless the table is paused (a
        decision whose clock has not started has none: it starts from the facts of
        presence, :meth:`turn_seen`). A decision begun by this step has no facts yet: kept
        as none, when this process is the only one appending them (no read to learn it)."""
        if meta.decision == version and not self.shared:
            self.facts[chat_id] = ((meta.opened, version), [])
        if not meta.paused:
            self.schedule(chat_id, version, deadline)

    async def turn_seen(self, chat_id: int, decision: int, players: Sequence[int],
                        channel: str, shown: float | None = None,
                        prompt: SeenPrompt | None = None) -> None:
        """``players`` have been shown decision ``decision`` on ``channel`` (their DM prompt,
        or the group's table message, was delivered; their open page showed it): the facts
        are appended, and nothing is committed. Once every awaited player's turn was shown
        the decision's clock starts: its deadline is scheduled, and the table's screens are
        told (the group's table message only if it was drawn with another deadline than the
        real one: ``shown``, its deadline as drawn, see
        :meth:`bot.table.lifecycle.Lifecycle.current_render`).
        ``prompt``: the one player's turn prompt was delivered as this message: a fact with
        the table (its next commit keeps it open, and edits or closes it); if the table
        moved on since it was drawn, it is brought up to date, or closed if its decision is
        gone, at once (a commit: what it sends is durable)."""
        at = self.now()
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            if prompt is not None and (table.meta.decision != decision
                                       or prompt.version != table.state.version):
                await self._prompt_moved(table, decision, players[0], prompt)
            if table.meta.decision != decision:
                return
            if prompt is None:  # a showing told already says nothing new (the first counts)
                known = {(f.player, f.channel) for f in await self.presence(table, decision)}
                players = [p for p in players if (p, channel) not in known]
                if not players:
                    return
            facts = [Shown(player=p, channel=channel, shown_at=at,
                           message_id=prompt.message_id if prompt is not None else None,
                           digest=prompt.digest if prompt is not None else None)
                     for p in players]
            before = await self.started(table)
            await self._append(table, decision, facts)
            if before.due is not None or table.meta.paused:
                return
            meta = await self.started(table)
            real = self.due_of(meta)
            if real is None:
                return
            await self.deadlines.started(chat_id, decision, table.state.version, real,
                                         self.on_deadline)
        # drawn to within half a second before the deadline (never after it): the table
        # message stays; the date-time entity shows whole seconds anyway
        drawn = shown is not None and 0 <= real - shown < SHOWN_SLACK
        await self.tables.publish(chat_id, False, redraw=not drawn, meta=meta)

    async def _prompt_moved(self, table: Table, decision: int, player: int,
                            seen: SeenPrompt) -> None:
        """A turn prompt delivered after the table moved on since it was drawn: edited at
        once while its decision is open, closed if its decision is gone; committed."""
        message_id, digest, _ = seen
        languages = self.tables.languages
        lang = await languages.of_player(player, await languages.of(table.chat_id))
        meta, sight = await self.started(table), table.sight
        drafts: list[OutboxDraft]
        if meta.decision == decision and player in sight.view().awaiting:
            # drawn as its step drew it: the time left as from now until the clock starts
            now = screens.prompt(lang, table.scene(player, self.drawn_due(meta), meta=meta),
                                 app=self.app_url(table.chat_id))
            prompts = {**meta.prompts, player: OpenPrompt(
                message_id=message_id, decision=decision, digest=now.digest)}
            meta = meta.model_copy(update={"prompts": prompts})
            drafts = [] if now.digest == digest else [
                payloads.prompt_edit(player, message_id, now)]
        else:
            drafts = [sends.closed_prompt(lang, table.chat_id, sight, player, message_id,
                                          meta.coup_log, meta.names,
                                          i18n.t(lang, "prompt_over"))]
        try:
            await self.tables.commit(table, meta=meta, outbox=drafts, redraw=False)
        except StorageError:
            log.warning("the prompt of chat %s was not brought up to date", table.chat_id)

    async def on_deadline(self, chat_id: int, version: int) -> None:
        """The deadline of step ``version`` passed: apply the engine's safe defaults."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            if not table.engine.awaiting(table.state):
                # nobody's decision (every player stood up, or the table waits for
                # players): a clock stored for it has nothing to time out
                await self.deadlines.dropped(chat_id, table.meta.decision)
                return
            due = await self.due(table)
            if table.state.version != version or due is None or table.meta.paused:
                return
            if due > self.now() + 0.05:
                self.schedule(chat_id, version, due)
                return
            awaited = table.engine.awaiting(table.state)
            if not awaited:
                return
            step = table.engine.timeout(table.state)
            try:
                meta = await self.tables.commit(table, step, timed_out=awaited)
            except (StaleVersion, InsufficientFunds, TableNotFound):  # closed: bot.admin
                log.warning("timeout step of chat %s not committed", chat_id)
                return
            log.info("chat %s: step %s timed out", chat_id, version)
        if self.idle_due(meta):  # nobody plays here any more: the table closes (its own lock)
            await self.on_idle(chat_id)


async def _nothing(chat_id: int) -> None:
    """No lifecycle to close an idle table with (a clock on its own, in tests)."""

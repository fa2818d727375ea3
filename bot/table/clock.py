"""The decision clock: when an awaited player's time runs out, and what happens then.

A decision's clock starts only once every awaited player has been shown it (his turn
prompt, or the group's table message, delivered; or the Mini App's page, open, showed it:
:meth:`bot.table.lifecycle.Lifecycle.turn_shown`; all of them :meth:`Clock.turn_seen`), and
never runs out before a resume's grace ends. When it does, the engine's safe defaults are committed
(:meth:`Clock.on_deadline`). Every committed step's deadline is stored with it and
scheduled here (:meth:`bot.table.tables.Tables.commit` asks the clock for it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.outbox import payloads
from bot.outbox.kinds import SeenPrompt
from bot.table import sends
from bot.table.deadlines import Deadlines
from bot.table.languages import Languages
from bot.table.record import OpenPrompt, Table, TableMeta
from bot.view import i18n, screens
from bot.view.applink import AppLinks
from bot.view.sight import Sight
from games.engine import GameState, Step
from storage.base import InsufficientFunds, OutboxDraft, StaleVersion, StorageError, TableNotFound


class Committing(Protocol):
    """What the clock needs of the tables (:class:`bot.table.tables.Tables`, which owns the
    clock): a chat's table under its lock, and the one commit path a timeout goes through."""

    languages: Languages

    def locked(self, chat_id: int) -> AbstractAsyncContextManager[Table | None]:
        """The chat's table as committed (None: no table), under the chat's lock."""
        ...

    async def commit(self, table: Table, step: Step[Any] | None = None, *,
                     meta: TableMeta | None = None, outbox: Sequence[OutboxDraft] = (),
                     timed_out: Sequence[int] = (), redraw: bool = True) -> TableMeta:
        """Commit a step (or a change of the record) with what it must send."""
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
                 links: AppLinks | None = None, idle_close: int = IDLE_CLOSE) -> None:
        self.tables = tables
        self.deadlines = deadlines
        self.decision_timeout = decision_timeout
        self.turn_dms = turn_dms
        self.idle_close = idle_close
        self.now = now
        # the Mini App's links when the bot has one (WEBAPP_URL and WEBAPP_SHORT_NAME)
        self.links = links
        # whether a player has the table's Mini App open on this worker (its server says):
        # his page shows him his turn, as a private prompt would
        self.watching: Callable[[int, int], bool] = lambda chat_id, player: False
        # per chat: the decision being shown, and the awaited players it was shown to
        self.seen: dict[int, tuple[int, set[int]]] = {}
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

    def due(self, table: Table) -> float | None:
        """When the table's deadline really falls (None: nobody is awaited, or the turn is
        not visible yet to every awaited player)."""
        if not table.engine.awaiting(table.state):
            return None
        return self.due_of(table.meta)

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
        """A step was committed with ``deadline``: it runs unless the table is paused, and
        a decision whose clock has not started waits to be shown anew."""
        if not meta.paused:
            self.schedule(chat_id, version, deadline)
        if meta.due is None:
            self.seen.pop(chat_id, None)

    async def turn_seen(self, chat_id: int, decision: int, players: Sequence[int],
                        shown: float | None = None,
                        prompt: SeenPrompt | None = None) -> None:
        """``players`` have been shown decision ``decision`` (their DM prompt, or the group's
        table message, was delivered): once every awaited player has, its clock starts.
        ``shown``: the group's table message was delivered counting down to this deadline
        (drawn as from its drawing, see :meth:`bot.table.lifecycle.Lifecycle.current_render`).
        ``prompt``: the one player's turn prompt was delivered as this message, showing
        this digest: it is kept open (and brought up to date if the table moved on
        meanwhile), or closed at once if its decision is already gone."""
        seen_decision, seen = self.seen.get(chat_id, (None, set()))
        if seen_decision != decision:
            seen = set()
        seen |= set(players)
        self.seen[chat_id] = (decision, seen)
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            meta = table.meta
            awaited = set(table.engine.awaiting(table.state))
            start = not (meta.decision != decision or meta.due is not None or meta.paused
                         or not awaited or not awaited <= seen)
            if start:
                meta = meta.model_copy(update={"due": self.now() + self.timeout_of(meta)})
            outbox: list[OutboxDraft] = []
            if prompt is not None and len(players) == 1:
                meta, outbox = await self._prompt_seen(table, meta, decision, players[0],
                                                       prompt)
            if not start and not outbox and meta is table.meta:
                return
            real = self.due_of(meta)
            # drawn to within half a second before the deadline (never after it): the
            # table message stays; the date-time entity shows whole seconds anyway
            drawn = shown is not None and real is not None and 0 <= real - shown < SHOWN_SLACK
            try:
                await self.tables.commit(table, meta=meta, outbox=outbox,
                                         redraw=start and not drawn)
            except StorageError:
                log.warning("the clock of chat %s was not started", chat_id)
                return
            if start:
                self.schedule(chat_id, table.state.version, real)

    async def _prompt_seen(self, table: Table, meta: TableMeta, decision: int, player: int,
                           seen: SeenPrompt) -> tuple[TableMeta, list[OutboxDraft]]:
        """A delivered turn prompt: open while its decision is, edited at once if the table
        moved on since it was drawn; closed if its decision is gone already."""
        message_id, digest, version = seen
        languages = self.tables.languages
        lang = await languages.of_player(player, await languages.of(table.chat_id))
        sight = table.sight
        if meta.decision == decision and version == table.state.version:
            # the table has not moved since the prompt was drawn: it shows what it would
            # show drawn now (what happened to him included), and stays as delivered
            prompts = {**meta.prompts, player: OpenPrompt(
                message_id=message_id, decision=decision, digest=digest)}
            return meta.model_copy(update={"prompts": prompts}), []
        if meta.decision == decision and player in sight.view().awaiting:
            # drawn as its step drew it: the time left as from now until the clock starts
            now = screens.prompt(lang, table.scene(player, self.drawn_due(meta), meta=meta),
                                 app=self.app_url(table.chat_id))
            prompts = {**meta.prompts, player: OpenPrompt(
                message_id=message_id, decision=decision, digest=now.digest)}
            meta = meta.model_copy(update={"prompts": prompts})
            return meta, [] if now.digest == digest else [
                payloads.prompt_edit(player, message_id, now)]
        return meta, [sends.closed_prompt(lang, table.chat_id, sight, player, message_id,
                                          meta.coup_log, meta.names,
                                          i18n.t(lang, "prompt_over"))]

    async def on_deadline(self, chat_id: int, version: int) -> None:
        """The deadline of step ``version`` passed: apply the engine's safe defaults."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            due = self.due(table)
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

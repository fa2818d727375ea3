"""A table's life: open, repost, settings, language, /verify, pause and resume, close.

The commands of a chat's table and what the courier reports of its delivery (the group
refuses the bot, a player does, the table message is gone, a turn was shown): each a
change committed through :meth:`bot.table.tables.Tables.commit` under the chat's lock,
or, opening and closing, a row created or closed with what it must send.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from telegram.helpers import create_deep_linked_url

from bot.outbox import payloads
from bot.outbox.reports import (
    PAGE,
    DmBlocked,
    GroupLost,
    Report,
    Reports,
    TableMissing,
    TurnShown,
    Unpublished,
)
from bot.table import sends, table_settings
from bot.table.liveness import Liveness
from bot.table.plan import holders_of
from bot.table.record import Table, TableMeta, load
from bot.table.tables import Tables
from bot.view import i18n, proofs, screens
from games import registry
from games.engine import IllegalAction
from storage.base import OutboxDraft, StorageError, TableExists

log = logging.getLogger(__name__)

RESUME_LEFT = 30.0
"""Seconds an awaited player has at least, after the bot was down, before his turn's safe
default applies (:meth:`Lifecycle.resume_all`)."""


class Lifecycle:
    """Every chat's table as the commands and the courier see it: opened, shown, set,
    verified, paused and resumed, closed."""

    def __init__(self, tables: Tables, reports: Reports,
                 liveness: Liveness | None = None) -> None:
        self.tables = tables
        # what the courier reports of its deliveries, heard in a task of this service's
        self.reports = reports
        self.hearing: asyncio.Task[None] | None = None
        self.acting: set[asyncio.Task[None]] = set()
        self.clock = tables.clock
        self.clock.on_idle = self.close_idle
        # this process's alive marks, which tell a start after downtime (None: not kept)
        self.liveness = liveness

    async def open_table(self, chat_id: int, game: str, user_id: int,
                         language_code: str | None,
                         settings: dict[str, Any] | None = None) -> str | None:
        """Open a table of ``game``; returns a refusal text or None."""
        tables = self.tables
        lang = await tables.languages.of(chat_id, language_code)
        if game not in registry.GAMES:
            return i18n.t(lang, "unknown_game", games=", ".join(registry.GAMES))
        engine = registry.engine(game)
        async with tables.lock(chat_id):
            # the chat's defaults for its next tables (/settings default), under /newtable's
            wanted, host = table_settings.for_new_table(
                await tables.storage.chat_settings(chat_id=chat_id), game, dict(settings or {}))
            try:
                state = engine.new_table(dict(wanted))
            except (ValueError, TypeError, IllegalAction) as exc:
                return i18n.t(lang, "settings_bad", error=type(exc).__name__)
            meta = TableMeta(opener=user_id, msg_coup=state.coup, opened=tables.clock.now(),
                             **host)
            try:
                rec = await tables.storage.create_table(
                    chat_id=chat_id, game=game, settings=wanted,
                    state_json=state.model_dump_json(), version=state.version,
                    meta_json=meta.stored(), outbox=[payloads.table_post(chat_id)])
            except TableExists:
                tables.forget(chat_id)
                rec = await tables.storage.load_table(chat_id=chat_id)
                return i18n.t(lang, "table_exists", game=i18n.game_name(lang, rec.game))
            tables.tables[chat_id] = Table(rec, meta, engine, state)
        await tables.publish(chat_id)  # its first post; open pages of the chat show the new table
        return None

    async def open_game(self, chat_id: int) -> str | None:
        """The game of the chat's open table; None without one."""
        table = await self.tables.find(chat_id)
        return table.game if table is not None else None

    async def repost(self, chat_id: int) -> bool:
        """/table: post the table message again at the bottom of the chat."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return False
            await self.tables.commit(table, outbox=[payloads.table_post(chat_id, asked=True)])
        return True

    async def set_language(self, chat_id: int, lang: str) -> None:
        """/language: the chat's language; the table is drawn again in it."""
        await self.tables.languages.choose(chat_id, lang)
        await self.republish(chat_id)

    async def republish(self, chat_id: int) -> None:
        """The chat's table as stored, published anew for the courier (nothing committed:
        the same version, drawn as it is now; the courier is rung to read its outbox)."""
        await self.tables.find(chat_id)  # held by this process from here on, or None
        await self.tables.publish(chat_id, news=False)

    async def settings(self, chat_id: int, key: str | None, value: str | None) -> str:
        """/settings [KEY VALUE]: show, or change one setting of the open table
        (:func:`bot.table.table_settings.change`)."""
        return await table_settings.change(self.tables, chat_id, key, value)

    async def set_default(self, chat_id: int, key: str | None, value: str | None,
                          game: str | None = None) -> str:
        """/settings default [GAME] KEY [VALUE]: the chat's default for its next tables
        (:func:`bot.table.table_settings.set_default`)."""
        return await table_settings.set_default(self.tables, chat_id, key, value, game)

    async def close_idle(self, chat_id: int) -> None:
        """The clock found the table unplayed for as many decisions as closes it
        (docs/rules.md §0.12): it closes as with /closetable, its closing text saying why.
        Another write in between (a player acted) leaves it open: nothing happened."""
        try:
            await self.close_table(chat_id, idle=True)
        except StorageError:
            log.warning("the idle table of chat %s was not closed", chat_id)

    async def close_table(self, chat_id: int, idle: bool = False) -> str | None:
        """/closetable: the game voids its coup, every table chip goes back to a wallet; the
        closing text is posted at the bottom of the chat and the table message retires.
        ``idle``: the table closes itself, nobody having acted for ``idle_close`` decisions
        (checked again under the lock: a player who acted meanwhile keeps it open).
        Returns a refusal text or None."""
        tables = self.tables
        lang = await tables.languages.of(chat_id)
        async with tables.locked(chat_id) as table:
            if table is None:
                return i18n.t(lang, "no_table")
            if idle and not self.clock.idle_due(table.meta):
                return None
            step = table.engine.close(table.state)
            names = dict(table.meta.names)
            closed = []  # every open turn prompt says the table is closed, without buttons
            for player, open_prompt in (await self.clock.shown(table)).prompts.items():
                mine = await tables.languages.of_player(player, lang)
                closed.append(sends.closed_prompt(
                    mine, chat_id, table.sight, player, open_prompt.message_id,
                    table.meta.coup_log, names, i18n.t(mine, "prompt_closed")))
            for player, shown in table.meta.ephemerals.items():  # and every view in the group
                mine = await tables.languages.of_player(player, lang)
                closed += sends.ephemeral_closed(mine, chat_id, sends.Moment.of(table), player,
                                                 shown.message_id, i18n.t(mine, "prompt_closed"))
            text = screens.closing_text(lang, step.events, names)
            if idle:
                text = "\n\n".join((i18n.t(lang, "closed_idle",
                                            n=self.clock.idle_limit(table.meta)), text))
            await tables.storage.close_table(
                chat_id=chat_id, expected_version=table.state.version,
                transfers=step.transfers, coup=table.state.coup,
                holders=holders_of(table.sight, step.transfers),
                outbox=[payloads.closing(chat_id, text, table.state.coup, table.state.version),
                        *closed])
            self.clock.deadlines.cancel(chat_id)
            tables.forget(chat_id)
        await tables.publish(chat_id)  # its closing post; every open page, on every worker, too
        return None

    async def verify(self, chat_id: int, user_id: int | None = None, name: str = "") -> str:
        """/verify: the current commitment and the last revealed shoe, with how to check; and
        to the asker (``user_id``), in his private chat, the proof of his own cards of his
        latest poker hand, if he has one."""
        tables = self.tables
        lang = await tables.languages.of(chat_id)
        table = await tables.find(chat_id)
        if table is None:
            return i18n.t(lang, "no_table")
        yours = table.meta.proofs.get(user_id) if user_id is not None else None
        if user_id is not None and yours is not None:
            mine = await tables.languages.of_player(user_id, lang)
            async with tables.locked(chat_id) as table:
                if table is None:
                    return i18n.t(lang, "no_table")
                yours = table.meta.proofs.get(user_id)
                if yours is not None:
                    await tables.commit(table, outbox=[payloads.dm_message(
                        user_id, proofs.your_proof_text(mine, yours.hand, yours.record))],
                        redraw=False)
        text = proofs.verify_text(lang, table.sight.view().shoe, table.meta.names,
                                  proofs.Revealed.kept(table.meta.revealed))
        if yours is not None:
            return proofs.proof_sent_text(lang, name, yours.hand, text)
        return text

    async def resume_all(self) -> int:
        """At start-up: reschedule every open table's deadline and redraw its message. When
        no process ran for a while (:class:`bot.table.liveness.Liveness`), a decision whose
        clock ran gets back the time it had left then, :data:`RESUME_LEFT` at least, shown
        anew on every screen (:meth:`_time_back`): the bot's downtime is not his."""
        down_since = await self.liveness.start() if self.liveness is not None else None
        records = await self.tables.storage.open_tables()
        for rec in records:
            table = load(rec)
            if down_since is not None and not table.meta.paused:
                table = await self._time_back(table, down_since)
                # no page stayed open while no process ran: a turn one showed (its prompt
                # left to it) goes to its player's private chat, as when he closes the page
                for player in list(table.meta.on_page):
                    await self.page_closed(rec.chat_id, player)
            if not table.meta.paused:  # a clock started since the last commit: by the facts
                self.clock.schedule(rec.chat_id, table.state.version,
                                    await self.clock.due(table))
            await self.republish(rec.chat_id)  # its message redrawn, its outbox sent
        return len(records)

    async def _time_back(self, table: Table, down_since: float) -> Table:
        """The bot was down since ``down_since``: the decision under way keeps, from now, the
        time it had left then (:data:`RESUME_LEFT` at least) through the record's
        ``grace_until``; its open turn prompts are redrawn with it (the table message and
        the pages draw it anyway). Returns the table as it is now."""
        tables, clock = self.tables, self.clock
        chat_id = table.chat_id
        async with tables.locked(chat_id) as now:
            if now is None:
                return table
            table = now
            due = await clock.due(table)
            if due is None or table.meta.paused:
                return table
            grace = clock.now() + max(due - down_since, RESUME_LEFT)
            if grace < due + 1.0:
                return table  # down for a moment: nothing worth a commit
            meta = (await clock.shown(table)).model_copy(update={"grace_until": grace})
            meta, drafts = await self._prompts_redrawn(table, meta)
            try:
                await tables.commit(table, meta=meta, outbox=drafts)
            except StorageError:
                log.warning("chat %s: the time lost while down was not given back", chat_id)
                return table
            log.info("chat %s: the decision's time lost while down given back (%.0f s left)",
                     chat_id, grace - clock.now())
            return tables.tables[chat_id]

    async def _prompts_redrawn(self, table: Table, meta: TableMeta
                               ) -> tuple[TableMeta, list[OutboxDraft]]:
        """The open turn prompts of the decision under way as ``meta`` draws them: an edit of
        each (its deadline moved; a digest leaves the time left out)."""
        languages, clock = self.tables.languages, self.clock
        group = await languages.of(table.chat_id)
        prompts = dict(meta.prompts)
        drafts: list[OutboxDraft] = []
        awaited = table.sight.view().awaiting
        for player, shown in meta.prompts.items():
            if shown.decision != meta.decision or player not in awaited:
                continue
            lang = await languages.of_player(player, group)
            now = screens.prompt(lang, table.scene(player, clock.drawn_due(meta), meta=meta),
                                 app=clock.app_url(table.chat_id))
            prompts[player] = shown.model_copy(update={"digest": now.digest})
            drafts.append(payloads.prompt_edit(player, shown.message_id, now))
        return meta.model_copy(update={"prompts": prompts}), drafts

    async def stop(self) -> None:
        """This process stops running the tables' clocks (its deadlines stopped): its last
        alive mark (:meth:`bot.table.liveness.Liveness.stop`)."""
        if self.hearing is not None:
            self.hearing.cancel()
            await asyncio.gather(self.hearing, return_exceptions=True)
            self.hearing = None
        if self.liveness is not None:
            await self.liveness.stop()

    # ----------------------------------------------------------- what the courier reports

    def start(self) -> None:
        """Hear the courier's reports (:meth:`hear`) from now until :meth:`stop`."""
        if self.hearing is None:
            self.hearing = asyncio.get_running_loop().create_task(self.hear())

    async def hear(self) -> None:
        """Act on each of the courier's reports (:mod:`bot.outbox.reports`) in a task of its
        own, as they come: the courier never waits for the table service."""
        reports = self.reports
        while True:
            report = await reports.next()
            task = asyncio.get_running_loop().create_task(self._heard(report))
            self.acting.add(task)
            task.add_done_callback(self._acted)

    def _acted(self, task: asyncio.Task[None]) -> None:
        self.acting.discard(task)
        self.reports.done()

    async def _heard(self, report: Report) -> None:
        """What a delivery teaches the table, committed or published under the chat's lock."""
        try:
            match report:
                case TurnShown():
                    await self.clock.turn_seen(report.chat_id, report.decision, report.players,
                                               report.channel, report.drawn, report.prompt)
                case GroupLost():
                    await self.group_lost(report.chat_id)
                case DmBlocked():
                    await self.dm_blocked(report.chat_id, report.user_id)
                case TableMissing():
                    await self.repost(report.chat_id)
                case Unpublished():
                    await self.republish(report.chat_id)
        except Exception:  # a turn's clock then starts with the group's table, a post is
            # asked for again by the next delivery: nothing of a commit is lost
            log.exception("chat %s: %s not acted on", report.chat_id, type(report).__name__)

    async def turn_shown(self, chat_id: int, decision: int, players: Sequence[int]) -> None:
        """The Mini App showed ``players`` their turn: the app's server calls this once it
        has pushed to their open pages a snapshot whose ``decision`` is ``decision`` and whose
        ``awaiting`` names them (docs/webapp.md). It is the same news as a turn prompt's
        delivery in a private chat, and goes the same way: a fact of presence each
        (:meth:`bot.table.clock.Clock.turn_seen`); once every awaited player's turn was shown
        the decision's clock starts; a decision that is no longer current is ignored."""
        await self.clock.turn_seen(chat_id, decision, players, PAGE)

    def page_opened(self, chat_id: int, player: int) -> None:
        """``player`` opened the table's page on this worker: it shows him his turns live,
        and a step leaves his turn prompt to it (:meth:`bot.table.clock.Clock.page_shows`)."""
        self.clock.page_opened(chat_id, player)

    async def page_closed(self, chat_id: int, player: int) -> None:
        """``player``'s last page of the table closed on this worker. If it was showing him a
        turn whose prompt it stood in for (:meth:`bot.table.clock.Clock.page_shows`, kept in
        the record: the page may have been opened on a worker since gone), the prompt goes to
        his private chat now; and the group's table is looked at again (a player without a
        private chat finds his turn there)."""
        self.clock.page_gone(chat_id, player)
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            clock = self.clock
            meta = await clock.shown(table)
            if clock.prompt_owed(meta, player):
                drafts = []
                if (not meta.paused and player in table.sight.view().awaiting
                        and player not in meta.prompts and player not in meta.dm_blocked):
                    languages = self.tables.languages
                    lang = await languages.of_player(player, await languages.of(chat_id))
                    drafts = sends.direct_messages(
                        {player: lang}, chat_id, table.sight, [], meta.names,
                        frozenset({player}), meta.decision, meta.coup_log,
                        clock.drawn_due(meta), app=clock.app_url(chat_id),
                        last=meta.last_result)
                owed = {p: d for p, d in meta.on_page.items() if p != player}
                try:
                    await self.tables.commit(table, meta=meta.model_copy(
                        update={"on_page": owed}), outbox=drafts, redraw=False)
                except StorageError:
                    log.warning("the prompt of chat %s was not drafted", chat_id)
                if drafts:
                    return
            # a player who sees his turn nowhere else finds it on the group's table again
            await self.tables.publish(chat_id, False, news=False)

    async def group_lost(self, chat_id: int) -> None:
        """The group refuses the bot (kicked, blocked): the table pauses, no deadline runs,
        and what it must send waits in the outbox until the bot is back."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            if table.meta.paused:
                return
            self.clock.deadlines.cancel(chat_id)
            await self.tables.commit(table, meta=table.meta.model_copy(update={"paused": True}))
        log.warning("chat %s refuses the bot: its table pauses", chat_id)

    async def group_back(self, chat_id: int) -> None:
        """The bot is back in the group: the table resumes; whoever is awaited gets a whole
        decision time from now."""
        tables = self.tables
        async with tables.locked(chat_id) as table:
            if table is None:
                return
            if not table.meta.paused:
                return
            lang = await tables.languages.of(chat_id)
            grace = self.clock.now() + self.clock.timeout_of(table.meta)
            meta = table.meta.model_copy(update={"paused": False, "grace_until": grace})
            await tables.commit(table, meta=meta, outbox=[
                payloads.group_message(chat_id, i18n.t(lang, "table_resumed")),
                payloads.table_post(chat_id)])
            # a clock already running restarts from the grace; one not started yet starts
            # when the reposted table is shown
            self.clock.schedule(chat_id, table.state.version,
                                await self.clock.due(tables.tables[chat_id]))

    async def dm_blocked(self, chat_id: int, user_id: int) -> None:
        """The bot may not write to ``user_id``: offer the deep link once per table."""
        tables = self.tables
        async with tables.locked(chat_id) as table:
            if table is None:
                return
            if user_id in table.meta.dm_blocked:
                return
            lang = await tables.languages.of(chat_id)
            link = create_deep_linked_url(tables.bot_username,
                                          screens.deep_link_payload(chat_id))
            name = table.meta.names.get(user_id, str(user_id))
            meta = table.meta.model_copy(update={"dm_blocked": [*table.meta.dm_blocked,
                                                                user_id]})
            await tables.commit(table, meta=meta, outbox=[payloads.group_message(
                chat_id, i18n.t(lang, "dm_blocked", name=name, link=link))])

    async def table_missing(self, chat_id: int) -> None:
        """The live table message is gone (deleted, replaced by a result): post it anew."""
        await self.repost(chat_id)


"""The group's table message kept up: posted anew, edited to the table as it is (when the
group's budget allows, :mod:`bot.outbox.pace`), made into a coup's result, retired under a
closing text, pinned. The courier (:mod:`bot.outbox.courier`) delivers the outbox in order
and hands the table's items and edits here; what every post of the bot's in the group owes
(the newest id known, the twins of posts of unknown outcome) is :mod:`bot.outbox.group_posts`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from telegram import Bot
from telegram.error import RetryAfter, TelegramError

from bot.ops import metrics
from bot.ops.hooks import Hooks
from bot.outbox.feed import Feed, Published
from bot.outbox.group_posts import GroupPosts
from bot.outbox.kinds import TABLE
from bot.outbox.pace import HELD, Pace
from bot.outbox.payloads import Closing, CoupResult, TablePost
from bot.outbox.reports import GROUP, Reports, TableMissing, TurnShown, Unpublished
from bot.outbox.telegram import BotApi, Lost, Refused, Unanswered, markup_param
from bot.view.screens import TableScreen
from storage.base import OutboxItem, Storage

if TYPE_CHECKING:
    from bot.outbox.courier import Doorbell

log = logging.getLogger(__name__)


class Revisions(Protocol):
    """Whether a table's revision is the committed one, where several workers commit
    (:class:`bot.workers.coordination.ChatLocks`)."""

    async def current(self, chat_id: int, rev: int | None) -> bool:
        """Whether the chat's table at ``rev`` is the committed one."""
        ...


class NotPublished(Exception):
    """The chat's table has no publication here yet: the courier waits for it (asked for
    with :class:`bot.outbox.reports.Unpublished`; its ring brings the worker back)."""


class TableMessage(GroupPosts):
    """Every chat's table message, drawn as the chat's table was last published
    (``feed``), for the courier that delivers the chat (``delivers``) until it stops
    (``stopping``); what a delivery teaches the table goes on ``reports``."""

    def __init__(self, bot: Bot, api: BotApi, storage: Storage, doorbell: Doorbell,
                 feed: Feed, reports: Reports, pace: Pace, hooks: Hooks,
                 delivers: Callable[[int], bool], stopping: Callable[[], bool],
                 revisions: Revisions | None = None) -> None:
        super().__init__(api, storage, pace)
        self.bot, self.doorbell, self.hooks = bot, doorbell, hooks
        self.feed, self.reports = feed, reports
        # with several workers: whether a publication is still the table as committed
        self.revisions = revisions
        self._delivers = delivers
        self._stopping = stopping

    @property
    def stopping(self) -> bool:
        """Whether the courier is stopping: no look at the table later."""
        return self._stopping()

    def regained(self, chat_id: int) -> None:
        """The bot is back in the group: its table message is read anew, and whether it may
        pin asked again (its rights may have changed)."""
        chat = self._chat(chat_id)
        chat.table_known = False
        chat.can_pin = None

    def take_over(self, chat_id: int) -> None:
        """This process delivers the chat from now: what the chat shows is read anew, and
        its table as published (another worker's commits may be newer)."""
        self.feed.forget(chat_id)
        chat = self._chat(chat_id)
        chat.table_known = False
        chat.shown = None
        chat.newest = None
        chat.twins = True  # a dead worker may have left a post of unknown outcome

    async def skip(self, item: OutboxItem) -> None:
        """A table post a later one makes needless (that one shows the table as it is then):
        done unsent. One attempted keeps its floor: the later post resolves its twin."""
        self._chat(item.chat_id).twins |= item.attempts > 0
        await self.storage.finish_outbox(item_id=item.id)

    def stop(self) -> None:
        """The courier stops: the looks at the tables later are off."""
        for chat in self.chats.values():
            if chat.later is not None:
                chat.later.cancel()

    async def settle(self, item: OutboxItem, payload: CoupResult) -> None:
        """The coup's result replaces the table message (an edit: safe to repeat), its link kept."""
        chat = self._chat(item.chat_id)
        text = payload.text
        table = (await self.published(item.chat_id)).screen()
        opener = table.opener.as_json() if table is not None and table.opener else None
        message_id = await self._table_id(item.chat_id)
        if message_id is not None and await self._edit(item.chat_id, message_id, text, opener):
            metrics.sent(metrics.SETTLEMENT)
            chat.table_is(None)  # that message is the result now
            chat.shown = None
            self.pace.sent(item.chat_id)
            await self.storage.finish_outbox(item_id=item.id, message_id=message_id)
            await self.storage.retire_sent(chat_id=item.chat_id, message_ids=[message_id])
            return
        message_id = await self.send(item.chat_id, text, opener, kind=metrics.SETTLEMENT)
        self.pace.sent(item.chat_id)
        await self.storage.finish_outbox(item_id=item.id, message_id=message_id)

    async def close(self, item: OutboxItem, payload: Closing) -> None:
        """A closed table's closing text goes to the bottom of the chat, where whoever closed
        it looks (the live table message may be far up), exactly once, and the table
        message retires to its header and a pointer down. The post is made until Telegram
        answers it. An attempt whose answer was lost (or that a crash cut short) may have
        posted all the same: the post carries a keyboard of its own
        (:func:`bot.outbox.payloads.closing`), by which such a post is found among the chat's
        messages after the newest one known (:meth:`GroupPosts._find_post`); found, it is the post,
        and no second one is made. Once the post is known, its keyboard goes."""
        chat_id = item.chat_id
        chat = self._chat(chat_id)
        text = payload.text
        tag = markup_param(payload.markup)
        table_id = await self._table_id(chat_id)
        shown = chat.shown.text if chat.shown is not None else None
        before = await self._newest_known(chat_id) or 0
        # counted before the send: an attempt a crash cut short may have posted already
        earlier_attempts = await self.storage.outbox_attempt(item_id=item.id) - 1
        posted = await self._find_post(chat_id, before, tag) if earlier_attempts else None
        delay = 0.5
        while posted is None:
            try:
                posted = await self.send(chat_id, text, tag, kind=metrics.SETTLEMENT,
                                          once=True)
                if posted is None and tag is not None:  # refused with its keyboard: plain
                    tag = None
                    posted = await self.send(chat_id, text, None, kind=metrics.SETTLEMENT)
                break
            except Unanswered:
                posted = await self._find_post(chat_id, before, tag)
                if posted is None:
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 20.0)
            except Lost:
                await self.storage.outbox_attempt(item_id=item.id, undo=True)
                raise
        if posted is not None and tag is not None:
            with contextlib.suppress(Refused):  # the post is known: its keyboard goes
                await self.api.request("editMessageReplyMarkup", chat_id=chat_id,
                                       message_id=posted)
        await self.storage.finish_outbox(item_id=item.id, message_id=posted)
        self.pace.sent(chat_id)
        chat.table_is(None)
        chat.shown = None
        if posted is not None:  # a twin of a table post of unknown outcome goes too
            await self._resolve_twins(chat_id, posted, None, True)
        # every table message still live retires: the one the text replaces to its header
        # and a pointer down to the text (a /newtable picker posted since stays live)
        await self._retire_all(chat_id, await self.storage.live_sent(chat_id=chat_id,
                                                                     kind=TABLE),
                               {table_id: shown})

    async def post_table(self, item: OutboxItem, payload: TablePost) -> None:
        chat_id = item.chat_id
        chat = self._chat(chat_id)
        render = (await self.published(chat_id)).screen()
        if render is None:  # the table closed before its message went out
            chat.twins |= item.attempts > 0  # an attempt's floor stays: see _resolve_twins
            await self.storage.finish_outbox(item_id=item.id)
            return
        before = await self._newest_known(chat_id)
        previous = await self._table_id(chat_id)
        if (previous is not None and previous == before and chat.shown == render
                and not payload.asked):
            # the live message is the bot's newest and shows this already: no second post
            await self.storage.finish_outbox(item_id=item.id)
            return
        previous_text = chat.shown.text if chat.shown is not None else None
        if not self._delivers(chat_id):
            return
        # counted before the send, with the floor of any twin it makes: an attempt a crash
        # cuts short after Telegram's answer leaves its floor (see the module's docstring)
        earlier_attempts = await self.storage.outbox_attempt(item_id=item.id,
                                                             floor=before or 0) - 1
        uncertain: list[bool] = []
        try:
            message_id = await self.send(chat_id, render.text, render.markup_json, uncertain,
                                          kind=metrics.TABLE_POST)
        except Lost:
            if not uncertain:  # refused outright: this attempt posted nothing
                await self.storage.outbox_attempt(item_id=item.id, undo=True)
            raise
        # one attempt, answered: it made exactly this message (or, refused, none)
        sure = earlier_attempts == 0 and not uncertain
        if message_id is not None:  # every possible twin up to this post loses its buttons
            # first, so that a post marked done has none left live (a crash here leaves
            # this post's floor and the others': they are searched again)
            sure = await self._resolve_twins(chat_id, message_id, item.id, sure)
        else:
            chat.twins |= not sure
        await self.storage.finish_outbox(item_id=item.id, message_id=message_id,
                                         live=message_id is not None, sure=sure)
        if message_id is None:
            return
        chat.table_is(message_id)
        chat.shown = render
        self.pace.posted(chat_id, render.coup, render.turn)
        self.hooks.table_shown(chat_id, message_id, render.version)
        chat.reposting = False
        self._turn_shown(chat_id, render)
        # every earlier table message still live loses its buttons, the one this replaces
        # and any a crash left live (the retirement is durable: see _table_id)
        await self._retire_all(chat_id, [m for m in await self.storage.live_sent(
            chat_id=chat_id) if m != message_id], {previous: previous_text})
        await self._pin(chat_id, message_id)

    async def _pin(self, chat_id: int, message_id: int) -> None:
        """Pin the live table where the bot may (asked once per chat; a refusal ends it)."""
        chat = self._chat(chat_id)
        if chat_id > 0 or chat.can_pin is False:
            return
        try:
            if chat.can_pin is None:
                member = await self.api.call("getChatMember", chat_id=chat_id,
                                          user_id=self.bot.id)
                chat.can_pin = member.get("status") == "creator" or bool(
                    member.get("status") == "administrator" and member.get("can_pin_messages"))
                if not chat.can_pin:
                    return
            await self.api.call("pinChatMessage", chat_id=chat_id, message_id=message_id,
                             disable_notification=True)
        except RetryAfter:
            return  # the next table message is pinned; this one stays live all the same
        except TelegramError as exc:
            log.info("chat %s: no pinning (%s)", chat_id, type(exc).__name__)
            chat.can_pin = False

    async def _table_id(self, chat_id: int) -> int | None:
        """The live table message: the newest posted one still live (a result replaces it).
        Read from storage, any earlier one still marked live (a crash came between a post
        and the retirement of the message before it) loses its buttons now."""
        chat = self._chat(chat_id)
        if chat.table_known:
            return chat.table_id
        live = await self.storage.live_sent(chat_id=chat_id, kind=TABLE)
        chat.table_is(live[0] if live else None)
        await self._retire_all(chat_id, live[1:], {})
        return chat.table_id

    async def edit_table(self, chat_id: int) -> None:
        """Edit the live table message to the table as it is now, when the group budget's
        rules allow (:class:`bot.outbox.pace.Pace`); otherwise look again when they will."""
        chat = self._chat(chat_id)
        try:
            render = (await self.published(chat_id)).screen()
        except NotPublished:
            return  # drawn once it is published: that rings again
        if render is None or chat.shown == render:
            return
        # a turn shown only here that is over: its buttons go at once, like the turn came
        over = chat.shown is not None and chat.shown.urgent and chat.shown.turn != render.turn
        wait = self.pace.wait(chat_id, render.coup, render.turn, render.urgent or over,
                              render.quiet)
        if wait == HELD:
            return
        if wait > 0:
            self._look_again(chat_id, wait)
            return
        message_id = await self._table_id(chat_id)
        if not self._delivers(chat_id):
            return
        if message_id is not None and await self._edit(chat_id, message_id, render.text,
                                                       render.markup_json):
            metrics.sent(metrics.TABLE_EDIT)
            chat.shown = render
            self.pace.edited(chat_id, render.coup, render.turn)
            self.hooks.table_shown(chat_id, message_id, render.version)
            self._turn_shown(chat_id, render)
            return
        if not chat.reposting:  # once until a table message is posted again
            chat.reposting = True
            self.reports.report(TableMissing(chat_id))

    async def published(self, chat_id: int) -> Published:
        """The chat's table as last published here; raises :class:`NotPublished` (and asks
        for it) when there is none, or when another worker has committed the table since
        (:attr:`revisions`; its news may have been lost with a worker)."""
        published = self.feed.latest(chat_id)
        if published is not None and published.rev is not None and (
                self.revisions is not None
                and not await self.revisions.current(chat_id, published.rev)):
            self.feed.forget(chat_id)
            published = None
        if published is None:
            self.reports.report(Unpublished(chat_id))
            raise NotPublished(chat_id)
        return published

    def _look_again(self, chat_id: int, delay: float) -> None:
        """Ring for the chat's table again in ``delay`` seconds (once)."""
        chat = self._chat(chat_id)
        if chat.later is not None or self.stopping:
            return

        def ring() -> None:
            chat.later = None
            self.doorbell.ring(chat_id, False)

        chat.later = asyncio.get_running_loop().call_later(delay, ring)

    def _turn_shown(self, chat_id: int, render: TableScreen) -> None:
        """The group now shows ``render``: every player it awaits can see his turn."""
        if render.awaited:
            self.reports.report(TurnShown(chat_id, render.decision, render.awaited, GROUP,
                                          drawn=render.deadline))

"""Delivering the durable outbox: what committed steps must send, sent in order, never lost.

A step writes what it must send (group messages, the coup's result, a new table
message, DMs) into the outbox in the same transaction as the step
(:mod:`bot.table.tables`), then rings the :class:`Doorbell`. The :class:`Courier` runs
one worker per chat that sends the chat's pending items in order, marks each
done, and, when nothing else waits, edits the live table message to the newest
state (a burst of steps costs one edit). A crash at any point loses nothing:
pending items are sent after the restart.

A commit of this process hands its items over with its ring (:class:`storage.base.Queued`):
the worker takes them with no read of the outbox when every earlier undelivered item of the
chat is in its hands (:attr:`Chat.known`); else (at start, a chat taken over, another
worker's commit or one of no hand-off in between, a failed send) it reads the outbox.

The table message's upkeep (its posts, edits, result, closing, and the twins a post of
unknown outcome may leave) is :mod:`bot.outbox.table_message`'s: the worker hands it the
table's items in their turn, and the edit.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import Bot

from bot.ops import metrics
from bot.ops.hooks import Hooks
from bot.outbox.feed import Feed
from bot.outbox.kinds import SeenPrompt
from bot.outbox.pace import Pace
from bot.outbox.payloads import (
    PRIVATE,
    BadPayload,
    Closing,
    CoupResult,
    DirectMessage,
    EphemeralChange,
    GroupPost,
    Payload,
    PromptEdit,
    TablePost,
    read,
)
from bot.outbox.reports import PROMPT, DmBlocked, GroupLost, Reports, TurnShown
from bot.outbox.table_message import NotPublished, Revisions, TableMessage
from bot.outbox.telegram import (
    HTML,
    Blocked,
    BotApi,
    Lost,
    Refused,
    markup_param,
)
from storage.base import OutboxItem, Queued, Storage

log = logging.getLogger(__name__)

BATCH = 100
# Sent DMs are marked done together, every chat's at once, this long after the first of
# them: one write for a burst of steps instead of one per step. A crash before that write
# sends them again (DMs are at least once; group messages are marked done one by one).
FINISH_DELAY = 0.05


class Doorbell:
    """Tells the courier that a chat has something new to send or show."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[int, bool, Queued | None]] = asyncio.Queue()

    def ring(self, chat_id: int, outbox: bool = True, queued: Queued | None = None) -> None:
        """The chat's table changed, and with ``outbox`` its outbox got new items;
        ``queued``: them as their commit wrote them (without it, the courier reads them)."""
        self.queue.put_nowait((chat_id, outbox, queued))

    async def rings(self) -> AsyncIterator[tuple[int, bool, Queued | None]]:
        """Every ring, in order."""
        while True:
            yield await self.queue.get()


class Leases(Protocol):
    """Which chats this process delivers when several workers share the outbox
    (:class:`bot.workers.coordination.ChatLeases`); a courier without it delivers every chat."""

    def holds(self, chat_id: int) -> bool:
        """Whether this process delivers the chat now."""
        ...

    def ask(self, chat_id: int) -> None:
        """Ask for the chat's lease; once it is granted, the courier's
        :meth:`Courier.take_over` runs (else the holder has been rung)."""
        ...

    async def start(self, courier: Courier) -> None:
        """Hear the other workers' rings and take over orphaned chats, for ``courier``."""
        ...

    def stop(self) -> None:
        """Stop taking chats over (the leases end with the connection)."""
        ...


@dataclass
class Chat:
    """What the courier keeps of one chat: its tasks, and what it was told."""

    worker: asyncio.Task[None] | None = None
    """The task sending the chat's outbox, then editing its table message."""
    again: bool = False
    """Rung while the worker was busy: it looks once more before it ends."""
    unsent: bool = False
    """The outbox has items the worker has not read yet."""
    known: bool = False
    """Every undelivered item of the chat is in the worker's hands (being sent, in
    :attr:`handed`, or a DM's), as its last whole read or the hand-offs since left it."""
    handed: list[OutboxItem] = field(default_factory=list)
    """Items handed over (or left to coalesce with them), by id, not taken yet."""
    seen: int = 0
    """The highest id taken (read or handed): a late hand-off of items read is dropped."""
    lost: bool = False
    """The group refuses the bot: nothing goes until it is back."""
    dms: deque[tuple[OutboxItem, DirectMessage | PromptEdit]] = field(default_factory=deque)
    """DMs waiting to be sent, in order."""
    dms_on_way: set[int] = field(default_factory=set)
    """The ids of the DMs waiting or being sent (a second read of the outbox skips them)."""
    dm_worker: asyncio.Task[None] | None = None
    """The task sending the DMs, apart from the group's messages."""

    def unread(self) -> None:
        """The outbox may hold items the worker has not in hand: it reads them."""
        self.unsent, self.known = True, False

    def sending(self) -> bool:
        """Whether the worker is sending the outbox."""
        return self.worker is not None and not self.worker.done()

    def idle(self) -> bool:
        """Whether nothing of the chat is being sent."""
        return not self.sending() and (self.dm_worker is None or self.dm_worker.done())


class Courier:
    """Sends every chat's outbox in order; one worker task per chat with work."""

    def __init__(self, bot: Bot, storage: Storage, doorbell: Doorbell, feed: Feed,
                 reports: Reports, pace: Pace | None = None, hooks: Hooks | None = None,
                 leases: Leases | None = None, revisions: Revisions | None = None) -> None:
        self.bot = bot
        self.api = BotApi(bot)
        self.leases = leases
        self.hooks = hooks or Hooks()
        self.storage = storage
        self.doorbell = doorbell
        # what it tells the table service of its deliveries (never a call into it)
        self.reports = reports
        self.table = TableMessage(bot, self.api, storage, doorbell, feed, reports,
                                  pace or Pace(gap=0.0, per_coup=1 << 30, reserve=0),
                                  self.hooks, self._delivers, lambda: self.stopping,
                                  revisions)
        """The chats' table messages, kept up."""
        self.chats: dict[int, Chat] = {}
        """What the courier keeps of each chat it has been rung for (:meth:`_chat`)."""
        self.listener: asyncio.Task[None] | None = None
        self.stopping = False
        # DMs sent and not yet marked done (id -> message id), and the write that will
        self.sent_dms: dict[int, int | None] = {}
        self.finisher: asyncio.TimerHandle | None = None
        self.finishing: asyncio.Task[None] | None = None

    @property
    def pace(self) -> Pace:
        """When the group's budget allows what (its table message's edits above all)."""
        return self.table.pace

    @pace.setter
    def pace(self, pace: Pace) -> None:
        self.table.pace = pace

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Listen to the doorbell; deliver what a previous run left pending."""
        if self.leases is not None:
            await self.leases.start(self)
        self.listener = asyncio.get_running_loop().create_task(self._listen())
        for chat_id in await self.storage.outbox_chats():
            self.doorbell.ring(chat_id)

    async def stop(self, timeout: float) -> None:
        """Let the workers finish what they are sending for up to ``timeout`` seconds; what
        is still pending then stays in the outbox for the next start."""
        self.stopping = True
        self.table.stop()
        if self.leases is not None:
            self.leases.stop()
        if self.listener is not None:
            self.listener.cancel()
        tasks = [t for chat in self.chats.values() for t in (chat.worker, chat.dm_worker)
                 if t is not None and not t.done()]
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        if self.finisher is not None:
            self.finisher.cancel()
        if self.finishing is not None:
            await asyncio.gather(self.finishing, return_exceptions=True)
        await self._finish_dms()

    def _chat(self, chat_id: int) -> Chat:
        """What the courier keeps of the chat, kept from its first use on."""
        chat = self.chats.get(chat_id)
        if chat is None:
            chat = self.chats[chat_id] = Chat()
        return chat

    def regained(self, chat_id: int) -> None:
        """The bot is back in the group: deliver again."""
        chat = self._chat(chat_id)
        chat.lost = False
        self.table.regained(chat_id)
        self.pace.forget(chat_id)
        self.doorbell.ring(chat_id)

    async def _listen(self) -> None:
        async for chat_id, outbox, queued in self.doorbell.rings():
            if outbox:
                self._hand(chat_id, queued)
            self._wake(chat_id)

    def _hand(self, chat_id: int, queued: Queued | None) -> None:
        """New items in the chat's outbox: taken as its commit ``queued`` them when every
        undelivered item written before them is in the worker's hands; else read."""
        chat = self._chat(chat_id)
        if (queued is None or not chat.known or not self._delivers(chat_id)
                or (queued.after is not None and queued.after > chat.seen)):
            chat.unread()
            return
        chat.handed += [item for item in queued.items if item.id > chat.seen]
        chat.seen = max([chat.seen, *(item.id for item in queued.items)])

    def take_over(self, chat_id: int) -> None:
        """This process delivers the chat from now (its lease was granted): what the chat
        shows is read anew, and its outbox sent."""
        chat = self._chat(chat_id)
        self.table.take_over(chat_id)
        chat.unread()
        self._wake(chat_id)

    def rung_elsewhere(self, chat_id: int) -> None:
        """Another worker committed a step of a chat this process delivers: its table as
        published here is out of date (asked for again when drawn)."""
        self.table.feed.forget(chat_id)
        chat = self._chat(chat_id)
        chat.lost = False  # a step there means the table is back
        chat.unread()
        self._wake(chat_id)

    def _delivers(self, chat_id: int) -> bool:
        """Whether this process delivers the chat now (always, without leases)."""
        return self.leases is None or self.leases.holds(chat_id)

    def idle(self, chat_id: int) -> bool:
        """Whether nothing of the chat is being sent."""
        chat = self.chats.get(chat_id)
        return chat is None or chat.idle()

    def _wake(self, chat_id: int) -> None:
        chat = self._chat(chat_id)
        if self.stopping or chat.lost:
            return
        if not self._delivers(chat_id):
            assert self.leases is not None
            self.leases.ask(chat_id)
            return
        if chat.sending():
            chat.again = True
            return
        chat.again = False
        chat.worker = asyncio.get_running_loop().create_task(self._work(chat_id))
        chat.worker.add_done_callback(functools.partial(self._done, chat_id))

    def _done(self, chat_id: int, task: asyncio.Task[None]) -> None:
        chat = self._chat(chat_id)
        if chat.worker is task:
            chat.worker = None
        if not task.cancelled() and task.exception() is not None:
            log.error("outbox worker of chat %s failed", chat_id, exc_info=task.exception())
        if chat.again:
            self._wake(chat_id)

    # ------------------------------------------------------------ work

    async def _work(self, chat_id: int) -> None:
        chat = self._chat(chat_id)
        try:
            while True:
                chat.again = False
                if chat.unsent or chat.handed:
                    items, whole = await self._take(chat_id, chat)
                    rest = None
                    try:
                        rest = await self._send(chat_id, chat, items)
                    finally:  # cut short, what it left unsent is not in hand
                        chat.known &= rest is not None
                    if rest is None:
                        return  # the lease went (its connection died): not ours now
                    if rest:  # waiting for the steps committed since: their posts may coalesce
                        chat.handed[:0] = rest
                        continue
                    if not whole:  # the rest of the outbox, read again
                        chat.unread()
                        continue
                if not self._delivers(chat_id):
                    return
                await self.table.edit_table(chat_id)
                if not chat.again or self.stopping:
                    return
        except NotPublished:  # the table's publication rings again (outbox: read anew)
            chat.unread()
        except Lost:
            chat.lost = True
            self.reports.report(GroupLost(chat_id))

    async def _take(self, chat_id: int, chat: Chat) -> tuple[list[OutboxItem], bool]:
        """The chat's items to send now, and whether they are all it has (else a batch of
        more): those handed over when they are (:attr:`Chat.known`), else a read's."""
        if chat.known and not chat.unsent:
            items, chat.handed = chat.handed, []
            return items, True
        chat.unsent, chat.known, chat.handed = False, False, []
        items = await self.storage.pending_outbox(chat_id=chat_id, limit=BATCH)
        chat.seen = max([chat.seen, *(item.id for item in items)])
        chat.known = len(items) < BATCH and not chat.unsent  # (not if rung during the read)
        return items, len(items) < BATCH

    async def _send(self, chat_id: int, chat: Chat, items: Sequence[OutboxItem]
                    ) -> list[OutboxItem] | None:
        """Send ``items``; a table post and the group's items after it wait (returned) for
        steps committed since: their posts may coalesce. None: the lease went."""
        # private messages go their own way, all of them before the group's: a turn prompt
        # reaches its player at once, never behind a group post that waits for its budget
        group: list[tuple[OutboxItem, Payload]] = []
        for item, payload in await self._read(items):
            if isinstance(payload, PRIVATE):
                self._queue_dm(item, payload)
            else:
                group.append((item, payload))
        for i, (item, payload) in enumerate(group):
            if not self._delivers(chat_id):
                return None
            if isinstance(payload, TablePost):
                if any(isinstance(later, TablePost) for _, later in group[i + 1:]):
                    await self.table.skip(item)  # the later post shows it
                    continue
                if chat.unsent or chat.handed:
                    return [left for left, _ in group[i:]]
            await self._deliver(item, payload)
        return []

    async def _read(self, items: Sequence[OutboxItem]) -> list[tuple[OutboxItem, Payload]]:
        """Each item with its payload, parsed by its kind. One that is not its kind's (of a
        kind this bot no longer has, a field missing) is logged and dropped: there is
        nothing to send of it, as Telegram would refuse an empty message."""
        out: list[tuple[OutboxItem, Payload]] = []
        for item in items:
            try:
                out.append((item, read(item)))
            except BadPayload as exc:
                log.error("chat %s: outbox item %d dropped: %s", item.chat_id, item.id, exc)
                await self.storage.finish_outbox(item_id=item.id)
        return out

    def _queue_dm(self, item: OutboxItem, payload: DirectMessage | PromptEdit) -> None:
        """Send a DM after the chat's earlier DMs, apart from its group messages."""
        chat = self._chat(item.chat_id)
        if item.id in self.sent_dms or item.id in chat.dms_on_way:
            return  # sent (its done mark is on its way), or on its way
        chat.dms_on_way.add(item.id)
        chat.dms.append((item, payload))
        if chat.dm_worker is None or chat.dm_worker.done():
            chat.dm_worker = asyncio.get_running_loop().create_task(self._dm_work(item.chat_id))

    async def _dm_work(self, chat_id: int) -> None:
        chat = self._chat(chat_id)
        while chat.dms:
            item, payload = chat.dms.popleft()
            try:
                self.sent_dms[item.id] = sent = await self._dm(item, payload)
            except BaseException:
                chat.unread()  # it stays pending: the next look reads it
                raise
            finally:
                chat.dms_on_way.discard(item.id)
            self._finish_soon()
            if sent is not None and isinstance(payload, DirectMessage) and payload.turn is not None:
                self.reports.report(TurnShown(chat_id, payload.turn, (item.target,), PROMPT,
                                              prompt=SeenPrompt(sent, payload.digest,
                                                                payload.version)))

    def _finish_soon(self) -> None:
        if self.finisher is None and not self.stopping:
            self.finisher = asyncio.get_running_loop().call_later(FINISH_DELAY, self._finish)

    def _finish(self) -> None:
        self.finisher = None
        if self.finishing is None or self.finishing.done():
            self.finishing = asyncio.get_running_loop().create_task(self._finish_dms())
        else:  # a write is under way: the next one after it
            self._finish_soon()

    async def _finish_dms(self) -> None:
        """Mark every sent DM done in one write (they stay skipped until it commits)."""
        done = list(self.sent_dms.items())
        if not done:
            return
        try:
            await self.storage.finish_outbox_many(done=done)
        except Exception:  # the storage failed: they are tried again
            log.exception("marking %d DMs done failed", len(done))
            self._finish_soon()
            return
        for item_id, _ in done:
            self.sent_dms.pop(item_id, None)

    async def _deliver(self, item: OutboxItem, payload: Payload) -> None:
        match payload:
            case DirectMessage() | PromptEdit():
                await self.storage.finish_outbox(item_id=item.id,
                                                 message_id=await self._dm(item, payload))
            case CoupResult():
                await self.table.settle(item, payload)
            case TablePost():
                await self.table.post_table(item, payload)
            case Closing():
                await self.table.close(item, payload)
            case EphemeralChange():
                await self._ephemeral(item, payload)
            case GroupPost():
                message_id = await self.table.send(item.target, payload.text,
                                              markup_param(payload.markup), kind=metrics.GROUP)
                self.pace.sent(item.chat_id)
                await self.storage.finish_outbox(item_id=item.id, message_id=message_id)

    async def _dm(self, item: OutboxItem, payload: DirectMessage | PromptEdit) -> int | None:
        """Send a DM; its message id, or None when the player refuses it or Telegram refuses
        the message. The caller marks it done (several DMs of a step in one write: a crash
        before that write sends them again, a private repeat rather than a loss)."""
        text = payload.text
        markup = markup_param(payload.markup)
        edited = payload.message_id if isinstance(payload, PromptEdit) else None
        try:
            if edited is not None:  # a turn prompt brought up to date, or closed
                await self.api.request("editMessageText", private=True, chat_id=item.target,
                                    message_id=edited, text=text, reply_markup=markup,
                                    parse_mode=HTML)
                metrics.sent(metrics.DM)
                return edited
            msg = await self.api.request("sendMessage", private=True, chat_id=item.target,
                                      text=text, reply_markup=markup, parse_mode=HTML)
        except Blocked:
            self.reports.report(DmBlocked(item.chat_id, item.target))
            return None
        except Refused as exc:
            if exc.says("not modified"):
                return edited
            log.warning("DM to %s refused: %s", item.target, exc.message)
            return None
        log.debug("DM to %s: %s", item.target, text)
        metrics.sent(metrics.DM)
        return int(msg["message_id"])

    async def _ephemeral(self, item: OutboxItem, payload: EphemeralChange) -> None:
        """A private view shown in the group to one player, edited (or deleted). Telegram
        keeps such a message for a while only, and a refusal (it is gone, or unchanged) ends
        the item: the view it would have shown is the player's to ask for again."""
        ids: dict[str, Any] = {"chat_id": item.target,
                               "receiver_user_id": payload.receiver,
                               "ephemeral_message_id": payload.message_id}
        try:
            if payload.delete:
                await self.api.request("deleteEphemeralMessage", **ids)
            else:
                await self.api.request("editEphemeralMessageText", **ids,
                                       text=payload.text, parse_mode=HTML,
                                       reply_markup=markup_param(payload.markup))
                metrics.sent(metrics.EPHEMERAL)
        except Refused as exc:
            if not exc.says("not modified"):
                log.info("a view in chat %s not changed: %s", item.target, exc.message)
        await self.storage.finish_outbox(item_id=item.id)

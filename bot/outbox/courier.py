"""Delivering the durable outbox: what committed steps must send, sent in order, never lost.

A step writes what it must send (group messages, the coup's result, a new table
message, DMs) into the outbox in the same transaction as the step
(:mod:`bot.table.tables`), then rings the :class:`Doorbell`. The :class:`Courier` runs
one worker per chat that sends the chat's pending items in order, marks each
done, and, when nothing else waits, edits the live table message to the newest
state (a burst of steps costs one edit). A crash at any point loses nothing:
pending items are sent after the restart.

Telegram may accept a message and still answer with a timeout or a 5xx, so a
send can be repeated. Where that matters it is avoided by construction: a coup's
result is an *edit* of the table message it concludes (repeating an edit changes
nothing), and a table message whose first post may have gone through is re-posted
and the possible twin loses its buttons.

Finding that twin: Telegram has no search, and a message's buttons can only be taken
off by its id. What is knowable is an interval. Message ids in a group only grow, so a
post made after the bot's newest known message and before a later post of the bot lies
strictly between their ids. So each table post records, with its attempt count and
before the send, that newest known id (its *floor*, :meth:`storage.base.Storage.
outbox_attempt`); a post whose one attempt got its answer drops the floor as it is marked
done. A floor left behind (the worker died between Telegram's answer and the record of
the id, the answer was lost, or the row was skipped for a later post) marks a post whose
outcome is unknown, durably, whichever worker delivers the chat next: its next table post
(or closing post) takes the keyboard off every id between the lowest such floor and its
own, except the ids the bot recorded in the chat (every group kind of the outbox, and the
/newtable and /language pickers the commands post, :meth:`storage.base.Storage.
record_sent`); other people's messages cannot be edited, and the bot's other unrecorded
messages (command answers) carry no inline keyboard, so what loses its buttons is a table
message nobody recorded (:meth:`Courier._resolve_twins`). It costs one
editMessageReplyMarkup per id, in the group's budget (about 20 a minute), before the post
is marked done; so one post strips at most :data:`TWIN_PASS` ids, the floors rise to the
last of them, and the next table post goes on from there. An edit refused for the budget
or left unanswered (a 5xx, a timeout) three times in a row ends the pass there, the
floors below that id, and the next post, even one of sure outcome, searches again. So an
orphan is found however many messages, workers and coups come between.

A closing post whose answer was lost is found another way, by the keyboard it carries
(:meth:`Courier._find_post`): each id after the newest known, up to :data:`TWIN_WINDOW`
of them and past deleted ones, except the recorded ids, is asked to take that keyboard,
one edit each (two where a message of the bot's without it takes it, and loses it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.ops import metrics
from bot.ops.hooks import Hooks
from bot.outbox.kinds import CLOSE, GROUP, SETTLE, TABLE, SeenPrompt
from bot.outbox.pace import HELD, Pace
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
from bot.outbox.ratelimit import retry_seconds
from bot.outbox.telegram import (
    HTML,
    Blocked,
    BotApi,
    Lost,
    Refused,
    Unanswered,
    markup_param,
)
from bot.view.screens import TableScreen
from storage.base import KEEP_SENT, OutboxItem, Storage

log = logging.getLogger(__name__)

BATCH = 100
# Sent DMs are marked done together, every chat's at once, this long after the first of
# them: one write for a burst of steps instead of one per step. A crash before that write
# sends them again (DMs are at least once; group messages are marked done one by one).
FINISH_DELAY = 0.05
# How many message ids below a table post may hold the twin of an earlier post of unknown
# outcome when the bot knew no message of its own in the chat before that post (its floor
# is 0: the chat's very first post); with a known floor the whole interval is searched.
TWIN_WINDOW = 20
# How many ids one table post strips at most, for twins of posts of unknown outcome (one
# edit each, in the group's budget, before the post is marked done); the floor rises past
# them, and the next post goes on from there.
TWIN_PASS = 40


class Doorbell:
    """Tells the courier that a chat has something new to send or show."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[int, bool]] = asyncio.Queue()

    def ring(self, chat_id: int, outbox: bool = True) -> None:
        """The chat's table changed, and with ``outbox`` its outbox got new items."""
        self.queue.put_nowait((chat_id, outbox))

    async def rings(self) -> AsyncIterator[tuple[int, bool]]:
        """Every ring, in order."""
        while True:
            yield await self.queue.get()


class TableSide(Protocol):
    """What the courier needs from the tables (:class:`bot.table.lifecycle.Lifecycle`)."""

    async def current_render(self, chat_id: int) -> TableScreen | None:
        """The chat's table message as it should look now; None without a table."""
        ...

    async def group_lost(self, chat_id: int) -> None:
        """The bot may no longer write in the group: pause its table."""
        ...

    async def dm_blocked(self, chat_id: int, user_id: int) -> None:
        """A player does not accept the bot's messages: give him the deep link."""
        ...

    async def table_missing(self, chat_id: int) -> None:
        """The chat has a table but no live table message: queue a new post."""
        ...

    async def turn_seen(self, chat_id: int, decision: int, players: Sequence[int],
                        shown: float | None = None,
                        prompt: SeenPrompt | None = None) -> None:
        """These awaited players have been shown their turn: their clock may start.
        ``shown``: the group's table message showing it counts down to this deadline.
        ``prompt``: one player's turn prompt was delivered (its message id and digest)."""
        ...


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
    """What the courier keeps of one chat: its tasks, what it was told, what the chat shows."""

    worker: asyncio.Task[None] | None = None
    """The task sending the chat's outbox, then editing its table message."""
    again: bool = False
    """Rung while the worker was busy: it looks once more before it ends."""
    unsent: bool = False
    """The outbox has items the worker has not read yet."""
    lost: bool = False
    """The group refuses the bot: nothing goes until it is back."""
    later: asyncio.TimerHandle | None = None
    """The ring to look at the table again once the group's budget allows an edit."""
    dms: deque[tuple[OutboxItem, DirectMessage | PromptEdit]] = field(default_factory=deque)
    """DMs waiting to be sent, in order."""
    dms_on_way: set[int] = field(default_factory=set)
    """The ids of the DMs waiting or being sent (a second read of the outbox skips them)."""
    dm_worker: asyncio.Task[None] | None = None
    """The task sending the DMs, apart from the group's messages."""
    table_known: bool = False
    """Whether ``table_id`` was read (from storage, or set by a post or a result)."""
    table_id: int | None = None
    """The live table message, None when there is none."""
    shown: TableScreen | None = None
    """What the live table message shows, as this process last sent it."""
    reposting: bool = False
    """The table message is missing and a new post was asked for (once until it is made)."""
    newest: int | None = None
    """The newest message id the bot knows it has in the chat (None: not read yet, 0: none)."""
    twins: bool = True
    """Whether a post of unknown outcome may be recorded (its floor kept): read at the next
    table post (:meth:`Courier._resolve_twins`). True until read, and after a takeover."""
    can_pin: bool | None = None
    """Whether the bot may pin in the chat (None: not asked yet)."""

    def table_is(self, message_id: int | None) -> None:
        """The live table message is now ``message_id`` (None: there is none)."""
        self.table_known, self.table_id = True, message_id

    def sending(self) -> bool:
        """Whether the worker is sending the outbox."""
        return self.worker is not None and not self.worker.done()

    def idle(self) -> bool:
        """Whether nothing of the chat is being sent."""
        return not self.sending() and (self.dm_worker is None or self.dm_worker.done())


class Courier:
    """Sends every chat's outbox in order; one worker task per chat with work."""

    def __init__(self, bot: Bot, storage: Storage, doorbell: Doorbell, tables: TableSide,
                 pace: Pace | None = None, hooks: Hooks | None = None,
                 leases: Leases | None = None) -> None:
        self.bot = bot
        self.api = BotApi(bot)
        self.leases = leases
        self.hooks = hooks or Hooks()
        self.pace = pace or Pace(gap=0.0, per_coup=1 << 30, reserve=0)
        self.storage = storage
        self.doorbell = doorbell
        self.tables = tables
        self.chats: dict[int, Chat] = {}
        """What the courier keeps of each chat it has been rung for (:meth:`_chat`)."""
        self.listener: asyncio.Task[None] | None = None
        self.stopping = False
        # DMs sent and not yet marked done (id -> message id), and the write that will
        self.sent_dms: dict[int, int | None] = {}
        self.finisher: asyncio.TimerHandle | None = None
        self.finishing: asyncio.Task[None] | None = None

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
        for chat in self.chats.values():
            if chat.later is not None:
                chat.later.cancel()
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
        chat.table_known = False
        chat.can_pin = None  # its rights may have changed
        self.pace.forget(chat_id)
        self.doorbell.ring(chat_id)

    async def _listen(self) -> None:
        async for chat_id, outbox in self.doorbell.rings():
            if outbox:
                self._chat(chat_id).unsent = True
            self._wake(chat_id)

    def take_over(self, chat_id: int) -> None:
        """This process delivers the chat from now (its lease was granted): what the chat
        shows is read anew, and its outbox sent."""
        chat = self._chat(chat_id)
        chat.table_known = False
        chat.shown = None
        chat.newest = None
        chat.twins = True  # a dead worker may have left a post of unknown outcome
        chat.unsent = True
        self._wake(chat_id)

    def rung_elsewhere(self, chat_id: int) -> None:
        """Another worker committed a step of a chat this process delivers."""
        chat = self._chat(chat_id)
        chat.lost = False  # a step there means the table is back
        chat.unsent = True
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
                if chat.unsent:
                    chat.unsent = False
                    items = await self.storage.pending_outbox(chat_id=chat_id, limit=BATCH)
                    # private messages go their own way, all of them before the group's:
                    # a turn prompt reaches its player at once, never behind a group post
                    # that waits for the group's budget
                    group: list[tuple[OutboxItem, Payload]] = []
                    for item, payload in await self._read(items):
                        if isinstance(payload, PRIVATE):
                            self._queue_dm(item, payload)
                        else:
                            group.append((item, payload))
                    for i, (item, payload) in enumerate(group):
                        if not self._delivers(chat_id):
                            return  # the lease went (its connection died): not ours now
                        if isinstance(payload, TablePost):
                            if any(isinstance(later, TablePost) for _, later in group[i + 1:]):
                                # a later post shows the table as it is then: one post (one
                                # attempted keeps its floor: that post resolves its twin)
                                chat.twins |= item.attempts > 0
                                await self.storage.finish_outbox(item_id=item.id)
                                continue
                            if chat.unsent:
                                break  # steps committed since: their posts may coalesce
                        await self._deliver(item, payload)
                    else:
                        if len(items) < BATCH:
                            items = []
                    if items:  # the rest of the outbox, read again
                        chat.unsent = True
                        continue
                if not self._delivers(chat_id):
                    return
                await self._edit_table(chat_id)
                if not chat.again or self.stopping:
                    return
        except Lost:
            chat.lost = True
            await self.tables.group_lost(chat_id)

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
            finally:
                chat.dms_on_way.discard(item.id)
            self._finish_soon()
            if sent is not None and isinstance(payload, DirectMessage) and payload.turn is not None:
                try:
                    await self.tables.turn_seen(chat_id, payload.turn, [item.target],
                                                prompt=SeenPrompt(sent, payload.digest,
                                                                  payload.version))
                except Exception:  # the clock starts with the group's table instead
                    log.exception("turn of chat %s not marked seen", chat_id)

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
                await self._settle(item, payload)
            case TablePost():
                await self._post_table(item, payload)
            case Closing():
                await self._close(item, payload)
            case EphemeralChange():
                await self._ephemeral(item, payload)
            case GroupPost():
                message_id = await self._send(item.target, payload.text,
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
            await self.tables.dm_blocked(item.chat_id, item.target)
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

    async def _settle(self, item: OutboxItem, payload: CoupResult) -> None:
        """The coup's result replaces the live table message (an edit: safe to repeat)."""
        chat = self._chat(item.chat_id)
        text = payload.text
        message_id = await self._table_id(item.chat_id)
        if message_id is not None and await self._edit(item.chat_id, message_id, text, None):
            metrics.sent(metrics.SETTLEMENT)
            chat.table_is(None)  # that message is the result now
            chat.shown = None
            self.pace.sent(item.chat_id)
            await self.storage.finish_outbox(item_id=item.id, message_id=message_id)
            await self.storage.retire_sent(chat_id=item.chat_id, message_ids=[message_id])
            return
        message_id = await self._send(item.chat_id, text, None, kind=metrics.SETTLEMENT)
        self.pace.sent(item.chat_id)
        await self.storage.finish_outbox(item_id=item.id, message_id=message_id)

    async def _close(self, item: OutboxItem, payload: Closing) -> None:
        """A closed table's closing text goes to the bottom of the chat, where whoever closed
        it looks (the live table message may be far up), exactly once, and the table
        message retires to its header and a pointer down. The post is made until Telegram
        answers it. An attempt whose answer was lost (or that a crash cut short) may have
        posted all the same: the post carries a keyboard of its own
        (:func:`bot.outbox.payloads.closing`), by which such a post is found among the chat's
        messages after the newest one known (:meth:`_find_post`); found, it is the post,
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
                posted = await self._send(chat_id, text, tag, kind=metrics.SETTLEMENT,
                                          once=True)
                if posted is None and tag is not None:  # refused with its keyboard: plain
                    tag = None
                    posted = await self._send(chat_id, text, None, kind=metrics.SETTLEMENT)
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

    async def _find_post(self, chat_id: int, before: int, tag: str | None) -> int | None:
        """The closing post an attempt whose answer was lost made, if it did: the bot's
        message after ``before`` (the newest it knows) that carries the post's keyboard
        ``tag``, among the next :data:`TWIN_WINDOW` ids. Each of them the bot has not
        recorded (:meth:`_recorded`: its own messages, a picker a command posted included)
        is asked to take that keyboard: the post answers that it has it already (not
        modified); another message of the bot's takes it and has it taken away again at
        once (it had none: a command's answer; an orphaned table message loses its own, as
        it should); other people's messages cannot be edited, and ids deleted or not used
        yet are not found: the search goes on past them. Each call waits out Telegram's
        429s and unanswered calls (:meth:`bot.outbox.telegram.BotApi.request`); a group that
        refuses the bot ends it (:class:`Lost`). It costs up to one edit per id, two for a
        message of the bot's it finds without the keyboard."""
        if tag is None:
            return None
        known = await self._recorded(chat_id)
        for message_id in range(before + 1, before + TWIN_WINDOW + 1):
            if message_id in known:
                continue
            try:
                await self.api.request("editMessageReplyMarkup", chat_id=chat_id,
                                       message_id=message_id, reply_markup=tag)
            except Refused as exc:
                if exc.says("not modified"):
                    self._seen(chat_id, message_id)
                    return message_id
                continue  # not found (deleted, or not yet), or not ours
            with contextlib.suppress(Refused):
                await self.api.request("editMessageReplyMarkup", chat_id=chat_id,
                                       message_id=message_id)
        return None

    async def _recorded(self, chat_id: int) -> set[int]:
        """The message ids the bot recorded in the group (every group kind of the outbox,
        and the pickers the commands posted, :meth:`storage.base.Storage.record_sent`): a
        search for a message nobody recorded leaves them alone."""
        return {i for kind in (TABLE, SETTLE, GROUP, CLOSE)
                for i in await self.storage.last_sent(chat_id=chat_id, kind=kind,
                                                      limit=KEEP_SENT)}

    async def _post_table(self, item: OutboxItem, payload: TablePost) -> None:
        chat_id = item.chat_id
        chat = self._chat(chat_id)
        render = await self.tables.current_render(chat_id)
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
            message_id = await self._send(chat_id, render.text, render.markup_json, uncertain,
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
        await self._turn_shown(chat_id, render)
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

    async def _retire_all(self, chat_id: int, message_ids: Sequence[int],
                          texts: dict[int | None, str | None]) -> None:
        """Each of these table messages loses its buttons, and is marked so for good."""
        for message_id in message_ids:
            if await self._retire(chat_id, message_id, texts.get(message_id)):
                await self.storage.retire_sent(chat_id=chat_id, message_ids=[message_id])

    async def _retire(self, chat_id: int, message_id: int, text: str | None) -> bool:
        """The table message a new one replaces loses its keyboard at once, and its text
        shrinks to its header line and a pointer down: one chat, one live table. True too
        when Telegram refuses the edit itself (gone, not ours, no keyboard left); False
        when it kept refusing for the budget, or left the call unanswered (a network
        error, a timeout, a 5xx), three times: it is tried again at the next delivery. A
        group that refuses the bot raises :class:`Lost`."""
        for attempt in range(3):
            try:
                if text is None:  # not shown by this process: the keyboard goes, text stays
                    await self.api.call("editMessageReplyMarkup", chat_id=chat_id,
                                     message_id=message_id)
                else:
                    await self.api.call("editMessageText", chat_id=chat_id, message_id=message_id,
                                     text=text.split("\n", 1)[0] + " ⬇️", parse_mode=HTML)
                metrics.sent(metrics.TABLE_RETIRE)
                self.pace.sent(chat_id)
                return True
            except RetryAfter as exc:
                await asyncio.sleep(retry_seconds(exc) + 0.1)
            except BadRequest:  # gone, or not ours to edit any more, or no keyboard left
                return True
            except (Forbidden, ChatMigrated) as exc:  # the group refuses the bot: it waits
                raise Lost from exc
            except TelegramError as exc:  # no answer: not done
                log.info("chat %s: message %d not retired (%s)", chat_id, message_id,
                         type(exc).__name__)
                await asyncio.sleep(0.5 * (attempt + 1))
        return False

    async def _resolve_twins(self, chat_id: int, ceiling: int, own: int | None,
                             sure: bool) -> bool:
        """Posts of unknown outcome (their floors kept: a crash between Telegram's answer and
        the record, a lost answer, a post skipped after an attempt) may each have made a
        table message nobody knows the id of: each lies above its floor and below
        ``ceiling``, a post this process has just made, so every message id between that
        the bot has not recorded (:meth:`_recorded`: its own messages, the pickers of its
        commands) loses its buttons: other people's messages cannot be edited, so this
        strips only table messages. One pass strips at most :data:`TWIN_PASS` ids, from the
        lowest floor up; the floors it passed rise to its last id, and the next table post
        goes on from there. ``own``: the outbox item that made ``ceiling``; ``sure``: that
        was its one attempt, answered (else its earlier ones count too). The floors go once
        all is done; True when ``own``'s may go."""
        chat = self._chat(chat_id)
        if not chat.twins and sure:
            return True
        floors = [(item_id, floor) for item_id, floor in
                  await self.storage.twin_floors(chat_id=chat_id)
                  if item_id != own or not sure]
        if own is not None and not sure and all(item_id != own for item_id, _ in floors):
            floors.append((own, 0))  # its floor is gone (cannot be): the window below
        low = min((floor for _, floor in floors), default=None)
        if low is None:
            chat.twins = False
            return True
        known = await self._recorded(chat_id)
        first = low + 1 if low else max(1, ceiling - TWIN_WINDOW)
        done, edits = first - 1, 0  # every id up to ``done`` is stripped
        for message_id in range(first, ceiling):
            if message_id not in known:
                if edits == TWIN_PASS or not await self._retire(chat_id, message_id, None):
                    break
                edits += 1
            done = message_id
        ids = [item_id for item_id, _ in floors]
        chat.twins = done < ceiling - 1
        if chat.twins:  # searched again from ``done`` on at the next post
            await self.storage.twins_resolved(item_ids=ids, upto=done)
            log.info("chat %s: possible twins stripped, ids %d to %d of %d", chat_id, first,
                     done, ceiling - 1)
            return sure
        await self.storage.twins_resolved(item_ids=[i for i in ids if i != own])
        log.info("chat %s: possible twins of %d post(s) of unknown outcome stripped, ids %d "
                 "to %d", chat_id, len(floors), first, ceiling - 1)
        return True

    async def _newest_known(self, chat_id: int) -> int | None:
        """The newest message id the bot knows it has in the group."""
        chat = self._chat(chat_id)
        if chat.newest is None:
            ids = [i for kind in (TABLE, SETTLE, GROUP, CLOSE)
                   for i in await self.storage.last_sent(chat_id=chat_id, kind=kind)]
            chat.newest = max(ids, default=0)
        return chat.newest or None

    def _seen(self, chat_id: int, message_id: int) -> None:
        chat = self._chat(chat_id)
        chat.newest = max(chat.newest or 0, message_id)

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

    async def _edit_table(self, chat_id: int) -> None:
        """Edit the live table message to the table as it is now, when the group budget's
        rules allow (:class:`bot.outbox.pace.Pace`); otherwise look again when they will."""
        chat = self._chat(chat_id)
        render = await self.tables.current_render(chat_id)
        if render is None or chat.shown == render:
            return
        wait = self.pace.wait(chat_id, render.coup, render.turn, render.urgent, render.quiet)
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
            await self._turn_shown(chat_id, render)
            return
        if not chat.reposting:  # once until a table message is posted again
            chat.reposting = True
            await self.tables.table_missing(chat_id)

    def _look_again(self, chat_id: int, delay: float) -> None:
        """Ring for the chat's table again in ``delay`` seconds (once)."""
        chat = self._chat(chat_id)
        if chat.later is not None or self.stopping:
            return

        def ring() -> None:
            chat.later = None
            self.doorbell.ring(chat_id, False)

        chat.later = asyncio.get_running_loop().call_later(delay, ring)

    async def _turn_shown(self, chat_id: int, render: TableScreen) -> None:
        """The group now shows ``render``: every player it awaits can see his turn."""
        if render.awaited:
            await self.tables.turn_seen(chat_id, render.decision, render.awaited,
                                        render.deadline)

    # ------------------------------------------------------------ Telegram

    async def _send(self, chat_id: int, text: str, markup: str | None,
                    uncertain: list[bool] | None = None, *, kind: str,
                    once: bool = False) -> int | None:
        """Post in the group until Telegram takes it (``uncertain``, ``once``: see
        :meth:`bot.outbox.telegram.BotApi.request`); its message id, None when Telegram
        refuses the message itself."""
        try:
            msg = await self.api.request("sendMessage", once=once, uncertain=uncertain,
                                      chat_id=chat_id, text=text, reply_markup=markup,
                                      parse_mode=HTML)
        except Refused as exc:
            if exc.says("chat not found"):
                raise Lost from exc
            log.warning("chat %s refused a message: %s", chat_id, exc.message)
            return None
        self._seen(chat_id, msg["message_id"])
        metrics.sent(kind)
        return int(msg["message_id"])

    async def _edit(self, chat_id: int, message_id: int, text: str,
                    markup: str | None) -> bool:
        """Edit until Telegram takes it; False when the message is gone or not editable."""
        try:
            await self.api.request("editMessageText", chat_id=chat_id, message_id=message_id,
                                text=text, reply_markup=markup, parse_mode=HTML)
        except Refused as exc:
            if exc.says("not found", "can't be edited"):
                self._chat(chat_id).table_is(None)
                return False
            if not exc.says("not modified"):
                log.warning("edit refused in chat %s: %s", chat_id, exc.message)
        return True


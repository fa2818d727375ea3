"""The bot's posts in a group, as the courier makes them (:mod:`bot.outbox.courier`): each
post records the newest message id the bot knows in the chat, and a table post of unknown
outcome may leave a twin, which is found here and loses its buttons. The table message's own
upkeep builds on this (:mod:`bot.outbox.table_message`).

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
message nobody recorded (:meth:`GroupPosts._resolve_twins`). It costs one
editMessageReplyMarkup per id, in the group's budget (about 20 a minute), before the post
is marked done; so one post strips at most :data:`TWIN_PASS` ids, the floors rise to the
last of them, and the next table post goes on from there. An edit refused for the budget
or left unanswered (a 5xx, a timeout) three times in a row ends the pass there, the
floors below that id, and the next post, even one of sure outcome, searches again. So an
orphan is found however many messages, workers and coups come between.

A closing post whose answer was lost is found another way, by the keyboard it carries
(:meth:`GroupPosts._find_post`): each id after the newest known, up to :data:`TWIN_WINDOW`
of them and past deleted ones, except the recorded ids, is asked to take that keyboard,
one edit each (two where a message of the bot's without it takes it, and loses it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.ops import metrics
from bot.outbox.kinds import CLOSE, GROUP, SETTLE, TABLE
from bot.outbox.pace import Pace
from bot.outbox.ratelimit import retry_seconds
from bot.outbox.telegram import HTML, BotApi, Lost, Refused
from bot.view.screens import TableScreen
from storage.base import KEEP_SENT, Storage

log = logging.getLogger(__name__)

# How many message ids below a table post may hold the twin of an earlier post of unknown
# outcome when the bot knew no message of its own in the chat before that post (its floor
# is 0: the chat's very first post); with a known floor the whole interval is searched.
TWIN_WINDOW = 20
# How many ids one table post strips at most, for twins of posts of unknown outcome (one
# edit each, in the group's budget, before the post is marked done); the floor rises past
# them, and the next post goes on from there.
TWIN_PASS = 40


@dataclass
class ChatTable:
    """What this process knows of one chat's table message and the bot's posts around it."""

    later: asyncio.TimerHandle | None = None
    """The ring to look at the table again once the group's budget allows an edit."""
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
    table post (:meth:`GroupPosts._resolve_twins`). True until read, and after a takeover."""
    can_pin: bool | None = None
    """Whether the bot may pin in the chat (None: not asked yet)."""

    def table_is(self, message_id: int | None) -> None:
        """The live table message is now ``message_id`` (None: there is none)."""
        self.table_known, self.table_id = True, message_id


class GroupPosts:
    """The bot's posts in every group it delivers: made, edited, retired, and their twins."""

    def __init__(self, api: BotApi, storage: Storage, pace: Pace) -> None:
        self.api, self.storage, self.pace = api, storage, pace
        self.chats: dict[int, ChatTable] = {}

    def _chat(self, chat_id: int) -> ChatTable:
        """What is known of the chat's posts, kept from its first use on."""
        chat = self.chats.get(chat_id)
        if chat is None:
            chat = self.chats[chat_id] = ChatTable()
        return chat

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

    async def send(self, chat_id: int, text: str, markup: str | None,
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

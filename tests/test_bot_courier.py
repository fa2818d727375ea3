"""The courier under kills and bursts: one live table message per chat, one post per table.

Seen in a kill test: a worker killed between posting a new table message and retiring the
one before it left two messages with live buttons until the table closed (the restarted
courier learned only the newest); and two table posts pending together (a result, then
"the bank passes") each posted the same table, the first retired at once. And a worker
killed after Telegram took a table post and before its message id was recorded left that
message live for good when the post was then skipped for a later one (no twin searched).

The searches for a post whose answer was lost, seen in review: the closing post's search
spun for good in a chat that refused the bot, stopped at two deleted messages and posted
the closing text twice, and took the buttons off a picker a command had just posted; the
twin strip counted a 502 as done, and after a refusal for the budget no later post
searched again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    PREFERRED,
    RecordingBot,
    Sent,
    make_host,
    press,
    seat_three,
    table_message,
)

from bot.outbox import payloads
from bot.outbox.kinds import GROUP

CLOSED = ("The table is closed; every chip went back to the wallets.\n\nTable closed (an "
          "unfinished coup is void). Back to the wallets: Ann: 1000; Bob: 1000")


class Killed(BaseException):
    """The process dies here (nothing of it catches this)."""


@dataclass
class DyingBot(RecordingBot):
    """Telegram; while ``die_at_retire`` is set, the courier's process dies the moment it
    has posted a new table message and goes to retire the one before it."""

    die_at_retire: bool = False
    die_at_post: bool = False
    """The process dies once Telegram has made a table post, before it hears the answer."""
    died: bool = False

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any]) -> Any:
        if self.die_at_post and method == "sendMessage" and api_kwargs.get("reply_markup"):
            await super().do_api_request(method, api_kwargs)
            self.die_at_post, self.died = False, True
            raise Killed
        if self.die_at_retire and (method == "editMessageReplyMarkup" or (
                method == "editMessageText" and str(api_kwargs["text"]).endswith(" ⬇️"))):
            self.die_at_retire, self.died = False, True
            raise Killed
        return await super().do_api_request(method, api_kwargs)


def live(bot: RecordingBot) -> list[int]:
    """The group's messages that carry buttons."""
    return [m.message_id for m in bot.chat(CHAT) if m.markup is not None]


async def test_a_kill_between_a_new_table_post_and_the_old_ones_retirement_leaves_one_live(
        make_host: Any) -> None:  # noqa: F811
    bot = DyingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    bot.die_at_retire = True
    for _ in range(200):  # play until a new coup's table message is posted
        table = await host.tables.load(CHAT)
        awaited = table.engine.awaiting(table.state) or [ANN]
        await press(host, bot, awaited[0], PREFERRED)
        if bot.died:
            break
    assert bot.died
    assert len(live(bot)) == 2  # the new table message, and the old one still live
    await host.courier.stop(0)
    restarted = await make_host(bot)  # the process comes back: the next step delivers
    await restarted.idle()
    table = await restarted.tables.load(CHAT)
    await press(restarted, bot, (table.engine.awaiting(table.state) or [ANN])[0], PREFERRED)
    assert live(bot) == [table_message(bot).message_id]
    assert await restarted.storage.live_sent(chat_id=CHAT) == live(bot)


async def test_table_posts_pending_together_make_one_post(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    posts = len([m for m in bot.chat(CHAT)])
    bot.slow = asyncio.Event()  # Telegram is slow: the items pile up behind the first post
    assert await host.lifecycle.repost(CHAT)
    for _ in range(100):
        if bot.calls[-1:] == [f"send {CHAT}"]:
            break
        await asyncio.sleep(0.01)
    assert await host.lifecycle.repost(CHAT)
    assert await host.lifecycle.repost(CHAT)
    bot.slow.set()
    bot.slow = None
    await host.idle()
    # the first post went, the two that waited together make one
    assert len(bot.chat(CHAT)) == posts + 2
    assert live(bot) == [table_message(bot).message_id]


async def test_a_post_of_what_the_newest_message_already_shows_is_not_made(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    shown = [(m.message_id, m.text) for m in bot.chat(CHAT)]
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.table_post(CHAT)])
    await host.idle()
    assert [(m.message_id, m.text) for m in bot.chat(CHAT)] == shown
    assert await host.storage.pending_outbox() == []
    # /table asks for it at the bottom: it is posted all the same
    assert await host.lifecycle.repost(CHAT)
    await host.idle()
    assert len(bot.chat(CHAT)) == len(shown) + 1
    assert live(bot) == [table_message(bot).message_id]


async def orphaned(host: Any, bot: DyingBot) -> int:
    """The process dies once Telegram has made a table post (/table), before it hears the
    answer: the message id of that post, recorded nowhere."""
    bot.die_at_post = True
    assert await host.lifecycle.repost(CHAT)  # /table: a new post, whose id goes unrecorded
    for _ in range(100):
        if bot.died:
            break
        await asyncio.sleep(0.01)
    assert bot.died
    await host.courier.stop(0)
    return bot.chat(CHAT)[-1].message_id


async def test_a_kill_between_a_table_post_and_its_record_leaves_no_live_twin(
        make_host: Any) -> None:  # noqa: F811
    bot = DyingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    orphan = await orphaned(host, bot)
    # while the chat is not delivered, the table is asked for again: the post of unknown
    # outcome waits in the outbox before a later one, which makes it needless
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.table_post(CHAT, asked=True)])
    for _ in range(3):  # and the chat talks
        bot.next_id += 1
    restarted = await make_host(bot)
    await restarted.idle()
    assert live(bot) == [table_message(bot).message_id]
    assert orphan not in live(bot)
    assert await restarted.storage.live_sent(chat_id=CHAT) == live(bot)
    assert await restarted.storage.twin_floors(chat_id=CHAT) == []


@dataclass
class FaultyBot(DyingBot):
    """Telegram with scripted refusals: ``faults`` holds (method, message id or None for any,
    the error), each raised once, before the call takes effect, at the first call it fits;
    with ``gone_after_lost`` the group refuses the bot for good once a post's answer is
    lost (kicked, or the group migrated)."""

    faults: list[tuple[str, int | None, TelegramError]] = field(default_factory=list)
    gone_after_lost: TelegramError | None = None
    gone: TelegramError | None = None
    made: list[tuple[str, int | None]] = field(default_factory=list)
    """Every call, with its message id."""

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any]) -> Any:
        self.made.append((method, api_kwargs.get("message_id")))
        if self.gone is not None and api_kwargs.get("chat_id") == CHAT:
            raise self.gone
        for fault in self.faults:
            if fault[0] == method and fault[1] in (None, api_kwargs.get("message_id")):
                self.faults.remove(fault)
                raise fault[2]
        try:
            return await super().do_api_request(method, api_kwargs)
        except TelegramError:
            if method == "sendMessage" and self.gone_after_lost is not None:
                self.gone = self.gone_after_lost
            raise


async def two_seated(host: Any, bot: RecordingBot) -> None:
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB):
        await press(host, bot, player, ["join"])


async def three_seated(make_host: Any) -> tuple[FaultyBot, Any]:  # noqa: F811
    bot = FaultyBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    return bot, host


async def one_live_and_no_floor(host: Any, bot: RecordingBot) -> None:
    """The table message is the one message with buttons, and no search is left to do."""
    assert live(bot) == [table_message(bot).message_id]
    assert await host.storage.twin_floors(chat_id=CHAT) == []


def closings(bot: RecordingBot) -> list[Any]:
    return [m for m in bot.chat(CHAT) if m.text == CLOSED]


def picker() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Twenty-one", callback_data="x")]])


@pytest.mark.parametrize("gone", [Forbidden("Forbidden: bot was kicked from the group chat"),
                                  ChatMigrated(-1009)])
async def test_a_closing_search_in_a_chat_that_refuses_the_bot_ends(
        make_host: Any, gone: TelegramError) -> None:  # noqa: F811
    bot = FaultyBot()
    host = await make_host(bot)
    await two_seated(host, bot)
    # the closing post goes through, its answer is lost, and the group is gone since
    bot.lose_answers["send_message"] = 1
    bot.gone_after_lost = gone
    assert await host.lifecycle.close_table(CHAT) is None
    chat = host.courier.chats[CHAT]
    for _ in range(300):
        await asyncio.sleep(0.01)
        if chat.lost and not chat.sending():
            break
    # the chat's courier stops there: the closing post waits for the group to come back
    assert (chat.lost, chat.sending()) == (True, False)
    assert len(closings(bot)) == 1
    assert [i.kind for i in await host.storage.pending_outbox(chat_id=CHAT)] == ["close"]


async def test_a_lost_closing_post_is_found_past_two_deleted_messages(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await two_seated(host, bot)
    bot.next_id += 2  # two messages since, deleted: "message to edit not found"
    bot.lose_answers["send_message"] = 1
    assert await host.lifecycle.close_table(CHAT) is None
    await host.idle()
    assert [(m.text, m.markup) for m in closings(bot)] == [(CLOSED, None)]


async def test_a_picker_posted_before_a_lost_closing_post_keeps_its_buttons(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await two_seated(host, bot)
    # /closetable, and at once /newtable and /language: their pickers come before the
    # closing post, which goes through with its answer lost
    bot.slow = asyncio.Event()
    bot.lose_answers["send_message"] = 1
    assert await host.lifecycle.close_table(CHAT) is None
    for _ in range(100):
        if bot.calls[-1:] == [f"send {CHAT}"]:
            break
        await asyncio.sleep(0.01)
    pickers = []
    for live in (True, False):  # /newtable's picker is retired by a table post, not /language's
        pickers.append(bot.next_id)
        bot.messages[bot.next_id] = Sent(CHAT, bot.next_id, "Which game?", picker())
        bot.next_id += 1
        await host.storage.record_sent(chat_id=CHAT, kind=GROUP, message_id=pickers[-1],
                                       live=live)
    bot.slow.set()
    bot.slow = None
    await host.idle()
    assert [(m.text, m.markup) for m in closings(bot)] == [(CLOSED, None)]
    assert [bot.messages[i].markup for i in pickers] == [picker(), picker()]


async def test_an_orphan_whose_strip_meets_a_502_loses_its_buttons_all_the_same(
        make_host: Any) -> None:  # noqa: F811
    bot, host = await three_seated(make_host)
    orphan = await orphaned(host, bot)
    # the restarted process strips it, and Telegram answers that edit with a 502 once
    bot.faults = [("editMessageReplyMarkup", orphan, NetworkError("Bad Gateway"))]
    restarted = await make_host(bot)
    await restarted.idle()
    assert bot.faults == []
    assert orphan not in live(bot)
    await one_live_and_no_floor(restarted, bot)


async def test_a_twin_the_budget_kept_from_its_strip_is_stripped_at_the_next_post(
        make_host: Any) -> None:  # noqa: F811
    bot, host = await three_seated(make_host)
    # /table: the post goes through and its answer is lost, so it is made again; its twin's
    # strip is refused for the budget, three times
    twin = bot.next_id
    bot.lose_answers["send_message"] = 1
    bot.faults = [("editMessageReplyMarkup", twin, RetryAfter(0)) for _ in range(3)]
    assert await host.lifecycle.repost(CHAT)
    await host.idle()
    assert bot.faults == []
    assert twin in live(bot)  # for now
    # the next post, a sure one, searches again
    assert await host.lifecycle.repost(CHAT)
    await host.idle()
    await one_live_and_no_floor(host, bot)


async def test_a_twin_search_costs_forty_edits_a_post_and_skips_the_known_messages(
        make_host: Any) -> None:  # noqa: F811
    bot, host = await three_seated(make_host)
    orphan = await orphaned(host, bot)
    bot.next_id += 100  # the chat talks a hundred messages while no worker delivers it
    # ... among them a /language picker the bot posted (recorded, its buttons its own)
    language = orphan + 50
    bot.messages[language] = Sent(CHAT, language, "Language?", picker())
    await host.storage.record_sent(chat_id=CHAT, kind=GROUP, message_id=language)
    ceiling = bot.next_id
    restarted = await make_host(bot)
    await restarted.idle()
    assert orphan not in live(bot)

    def stripped() -> list[int]:
        return [i for method, i in bot.made if method == "editMessageReplyMarkup"
                and i is not None and orphan <= i < ceiling]

    # one pass: forty ids from the floor up, the orphan first; the rest waits
    assert stripped() == list(range(orphan, orphan + 40))
    [(_, floor)] = await restarted.storage.twin_floors(chat_id=CHAT)
    assert floor == orphan + 39
    for _ in range(3):  # the next posts go on from there
        assert await restarted.lifecycle.repost(CHAT)
        await restarted.idle()
    assert stripped() == [i for i in range(orphan, ceiling) if i != language]
    assert await restarted.storage.twin_floors(chat_id=CHAT) == []
    assert live(bot) == [language, table_message(bot).message_id]
    assert bot.messages[language].markup == picker()


async def test_a_closing_post_made_without_its_keyboard_is_not_edited_again(
        make_host: Any) -> None:  # noqa: F811
    bot = FaultyBot()
    host = await make_host(bot)
    await two_seated(host, bot)
    # Telegram refuses the closing post's keyboard: the text goes plain
    bot.faults = [("sendMessage", None, BadRequest("Button_type_invalid"))]
    assert await host.lifecycle.close_table(CHAT) is None
    await host.idle()
    [closing] = closings(bot)
    assert closing.markup is None
    assert ("editMessageReplyMarkup", closing.message_id) not in bot.made

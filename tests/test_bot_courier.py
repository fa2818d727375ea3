"""The courier under kills and bursts: one live table message per chat, one post per table.

Seen in a kill test: a worker killed between posting a new table message and retiring the
one before it left two messages with live buttons until the table closed (the restarted
courier learned only the newest); and two table posts pending together (a result, then
"the bank passes") each posted the same table, the first retired at once. And a worker
killed after Telegram took a table post and before its message id was recorded left that
message live for good when the post was then skipped for a later one (no twin searched).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    CHAT,
    PREFERRED,
    RecordingBot,
    make_host,
    press,
    seat_three,
    table_message,
)

from bot.table import sends


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
    await host.tables.commit(table, outbox=[sends.table_post(CHAT)])
    await host.idle()
    assert [(m.message_id, m.text) for m in bot.chat(CHAT)] == shown
    assert await host.storage.pending_outbox() == []
    # /table asks for it at the bottom: it is posted all the same
    assert await host.lifecycle.repost(CHAT)
    await host.idle()
    assert len(bot.chat(CHAT)) == len(shown) + 1
    assert live(bot) == [table_message(bot).message_id]


async def test_a_kill_between_a_table_post_and_its_record_leaves_no_live_twin(
        make_host: Any) -> None:  # noqa: F811
    bot = DyingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    bot.die_at_post = True
    assert await host.lifecycle.repost(CHAT)  # /table: a new post, whose id goes unrecorded
    for _ in range(100):
        if bot.died:
            break
        await asyncio.sleep(0.01)
    assert bot.died
    orphan = bot.chat(CHAT)[-1].message_id
    await host.courier.stop(0)
    # while the chat is not delivered, the table is asked for again: the post of unknown
    # outcome waits in the outbox before a later one, which makes it needless
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[sends.table_post(CHAT, asked=True)])
    for _ in range(3):  # and the chat talks
        bot.next_id += 1
    restarted = await make_host(bot)
    await restarted.idle()
    assert live(bot) == [table_message(bot).message_id]
    assert orphan not in live(bot)
    assert await restarted.storage.live_sent(chat_id=CHAT) == live(bot)
    assert await restarted.storage.twin_floors(chat_id=CHAT) == []

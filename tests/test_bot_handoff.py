"""The courier takes a commit's outbox items as the commit hands them over, with no read.

A commit of the table service rings the courier with the items it wrote
(:class:`storage.base.Queued`); the courier reads the chat's outbox only when something
else may be pending: at start (what a previous run left), and when a row written without a
hand-off comes in between (as another worker's commit would be).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    RecordingBot,
    hosted_on,
    make_host,
    press,
    private_keyboard,
    seat_three,
)

from bot.outbox import payloads
from storage.base import OutboxItem, Queued
from storage.sqlite import SqliteStorage


class Reads(SqliteStorage):
    """The real SQLite storage, counting the reads of one chat's outbox (the courier's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads = 0

    async def pending_outbox(self, *, chat_id: int | None = None,
                             limit: int = 500) -> list[OutboxItem]:
        if chat_id is not None:
            self.reads += 1
        return await super().pending_outbox(chat_id=chat_id, limit=limit)


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every host of these tests keeps its tables in a :class:`Reads` storage, and deals
    from the same shoe every run."""
    hosted_on(monkeypatch, Reads)


def texts(bot: RecordingBot, chat_id: int) -> list[str]:
    return [m.text for m in bot.chat(chat_id)]


async def test_steps_are_delivered_as_their_commits_handed_them_over(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    storage: Reads = host.storage
    await seat_three(host, bot)
    assert storage.reads == 1  # the table's opening post: written with no hand-off
    assert await press(host, bot, ANN, ["start"]) == "▶️ Start · now Bob"
    assert await press(host, bot, BOB, ["cut"]) == "✂️ Cut · now Ann"
    assert await press(host, bot, ANN, ["stake"]) == "Stake · now Bob"
    assert {b.kind for b in private_keyboard(bot, BOB)} >= {"stake", "pass"}
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.group_message(CHAT, "one"),
                                            payloads.dm_message(ANN, "two")])
    await host.idle()
    assert (texts(bot, CHAT)[-1], texts(bot, ANN)[-1]) == ("one", "two")
    assert storage.reads == 1
    assert await storage.pending_outbox() == []


async def test_what_a_previous_run_left_is_read_once_then_commits_hand_over(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await host.courier.stop(0)  # the process dies: what it commits now stays pending
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.group_message(CHAT, "one"),
                                            payloads.dm_message(ANN, "two")])
    restarted = await make_host(bot)
    await restarted.idle()
    storage: Reads = restarted.storage
    assert (texts(bot, CHAT)[-1], texts(bot, ANN)[-1]) == ("one", "two")
    # read at start for what was left, and for the open table republished (its ring asks)
    assert storage.reads == 2
    table = await restarted.tables.load(CHAT)
    await restarted.tables.commit(table, outbox=[payloads.group_message(CHAT, "three")])
    await restarted.idle()
    assert texts(bot, CHAT)[-2:] == ["one", "three"]
    assert storage.reads == 2


async def test_a_row_written_without_a_hand_off_in_between_is_read_and_sent_first(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    storage: Reads = host.storage
    await seat_three(host, bot)
    storage.reads = 0
    table = await host.tables.load(CHAT)
    # another writer's commit (another worker's): its row, and no ring here yet
    await storage.update_meta(chat_id=CHAT, meta_json=table.rec.meta_json,
                              expected_rev=table.rec.rev,
                              outbox=[payloads.group_message(CHAT, "theirs")])
    host.tables.forget(CHAT)
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.group_message(CHAT, "ours")])
    await host.idle()
    assert texts(bot, CHAT)[-2:] == ["theirs", "ours"]
    assert storage.reads == 1
    # the read took the chat whole again: the next commit is handed over
    table = await host.tables.load(CHAT)
    await host.tables.commit(table, outbox=[payloads.group_message(CHAT, "next")])
    await host.idle()
    assert texts(bot, CHAT)[-3:] == ["theirs", "ours", "next"]
    assert storage.reads == 1


async def test_a_hand_off_heard_twice_is_sent_once(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    storage: Reads = host.storage
    await seat_three(host, bot)
    storage.reads = 0
    table = await host.tables.load(CHAT)
    queued = Queued()
    await storage.update_meta(chat_id=CHAT, meta_json=table.rec.meta_json,
                              expected_rev=table.rec.rev, queued=queued,
                              outbox=[payloads.group_message(CHAT, "once"),
                                      payloads.dm_message(ANN, "once too")])
    host.tables.forget(CHAT)
    host.courier.doorbell.ring(CHAT, True, queued)
    await host.idle()
    host.courier.doorbell.ring(CHAT, True, queued)  # late: its items were taken already
    await host.idle()
    assert texts(bot, CHAT).count("once") == 1
    assert texts(bot, ANN).count("once too") == 1
    assert storage.reads == 0

"""Facts of presence written behind the clock (bot/table/clock.py): with one worker, the
clock's memory of a decision's facts is the truth at once, and the storage gets them soon
after, many chats' in one write; a stop or a closing table writes what is kept first;
with several workers each fact is written before the clock goes on.

The real host in-process on a real SQLite file that counts its writes of facts of presence
(each call one transaction), with a recording Telegram."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    RecordingBot,
    make_host,
)
from test_one_commit import anns_stake_is_next, hosts_on

from bot.outbox.reports import GROUP, PAGE, PROMPT
from bot.table.clock import Clock
from storage.base import Shown
from storage.sqlite import SqliteStorage

OTHER = -200  # a second group with a table of its own


class Counted(SqliteStorage):
    """The real SQLite storage, keeping each write of facts of presence as (chat, decision,
    (player, channel) of each fact), per transaction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.presence_writes: list[list[tuple[int, int, list[tuple[int, str]]]]] = []

    async def add_presence_many(self, *, facts: Sequence[tuple[int, int, Sequence[Shown]]]
                                ) -> None:
        self.presence_writes.append([(chat, decision, [(s.player, s.channel) for s in shown])
                                     for chat, decision, shown in facts])
        await super().add_presence_many(facts=facts)


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every host of these tests keeps its tables in a :class:`Counted` storage."""
    hosts_on(monkeypatch, Counted)


async def two_tables(make_host: Any) -> tuple[Any, Counted, int, int]:  # noqa: F811
    """Ann's stake awaited at CHAT's twenty-one; OTHER's table open, nobody seated, its
    facts read once (the clock holds them). Returns the host, its storage, and each table's
    decision; the counted writes start from here."""
    bot = RecordingBot()
    host = await make_host(bot)
    await anns_stake_is_next(host, bot)
    assert await host.lifecycle.open_table(OTHER, "twenty_one", ANN, "en") is None
    await host.idle()
    clock: Clock = host.tables.clock
    other = (await host.tables.load(OTHER)).meta.decision
    assert await clock.presence(await host.tables.load(OTHER), other) == []
    await clock.flush()
    storage: Counted = host.storage
    storage.presence_writes.clear()
    return host, storage, (await host.tables.load(CHAT)).meta.decision, other


async def until_written(storage: Counted) -> None:
    for _ in range(1000):
        if storage.presence_writes:
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the facts of presence were not written")


def seen(facts: list[Shown]) -> list[tuple[int, str]]:
    """Whose turn was shown where, by player and channel (the courier's deliveries of one
    moment come in either order)."""
    return sorted((f.player, f.channel) for f in facts)


async def test_facts_of_several_chats_are_kept_at_once_and_stored_in_one_write(
        make_host: Any) -> None:  # noqa: F811
    host, storage, decision, other = await two_tables(make_host)
    clock: Clock = host.tables.clock
    table = await host.tables.load(CHAT)
    await clock.turn_seen(CHAT, decision, [ANN], PAGE)  # her open page showed her turn
    await clock.turn_seen(OTHER, other, [ANN, BOB], PAGE)
    # the clock knows them at once; nothing was written under the chats' locks
    assert storage.presence_writes == []
    assert seen(await clock.presence(table, decision)) == [
        (ANN, GROUP), (ANN, PAGE), (ANN, PROMPT)]
    assert seen(await clock.presence(await host.tables.load(OTHER), other)) == [
        (ANN, PAGE), (BOB, PAGE)]
    # a moment later both chats' facts are stored in one transaction
    await until_written(storage)
    assert storage.presence_writes == [[(CHAT, decision, [(ANN, PAGE)]),
                                        (OTHER, other, [(ANN, PAGE), (BOB, PAGE)])]]
    assert seen(await storage.presence(chat_id=CHAT, decision=decision)) == [
        (ANN, GROUP), (ANN, PAGE), (ANN, PROMPT)]
    assert seen(await storage.presence(chat_id=OTHER, decision=other)) == [
        (ANN, PAGE), (BOB, PAGE)]


async def test_facts_kept_at_stop_are_stored_and_later_ones_at_once(
        make_host: Any) -> None:  # noqa: F811
    host, storage, decision, other = await two_tables(make_host)
    clock: Clock = host.tables.clock
    await clock.turn_seen(CHAT, decision, [ANN], PAGE)
    await host.lifecycle.stop()  # at once: the write was not due yet
    assert storage.presence_writes == [[(CHAT, decision, [(ANN, PAGE)])]]
    assert seen(await storage.presence(chat_id=CHAT, decision=decision)) == [
        (ANN, GROUP), (ANN, PAGE), (ANN, PROMPT)]
    # stopped: a fact heard still (a report already being acted on) is stored before
    # the clock goes on
    await clock.turn_seen(OTHER, other, [BOB], PAGE)
    assert storage.presence_writes[1:] == [[(OTHER, other, [(BOB, PAGE)])]]
    assert seen(await storage.presence(chat_id=OTHER, decision=other)) == [(BOB, PAGE)]


async def test_a_closing_table_stores_its_kept_facts_before_they_go_with_it(
        make_host: Any) -> None:  # noqa: F811
    host, storage, _, other = await two_tables(make_host)
    await host.tables.clock.turn_seen(OTHER, other, [BOB], PAGE)
    assert await host.lifecycle.close_table(OTHER) is None
    assert storage.presence_writes == [[(OTHER, other, [(BOB, PAGE)])]]
    await asyncio.sleep(0.05)  # no write of them comes after the table's closing
    assert len(storage.presence_writes) == 1
    assert await storage.presence(chat_id=OTHER, decision=other) == []


async def test_with_several_workers_each_fact_is_stored_before_the_clock_goes_on(
        make_host: Any) -> None:  # noqa: F811
    host, storage, decision, other = await two_tables(make_host)
    # the clock a worker among several has (the tables' chat locks are the database's)
    shared = Clock(host.tables, host.deadlines, decision_timeout=60, turn_dms=True,
                   shared=True)
    await shared.turn_seen(CHAT, decision, [ANN], PAGE)
    assert storage.presence_writes == [[(CHAT, decision, [(ANN, PAGE)])]]
    await shared.turn_seen(OTHER, other, [ANN, BOB], PAGE)
    assert storage.presence_writes[1:] == [[(OTHER, other, [(ANN, PAGE), (BOB, PAGE)])]]
    assert seen(await storage.presence(chat_id=CHAT, decision=decision)) == [
        (ANN, GROUP), (ANN, PAGE), (ANN, PROMPT)]
    # it keeps no facts of its own: the next reading is the storage's
    assert shared.facts == {} and shared.pending == []

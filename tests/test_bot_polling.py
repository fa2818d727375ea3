"""Polling's journal of fetched updates (bot/gateway/polling.py) on a real SQLite file: the
marks of handled updates ride on the next batch's write instead of a write each, and a
crash that loses a mark only hands that update to the next start again."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot.gateway.polling import DONE_DELAY, Journal
from storage.sqlite import SqliteStorage


class Counted(SqliteStorage):
    """SQLite storage that counts the journal's writes."""

    writes = 0

    async def keep_updates(self, *, updates: Sequence[tuple[int, str]], read_below: int,
                           done: Sequence[int] = ()) -> None:
        self.writes += 1
        await super().keep_updates(updates=updates, read_below=read_below, done=done)

    async def updates_done(self, *, update_ids: Sequence[int]) -> None:
        self.writes += 1
        await super().updates_done(update_ids=update_ids)


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Counted]:
    db = Counted(tmp_path / "banco.db", starting_grant=1000, daily_bonus=100)
    await db.open()
    yield db
    await db.close()


def press(update_id: int) -> dict[str, object]:
    return {"update_id": update_id,
            "callback_query": {"id": f"q{update_id}", "data": "a|-1|1|0|hit"}}


async def test_a_hundred_presses_cost_a_write_each_not_two(storage: Counted) -> None:
    journal = Journal(storage)
    await journal.left()
    # polling: each getUpdates brings one press (asked from the one before on), which is
    # handled before the next getUpdates answers
    for n in range(1, 101):
        assert await journal.keep([press(n)], n) == [press(n)]
        await journal.done(n)
    print(f"\n100 presses: {storage.writes} writes before the stop")
    assert storage.writes == 100  # one per batch; each carried the marks before it
    await journal.close()  # the stop writes the last mark
    assert storage.writes == 101
    assert [(k.update_id, k.done) for k in await storage.kept_updates()] == [(100, True)]


async def test_a_crash_before_a_mark_is_written_hands_only_that_update_over_again(
        storage: Counted) -> None:
    journal = Journal(storage)
    await journal.left()
    for n in (1, 2, 3):
        await journal.keep([press(n)], n)
        await journal.done(n)
    # killed now: 3's mark was not written; the next start hands 3 (only) to the handlers
    # again, where its press finds the step it made (its answer is repeated, not applied)
    again = Journal(storage)
    assert [(k.update_id, json.loads(k.body)) for k in await again.left()] == [(3, press(3))]
    # and Telegram's copy of it, sent again, is dropped as it comes
    assert await again.keep([press(3), press(4)], 3) == [press(4)]
    if journal.writer is not None:
        journal.writer.cancel()


async def test_with_no_batch_coming_the_marks_are_written_together_soon(
        storage: Counted) -> None:
    journal = Journal(storage)
    await journal.left()
    await journal.keep([press(1), press(2), press(3)], 1)
    for n in (1, 2, 3):
        await journal.done(n)
    assert storage.writes == 1
    await asyncio.sleep(DONE_DELAY + 0.2)
    assert storage.writes == 2
    assert [(k.update_id, k.done) for k in await storage.kept_updates()] == [
        (1, True), (2, True), (3, True)]


async def test_an_update_with_broken_unicode_is_kept_and_handed_over_as_it_came(
        storage: Counted) -> None:
    # a lone surrogate (\ud800), as a broken client may send: no UTF-8 text can hold it
    broken = {"update_id": 5, "message": {"message_id": 1, "text": "200 \ud800 chips"}}
    journal = Journal(storage)
    await journal.left()
    assert await journal.keep([broken, press(6)], 5) == [broken, press(6)]
    # killed before either was handled: the next start hands both over, the text as it came
    [first, second] = await Journal(storage).left()
    assert json.loads(first.body) == broken and json.loads(second.body) == press(6)

"""The durable outbox and the table rev, on SQLite and PostgreSQL alike.

What a step must send commits with the step (or not at all), comes back in
order until it is finished, and a finished item keeps no hidden card.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage_backends import BACKENDS, GRANT, Backend, backend

from games.engine import Transfer
from storage.base import (
    KEEP_SENT,
    InsufficientFunds,
    OutboxDraft,
    OutboxItem,
    OutboxItemNotFound,
    Queued,
    StaleVersion,
    TableExists,
    TableNotFound,
)

CHAT = -100
OTHER = -200
CARDS = {"cards": ["9h", "Ks"]}  # a DM's hidden cards: must not outlive the send


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        yield b


def t(src: str, dst: str, amount: int, reason: str = "move") -> Transfer:
    return Transfer(src=src, dst=dst, amount=amount, reason=reason)


def d(kind: str, target: int, **payload: Any) -> OutboxDraft:
    return OutboxDraft(kind=kind, target=target, payload=payload)


async def open_table(db: Backend, chat: int = CHAT, *drafts: OutboxDraft) -> None:
    await db.storage.create_table(chat_id=chat, game="baccarat", settings={},
                                  state_json='{"v": 0}', version=0, outbox=drafts)


async def step(db: Backend, version: int, *transfers: Transfer, chat: int = CHAT,
               outbox: tuple[OutboxDraft, ...] = (), expected_rev: int | None = None) -> int:
    return await db.storage.commit_step(chat_id=chat, expected_version=version,
                                        state_json=f'{{"v": {version + 1}}}',
                                        version=version + 1, transfers=list(transfers), coup=1,
                                        deadline=None, outbox=outbox, expected_rev=expected_rev)


def shape(items: list[OutboxItem]) -> list[tuple[int, str, int, dict[str, Any], int]]:
    return [(i.chat_id, i.kind, i.target, i.payload, i.attempts) for i in items]


async def outbox_rows(db: Backend) -> int:
    return int((await db.raw("SELECT COUNT(*) FROM outbox"))[0][0])


async def test_a_steps_drafts_commit_with_it_and_come_back_in_order(db: Backend) -> None:
    before = time.time()
    await open_table(db, CHAT, d("group", CHAT, text="table open"))
    await open_table(db, OTHER)
    await step(db, 0, t("wallet:7", "stack:7", 100, "buy_in"),
               outbox=(d("dm", 7, **CARDS), d("table", CHAT, turn=7), d("group", CHAT, n=1)))
    await step(db, 0, chat=OTHER, outbox=(d("group", OTHER, n=2),))
    await step(db, 1, outbox=(d("settle", CHAT, won=7),))
    mine = await db.storage.pending_outbox(chat_id=CHAT)
    assert shape(mine) == [(CHAT, "group", CHAT, {"text": "table open"}, 0),
                           (CHAT, "dm", 7, CARDS, 0),
                           (CHAT, "table", CHAT, {"turn": 7}, 0),
                           (CHAT, "group", CHAT, {"n": 1}, 0),
                           (CHAT, "settle", CHAT, {"won": 7}, 0)]
    assert [i.id for i in mine] == sorted(i.id for i in mine)
    assert all(before <= i.created_at <= time.time() + 1 for i in mine)
    # Across chats: one list by id, the other chat's item where its step committed.
    everything = await db.storage.pending_outbox()
    assert [(i.chat_id, i.kind) for i in everything] == [
        (CHAT, "group"), (CHAT, "dm"), (CHAT, "table"), (CHAT, "group"), (OTHER, "group"),
        (CHAT, "settle")]
    assert [i.kind for i in await db.storage.pending_outbox(chat_id=CHAT, limit=2)] == [
        "group", "dm"]
    assert await db.storage.pending_outbox(chat_id=CHAT - 1) == []
    # A logged item shows no hidden card.
    assert "9h" not in repr(mine[1]) and "9h" not in str(mine[1])
    assert "9h" not in repr(d("dm", 7, **CARDS))


async def test_a_write_tells_what_it_queued_as_a_read_returns_it_after_the_newest_pending(
        db: Backend) -> None:
    await open_table(db, CHAT, d("group", CHAT, text="table open"))
    await open_table(db, OTHER)
    opened = await db.storage.pending_outbox(chat_id=CHAT)
    queued = Queued()
    await db.storage.commit_step(chat_id=CHAT, expected_version=0, state_json='{"v": 1}',
                                 version=1, transfers=[], coup=1, deadline=None,
                                 outbox=(d("dm", 7, **CARDS), d("table", CHAT, turn=7)),
                                 queued=queued)
    assert queued.after == opened[0].id  # the table's post, still pending
    assert queued.items == (await db.storage.pending_outbox(chat_id=CHAT))[1:]
    assert shape(queued.items) == [(CHAT, "dm", 7, CARDS, 0), (CHAT, "table", CHAT, {"turn": 7}, 0)]
    # another chat's rows are not this chat's: it had none pending
    other = Queued()
    await step(db, 0, chat=OTHER, outbox=(d("group", OTHER, n=2),))
    await db.storage.finish_outbox(item_id=(await db.storage.pending_outbox(chat_id=OTHER))[0].id)
    rev = (await db.storage.load_table(chat_id=OTHER)).rev
    await db.storage.update_meta(chat_id=OTHER, meta_json='{"a": 1}', expected_rev=rev,
                                 outbox=(d("group", OTHER, n=3),), queued=other)
    assert other.after is None
    assert other.items == await db.storage.pending_outbox(chat_id=OTHER)
    assert shape(other.items) == [(OTHER, "group", OTHER, {"n": 3}, 0)]
    # the newest pending row, whichever write made it; nothing queued: nothing told
    await db.storage.finish_outbox(item_id=queued.items[1].id)
    told = Queued()
    await db.storage.update_meta(chat_id=CHAT, meta_json="{}", expected_rev=1, queued=told)
    assert (told.after, told.items) == (queued.items[0].id, [])
    refused = Queued()
    with pytest.raises(StaleVersion):  # a refused write tells nothing
        await db.storage.update_meta(chat_id=CHAT, meta_json="{}", expected_rev=1,
                                     outbox=(d("group", CHAT, n=4),), queued=refused)
    assert (refused.after, refused.items) == (None, [])


async def test_a_refused_unit_of_work_leaves_no_outbox_row(db: Backend) -> None:
    await open_table(db, CHAT, d("group", CHAT, n=0))
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"))
    rec = await db.storage.load_table(chat_id=CHAT)
    drafts = (d("group", CHAT, n=1), d("dm", 1, **CARDS))
    with pytest.raises(StaleVersion):
        await step(db, 0, outbox=drafts)
    with pytest.raises(InsufficientFunds):
        await step(db, 1, t("stack:1", "pot", 301), outbox=drafts)
    with pytest.raises(InsufficientFunds):  # a new wallet's grant is not enough either
        await step(db, 1, t("wallet:2", "stack:2", GRANT + 1), outbox=drafts)
    with pytest.raises(TableNotFound):
        await step(db, 0, chat=OTHER, outbox=drafts)
    with pytest.raises(TableExists):
        await open_table(db, CHAT, *drafts)
    with pytest.raises(InsufficientFunds):  # chips still on the table
        await db.storage.close_table(chat_id=CHAT, expected_version=1, transfers=[], coup=1,
                                     outbox=drafts)
    with pytest.raises(StaleVersion):
        await db.storage.update_meta(chat_id=CHAT, meta_json='{"x": 1}', expected_rev=0,
                                     outbox=drafts)
    assert await outbox_rows(db) == 1
    assert shape(await db.storage.pending_outbox()) == [(CHAT, "group", CHAT, {"n": 0}, 0)]
    assert await db.storage.load_table(chat_id=CHAT) == rec
    assert await db.storage.table_accounts(chat_id=CHAT) == {"stack:1": 300}


async def test_every_write_raises_the_rev_and_a_wrong_expected_rev_writes_nothing(
        db: Backend) -> None:
    await open_table(db)
    assert (await db.storage.load_table(chat_id=CHAT)).rev == 0
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"), expected_rev=0)
    assert await db.storage.update_meta(chat_id=CHAT, meta_json='{"msg": 5}', expected_rev=1) == 2
    before = await db.storage.load_table(chat_id=CHAT)
    assert (before.version, before.rev, before.meta) == (1, 2, {"msg": 5})
    ledger = await db.raw("SELECT COUNT(*) FROM ledger")
    for stale_rev in (1, 3):  # the version matches; the rev does not
        with pytest.raises(StaleVersion):
            await step(db, 1, t("stack:1", "pot", 10), expected_rev=stale_rev,
                       outbox=(d("group", CHAT, n=1),))
    assert await db.storage.load_table(chat_id=CHAT) == before
    assert await db.raw("SELECT COUNT(*) FROM ledger") == ledger
    assert await db.storage.table_accounts(chat_id=CHAT) == {"stack:1": 300}
    assert await outbox_rows(db) == 0
    await step(db, 1, t("stack:1", "pot", 10), expected_rev=2, outbox=(d("group", CHAT, n=1),))
    after = await db.storage.load_table(chat_id=CHAT)
    assert (after.version, after.rev, after.meta) == (2, 3, {"msg": 5})
    assert await db.storage.table_accounts(chat_id=CHAT) == {"stack:1": 290, "pot": 10}


async def test_update_meta_is_compare_and_set_on_the_rev(db: Backend) -> None:
    await open_table(db)
    rev = await db.storage.update_meta(chat_id=CHAT, meta_json='{"msg": 1}', expected_rev=0,
                                       outbox=(d("table", CHAT, text="board"),))
    assert rev == 1
    with pytest.raises(StaleVersion):  # a writer that read rev 0 lost the race
        await db.storage.update_meta(chat_id=CHAT, meta_json='{"msg": 99}', expected_rev=0,
                                     outbox=(d("table", CHAT, text="lost"),))
    rec = await db.storage.load_table(chat_id=CHAT)
    assert (rec.meta, rec.rev, rec.version) == ({"msg": 1}, 1, 0)
    assert shape(await db.storage.pending_outbox()) == [
        (CHAT, "table", CHAT, {"text": "board"}, 0)]
    with pytest.raises(TableNotFound):
        await db.storage.update_meta(chat_id=OTHER, meta_json='{}', expected_rev=0)
    # Two processes racing from the same rev: exactly one wins, its meta is stored.
    other = db.another()
    await other.open()
    try:
        for round_ in range(10):
            rev = (await db.storage.load_table(chat_id=CHAT)).rev
            results = await asyncio.gather(
                db.storage.update_meta(chat_id=CHAT, meta_json='{"by": "mine"}', expected_rev=rev),
                other.update_meta(chat_id=CHAT, meta_json='{"by": "other"}', expected_rev=rev),
                return_exceptions=True)
            won = [who for who, r in zip(("mine", "other"), results, strict=True) if r == rev + 1]
            assert len(won) == 1, results
            assert sum(isinstance(r, StaleVersion) for r in results) == 1
            rec = await db.storage.load_table(chat_id=CHAT)
            assert (rec.meta, rec.rev) == ({"by": won[0]}, 2 + round_)
    finally:
        await other.close()


async def test_finish_blanks_the_payload_is_idempotent_and_feeds_last_sent(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, outbox=(d("table", CHAT, n=1), d("dm", 7, **CARDS), d("table", CHAT, n=2),
                              d("group", CHAT, n=3), d("table", CHAT, n=4)))
    ids = [i.id for i in await db.storage.pending_outbox(chat_id=CHAT)]
    assert await db.storage.outbox_attempt(item_id=ids[1]) == 1
    assert await db.storage.outbox_attempt(item_id=ids[1]) == 2
    await db.storage.finish_outbox(item_id=ids[0], message_id=501)
    await db.storage.finish_outbox(item_id=ids[1], message_id=502)
    await db.storage.finish_outbox(item_id=ids[2], message_id=503)
    await db.storage.finish_outbox(item_id=ids[3])  # given up: no message
    await db.storage.finish_outbox(item_id=ids[1], message_id=999)  # again: changes nothing
    await db.storage.finish_outbox(item_id=ids[-1] + 1000)  # never existed: fine
    rows = await db.raw("SELECT id, payload, message_id, attempts FROM outbox ORDER BY id")
    assert [(r[0], r[1].replace(" ", ""), r[2], r[3]) for r in rows] == [
        (ids[0], "{}", 501, 0), (ids[1], "{}", 502, 2), (ids[2], "{}", 503, 0),
        (ids[3], "{}", None, 0), (ids[4], '{"n":4}', None, 0)]
    assert shape(await db.storage.pending_outbox()) == [(CHAT, "table", CHAT, {"n": 4}, 0)]
    assert await db.storage.last_sent(chat_id=CHAT, kind="table") == [503]
    assert await db.storage.last_sent(chat_id=CHAT, kind="table", limit=5) == [503, 501]
    assert await db.storage.last_sent(chat_id=CHAT, kind="dm", limit=5) == [502]
    assert await db.storage.last_sent(chat_id=CHAT, kind="group", limit=5) == []
    assert await db.storage.last_sent(chat_id=OTHER, kind="table") == []
    with pytest.raises(OutboxItemNotFound):
        await db.storage.outbox_attempt(item_id=ids[-1] + 1000)


async def test_a_chat_keeps_only_its_newest_sent_rows(db: Backend) -> None:
    await open_table(db)
    await open_table(db, OTHER)
    await step(db, 0, chat=OTHER, outbox=tuple(d("table", OTHER, n=n) for n in range(3)))
    for item in await db.storage.pending_outbox(chat_id=OTHER):
        await db.storage.finish_outbox(item_id=item.id, message_id=item.payload["n"])
    total = KEEP_SENT + 30
    await step(db, 0, outbox=tuple(d("table", CHAT, n=n) for n in range(total)))
    items = await db.storage.pending_outbox(chat_id=CHAT)
    assert len(items) == total
    # The first item stays pending while every later one is sent: pending rows are never pruned.
    for item in items[1:]:
        await db.storage.finish_outbox(item_id=item.id, message_id=item.payload["n"])
    kept = await db.raw("SELECT id FROM outbox WHERE chat_id = ? AND sent_at IS NOT NULL"
                        " ORDER BY id", CHAT)
    assert [r[0] for r in kept] == [i.id for i in items[-KEEP_SENT:]]
    assert shape(await db.storage.pending_outbox()) == [(CHAT, "table", CHAT, {"n": 0}, 0)]
    newest = await db.storage.last_sent(chat_id=CHAT, kind="table", limit=total)
    assert newest == list(range(total - 1, total - 1 - KEEP_SENT, -1))
    # Another chat's history is its own.
    assert await db.storage.last_sent(chat_id=OTHER, kind="table", limit=9) == [2, 1, 0]
    await db.storage.finish_outbox(item_id=items[0].id, message_id=0)
    assert await outbox_rows(db) == KEEP_SENT + 3
    assert await db.storage.outbox_chats() == []
    # Each kind keeps its own newest: a flood of DMs never prunes the live table message.
    await step(db, 1, outbox=tuple(d("dm", 7, n=n) for n in range(KEEP_SENT + 5)))
    for item in await db.storage.pending_outbox(chat_id=CHAT):
        await db.storage.finish_outbox(item_id=item.id, message_id=1000 + item.payload["n"])
    assert await db.storage.last_sent(chat_id=CHAT, kind="table") == [total - 1]
    assert len(await db.storage.last_sent(chat_id=CHAT, kind="dm", limit=999)) == KEEP_SENT


async def test_outbox_rows_outlive_the_table(db: Backend) -> None:
    await open_table(db, CHAT, d("group", CHAT, text="open"))
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"), outbox=(d("table", CHAT, n=1),))
    await db.storage.close_table(chat_id=CHAT, expected_version=1, coup=1,
                                 transfers=[t("stack:1", "wallet:1", 300, "cash_out")],
                                 outbox=(d("settle", CHAT, paid=300), d("dm", 1, bye=True)))
    with pytest.raises(TableNotFound):
        await db.storage.load_table(chat_id=CHAT)
    assert shape(await db.storage.pending_outbox(chat_id=CHAT)) == [
        (CHAT, "group", CHAT, {"text": "open"}, 0), (CHAT, "table", CHAT, {"n": 1}, 0),
        (CHAT, "settle", CHAT, {"paid": 300}, 0), (CHAT, "dm", 1, {"bye": True}, 0)]
    assert await db.storage.outbox_chats() == [CHAT]
    # A new table in the chat continues the same outbox.
    await open_table(db, CHAT, d("group", CHAT, text="again"))
    assert [i.payload for i in await db.storage.pending_outbox(chat_id=CHAT)][-2:] == [
        {"bye": True}, {"text": "again"}]


async def test_outbox_chats_lists_chats_with_undelivered_items(db: Backend) -> None:
    assert await db.storage.outbox_chats() == []
    for chat in (CHAT, OTHER, CHAT - 1):
        await open_table(db, chat)
    await db.storage.update_meta(chat_id=CHAT, meta_json='{}', expected_rev=0,
                                 outbox=(d("table", CHAT), d("dm", 5)))
    await step(db, 0, chat=OTHER, outbox=(d("group", OTHER),))
    await step(db, 0, chat=CHAT - 1)  # nothing to send
    assert await db.storage.outbox_chats() == [OTHER, CHAT]
    for item in await db.storage.pending_outbox(chat_id=CHAT):
        await db.storage.finish_outbox(item_id=item.id)
    assert await db.storage.outbox_chats() == [OTHER]


async def test_live_messages_stay_live_until_retired_and_are_never_pruned(db: Backend) -> None:
    await open_table(db)
    total = KEEP_SENT + 10
    await step(db, 0, outbox=tuple(d("table", CHAT, n=n) for n in range(total)))
    items = await db.storage.pending_outbox(chat_id=CHAT)
    # the first post is live (its retirement was cut short), so is the newest
    await db.storage.finish_outbox(item_id=items[0].id, message_id=0, live=True)
    for item in items[1:-1]:
        await db.storage.finish_outbox(item_id=item.id, message_id=item.payload["n"])
    await db.storage.finish_outbox(item_id=items[-1].id, message_id=total - 1, live=True)
    assert await db.storage.live_sent(chat_id=CHAT) == [total - 1, 0]
    assert await outbox_rows(db) == KEEP_SENT + 1  # the old live one outlives the pruning
    await db.storage.retire_sent(chat_id=CHAT, message_ids=[0, 12345])
    assert await db.storage.live_sent(chat_id=CHAT) == [total - 1]
    assert await db.storage.live_sent(chat_id=OTHER) == []
    await db.storage.retire_sent(chat_id=CHAT, message_ids=[])


async def test_an_attempt_known_to_have_sent_nothing_is_taken_back(db: Backend) -> None:
    await open_table(db, CHAT, d("table", CHAT))
    [item] = await db.storage.pending_outbox(chat_id=CHAT)
    assert await db.storage.outbox_attempt(item_id=item.id) == 1
    assert await db.storage.outbox_attempt(item_id=item.id, undo=True) == 0
    assert await db.storage.outbox_attempt(item_id=item.id) == 1


async def test_a_post_of_unknown_outcome_keeps_its_first_floor_until_resolved(
        db: Backend) -> None:
    await open_table(db, CHAT, d("table", CHAT), d("table", CHAT), d("table", CHAT))
    first, second, third = await db.storage.pending_outbox(chat_id=CHAT)
    # an attempt taken back before anything was sent keeps no floor
    assert await db.storage.outbox_attempt(item_id=first.id, floor=7) == 1
    assert await db.storage.twin_floors(chat_id=CHAT) == [(first.id, 7)]
    assert await db.storage.outbox_attempt(item_id=first.id, undo=True) == 0
    assert await db.storage.twin_floors(chat_id=CHAT) == []
    # a crash after the send: the next attempt keeps the first floor
    await db.storage.outbox_attempt(item_id=first.id, floor=7)
    await db.storage.outbox_attempt(item_id=first.id, floor=9)
    await db.storage.finish_outbox(item_id=first.id)  # skipped for a later post: it stays
    # a post whose one attempt was answered is sure: its floor goes with the finish
    await db.storage.outbox_attempt(item_id=second.id, floor=9)
    await db.storage.finish_outbox(item_id=second.id, message_id=10, live=True, sure=True)
    await db.storage.outbox_attempt(item_id=third.id, floor=10)
    assert await db.storage.twin_floors(chat_id=CHAT) == [(first.id, 7), (third.id, 10)]
    assert await db.storage.twin_floors(chat_id=OTHER) == []
    # a floor outlives the pruning of old sent rows
    await step(db, 0, outbox=tuple(d("table", CHAT) for _ in range(KEEP_SENT + 5)))
    for item in (await db.storage.pending_outbox(chat_id=CHAT))[1:]:
        await db.storage.finish_outbox(item_id=item.id, message_id=item.id)
    assert await db.storage.twin_floors(chat_id=CHAT) == [(first.id, 7), (third.id, 10)]
    await db.storage.twins_resolved(item_ids=[first.id, third.id])
    await db.storage.twins_resolved(item_ids=[])
    assert await db.storage.twin_floors(chat_id=CHAT) == []


async def test_a_search_cut_short_raises_the_floors_it_passed(db: Backend) -> None:
    await open_table(db, CHAT, d("table", CHAT), d("table", CHAT))
    first, second = await db.storage.pending_outbox(chat_id=CHAT)
    await db.storage.outbox_attempt(item_id=first.id, floor=7)
    await db.storage.outbox_attempt(item_id=second.id, floor=90)
    # ids up to 50 searched: the floor below rises to 50, the one above stays
    await db.storage.twins_resolved(item_ids=[first.id, second.id], upto=50)
    assert await db.storage.twin_floors(chat_id=CHAT) == [(first.id, 50), (second.id, 90)]
    await db.storage.twins_resolved(item_ids=[first.id, second.id])
    assert await db.storage.twin_floors(chat_id=CHAT) == []


async def test_a_message_sent_outside_the_outbox_is_recorded_as_sent(db: Backend) -> None:
    await open_table(db, CHAT, d("table", CHAT))
    [post] = await db.storage.pending_outbox(chat_id=CHAT)
    # a /newtable picker (buttons: live), then the table's post, then a /language picker
    await db.storage.record_sent(chat_id=CHAT, kind="group", message_id=40, live=True)
    await db.storage.finish_outbox(item_id=post.id, message_id=41, live=True)
    await db.storage.record_sent(chat_id=CHAT, kind="group", message_id=39)
    assert await db.storage.pending_outbox(chat_id=CHAT) == []
    assert await db.storage.last_sent(chat_id=CHAT, kind="group", limit=5) == [39, 40]
    # the live ones by message id, newest first, whatever order they were recorded in
    assert await db.storage.live_sent(chat_id=CHAT) == [41, 40]
    assert await db.storage.live_sent(chat_id=CHAT, kind="table") == [41]
    assert await db.storage.live_sent(chat_id=OTHER) == []


async def test_several_items_finished_at_once_take_live_and_sure_as_one_does(
        db: Backend) -> None:
    await open_table(db, CHAT, d("table", CHAT), d("table", CHAT), d("dm", 7))
    first, second, third = await db.storage.pending_outbox(chat_id=CHAT)
    await db.storage.outbox_attempt(item_id=first.id, floor=4)
    await db.storage.outbox_attempt(item_id=second.id, floor=5)
    # both posts were answered, each made exactly its message: no twin, both live
    await db.storage.finish_outbox_many(done=[(first.id, 5), (second.id, 6)], live=True,
                                        sure=True)
    await db.storage.finish_outbox_many(done=[(third.id, 9)])
    assert await db.storage.twin_floors(chat_id=CHAT) == []
    assert await db.storage.live_sent(chat_id=CHAT) == [6, 5]
    assert await db.storage.pending_outbox(chat_id=CHAT) == []

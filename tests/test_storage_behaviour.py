"""Storage behaviour, run against SQLite and PostgreSQL alike: chips are never lost."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage_backends import (
    BACKENDS,
    BONUS,
    GRANT,
    PG_DSN,
    RAW_ERRORS,
    Backend,
    apply_net,
    backend,
    random_transfers,
)

from bot.table.liveness import Liveness
from games.engine import Transfer
from storage.base import (
    STALE_MARK,
    BonusAlreadyClaimed,
    InsufficientFunds,
    Shown,
    StaleVersion,
    TableExists,
    TableNotFound,
)
from storage.factory import open_storage
from storage.postgres import PostgresStorage
from storage.sqlite import SqliteStorage

CHAT = -100


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        yield b


def t(src: str, dst: str, amount: int, reason: str = "move") -> Transfer:
    return Transfer(src=src, dst=dst, amount=amount, reason=reason)


async def open_table(db: Backend, chat: int = CHAT) -> None:
    await db.storage.create_table(chat_id=chat, game="baccarat", settings={"min": 5},
                                  state_json='{"v": 0}', version=0, meta_json='{"msg": 1}')


async def step(db: Backend, version: int, *transfers: Transfer, chat: int = CHAT,
               coup: int = 1) -> int:
    return await db.storage.commit_step(chat_id=chat, expected_version=version,
                                        state_json=f'{{"v": {version + 1}}}',
                                        version=version + 1, transfers=list(transfers),
                                        coup=coup, deadline=None)


async def count(db: Backend, table: str) -> int:
    return int((await db.raw(f"SELECT COUNT(*) FROM {table}"))[0][0])


# --------------------------------------------------------------------- wallets


async def test_first_wallet_access_grants_starting_chips_from_the_house(db: Backend) -> None:
    w = await db.storage.wallet(chat_id=CHAT, user_id=7, name="Anna")
    assert (w.balance, w.on_table, w.name) == (GRANT, 0, "Anna")
    again = await db.storage.wallet(chat_id=CHAT, user_id=7)
    assert (again.balance, again.name) == (GRANT, "Anna")
    # The same player in another chat has a separate wallet.
    assert (await db.storage.wallet(chat_id=CHAT - 1, user_id=7)).balance == GRANT
    rows = await db.raw("SELECT account, delta, reason FROM ledger WHERE chat_id = ?"
                        " ORDER BY entry_id", CHAT)
    assert rows == [("house", -GRANT, "starting_grant"), ("wallet:7", GRANT, "starting_grant")]
    renamed = await db.storage.wallet(chat_id=CHAT, user_id=7, name="Anya")
    assert (renamed.name, renamed.balance) == ("Anya", GRANT)


async def test_daily_bonus_is_paid_once_per_calendar_day(db: Backend) -> None:
    day = dt.date(2024, 3, 1)
    w = await db.storage.claim_daily_bonus(chat_id=CHAT, user_id=7, today=day)
    assert w.balance == GRANT + BONUS
    with pytest.raises(BonusAlreadyClaimed):
        await db.storage.claim_daily_bonus(chat_id=CHAT, user_id=7, today=day)
    with pytest.raises(BonusAlreadyClaimed):  # a clock set back pays nothing
        await db.storage.claim_daily_bonus(chat_id=CHAT, user_id=7, today=dt.date(2024, 2, 29))
    assert (await db.storage.wallet(chat_id=CHAT, user_id=7)).balance == GRANT + BONUS
    w = await db.storage.claim_daily_bonus(chat_id=CHAT, user_id=7, today=dt.date(2024, 3, 2))
    assert w.balance == GRANT + 2 * BONUS
    history = await db.storage.recent_coups(chat_id=CHAT, user_id=7)
    assert [(e.account, e.delta, e.reason) for e in history] == [
        ("wallet:7", BONUS, "daily_bonus"), ("wallet:7", BONUS, "daily_bonus"),
        ("wallet:7", GRANT, "starting_grant")]
    assert (await db.storage.audit())["issued"] == GRANT + 2 * BONUS


# ---------------------------------------------------------------------- tables


async def test_table_snapshot_round_trip_and_one_table_per_chat(db: Backend) -> None:
    with pytest.raises(TableNotFound):
        await db.storage.load_table(chat_id=CHAT)
    await open_table(db)
    with pytest.raises(TableExists):
        await open_table(db)
    rec = await db.storage.load_table(chat_id=CHAT)
    assert (rec.game, rec.settings, rec.state_json, rec.version, rec.deadline, rec.meta,
            rec.rev) == ("baccarat", {"min": 5}, '{"v": 0}', 0, None, {"msg": 1}, 0)
    state = '{"z": 1, "a": [1, 2], "s": "\\u00e9t\\u00e9"}'  # kept byte for byte
    await db.storage.commit_step(chat_id=CHAT, expected_version=0, state_json=state, version=1,
                                 transfers=[], coup=3, deadline=1234.5)
    rec = await db.storage.load_table(chat_id=CHAT)
    assert (rec.state_json, rec.version, rec.deadline, rec.meta, rec.rev) == (
        state, 1, 1234.5, {"msg": 1}, 1)
    assert await db.storage.update_meta(chat_id=CHAT, meta_json='{"msg": 2, "lang": "ru"}',
                                        expected_rev=1) == 2
    rec = await db.storage.load_table(chat_id=CHAT)
    assert (rec.version, rec.meta, rec.rev) == (1, {"msg": 2, "lang": "ru"}, 2)
    await db.storage.commit_step(chat_id=CHAT, expected_version=1, state_json=state, version=2,
                                 transfers=[], coup=3, deadline=None, meta_json='{"msg": 3}')
    rec = await db.storage.load_table(chat_id=CHAT)
    assert (rec.version, rec.deadline, rec.meta, rec.rev) == (2, None, {"msg": 3}, 3)
    await open_table(db, chat=CHAT - 5)
    assert [r.chat_id for r in await db.storage.open_tables()] == [CHAT - 5, CHAT]
    with pytest.raises(TableNotFound):
        await step(db, 0, chat=CHAT - 9)
    with pytest.raises(TableNotFound):
        await db.storage.update_meta(chat_id=CHAT - 9, meta_json='{}', expected_rev=0)


async def test_a_step_books_each_transfer_as_two_ledger_rows(db: Backend) -> None:
    await open_table(db)
    step_id = await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"),
                         t("stack:1", "stake:1", 40, "stake"), t("stack:1", "bank", 100, "bank"))
    assert await db.storage.table_accounts(chat_id=CHAT) == {
        "stack:1": 160, "stake:1": 40, "bank": 100}
    w = await db.storage.wallet(chat_id=CHAT, user_id=1)
    assert (w.balance, w.on_table) == (GRANT - 300, 200)  # the bank is the table's, not his
    rows = await db.raw("SELECT account, delta, reason, coup, game FROM ledger"
                        " WHERE step_id = ? ORDER BY entry_id", step_id)
    assert rows == [("wallet:1", -300, "buy_in", 1, "baccarat"),
                    ("stack:1", 300, "buy_in", 1, "baccarat"),
                    ("stack:1", -40, "stake", 1, "baccarat"),
                    ("stake:1", 40, "stake", 1, "baccarat"),
                    ("stack:1", -100, "bank", 1, "baccarat"),
                    ("bank", 100, "bank", 1, "baccarat")]
    history = await db.storage.recent_coups(chat_id=CHAT, user_id=1, limit=3)
    assert [(e.step_id, e.account, e.delta) for e in history] == [
        (step_id, "stack:1", -100), (step_id, "stake:1", 40), (step_id, "stack:1", -40)]
    with pytest.raises(ValueError):  # only storage books the house
        await step(db, 1, t("house", "stack:1", 5))
    with pytest.raises(ValueError):  # a step that keeps the version could win twice
        await db.storage.commit_step(chat_id=CHAT, expected_version=1, state_json="{}",
                                     version=1, transfers=[], coup=1, deadline=None)


async def test_a_step_books_each_transfer_under_its_coup_and_the_bank_to_its_holder(
        db: Backend) -> None:
    # coup 3 settles (the bank pays Bob 50), then Ann takes her bank back and Bob posts one
    # for coup 4
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 500), t("wallet:2", "stack:2", 500),
               t("stack:1", "bank", 300, "bank_posted"), t("stack:2", "stake:2", 50, "stake"))
    moves = [t("bank", "stack:2", 50, "won"), t("stake:2", "stack:2", 50, "stake_returned"),
             t("bank", "stack:1", 250, "bank_returned"), t("stack:2", "bank", 100, "bank_posted")]
    step_id = await db.storage.commit_step(
        chat_id=CHAT, expected_version=1, state_json="{}", version=2, transfers=moves, coup=3,
        deadline=None, coups=[3, 3, 3, 4], holders=[1, None, 1, 2])
    rows = await db.raw("SELECT account, owner, delta, coup FROM ledger"
                        " WHERE step_id = ? ORDER BY entry_id", step_id)
    assert rows == [("bank", 1, -50, 3), ("stack:2", 2, 50, 3),
                    ("stake:2", 2, -50, 3), ("stack:2", 2, 50, 3),
                    ("bank", 1, -250, 3), ("stack:1", 1, 250, 3),
                    ("stack:2", 2, -100, 4), ("bank", 2, 100, 4)]
    assert (await db.raw("SELECT coup FROM steps WHERE step_id = ?", step_id)) == [(3,)]
    assert await db.storage.table_accounts(chat_id=CHAT) == {
        "stack:1": 450, "stack:2": 450, "bank": 100}
    with pytest.raises(ValueError):  # one coup and one holder per transfer
        await db.storage.commit_step(chat_id=CHAT, expected_version=2, state_json="{}",
                                     version=3, transfers=moves, coup=4, deadline=None,
                                     coups=[4])


async def test_stale_version_is_refused_and_changes_nothing(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"))
    before = (await db.storage.load_table(chat_id=CHAT), await count(db, "ledger"),
              await count(db, "steps"), await db.storage.table_accounts(chat_id=CHAT),
              await db.storage.wallet(chat_id=CHAT, user_id=1))
    with pytest.raises(StaleVersion):
        await db.storage.commit_step(chat_id=CHAT, expected_version=0, state_json='{"x": 1}',
                                     version=1, transfers=[t("stack:1", "wallet:1", 300)],
                                     coup=2, deadline=9.0, meta_json='{"msg": 9}')
    after = (await db.storage.load_table(chat_id=CHAT), await count(db, "ledger"),
             await count(db, "steps"), await db.storage.table_accounts(chat_id=CHAT),
             await db.storage.wallet(chat_id=CHAT, user_id=1))
    assert after == before
    assert after[0].version == 1 and after[3] == {"stack:1": 300}


async def test_overdraft_is_refused_and_writes_nothing(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"))
    ledger = await count(db, "ledger")
    for bad in ([t("stack:1", "stake:1", 301)],                   # more than his stack
                [t("wallet:1", "stack:1", GRANT - 299)],          # more than his wallet
                [t("pot", "stack:1", 1)],                         # an account never funded
                [t("stack:1", "stake:1", 300), t("stake:1", "pot", 301)]):
        with pytest.raises(InsufficientFunds):
            await step(db, 1, *bad)
    # A step whose intermediate moves pass through zero is fine: only the net counts.
    await step(db, 1, t("stack:1", "stake:1", 300), t("stake:1", "pot", 300),
               t("pot", "stack:1", 300))
    assert (await db.storage.load_table(chat_id=CHAT)).version == 2
    assert await count(db, "ledger") == ledger + 6
    assert await db.storage.table_accounts(chat_id=CHAT) == {"stack:1": 300}
    assert (await db.storage.wallet(chat_id=CHAT, user_id=1)).balance == GRANT - 300


async def test_negative_balance_is_refused_by_the_database_constraint(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"))
    for sql in ("UPDATE wallets SET balance = -1 WHERE user_id = 1",
                "UPDATE table_accounts SET balance = -1 WHERE account = 'stack:1'",
                "INSERT INTO table_accounts (chat_id, account, balance) VALUES (-100, 'pot', -5)"):
        with pytest.raises(RAW_ERRORS, match=r"(?i)check"):
            await db.raw(sql)
    assert (await db.storage.wallet(chat_id=CHAT, user_id=1)).balance == GRANT - 300
    assert await db.storage.table_accounts(chat_id=CHAT) == {"stack:1": 300}
    # Chips cannot vanish with their row either.
    with pytest.raises(RAW_ERRORS, match="not empty"):
        await db.raw("DELETE FROM table_accounts WHERE account = 'stack:1'")
    with pytest.raises(RAW_ERRORS, match="not empty"):
        await db.raw("DELETE FROM wallets WHERE user_id = 1")


async def test_ledger_is_append_only(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"))
    before = await db.raw("SELECT entry_id, account, delta FROM ledger ORDER BY entry_id")
    for sql in ("UPDATE ledger SET delta = delta + 1", "DELETE FROM ledger",
                "UPDATE steps SET coup = 9", "DELETE FROM steps"):
        with pytest.raises(RAW_ERRORS, match="append-only"):
            await db.raw(sql)
    if db.kind == "postgres":
        with pytest.raises(RAW_ERRORS, match="append-only"):
            await db.raw("TRUNCATE ledger CASCADE")
    assert await db.raw("SELECT entry_id, account, delta FROM ledger ORDER BY entry_id") == before


async def test_close_table_requires_every_table_chip_back_in_wallets(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"),
               t("wallet:2", "stack:2", 200, "buy_in"), t("stack:2", "pot", 50, "bet"))
    with pytest.raises(InsufficientFunds):  # the pot still holds 50
        await db.storage.close_table(chat_id=CHAT, expected_version=1, coup=1,
                                     transfers=[t("stack:1", "wallet:1", 300),
                                                t("stack:2", "wallet:2", 150)])
    with pytest.raises(StaleVersion):
        await db.storage.close_table(chat_id=CHAT, expected_version=0, coup=1, transfers=[])
    assert (await db.storage.load_table(chat_id=CHAT)).version == 1
    assert await db.storage.table_accounts(chat_id=CHAT) == {
        "pot": 50, "stack:1": 300, "stack:2": 150}
    await db.storage.close_table(chat_id=CHAT, expected_version=1, coup=1, transfers=[
        t("pot", "stack:1", 50, "won"), t("stack:1", "wallet:1", 350, "cash_out"),
        t("stack:2", "wallet:2", 150, "cash_out")])
    with pytest.raises(TableNotFound):
        await db.storage.load_table(chat_id=CHAT)
    assert await db.storage.table_accounts(chat_id=CHAT) == {}
    assert [(w.user_id, w.balance, w.on_table) for w in
            await db.storage.leaderboard(chat_id=CHAT)] == [(1, GRANT + 50, 0), (2, GRANT - 50, 0)]
    await open_table(db)  # the chat can open a new table afterwards
    assert (await db.storage.load_table(chat_id=CHAT)).version == 0


async def test_leaderboard_counts_chips_on_the_table(db: Backend) -> None:
    await open_table(db)
    for user, name in ((1, "A"), (2, "B"), (3, "C"), (4, "D")):
        await db.storage.wallet(chat_id=CHAT, user_id=user, name=name)
    await db.storage.wallet(chat_id=CHAT - 1, user_id=9)  # another chat: not listed
    await step(db, 0, t("wallet:1", "stack:1", 500), t("wallet:2", "stack:2", 500),
               t("stack:2", "stake:2", 100), t("stack:1", "bank", 300))
    await step(db, 1, t("stake:2", "stack:3", 100), t("wallet:4", "stack:4", 10))
    board = await db.storage.leaderboard(chat_id=CHAT)
    assert [(w.user_id, w.name, w.balance, w.on_table) for w in board] == [
        (3, "C", GRANT, 100), (4, "D", GRANT - 10, 10), (2, "B", GRANT - 500, 400),
        (1, "A", GRANT - 500, 200)]
    assert [w.user_id for w in await db.storage.leaderboard(chat_id=CHAT, limit=2)] == [3, 4]


async def test_chat_language_is_remembered(db: Backend) -> None:
    assert await db.storage.chat_language(chat_id=CHAT) is None
    await db.storage.set_chat_language(chat_id=CHAT, language="ru")
    await db.storage.set_chat_language(chat_id=CHAT, language="en")
    assert await db.storage.chat_language(chat_id=CHAT) == "en"
    assert await db.storage.chat_language(chat_id=CHAT - 1) is None


async def test_a_players_wallets_in_every_chat_with_its_title_and_table(db: Backend) -> None:
    assert await db.storage.wallets_of(user_id=1) == []  # asking creates none
    await db.storage.wallet(chat_id=CHAT, user_id=1, name="Ann")
    await db.storage.wallet(chat_id=CHAT - 1, user_id=1, name="Ann")
    await db.storage.wallet(chat_id=CHAT, user_id=2, name="Bob")
    await db.storage.set_chat_language(chat_id=CHAT, language="ru")
    await db.storage.set_chat_title(chat_id=CHAT, title="Old name")
    await db.storage.set_chat_title(chat_id=CHAT, title="Friday poker")
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 300, "buy_in"), t("stack:1", "stake:1", 40))
    found = await db.storage.wallets_of(user_id=1)
    assert [(w.wallet.chat_id, w.wallet.balance, w.wallet.on_table, w.title, w.game)
            for w in found] == [(CHAT - 1, GRANT, 0, "", ""),
                                (CHAT, GRANT - 300, 300, "Friday poker", "baccarat")]
    assert await db.storage.chat_language(chat_id=CHAT) == "ru"  # the title left it alone
    assert await db.storage.chat_title(chat_id=CHAT) == "Friday poker"
    assert await db.storage.chat_title(chat_id=CHAT - 1) == ""  # a wallet, no title seen


async def test_chat_settings_are_remembered_beside_the_language(db: Backend) -> None:
    assert await db.storage.chat_settings(chat_id=CHAT) == {}
    await db.storage.set_chat_language(chat_id=CHAT, language="ru")
    await db.storage.set_chat_settings(chat_id=CHAT, settings={"timeout": 90})
    wanted = {"timeout": 90, "turn_dm": False, "twenty_one": {"min_stake": 10}}
    await db.storage.set_chat_settings(chat_id=CHAT, settings=wanted)
    assert await db.storage.chat_settings(chat_id=CHAT) == wanted
    assert await db.storage.chat_language(chat_id=CHAT) == "ru"
    await db.storage.set_chat_settings(chat_id=CHAT - 1, settings={"timeout": 30})
    assert await db.storage.chat_language(chat_id=CHAT - 1) is None
    assert await db.storage.chat_settings(chat_id=CHAT - 2) == {}


async def test_migrations_are_applied_once(db: Backend) -> None:
    second = db.another()
    await second.open()
    await second.close()
    # PostgreSQL also has what several workers share (locks, deadline claims, budgets)
    shared = [(3, "shared")] if db.kind == "postgres" else []
    assert await db.raw("SELECT version, name FROM schema_migrations ORDER BY version") == [
        (1, "initial"), (2, "outbox"), *shared, (3 + len(shared), "live_messages"),
        (4 + len(shared), "chat_titles"), (5 + len(shared), "chat_settings"),
        (6 + len(shared), "kept_updates"), (7 + len(shared), "twin_floor"),
        (8 + len(shared), "alive"), (9 + len(shared), "presence"),
        (10 + len(shared), "standings"), (11 + len(shared), "seasons"),
        (12 + len(shared), "achievements"), (13 + len(shared), "ratings")]


async def test_fetched_updates_are_kept_until_handled_then_forgotten_once_read(
        db: Backend) -> None:
    await db.storage.keep_updates(updates=[(7, '{"update_id":7}'), (8, '{"update_id":8}')],
                                  read_below=0)
    # fetched again (Telegram had not taken it as read): kept once, as it was
    await db.storage.keep_updates(updates=[(8, '{"update_id":8,"x":1}')], read_below=7)
    await db.storage.updates_done(update_ids=[7])
    assert [(k.update_id, k.body, k.done) for k in await db.storage.kept_updates()] == [
        (7, '{"update_id":7}', True), (8, '{"update_id":8}', False)]
    # a fetch asking for the updates from 9 on: 7 and 8 were taken as read; 7 is handled
    # and forgotten, 8 is not handled yet and stays
    await db.storage.keep_updates(updates=[(9, '{"update_id":9}')], read_below=9)
    assert [(k.update_id, k.done) for k in await db.storage.kept_updates()] == [
        (8, False), (9, False)]
    # a fetch's write carries the marks of the updates handled since: 8 is handled, and
    # read (the fetch asked from 9 on), so it goes at once; 9 is handled and stays
    await db.storage.keep_updates(updates=[(10, '{"update_id":10}')], read_below=9,
                                  done=[8, 9])
    assert [(k.update_id, k.done) for k in await db.storage.kept_updates()] == [
        (9, True), (10, False)]


async def test_presence_is_appended_apart_from_the_table_and_goes_with_it(
        db: Backend) -> None:
    await open_table(db)
    await step(db, 0)
    before = await db.storage.load_table(chat_id=CHAT)
    page = Shown(player=1, channel="page", shown_at=10.0)
    prompt = Shown(player=2, channel="prompt", shown_at=11.5, message_id=77, digest="d")
    await db.storage.add_presence(chat_id=CHAT, decision=1, shown=[page, prompt])
    # shown again on the same channel: the first showing stays
    await db.storage.add_presence(chat_id=CHAT, decision=1, shown=[
        Shown(player=1, channel="page", shown_at=30.0),
        Shown(player=1, channel="group", shown_at=12.0)])
    assert await db.storage.presence(chat_id=CHAT, decision=1) == [
        page, prompt, Shown(player=1, channel="group", shown_at=12.0)]
    assert await db.storage.presence(chat_id=CHAT, decision=2) == []
    # no write of the table: its version and revision are as they were
    after = await db.storage.load_table(chat_id=CHAT)
    assert (after.version, after.rev) == (before.version, before.rev)
    # a later decision's fact: the earlier decision's go
    await db.storage.add_presence(chat_id=CHAT, decision=3, shown=[page])
    assert await db.storage.presence(chat_id=CHAT, decision=1) == []
    await db.storage.close_table(chat_id=CHAT, expected_version=1, transfers=[], coup=1)
    assert await count(db, "presence") == 0


async def test_alive_marks_say_since_when_no_process_ran(db: Backend) -> None:
    clock = [1000.0]
    shared = db.kind == "postgres"

    async def nobody_marks(seconds: float) -> None:
        """The wait for another worker's next mark: none comes (its worker is dead)."""

    def liveness(shared: bool = shared, wait: Any = nobody_marks) -> Liveness:
        return Liveness(db.storage, shared=shared, now=lambda: clock[0], wait=wait)

    assert await db.storage.last_alive() is None
    first = liveness()
    assert await first.start() is None  # no process ever ran
    clock[0] = 1001.5
    await first.stop()  # its last mark, as it stops
    assert await db.storage.last_alive() == 1001.5
    clock[0] = 1100.0
    second = liveness()
    assert await second.start() == 1001.5  # down since then
    # another worker starting while this one runs (it marks again meanwhile): nobody was down
    clock[0] = 1101.0

    async def second_marks(seconds: float) -> None:
        clock[0] += seconds
        await db.storage.mark_alive(worker=second.worker, at=clock[0])

    third = liveness(shared=True, wait=second_marks)
    assert await third.start() is None
    # a worker starting 7 s after the newest mark (none was made since): down since then
    clock[0] = 1110.0
    fourth = liveness(shared=True)
    assert await fourth.start() == 1104.0
    # one starting a moment after the other workers died: their last marks are fresh, but
    # no new one comes; down since the newest
    clock[0] = 1111.0
    await third.stop()
    await fourth.stop()
    clock[0] = 1112.0
    fifth = liveness(shared=True)
    assert await fifth.start() == 1111.0
    await fifth.stop()
    # marks of an hour before go
    clock[0] = 1112.0 + STALE_MARK + 1
    await second.stop()
    assert await db.raw("SELECT count(*) FROM alive") == [(1,)]


# ------------------------------------------------------------- conservation


async def test_chips_are_conserved_over_thousands_of_random_steps(db: Backend) -> None:
    rng = random.Random(20240301)
    chats = [CHAT, CHAT - 1, CHAT - 2]
    players = [1, 2, 3, 4, 5]
    model: dict[int, dict[str, int]] = {c: {} for c in chats}
    versions = dict.fromkeys(chats, 0)
    issued = 0
    for chat in chats:
        await open_table(db, chat)
        for p in players:
            await db.storage.wallet(chat_id=chat, user_id=p)
            model[chat][f"wallet:{p}"] = GRANT
            issued += GRANT
    refused = 0
    steps = 1500 if db.kind == "sqlite" else 1000
    for i in range(steps):
        chat = rng.choice(chats)
        m = model[chat]
        if i % 97 == 0:
            p = rng.choice(players)
            await db.storage.claim_daily_bonus(chat_id=chat, user_id=p,
                                               today=dt.date(2024, 1, 1) + dt.timedelta(i))
            m[f"wallet:{p}"] = m.get(f"wallet:{p}", 0) + BONUS
            issued += BONUS
            continue
        wallets = {p: m.get(f"wallet:{p}", 0) for p in players}
        table = {a: v for a, v in m.items() if not a.startswith("wallet:")}
        transfers = random_transfers(rng, wallets, table)
        if transfers and i % 13 == 0:
            # Now and then one chip too many: refused whole, nothing written.
            over = transfers[0]
            transfers[0] = over.model_copy(update={"amount": over.amount + 1 + m.get(over.src, 0)})
            with pytest.raises(InsufficientFunds):
                await step(db, versions[chat], *transfers, chat=chat)
            refused += 1
            continue
        await step(db, versions[chat], *transfers, chat=chat)
        versions[chat] += 1
        apply_net(m, transfers)
    assert refused > steps // 30
    total = 0
    for chat in chats:
        stored = await db.storage.table_accounts(chat_id=chat)
        assert stored == {a: v for a, v in model[chat].items() if not a.startswith("wallet:")}
        for p in players:
            w = await db.storage.wallet(chat_id=chat, user_id=p)
            assert w.balance == model[chat].get(f"wallet:{p}", 0)
            assert w.on_table == stored.get(f"stack:{p}", 0) + stored.get(f"stake:{p}", 0)
        total += sum(model[chat].values())
        assert (await db.storage.load_table(chat_id=chat)).version == versions[chat]
    audit = await db.storage.audit()
    assert audit == {"issued": issued, "wallets": audit["wallets"],
                     "on_tables": audit["on_tables"], "unbalanced_steps": 0, "ledger_drift": 0}
    assert audit["wallets"] + audit["on_tables"] == issued == total
    # The ledger alone tells the same story: every account's rows sum to its balance.
    per_step = await db.raw("SELECT COUNT(*) FROM (SELECT step_id FROM ledger GROUP BY step_id"
                            " HAVING SUM(delta) <> 0) s")
    assert per_step == [(0,)]
    assert await db.raw("SELECT SUM(delta) FROM ledger") == [(0,)]


# -------------------------------------------------------------- concurrency


async def test_two_writers_racing_on_one_table_exactly_one_wins(db: Backend) -> None:
    await open_table(db)
    await step(db, 0, t("wallet:1", "stack:1", 500, "buy_in"))
    other = db.another()
    await other.open()
    try:
        rng = random.Random(7)
        wins = {"mine": 0, "other": 0}
        for round_ in range(40):
            version = (await db.storage.load_table(chat_id=CHAT)).version
            # Both writers saw the same version; each moves chips its own way.
            writers = {
                "mine": db.storage.commit_step(
                    chat_id=CHAT, expected_version=version, version=version + 1,
                    state_json='{"by": "mine"}', transfers=[t("stack:1", "stake:1", 3)],
                    coup=round_, deadline=None),
                "other": other.commit_step(
                    chat_id=CHAT, expected_version=version, version=version + 1,
                    state_json='{"by": "other"}', transfers=[t("stack:1", "pot", 2)],
                    coup=round_, deadline=None),
            }
            order = rng.sample(sorted(writers), 2)  # who starts first varies
            results = dict(zip(order, await asyncio.gather(*(writers[k] for k in order),
                                                           return_exceptions=True),
                               strict=True))
            winners = [k for k, r in results.items() if isinstance(r, int)]
            losers = [k for k, r in results.items() if isinstance(r, StaleVersion)]
            assert len(winners) == 1 and len(losers) == 1, results
            wins[winners[0]] += 1
            # The stored snapshot is the winner's, with exactly the winner's chips moved.
            assert (await db.storage.load_table(chat_id=CHAT)).state_json == (
                f'{{"by": "{winners[0]}"}}')
        assert wins["mine"] + wins["other"] == 40
        assert (await db.storage.load_table(chat_id=CHAT)).version == 41
        expected = {"stack:1": 500 - 3 * wins["mine"] - 2 * wins["other"],
                    "stake:1": 3 * wins["mine"], "pot": 2 * wins["other"]}
        assert await db.storage.table_accounts(chat_id=CHAT) == {
            a: v for a, v in expected.items() if v}
        assert await db.raw("SELECT COUNT(*) FROM steps WHERE kind = 'step'") == [(41,)]
        audit = await db.storage.audit()
        assert audit["wallets"] + audit["on_tables"] == audit["issued"] == GRANT
    finally:
        await other.close()


async def test_many_tables_commit_at_once_through_one_storage(db: Backend) -> None:
    chats = [CHAT - n for n in range(12)]
    for chat in chats:
        await open_table(db, chat)

    async def play(chat: int) -> None:
        await step(db, 0, t("wallet:1", "stack:1", 100, "buy_in"), chat=chat)
        await step(db, 1, t("stack:1", "pot", 30, "bet"), chat=chat)
        await db.storage.close_table(chat_id=chat, expected_version=2, coup=1, transfers=[
            t("pot", "wallet:1", 30, "won"), t("stack:1", "wallet:1", 70, "cash_out")])

    await asyncio.gather(*(play(chat) for chat in chats))
    assert await db.storage.open_tables() == []
    for chat in chats:
        assert (await db.storage.wallet(chat_id=chat, user_id=1)).balance == GRANT
    assert await db.raw("SELECT kind, COUNT(*) FROM steps GROUP BY kind ORDER BY kind") == [
        ("close", 12), ("grant", 12), ("step", 24)]


# ------------------------------------------------------------------ factory


async def test_open_storage_picks_the_backend_from_the_url(tmp_path: Path) -> None:
    s = open_storage(f"sqlite:///{tmp_path}/a/b.db?synchronous=full", starting_grant=5,
                     daily_bonus=1)
    assert isinstance(s, SqliteStorage)
    assert (s.path, s.synchronous, s.starting_grant) == (f"{tmp_path}/a/b.db", "FULL", 5)
    plain = open_storage(str(tmp_path / "c.db"), starting_grant=5, daily_bonus=1)
    assert isinstance(plain, SqliteStorage) and plain.path == str(tmp_path / "c.db")
    await plain.open()
    assert (await plain.wallet(chat_id=1, user_id=2)).balance == 5
    await plain.close()
    assert (tmp_path / "c.db").exists()
    pg = open_storage(PG_DSN + "?schema=s1", starting_grant=5, daily_bonus=1)
    assert isinstance(pg, PostgresStorage)
    assert (pg.dsn, pg.schema) == (PG_DSN, "s1")
    with pytest.raises(ValueError):
        open_storage("mysql://x", starting_grant=5, daily_bonus=1)

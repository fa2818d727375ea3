"""The operator's inspector on SQLite and PostgreSQL: figures, per-chat audit, wallet import."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from storage_backends import BACKENDS, GRANT, Backend, backend

from games.engine import Transfer
from storage.base import InsufficientFunds, OutboxDraft
from storage.inspect import ChatAudit, WalletTotal, inspector

CHAT, OTHER = -100, -200
ANN, BOB = 1, 2


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        yield b


async def seated(db: Backend) -> None:
    """Ann and Bob in CHAT with 300 and 200 of their grants on a twenty-one table."""
    s = db.storage
    for user in (ANN, BOB):
        await s.wallet(chat_id=CHAT, user_id=user, name=f"p{user}")
    await s.create_table(chat_id=CHAT, game="twenty_one", settings={}, state_json="{}",
                         version=1)
    await s.commit_step(chat_id=CHAT, expected_version=1, state_json="{}", version=2, coup=1,
                        deadline=None,
                        transfers=[Transfer(src=f"wallet:{ANN}", dst=f"stack:{ANN}",
                                            amount=300, reason="buy_in"),
                                   Transfer(src=f"wallet:{BOB}", dst=f"stack:{BOB}",
                                            amount=200, reason="buy_in")],
                        outbox=[OutboxDraft(kind="group", target=CHAT, payload={"text": "x"}),
                                OutboxDraft(kind="dm", target=ANN, payload={"text": "y"})])


async def test_figures_of_a_scrape_count_open_tables_and_pending_outbox(db: Backend) -> None:
    ins = inspector(db.storage)
    await ins.ping()
    assert await ins.outbox_depth() == (0, None)
    assert await ins.tables_by_game() == {}
    before = time.time()
    await seated(db)
    pending, oldest = await ins.outbox_depth()
    assert pending == 2
    assert oldest is not None and before - 1 <= oldest <= time.time() + 1
    assert await ins.tables_by_game() == {"twenty_one": 1}
    [row] = await ins.tables()
    assert (row.chat_id, row.game, row.version, row.rev) == (CHAT, "twenty_one", 2, 1)
    assert row.last_step_at is not None and before - 1 <= row.last_step_at <= time.time() + 1
    ledger = await ins.ledger(chat_id=CHAT, limit=4)
    assert [(e.account, e.delta, e.reason) for e in ledger] == [
        (f"stack:{BOB}", 200, "buy_in"), (f"wallet:{BOB}", -200, "buy_in"),
        (f"stack:{ANN}", 300, "buy_in"), (f"wallet:{ANN}", -300, "buy_in")]


async def test_audit_by_chat_holds_and_names_the_chat_a_raw_write_broke(db: Backend) -> None:
    await seated(db)
    await db.storage.wallet(chat_id=OTHER, user_id=ANN)
    ins = inspector(db.storage)
    assert await ins.audit_by_chat() == [  # by chat id
        ChatAudit(chat_id=OTHER, issued=GRANT, wallets=GRANT),
        ChatAudit(chat_id=CHAT, issued=2 * GRANT, wallets=2 * GRANT - 500, on_table=500)]
    await db.raw("UPDATE wallets SET balance = balance + 7 WHERE chat_id = ? AND user_id = ?",
                 CHAT, BOB)
    audits = {a.chat_id: a for a in await ins.audit_by_chat()}
    assert audits[CHAT] == ChatAudit(chat_id=CHAT, issued=2 * GRANT, wallets=2 * GRANT - 493,
                                     on_table=500, ledger_drift=1)
    assert not audits[CHAT].ok and audits[OTHER].ok


async def test_import_creates_then_changes_nothing_and_refuses_a_conflict(db: Backend) -> None:
    await seated(db)
    ins = inspector(db.storage)
    # what an export of CHAT says: each player's wallet plus his chips on the table
    file = [WalletTotal(user_id=ANN, name="Ann", total=GRANT),
            WalletTotal(user_id=BOB, name="Bob", total=GRANT)]
    same = await ins.import_wallets(chat_id=CHAT, wallets=file)
    assert (same.created, same.unchanged, same.adjusted, same.conflicts) == ([], [ANN, BOB],
                                                                               {}, {})
    report = await ins.import_wallets(chat_id=OTHER, wallets=file)
    assert report.created == [ANN, BOB]
    rows = len(await ins.ledger(chat_id=OTHER, limit=100))
    again = await ins.import_wallets(chat_id=OTHER, wallets=file)
    assert again.unchanged == [ANN, BOB] and again.created == []
    assert len(await ins.ledger(chat_id=OTHER, limit=100)) == rows == 4
    board = {w.user_id: (w.name, w.balance) for w in
             await db.storage.leaderboard(chat_id=OTHER)}
    assert board == {ANN: ("Ann", GRANT), BOB: ("Bob", GRANT)}

    changed = [WalletTotal(user_id=ANN, total=GRANT + 50), WalletTotal(user_id=BOB, total=10)]
    refused = await ins.import_wallets(chat_id=OTHER, wallets=changed)
    assert refused.conflicts == {ANN: (GRANT, GRANT + 50), BOB: (GRANT, 10)}
    assert len(await ins.ledger(chat_id=OTHER, limit=100)) == rows
    done = await ins.import_wallets(chat_id=OTHER, wallets=changed, overwrite=True)
    assert done.adjusted == {ANN: 50, BOB: 10 - GRANT}
    board = {w.user_id: w.balance for w in await db.storage.leaderboard(chat_id=OTHER)}
    assert board == {ANN: GRANT + 50, BOB: 10}
    assert all(a.ok for a in await ins.audit_by_chat())

    # Bob has 200 of his 1000 on CHAT's table: his wallet cannot give back 900
    with pytest.raises(InsufficientFunds):
        await ins.import_wallets(chat_id=CHAT, wallets=[WalletTotal(user_id=BOB, total=100)],
                                 overwrite=True)
    assert {w.user_id: w.balance for w in await db.storage.leaderboard(chat_id=CHAT)} == {
        ANN: GRANT - 300, BOB: GRANT - 200}

"""/history: a player's net result per coup, read back from the real ledger."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bot import render
from games.engine import BANK, Transfer, stack, stake, wallet
from storage.factory import open_storage

CHAT = -77


def t(src: str, dst: str, amount: int, reason: str) -> Transfer:
    return Transfer(src=src, dst=dst, amount=amount, reason=reason)


async def test_history_shows_net_per_coup_and_grants_newest_first(tmp_path: Path) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 'h.db'}", starting_grant=1000, daily_bonus=50)
    await storage.open()
    try:
        for user in (1, 2):
            await storage.wallet(chat_id=CHAT, user_id=user, name=f"p{user}")
        await storage.claim_daily_bonus(chat_id=CHAT, user_id=1, today=dt.date(2026, 11, 22))
        await storage.create_table(chat_id=CHAT, game="chemin_de_fer", settings={},
                                   state_json="{}", version=0)
        steps = [
            (0, [t(wallet(1), stack(1), 1050, "buy_in"), t(wallet(2), stack(2), 1000, "buy_in")]),
            (1, [t(stack(2), BANK, 100, "bid")]),
            (1, [t(stack(1), stake(1), 100, "stake")]),
            # coup 1: the punter loses his stake to the bank
            (1, [t(stake(1), BANK, 100, "lost")]),
            # coup 2: he stakes 40 and wins 40 from the bank
            (2, [t(stack(1), stake(1), 40, "stake")]),
            (2, [t(BANK, stack(1), 40, "won"), t(stake(1), stack(1), 40, "stake_back")]),
            # coup 3: a stand-off, stake returned: nothing to show
            (3, [t(stack(1), stake(1), 10, "stake")]),
            (3, [t(stake(1), stack(1), 10, "standoff")]),
        ]
        for version, (coup, transfers) in enumerate(steps):
            await storage.commit_step(chat_id=CHAT, expected_version=version, state_json="{}",
                                      version=version + 1, transfers=transfers, coup=coup,
                                      deadline=None)
        entries = await storage.recent_coups(chat_id=CHAT, user_id=1, limit=200)
        assert render.history_lines("en", entries) == [
            "Chemin de fer · coup #2: +40",
            "Chemin de fer · coup #1: -100",
            "daily bonus: +50",
            "starting chips: +1000",
        ]
        assert render.history_lines("ru", entries, limit=2) == [
            "Шмен де фер · кон №2: +40",
            "Шмен де фер · кон №1: -100",
        ]
        banker = await storage.recent_coups(chat_id=CHAT, user_id=2, limit=200)
        assert render.history_lines("en", banker) == [
            "Chemin de fer · coup #1: -100", "starting chips: +1000"]
    finally:
        await storage.close()

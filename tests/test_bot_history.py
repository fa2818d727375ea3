"""/history: a player's net result per coup, read back from the real ledger."""

from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path
from typing import Any

import pytest
from test_banchok_rules import StackedRng
from test_bot_tables import ANN, BOB, CID, NAMES, RecordingBot, make_host, press, results
from test_bot_tables import CHAT as TABLE_CHAT

from bot.view import i18n, wallets
from games import cards
from games.chemin_de_fer import Bid, NameBank, Pass, Stake
from games.engine import BANK, Action, Cut, Start, Transfer, stack, stake, wallet
from storage.factory import open_storage

__all__ = ["make_host"]  # a fixture

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
        assert wallets.history_lines("en", entries) == [
            "Chemin de fer · coup #2: +40",
            "Chemin de fer · coup #1: -100",
            "daily bonus: +50",
            "starting chips: +1000",
        ]
        assert wallets.history_lines("ru", entries, limit=2) == [
            "Шмен де фер · кон №2: +40",
            "Шмен де фер · кон №1: -100",
        ]
        banker = await storage.recent_coups(chat_id=CHAT, user_id=2, limit=200)
        assert wallets.history_lines("en", banker) == [
            "Chemin de fer · coup #1: -100", "starting chips: +1000"]
    finally:
        await storage.close()


# what a player presses, first offered first: every game's coups go on to a result
POLICY = ["start", "cut", "stake", "bid", "name_bank", "post_bank", "accept", "stand",
          "check", "call", "bet", "draw", "pass", "continue", "turn", "buy"]


async def played(make_host: Any, monkeypatch: pytest.MonkeyPatch, game: str, seed: str,
                 coups: int, settings: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """A host whose table of ``game`` has settled ``coups`` coups, shoes shuffled from a
    seeded generator (the same coups every run)."""
    seeded = random.Random(seed)
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(TABLE_CHAT, game, ANN, "en", settings) is None
    await host.idle()
    for player in (ANN, BOB, CID):
        await press(host, bot, player, ["join"])
    for _ in range(400):
        if len(results(bot)) >= coups:
            return host, bot
        table = await host.tables.load(TABLE_CHAT)
        awaited = table.engine.awaiting(table.state) or [ANN]
        await press(host, bot, awaited[0], POLICY)
    raise AssertionError(f"{game}: {len(results(bot))} coups settled")


def shown_nets(bot: Any) -> dict[tuple[int, int], int]:
    """(coup, player) -> the net each result message showed."""
    shown: dict[tuple[int, int], int] = {}
    for text in (m.text for m in bot.chat(TABLE_CHAT) if " settled" in m.text):
        # a coup, or a poker hand
        coup = int(re.search(r"(?:coup|hand) #(\d+) settled", text).group(1))  # type: ignore[union-attr]
        for name, sign, amount in re.findall(r"(Ann|Bob|Cid)(?: \(banker\))? ([+−±])(\d+)",
                                             text.splitlines()[2]):
            player = next(p for p, n in NAMES.items() if n == name)
            shown[(coup, player)] = -int(amount) if sign == "−" else int(amount)
    return shown


@pytest.mark.parametrize(("game", "settings"), [
    ("chemin_de_fer", None), ("baccarat", None), ("banchok", None), ("twenty_one", None),
    ("stud_poker", {"ante": 1})])
async def test_history_shows_per_coup_what_each_result_showed_bankers_included(
        game: str, settings: dict[str, Any] | None, make_host: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await played(make_host, monkeypatch, game, f"history-{game}", 4, settings)
    shown = shown_nets(bot)
    name = i18n.game_name("en", game)
    for player in NAMES:
        entries = await host.storage.recent_coups(chat_id=TABLE_CHAT, user_id=player,
                                                  limit=200)
        lines = [line for line in wallets.history_lines("en", entries, limit=50)
                 if line.startswith(name)]
        deal = "hand" if game.endswith("poker") else "coup"
        expected = [f"{name} · {deal} #{c}: {n:+d}" for (c, p), n in
                    sorted(shown.items(), reverse=True) if p == player and n]
        # a coup under way (the next one's antes, a bank posted for it) is not a result yet
        last = max(c for c, _ in shown)
        assert [x for x in lines if int(x.split("#")[1].split(":")[0]) <= last] == expected



async def test_a_bankers_history_shows_each_coup_of_his_bank_and_a_new_banker_his_win(
        make_host: Any) -> None:
    """Chemin de fer: Ann banks 500. Coup 1: Bob stakes 200, Ann's natural 8 wins it.
    Coup 2: Cid stakes 300 and wins with a natural 9; the bank is offered to Cid (on Ann's
    right), who posts 600. Once, Ann's history read "coup #0: -500" and nothing more, and
    Cid's "coup #2: -300" (his +300 and the 600 he posted for coup 3, merged)."""
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(TABLE_CHAT, "chemin_de_fer", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        await press(host, bot, player, ["join"])
    rng = StackedRng(["2c", "3c", "4c", "Kd", "8h", "Qd", "Jh", "9h", "Kc", "Ks", "Qc"])

    async def act(player: int, action: Action) -> None:
        async with host.tables.locked(TABLE_CHAT) as table:  # as every change of a table
            assert table is not None
            step = table.engine.apply(table.state, player, action, rng)
            await host.tables.commit(table, step, actor=player)

    async def awaited() -> int:
        table = await host.tables.load(TABLE_CHAT)
        return table.engine.awaiting(table.state)[0]  # type: ignore[no-any-return]

    async def staking(coup: int) -> bool:
        state = (await host.tables.load(TABLE_CHAT)).state
        return (state.coup, state.phase) == (coup, "staking")

    await act(ANN, Start())
    await act(ANN, Bid(amount=500))
    await act(await awaited(), Pass())
    await act(await awaited(), Pass())
    await act(await awaited(), Cut(offset=0))
    for coup, staker in ((1, BOB), (2, CID)):  # the other punter passes
        while await staking(coup):
            player = await awaited()
            await act(player, Stake(amount=200 if staker == BOB else 300)
                      if player == staker else Pass())
    assert await awaited() == CID  # offered the bank
    await act(CID, NameBank(amount=600))
    await host.idle()
    assert [line for m in bot.chat(TABLE_CHAT) if " settled" in m.text
            for line in m.text.splitlines()[1:3]] == [
        "Chemin de fer · coup #1 settled", "Ann (banker) +200 · Bob −200",
        "Chemin de fer · coup #2 settled", "Cid +300 · Ann (banker) −300"]

    async def history(player: int, lang: str) -> list[str]:
        entries = await host.storage.recent_coups(chat_id=TABLE_CHAT, user_id=player,
                                                  limit=200)
        return list(wallets.history_lines(lang, entries))

    assert await history(ANN, "en") == [
        "Chemin de fer · coup #2: -300", "Chemin de fer · coup #1: +200",
        "starting chips: +1000"]
    assert await history(ANN, "ru") == [
        "Шмен де фер · кон №2: -300", "Шмен де фер · кон №1: +200", "стартовые фишки: +1000"]
    assert await history(BOB, "en") == ["Chemin de fer · coup #1: -200", "starting chips: +1000"]
    assert await history(CID, "en") == ["Chemin de fer · coup #2: +300", "starting chips: +1000"]
    assert await history(CID, "ru") == ["Шмен де фер · кон №2: +300", "стартовые фишки: +1000"]

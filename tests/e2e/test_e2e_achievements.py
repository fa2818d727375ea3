"""A game's achievement announced once, through the real bot and the sandbox: the test-only
seventh game (tests/highcard.py, offered by ``tests/e2e/seeded/sitecustomize.py``) declares
one, *Double down*, and the bot, which knows no game by name, shows it as one line under the
coup's result on the group's table message (no message of its own) and tells the player in
his private chat, once: the next coup does not again; /stats lists it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import highcard
import pytest
from harness import ROOT, BotProcess, Game, Player
from test_e2e_games import open_and_seat
from test_e2e_standings import answer

from games import registry

SEEDED = Path(__file__).resolve().with_name("seeded")
PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]
ANN, BOB, CID = PLAYERS
BOB_LINE = "🏅 Bob: Double down — doubled a stake"
CID_LINE = "🏅 Cid: Double down — doubled a stake"


@pytest.fixture(scope="module")
def high_card() -> Iterator[None]:
    """The harness reads the table's state, till after each test's transcript check."""
    registry.register(highcard.ENGINE, "highcard")
    yield
    registry.unregister(highcard.GAME)


async def play_coup(game: Game, doubling: set[int]) -> None:
    """Bob and Cid stake the least; those of ``doubling`` double, the other stays."""
    for p in (BOB, CID):
        await game.step(p, ["stake"])
    for p in (BOB, CID):
        await game.step(p, ["decide"], amounts="min" if p.id in doubling else "max")


async def told(game: Game, chat: int) -> list[str]:
    """The chat's messages from the bot (as they read now) that tell an achievement: in the
    group, those with its line; in a private chat, those that announce one (a turn prompt
    shows the line as the group's table does)."""
    return [m["text"] for m in await game.sb.bot_messages(chat) if "🏅" in m["text"]
            and (chat == game.chat_id or " New achievement in " in m["text"])]


async def test_an_achievement_is_announced_once_in_the_group_and_in_private(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path, high_card: None) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", extra={
        "SHOE_SEED": "achievements e2e", "HIGH_CARD": "1",
        "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}"})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -1001, PLAYERS)
    await open_and_seat(game, "high_card")

    await play_coup(game, {BOB.id})

    async def shows(line: str) -> dict[str, Any] | None:
        m = await game.table_message()
        return m if m is not None and line in m["text"].splitlines() else None

    table = await sb.wait_for(lambda: shows(BOB_LINE), timeout=20)
    lines = table["text"].splitlines()
    assert lines[1].startswith("🏆 Coup #1: ") and lines[2] == BOB_LINE
    assert await told(game, game.chat_id) == [table["text"]]  # no message of its own
    dm = "🏅 New achievement in «Table -1001»: Double down — doubled a stake"
    assert await sb.wait_for(lambda: told(game, BOB.id), timeout=20) == [dm]
    assert await told(game, CID.id) == await told(game, ANN.id) == []

    await play_coup(game, {BOB.id, CID.id})
    table = await sb.wait_for(lambda: shows(CID_LINE), timeout=20)
    lines = table["text"].splitlines()
    assert lines[1].startswith("🏆 Coup #2: ") and lines[2] == CID_LINE
    assert BOB_LINE not in lines
    assert await told(game, game.chat_id) == [table["text"]]
    assert await sb.wait_for(lambda: told(game, CID.id), timeout=20) == [dm]
    assert await told(game, BOB.id) == [dm]  # not again

    stats = await answer(game, BOB, "/stats")
    assert stats.splitlines()[-1] == "🏅 Achievements: 1 — Double down"
    assert "Traceback" not in bot.log_text()

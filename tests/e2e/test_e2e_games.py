"""A full coup of every game with three players, through the real bot and the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import DEFAULT, POLICIES, BotProcess, Game, Player

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]


async def open_and_seat(game: Game, name: str) -> None:
    """/newtable GAME, everybody joins, Ann presses Start."""
    await game.setup()
    await game.enable_dms()
    await game.command(game.players[0], f"/newtable {name}")
    for p in game.players:
        await game.step(p, ["join"])
    await game.step(game.players[0], ["start"])


@pytest.mark.parametrize(
    "name", ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
)
async def test_full_coup(name: str, sandbox, bot_factory, tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data")
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -1001, PLAYERS)
    await open_and_seat(game, name)
    sends0, edits0 = await game.group_counts()
    policy = POLICIES.get(name, {})
    steps = await game.play_until_settled(policy, policy.get("", DEFAULT))
    sends, edits = await game.group_counts()
    settled = (await game.settlements())[-1]
    print(
        f"\nE2E {name}: one coup = {steps} steps, {sends - sends0} new group messages, "
        f"{edits - edits0} edits"
    )
    assert settled["text"].splitlines()[1].endswith("settled")
    assert game.hidden_checks > 0
    assert "Traceback" not in bot.log_text()

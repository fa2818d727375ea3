"""Telegram answering too late: the bot's request times out, the step is never lost."""

from __future__ import annotations

from pathlib import Path

from harness import Player, group_with_bot

PLAYERS = [Player(301, "Gil"), Player(302, "Hal"), Player(303, "Ida")]
CHAT = -3003


async def test_a_timed_out_edit_loses_no_step(sandbox, bot_factory, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", CHAT, PLAYERS,
                                timeout=30, table="chemin_de_fer")
    sb, bot = game.sb, game.bot
    await game.step(PLAYERS[0], ["join"])
    before = bot.db_table(CHAT)
    assert before is not None

    # Telegram holds the next table edits longer than the bot waits for an answer (PTB's
    # 5 s read timeout): the bot sees a timeout although the edit may still land
    await sb.fail("editMessageText", delay=6.0, count=2, chat_id=CHAT)
    await game.step(PLAYERS[1], ["join"])
    await game.step(PLAYERS[2], ["join"])

    # every step was committed and the table message catches up with the stored version
    message = await game.synced()
    row = bot.db_table(CHAT)
    assert row is not None and row[2] == before[2] + 2
    assert [line for line in message["text"].splitlines() if "💰" in line] == [
        "Gil (punter) · 💰1000", "Hal (punter) · 💰1000", "Ida (punter) · 💰1000"]
    assert f"editMessageText in chat {CHAT} failed: TimedOut" in bot.log_text()
    assert "Traceback" not in bot.log_text()

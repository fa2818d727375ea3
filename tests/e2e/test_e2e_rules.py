"""/rules through the real bot: a game by any name players call it, case aside, answered
with its rules, one line per paragraph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import Player, group_with_bot

PLAYERS = [Player(101, "Ann"), Player(102, "Bob")]


async def test_rules_answer_to_the_names_players_use(
        sandbox: Any, bot_factory: Any, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", -1001, PLAYERS)
    sb = game.sb
    asked = {"/rules Chemin de fer": "Chemin de fer", "/rules twenty-one": "Twenty-one",
             "/rules STUD": "Five-card stud", "/rules очко": "Twenty-one"}
    for command, title in asked.items():
        before = len(await sb.bot_messages(game.chat_id))
        await game.command(PLAYERS[0], command)

        async def answer(before: int = before, title: str = title) -> dict[str, Any] | None:
            return next((m for m in (await sb.bot_messages(game.chat_id))[before:]
                         if (m["text"] or "").startswith(title)), None)

        text = (await sb.wait_for(answer, timeout=20))["text"]
        paragraphs = text.split("\n\n")
        assert paragraphs[0].startswith(title), command
        # the second paragraph is whole on one line, as Telegram wraps it for the reader
        assert "\n" not in paragraphs[1] and paragraphs[1].endswith("."), paragraphs[1]

"""The all-chats board through the real bot and the sandbox: after three coups of chemin de
fer, /top global ranks nobody while the chat is not listed; a member cannot list it, its
admin can; Ann shows her name with /privacy's button (Bob's press on her picker and forged
data change nothing), and the board then ranks the players as the group's results showed
them, Bob and Cid masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import BotProcess, Game
from test_e2e_standings import ANN, BOB, answer, three_coups

from bot.view import board, i18n, standings
from storage.base import BoardStanding


async def edited_to(game: Game, message_id: int, text: str) -> bool:
    """Whether the group's message ``message_id`` now reads ``text``."""
    for m in await game.sb.messages(game.chat_id):
        if m["message_id"] == message_id:
            return bool(m["text"] == text)
    return False


async def test_top_global_lists_the_chat_once_its_admin_says_so_names_as_players_chose(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    game, shown = await three_coups(sandbox, bot_factory, tmp_path)
    sb, bot = game.sb, game.bot

    def top(public: set[str]) -> str:
        lines = sorted((BoardStanding(user_id=f.user_id, name=name, coups=f.coups, won=f.won,
                                      net=f.net, public=name in public)
                        for name, f in shown.items() if f.coups >= standings.MIN_COUPS),
                       key=lambda s: (-s.net, -s.coups, s.user_id))
        return i18n.plain(board.board_text("en", lines, period="all", game=None))

    # not listed: its coups are on nobody's board
    assert await answer(game, BOB, "/top global") == top(set()).replace(
        top(set()).split("\n", 1)[1].split("\nTo be ranked")[0], "Nobody is ranked yet.")
    assert await answer(game, BOB, "/settings default global on") == (
        "Only chat administrators can do that.")
    assert await answer(game, ANN, "/settings default global on") == (
        "This chat is listed on the all-chats board.")
    assert await answer(game, BOB, "/top global") == top(set())  # all hidden: A•••, B•••…

    assert await answer(game, ANN, "/privacy") == (
        "🌍 On the all-chats board your name is hidden: A•••.")
    picker = (await sb.bot_messages(game.chat_id))[-1]
    assert sb.buttons(picker) == [("👁 Show my name", "p|101|1"), ("🙈 Hide my name", "p|101|0")]
    pressed = await game.press(BOB, "p|101|0", picker["message_id"])
    assert (pressed["text"], pressed["show_alert"]) == (
        "These buttons are someone else's: send /privacy for yours.", True)
    forged = await sb.press(game.chat_id, picker["message_id"], ANN.id, "p|101|9", forge=True,
                            wait=10)
    assert (forged["text"], forged["show_alert"]) == ("This button is not valid.", True)
    pressed = await game.press(ANN, "p|101|1", picker["message_id"])
    assert (pressed["text"], pressed["show_alert"]) == (
        "Your name now shows on the all-chats board.", False)
    await sb.wait_for(lambda: edited_to(game, picker["message_id"],
                                        "🌍 On the all-chats board your name shows: Ann."),
                      timeout=20)
    assert await answer(game, BOB, "/top global") == top({"Ann"})
    # in a private chat too
    await sb.send(BOB.id, BOB.id, "/top global all")

    async def private() -> str | None:
        last = await sb.last_bot_message(BOB.id)
        return str(last["text"]) if last is not None and last["text"].startswith("🌍") else None

    assert await sb.wait_for(private, timeout=20) == top({"Ann"})
    assert "Traceback" not in bot.log_text()

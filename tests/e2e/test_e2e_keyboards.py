"""Every keyboard the bot sends is one Telegram takes where it goes, in all six games.

The Mini App is on (its *Open table* buttons: a URL button to the direct link in the group,
a ``web_app`` button in a private chat), Ann and Bob opened their private chats and Fay did
not: she plays from her views in the group, which only she sees. One seeded coup of each
game; then every keyboard of the Bot API log (sends, edits, ephemeral sends and edits) is
checked against the sandbox's Bot API spec for its chat type
(:func:`harness.keyboard_check`, which the autouse fixture also runs after every e2e test):
no ``web_app`` button outside a private chat, no callback data over 64 bytes, none refused.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from harness import BotProcess, chips, keyboard_check
from test_e2e_ephemeral import FAY, FAY_MOVES, play_a_coup, start

from games import registry

PRIVATE_KEYBOARDS = {"baccarat", "chemin_de_fer", "twenty_one", "draw_poker"}
"""The games whose seeded coup gives Ann or Bob a private decision keyboard."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def with_app(port: int) -> dict[str, str]:
    """The bot's settings for its Mini App on ``port``."""
    return {"WEBAPP_URL": f"http://127.0.0.1:{port}/app/", "WEBAPP_SHORT_NAME": "table",
            "WEBAPP_LISTEN": "127.0.0.1", "WEBAPP_PORT": str(port)}


@pytest.mark.parametrize("game_name", sorted(registry.GAMES))
async def test_every_keyboard_suits_its_chat(
        game_name: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    chat = -2500 - len(game_name)
    # the table played in the chat (the app's card would leave the harness no turn to read)
    game = await start(sandbox, bot_factory, tmp_path, chat, game_name, "screen chat",
                       **with_app(free_port()))
    moves = await play_a_coup(game)
    assert moves == FAY_MOVES.get(game_name, moves)
    counts = keyboard_check(await game.sb.log())
    # the table's keyboards, the private decisions' (with the app's web_app button) and
    # Fay's in her views, where the game has them; besides Ann's and Bob's /start answers,
    # each with the app's profile button
    assert counts["group"] > 0, counts
    assert (counts["private"] > 2) == (game_name in PRIVATE_KEYBOARDS), counts
    assert (counts["ephemeral"] > 0) == bool(moves), counts
    assert await game.sb.bot_messages(FAY.id) == []
    held, issued = chips(game.bot)
    assert held == issued


async def test_without_a_private_chat_she_discards_from_her_view_with_the_app_on(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Draw poker with the Mini App on: Fay, who has no private chat, opens and discards
    from her view in the group; her selection of cards replaces its keyboard there (no
    ``🃏 Open table`` under it: Telegram refuses a web_app button in a group) and her
    discard is taken."""
    chat = -2530
    game = await start(sandbox, bot_factory, tmp_path, chat, "draw_poker", "screen chat",
                       **with_app(free_port()))
    assert await play_a_coup(game) == ["check"] * 6 + ["open", "discard", "check"]
    log = await game.sb.log()
    picks = [e for e in log if e["method"] == "editEphemeralMessageReplyMarkup"]
    assert picks and all(e["ok"] for e in picks)
    assert [b["text"] for row in picks[-1]["params"]["reply_markup"]["inline_keyboard"]
            for b in row][-1] == "Discard 0"
    said = {line for m in await game.sb.bot_messages(chat) for line in
            (m["text"] or "").splitlines() if "Fay discards" in line or "Fay stands" in line}
    assert said == {"Fay discards 0 cards"}  # she kept her five: taken, and told the table

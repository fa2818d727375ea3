"""A table's closing text under a misbehaving Telegram: posted once, at the bottom.

Real Telegram can post a message and still answer the bot with a 5xx, or so late that the
bot's read timeout fires. /closetable's closing text must then reach the chat exactly once,
with its exact text, and the table message, far up, must not carry it as well.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from harness import Player, group_with_bot

# past the bot's read timeout (python-telegram-bot's default is 5 s)
SLOW = 6.0
CLOSED = ("The table is closed; every chip went back to the wallets.\n\nTable closed (an "
          "unfinished coup is void). Back to the wallets: Ann: 1000; Bob: 1000")


@pytest.mark.parametrize("fault", ["502", "slow", "502 twice", "refused first"])
async def test_a_closing_post_whose_first_attempt_fails_is_posted_exactly_once(
        sandbox, bot_factory, tmp_path: Path, fault: str) -> None:
    _, sb = sandbox
    players = [Player(411, "Ann"), Player(412, "Bob")]
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", -4101, players,
                                timeout=60, table="twenty_one")
    for p in players:
        await game.step(p, ["join"])
    await game.synced()
    table = await game.table_message()
    assert table is not None
    if fault == "502":  # posted, answered 502
        await sb.fail("sendMessage", 502, "Bad Gateway", after=True, text="closed",
                      chat_id=game.chat_id)
    elif fault == "slow":  # posted, answered too late
        await sb.fail("sendMessage", delay=SLOW, after=True, text="closed",
                      chat_id=game.chat_id)
    elif fault == "502 twice":  # posted and answered 502, then not posted at all (502)
        await sb.fail("sendMessage", 502, "Bad Gateway", after=True, text="closed",
                      chat_id=game.chat_id)
        await sb.fail("editMessageReplyMarkup", 502, "Bad Gateway", chat_id=game.chat_id)
    else:  # not posted at all: a 502 before it took effect
        await sb.fail("sendMessage", 502, "Bad Gateway", text="closed", chat_id=game.chat_id)
    await game.command(players[0], "/closetable")

    async def closed() -> list[dict] | None:
        mine = [m for m in await sb.bot_messages(game.chat_id) if "closed" in m["text"]]
        done = mine and not mine[-1].get("reply_markup") and not game.bot.db_table(
            game.chat_id) and not await sb.faults()
        return mine if done else None

    await sb.wait_for(closed, timeout=30)
    await asyncio.sleep(SLOW + 1 if fault == "slow" else 1)  # whatever comes late, came
    posts = [m for m in await sb.bot_messages(game.chat_id) if "closed" in m["text"]]
    assert [(m["text"], m.get("reply_markup")) for m in posts] == [(CLOSED, None)]
    assert posts[0]["message_id"] > table["message_id"]  # at the bottom of the chat
    now = {m["message_id"]: m for m in await sb.messages(game.chat_id)}[table["message_id"]]
    assert (now["text"], now.get("reply_markup"), now["deleted"]) == (
        "Twenty-one · waiting for players ⬇️", None, False)

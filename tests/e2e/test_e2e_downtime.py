"""The bot's downtime is not the awaited player's: a decision whose deadline passed while no
process ran gets its time back at the restart (at least 30 s), shown on the table message,
and the player can still act; the safe default applies only once that time runs out."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from harness import BotProcess, Game, Player, group_with_bot

PLAYERS = [Player(3501, "Ann"), Player(3502, "Bob"), Player(3503, "Cid")]
CHAT = -3501
TIMEOUT = 3.0  # the decision timeout: short, so that it passes while the bot is down
TURN = re.compile(r"^⏳ (.+?)(?: · deciding privately)? · (\d+) s$")


def countdown(message: dict[str, Any]) -> tuple[str, int, int] | None:
    """The table message's ⏳ line: who is awaited, the seconds it reads, and the deadline
    its date-time entity counts down to (epoch seconds)."""
    text = message["text"]
    for line in text.splitlines():
        found = TURN.match(line)
        if found:
            start = text.index(line)
            unix = next(e["unix_time"] for e in message.get("entities") or []
                        if e["type"] == "date_time" and start <= e["offset"] < start + len(line))
            return found[1], int(found[2]), unix
    return None


async def prompts_given_back(sb: Any, seq: int, prompts: dict[int, int], started: float
                             ) -> None:
    """Each prompt (player: message id) is edited, after log entry ``seq``, to count down
    the time given back at a restart at ``started``: 30 s, a moment gone."""

    async def edited(player: int) -> dict[str, Any] | None:
        for entry in reversed(await sb.log("editMessageText", since=seq)):
            params = entry["params"]
            if (params.get("chat_id") == player and entry["ok"]
                    and params.get("message_id") == prompts[player]):
                return entry["result"]  # type: ignore[no-any-return]
        return None

    for player in prompts:
        prompt = await sb.wait_for(lambda player=player: edited(player), timeout=30)
        shown = countdown(prompt)
        assert shown is not None, prompt["text"]
        assert 25 <= shown[1] <= 30 and shown[2] >= started + 25, (shown, started)


@pytest.mark.parametrize("how", ["stop", "kill"])
async def test_a_deadline_that_passed_while_the_bot_was_down_is_given_back(
        how: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    data_dir = tmp_path / "data"
    game = await group_with_bot(sandbox, bot_factory, data_dir, CHAT, PLAYERS,
                                timeout=TIMEOUT, table="chemin_de_fer", start=True)
    bot = game.bot
    # the bank's auction: every player bids, each with his clock running
    message = await game.synced()
    awaited = game.awaited(message)
    assert awaited, message["text"]
    due = await sb.wait_for(lambda: bot.db_due(CHAT), timeout=10)
    version = bot.db_table(CHAT)[2]

    assert bot.proc is not None
    if how == "kill":
        bot.kill()
    else:  # SIGTERM, waited for without blocking this loop: the sandbox in it must answer
        bot.proc.terminate()
        await sb.wait_for(lambda: bot.proc.poll() is not None, timeout=15)
        assert bot.proc.returncode == 0
    await sb.wait_for(lambda: time.time() > due + 1.0, timeout=TIMEOUT + 5)  # while down

    restarted = BotProcess(handle.url, data_dir, timeout=TIMEOUT)
    bot_factory.append(restarted)
    seq = max(e["seq"] for e in await sb.log())
    started = time.time()
    restarted.start()
    game.bot = restarted

    # the table message is drawn again with a fresh countdown, and nobody timed out
    async def redrawn() -> dict[str, Any] | None:
        for entry in reversed(await sb.log("editMessageText", since=seq)):
            params = entry["params"]
            if params.get("chat_id") == CHAT and entry["ok"] and "⏳" in params["text"]:
                return await game.synced()
        return None

    message = await sb.wait_for(redrawn, timeout=20)
    shown = countdown(message)
    assert shown is not None, message["text"]
    names, seconds, unix = shown
    assert names == ", ".join(p.name for p in awaited), message["text"]
    assert 25 <= seconds <= 30 and unix >= started + 25, (shown, started)
    assert restarted.db_table(CHAT)[2] == version
    assert "timed out" not in message["text"]

    # the awaited player still bids, in his time
    kind, answer = await game.step(awaited[0], ["bid"])
    assert kind == "bid" and restarted.db_table(CHAT)[2] > version, answer
    texts = [e["params"].get("text", "") for e in await sb.log(since=seq)
             if e["params"].get("chat_id") == CHAT]
    assert not any("timed out" in t for t in texts), texts
    assert "time lost while down given back" in restarted.log_text()


async def test_the_time_given_back_shows_on_the_private_prompts(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    data_dir = tmp_path / "data"
    bot = BotProcess(handle.url, data_dir, timeout=TIMEOUT, extra={"TURN_DMS": "1"})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, PLAYERS)
    await game.setup()
    await game.enable_dms()
    await game.command(PLAYERS[0], "/newtable chemin_de_fer")
    for p in PLAYERS:
        await game.step(p, ["join"])
    await game.step(PLAYERS[0], ["start"])
    # the bank's auction: each player bids from the prompt in his private chat
    def prompted() -> tuple[float, dict[int, int]] | None:  # every prompt delivered, the
        due, prompts = bot.db_due(CHAT), bot.db_prompts(CHAT)  # clock running
        return (due, prompts) if due and len(prompts) == 3 else None

    due, prompts = await sb.wait_for(prompted, timeout=10)
    assert sorted(prompts) == [p.id for p in PLAYERS], prompts
    version = bot.db_table(CHAT)[2]

    bot.kill()
    await sb.wait_for(lambda: time.time() > due + 1.0, timeout=TIMEOUT + 5)
    restarted = BotProcess(handle.url, data_dir, timeout=TIMEOUT, extra={"TURN_DMS": "1"})
    bot_factory.append(restarted)
    seq = max(e["seq"] for e in await sb.log())
    started = time.time()
    restarted.start()
    game.bot = restarted

    # every player's prompt is drawn again, counting down the time given back
    await prompts_given_back(sb, seq, prompts, started)
    assert restarted.db_table(CHAT)[2] == version
    kind, answer = await game.step(PLAYERS[1], ["bid"])
    assert kind == "bid" and restarted.db_table(CHAT)[2] > version, answer

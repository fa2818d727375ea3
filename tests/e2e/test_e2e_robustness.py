"""Restart mid-coup, DM Forbidden, 429 and 5xx from Telegram, forged and stale presses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import BotProcess, Game, Player

PLAYERS = [Player(201, "Dan"), Player(202, "Eve"), Player(203, "Fay")]


async def test_restart_forbidden_errors_forged_stale(sandbox, bot_factory,
                                                      tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=30)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -2002, PLAYERS)
    await game.setup()
    # Fay never opens a private chat: her DMs are Forbidden
    await game.enable_dms(PLAYERS[:2])
    await game.command(PLAYERS[0], "/newtable twenty_one")
    for p in PLAYERS:
        await game.step(p, ["join"])

    # a 429 and a 5xx on the table edits and messages: no step is lost
    await sb.fail("editMessageText", 429, "Too Many Requests: retry after 1", retry_after=1,
                  count=1)
    await sb.fail("sendMessage", 502, "Bad Gateway", count=2, chat_id=-2002)
    await game.step(PLAYERS[0], ["start"])
    message = await game.synced()  # the message catches up with the committed state

    # forged and stale presses: a pop-up, nothing changes
    version = bot.db_table(-2002)[2]
    forged = await sb.press(-2002, message["message_id"], PLAYERS[0].id, "a|-2002|x|y|z|",
                            forge=True)
    assert forged["answered"] and forged["text"] == "This button is not valid."
    other = await sb.press(-2002, message["message_id"], PLAYERS[0].id,
                           f"a|-9|1|{version}|stake|10", forge=True)
    assert other["answered"] and other["text"] == "This button belongs to another table."
    stale = await sb.press(-2002, message["message_id"], PLAYERS[0].id,
                           f"a|-2002|1|{version - 1}|stake|10", forge=True)
    # a button of another coup: refused, saying whom the table waits for now
    assert stale["answered"]
    awaited = game.awaited(message)
    if PLAYERS[0] in awaited:  # his own move now: its buttons named
        assert stale["text"].startswith("This button is out of date. Your move now: "), stale
    else:
        assert stale["text"] == "This button is out of date. Now waiting for " + ", ".join(
            p.name for p in awaited) + "."
    assert bot.db_table(-2002)[2] == version

    # the answer to a press fails with a 500 (it may or may not have arrived): it is sent
    # again and the player gets the same pop-up; nothing changes
    await sb.fail("answerCallbackQuery", 500, "Internal Server Error", count=1)
    failed = await sb.press(-2002, message["message_id"], PLAYERS[0].id,
                            f"a|-2002|1|{version - 1}|stake|10", forge=True, wait=3)
    assert failed["answered"] and failed["text"] == stale["text"], failed
    assert failed["answer_calls"] == 1  # the refused call never reached the query
    assert bot.db_table(-2002)[2] == version
    assert await sb.wait_for(lambda: "answer to a press failed: NetworkError" in bot.log_text())

    # play until Fay holds hidden cards (the stakes phase first; a two-card 21 is shown at
    # once, so a coup where she holds one is played out and the next one dealt)
    from games import registry
    from games.cards import pretty_all
    from games.engine import Points

    def fay_view() -> Any:
        row = bot.db_table(-2002)
        engine = registry.engine(row[0])
        return engine.view(engine.state_type.model_validate_json(row[1]), PLAYERS[2].id)

    for _ in range(40):
        message = await game.synced()
        if fay_view().my_cards:
            break
        awaited = game.awaited(message)
        await game.step(awaited[0], ["cut", "stake", "pass", "stand"])
    fay = fay_view()
    assert fay.my_cards and "🂠" in message["text"]

    # Fay's DM was Forbidden: the group gets the deep link, My cards works for her only
    link = await sb.wait_for(lambda: _find(sb, -2002, "https://t.me/banco_bot?start=t"),
                             timeout=15)
    assert "Fay" in link["text"]
    my = next(d for t, d in sb.buttons(message) if d and d.startswith("m|"))
    popup = await sb.press(-2002, message["message_id"], PLAYERS[2].id, my)
    # a short pop-up: her cards also go to the group, to her alone (test_e2e_ephemeral.py)
    assert not popup["show_alert"]
    assert popup["text"] == "\n".join([
        "Your cards: " + pretty_all(list(fay.my_cards)),
        *(f"Your total: {v.n}" for k, v in fay.my_facts.items()
          if k == "total" and isinstance(v, Points))])
    assert list(fay.my_facts) == ["total"]  # twenty-one: her own total, for her eyes only

    # crash in the middle of the coup; the new process resumes from the last commit
    before = bot.db_table(-2002)
    bot.kill()
    edits_before = len(await sb.log("editMessageText"))
    restarted = BotProcess(handle.url, tmp_path / "data", timeout=30)
    bot_factory.append(restarted)
    restarted.start()
    game.bot = restarted
    await sb.wait_for(lambda: _count(sb, edits_before), timeout=20)  # re-rendered
    assert restarted.db_table(-2002)[2] == before[2]
    message = await game.synced()
    awaited = game.awaited(message)
    assert awaited, message["text"]
    player = awaited[0]
    if player == PLAYERS[2]:
        # buying is decided in private, and Fay never opened her private chat: she follows
        # the deep link the group got, and the bot answers with her pending decision
        await sb.send(player.id, player.id, "/start tm2002")
        await sb.wait_for(lambda: sb.last_bot_message(player.id), timeout=20)
    await game.step(player, ["stand", "buy"])  # the coup goes on
    assert restarted.db_table(-2002)[2] == before[2] + 1
    # both processes append to one log: neither logged a traceback
    assert restarted.log_text().count("Traceback") == 0


async def _find(sb, chat_id: int, needle: str):
    for m in await sb.bot_messages(chat_id):
        if needle in m["text"]:
            return m
    return None


async def _count(sb, n: int) -> bool:
    return len(await sb.log("editMessageText")) > n

"""Polling mode keeps webhook mode's promise: an update fetched is handled, even across a
crash. Telegram takes updates as read with the bot's next getUpdates, which the library
sends before their handlers ran; a SIGKILL in between used to lose them (presses never
answered, nor acted on). Now each fetched update is kept in the database until handled,
and the next start handles what is left."""

from __future__ import annotations

import os
from pathlib import Path

from harness import ROOT, BotProcess, Game, Player, answered_badly
from test_e2e_faults import open_table, prefer

SEEDED = {"SHOE_SEED": "polling kill",  # the same deal, the same player awaited, each run
          "PYTHONPATH": f"{Path(__file__).resolve().with_name('seeded')}{os.pathsep}{ROOT}"}


async def test_presses_fetched_before_a_kill_are_handled_and_answered_once_after_it(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=600, extra=SEEDED)
    bot_factory.append(bot)
    bot.start()
    games = [Game(sb, bot, -3601, [Player(3611, "Ann"), Player(3612, "Bob")]),
             Game(sb, bot, -3602, [Player(3621, "Cid"), Player(3622, "Dan")])]
    presses = []
    for game in games:
        await open_table(game, "twenty_one")
        message = await game.synced()
        player = game.awaited(message)[0]
        version = bot.db_table(game.chat_id)[2]
        data = next(d for kind in prefer("twenty_one", message)
                    for _, d in sb.buttons(message)
                    if d and d.startswith(f"a|{game.chat_id}|") and d.split("|")[4] == kind
                    and d.split("|")[3] == str(version))
        presses.append((game, message, player, data, version))

    # both presses are fetched and taken as read, and their handling is under way (their
    # answers hang, never reaching the player) when the bot is killed
    await sb.fail("answerCallbackQuery", 502, "Bad Gateway", delay=60, count=2)
    ids = [(await sb.press(game.chat_id, message["message_id"], player.id, data, wait=0))
           ["callback_query_id"] for game, message, player, data, _ in presses]
    pending = {u["update_id"] for u in await sb.updates()}

    async def taken_as_read() -> bool:
        return not await sb.faults() and not pending & {
            u["update_id"] for u in await sb.updates()}

    await sb.wait_for(taken_as_read, timeout=20)
    bot.kill()
    await sb.clear_faults()

    restarted = BotProcess(handle.url, tmp_path / "data", timeout=600, extra=SEEDED)
    bot_factory.append(restarted)
    restarted.start()
    for qid, (game, _, player, _, version) in zip(ids, presses, strict=True):
        game.bot = restarted
        got = await sb.answer(qid, wait=20)
        assert got["answered"], f"{player.name}'s press was lost in the kill"
        assert got["text"] == "✂️ Cut · your move again", got
        await game.synced()
        # one step: the press acted once, before the kill or after it, not twice
        assert restarted.db_table(game.chat_id)[2] == version + 1
    assert await answered_badly(sb) == []  # no press answered twice, none left unanswered

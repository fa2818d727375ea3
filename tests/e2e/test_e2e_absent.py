"""A draw poker table everybody walked away from (docs/rules.md §0.7, §0.12), as the real
bot process plays it: the absent are stood up after two timeouts each, no more antes are
taken from them, and after six decisions in a row with nobody acting the table closes
itself, every chip back in the wallets."""

from __future__ import annotations

import re
from pathlib import Path

from harness import BotProcess, Game, Player, balances

CLOSED = ("⏰ Nobody has played for 6 decisions in a row: the table closes itself.\n\n"
          "The table is closed; every chip went back to the wallets.\n\n"
          "Table closed (an unfinished coup is void). Back to the wallets: "
          "Ann: 1000; Bob: 1000; Cid: 1000; Dee: 1000")
TIMED_OUT_RE = re.compile(r"chat -4201: step \d+ timed out")


async def test_draw_poker_nobody_playing_closes_itself_after_six_decisions(
        sandbox, bot_factory, tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=1.0, extra={"IDLE_CLOSE": "6"})
    bot_factory.append(bot)
    bot.start()
    players = [Player(421, "Ann"), Player(422, "Bob"), Player(423, "Cid"), Player(424, "Dee")]
    game = Game(sb, bot, -4201, players)
    await game.setup()
    await game.enable_dms()
    await game.command(players[0], "/newtable draw_poker")
    for p in players:
        await game.step(p, ["join"])
    await game.step(players[0], ["start"])  # and then nobody plays

    async def closed() -> str | None:
        last = await sb.last_bot_message(game.chat_id)
        return last["text"] if last and bot.db_table(game.chat_id) is None and \
            last["text"].startswith("⏰ Nobody") else None

    text = await sb.wait_for(closed, timeout=60)
    assert text.split("\n\n")[:3] == CLOSED.split("\n\n")
    # six decisions timed out, and no more: Bob and Cid, timed out twice, were stood up
    assert len(TIMED_OUT_RE.findall(bot.log_path.read_text())) == 6
    said = [e["params"].get("text", "") for e in await sb.log()
            if e["params"].get("chat_id") == game.chat_id]
    assert any("Bob timed out twice and is stood up" in t for t in said)
    assert any("Cid timed out twice and is stood up" in t for t in said)
    assert not any("Dee timed out twice" in t for t in said)
    assert {k: v for k, v in balances(bot).items() if k.startswith(f"{game.chat_id}/")} == {
        f"{game.chat_id}/wallet:{p.id}": 1000 for p in players}

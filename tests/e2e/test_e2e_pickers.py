"""The /newtable game picker, through the real bot: once a table is open, every picker
posted before it loses its buttons (as a superseded table message does), through the
durable outbox; a press on one anyway is answered with what is open, and opens nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import BotProcess, Game, Player

ANN, BOB = Player(2601, "Ann"), Player(2602, "Bob")
CHAT = -2600


async def test_an_older_picker_loses_its_buttons_once_a_table_opens(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, [ANN, BOB])
    await game.setup()

    async def pickers() -> list[dict[str, Any]]:
        return [m for m in await sb.bot_messages(CHAT) if m["text"] == "Which game?"]

    await game.command(ANN, "/newtable")
    await sb.wait_for(lambda: _count(pickers, 1), timeout=20)
    await game.command(BOB, "/newtable")
    first, second = await sb.wait_for(lambda: _count(pickers, 2), timeout=20)
    # Bob picks twenty-one on his picker
    twenty_one = next(d for label, d in sb.buttons(second) if label == "Twenty-one")
    answer = await sb.press(CHAT, second["message_id"], BOB.id, twenty_one, wait=10)
    assert (answer["text"], answer["show_alert"]) == ("Twenty-one", False)
    table = await game.synced()
    assert table["text"].startswith("Twenty-one")

    # both pickers lose their keyboards (read in the chat's history), their texts stay
    async def disarmed() -> list[dict[str, Any]] | None:
        now = await pickers()
        return now if all(m["reply_markup"] is None for m in now) else None

    assert [m["message_id"] for m in await sb.wait_for(disarmed, timeout=20)] == [
        first["message_id"], second["message_id"]]
    # Ann presses chemin de fer on the first anyway (an old client still shows it)
    chemin = next(d for label, d in sb.buttons(first) if label == "Chemin de fer")
    answer = await sb.press(CHAT, first["message_id"], ANN.id, chemin, forge=True, wait=10)
    assert answer["answered"]
    assert answer["text"] == "This chat already has a table: Twenty-one. /table shows it."
    assert bot.db_table(CHAT)[0] == "twenty_one"  # type: ignore[index]
    # the table message is the one live message with buttons
    live = [m for m in await sb.bot_messages(CHAT) if m["reply_markup"]]
    assert [m["message_id"] for m in live] == [table["message_id"]]


async def _count(pickers: Any, n: int) -> list[dict[str, Any]] | None:
    found: list[dict[str, Any]] = await pickers()
    return found if len(found) == n else None

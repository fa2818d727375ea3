"""A private keyboard works where it is shown: draw poker's *Discard…* in the DM."""

from __future__ import annotations

from typing import Any

from test_bot_decoder import at_the_draw
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    RecordingBot,
    make_host,
    press,
    worded,
)

from bot.view.codec import ActionButton
from games.cards import pretty
from games.engine import Step


async def test_discard_pressed_in_the_dm_turns_that_message_into_the_selection(
        make_host: Any) -> None:  # noqa: F811
    host = await make_host(RecordingBot())
    assert await host.lifecycle.open_table(CHAT, "draw_poker", 1, "en") is None
    table = await host.tables.load(CHAT)
    state, _ = at_the_draw()
    await host.tables.commit(table, Step(state=state.model_copy(  # type: ignore[attr-defined]
        update={"version": table.state.version + 1})))
    table = await host.tables.load(CHAT)
    ask = ActionButton(CHAT, table.state.coup, table.state.version, "discard", ask=True)
    in_dm = worded(await host.presses.press(CHAT, 2, "Bob", ask, private=True))
    assert in_dm.text == "" and in_dm.dm is None and in_dm.keyboard is not None
    rows = [[b.text for b in row] for row in in_dm.keyboard.inline_keyboard]
    assert rows[1] == ["Discard 0"] and len(rows[0]) == 5
    in_group = worded(await host.presses.press(CHAT, 2, "Bob", ask, private=False))
    assert in_group.text == "Choose in your private chat with the bot."
    assert in_group.dm is not None and in_group.dm[0] == 2


async def test_a_dealt_hand_reads_once_in_the_dm(make_host: Any) -> None:  # noqa: F811
    """The deal's DM says each card once, on its "Your cards" line, not again as
    "X gets 6♣" lines, one per card."""
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "draw_poker", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        assert await press(host, bot, player, ["join"]) == "🪑 You sit down with 1000"
    assert (await press(host, bot, ANN, ["start"])).startswith("▶️ Start")
    await host.idle()
    table = await host.tables.load(CHAT)
    for player in (ANN, BOB, CID):
        dealt = next(m.text for m in bot.chat(player) if "Your cards: " in m.text)
        mine = " ".join(pretty(c) for c in table.engine.view(table.state, player).my_cards)
        lines = dealt.split("\n")
        at = lines.index(f"Your cards: <b>{mine}</b>")  # under the table, in his prompt
        assert lines[at + 1].startswith("Your hand: "), dealt
        assert not [ln for ln in lines[at:] if " gets " in ln or "You get " in ln], dealt

"""A private keyboard works where it is shown: draw poker's *Discard…* in the DM."""

from __future__ import annotations

from typing import Any

from test_bot_decoder import at_the_draw
from test_bot_tables import CHAT, RecordingBot, make_host  # noqa: F401 (a fixture)

from bot.callbacks import ActionButton
from games.engine import Step


async def test_discard_pressed_in_the_dm_turns_that_message_into_the_selection(
        make_host: Any) -> None:  # noqa: F811
    host = await make_host(RecordingBot())
    assert await host.tables.open_table(CHAT, "draw_poker", 1, "en") is None
    table = await host.tables.load(CHAT)
    state, _ = at_the_draw()
    await host.tables.commit(table, Step(state=state.model_copy(  # type: ignore[attr-defined]
        update={"version": table.state.version + 1})))
    table = await host.tables.load(CHAT)
    ask = ActionButton(CHAT, table.state.coup, table.state.version, "discard", ask=True)
    in_dm = await host.presses.press(CHAT, 2, "Bob", ask, private=True)
    assert in_dm.text == "" and in_dm.dm is None and in_dm.keyboard is not None
    rows = [[b.text for b in row] for row in in_dm.keyboard.inline_keyboard]
    assert rows[1] == ["Discard 0"] and len(rows[0]) == 5
    in_group = await host.presses.press(CHAT, 2, "Bob", ask, private=False)
    assert in_group.text == "Choose in your private chat with the bot."
    assert in_group.dm is not None and in_group.dm[0] == 2

"""What a player reads when he decides: pop-ups in his language, his turn prompt as the table
from his seat, kept current while his decision is open and disarmed once it is gone."""

from __future__ import annotations

import dataclasses
from typing import Any

from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    RecordingBot,
    buttons,
    make_host,
    seat_three,
    table_message,
)


async def test_pop_ups_are_in_the_pressers_language_not_the_groups(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)  # an English group
    await host.presses.languages.choose(BOB, "ru")  # /language in his private chat
    table = await host.tables.load(CHAT)
    forged = dataclasses.replace(next(b for b in buttons(table_message(bot))
                                      if b.kind == "leave"), version=10**9)

    async def pop_up(player: int, language: str | None) -> str:
        return (await host.presses.press(CHAT, player, "X", forged, language=language)).text

    # his private chat's language first, then Telegram's for him, then the group's
    assert await pop_up(BOB, "en") == "Эта кнопка недействительна."
    assert await pop_up(CID, "ru") == "Эта кнопка недействительна."
    assert await pop_up(CID, "de") == "This button is not valid."
    assert await pop_up(ANN, None) == "This button is not valid."
    assert await host.presses.my_cards(CHAT, CID, "ru") == "Сейчас у вас нет закрытых карт."
    assert await host.presses.my_cards(CHAT, CID, "en") == "You have no hidden cards now."
    assert (await host.tables.load(CHAT)).state.version == table.state.version

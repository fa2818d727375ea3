"""The chat table as players meet it: small traps around the table's buttons and the
admins' commands, and pace where it was lost. Host-level: real SQLite storage, the
courier, and a recording fake Bot (tests/test_bot_tables.py)."""

from __future__ import annotations

from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    RecordingBot,
    make_host,
    press,
    table_message,
)


def rows(bot: RecordingBot) -> list[list[str]]:
    """The live table message's buttons as the group reads them, row by row."""
    markup = table_message(bot).markup
    assert markup is not None
    return [[b.text for b in row] for row in markup.inline_keyboard]


@pytest.mark.parametrize(("lang", "join", "leave", "start", "seated"), [
    ("en", "🪑 Join", "🚪 Leave", "▶️ Start", "🪑 You sit down with 1000"),
    ("ru", "🪑 Сесть", "🚪 Встать", "▶️ Начать", "🪑 Вы садитесь за стол с 1000")])
async def test_leave_is_never_where_join_was_and_join_says_the_buy_in(
        make_host: Any, lang: str, join: str, leave: str, start: str,  # noqa: F811
        seated: str) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.tables.open_table(CHAT, "twenty_one", ANN, lang) is None
    await host.idle()
    assert rows(bot) == [[join]]
    # a second tap where Join was lands on Join again (and is refused), never on Leave:
    # Join keeps the first row while nobody is awaited, Leave has the last row alone
    assert await press(host, bot, ANN, ["join"]) == seated
    assert rows(bot) == [[join], [leave]]
    assert await press(host, bot, BOB, ["join"]) == seated
    assert rows(bot) == [[join], [start], [leave]]
    await press(host, bot, CID, ["join"])
    assert rows(bot) == [[join], [start], [leave]]

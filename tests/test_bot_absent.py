"""Tables nobody plays at any more (docs/rules.md §0.7, §0.12, §0.13), as the group meets
them: seats that cannot stake stand up, the absent stop posting antes, and a table where
nobody has acted for ``idle_close`` decisions closes itself with every chip back in the
wallets. Host-level: real SQLite storage, the courier, and the recording fake Bot
(tests/test_bot_tables.py)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from test_bot_commands import HandlerBot, command
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    Host,
    RecordingBot,
    buttons,
    make_host,
    press,
    table_message,
)

from bot.gateway import commands
from bot.view import i18n
from games import cards
from storage.base import TableNotFound

DAN = 4
SEED = 1  # a shoe whose first coup the banker wins


async def seat(host: Host, bot: RecordingBot, game: str, players: list[int],
               lang: str = "en") -> None:
    NAMES.setdefault(DAN, "Dan")
    assert await host.lifecycle.open_table(CHAT, game, ANN, lang) is None
    await host.idle()
    for player in players:
        await press(host, bot, player, ["join"])


async def time_runs_out(host: Host) -> bool:
    """The awaited players' time runs out; False when there is no table any more."""
    try:
        table = await host.tables.load(CHAT)
    except TableNotFound:
        return False
    assert (await host.tables.clock.started(table)).due is not None, "the turn was never shown"
    clock = host.tables.clock
    clock.now = lambda: time.time() + 3600
    try:
        await clock.on_deadline(CHAT, table.state.version)
    finally:
        clock.now = time.time
    await host.idle()
    return True


async def wallets(host: Host, *players: int) -> dict[int, tuple[int, int]]:
    out = {}
    for p in players:
        w = await host.storage.wallet(chat_id=CHAT, user_id=p)
        out[p] = (w.balance, w.on_table)
    return out


@pytest.mark.parametrize(("lang", "why", "closed"), [
    ("en", "⏰ Nobody has played for 6 decisions in a row: the table closes itself.",
     "The table is closed; every chip went back to the wallets."),
    ("ru", "⏰ Решений подряд, где никто не сыграл: 6 — стол закрывается сам.",
     "Стол закрыт; все фишки вернулись в кошельки.")])
async def test_draw_poker_nobody_playing_stands_up_the_absent_and_closes_after_six_decisions(
        make_host: Any, lang: str, why: str, closed: str) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat(host, bot, "draw_poker", [ANN, BOB, CID, DAN], lang)
    await press(host, bot, ANN, ["start"])
    assert await wallets(host, ANN, BOB, CID, DAN) == dict.fromkeys(
        (ANN, BOB, CID, DAN), (0, 999))  # one ante each in the pot
    timeouts = 0
    stood: list[str] = []
    while await time_runs_out(host):
        timeouts += 1
        assert timeouts <= 6, "the table did not close itself"
        try:
            table = await host.tables.load(CHAT)
        except TableNotFound:
            continue
        stood = [line for line in table_message(bot).text.splitlines() if "🚪" not in line
                 and ("stood up" in line or "встаёт" in line)]
        # the second deal's antes (Ann's first); never a third deal's
        pot = table.engine.view(table.state, None).pot
        assert pot <= 8
    # four decisions of the first deal, two of the second: Bob and Cid, timed out twice,
    # were stood up; the sixth decision nobody took closed the table
    assert timeouts == 6
    assert [line.lstrip("·⏰ ") for line in stood][-1:] == (
        ["Bob timed out twice and is stood up"] if lang == "en"
        else ["Bob дважды не успел сходить и встаёт из-за стола"]), stood
    text = bot.chat(CHAT)[-1].text
    assert text.split("\n\n")[:2] == [why, closed]
    assert await wallets(host, ANN, BOB, CID, DAN) == dict.fromkeys(
        (ANN, BOB, CID, DAN), (1000, 0))
    assert await host.storage.pending_outbox() == []


async def test_a_players_action_sets_the_count_of_unplayed_decisions_back_to_zero(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat(host, bot, "draw_poker", [ANN, BOB, CID, DAN])
    await press(host, bot, ANN, ["start"])
    for _ in range(5):
        assert await time_runs_out(host)
    assert (await host.tables.load(CHAT)).meta.idle == 5
    table = await host.tables.load(CHAT)
    awaited = table.engine.awaiting(table.state)[0]
    await press(host, bot, awaited, ["check", "open"])  # from his private chat
    assert (await host.tables.load(CHAT)).meta.idle == 0
    assert await time_runs_out(host)
    assert (await host.tables.load(CHAT)).meta.idle == 1


@pytest.mark.parametrize(("text", "answer"), [
    ("/settings idle_close 2", "This table: idle_close = 2 decisions. For this chat's next "
     "tables too: /settings default idle_close 2"),
    ("/settings idle_close -1", "Cannot set that: idle_close takes 0 to 1000 decisions")])
async def test_idle_close_is_a_table_setting(make_host: Any, text: str,  # noqa: F811
                                             answer: str) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat(host, bot, "draw_poker", [ANN, BOB])
    tg = HandlerBot()
    said = await command(host, tg, commands.cmd_settings, "/settings")
    assert ("idle_close = 6 decisions — the table closes itself after this many decisions "
            "in a row with nobody playing (0: never)") in i18n.plain(said[0].text).splitlines()
    said = await command(host, tg, commands.cmd_settings, text)
    assert [i18n.plain(s.text) for s in said] == [answer]
    if text.endswith(" 2"):
        await press(host, bot, ANN, ["start"])
        assert await time_runs_out(host) and await time_runs_out(host)
        assert not await time_runs_out(host)  # closed after two
        assert await wallets(host, ANN, BOB) == {ANN: (1000, 0), BOB: (1000, 0)}


async def test_chemin_de_fer_punters_at_zero_are_stood_up_instead_of_void_coups_for_ever(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    # Bob calls banco with every chip he has and loses (a fixed shoe): with nothing to stake
    # he made every coup after it void, and the banker's safe default (go on) the next one
    seeded = random.Random(SEED)
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    await seat(host, bot, "chemin_de_fer", [ANN, BOB])
    await press(host, bot, ANN, ["start"])
    bid = next(b for b in buttons(table_message(bot)) if b.kind == "bid" and b.amount == 1000)
    assert (await host.presses.press(CHAT, ANN, "Ann", bid)).committed
    await host.idle()
    await press(host, bot, BOB, ["pass"])
    await press(host, bot, BOB, ["cut"])
    await press(host, bot, BOB, ["banco"])
    for _ in range(4):  # the third cards, as each player's rules allow
        table = await host.tables.load(CHAT)
        if table.state.phase == "idle":
            break
        await press(host, bot, table.engine.awaiting(table.state)[0], ["stand", "draw"])
    table = await host.tables.load(CHAT)
    assert table.state.phase == "idle" and table.state.coup == 1
    assert table.engine.awaiting(table.state) == []  # no deadline: nothing loops
    assert [s.player for s in table.state.seats] == [ANN]
    text = table_message(bot).text
    assert "· Bob leaves the table with 0" in text.splitlines()
    assert "<blockquote expandable>🚪 Bob cannot cover 1 and is stood up</blockquote>" in text
    assert await wallets(host, ANN, BOB) == {ANN: (0, 2000), BOB: (0, 0)}

"""Presses that change nothing the rules care about: refused, never a step, no clock restarted.

Seen in a kill test: a player pressing *Leave* again and again on a seat already leaving
made a step each time (469 steps in 4.5 minutes, no coup settled), each restarting the
awaited player's decision and its deadline and sending every awaited player his "Your
move" DM again.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    PREFERRED,
    RecordingBot,
    buttons,
    make_host,
    press,
    table_message,
)

from games import cards
from games.engine import IllegalAction, Leave

BANKING = ["baccarat", "chemin_de_fer", "banchok", "twenty_one"]


def leaves_later(table: Any, player: int) -> bool:
    """Whether *Leave* marks ``player``'s seat to go after the coup and his decision goes
    on (he has something at stake): the case where a repeated press did harm."""
    engine, state = table.engine, table.state
    try:
        after = engine.apply(state, player, Leave()).state
    except IllegalAction:
        return False
    return engine.awaiting(after) == engine.awaiting(state)


@pytest.mark.parametrize("game", BANKING)
async def test_leave_pressed_fifty_times_on_an_awaited_seat_is_one_step_and_no_new_clock(
        game: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    # the shoes are shuffled from a seeded generator: the same coup every run
    seeded = random.Random(f"leave-{game}")
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.tables.open_table(CHAT, game, ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        assert await press(host, bot, player, ["join"]) == "🪑 Join"
    for _ in range(100):
        table = await host.tables.load(CHAT)
        awaited = table.engine.awaiting(table.state) or [ANN]
        if table.state.coup > 0 and leaves_later(table, awaited[0]):
            break
        await press(host, bot, awaited[0], PREFERRED)
    else:
        raise AssertionError("no awaited seat with something at stake")
    player = awaited[0]
    await host.idle()
    before = await host.tables.load(CHAT)
    assert before.meta.due is not None  # his clock runs: he has been shown his turn
    dms = {p: [m.text for m in bot.chat(p)] for p in (ANN, BOB, CID)}
    leave = next(b for b in buttons(table_message(bot)) if b.kind == "leave")

    outcomes = await asyncio.gather(*(
        host.presses.press(CHAT, player, NAMES[player], leave) for _ in range(50)))
    await host.idle()

    texts = [o.text for o in outcomes]
    assert [o.committed for o in outcomes] == [True] + [False] * 49
    assert texts[0].startswith("🚪 Leave · ")
    assert texts[1:] == ["You are already leaving after this coup."] * 49
    after = await host.tables.load(CHAT)
    assert after.state.version == before.state.version + 1  # one step, the first press's
    assert after.engine.awaiting(after.state) == [player]
    # his decision goes on: the same decision, the same deadline, no prompt sent again
    assert (after.meta.decision, after.meta.due) == (before.meta.decision, before.meta.due)
    new = {p: [m.text for m in bot.chat(p)][len(dms[p]):] for p in (ANN, BOB, CID)}
    assert new == {ANN: [], BOB: [], CID: []}
    # Leave is offered to him no more (the group's button stays: the others may leave)
    assert all(x.kind != "leave" for x in after.sight.legal(player))

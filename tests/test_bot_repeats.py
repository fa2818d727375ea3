"""Presses that change nothing the rules care about: refused, never a step, no clock restarted.

Seen in a kill test: a player pressing *Leave* again and again on a seat already leaving
made a step each time (469 steps in 4.5 minutes, no coup settled), each restarting the
awaited player's decision and its deadline and sending every awaited player his "Your
move" DM again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import pytest
from test_bot_amounts import at_a_stake, stake_of
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
    private_keyboard,
    seat_three,
    table_message,
    worded,
)

from bot.table.presses import seat_name
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
    assert await host.lifecycle.open_table(CHAT, game, ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        assert await press(host, bot, player, ["join"]) == "🪑 You sit down with 1000"
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
    due = (await host.tables.clock.started(before)).due
    assert due is not None  # his clock runs: he has been shown his turn
    dms = {p: [m.text for m in bot.chat(p)] for p in (ANN, BOB, CID)}
    leave = next(b for b in buttons(table_message(bot)) if b.kind == "leave")

    outcomes = await asyncio.gather(*(
        host.presses.press(CHAT, player, NAMES[player], leave) for _ in range(50)))
    await host.idle()

    texts = [worded(o).text for o in outcomes]
    assert [o.committed for o in outcomes] == [True] + [False] * 49
    assert texts[0].startswith("🚪 Leave · ")
    assert texts[1:] == ["You are already leaving after this coup."] * 49
    after = await host.tables.load(CHAT)
    assert after.state.version == before.state.version + 1  # one step, the first press's
    assert after.engine.awaiting(after.state) == [player]
    # his decision goes on: the same decision, the same deadline, no prompt sent again
    assert (after.meta.decision, after.meta.due) == (before.meta.decision, due)
    new = {p: [m.text for m in bot.chat(p)][len(dms[p]):] for p in (ANN, BOB, CID)}
    assert new == {ANN: [], BOB: [], CID: []}
    # Leave is offered to him no more (the group's button stays: the others may leave)
    assert all(x.kind != "leave" for x in after.sight.legal(player))


async def test_a_button_naming_a_later_decision_than_any_drawn_is_refused_as_forged(
        make_host: Any) -> None:  # noqa: F811
    # seen in the fuzz run: a|-204|1|9999999999999|leave| was accepted as Leave
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    table = await host.tables.load(CHAT)
    leave = next(b for b in buttons(table_message(bot)) if b.kind == "leave")
    forged = dataclasses.replace(leave, version=9999999999999)
    outcome = await host.presses.press(CHAT, BOB, "Bob", forged)
    assert (worded(outcome).text, outcome.committed) == ("This button is not valid.", False)
    assert (await host.tables.load(CHAT)).state.version == table.state.version
    # the button as drawn still works
    assert worded(await host.presses.press(CHAT, BOB, "Bob", leave)).text == "🚪 Leave"


async def test_an_amount_no_button_offers_is_refused_and_a_drawn_one_taken(
        make_host: Any) -> None:  # noqa: F811
    # seen in the fuzz run: a stake button of 36 accepted where the keyboard offered 1 and 18
    host, bot, player, spec = await at_a_stake(make_host)
    drawn = [b for b in private_keyboard(bot, player) if b.kind == "stake" and b.amount]
    presets = sorted(b.amount for b in drawn if b.amount is not None)
    between = next(a for a in range(spec.min or 1, (spec.max or 1) + 1) if a not in presets)
    table = await host.tables.load(CHAT)
    forged = dataclasses.replace(drawn[0], amount=between)
    outcome = await host.presses.press(CHAT, player, NAMES[player], forged, True)
    labels = ", ".join(["Stake " + str(presets[0]), *map(str, presets[1:]), "✏️ amount"])
    assert (worded(outcome).text, outcome.committed) == (
        f"This button is out of date. Your move now: Pass, {labels}, 🚪 Leave.", False)
    assert (await host.tables.load(CHAT)).state.version == table.state.version
    # an amount typed in his reply is any in the range, the one no button offers included
    assert await host.presses.press(CHAT, player, NAMES[player], next(
        b for b in private_keyboard(bot, player) if b.ask), True)
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(between),
                                           private=True) is None
    assert await stake_of(host, player) == between


@pytest.mark.parametrize("name", ["", "   ", "\u200b\u2063", "\u202e\u200d \u00a0"])
async def test_a_player_whose_name_shows_nothing_sits_down_under_his_id(
        name: str, make_host: Any) -> None:  # noqa: F811
    # seen in the fuzz run: a Leave answered "🚪 Встать · теперь ход:    "
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    join = next(b for b in buttons(table_message(bot)) if b.kind == "join")
    assert worded(await host.presses.press(CHAT, 7, name, join)).text == \
        "🪑 You sit down with 1000"
    assert worded(await host.presses.press(CHAT, ANN, "Ann", join)).text == \
        "🪑 You sit down with 1000"
    table = await host.tables.load(CHAT)
    assert [s.name for s in table.sight.view().seats] == ["7", "Ann"]
    assert seat_name("  Anna \n Maria ", 7) == "Anna Maria"


async def test_a_press_delivered_again_is_answered_as_done_and_not_applied_twice(
        make_host: Any) -> None:  # noqa: F811
    # a worker that committed a press and died before answering it: Telegram (or the load
    # balancer) delivers the same callback query to another worker
    host, bot, player, _ = await at_a_stake(make_host)
    stake = next(b for b in private_keyboard(bot, player) if b.kind == "stake" and b.amount)
    first = await host.presses.press(CHAT, player, NAMES[player], stake, True, key="q-1")
    table = await host.tables.load(CHAT)
    again = await host.presses.press(CHAT, player, NAMES[player], stake, True, key="q-1")
    assert first.committed and again.committed
    assert worded(again).text == worded(first).text
    assert worded(first).text.startswith("Stake · ")
    assert (await host.tables.load(CHAT)).state.version == table.state.version
    assert await stake_of(host, player) == stake.amount
    # another press of the same button (another query) is refused as ever
    other = await host.presses.press(CHAT, player, NAMES[player], stake, True, key="q-2")
    assert not other.committed


async def test_a_typed_amount_delivered_again_is_not_staked_twice(
        make_host: Any) -> None:  # noqa: F811
    host, _, player, spec = await at_a_stake(make_host)
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(spec.min),
                                           mentioned=True, key="m77") is None
    table = await host.tables.load(CHAT)
    assert await stake_of(host, player) == spec.min
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(spec.min),
                                           mentioned=True, key="m77") is None
    assert (await host.tables.load(CHAT)).state.version == table.state.version

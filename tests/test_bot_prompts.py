"""What a player reads when he decides: pop-ups in his language, his turn prompt as the table
from his seat, kept current while his decision is open and disarmed once it is gone."""

from __future__ import annotations

import dataclasses
import random
import time
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
    play_until_settled,
    press,
    seat_three,
    table_message,
    worded,
)

from games import cards


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
        outcome = await host.presses.press(CHAT, player, "X", forged, language=language)
        return worded(outcome, await host.presses.lang_of(CHAT, player, language)).text

    async def my_cards(player: int, language: str | None) -> str:
        outcome = await host.presses.my_cards(CHAT, player)
        return worded(outcome, await host.presses.lang_of(CHAT, player, language)).text

    # his private chat's language first, then Telegram's for him, then the group's
    assert await pop_up(BOB, "en") == "Эта кнопка недействительна."
    assert await pop_up(CID, "ru") == "Эта кнопка недействительна."
    assert await pop_up(CID, "de") == "This button is not valid."
    assert await pop_up(ANN, None) == "This button is not valid."
    assert await my_cards(CID, "ru") == "Сейчас у вас нет закрытых карт."
    assert await my_cards(CID, "en") == "You have no hidden cards now."
    assert (await host.tables.load(CHAT)).state.version == table.state.version


async def seeded_three(make_host: Any, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                       seed: str) -> tuple[Any, RecordingBot]:
    """A host whose shoes are shuffled from a generator seeded with ``seed`` (the same coup
    every run), and three players seated at twenty-one: the host and its Telegram."""
    seeded = random.Random(seed)
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    return host, bot


def keyboards(bot: RecordingBot, player: int) -> list[Any]:
    """The player's private messages that still carry buttons."""
    return [m for m in bot.chat(player) if m.markup is not None]


async def test_a_prompt_whose_decision_is_taken_loses_its_buttons_and_says_so(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seeded_three(make_host, monkeypatch, "prompts")
    await host.tables.languages.choose(BOB, "ru")
    await press(host, bot, ANN, ["start"])
    done: list[str] = []
    for _ in range(40):  # every decision made from the prompt in the player's private chat
        table = await host.tables.load(CHAT)
        awaited = table.engine.awaiting(table.state)
        if not awaited or table.state.coup > 1:
            break
        player = awaited[0]
        [live] = keyboards(bot, player)  # his one live prompt, the table from his seat
        assert live.text.startswith("<b>"), live.text
        # as it was sent: its delivery did not redraw it (nor drop what happened to him)
        assert live.edits == 0, live.text
        offered = buttons(live)
        kind = next(k for k in PREFERRED if any(b.kind == k and not b.ask for b in offered))
        button = next(b for b in offered if b.kind == kind and not b.ask)
        outcome = await host.presses.press(CHAT, player, NAMES[player], button, True)
        assert outcome.committed, worded(outcome).text
        await host.idle()
        # that prompt keeps the table as it was, without buttons, and says what he did as
        # the table's log says it: his stake with its amount, not the button's bare label
        assert live.markup is None, live.text
        done.append(next(ln for ln in reversed(live.text.splitlines()) if ln.startswith("✅")))
        for p in (ANN, BOB, CID):  # never a stack of live-looking keyboards
            assert len(keyboards(bot, p)) <= 1
    else:
        raise AssertionError("the first coup did not end")
    assert done == ["✅ Cid cuts the shoe", "✅ Bob ставит 1", "✅ Cid stakes 1", "✅ Bob: хватит",
                    "✅ Cid stands", "✅ Ann stands"]
    # the prompt closed by the step that settled the coup ends with its result, as the
    # group's result words it: headline, coup number, nets, hands
    assert live.text.split("\n✅ Ann stands\n\n")[1] == (
        "🏆 <b>Cid wins 1 with 18 points</b>\n"
        "Twenty-one · coup #1 settled\n"
        "Cid +1 · Bob ±0 · Ann (banker) −1\n"
        "<blockquote expandable>Hands: Bob: 10♦ 5♦ (15 points); Cid: 8♠ 10♥ (18 points); "
        "Ann: 10♣ 5♥ (15 points)</blockquote>")


async def at_the_cut(make_host: Any) -> tuple[Any, RecordingBot, Any, int, Any]:  # noqa: F811
    """Twenty-one started by three: the host, its Telegram, the table, the cutter and his
    one live prompt."""
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await press(host, bot, ANN, ["start"])
    table = await host.tables.load(CHAT)
    [cutter] = table.engine.awaiting(table.state)
    [live] = keyboards(bot, cutter)
    return host, bot, table, cutter, live


async def test_an_open_prompt_is_edited_as_the_table_changes_not_sent_again(
        make_host: Any) -> None:  # noqa: F811
    host, bot, table, cutter, live = await at_the_cut(make_host)
    sent = len(bot.chat(cutter))
    assert "Dan" not in live.text
    join = next(b for b in buttons(table_message(bot)) if b.kind == "join")
    assert (await host.presses.press(CHAT, 4, "Dan", join)).committed  # Dan sits down
    await host.idle()
    assert len(bot.chat(cutter)) == sent  # no new message: the same prompt, edited
    assert "\nDan (punter) · 💰1000" in live.text and live.markup is not None
    assert {b.kind for b in buttons(live)} >= {"cut"}
    table = await host.tables.load(CHAT)
    assert list(table.meta.prompts) == [cutter]


async def test_a_prompt_says_when_time_ran_out_and_when_the_table_closed(
        make_host: Any) -> None:  # noqa: F811
    host, bot, table, cutter, first = await at_the_cut(make_host)
    host.tables.clock.now = lambda: time.time() + 61  # nobody cut: his time is up
    await host.tables.clock.on_deadline(CHAT, table.state.version)
    host.tables.clock.now = time.time
    await host.idle()
    assert first.markup is None
    assert first.text.endswith(
        f"\n⏰ Time ran out; the table decided for you: {NAMES[cutter]} cuts the shoe"), first.text
    table = await host.tables.load(CHAT)
    awaited = table.engine.awaiting(table.state)
    [second] = keyboards(bot, awaited[0])
    assert await host.lifecycle.close_table(CHAT) is None
    await host.idle()
    assert second.markup is None and second.text.endswith("\n🚪 The table is closed.")
    assert all(not keyboards(bot, p) for p in (ANN, BOB, CID))


async def test_the_next_table_message_leads_with_the_last_coups_result(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seeded_three(make_host, monkeypatch, "results")
    await play_until_settled(host, bot, coups=2)  # into coup 2: coup 1 is settled
    [result] = [m for m in bot.chat(CHAT) if " settled\n" in m.text]
    headline, _, nets = result.text.split("\n")[:3]
    live = table_message(bot)
    assert live.message_id > result.message_id  # at the bottom, where players look
    # "🏆 <b>Ann wins 10</b>" and "Ann +10 · Bob −10" in one line: the coup and its nets
    won = headline.removeprefix("🏆 <b>").removesuffix("</b>")
    assert live.text.split("\n")[1] == f"🏆 Coup #1: {won} ({nets})"  # under its header
    await host.lifecycle.set_language(CHAT, "ru")
    await host.idle()
    first = table_message(bot).text.split("\n")[1]
    assert first.startswith("🏆 Кон №1: ") and first.endswith(")")

"""Typed amounts: the ✏️ prompt addressed to the presser, his reply, and "@bot 200"."""

from __future__ import annotations

from typing import Any

import pytest
from test_bot_commands import HandlerBot, command
from test_bot_ephemeral import Server
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    CHAT,
    NAMES,
    PREFERRED,
    Host,
    RecordingBot,
    buttons,
    make_host,
    press,
    private_keyboard,
    seat_three,
    table_message,
    typed_reply,
    worded,
)

from bot.gateway.buttons import on_group_text
from bot.gateway.ephemeral import Ephemeral
from bot.view.codec import ActionButton
from games.engine import ActionSpec


async def until_someone_stakes(host: Host, bot: RecordingBot) -> int:
    """Twenty-one played by the default policy until an awaited player may stake: him."""
    for _ in range(30):
        table = await host.tables.load(CHAT)
        for player in table.engine.awaiting(table.state):
            if any(s.kind == "stake" for s in table.sight.legal(player)):
                return player
        awaited = table.engine.awaiting(table.state) or [next(iter(NAMES))]
        await press(host, bot, awaited[0], [k for k in PREFERRED if k != "stake"])
    raise AssertionError("nobody was asked to stake")


async def at_a_stake(make_host: Any) -> tuple[Host, RecordingBot, int, ActionSpec]:  # noqa: F811
    """Three seated at twenty-one until a punter may stake: the host, its bot, him and his
    stake's bounds."""
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    player = await until_someone_stakes(host, bot)
    table = await host.tables.load(CHAT)
    return host, bot, player, next(s for s in table.sight.legal(player) if s.kind == "stake")


def ask_button(bot: RecordingBot) -> ActionButton:
    return next(b for b in buttons(table_message(bot)) if b.kind == "stake" and b.ask)


async def stake_of(host: Host, player: int) -> int:
    table = await host.tables.load(CHAT)
    return next(s.stake for s in table.sight.view().seats if s.player == player)


async def test_the_amount_button_prompts_the_presser_and_his_reply_is_his_stake(
        make_host: Any) -> None:  # noqa: F811
    host, bot, player, spec = await at_a_stake(make_host)
    outcome = worded(await host.presses.press(CHAT, player, NAMES[player], ask_button(bot)))
    # where to write it: the reply is in the group, where he pressed
    assert outcome.text == f"Type the amount ({spec.min}–{spec.max}) in reply to my message " \
                           "below, here in the group."
    assert outcome.prompt == (
        f'<a href="tg://user?id={player}">{NAMES[player]}</a>, Stake: how much? '
        f"{spec.min}–{spec.max}", f"{spec.min}–{spec.max}")
    wrong = typed_reply(await host.presses.typed_amount(CHAT, player, NAMES[player], "lots"))
    assert wrong == f"{NAMES[player]}, send a whole number of chips (e.g. 50)."
    high = typed_reply(await host.presses.typed_amount(CHAT, player, NAMES[player],
                                                       str(spec.max + 1)))
    assert high == f"{NAMES[player]}, the amount must be from {spec.min} to {spec.max}."
    assert await stake_of(host, player) == 0
    amount = spec.min + 1
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(amount)) is None
    assert await stake_of(host, player) == amount


async def test_an_amount_typed_when_it_can_no_longer_be_taken_is_refused_in_words(
        make_host: Any) -> None:  # noqa: F811
    host, bot, player, spec = await at_a_stake(make_host)
    await host.presses.press(CHAT, player, NAMES[player], ask_button(bot))
    await host.lifecycle.group_lost(CHAT)  # the table pauses: nothing may be staked now
    refused = typed_reply(await host.presses.typed_amount(CHAT, player, NAMES[player],
                                                          str(spec.min)))
    assert refused == "You cannot do that now."
    assert await stake_of(host, player) == 0


async def test_at_bot_with_an_amount_takes_the_one_amount_action(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    player = await until_someone_stakes(host, bot)
    others = [p for p in NAMES if p != player]
    table = await host.tables.load(CHAT)
    idle = next(p for p in others if not any(
        s.min is not None and s.kind != "join" for s in table.sight.legal(p)))
    refused = typed_reply(await host.presses.typed_amount(CHAT, idle, NAMES[idle], "7",
                                                          mentioned=True))
    assert refused == (f"{NAMES[idle]}, write @banco_bot and an amount while one amount is "
                       "asked of you; for anything else press ✏️ first.")
    spec = next(s for s in table.sight.legal(player) if s.kind == "stake")
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(spec.min),
                                           mentioned=True) is None
    assert await stake_of(host, player) == spec.min


async def test_the_reply_is_taken_by_another_worker_and_ends_the_ask(make_host: Any) -> None:  # noqa: F811
    """Several workers: the ask is kept with the table, so the worker that gets the reply
    need not be the one that took the press; once he has staked, his next chat line is
    no amount any more."""
    first, bot, player, spec = await at_a_stake(make_host)
    await first.presses.press(CHAT, player, NAMES[player], ask_button(bot))
    await first.idle()
    other = await make_host(bot, deliver=False)  # another process on the same database
    assert (await other.tables.load(CHAT)).meta.asks[player].kind == "stake"
    assert await other.presses.typed_amount(CHAT, player, NAMES[player],
                                            str(spec.min + 1)) is None
    assert await stake_of(other, player) == spec.min + 1
    assert player not in (await other.tables.load(CHAT)).meta.asks
    assert await other.presses.typed_amount(CHAT, player, NAMES[player], "nice hand") is None


async def test_amount_pressed_in_the_private_chat_is_asked_and_typed_there(
        make_host: Any) -> None:  # noqa: F811
    host, bot, player, spec = await at_a_stake(make_host)
    name = NAMES[player]
    ask = next(b for b in private_keyboard(bot, player) if b.kind == "stake" and b.ask)
    outcome = worded(await host.presses.press(CHAT, player, name, ask, True))
    assert outcome.text == f"Type the amount ({spec.min}–{spec.max}) in reply to my message " \
                           "below, here in our private chat."
    assert outcome.prompt == (f"✏️ Stake: how much? {spec.min}–{spec.max}",
                              f"{spec.min}–{spec.max}")
    assert outcome.prompt_private
    assert await host.presses.private_ask(player) == CHAT
    # a line in the group is not his answer: he was asked in private
    assert await host.presses.typed_amount(CHAT, player, name, str(spec.min)) is None
    # wrong amounts are refused and leave the reply open for the next try
    for typed, said in (("abc", f"{name}, send a whole number of chips (e.g. 50)."),
                        ("99999", f"{name}, the amount must be from {spec.min} to {spec.max}."),
                        ("-5", f"{name}, the amount must be from {spec.min} to {spec.max}.")):
        assert typed_reply(await host.presses.typed_amount(CHAT, player, name, typed,
                                                           private=True)) == said
        assert host.presses.asked(CHAT, player)
    assert await stake_of(host, player) == 0
    assert await host.presses.typed_amount(CHAT, player, name, str(spec.min), private=True,
                                           key="p1.9") is None
    assert await stake_of(host, player) == spec.min
    assert not host.presses.asked(CHAT, player)
    assert await host.presses.private_ask(player) is None


async def test_a_private_amount_is_answered_in_the_players_language(
        make_host: Any) -> None:  # noqa: F811
    host, bot, player, spec = await at_a_stake(make_host)
    ask = next(b for b in private_keyboard(bot, player) if b.kind == "stake" and b.ask)
    outcome = worded(await host.presses.press(CHAT, player, "Иван", ask, True, language="ru"),
                     "ru")
    assert outcome.text == f"Напишите сумму ({spec.min}–{spec.max}) в ответ на моё сообщение " \
                           "ниже, здесь, в нашем личном чате."
    assert outcome.prompt is not None
    assert outcome.prompt[0] == f"✏️ Ставка: сколько? {spec.min}–{spec.max}"
    assert typed_reply(await host.presses.typed_amount(CHAT, player, "Иван", "сто",
                                                       private=True, language="ru"), "ru") == (
        "Иван, отправьте целое число фишек (например, 50).")


async def test_an_amount_asked_from_a_view_shown_to_him_alone_is_asked_there(
        make_host: Any) -> None:  # noqa: F811
    """✏️ pressed on his view shown to him alone in the group (an ephemeral message): the
    prompt is his alone there too, in his words, and he writes the amount in the group."""
    host, bot, player, spec = await at_a_stake(make_host)
    outcome = worded(await host.presses.press(CHAT, player, NAMES[player], ask_button(bot),
                                              True, here=True), "en", "ru")
    assert outcome.text == f"Write the amount ({spec.min}–{spec.max}) in this chat."
    assert outcome.prompt == (
        f"✏️ Stake: how much? {spec.min}–{spec.max} Write the number in this chat.",
        f"{spec.min}–{spec.max}")
    assert outcome.prompt_here and not outcome.prompt_private
    await host.presses.ask_shown(CHAT, player, 9)  # the gateway showed it: message 9
    wrong = typed_reply(await host.presses.typed_amount(CHAT, player, NAMES[player], "lots"))
    assert wrong == f"{NAMES[player]}, send a whole number of chips (e.g. 50)."
    await host.idle()
    assert bot.ephemeral == []  # still asked: the prompt stays
    assert await host.presses.typed_amount(CHAT, player, NAMES[player], str(spec.min)) is None
    assert await stake_of(host, player) == spec.min
    await host.idle()  # answered: the prompt goes
    assert bot.ephemeral == [("deleteEphemeralMessage", {
        "chat_id": CHAT, "receiver_user_id": player, "ephemeral_message_id": 9})]


@pytest.mark.parametrize(("lang", "wrong"), [
    ("en", "{}, send a whole number of chips (e.g. 50)."),
    ("ru", "{}, отправьте целое число фишек (например, 50).")])
async def test_a_wrong_amount_asked_from_his_view_is_answered_to_him_alone(
        make_host: Any, lang: str, wrong: str) -> None:  # noqa: F811
    """Asked from his view shown to him alone, a wrong amount is answered there too, in his
    words, not to the whole group; the group's message stays the fallback."""
    host, bot, player, _ = await at_a_stake(make_host)
    await host.tables.languages.choose(player, lang)
    await host.presses.press(CHAT, player, NAMES[player], ask_button(bot), True, here=True)
    await host.presses.ask_shown(CHAT, player, 9)
    server = Server(ephemeral=True)
    tg = HandlerBot()
    said = await command(host, tg, on_group_text, "lots", player, Ephemeral(server))
    assert said == []  # nothing in the group
    assert [(m, k["chat_id"], k["receiver_user_id"], k["text"]) for m, k in server.calls
            if k.get("text", "").startswith(NAMES[player])] == [
        ("editEphemeralMessageText", CHAT, player, wrong.format(NAMES[player]))]
    # where views to him alone are off, the group is told, as before
    said = await command(host, tg, on_group_text, "lots", player)
    assert [(s.chat_id, s.text) for s in said] == [
        (CHAT, f"{NAMES[player]}, send a whole number of chips (e.g. 50).")]

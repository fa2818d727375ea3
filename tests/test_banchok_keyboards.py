"""Banchok's keyboards in the chat, at a table played in the Mini App: the punter's stake is
one switch (*Joining allowed* / *No joining*) over one row of amounts, the switch drawing his
keyboard again in place without a commit; and a player who plays in the chat joins another's
stake from the group's card, as the app lets him.

In-process, with the host wired as in ``test_bot_app_mode`` (the recording fake Bot) and a
seeded shoe: Cid banks, Ann is the first punter, Bob the second.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_bot_app_mode import (  # noqa: F401 (make_app_host is a fixture)
    LINKS,
    AppBot,
    actions,
    group_done,
    labels,
    live_prompt,
    live_table,
    make_app_host,
    seeded,
    to_first_coup,
)
from test_bot_tables import ANN, BOB, CHAT, CID, NAMES, Host

from bot.view import answers
from bot.view.codec import ActionButton, decode
from bot.view.keyboards import Keyboard
from bot.view.outcomes import Switched

TEXTS: dict[str, dict[str, Any]] = {
    "en": {
        "allowed": [["🔁 Joining allowed"], ["Stake 5", "25", "75"], ["300", "✏️ amount"],
                    ["🚪 Leave"], ["🃏 Open table"]],
        "forbidden": [["🔁 No joining"], ["Stake 5", "25", "75"], ["300", "✏️ amount"],
                      ["🚪 Leave"], ["🃏 Open table"]],
        "to_forbidden": "Your stake now: No joining",
        "to_allowed": "Your stake now: Joining allowed",
        "card": [["🃏 Open table"], ["🂠 My cards", "🪑 Join"], ["🚪 Leave"]],
        "joining": [["🃏 Open table"], ["Join stake (punter) 1", "5", "75"],
                    ["295", "✏️ amount"], ["🂠 My cards", "🪑 Join"], ["🚪 Leave"]],
        "forged": "This button is not valid.",
        "stale": "That button was for an earlier turn. Your move now: Turn card, 🚪 Leave.",
        "not_yours": "It is not your turn.",
    },
    "ru": {
        "allowed": [["🔁 С примазкой"], ["Ставка 5", "25", "75"], ["300", "✏️ сумма"],
                    ["🚪 Встать"], ["🃏 Открыть стол"]],
        "forbidden": [["🔁 Без примазки"], ["Ставка 5", "25", "75"], ["300", "✏️ сумма"],
                      ["🚪 Встать"], ["🃏 Открыть стол"]],
        "to_forbidden": "Ваша ставка теперь: Без примазки",
        "to_allowed": "Ваша ставка теперь: С примазкой",
        "card": [["🃏 Открыть стол"], ["🂠 Мои карты", "🪑 Сесть"], ["🚪 Встать"]],
        "joining": [["🃏 Открыть стол"], ["Примазаться (понтёр) 1", "5"],
                    ["75", "295", "✏️ сумма"], ["🂠 Мои карты", "🪑 Сесть"], ["🚪 Встать"]],
        "forged": "Эта кнопка недействительна.",
        "stale": "Эта кнопка была для прежнего хода. Ваш ход: Открыть карту, 🚪 Встать.",
        "not_yours": "Сейчас не ваш ход.",
    },
}


async def banchok_in_app(make_app_host: Any, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                         lang: str) -> tuple[Host, AppBot]:
    """A banchok table in app mode, its group in ``lang``, Ann, Bob and Cid seated from the
    group and the first coup begun: Ann to stake, on her turn prompt in private."""
    seeded(monkeypatch, "app-banchok")
    bot = AppBot()
    host = await make_app_host(bot, LINKS)
    assert await host.lifecycle.open_table(CHAT, "banchok", ANN, lang) is None
    await host.idle()
    for player in (ANN, BOB, CID):
        join = next(b for b in actions(live_table(bot).markup) if b.kind == "join")
        assert (await host.presses.press(CHAT, player, NAMES[player], join)).committed
        await host.idle()
    await to_first_coup(host, bot)
    table = await host.tables.load(CHAT)
    assert (table.state.phase, table.state.banker, table.engine.awaiting(table.state)) == (
        "staking", CID, [ANN])
    return host, bot


def rows(keyboard: Keyboard | None) -> list[list[str]]:
    return [[b.text for b in row] for row in keyboard.inline_keyboard] if keyboard else []


def pressed(keyboard: Keyboard | Any, text: str) -> ActionButton:
    """The action button labelled ``text`` on ``keyboard`` (ours, or PTB's)."""
    button = next(b for row in keyboard.inline_keyboard for b in row if b.text == text)
    decoded = decode(button.callback_data)
    assert isinstance(decoded, ActionButton)
    return decoded


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_punters_switch_draws_his_keyboard_again_with_the_other_way(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:  # noqa: F811
    host, bot = await banchok_in_app(make_app_host, monkeypatch, lang)
    texts = TEXTS[lang]
    prompt = live_prompt(bot, ANN)
    # one switch naming the way shown, and one row of amounts taken that way
    assert labels(prompt.markup) == texts["allowed"]
    before = (await host.tables.load(CHAT)).state.version
    outcome = await host.presses.press(CHAT, ANN, NAMES[ANN],
                                       pressed(prompt.markup, texts["allowed"][0][0]), True)
    assert isinstance(outcome, Switched) and not outcome.committed
    said = answers.answer(outcome, lang, lang)
    assert said.text == texts["to_forbidden"]
    assert rows(said.keyboard) == texts["forbidden"]
    # the keyboard alone holds the way: nothing was committed
    assert (await host.tables.load(CHAT)).state.version == before
    # and back again
    back = answers.answer(await host.presses.press(
        CHAT, ANN, NAMES[ANN], pressed(said.keyboard, texts["forbidden"][0][0]), True),
        lang, lang)
    assert (back.text, rows(back.keyboard)) == (texts["to_allowed"], texts["allowed"])
    # the amounts of the switched keyboard stake with no joining: nobody is offered to join
    mark = len(bot.group)
    stake = pressed(said.keyboard, "25")
    assert (await host.presses.press(CHAT, ANN, NAMES[ANN], stake, True)).committed
    await host.idle()
    await group_done(host)
    # (with no joining there is no window to wait for: her card is turned at once)
    table = await host.tables.load(CHAT)
    assert table.state.seats[0].forbids and table.state.last is not None
    assert (table.state.last.punter, [p for p, _ in table.state.last.results]) == (ANN, [ANN])
    assert not [b for c in bot.group[mark:] for b in actions(c.markup)
                if b.kind == "join_stake"]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_chat_player_joins_a_stake_from_the_groups_card(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:  # noqa: F811
    host, bot = await banchok_in_app(make_app_host, monkeypatch, lang)
    texts = TEXTS[lang]
    prompt = live_prompt(bot, ANN)
    mark = len(bot.group)
    stake = pressed(prompt.markup, texts["allowed"][1][0])
    assert (await host.presses.press(CHAT, ANN, NAMES[ANN], stake, True)).committed
    await host.idle()
    await group_done(host)
    # the coup's card is drawn again once, to offer the others her stake to join
    assert [(c.method, labels(c.markup)) for c in bot.group[mark:]] == [
        ("edit", texts["joining"])]
    join = pressed(live_table(bot).markup, "5")
    assert (join.kind, join.amount) == ("join_stake", 5)
    outcome = await host.presses.press(CHAT, BOB, NAMES[BOB], join)
    assert outcome.committed, answers.answer(outcome, lang, lang).text
    await host.idle()
    table = await host.tables.load(CHAT)
    assert table.state.joiners == [BOB]
    assert [(s.name, s.stake) for s in table.state.seats] == [("Ann", 5), ("Bob", 5), ("Cid", 0)]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_forged_or_stale_switch_is_refused(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:  # noqa: F811
    host, bot = await banchok_in_app(make_app_host, monkeypatch, lang)
    texts = TEXTS[lang]
    prompt = live_prompt(bot, ANN)
    switch = pressed(prompt.markup, texts["allowed"][0][0])
    assert switch.switch == 1

    async def answer(player: int, button: ActionButton, private: bool = True) -> str:
        outcome = await host.presses.press(CHAT, player, NAMES[player], button, private)
        assert not outcome.committed
        return answers.answer(outcome, lang, lang).text

    def like(**changes: Any) -> ActionButton:
        return ActionButton(**{**switch.__dict__, **changes})

    # no such way, a switch carrying an amount or a choice too, a switch on a plain action
    assert await answer(ANN, like(switch=2)) == texts["forged"]
    assert await answer(ANN, like(amount=25)) == texts["forged"]
    assert await answer(ANN, like(choice=0)) == texts["forged"]
    assert await answer(ANN, like(kind="leave")) == texts["forged"]
    # not his stake to switch
    assert await answer(BOB, switch, False) == texts["not_yours"]
    # once she has staked, her old keyboard's switch answers an earlier turn
    stake = pressed(prompt.markup, texts["allowed"][1][0])
    assert (await host.presses.press(CHAT, ANN, NAMES[ANN], stake, True)).committed
    await host.idle()
    assert await answer(ANN, switch) == texts["stale"]

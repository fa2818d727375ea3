"""What a player reads, as he reads it: numbers that are true, and what he must notice first.

Fixed shoes throughout; each test names the exact text, in English and in Russian where
it is about words.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from markupsafe import Markup
from poker_fixtures import draw_order, fixed_shoe, seated, stud_order
from telegram import Update
from test_banchok_rules import HANDS
from test_banchok_rules import banked as banchok_banked
from test_chemin_de_fer_rules import shoe_of as chemin_shoe
from test_chemin_de_fer_rules import staking as chemin_staking
from test_twenty_one_rules import table as twenty_one_table

from bot.gateway import buttons, commands
from bot.gateway import context as ctx
from bot.table import sends
from bot.table.languages import Languages
from bot.view import i18n, logbook, render, results, screens
from bot.view.scene import scene
from bot.view.sight import Sight
from games import banchok, chemin_de_fer, twenty_one
from games.engine import (
    Event,
    GameState,
    Settlement,
    Step,
    Transfer,
    chips,
    each,
    points,
    word,
)
from games.poker import draw as draw_poker
from games.poker import stud as stud_poker
from games.poker.common import Bet, Call, Check
from storage.sqlite import SqliteStorage

NAMES = {1: "Ann", 2: "Boris", 3: "Chloé", 4: "Dan"}


def dms(step: Step[GameState], engine: object, lang: str) -> dict[int, str]:
    """Each player's direct message of ``step``, by player."""
    return {d.target: str(d.payload["text"]) for d in sends.direct_messages(
        dict.fromkeys(NAMES, lang), -1, Sight(engine, step.state),  # type: ignore[arg-type]
        step.events, NAMES)}


def settled(events: list[Event]) -> dict[str, object]:
    return next(e.data for e in events if e.kind == "coup_settled")


def test_a_banchok_result_names_the_bankers_net() -> None:
    # Ann banks; Boris stakes 100 on 9h 4s Kd and the turned 9h covers it: the bank pays
    state = banchok_banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "9h", "5c"], joining=False)
    step = banchok.ENGINE.apply(state, 2, banchok.Stake(amount=100))
    data = next(e for e in step.events if isinstance(e, Settlement))
    names = {1: "Ann", 2: "Boris", 3: "Chloé"}
    assert results.settlement_text("en", "banchok", data, names, []).splitlines() == [
        "🏆 <b>Boris wins 100</b>", "Polish banchok · coup #1 settled",
        "Boris +100 · Ann (banker) −100"]
    assert results.settlement_text("ru", "banchok", data, names, []).splitlines() == [
        "🏆 <b>Boris выигрывает 100</b>", "Польский банчок · кон №1: расчёт",
        "Boris +100 · Ann (банкомёт) −100"]


def own_lines(dm: str, first: str) -> list[str]:
    """A DM's two lines from the one that starts with ``first`` (a turn prompt has the table
    above them)."""
    lines = dm.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(first))
    return lines[at:at + 2]


def test_a_twenty_one_bust_is_named_in_the_players_private_chat() -> None:
    # Boris 5h 8h stands; Chloé 9c 7c buys the 10s: 26
    state = twenty_one_table({1: 100, 2: 100, 3: 100},
                             ["5h", "9c", "5s", "8h", "7c", "6s", "Ts", "2d"])
    for player in (2, 3):
        state = twenty_one.ENGINE.apply(state, player, twenty_one.Stake(amount=10)).state
    state = twenty_one.ENGINE.apply(state, 2, twenty_one.Stand()).state
    step = twenty_one.ENGINE.apply(state, 3, twenty_one.Buy())
    assert own_lines(dms(step, twenty_one.ENGINE, "en")[3], "Your cards: ") == [
        "Your cards: <b>9♣ 7♣ 10♠</b>", "Bust: 26"]
    assert own_lines(dms(step, twenty_one.ENGINE, "ru")[3], "Ваши карты: ") == [
        "Ваши карты: <b>9♣ 7♣ 10♠</b>", "Перебор: 26"]
    # short of a bust, his total as before
    assert twenty_one.ENGINE.view(state, 3).my_facts == {"total": points(16)}


def test_a_twenty_one_bust_that_ends_the_coup_is_named_in_the_settled_private_chat() -> None:
    # Boris busts and stands; Chloé's third card busts her, which stands her and, with no
    # punter left un-bust, settles the coup in that step: her DM is about a settled coup
    state = twenty_one_table({1: 100, 2: 100, 3: 100},
                             ["5h", "2c", "Ks", "8h", "3c", "6s", "Ts", "4d", "5d", "Td"])
    for player in (2, 3):
        state = twenty_one.ENGINE.apply(state, player, twenty_one.Stake(amount=10)).state
    for player, action in ((2, twenty_one.Buy()), (2, twenty_one.Stand()),
                           (3, twenty_one.Buy()), (3, twenty_one.Buy())):
        state = twenty_one.ENGINE.apply(state, player, action).state
    step = twenty_one.ENGINE.apply(state, 3, twenty_one.Buy())
    assert step.state.coup == 2  # settled in this step
    assert dms(step, twenty_one.ENGINE, "en")[3].splitlines() == [
        "<b>Twenty-one · coup #1</b>", "Your cards: <b>2♣ 3♣ 4♦ 5♦ 10♦</b>", "Bust: 24"]
    assert dms(step, twenty_one.ENGINE, "ru")[3].splitlines() == [
        "<b>Очко · кон №1</b>", "Ваши карты: <b>2♣ 3♣ 4♦ 5♦ 10♦</b>", "Перебор: 24"]


def test_chemin_de_fer_points_of_two_cards_and_the_bankers_own_third_card_reach_him() -> None:
    # Dan plays K♦ 5♣ (5) against Ann's Q♥ J♠ (0, a baccara); he stands, she draws the 4♥
    state = chemin_staking(chemin_shoe("Kd", "Qh", "5c", "Js", "4h"), bank=100)
    step = chemin_de_fer.ENGINE.apply(state, 4, chemin_de_fer.Stake(amount=100))
    en = dms(step, chemin_de_fer.ENGINE, "en")
    assert en[1] == "<b>Chemin de fer · coup #1</b>\nYour cards: <b>Q♥ J♠</b>\nYour points: 0"
    assert own_lines(en[4], "Your cards: ") == ["Your cards: <b>K♦ 5♣</b>", "Your points: 5"]
    assert dms(step, chemin_de_fer.ENGINE, "ru")[1] == \
        "<b>Шмен де фер · кон №1</b>\nВаши карты: <b>Q♥ J♠</b>\nВаши очки: 0"
    state = chemin_de_fer.ENGINE.apply(step.state, 4, chemin_de_fer.Stand()).state
    step = chemin_de_fer.ENGINE.apply(state, 1, chemin_de_fer.Draw())
    assert settled(step.events)["outcome"] == word("punters")  # 4 against 5: the coup is settled
    assert dms(step, chemin_de_fer.ENGINE, "en")[1] == \
        "<b>Chemin de fer · coup #1</b>\nYou draw 4♥"
    assert dms(step, chemin_de_fer.ENGINE, "ru")[1] == \
        "<b>Шмен де фер · кон №1</b>\nВы прикупили 4♥"


def test_chemin_de_fer_hands_settled_at_the_deal_come_with_their_points() -> None:
    # Dan's 4♦ 4♥ is a natural 8 against Ann's 5♥ 4♠ (9): settled in the step that deals
    state = chemin_staking(chemin_shoe("4d", "5h", "4h", "4s"), bank=100)
    step = chemin_de_fer.ENGINE.apply(state, 4, chemin_de_fer.Stake(amount=100))
    assert dms(step, chemin_de_fer.ENGINE, "en") == {
        4: "<b>Chemin de fer · coup #1</b>\nYour cards: <b>4♦ 4♥</b>\nYour points: 8",
        1: "<b>Chemin de fer · coup #1</b>\nYour cards: <b>5♥ 4♠</b>\nYour points: 9"}
    assert dms(step, chemin_de_fer.ENGINE, "ru")[4] == \
        "<b>Шмен де фер · кон №1</b>\nВаши карты: <b>4♦ 4♥</b>\nВаши очки: 8"


def test_antes_after_a_passed_deal_say_what_each_paid_now_and_has_in_the_pot() -> None:
    nothing = [["Tc", "Td", "2d", "3d", "4d"], ["Ah", "Kd", "7h", "3h", "5s"],
               ["9c", "8d", "2h", "3s", "5h"]]
    state = seated(draw_poker.ENGINE, [100, 100, 100],
                   [fixed_shoe(draw_order(nothing)), fixed_shoe(draw_order(nothing))])
    names = {1: "Ann", 2: "Boris", 3: "Chloé"}
    for player in (2, 3):
        state = draw_poker.ENGINE.apply(state, player, Check()).state
    first = draw_poker.ENGINE.apply(state, 1, Check())  # nobody opens: a new deal
    antes = [e for e in first.events if e.kind == "antes_posted"]
    assert [i18n.event_text("en", e, names) for e in antes] == [
        "Antes again for the new deal: Boris 1, Chloé 1, Ann 1; "
        "in the pot from each: Boris 2, Chloé 2, Ann 2"]
    assert [i18n.event_text("ru", e, names) for e in antes] == [
        "Снова анте на новую сдачу: Boris 1, Chloé 1, Ann 1; "
        "всего в банке от каждого: Boris 2, Chloé 2, Ann 2"]
    # the first deal's antes read as before
    posted = Event(kind="antes_posted", data={"antes": each({2: chips(1), 3: chips(1),
                                                              1: chips(1)})})
    assert i18n.event_text("en", posted, names) == "Antes posted: Boris 1, Chloé 1, Ann 1"
    assert i18n.event_text("ru", posted, names) == "Анте внесено: Boris 1, Chloé 1, Ann 1"


def test_the_stud_table_shows_the_pot_with_the_bets_of_the_round() -> None:
    # no ante; dealt to Boris, Chloé, Ann (Ann deals): Boris's K♦ up speaks first and bets 2
    shoe = fixed_shoe(stud_order([["Ah", "Kd"], ["2c", "7s"], ["3d", "9c"]]))
    engine = stud_poker.ENGINE
    state = seated(engine, [100, 100, 100], [shoe])
    state = state.model_copy(update={"seats": [
        seat.model_copy(update={"name": NAMES[seat.player]}) for seat in state.seats]})
    state = engine.apply(state, 2, Bet()).state
    view = engine.view(state, None)
    assert render.table_text("en", view, None, []).splitlines()[:4] == [
        "<b>Five-card stud · hand #1</b> · <i>betting</i> · pot 2",
        "Ann (dealer) · 💰100 · 9♣ 🂠 · in hand",
        "Boris · 💰98 · stake 2 · K♦ 🂠 · in hand",
        "▶ <b>Chloé</b> · 💰100 · 7♠ 🂠 · to act"]
    assert render.table_text("ru", view, None, []).splitlines()[0] == \
        "<b>Стад-покер · раздача №1</b> · <i>торговля</i> · в банке 2"
    state = engine.apply(state, 3, Call()).state
    assert render.table_text("en", engine.view(state, None), None, []).splitlines()[0] == \
        "<b>Five-card stud · hand #1</b> · <i>betting</i> · pot 4"


def coup_log(events: list[Event]) -> tuple[list[dict[str, object]], Settlement]:
    """The coup's log as the table keeps it (its public events up to the settlement), and
    the settlement."""
    log = []
    for event in events:
        if isinstance(event, Settlement):
            return log, event
        if event.to is None and logbook.logged(event):
            log.append(logbook.log_entry(event))
    raise AssertionError("no settlement")


def test_a_result_leads_its_collapsed_log_with_the_hands() -> None:
    # Dan's natural 8 against Ann's natural 9, dealt after the auction and the cut
    events: list[Event] = []
    state = chemin_staking(chemin_shoe("4d", "5h", "4h", "4s"), bank=100, events=events)
    step = chemin_de_fer.ENGINE.apply(state, 4, chemin_de_fer.Stake(amount=100))
    log, data = coup_log([*events, *step.events])
    assert results.result_text("en", "chemin_de_fer", data, NAMES, log).splitlines() == [
        "🏆 <b>Ann wins 100 with 9 points</b>",
        "Chemin de fer · coup #1 settled",
        "Ann (banker) +100 · Dan −100",
        "<blockquote expandable>Dan shows a natural 8: 4♦ 4♥",
        "Ann shows a natural 9: 5♥ 4♠",
        "Dan: 4♦ 4♥, points: 8; banker: 5♥ 4♠, points: 9",
        "Bank auction: bids from 1",
        "Ann bids 100", "Boris passes", "Chloé passes", "Dan passes",
        "Ann holds the bank",
        "Dan cuts the shoe", "Burned: 2♣ 3♣ 4♣",
        "Coup 1: bank 100, stakes please",
        "Dan stakes 100",
        "Cards dealt to Dan and the banker Ann</blockquote>"]
    assert results.result_text("ru", "chemin_de_fer", data, NAMES, log).splitlines()[3:7] \
        == ["<blockquote expandable>Dan: натуральная 8 — 4♦ 4♥",
            "Ann: натуральная 9 — 5♥ 4♠",
            "Dan: 4♦ 4♥, очков: 8; банкомёт: 5♥ 4♠, очков: 9",
            "Торг за банк: от 1"]


def test_the_table_message_leads_its_collapsed_log_with_the_hands() -> None:
    # Boris shows a natural A♥ K♦ at the deal; then Chloé buys and stands, Dan stands
    state = twenty_one_table({1: 100, 2: 100, 3: 100, 4: 100},
                             ["Ah", "9c", "7d", "5s", "Kd", "7c", "9d", "6s", "2h", "3h"])
    state = state.model_copy(update={"seats": [
        seat.model_copy(update={"name": NAMES[seat.player]}) for seat in state.seats]})
    log = []
    for player, action in [(2, twenty_one.Stake(amount=10)), (3, twenty_one.Stake(amount=10)),
                           (4, twenty_one.Stake(amount=10)), (3, twenty_one.Buy()),
                           (3, twenty_one.Stand()), (4, twenty_one.Stand())]:
        step = twenty_one.ENGINE.apply(state, player, action)
        log += [logbook.log_entry(e) for e in step.events if e.to is None]
        state = step.state
    sight = Sight(twenty_one.ENGINE, state)
    public = scene(-1, sight, None, None, log, NAMES)
    assert screens.table_render("en", public).text.splitlines()[6:] == [
        "· Chloé buys a card", "· Chloé stands", "· Dan stands",
        "<blockquote expandable>Boris shows a natural: A♥ K♦",
        "Boris stakes 10", "Chloé stakes 10", "Dan stakes 10", "Cards are dealt</blockquote>",
        "🔒 shoe committed · /verify"]
    assert screens.table_render("ru", public).text.splitlines()[9:11] == [
        "<blockquote expandable>Boris: очко! A♥ K♦", "Boris ставит 10"]


def test_a_log_too_long_loses_its_oldest_lines_before_the_hands() -> None:
    hands = Markup("Dan: 4♦ 4♥, points: 8; banker: 5♥ 4♠, points: 9")
    rest = [Markup(f"line {i} " + "x" * 90) for i in range(60)]
    text = render.fit([Markup("head")], [hands, *rest], lead=1)
    assert len(text) <= render.MAX_TEXT
    quoted = text.split("<blockquote expandable>")[1].split("</blockquote>")[0].splitlines()
    assert quoted[0] == hands and quoted[-1] == rest[-1] and rest[0] not in quoted


async def test_history_in_a_private_chat_lists_each_chats_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage, context, _, privately = await private_commands(tmp_path, monkeypatch)
    try:

        async def history(lang: str) -> str:
            return await privately(commands.cmd_history, "/history", lang)

        assert await history("en") == "Ann, you have no results in any chat yet."
        assert await history("ru") == "Ann, у вас пока ни в одном чате нет итогов."
        group = {"id": -100, "type": "supergroup", "title": "Friday <poker>"}
        await buttons.remember_chat(message_update(group, "/balance"), context)
        await storage.wallet(chat_id=-100, user_id=7, name="Ann")
        await storage.claim_daily_bonus(chat_id=-100, user_id=7, today=dt.date(2026, 1, 5))
        await storage.create_table(chat_id=-200, game="baccarat", settings={}, state_json="{}",
                                   version=0)
        await storage.wallet(chat_id=-200, user_id=7, name="Ann")
        await storage.commit_step(chat_id=-200, expected_version=0, state_json="{}", version=1,
                                  transfers=[Transfer(src="wallet:7", dst="stack:7", amount=300,
                                                      reason="buy_in"),
                                             Transfer(src="stack:7", dst="stack:8", amount=40,
                                                      reason="settle")],
                                  coup=3, deadline=None)
        # each chat he plays in, under its name, as /history there lists it (not "no results")
        assert await history("en") == "\n".join(RESULTS["en"])
        assert await history("ru") == "\n".join(RESULTS["ru"])
    finally:
        await storage.close()


RESULTS = {"en": ["Ann, your latest results in each chat:",
                  "<b>Friday &lt;poker&gt;</b>:", "daily bonus: +100", "starting chips: +1000",
                  "<b>a group with a Baccarat table</b>:", "Baccarat · coup #3: -40",
                  "starting chips: +1000"],
           "ru": ["Ann, ваши последние итоги по чатам:",
                  "<b>Friday &lt;poker&gt;</b>:", "ежедневный бонус: +100",
                  "стартовые фишки: +1000",
                  "<b>группа со столом «Баккара»</b>:", "Баккара · кон №3: -40",
                  "стартовые фишки: +1000"]}


def message_update(chat: dict[str, object], text: str, user: int = 7) -> Update:
    return Update.de_json({"update_id": 1, "message": {
        "message_id": 1, "date": 1, "text": text, "chat": chat,
        "from": {"id": user, "is_bot": False, "first_name": "Ann"}}}, None)


async def private_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                           ) -> tuple[SqliteStorage, Any, list[str], Any]:
    """Storage and handler services for commands Ann (7) sends; what they answered goes to
    the returned list; ``privately(handler, text, lang)``: her command in her private chat,
    in ``lang``, and its answer."""
    storage = SqliteStorage(tmp_path / "b.sqlite3", starting_grant=1000, daily_bonus=100)
    await storage.open()
    svc = ctx.Services(storage=storage, languages=Languages(storage, "en"),
                       lifecycle=None, presses=None, courier=None,  # type: ignore[arg-type]
                       daily_bonus=100, bot_username="banco_bot", reserve=0)
    given = SimpleNamespace(bot_data=ctx.BotData(services=svc), args=[],
                            bot=SimpleNamespace())
    said: list[str] = []

    async def reply(update: Update, text: str, **kwargs: object) -> None:
        said.append(text)

    monkeypatch.setattr(commands, "reply", reply)
    monkeypatch.setattr(ctx, "reply", reply)

    async def privately(handler: Any, text: str, lang: str) -> str:
        await svc.languages.choose(7, lang)
        await handler(message_update({"id": 7, "type": "private", "first_name": "Ann"}, text),
                      given)
        return said.pop()

    return storage, given, said, privately


async def test_balance_in_a_private_chat_shows_the_wallet_of_each_chat_he_plays_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage, context, said, privately = await private_commands(tmp_path, monkeypatch)
    try:

        async def balance(lang: str) -> str:
            return await privately(commands.cmd_balance, "/balance", lang)

        assert await balance("en") == (
            "Ann, you have no chips anywhere yet. Play in a group: add me to one and send "
            "/newtable there.")
        # a group seen by the bot (its title stored before any handler), where Ann plays
        group = {"id": -100, "type": "supergroup", "title": "Friday <poker>"}
        await buttons.remember_chat(message_update(group, "/balance"), context)
        await commands.cmd_balance(message_update(group, "/balance"), context)
        assert said.pop() == "Ann: 1000 chips in the wallet, 0 on the table."
        await storage.claim_daily_bonus(chat_id=-100, user_id=7, today=dt.date(2026, 1, 5))
        # another, whose title was never seen, with a table where she has 300 seated
        await storage.create_table(chat_id=-200, game="baccarat", settings={}, state_json="{}",
                                   version=0)
        await storage.wallet(chat_id=-200, user_id=7, name="Ann")
        await storage.commit_step(chat_id=-200, expected_version=0, state_json="{}", version=1,
                                  transfers=[Transfer(src="wallet:7", dst="stack:7", amount=300,
                                                      reason="buy_in")],
                                  coup=0, deadline=None)
        assert await balance("en") == (
            "Ann, your chips in each chat:\n"
            "<b>Friday &lt;poker&gt;</b>: 1100 in the wallet, 0 on the table\n"
            "<b>a group with a Baccarat table</b>: 700 in the wallet, 300 on the table")
        assert await balance("ru") == (
            "Ann, ваши фишки по чатам:\n"
            "<b>Friday &lt;poker&gt;</b>: 1100 в кошельке, 0 на столе\n"
            "<b>группа со столом «Баккара»</b>: 700 в кошельке, 300 на столе")
        # asking made no wallet of the private chat: chips there would play nowhere
        assert [w.wallet.chat_id for w in await storage.wallets_of(user_id=7)] == [-100, -200]
    finally:
        await storage.close()

"""A seventh game needs no change in bot/: high card (tests/highcard.py), a game that exists
only in the tests, with its own texts, registered and played through the real host with
the real storage and a recording Telegram: an amount (a preset and a typed one), a
private choice, a timeout, a settlement with the banker's net and a feat of its own (/stats
words it by its texts), its achievement announced once (a line under the result on the
group's table, the same on the player's view and the app's result, and a DM in his
language), /history and /closetable."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import highcard
import pytest
from test_bot_commands import HandlerBot, command
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    RecordingBot,
    Sent,
    buttons,
    make_host,
    private_keyboard,
    table_message,
    typed_reply,
    worded,
)

from bot.gateway import commands, standings
from bot.view import webview
from games import cards, registry


@pytest.fixture
def high_card() -> Iterator[None]:
    registry.register(highcard.ENGINE, "highcard")
    yield
    registry.unregister(highcard.GAME)


def shown(msg: Sent) -> list[str]:
    """A message's lines, the time left (Telegram's date-time entity) as "⏱"."""
    return re.sub(r"<tg-time [^>]*>[^<]*</tg-time>", "⏱", msg.text).splitlines()


def rows_of(msg: Sent) -> list[list[str]]:
    return [[b.text for b in row] for row in msg.markup.inline_keyboard] if msg.markup else []


async def test_high_card_plays_through_the_host_with_its_own_texts(
        make_host: Any, high_card: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    seeded = random.Random("high card")  # the same shoe every run
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot, tg = RecordingBot(), HandlerBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "high_card", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        join = next(b for b in buttons(table_message(bot)) if b.kind == "join")
        assert worded(await host.presses.press(CHAT, player, NAMES[player], join)).text \
            == "🪑 You sit down with 1000"
        await host.idle()
    start = next(b for b in buttons(table_message(bot)) if b.kind == "start")
    await host.presses.press(CHAT, ANN, "Ann", start)
    await host.idle()
    assert shown(table_message(bot)) == [
        "<b>High card · coup #1</b> · <i>wagers</i>",
        "Ann (banker) · 💰1000", "▶ <b>Bob</b> · 💰1000", "▶ <b>Cid</b> · 💰1000",
        "⏳ Bob, Cid · ⏱",
        "· Ann sits down with 1000", "· Bob sits down with 1000", "· Cid sits down with 1000",
        "🔒 shoe committed · /verify"]
    assert rows_of(table_message(bot)) == [["Stake 1", "50"], ["100", "✏️ amount"]]

    # an amount: Bob's on a button, Cid's typed
    fifty = next(b for b in buttons(table_message(bot)) if b.kind == "stake" and b.amount == 50)
    assert worded(await host.presses.press(CHAT, BOB, "Bob", fifty)).text == "Stake · now Cid"
    await host.idle()
    ask = next(b for b in buttons(table_message(bot)) if b.kind == "stake" and b.ask)
    assert worded(await host.presses.press(CHAT, CID, "Cid", ask)).text \
        == "Type the amount (1–100) in reply to my message below, here in the group."
    assert typed_reply(await host.presses.typed_amount(CHAT, CID, "Cid", "1000")) \
        == "Cid, the amount must be from 1 to 100."
    assert await host.presses.typed_amount(CHAT, CID, "Cid", "30") is None
    await host.idle()

    # a private choice: the group shows whose turn it is, never what they may choose
    assert shown(table_message(bot))[:5] == [
        "<b>High card · coup #1</b> · <i>choices</i>",
        "Ann (banker) · 💰1000 · 🂠", "▶ <b>Bob</b> · 💰950 · stake 50 · 🂠",
        "▶ <b>Cid</b> · 💰970 · stake 30 · 🂠", "⏳ Bob, Cid · deciding privately · ⏱"]
    assert rows_of(table_message(bot)) == [["🂠 My cards"]]
    prompt = bot.chat(BOB)[-1]
    assert shown(prompt)[-3:] == ["Your cards: <b>6♠</b>", "Your rank: 6",
                                  "Your move at the table — choose here:"]
    assert rows_of(prompt) == [["Decide: Double", "Decide: Stay"]]
    assert worded(await host.presses.my_cards(CHAT, CID)).text == \
        "Your cards: K♦\nYour rank: 13"
    double = next(b for b in private_keyboard(bot, BOB) if b.kind == "decide" and b.choice == 0)
    assert worded(await host.presses.press(CHAT, BOB, "Bob", double, True)).text \
        == "Decide · now Cid"
    await host.idle()

    # a timeout: Cid stays; the coup settles with the banker's net
    table = await host.tables.load(CHAT)
    host.tables.clock.now = lambda: time.time() + 3600
    await host.tables.clock.on_deadline(CHAT, table.state.version)
    await host.idle()
    [result] = [m for m in bot.chat(CHAT) if m.text.startswith("🏆")]
    assert shown(result) == [
        "🏆 <b>Bob wins 100 with 6 points, Cid wins 30 with 13 points</b>",
        "High card · coup #1 settled",
        "Bob +100 · Cid +30 · Ann (banker) −130",
        "<blockquote expandable>Ann turns up 4♥",
        "Ann sits down with 1000", "Bob sits down with 1000", "Cid sits down with 1000",
        "Bob stakes 50", "Cid stakes 30", "Bob, Cid, Ann each get a card face down",
        "Bob doubles to 100", "⏰ Time is up: Cid.", "Cid stays</blockquote>"]
    assert shown(table_message(bot))[1:3] == [
        "🏆 Coup #1: Bob wins 100 with 6 points, Cid wins 30 with 13 points (Bob +100 · Cid +30 "
        "· Ann (banker) −130)", "🏅 Bob: <b>Double down</b> — doubled a stake"]
    # his prompt, closed by the settling step, ends with the coup's result as the group's
    assert shown(bot.chat(CID)[-2])[-6:] == [
        "⏰ Time ran out; the table decided for you: Cid stays", "",
        "🏆 <b>Bob wins 100 with 6 points, Cid wins 30 with 13 points</b>",
        "High card · coup #1 settled", "Bob +100 · Cid +30 · Ann (banker) −130",
        "<blockquote expandable>Ann turns up 4♥</blockquote>"]

    # /history: each player's net of the coup, the banker's too
    histories = [[s.text for s in await command(host, tg, commands.cmd_history, "/history", p)]
                 for p in (ANN, BOB, CID)]
    assert histories == [
        ["Ann, your latest results:\nHigh card · coup #1: -130\nstarting chips: +1000"],
        ["Bob, your latest results:\nHigh card · coup #1: +100\nstarting chips: +1000"],
        ["Cid, your latest results:\nHigh card · coup #1: +30\nstarting chips: +1000"]]
    # /stats: the feat its settlement counts, worded by its own texts
    assert [s.text for s in await command(host, tg, standings.cmd_stats, "/stats", BOB)] == [
        "📊 <b>Bob</b> · all games · this chat\nPlayed: 1 coup · won 1 · lost 0\nNet: +100\n"
        "Biggest win: +100 · biggest loss: 0\nDoubled: 1\n🏅 Achievements: 1 — Double down"]
    await host.lifecycle.set_language(CHAT, "ru")
    assert [s.text for s in await command(host, tg, standings.cmd_stats,
                                          "/stats старшая", BOB)] == [
        "📊 <b>Bob</b> · Старшая карта · этот чат\nСыграно: 1 кон · выиграно 1 · "
        "проиграно 0\nИтог: +100\nКрупнейший выигрыш: +100 · крупнейший проигрыш: 0\n"
        "Удвоения: 1\n🏅 Достижения: 1 — Удвоение"]
    await host.lifecycle.set_language(CHAT, "en")
    rules = await command(host, tg, commands.cmd_rules, "/rules HighCard")
    assert [s.text for s in rules] == ["<b>High card</b>\n\nThe higher card wins."]

    # /closetable: every chip back to its wallet
    assert await command(host, tg, commands.cmd_closetable, "/closetable", ANN) == []
    assert bot.chat(CHAT)[-1].text == ("The table is closed; every chip went back to the "
                                       "wallets.\n\nBack to the wallets: Ann: 870; Bob: 1100; "
                                       "Cid: 1030")
    balances = [(await host.storage.wallet(chat_id=CHAT, user_id=p)).balance
                for p in (ANN, BOB, CID)]
    assert balances == [870, 1100, 1030]


async def started(host: Any, bot: RecordingBot) -> None:
    """Ann opens a table of high card, the three sit down, Ann starts it."""
    assert await host.lifecycle.open_table(CHAT, "high_card", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        join = next(b for b in buttons(table_message(bot)) if b.kind == "join")
        await host.presses.press(CHAT, player, NAMES[player], join)
        await host.idle()
    start = next(b for b in buttons(table_message(bot)) if b.kind == "start")
    await host.presses.press(CHAT, ANN, "Ann", start)
    await host.idle()


async def staked(host: Any, bot: RecordingBot) -> None:
    """Bob and Cid stake 1 each."""
    for player in (BOB, CID):
        one = next(b for b in buttons(table_message(bot)) if b.kind == "stake" and b.amount == 1)
        await host.presses.press(CHAT, player, NAMES[player], one)
        await host.idle()


async def play_coup(host: Any, bot: RecordingBot, doubling: set[int]) -> None:
    """Bob and Cid stake 1 each; those of ``doubling`` double, the other stays."""
    await staked(host, bot)
    for player in (BOB, CID):
        choice = next(b for b in private_keyboard(bot, player) if b.kind == "decide"
                      and b.choice == (0 if player in doubling else 1))
        await host.presses.press(CHAT, player, NAMES[player], choice, True)
        await host.idle()


def announced(bot: RecordingBot, chat: int) -> list[str]:
    """The chat's messages (as they read now) that tell an achievement: in the group, those
    with its line; in a private chat, the messages that announce one (his turn prompt shows
    the line as the group's table does)."""
    return [m.text for m in bot.chat(chat) if "🏅" in m.text
            and (chat == CHAT or m.text.startswith(("🏅 New", "🏅 Новое")))]


async def test_the_seventh_games_achievement_is_announced_once_with_no_change_in_bot(
        make_host: Any, high_card: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    seeded = random.Random("high card achievement")  # the same shoes every run
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot, tg = RecordingBot(), HandlerBot()
    host = await make_host(bot)
    asked = []  # the steps that ask storage for achievements: only those that settle a coup
    due = host.storage.achievements_due

    async def counted(**kw: Any) -> Any:
        asked.append(kw["settled"][0].coup)
        return await due(**kw)

    monkeypatch.setattr(host.storage, "achievements_due", counted)
    await host.storage.set_chat_title(chat_id=CHAT, title="Casino <Royale>")
    await host.languages.choose(CID, "ru")  # Cid reads his private chat in Russian
    await started(host, bot)

    # coup 1: Bob doubles for the first time here: one line under the result, one DM
    await play_coup(host, bot, {BOB})
    table = shown(table_message(bot))
    assert table[0] == "<b>High card · coup #2</b> · <i>wagers</i>"
    assert table[1].startswith("🏆 Coup #1: ")
    assert table[2] == "🏅 Bob: <b>Double down</b> — doubled a stake"
    assert announced(bot, CHAT) == [table_message(bot).text]  # no message of its own
    assert announced(bot, BOB) == [
        "🏅 New achievement in «Casino &lt;Royale&gt;»: <b>Double down</b> — doubled a stake"]
    assert announced(bot, CID) == announced(bot, ANN) == []
    # his turn prompt shows the line as the group's table does
    assert shown(bot.chat(BOB)[-2])[:2] == ["<b>High card · coup #2</b> · <i>wagers</i>",
                                            "🏅 Bob: <b>Double down</b> — doubled a stake"]
    # the player's view shown to him alone in the group, and the app's result, say the same
    moment = await host.presses._moment(await host.tables.load(CHAT))
    view = moment.view("en", CHAT, BOB)
    assert view is not None and shown(view)[1] == "🏅 Bob: <b>Double down</b> — doubled a stake"
    snap = webview.snapshot("en", "Casino", (await host.tables.load(CHAT)).scene(BOB, None),
                            webview.Viewer(user_id=BOB, name="Bob", seated=True), rev=0,
                            now=time.time())
    assert snap["table"]["result"]["earned"] == ["🏅 Bob: <b>Double down</b> — doubled a stake"]

    # coup 2: both double; only Cid's is new (in Russian in his private chat)
    await play_coup(host, bot, {BOB, CID})
    table = shown(table_message(bot))
    assert table[1].startswith("🏆 Coup #2: ")
    assert table[2] == "🏅 Cid: <b>Double down</b> — doubled a stake"
    assert "🏅" not in table[3]
    assert len(announced(bot, BOB)) == 1
    assert announced(bot, CID) == [
        "🏅 Новое достижение в «Casino &lt;Royale&gt;»: <b>Удвоение</b> — удвоил ставку"]

    # coup 3: nothing new, no line
    await play_coup(host, bot, {BOB, CID})
    table = shown(table_message(bot))
    assert table[1].startswith("🏆 Coup #3: ")
    assert announced(bot, CHAT) == []
    assert len(announced(bot, BOB)) == len(announced(bot, CID)) == 1
    assert asked == [1, 2, 3]

    # /stats lists it, by its game's words: in the chat, in private (all his chats), not
    # for another game
    from test_bot_standings import send  # (it imports this module's fixture)
    bob = ("📊 <b>Bob</b> · all games · this chat\nPlayed: 3 coups · won 2 · lost 1\nNet: +2\n"
           "Biggest win: +2 · biggest loss: -2\nDoubled: 3\n🏅 Achievements: 1 — Double down")
    assert [s.text for s in await command(host, tg, standings.cmd_stats, "/stats", BOB)] \
        == [bob]
    assert await send(host, tg, standings.cmd_stats, "/stats", BOB, private=True) == [
        bob.replace("this chat", "all chats")]
    assert await send(host, tg, standings.cmd_stats, "/stats baccarat", BOB) == [
        "📊 <b>Bob</b> · Baccarat · this chat\nNo settled coups yet."]
    await host.lifecycle.set_language(CHAT, "ru")
    assert [s.text for s in await command(host, tg, standings.cmd_stats, "/stats", CID)] == [
        "📊 <b>Cid</b> · все игры · этот чат\nСыграно: 3 кона · выиграно 3 · проиграно 0\n"
        "Итог: +5\nКрупнейший выигрыш: +2 · крупнейший проигрыш: 0\nУдвоения: 2\n"
        "🏅 Достижения: 1 — Удвоение"]


async def test_no_achievement_dm_to_a_player_the_bot_cannot_write_to(
        make_host: Any, high_card: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    seeded = random.Random("high card achievement")
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    await started(host, bot)
    await staked(host, bot)
    double = next(b for b in private_keyboard(bot, BOB) if b.kind == "decide" and b.choice == 0)
    await host.presses.press(CHAT, BOB, "Bob", double, True)
    await host.idle()
    # Bob's private chat turns out blocked (as the courier records it) before the coup settles
    async with host.tables.locked(CHAT) as table:
        assert table is not None
        await host.tables.commit(table, meta=table.meta.model_copy(update={"dm_blocked": [BOB]}))
    stay = next(b for b in private_keyboard(bot, CID) if b.kind == "decide" and b.choice == 1)
    await host.presses.press(CHAT, CID, "Cid", stay, True)
    await host.idle()
    assert shown(table_message(bot))[2] == "🏅 Bob: <b>Double down</b> — doubled a stake"
    assert announced(bot, BOB) == []
    assert [e.key for e in await host.storage.achievements(user_id=BOB)] == ["hc_double_down"]


def test_a_game_that_words_a_shared_event_otherwise_is_refused(high_card: None) -> None:
    clashing = highcard.HighCard()
    clashing.texts = highcard.TEXTS.model_copy(update={"events": {
        "en": {"coup_settled": "something else"}}})  # type: ignore[misc]
    with pytest.raises(ValueError, match="coup_settled"):
        registry.register(clashing, "highcard")

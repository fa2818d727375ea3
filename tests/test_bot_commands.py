"""The chat table as players meet it: small traps around the table's buttons and the
admins' commands, and pace where it was lost. Host-level: real SQLite storage, the
courier, and a recording fake Bot (tests/test_bot_tables.py)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Update
from telegram.error import Forbidden
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    Host,
    RecordingBot,
    make_host,
    press,
    table_message,
)

from bot import compose
from bot.gateway import buttons, commands
from bot.gateway.context import BotData
from bot.outbox.pace import Pace
from bot.outbox.ratelimit import GroupWindowLimiter
from bot.view import i18n

Handler = Callable[[Any, Any], Awaitable[None]]


@dataclass
class Said:
    """What a command handler sent: where, the text, its keyboard."""

    chat_id: int
    text: str
    markup: Any = None


@dataclass
class HandlerBot:
    """Telegram as the command handlers use it (their answers; the table messages go
    through the courier's :class:`RecordingBot`), with the bot's own rate limiter, whose
    group window a test may fill."""

    said: list[Said] = field(default_factory=list)
    admins: set[int] = field(default_factory=lambda: {ANN})
    blocked: set[int] = field(default_factory=set)  # never opened a private chat with us
    rate_limiter: GroupWindowLimiter = field(default_factory=lambda: GroupWindowLimiter(20))

    async def send_message(self, chat_id: int, text: str, reply_markup: Any = None,
                           **_: Any) -> Any:
        if chat_id in self.blocked:
            raise Forbidden("Forbidden: bot can't initiate conversation with a user")
        self.said.append(Said(chat_id, text, reply_markup))
        return SimpleNamespace(message_id=1000 + len(self.said))  # what a handler reads of it

    def spend(self, messages: int) -> None:
        """``messages`` went to the group just now (they count for a minute)."""
        window = self.rate_limiter.windows.of(CHAT)
        window.times.extend([time.monotonic()] * messages)

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        return SimpleNamespace(status="administrator" if user_id in self.admins else "member")


async def command(host: Host, tg: HandlerBot, handler: Handler, text: str,
                  user: int = ANN, ephemeral: Any = None) -> list[Said]:
    """``user`` sends ``text`` (a command with its arguments, or a plain message) in the
    group; what the handler answered there or elsewhere (``ephemeral``: the views shown to
    one member alone, off without)."""
    before = len(tg.said)
    entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}] \
        if text.startswith("/") else []
    update = Update.de_json({"update_id": 1, "message": {
        "message_id": 50, "date": 0, "text": text, "entities": entities,
        "chat": {"id": CHAT, "type": "supergroup", "title": "Table"},
        "from": {"id": user, "is_bot": False, "first_name": NAMES[user]}}},
        tg)  # type: ignore[arg-type]
    services = compose.services(host, daily_bonus=100, ephemeral=ephemeral)
    context = SimpleNamespace(args=text.split()[1:], bot=tg,
                              bot_data=BotData(services=services))
    await handler(update, context)
    await host.idle()
    return tg.said[before:]


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
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
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


@pytest.mark.parametrize(("lang", "exists"), [
    ("en", "This chat already has a table: Twenty-one. /table shows it."),
    ("ru", "В этом чате уже есть стол: Очко. /table покажет его.")])
async def test_newtable_at_an_open_table_says_so_at_once(
        make_host: Any, lang: str, exists: str) -> None:  # noqa: F811
    host = await make_host(RecordingBot())
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    tg = HandlerBot()
    # no game picker whose every button would be refused: the open table, by its game
    assert await command(host, tg, commands.cmd_newtable, "/newtable") == [Said(CHAT, exists)]
    said = await command(host, tg, commands.cmd_newtable, "/newtable baccarat", user=BOB)
    assert said == [Said(CHAT, exists)]


async def test_the_start_button_is_shown_at_once_like_a_turn(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    # the production pace: a refresh of the table waits 8 s after the group's last message
    host.courier.pace = host.pace = Pace(gap=8.0, per_coup=3, reserve=3)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    await press(host, bot, ANN, ["join"])
    assert rows(bot) == [["🪑 Join"]]  # a seat more: a refresh, held back
    # Bob's seat makes the table startable: Start is a button someone must press next, so
    # the edit that shows it goes at once, as a turn's does
    await press(host, bot, BOB, ["join"])
    assert rows(bot) == [["🪑 Join"], ["▶️ Start"], ["🚪 Leave"]]
    assert table_message(bot).text.splitlines()[1:] == [
        "Ann (punter) · 💰1000", "Bob (punter) · 💰1000", "· Ann sits down with 1000",
        "· Bob sits down with 1000"]
    await press(host, bot, CID, ["join"])  # still startable: a refresh again, held back
    assert "Cid" not in table_message(bot).text


@pytest.mark.parametrize(("lang", "closed", "header"), [
    ("en", "The table is closed; every chip went back to the wallets.\n\nTable closed (an "
     "unfinished coup is void). Back to the wallets: Ann: 1000; Bob: 1000",
     "<b>Twenty-one</b> · waiting for players ⬇️"),
    ("ru", "Стол закрыт; все фишки вернулись в кошельки.\n\nСтол закрыт (незаконченный кон "
     "аннулирован). В кошельки: Ann: 1000; Bob: 1000", "<b>Очко</b> · ждём игроков ⬇️")])
async def test_the_closing_text_comes_at_the_bottom_of_the_chat(
        make_host: Any, lang: str, closed: str, header: str) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    await host.idle()
    for player in (ANN, BOB):
        await press(host, bot, player, ["join"])
    table = table_message(bot)
    bot.next_id += 5  # the players' messages since, the admin's /closetable the newest
    assert await host.lifecycle.close_table(CHAT) is None
    await host.idle()
    # the closing text is posted under the command, where the admin looks; the table
    # message, far up, keeps its header and points down to it, without buttons
    newest = bot.chat(CHAT)[-1]
    assert (newest.message_id, newest.text, newest.markup) == (table.message_id + 6, closed, None)
    assert (table.text, table.markup) == (header, None)
    assert len(bot.chat(CHAT)) == 2 and await host.storage.pending_outbox() == []
    assert await host.storage.live_sent(chat_id=CHAT) == []


@pytest.mark.parametrize("lost", [1, 3])
async def test_a_closing_post_whose_answer_was_lost_is_posted_once_under_the_table(
        make_host: Any, lost: int) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    await press(host, bot, ANN, ["join"])
    table = table_message(bot)
    bot.lose_answers["send_message"] = 1  # the post reaches the chat, its answer does not
    # and the first questions that look for it time out too
    bot.lose_answers["edit_message_reply_markup"] = lost - 1
    assert await host.lifecycle.close_table(CHAT) is None
    await host.idle()
    closed = ("The table is closed; every chip went back to the wallets.\n\nTable closed (an "
              "unfinished coup is void). Back to the wallets: Ann: 1000")
    # one post at the bottom, found again by its keyboard, which then goes; the table
    # message, far up, keeps its header and points down to it
    assert [(m.text, m.markup) for m in bot.chat(CHAT)] == [
        ("<b>Twenty-one</b> · waiting for players ⬇️", None), (closed, None)]
    assert bot.chat(CHAT)[0] is table and await host.storage.pending_outbox() == []
    assert await host.storage.live_sent(chat_id=CHAT) == []


SETTINGS = {
    "en": {
        "/settings": [
            "Settings of this table (Twenty-one):",
            "timeout = 60 seconds — time for each decision",
            "turn_dm = on (on | off) — each awaited player's turn in his private chat",
            "idle_close = 6 decisions — the table closes itself after this many decisions in "
            "a row with nobody playing (0: never)",
            "min_stake = 1 chip — the smallest stake",
            "decks = 2 decks — decks in the shoe",
            "Change it for this table: /settings KEY VALUE",
            "For this chat's next tables: /settings default KEY VALUE"],
        "/settings foo 1": [
            "There is no setting foo. A Twenty-one table's settings: timeout, turn_dm, idle_close, "
            "min_stake, decks."],
        "/settings default foo 1": [
            "There is no setting foo. A Twenty-one table's settings: timeout, turn_dm, idle_close, "
            "min_stake, decks."],
        "/settings timeout 9": ["Cannot set that: timeout takes 10 to 3600 seconds"],
        "/settings timeout 90": [
            "This table: timeout = 90 seconds. For this chat's next tables too: "
            "/settings default timeout 90"],
        "/settings default timeout 90": ["This chat's next tables: timeout = 90 seconds."],
        "/settings default min_stake 10": ["This chat's next tables: min_stake = 10 chips."],
        "/settings default decks 0": [
            "Cannot set that: decks: Input should be greater than or equal to 1"],
        "next": [
            "Settings of this table (Twenty-one):",
            "timeout = 90 seconds — time for each decision",
            "turn_dm = on (on | off) — each awaited player's turn in his private chat",
            "idle_close = 6 decisions — the table closes itself after this many decisions in "
            "a row with nobody playing (0: never)",
            "min_stake = 10 chips — the smallest stake",
            "decks = 2 decks — decks in the shoe",
            "This chat's next tables: timeout = 90 seconds; Twenty-one: min_stake = 10 chips",
            "Change it for this table: /settings KEY VALUE",
            "For this chat's next tables: /settings default KEY VALUE"],
    },
    "ru": {
        "/settings": [
            "Настройки этого стола (Очко):",
            "timeout = 60 секунд — время на каждое решение",
            "turn_dm = on (on | off) — ход каждому, кого ждёт стол, в личный чат",
            "idle_close = 6 решений — стол закрывается сам после стольких решений подряд, "
            "где никто не сыграл (0 — никогда)",
            "min_stake = 1 фишка — наименьшая ставка",
            "decks = 2 колоды — колод в шузе",
            "Изменить для этого стола: /settings КЛЮЧ ЗНАЧЕНИЕ",
            "Для следующих столов чата: /settings default КЛЮЧ ЗНАЧЕНИЕ"],
        "/settings foo 1": [
            "Настройки foo нет. У стола «Очко» есть: timeout, turn_dm, idle_close, "
            "min_stake, decks."],
        "/settings default foo 1": [
            "Настройки foo нет. У стола «Очко» есть: timeout, turn_dm, idle_close, "
            "min_stake, decks."],
        "/settings timeout 9": ["Нельзя установить: timeout — от 10 до 3600 секунд"],
        "/settings timeout 90": [
            "Этот стол: timeout = 90 секунд. Чтобы и следующие столы чата начинались так: "
            "/settings default timeout 90"],
        "/settings default timeout 90": ["Следующие столы чата: timeout = 90 секунд."],
        "/settings default min_stake 10": ["Следующие столы чата: min_stake = 10 фишек."],
        "/settings default decks 0": [
            "Нельзя установить: decks: Input should be greater than or equal to 1"],
        "next": [
            "Настройки этого стола (Очко):",
            "timeout = 90 секунд — время на каждое решение",
            "turn_dm = on (on | off) — ход каждому, кого ждёт стол, в личный чат",
            "idle_close = 6 решений — стол закрывается сам после стольких решений подряд, "
            "где никто не сыграл (0 — никогда)",
            "min_stake = 10 фишек — наименьшая ставка",
            "decks = 2 колоды — колод в шузе",
            "Следующие столы чата: timeout = 90 секунд; Очко: min_stake = 10 фишек",
            "Изменить для этого стола: /settings КЛЮЧ ЗНАЧЕНИЕ",
            "Для следующих столов чата: /settings default КЛЮЧ ЗНАЧЕНИЕ"],
    },
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_settings_have_units_a_ten_second_floor_and_chat_defaults_for_next_tables(
        make_host: Any, lang: str) -> None:  # noqa: F811
    host = await make_host(RecordingBot())
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    tg = HandlerBot()

    async def settings(text: str) -> list[str]:
        said = await command(host, tg, commands.cmd_settings, text)
        return [line for s in said for line in i18n.plain(s.text).splitlines()]

    for text, answer in SETTINGS[lang].items():
        if text != "next":
            assert await settings(text) == answer, text
    assert (await host.tables.load(CHAT)).meta.timeout == 90
    # "timeout 90" on one table, 60 on the next: a default is what the next tables take
    assert await host.lifecycle.close_table(CHAT) is None
    assert await host.lifecycle.open_table(CHAT, "twenty_one", BOB, lang) is None
    assert await settings("/settings") == SETTINGS[lang]["next"]
    table = await host.tables.load(CHAT)
    assert (table.meta.timeout, table.engine.settings(table.state)["min_stake"]) == (90, 10)
    # a default is forgotten the same way it was set, without a value
    assert await host.lifecycle.close_table(CHAT) is None
    await command(host, tg, commands.cmd_settings, "/settings default timeout")
    assert await host.lifecycle.open_table(CHAT, "twenty_one", BOB, lang) is None
    assert (await host.tables.load(CHAT)).meta.timeout is None


@pytest.mark.parametrize(("lang", "balance", "private", "elsewhere"), [
    ("en", "Bob: 1000 chips in the wallet, 0 on the table.", "In Table:",
     "Bob, the answer is in your private chat with me."),
    ("ru", "Bob: 1000 фишек в кошельке, 0 на столе.", "В группе Table:",
     "Bob, ответ — в личном чате со мной.")])
async def test_a_command_answer_never_waits_for_the_groups_full_minute(
        make_host: Any, lang: str, balance: str, private: str,  # noqa: F811
        elsewhere: str) -> None:
    host = await make_host(RecordingBot())
    host.courier.pace = host.pace = Pace(gap=8.0, per_coup=3, reserve=3)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    tg = HandlerBot()

    async def said(text: str, user: int = BOB) -> list[tuple[int, str]]:
        handler = buttons.on_group_text if not text.startswith("/") else getattr(
            commands, "cmd_" + text.split()[0][1:])
        return [(s.chat_id, i18n.plain(s.text))
                for s in await command(host, tg, handler, text, user)]

    # the group's minute has room: the answer is there, the reserve is the commands' own
    tg.spend(19)
    assert await said("/balance") == [(CHAT, balance)]
    # the minute is full (commands and typed mistakes): not a minute's wait, his private
    # chat at once, and no group line that would wait as long
    tg.spend(1)
    assert await said("/balance") == [(BOB, f"{private}\n{balance}")]
    # a player the bot may not write to gets it in the group, in its turn
    tg.blocked.add(CID)
    tg.rate_limiter.windows.of(CHAT).times.clear()
    tg.spend(20)
    tg.rate_limiter.windows.of(CHAT).times.popleft()  # one leaves the window
    assert [chat for chat, _ in await said("/balance", CID)] == [CHAT]
    # an answer of several messages goes privately whole, and one affordable line says so
    tg.rate_limiter.windows.of(CHAT).times.clear()
    tg.spend(19)
    rules = await said("/rules baccarat")  # two messages
    assert len(rules) == 3 and rules[-1] == (CHAT, elsewhere)
    assert {chat for chat, _ in rules[:-1]} == {BOB} and rules[0][1].startswith(private)
    # a typed mistake never takes the last messages of the minute: they are the commands'
    tg.rate_limiter.windows.of(CHAT).times.clear()
    tg.spend(17)
    assert [chat for chat, _ in await said("@banco_bot lots")] == [BOB]
    assert [chat for chat, _ in await said("/balance")] == [CHAT]


@dataclass
class GroupBot(HandlerBot):
    """The handlers' answers go into the chat the courier posts in (one row of ids)."""

    group: RecordingBot = field(default_factory=RecordingBot)

    async def send_message(self, chat_id: int, text: str, reply_markup: Any = None,
                           **kwargs: Any) -> Any:
        await super().send_message(chat_id, text, reply_markup, **kwargs)
        return await self.group.send_message(chat_id, text, reply_markup)


async def test_the_pickers_keep_their_buttons_until_a_table_post_and_a_twin_search_skips_them(
        make_host: Any) -> None:  # noqa: F811
    tg = GroupBot()
    bot = tg.group
    host = await make_host(bot)
    await command(host, tg, commands.cmd_newtable, "/newtable")
    await command(host, tg, commands.cmd_language, "/language")
    language = bot.chat(CHAT)[1].message_id
    # Bob opens a table by its name; its first post goes through with its answer lost, so
    # it is made again, and its possible twin searched for: the pickers are not one
    bot.lose_answers["send_message"] = 1
    assert await host.lifecycle.open_table(CHAT, "twenty_one", BOB, "en") is None
    await host.idle()
    assert bot.lose_answers["send_message"] == 0
    twin, table = (m for m in bot.chat(CHAT)[2:])
    assert twin.text == table.text
    # the table's post takes the /newtable picker's buttons; /language's are its own
    assert [m.message_id for m in bot.chat(CHAT) if m.markup] == [language, table.message_id]
    assert [(m.text, m.markup is None) for m in bot.chat(CHAT)[:2]] == [
        ("Which game?", True), (i18n.t("en", "language_pick"), False)]

"""A table played in the Mini App (``/settings screen app``), in-process: the group gets each
coup's card and its result and nothing between, every turn reaches its player in private with
the app's button, and a player without a private chat still sees his turn, on the group's table.

The host is wired as ``post_init`` wires it, with the Mini App configured (:class:`AppLinks`);
only Telegram is replaced, by the recording fake Bot of ``test_bot_tables``, which here also
writes down every call to the group with what it shows, and can hold back private messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from telegram import InlineKeyboardMarkup
from telegram.error import Forbidden
from test_bot_tables import ANN, BOB, CHAT, CID, NAMES, PREFERRED, Host, RecordingBot, composed

from bot import compose
from bot.gateway.webapp.auth import Members
from bot.view import answers, keyboards
from bot.view.applink import AppLinks, link_key, start_param, web_app_url
from bot.view.codec import ActionButton, decode
from bot.view.outcomes import PickInPrivate, Selection
from games import cards
from storage.sqlite import SqliteStorage

TOKEN = "123456:TEST-TOKEN"
WEBAPP_URL = "https://banco.example.com/app/"
SHORT_NAME = "table"
PARAM = start_param(link_key(TOKEN), CHAT)
OPEN_URL = f"https://t.me/banco_bot/table?startapp={PARAM}"
PAGE_URL = f"{WEBAPP_URL}?table={PARAM}"


@dataclass
class GroupCall:
    """One call the bot made to the group: ``send`` or ``edit``, and what it showed."""

    method: str
    text: str
    markup: InlineKeyboardMarkup | None


@dataclass
class AppBot(RecordingBot):
    """The recording Bot, writing down each group call; private messages wait while
    ``dm_gate`` is set and not yet open; ``no_dm``: players who never opened a private chat
    with the bot (Telegram refuses to write to them first)."""

    group: list[GroupCall] = field(default_factory=list)
    dm_gate: asyncio.Event | None = None
    no_dm: set[int] = field(default_factory=set)
    has_app: bool = True

    async def send_message(self, chat_id: int, text: str,
                           reply_markup: InlineKeyboardMarkup | None = None) -> Any:
        if chat_id > 0:
            await self._private(chat_id)
        msg = await super().send_message(chat_id, text, reply_markup)
        if chat_id == CHAT:
            self.group.append(GroupCall("send", text, reply_markup))
        return msg

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                reply_markup: InlineKeyboardMarkup | None = None) -> Any:
        if chat_id > 0:
            await self._private(chat_id)
        msg = await super().edit_message_text(text, chat_id, message_id, reply_markup)
        if chat_id == CHAT:
            self.group.append(GroupCall("edit", text, reply_markup))
        return msg

    async def _private(self, chat_id: int) -> None:
        if self.dm_gate is not None:
            await self.dm_gate.wait()
        if chat_id in self.no_dm:
            raise Forbidden("Forbidden: bot can't initiate conversation with a user")


@pytest.fixture
async def make_app_host(tmp_path: Path) -> AsyncIterator[Any]:
    opened: list[Host] = []

    async def make(bot: AppBot, links: AppLinks | None) -> Host:
        bot.has_app = links is not None
        storage = SqliteStorage(tmp_path / f"banco{len(opened)}.sqlite3", starting_grant=1000,
                                daily_bonus=100)
        await storage.open()
        host = composed(storage, bot, links=links)
        host.lifecycle.start()
        await host.courier.start()
        opened.append(host)
        return host

    yield make
    for host in opened:
        await host.courier.stop(1)
        await host.lifecycle.stop()
        host.deadlines.stop()
        await host.storage.close()


LINKS = AppLinks.of("banco_bot", SHORT_NAME, TOKEN, WEBAPP_URL)


def actions(markup: InlineKeyboardMarkup | None) -> list[ActionButton]:
    """The table's action buttons of a keyboard (not its links)."""
    out = []
    for row in markup.inline_keyboard if markup else ():
        for b in row:
            if b.callback_data is not None:
                decoded = decode(str(b.callback_data))
                if isinstance(decoded, ActionButton):
                    out.append(decoded)
    return out


def labels(markup: InlineKeyboardMarkup | None) -> list[list[str]]:
    return [[b.text for b in row] for row in markup.inline_keyboard] if markup else []


def live_table(bot: RecordingBot) -> Any:
    """The group's live table message: its newest message with a keyboard."""
    return [m for m in bot.chat(CHAT) if m.markup is not None][-1]


def live_prompt(bot: RecordingBot, player: int) -> Any:
    """The player's one private message with live buttons (his turn prompt)."""
    [live] = [m for m in bot.chat(player) if m.markup is not None and actions(m.markup)]
    return live


async def seated(host: Host, bot: RecordingBot, game: str,
                 players: tuple[int, ...] = (ANN, BOB, CID)) -> None:
    """A table of ``game`` opened by Ann, each of ``players`` joining from the group."""
    assert await host.lifecycle.open_table(CHAT, game, ANN, "en") is None
    await host.idle()
    for player in players:
        join = next(b for b in actions(live_table(bot).markup) if b.kind == "join")
        assert (await host.presses.press(CHAT, player, NAMES[player], join)).committed
        await host.idle()


async def decide(host: Host, bot: AppBot, player: int, prefer: list[str] = PREFERRED) -> str:
    """``player`` takes his decision, the first of ``prefer`` offered: from his turn prompt
    in his private chat, or, without one, from the group's table message."""
    private = player not in bot.no_dm
    markup = live_prompt(bot, player).markup if private else live_table(bot).markup
    offered = [b for b in actions(markup) if not b.ask and b.switch is None]
    kind = next(k for k in prefer if any(b.kind == k for b in offered))
    button = next(b for b in offered if b.kind == kind)
    outcome = await host.presses.press(CHAT, player, NAMES[player], button, private)
    assert outcome.committed, answers.answer(outcome, "en", "en").text
    return kind


async def group_done(host: Host) -> None:
    """Wait until the courier has nothing left to do for the group (private messages may
    still be held back)."""
    for _ in range(400):
        await asyncio.sleep(0.01)
        chat = host.courier.chats.get(CHAT)
        if (host.courier.doorbell.queue.empty() and host.reports.idle()
                and (chat is None or not chat.sending())):
            return
    raise AssertionError("the group's messages did not go out")


async def move_on_page(session: aiohttp.ClientSession, url: str, player: int, key: str) -> None:
    """``player`` takes his decision from a fresh page of the table (opened, then closed):
    the first kind of PREFERRED it offers, an amount at its first preset."""
    from test_webapp_server import current, init_data, post

    snap = await current(session, url, player)
    act = next(a for k in PREFERRED for a in snap["actions"] if a["kind"] == k)
    body = {"kind": act["kind"], "coup": snap["table"]["coup"],
            "decision": snap["decision"], "key": key}
    if act["input"] == "amount":
        body["amount"] = act["presets"][0]
    code, answer = await post(session, url, init_data(player, param=PARAM), body)
    assert (code, answer["ok"]) == (200, True), answer


@contextlib.asynccontextmanager
async def chemin_with_pages(make_app_host: Any, monkeypatch: pytest.MonkeyPatch, bot: AppBot
                            ) -> AsyncIterator[tuple[Host, aiohttp.ClientSession, str]]:
    """Seeded chemin de fer in the app, Ann, Bob and Cid seated, its Mini App served: the
    host, an HTTP session and the app's URL."""
    from test_webapp_server import status

    seeded(monkeypatch, "app-chemin_de_fer")
    host = await make_app_host(bot, LINKS)
    web = compose.webapp(host, token=TOKEN, members=Members(status), sdk_url="/sdk.js",
                         max_age=3600)
    await web.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            await seated(host, bot, "chemin_de_fer")
            yield host, session, f"http://127.0.0.1:{web.port}/app/"
    finally:
        await web.stop()


async def his_turn_on_his_page(host: Host, bot: AppBot, session: aiohttp.ClientSession,
                               url: str, who: int) -> tuple[Any, dict[str, Any]]:
    """``who`` opens the table's page, Ann starts, and the table is played (``who``'s
    moves on fresh pages, the others' from their prompts or the group) until ``who``'s
    turn in a coup: his open page and its frame of that turn."""
    from test_webapp_server import init_data, open_page

    page = await open_page(session, url, init_data(who, param=PARAM))
    await page.next()
    start = next(b for b in actions(live_table(bot).markup) if b.kind == "start")
    assert (await host.presses.press(CHAT, ANN, NAMES[ANN], start)).committed
    await host.idle()
    for n in range(40):
        table = await host.tables.load(CHAT)
        player = table.engine.awaiting(table.state)[0]
        if player == who and table.state.coup >= 1:
            break
        if player == who:  # before the coup (the bank's auction): from his page
            await move_on_page(session, url, who, f"early-{n:04d}")
        else:
            await decide(host, bot, player)
        await host.idle()
    else:
        raise AssertionError("his turn in a coup did not come")
    decision = table.meta.decision
    frame = await page.next(lambda f: f["decision"] == decision and who in f["table"]["awaiting"])
    await host.idle()
    return page, frame


def seeded(monkeypatch: pytest.MonkeyPatch, seed: str) -> None:
    """Every shoe shuffled from a generator seeded with ``seed``: the same coups every run."""
    rng = random.Random(seed)
    monkeypatch.setattr(cards, "secure_rng", lambda: rng)


def test_the_links_name_the_table() -> None:
    assert LINKS.group_url(CHAT) == OPEN_URL
    assert LINKS.private_url(CHAT) == PAGE_URL
    assert PARAM.startswith(f"{CHAT}_") and len(PARAM) == len(str(CHAT)) + 17
    # a configured URL that has a query already, or a fragment
    assert web_app_url("https://x.org/app?v=2", PARAM) == f"https://x.org/app?v=2&table={PARAM}"
    assert web_app_url("https://x.org/app/#/t", PARAM) == f"https://x.org/app/?table={PARAM}#/t"
    assert "key" not in repr(LINKS) and TOKEN not in repr(LINKS)


async def to_first_coup(host: Host, bot: AppBot) -> None:
    """Ann presses Start in the group; the decisions before the first coup (a bank auction,
    the cut) are taken from the private prompts."""
    start = next(b for b in actions(live_table(bot).markup) if b.kind == "start")
    assert (await host.presses.press(CHAT, ANN, NAMES[ANN], start)).committed
    await host.idle()
    for _ in range(20):
        table = await host.tables.load(CHAT)
        if table.state.coup >= 1:
            return
        await decide(host, bot, table.engine.awaiting(table.state)[0])
        await host.idle()
    raise AssertionError("no coup began")


async def play_coups(host: Host, bot: AppBot, coups: int, prefer: list[str] = PREFERRED,
                     timeouts: list[int] | None = None, app: bool = True,
                     idle: frozenset[int] = frozenset()) -> list[int]:
    """Every awaited player decides (:func:`decide`) until ``coups`` more coups are settled;
    the index into ``bot.group`` at which each new coup's step began.

    Before each decision: a player with a private chat has his one live prompt there, the
    app's ``web_app`` button on its last row; a player without one (``bot.no_dm``) sees his
    turn and his buttons on the group's table. Where a step begins a new decision its
    private messages are held back at first: the group's messages go out, yet no clock runs
    until every awaited player has been shown his turn; once the prompts are delivered, it
    runs a whole decision time from then. Without ``app`` (a table played in the chat),
    nothing is held back, and the prompts carry the app's button only where the bot has the
    Mini App (``bot.has_app``). The players of ``idle`` let every time run out."""
    table = await host.tables.load(CHAT)
    target = table.state.coup + coups
    starts = []
    timeouts = [] if timeouts is None else timeouts
    for _ in range(300):
        table = await host.tables.load(CHAT)
        if table.state.coup >= target:
            return starts
        player = table.engine.awaiting(table.state)[0]
        if player in bot.no_dm:
            group = live_table(bot)
            assert f"▶ <b>{NAMES[player]}</b>" in group.text
            assert {b.version for b in actions(group.markup) if b.kind != "join"} == {
                table.meta.decision}
        else:
            live = live_prompt(bot, player)
            if bot.has_app:
                assert labels(live.markup)[-1] == ["🃏 Open table"]
                assert live.markup.inline_keyboard[-1][0].web_app.url == PAGE_URL
            else:
                assert all(b.web_app is None for row in live.markup.inline_keyboard
                           for b in row)
        coup_before = table.state.coup
        mark = len(bot.group)
        bot.dm_gate = asyncio.Event() if app else None
        if (player in bot.no_dm and table.sight.private) or player in idle:
            # an idle player's time runs out; so does that of a player without a private
            # chat whose decision is on his hidden cards (taken in private only, as in the
            # chat), on the clock the group's table started when it showed him his turn
            assert (await host.tables.clock.started(table)).due is not None
            host.tables.clock.now = lambda: time.time() + 61
            await host.tables.clock.on_deadline(CHAT, table.state.version)
            host.tables.clock.now = time.time
            timeouts.append(table.state.coup)
        else:
            await decide(host, bot, player, prefer)
        table = await host.tables.load(CHAT)
        if table.state.coup != coup_before:
            starts.append(mark)
        if not app:
            await host.idle()
            continue
        await group_done(host)
        awaited = set(table.engine.awaiting(table.state))
        fresh = table.meta.decision == table.state.version and awaited
        if fresh and not awaited & bot.no_dm:
            # the group may have got the coup's card, but no prompt has reached anybody
            assert (await host.tables.clock.started(table)).due is None, \
                "a clock runs before the turn was shown"
            assert not host.tables.clock.deadlines.pending(CHAT)
        shown = time.time()
        assert bot.dm_gate is not None
        bot.dm_gate.set()
        await host.idle()
        table = await host.tables.load(CHAT)
        if fresh and not awaited & bot.no_dm:
            due = (await host.tables.clock.started(table)).due
            assert due is not None and due >= shown + 60
    raise AssertionError("the coups did not end")


def no_web_app_in_the_group(bot: AppBot) -> None:
    """Telegram refuses a ``web_app`` button in a group: the group's keyboards have none."""
    assert all(b.web_app is None for m in bot.chat(CHAT) if m.markup
               for row in m.markup.inline_keyboard for b in row)
    assert all(b.web_app is None for c in bot.group if c.markup
               for row in c.markup.inline_keyboard for b in row)


async def app_table(make_app_host: Any, monkeypatch: pytest.MonkeyPatch, game: str,
                    no_dm: set[int] | None = None) -> tuple[Host, AppBot]:
    """A table of ``game`` in app mode (the bot has the Mini App: ``screen`` is ``app`` by
    default), three players seated and its first coup begun."""
    seeded(monkeypatch, "app-" + game)
    bot = AppBot(no_dm=no_dm or set())
    host = await make_app_host(bot, LINKS)
    await seated(host, bot, game)
    assert "screen = app (chat | app)" in await host.lifecycle.settings(CHAT, None, None)
    await to_first_coup(host, bot)
    return host, bot


STUD = ["call", "bet", *PREFERRED]
"""Stud played for chips: the first to act bets, the others call."""


async def test_a_coup_of_chemin_de_fer_in_the_app_costs_the_group_its_card_and_result(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await app_table(make_app_host, monkeypatch, "chemin_de_fer")
    await game_in_app(host, bot, "chemin_de_fer", PREFERRED, CHEMIN)


async def test_a_hand_of_stud_in_the_app_costs_the_group_its_card_and_result(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await app_table(make_app_host, monkeypatch, "stud_poker")
    await game_in_app(host, bot, "stud_poker", STUD, STUD_TEXTS)


async def game_in_app(host: Host, bot: AppBot, game: str, prefer: list[str],
                      texts: dict[str, Any]) -> None:
    """Two coups played in the app: what the group got from the first coup's start to the
    third's, exactly."""
    first = len(bot.group) - 2  # the first coup's card, and the lobby's message retired
    await play_coups(host, bot, 2, prefer)
    # the card drawn again, once, where it offers a move to someone not awaited (chemin de
    # fer's banker may retire once the stakes begin): the chat's only place to make it
    offers = [c for c in bot.group[first:] if c.method == "edit" and c.markup is not None
              and labels(c.markup) != [["🃏 Open table"]]]  # a result keeps the link alone
    assert [labels(c.markup) for c in offers] == texts.get("offers", [])
    calls = [c for c in bot.group[first:] if all(c is not o for o in offers)]
    card1, retired, result1, card2, result2, card3 = calls
    assert [c.method for c in calls] == ["send", "edit", "edit", "send", "edit", "send"]
    # coup 1: its card (the lobby's message retires under it: the table's opening), then
    # its result; coup 2: its card and its result, nothing between
    assert card1.text == texts["card"]
    assert labels(card1.markup) == texts["buttons"]
    for card in (card1, card2, card3):
        assert card.markup.inline_keyboard[0][0].url == OPEN_URL
    assert retired.text == texts["retired"]
    # a result keeps the table's link: between coups the group still has it
    assert (result1.text, labels(result1.markup)) == (texts["result"], [["🃏 Open table"]])
    assert card2.text.split("\n")[:2] == texts["card2"]
    assert result2.text.split("\n")[:3] == texts["result2"]
    assert result2.markup.inline_keyboard[0][0].url == OPEN_URL
    no_web_app_in_the_group(bot)
    # chips conserved: every chip issued is in a wallet or on the table, every step balanced
    audit = await host.storage.audit()
    assert audit == {"issued": 3000, "wallets": 0, "on_tables": 3000, "unbalanced_steps": 0,
                     "ledger_drift": 0}


CHEMIN: dict[str, Any] = {
    "card": ('<b>Chemin de fer · coup #1</b> · <i>cut</i> · bank 1\n'
             'Bank still uncovered: 1\n'
             'Ann (banker) · 💰999\n'
             'Bob (punter) · 💰1000\n'
             'Cid (punter) · 💰1000\n'
             '· Cid bids 1\n'
             '· Ann holds the bank\n'
             '· 🔒 New shoe shuffled and committed\n'
             '<blockquote expandable>Bob bids 1</blockquote>\n'
             '🔒 shoe committed · /verify\n'
             '🃏 Moves are made in the table app or in your private chat with the bot.'),
    "buttons": [['🃏 Open table'], ['🪑 Join'], ['🚪 Leave']],
    # coup 1's card offers the banker's Retire once the stakes begin; coup 2's card, posted
    # with it, loses it once a stake is in (a button that no longer works does not stay)
    "offers": [[['🃏 Open table'], ['Retire (banker)'], ['🪑 Join'], ['🚪 Leave']],
               [['🃏 Open table'], ['🪑 Join'], ['🚪 Leave']]],
    "retired": '<b>Chemin de fer</b> · <i>auction</i> ⬇️',
    "result": ('🏆 <b>Ann wins 1 with 9 points</b>\n'
               'Chemin de fer · coup #1 settled\n'
               'Ann (banker) +1 · Cid −1\n'
               '<blockquote expandable>Ann shows a natural 9: Q♥ 9♣\n'
               'Cid: K♥ 2♥, points: 2; banker: Q♥ 9♣, points: 9\n'
               'Bob bids 1\n'
               'Cid bids 1\n'
               'Ann holds the bank\n'
               '🔒 New shoe shuffled and committed\n'
               'Cid cuts the shoe\n'
               'Burned: 4♠ K♣ 8♣\n'
               'Coup 1: bank 1, stakes please\n'
               'Cid stakes 1\n'
               'Cards dealt to Cid and the banker Ann</blockquote>'),
    "card2": [
        '<b>Chemin de fer · coup #2</b> · <i>staking</i> · bank 2',
        '🏆 Coup #1: Ann wins 1 with 9 points (Ann (banker) +1 · Cid −1)',
    ],
    "result2": [
        '🏆 <b>Stand-off: every stake goes back</b>',
        'Chemin de fer · coup #2 settled',
        'Bob ±0 · Cid ±0 · Ann (banker) ±0',
    ],
}

STUD_TEXTS: dict[str, Any] = {
    "card": ('<b>Five-card stud · hand #1</b> · <i>betting</i>\n'
             'Ann (dealer) · 💰1000 · 2♠ 🂠 · in hand\n'
             'Bob · 💰1000 · A♥ 🂠\n'
             'Cid · 💰1000 · 5♠ 🂠 · in hand\n'
             '· Bob gets A♥\n'
             '· Cid gets 5♠\n'
             '· Ann gets 2♠\n'
             '<blockquote expandable>Bob, Cid, Ann each get a card face down</blockquote>\n'
             '🔒 shoe committed · /verify\n'
             '🃏 Moves are made in the table app or in your private chat with the bot.'),
    "buttons": [['🃏 Open table'], ['🂠 My cards', '🪑 Join'], ['🚪 Leave']],
    "retired": '<b>Five-card stud</b> · <i>waiting</i> ⬇️',
    "result": ('🏆 <b>Cid wins 28 with a pair of fives</b>\n'
               'Five-card stud · hand #1 settled\n'
               'Cid +28 · Bob −14 · Ann −14\n'
               '<blockquote expandable>Bob shows 4♠ A♥ 10♣ 8♠ Q♦: ace high\n'
               'Cid shows 4♣ 5♠ J♥ 5♦ 7♥: a pair of fives\n'
               'Ann shows 7♠ 2♠ 2♦ 6♠ A♦: a pair of deuces\n'
               'Bob, Cid, Ann each get a card face down\n'
               'Bob gets A♥\n'
               'Cid gets 5♠\n'
               'Ann gets 2♠\n'
               'Bob bets 2\n'
               'Cid calls 2\n'
               'Ann calls 2\n'
               'Bob gets 10♣\n'
               'Cid gets J♥\n'
               'Ann gets 2♦\n'
               'Bob shows A♥ 10♣: ace high; possible straight\n'
               'Cid shows 5♠ J♥: jack high\n'
               'Ann shows 2♠ 2♦: a pair of deuces\n'
               'Ann bets 4\n'
               'Bob calls 4\n'
               'Cid calls 4\n'
               'Bob gets 8♠\n'
               'Cid gets 5♦\n'
               'Ann gets 6♠\n'
               'Bob shows A♥ 10♣ 8♠: ace high\n'
               'Cid shows 5♠ J♥ 5♦: a pair of fives\n'
               'Ann shows 2♠ 2♦ 6♠: a pair of deuces\n'
               'Cid bets 4\n'
               'Ann calls 4\n'
               'Bob calls 4\n'
               'Bob gets Q♦\n'
               'Cid gets 7♥\n'
               'Ann gets A♦\n'
               'Bob shows A♥ 10♣ 8♠ Q♦: ace high\n'
               'Cid shows 5♠ J♥ 5♦ 7♥: a pair of fives\n'
               'Ann shows 2♠ 2♦ 6♠ A♦: a pair of deuces\n'
               'Cid bets 4\n'
               'Ann calls 4\n'
               'Bob calls 4</blockquote>'),
    "card2": [
        '<b>Five-card stud · hand #2</b> · <i>betting</i>',
        '🏆 Hand #1: Cid wins 28 with a pair of fives (Cid +28 · Bob −14 · Ann −14)',
    ],
    "result2": [
        '🏆 <b>Bob wins 24 with a pair of kings</b>',
        'Five-card stud · hand #2 settled',
        'Bob +24 · Cid −12 · Ann −12',
    ],
}


async def test_a_player_without_a_private_chat_sees_his_turn_on_the_group_table(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cid never opened a private chat with the bot. Each of his turns in a coup is shown on
    the group's table, as in the chat: by the coup's card when his turn is the first, else by
    one edit that goes out at once, and counts against the group's budget; once his turn is
    over, one more edit takes it and its buttons off at once. His clock starts
    when the group shows it (:func:`play_coups` checks the others'); a decision on his hidden
    cards he cannot take from the group, as in the chat, and his time runs out."""
    host, bot = await app_table(make_app_host, monkeypatch, "chemin_de_fer", no_dm={CID})
    table = await host.tables.load(CHAT)
    assert table.meta.dm_blocked == [CID]
    # told once, in the lobby, how to open the private chat
    assert [c.text for c in bot.group if c.method == "send" and c.markup is None] == [
        "Cid, I cannot write to you privately. Open https://t.me/banco_bot?start=tm100 and "
        "press Start to get your cards; meanwhile the \"My cards\" button shows them."]
    first = len(bot.group) - 2
    timeouts: list[int] = []
    await play_coups(host, bot, 2, timeouts=timeouts)
    assert timeouts == [2]  # his draw in coup 2: a decision on his hidden cards
    calls = bot.group[first:]
    card1, retired, his_stake, result1, card2, staked, his_draw, drawn, result2, card3 = calls
    assert [c.method for c in calls] == ["send", "edit", "edit", "edit", "send", "edit", "edit",
                                         "edit", "edit", "send"]
    # coup 1 cost the group 3 calls (and the lobby's retirement): the card, which showed his
    # cut, one edit for his stake, and the result
    assert "\n▶ <b>Cid</b> (punter) · 💰1000 · to act\n⏳ Cid · <tg-time" in card1.text
    assert labels(card1.markup)[:3] == [["🃏 Open table"], ["✂️ Cut 78", "156"],
                                        ["234", "✏️ amount"]]
    assert retired.text == "<b>Chemin de fer</b> · <i>auction</i> ⬇️"
    assert his_stake.text.startswith("<b>Chemin de fer · coup #1</b> · <i>staking</i>")
    assert "\n▶ <b>Cid</b> (punter) · 💰1000 · to act\n⏳ Cid · <tg-time" in his_stake.text
    assert labels(his_stake.markup)[:2] == [["🃏 Open table"], ["Banco! 1", "Stake 1", "Pass"]]
    assert result1.text == CHEMIN["result"]
    # coup 2 cost 5: the card (his stake); once he staked, his turn and its buttons taken
    # off at once (they would answer "You cannot do that now"); his draw (in private: the
    # group says his buttons are under My cards); that turn taken off once over; the
    # result, which tells that his time ran out
    assert "\n▶ <b>Cid</b> (punter) · 💰999 · to act\n⏳ Cid · <tg-time" in card2.text
    assert "\nCid (punter) · 💰998 · stake 1\n" in staked.text and "⏳" not in staked.text
    assert labels(staked.markup) == [["🃏 Open table"], ["🪑 Join"], ["🚪 Leave"]]
    assert "\n⏳ Cid · <tg-time" in his_draw.text and "deciding privately" not in his_draw.text
    assert "\n👉 Cid: your buttons are under 🂠 My cards.\n" in his_draw.text
    assert labels(his_draw.markup) == [["🃏 Open table"], ["🂠 My cards", "🪑 Join"],
                                       ["🚪 Leave"]]
    assert "to act" not in drawn.text and "⏳" not in drawn.text
    assert result2.text.split("\n")[:3] == CHEMIN["result2"]
    assert "\n⏰ Cid draws a card (timed out)\n" in result2.text
    assert all(c.markup.inline_keyboard[0][0].url == OPEN_URL for c in (card1, card2, card3))
    # told once: at his next decision in private (coup 3's draw) his turn shows, the
    # hint does not
    later = len(bot.group)
    await play_coups(host, bot, 1, timeouts=timeouts)
    assert timeouts == [2, 3]
    his_next = [c.text for c in bot.group[later:] if "🂠🂠 · to act" in c.text]
    assert len(his_next) == 1 and "\n⏳ Cid · <tg-time" in his_next[0]
    assert "👉" not in his_next[0] and "deciding privately" not in his_next[0]
    no_web_app_in_the_group(bot)
    audit = await host.storage.audit()
    assert (audit["wallets"] + audit["on_tables"], audit["unbalanced_steps"]) == (3000, 0)


def _untimed(text: str) -> str:
    """A text without the seconds its clock showed when drawn."""
    return re.sub(r"<tg-time [^>]*>[^<]*</tg-time>", "<time>", text)


async def chat_run(make_app_host: Any, monkeypatch: pytest.MonkeyPatch,
                   links: AppLinks | None) -> tuple[list[Any], dict[int, list[Any]]]:
    """A coup of chemin de fer played in the chat (``/settings screen chat``), with or without
    the Mini App: the group's calls and each player's private messages (texts untimed)."""
    seeded(monkeypatch, "chat-with-app")
    bot = AppBot()
    host = await make_app_host(bot, links)
    await seated(host, bot, "chemin_de_fer")
    assert (await host.lifecycle.settings(CHAT, "screen", "chat")).startswith(
        "This table: screen = chat.")
    await to_first_coup(host, bot)
    await play_coups(host, bot, 1, app=False)
    group = [(c.method, _untimed(c.text), c.markup) for c in bot.group]
    private = {p: [(_untimed(m.text), m.markup) for m in bot.chat(p)] for p in (ANN, BOB, CID)}
    return group, private


async def test_in_the_chat_the_app_adds_its_buttons_and_nothing_else(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/settings screen chat`` where the bot has the Mini App: the same coup sends the same
    messages as without the app, the group's table with the *Open table* link first, each
    turn prompt with the app's page last."""
    group, private = await chat_run(make_app_host, monkeypatch, None)
    with_app, private_with_app = await chat_run(make_app_host, monkeypatch, LINKS)
    assert len(group) == len(with_app) > 10
    for (method, text, markup), (method2, text2, markup2) in zip(group, with_app, strict=True):
        assert (method2, text2) == (method, text)
        if markup is None:  # a coup's result keeps the table's link, the others none
            assert markup2 is None if not text.startswith("🏆") else [
                [b.to_dict() for b in row] for row in markup2.inline_keyboard] == [
                [{"text": "🃏 Open table", "url": OPEN_URL}]]
            continue
        assert [[b.to_dict() for b in row] for row in markup2.inline_keyboard] == [
            [{"text": "🃏 Open table", "url": OPEN_URL}],
            *([b.to_dict() for b in row] for row in markup.inline_keyboard)]
    for player in (ANN, BOB, CID):
        assert [t for t, _ in private_with_app[player]] == [t for t, _ in private[player]]
        for (_, markup), (_, markup2) in zip(private[player], private_with_app[player],
                                             strict=True):
            if markup is None:
                assert markup2 is None
                continue
            assert [[b.to_dict() for b in row] for row in markup2.inline_keyboard] == [
                *([b.to_dict() for b in row] for row in markup.inline_keyboard),
                [{"text": "🃏 Open table", "web_app": {"url": PAGE_URL}}]]


SETTINGS_APP = {
    "en": [
        "Settings of this table (Twenty-one):",
        "timeout = 60 seconds — time for each decision",
        "turn_dm = on (on | off) — each awaited player's turn in his private chat",
        "screen = app (chat | app) — where the game is played: chat, on the group's table "
        "message; app, in the table app, the group getting each coup's card and result",
        "idle_close = 6 decisions — the table closes itself after this many decisions in "
        "a row with nobody playing (0: never)",
        "min_stake = 1 chip — the smallest stake",
        "decks = 2 decks — decks in the shoe",
        "Change it for this table: /settings KEY VALUE",
        "For this chat's next tables: /settings default KEY VALUE"],
    "ru": [
        "Настройки этого стола (Очко):",
        "timeout = 60 секунд — время на каждое решение",
        "turn_dm = on (on | off) — ход каждому, кого ждёт стол, в личный чат",
        "screen = app (chat | app) — где идёт игра: chat — в сообщении стола в группе; "
        "app — в приложении стола, а в группу приходят только карточка и итог каждого кона",
        "idle_close = 6 решений — стол закрывается сам после стольких решений подряд, "
        "где никто не сыграл (0 — никогда)",
        "min_stake = 1 фишка — наименьшая ставка",
        "decks = 2 колоды — колод в шузе",
        "Изменить для этого стола: /settings КЛЮЧ ЗНАЧЕНИЕ",
        "Для следующих столов чата: /settings default КЛЮЧ ЗНАЧЕНИЕ"],
}
SCREEN_ANSWERS = {
    "en": {
        ("screen", "chat"): "This table: screen = chat. For this chat's next tables too: "
                            "/settings default screen chat",
        ("screen", "app"): "This table: screen = app. For this chat's next tables too: "
                           "/settings default screen app",
        ("screen", "phone"): "Cannot set that: chat | app",
        ("default", "chat"): "This chat's next tables: screen = chat.",
    },
    "ru": {
        ("screen", "chat"): "Этот стол: screen = chat. Чтобы и следующие столы чата "
                            "начинались так: /settings default screen chat",
        ("screen", "app"): "Этот стол: screen = app. Чтобы и следующие столы чата "
                           "начинались так: /settings default screen app",
        ("screen", "phone"): "Нельзя установить: chat | app",
        ("default", "chat"): "Следующие столы чата: screen = chat.",
    },
}
NO_APP = {
    "en": "Cannot set that: this bot has no table app (its host has not set one up), so the "
          "table is played in the chat.",
    "ru": "Нельзя установить: у этого бота нет приложения стола (его владелец не настроил), "
          "поэтому игра идёт в чате.",
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_settings_screen_chooses_chat_or_app_where_the_bot_has_the_app(
        make_app_host: Any, lang: str) -> None:
    bot = AppBot()
    host = await make_app_host(bot, LINKS)
    await host.lifecycle.set_language(CHAT, lang)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    await host.idle()
    shown = html.unescape(await host.lifecycle.settings(CHAT, None, None))  # sent as HTML
    assert shown.split("\n") == SETTINGS_APP[lang]
    said = SCREEN_ANSWERS[lang]
    for value in ("chat", "phone", "app", "chat"):
        assert await host.lifecycle.settings(CHAT, "screen", value) == said[("screen", value)]
    assert (await host.tables.load(CHAT)).meta.screen == "chat"
    assert await host.lifecycle.set_default(CHAT, "screen", "chat") == said[("default", "chat")]
    # the group's table message opens the app in the chat's language
    assert labels(live_table(bot).markup)[0] == ["🃏 Open table" if lang == "en"
                                                 else "🃏 Открыть стол"]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_settings_screen_app_is_refused_without_the_app(make_app_host: Any,
                                                             lang: str) -> None:
    bot = AppBot()
    host = await make_app_host(bot, None)
    await host.lifecycle.set_language(CHAT, lang)
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, lang) is None
    await host.idle()
    shown = html.unescape(await host.lifecycle.settings(CHAT, None, None))
    assert "screen" not in shown  # without the app a table is played in the chat, as today
    assert shown.split("\n") == [line for line in SETTINGS_APP[lang] if "screen" not in line]
    assert await host.lifecycle.settings(CHAT, "screen", "app") == NO_APP[lang]
    assert await host.lifecycle.set_default(CHAT, "screen", "app") == NO_APP[lang]
    assert await host.lifecycle.settings(CHAT, "screen", "chat") == \
        SCREEN_ANSWERS[lang][("screen", "chat")]
    assert all(b.url is None and b.web_app is None for m in bot.chat(CHAT) if m.markup
               for row in m.markup.inline_keyboard for b in row)


async def test_a_players_private_views_carry_the_apps_button(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """What Start from the table's deep link shows him (his cards, his decision), and a
    choice among his own cards sent to his private chat, open the app's page too."""
    host, _ = await app_table(make_app_host, monkeypatch, "stud_poker")
    table = await host.tables.load(CHAT)
    [awaited] = table.engine.awaiting(table.state)
    opened = await host.presses.dm_opened(awaited, "tm100")
    assert opened is not None
    shown = answers.dm_opened("en", opened)
    assert shown is not None
    text, markup = shown
    assert "Your cards: " in text and text.endswith("Your move at the table — choose here:")
    assert markup is not None and markup.inline_keyboard[-1] == (
        keyboards.Button("🃏 Open table", web_app=PAGE_URL),)
    assert {"check", "bet"} <= {decoded.kind for row in markup.inline_keyboard[:-1]
                                for b in row if isinstance(decoded := decode(b.callback_data),
                                                           ActionButton)}
    # a player who is not awaited: his cards, and the app's button alone
    other = next(p for p in (ANN, BOB, CID) if p != awaited)
    opened = await host.presses.dm_opened(other, "tm100")
    assert opened is not None
    shown = answers.dm_opened("en", opened)
    assert shown is not None and shown[1] is not None
    assert shown[1].inline_keyboard == ((keyboards.Button("🃏 Open table", web_app=PAGE_URL),),)
    picked = answers.answer(PickInPrivate(BOB, Selection(
        CHAT, 1, 5, "discard", ("As", "Kd"), 0, 2, PAGE_URL)), "en", "en")
    assert picked.dm is not None
    assert picked.dm[2].inline_keyboard[-1] == (keyboards.Button("🃏 Open table",
                                                              web_app=PAGE_URL),)
    assert picked.dm[2].as_dict()["inline_keyboard"][-1] == [
        {"text": "🃏 Open table", "web_app": {"url": PAGE_URL}}]


async def test_the_app_showing_a_turn_starts_its_clock_as_a_delivered_prompt_does(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's server reports a turn it pushed to a player's open page
    (:meth:`Lifecycle.turn_shown`): with every awaited player shown, the clock starts, though
    no prompt has reached anybody yet; a stale decision's report changes nothing."""
    host, bot = await app_table(make_app_host, monkeypatch, "stud_poker")
    table = await host.tables.load(CHAT)
    [player] = table.engine.awaiting(table.state)
    bot.dm_gate = asyncio.Event()  # his prompt of the next decision will not arrive
    await decide(host, bot, player, STUD)
    await group_done(host)
    table = await host.tables.load(CHAT)
    [nxt] = table.engine.awaiting(table.state)
    clock = host.tables.clock

    async def due() -> float | None:
        return (await clock.started(await host.tables.load(CHAT))).due

    assert table.meta.decision == table.state.version and await due() is None
    await host.lifecycle.turn_shown(CHAT, table.meta.decision - 1, [nxt])  # an older decision
    assert await due() is None
    before = time.time()
    await host.lifecycle.turn_shown(CHAT, table.meta.decision, [nxt])
    started = await due()
    assert started is not None and before + 60 <= started <= time.time() + 60
    assert clock.deadlines.pending(CHAT)
    # his prompt, delivered after, starts nothing anew
    bot.dm_gate.set()
    await host.idle()
    assert await due() == started


async def test_a_stand_up_in_the_app_is_told_by_the_coups_result_not_a_message(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob lets his time run out twice in a hand: he is stood up, which the chat announces
    at once; in the app the hand's log tells it, and the group still gets two messages."""
    host, bot = await app_table(make_app_host, monkeypatch, "stud_poker")
    first = len(bot.group) - 2
    timeouts: list[int] = []
    await play_coups(host, bot, 1, STUD, timeouts, idle=frozenset({BOB}))
    assert len(timeouts) == 2
    calls = bot.group[first:]
    assert [c.method for c in calls] == ["send", "edit", "edit", "send"]  # no stand-up line
    result1 = calls[2]
    assert "\nBob timed out twice and is stood up\n" in result1.text
    assert [s.name for s in (await host.tables.load(CHAT)).sight.view().seats] == ["Ann", "Cid"]


async def test_a_player_without_a_private_chat_plays_on_his_open_page_and_the_group_stays_quiet(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cid never opened a private chat with the bot, but he has the table's page open: his
    page shows him his turns (and starts his clock), so the group's card need not, and the
    group gets each coup's card and its result, nothing else."""
    from test_webapp_server import init_data, open_page

    bot = AppBot(no_dm={CID})
    async with chemin_with_pages(make_app_host, monkeypatch, bot) as (host, session, url):
        page = await open_page(session, url, init_data(CID, param=PARAM))
        assert (await page.next())["me"]["seated"] is True
        start = next(b for b in actions(live_table(bot).markup) if b.kind == "start")
        assert (await host.presses.press(CHAT, ANN, NAMES[ANN], start)).committed
        await host.idle()
        first = None
        cid_moves = 0
        for n in range(200):
            table = await host.tables.load(CHAT)
            if table.state.coup >= 3:
                break
            if table.state.coup >= 1 and first is None:
                first = len(bot.group) - 2  # the first coup's card, the lobby retired
            player = table.engine.awaiting(table.state)[0]
            if player == CID:
                await move_on_page(session, url, CID, f"cid-move-{n:04d}")
                cid_moves += 1
            else:
                await decide(host, bot, player)
            await host.idle()
        assert cid_moves >= 2
        assert first is not None
        # the group is told once that the bot cannot write to Cid (when it first tries:
        # while his page shows him his turns, his prompts are not sent)
        notice = "Cid, I cannot write to you privately."
        assert sum(c.text.startswith(notice) for c in bot.group) == 1
        calls = [c for c in bot.group[first:] if not c.text.startswith(notice)]
        # coups 1 and 2: their cards (sent) and their results (the card edited), then
        # coup 3's card (and the lobby's message retired as coup 1 began), coup 1's card
        # once more when it offers the banker's Retire, and coup 2's once more when it no
        # longer does: no turn of Cid's was drawn in the group
        assert [c.method for c in calls] == ["send", "edit", "edit", "edit", "send", "edit",
                                             "edit", "send"], [(c.method, c.text[:60])
                                                               for c in calls]
        assert calls[1].text == "<b>Chemin de fer</b> · <i>auction</i> ⬇️"
        assert [labels(calls[i].markup) for i in (2, 5)] == CHEMIN["offers"]
        assert all("▶ <b>Cid</b>" not in c.text for c in calls)
        assert all("settled" in calls[i].text for i in (3, 6))
        audit = await host.storage.audit()
        assert (audit["wallets"] + audit["on_tables"], audit["unbalanced_steps"]) == (3000, 0)


async def test_a_player_who_closes_his_page_finds_his_turn_on_the_group_table(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cid has no private chat; while his page is open the coup's card does not show his
    turn. He closes the page on his turn: the group's table shows it at once."""

    bot = AppBot(no_dm={CID})
    async with chemin_with_pages(make_app_host, monkeypatch, bot) as (host, session, url):
        page, _ = await his_turn_on_his_page(host, bot, session, url, CID)
        assert "▶ <b>Cid</b>" not in live_table(bot).text  # the card: his page shows it
        await page.ws.close()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if "▶ <b>Cid</b>" in live_table(bot).text:
                break
        assert "\n▶ <b>Cid</b> (punter) · 💰1000 · to act\n" in live_table(bot).text


async def test_a_page_stands_in_for_the_private_prompt_until_it_closes(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob has a private chat and the table's page open: the page shows him his turns, so
    no prompt goes to his private chat. He closes the page on his turn: the prompt comes
    there at once, one live keyboard, and he decides from it."""

    bot = AppBot()

    def live(player: int) -> list[Any]:
        return [m for m in bot.chat(player) if m.markup is not None and actions(m.markup)]

    async with chemin_with_pages(make_app_host, monkeypatch, bot) as (host, session, url):
        page, frame = await his_turn_on_his_page(host, bot, session, url, BOB)
        assert live(BOB) == []  # his page shows his turn: no prompt in private
        table = await host.tables.load(CHAT)
        assert (await host.tables.clock.started(table)).due is not None  # his clock runs
        await page.ws.close()
        for _ in range(300):
            await asyncio.sleep(0.01)
            if live(BOB):
                break
        [prompt] = live(BOB)
        assert "\n▶ <b>Bob</b> (punter) · 💰1000 · to act\n" in prompt.text, prompt.text
        assert {a["kind"] for a in frame["actions"] if a["input"] != "utility"} <= {
            b.kind for b in actions(prompt.markup)} == {"stake", "pass", "leave"}
        await decide(host, bot, BOB)
        await host.idle()
        assert live(BOB) == []


async def test_a_private_decision_stays_on_the_open_page(
        make_app_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A decision his hidden cards decide (chemin de fer's punter: draw or stand) goes to a
    player's private chat with its keyboard, unless his page of the table is open: then his
    cards come there alone, and the page is where he decides."""
    from test_webapp_server import init_data, open_page

    bot = AppBot()
    async with chemin_with_pages(make_app_host, monkeypatch, bot) as (host, session, url):
        pages = [await open_page(session, url, init_data(p, param=PARAM))
                 for p in (ANN, BOB, CID)]
        for page in pages:
            await page.next()
        start = next(b for b in actions(live_table(bot).markup) if b.kind == "start")
        assert (await host.presses.press(CHAT, ANN, NAMES[ANN], start)).committed
        await host.idle()
        private = 0
        for n in range(120):  # all three play on their pages alone
            table = await host.tables.load(CHAT)
            if table.state.coup >= 6:
                break
            player = table.engine.awaiting(table.state)[0]
            if table.sight.private:
                private += 1
                # his cards came to his private chat, and no keyboard with them
                assert not [m for m in bot.chat(player)
                            if m.markup is not None and actions(m.markup)]
                assert "Your cards" in bot.chat(player)[-1].text, bot.chat(player)[-1].text
            await move_on_page(session, url, player, f"move-{n:04d}")
            await host.idle()
        assert private >= 2

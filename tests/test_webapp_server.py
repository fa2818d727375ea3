"""The Mini App's server (bot/gateway/webapp/) on the real host in-process: the real storage,
the real commit path, a recording Telegram; pages are aiohttp WebSocket clients with
``initData`` signed as Telegram signs it (init_data_py.sign).

What a player would notice: who may open the table and what he is told otherwise, what his
page shows (his seat, his cards and no one else's), that an action from the page is a press
(the same refusals, committed once however often it is sent), and that every page follows
the table live."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import init_data_py
import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    NAMES,
    RecordingBot,
    buttons,
    make_host,
    table_message,
)

from bot import compose
from bot.gateway.webapp.auth import Members
from bot.gateway.webapp.server import WebApp
from bot.ops.hooks import Hooks
from bot.view import applink, codec, screens
from games import cards
from games.engine import Engine, GameState

TOKEN = "123456:TEST-TOKEN"
EVE = 5  # a member of the group who is not seated
MALLORY = 6  # not a member
OTHER_CHAT = -200


async def status(chat_id: int, user_id: int) -> tuple[str, bool]:
    """getChatMember as Telegram would answer it for this test's group."""
    if chat_id == CHAT and user_id in (ANN, BOB, CID, EVE):
        return "member", True
    return "left", False


def init_data(user: int, *, param: str | None = None, token: str = TOKEN,
              auth_date: float | None = None, lang: str = "en") -> str:
    """What Telegram hands a page opened by ``user`` from the table's link (``param``)."""
    fields = {"user": json.dumps({"id": user, "first_name": NAMES.get(user, "Eve"),
                                  "language_code": lang}, separators=(",", ":")),
              "chat_instance": "-4455667788", "chat_type": "supergroup"}
    if param is not None:
        fields["start_param"] = param
    return init_data_py.sign(fields, token, auth_date=auth_date or time.time())


def link(chat_id: int = CHAT) -> str:
    return applink.start_param(applink.link_key(TOKEN), chat_id)


@pytest.fixture
async def served(make_host: Any, monkeypatch: pytest.MonkeyPatch  # noqa: F811
                 ) -> AsyncIterator[tuple[Any, RecordingBot, WebApp, str]]:
    seeded = random.Random("web app")  # the same shoe every run
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    web = compose.webapp(host, token=TOKEN, members=Members(status), sdk_url="/sdk.js",
                         max_age=3600)
    await web.start("127.0.0.1", 0)
    yield host, bot, web, f"http://127.0.0.1:{web.port}/app/"
    await web.stop()


async def seated_coup(host: Any, bot: RecordingBot) -> None:
    """A chemin de fer table with Ann, Bob and Cid seated and the bank's auction open."""
    assert await host.lifecycle.open_table(CHAT, "chemin_de_fer", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        join = next(b for b in buttons(table_message(bot)) if b.kind == "join")
        await host.presses.press(CHAT, player, NAMES[player], join)
        await host.idle()


class Page:
    """A page's socket: the frames it got."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []

    async def next(self, until: Any = None, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame (that ``until`` accepts)."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.ws.receive()
                assert msg.type == aiohttp.WSMsgType.TEXT, msg
                frame = json.loads(msg.data)
                self.frames.append(frame)
                if until is None or until(frame):
                    return frame


async def open_page(session: aiohttp.ClientSession, url: str, data: str,
                    table: str | None = None) -> Page:
    ws = await session.ws_connect(url + "ws")
    await ws.send_json({"type": "hello", "init_data": data, "table": table})
    return Page(ws)


async def test_who_may_open_the_table(served: Any) -> None:
    host, bot, _, url = served
    await seated_coup(host, bot)
    async with aiohttp.ClientSession() as session:
        # a seated player, a member watching, through the group's link
        ann = await open_page(session, url, init_data(ANN, param=link()))
        first = await ann.next()
        assert (first["type"], first["me"]["seated"], first["table"]["game_name"]) == (
            "snapshot", True, "Chemin de fer")
        eve = await open_page(session, url, init_data(EVE, param=link()))
        watching = await eve.next()
        assert (watching["me"]["seated"], watching["me"]["cards"]) == (False, [])
        # from a private chat's web_app button: no start_param, the page's ?table=
        bob = await open_page(session, url, init_data(BOB), table=link())
        assert (await bob.next())["me"]["name"] == "Bob"

        async def refused(data: str, table: str | None = None) -> dict[str, Any]:
            page = await open_page(session, url, data, table)
            frame = await page.next()
            closed = await asyncio.wait_for(page.ws.receive(), 5)
            assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            return frame

        bad = {"type": "error", "code": "auth", "text": "This page was not opened by "
               "Telegram, or too long ago. Open the table again from the group."}
        # a tampered hash: the user changed after signing
        good = init_data(ANN, param=link())
        assert await refused(good.replace("%22id%22%3A1%2C", "%22id%22%3A2%2C")) == bad
        assert await refused(good.replace("hash=", "hash=0")) == bad
        # expired: signed two hours ago, an hour allowed
        assert await refused(init_data(ANN, param=link(), auth_date=time.time() - 7200)) == bad
        # signed in the future: more than a minute ahead is no clock's drift
        assert await refused(init_data(ANN, param=link(), auth_date=time.time() + 120)) == bad
        assert await refused(init_data(ANN, param=link(), auth_date=time.time() + 3600)) == bad
        ahead = await open_page(session, url, init_data(ANN, param=link(),
                                                        auth_date=time.time() + 30))
        assert (await ahead.next())["type"] == "snapshot"  # a few seconds' drift is taken
        # another bot's data
        assert await refused(init_data(ANN, param=link(), token="654321:OTHER")) == bad
        # a key given twice (the second user would be someone else)
        twice = init_data(ANN, param=link()) + "&user=%7B%22id%22%3A2%7D"
        assert await refused(twice) == bad
        # a valid initData with another table's link, from someone not in that group
        assert await refused(init_data(MALLORY, param=link(OTHER_CHAT))) == {
            "type": "error", "code": "no_table", "text": "There is no table here any more."}
        assert await refused(init_data(MALLORY, param=link())) == {
            "type": "error", "code": "not_member",
            "text": "This table is for the members of its group."}
        # a crafted link (a chat id with a tag of another chat)
        forged = f"{CHAT}_{link(OTHER_CHAT).split('_', 1)[1]}"
        assert (await refused(init_data(ANN, param=forged)))["code"] == "no_table"
        assert (await refused(json.dumps({"nope": 1})))["code"] == "auth"


async def post(session: aiohttp.ClientSession, url: str, data: str, body: dict[str, Any]
               ) -> tuple[int, dict[str, Any]]:
    async with session.post(url + "api/act", json=body,
                            headers={"Authorization": f"tma {data}"}) as resp:
        return resp.status, await resp.json()


async def test_a_coup_through_the_pages(served: Any) -> None:
    host, bot, _, url = served
    record_hidden(host)
    await seated_coup(host, bot)
    async with aiohttp.ClientSession() as session:
        pages = {p: await open_page(session, url, init_data(p, param=link()))
                 for p in (ANN, BOB, CID, EVE)}
        snaps = {p: await page.next() for p, page in pages.items()}
        ann = snaps[ANN]
        assert [(s["name"], s["stack"]) for s in ann["table"]["seats"]] == [
            ("Ann", 1000), ("Bob", 1000), ("Cid", 1000)]
        kinds = [a["kind"] for a in ann["actions"]]
        assert "start" in kinds and "leave" in kinds
        start = next(a for a in ann["actions"] if a["kind"] == "start")
        body = {"kind": "start", "coup": ann["table"]["coup"], "decision": ann["decision"],
                "key": "start-key-0001"}
        code, answer = await post(session, url, init_data(ANN, param=link()), body)
        assert (code, answer["ok"]) == (200, True), answer
        assert start["input"] == "plain"
        # the same key again: the same truth, nothing applied twice
        version = answer["snapshot"]["version"]
        code, again = await post(session, url, init_data(ANN, param=link()), body)
        assert (again["ok"], again["text"], again["snapshot"]["version"]) == (
            True, answer["text"], version)
        # every page follows: a snapshot at the new version, pushed
        for page in pages.values():
            await page.next(lambda f: f.get("version", 0) >= version)

        # play on through the pages until the coup is settled: each awaited player takes
        # his first amount offered (its first preset), else his first action
        for _ in range(60):
            snap = await current(session, url, ANN)
            if snap["table"]["result"] is not None:
                break
            awaited = snap["table"]["awaiting"]
            if not awaited:
                break
            who = awaited[0]
            mine = await current(session, url, who)
            act = next((a for a in mine["actions"] if a["input"] == "amount"), None) or next(
                a for a in mine["actions"] if a["input"] != "utility")
            body = {"kind": act["kind"], "coup": mine["table"]["coup"],
                    "decision": mine["decision"], "key": f"key-{who}-{mine['version']}-page"}
            if act["input"] == "amount":
                body["amount"] = act["presets"][0]
            if act["choices"] and act["input"] in ("choice", "amount"):
                body["choice"] = 0
            code, answer = await post(session, url, init_data(who, param=link()), body)
            assert answer["ok"], (act, answer)
        final = await current(session, url, ANN)
        assert final["table"]["result"] is not None
        nets = final["table"]["result"]["nets"]
        assert sum(n["net"] for n in nets) == 0  # chips are conserved
        await host.idle()
        assert sum(len(c) for c in host.hidden.values()) > 0  # the oracle saw hidden cards
        # no frame any page got holds a card another seat held hidden when it was sent
        for viewer, page in pages.items():
            for frame in page.frames:
                if frame.get("type") != "snapshot":
                    continue
                shown = {c for s in frame["table"]["seats"] for c in s["face_up"]}
                shown |= set(frame["me"]["cards"]) if viewer != EVE else set()
                assert frame["me"]["cards"] == [] or viewer != EVE
                text = json.dumps(frame)
                for other in (ANN, BOB, CID):
                    if other == viewer:
                        continue
                    for card in hidden_of(host, other, frame["version"]):
                        if card not in shown:
                            assert f'"{card}"' not in text, (viewer, other, card)


def hidden_of(host: Any, player: int, version: int) -> tuple[str, ...]:
    """The oracle: the cards ``player`` held hidden at ``version`` (his own view's, from the
    engine's state as committed; :func:`record_hidden` kept them)."""
    return host.hidden.get((player, version), ())


def record_hidden(host: Any) -> None:
    """Keep every seat's hidden cards at every committed version, from the engine."""
    host.hidden = {}

    class Recording(Hooks):
        def hidden_cards(self, chat_id: int, engine: Engine[Any], state: GameState) -> None:
            for seat in engine.view(state, None).seats:
                host.hidden[(seat.player, state.version)] = engine.view(
                    state, seat.player).my_cards

    host.tables.hooks = Recording()


async def current(session: aiohttp.ClientSession, url: str, player: int) -> dict[str, Any]:
    """``player``'s snapshot now (a fresh page)."""
    page = await open_page(session, url, init_data(player, param=link()))
    frame = await page.next()
    await page.ws.close()
    return frame


async def test_bad_actions_change_nothing(served: Any) -> None:
    host, bot, _, url = served
    await seated_coup(host, bot)
    async with aiohttp.ClientSession() as session:
        snap = await current(session, url, ANN)
        before = snap["version"]
        data = init_data(ANN, param=link())
        base = {"kind": "start", "coup": snap["table"]["coup"], "decision": snap["decision"],
                "key": "bad-key-0001"}
        for body, status_code, text in (
                ({**base, "amount": -5}, 400, "That is not an action this table knows."),
                ({**base, "amount": "5"}, 400, "That is not an action this table knows."),
                ({**base, "amount": 10**30}, 400, "That is not an action this table knows."),
                ({**base, "extra": 1}, 400, "That is not an action this table knows."),
                ({**base, "kind": "\ud800"}, 400, "That is not an action this table knows."),
                ({**base, "key": "short"}, 400, "That is not an action this table knows."),
                ({**base, "kind": "fly"}, 200, None),
                ({**base, "decision": snap["decision"] + 5}, 200, None)):
            code, answer = await post(session, url, data, body)
            assert code == status_code, (body, answer)
            assert answer["ok"] is False
            if text is not None:
                assert answer["text"] == text
        # Eve, a member who is not seated, may not start the coup
        code, answer = await post(session, url, init_data(EVE, param=link()), base)
        assert (code, answer["ok"]) == (200, False)
        # no initData at all
        async with session.post(url + "api/act", json=base) as resp:
            assert resp.status == 403
        # a body over the limit: refused in the protocol's JSON, as any bad body is
        async with session.post(url + "api/act", json={**base, "key": "k" * 5000},
                                headers={"Authorization": f"tma {data}"}) as resp:
            assert (resp.status, resp.content_type) == (413, "application/json")
            assert await resp.json() == {"ok": False,
                                         "text": "That is not an action this table knows."}
        assert (await current(session, url, ANN))["version"] == before


async def test_a_closed_table_stays_on_its_pages_until_the_chat_opens_the_next(
        served: Any) -> None:
    host, bot, _, url = served
    await seated_coup(host, bot)
    closed = {"type": "closed",
              "text": "The table is closed; every chip went back to the wallets."}
    async with aiohttp.ClientSession() as session:
        ann = await open_page(session, url, init_data(ANN, param=link()))
        eve = await open_page(session, url, init_data(EVE, param=link(), lang="ru"))
        for page in (ann, eve):
            assert (await page.next())["type"] == "snapshot"
        assert await host.lifecycle.close_table(CHAT) is None
        assert await ann.next() == closed
        assert await eve.next() == {"type": "closed",
                                    "text": "Стол закрыт; все фишки вернулись в кошельки."}
        # a page opened again while there is none: closed, and it stays for the next table;
        # someone not in the group is told there is no table
        bob = await open_page(session, url, init_data(BOB, param=link()))
        assert await bob.next() == closed
        mallory = await open_page(session, url, init_data(MALLORY, param=link()))
        assert (await mallory.next())["code"] == "no_table"
        # an action from a closed table's page is refused, as there is no table
        status, answer = await post(session, url, init_data(ANN, param=link()), {
            "table": None, "kind": "join", "coup": 0, "decision": 0, "key": "k-closed-01"})
        assert (status, answer["code"], answer["text"]) == (
            403, "no_table", "There is no table here any more.")

        # the chat's next table shows on every page, from its first step
        assert await host.lifecycle.open_table(CHAT, "baccarat", ANN, "en") is None
        for page in (ann, eve, bob):
            snap = await page.next()
            assert (snap["type"], snap["table"]["game"], snap["me"]["seated"]) == (
                "snapshot", "baccarat", False)
            assert [a["kind"] for a in snap["actions"]] == ["join"]


async def test_a_page_words_the_table_as_the_chat_does(served: Any) -> None:
    """Through the pages, a coup of chemin de fer: the idle table's phase, every awaited
    player's buttons (the words and the order of his private keyboard, amounts on them) and
    the settled coup's hands and number read on the page as in the chat."""
    host, bot, _, url = served
    await seated_coup(host, bot)
    async with aiohttp.ClientSession() as session:
        idle = await current(session, url, EVE)
        assert idle["table"]["phase"] == "waiting for players"
        assert "· waiting for players" in table_message(bot).text
        start = await current(session, url, ANN)
        await post(session, url, init_data(ANN, param=link()), {
            "kind": "start", "coup": 0, "decision": start["decision"], "key": "start-words"})
        compared = 0
        for n in range(60):
            snap = await current(session, url, EVE)
            if snap["table"]["result"] is not None or not snap["table"]["awaiting"]:
                break
            who = snap["table"]["awaiting"][0]
            mine = await current(session, url, who)
            table = host.tables.tables[CHAT]
            keyboard = screens.decision_keyboard("en", CHAT, table.sight, who,
                                                 table.meta.decision, True)
            assert keyboard is not None
            # each kind's first button in the chat, in order; an amount's words around it
            chat: dict[str, str] = {}
            for row in keyboard.inline_keyboard:
                for b in row:
                    pressed = codec.decode(b.callback_data)
                    if isinstance(pressed, codec.ActionButton) and not pressed.ask:
                        chat.setdefault(pressed.kind, b.text)
            page = {a["kind"]: a["confirm"].replace("{amount}", str(a["presets"][0]))
                    if a["input"] == "amount" else a["label"] for a in mine["actions"]}
            assert list(page) == list(chat) and page == chat, (page, chat)
            compared += 1
            act = next((a for a in mine["actions"] if a["input"] == "amount"), None) or next(
                a for a in mine["actions"] if a["input"] != "utility")
            body = {"kind": act["kind"], "coup": mine["table"]["coup"],
                    "decision": mine["decision"], "key": f"page-words-{n}",
                    "amount": act["presets"][0] if act["input"] == "amount" else None}
            code, answer = await post(session, url, init_data(who, param=link()), body)
            assert (code, answer["ok"]) == (200, True), (act, answer)
        assert compared >= 4
        await host.idle()
        result = (await current(session, url, EVE))["table"]["result"]
        assert result is not None
        settlement = next(m.text for m in bot.chat(CHAT) if m.text.startswith("🏆"))
        assert f"Chemin de fer · coup #{result['coup']} settled" in settlement
        # the hands, worded as the group's result has them (its log's first lines)
        assert result["hands"] and all(line.startswith(("Ann", "Bob", "Cid"))
                                       and "points" in line for line in result["hands"])
        shown = settlement.split("<blockquote expandable>")[1].split("\n")
        assert shown[:len(result["hands"])] == result["hands"]


async def test_a_leave_from_the_page_reads_as_in_the_chat(served: Any) -> None:
    """The banker leaves from his page in the middle of a coup: his seat says he is
    leaving, and the coup's last lines (the page shows them, as the table message does)
    say it in the chat's words."""
    host, bot, _, url = served
    await seated_coup(host, bot)
    async with aiohttp.ClientSession() as session:
        start = await current(session, url, ANN)
        await post(session, url, init_data(ANN, param=link()), {
            "kind": "start", "coup": 0, "decision": start["decision"], "key": "start-leave"})
        for n in range(20):
            snap = await current(session, url, EVE)
            if snap["table"]["phase"] == "punter draw":
                break
            who = snap["table"]["awaiting"][0]
            mine = await current(session, url, who)
            act = next(a for k in ("bid", "cut", "stake", "banco") for a in mine["actions"]
                       if a["kind"] == k)
            await post(session, url, init_data(who, param=link()), {
                "kind": act["kind"], "coup": mine["table"]["coup"],
                "decision": mine["decision"], "key": f"to-draw-{n}",
                "amount": act["presets"][0] if act["input"] == "amount" else None})
        banker = next(s for s in snap["table"]["seats"] if s["role"] == "banker")["player"]
        mine = await current(session, url, banker)
        code, answer = await post(session, url, init_data(banker, param=link()), {
            "kind": "leave", "coup": mine["table"]["coup"], "decision": mine["decision"],
            "key": "banker-leaves"})
        assert (code, answer["ok"]) == (200, True), answer
        await host.idle()
        seats = {s["name"]: s["status"] for s in answer["snapshot"]["table"]["seats"]}
        name = NAMES[banker]
        assert seats[name] == "leaving"
        line = f"{name} will leave after this coup"
        assert line in answer["snapshot"]["table"]["log"][-3:]
        chat = table_message(bot).text
        assert f"· {line}" in chat and f"{name} (banker) · 💰" in chat and "· leaving" in chat

"""The Mini App's profile and standings (bot/gateway/webapp/profile.py) on the real host
in-process: the real storage, seeded through its own API (tests/profile_seed.py), and
``initData`` signed as Telegram signs it.

What a player would notice: his profile is his own whatever the page asks, with the figures
/stats gives in his private chat, per game, his title and his net day by day; a chat's
standings are /top's, for its players only; a page Telegram did not sign gets nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import aiohttp
import init_data_py
import pytest
from profile_seed import ANN, BOB, CHAT, CID, DAN, OTHER, day, seed
from test_bot_tables import make_host  # noqa: F401 (a fixture)
from test_webapp_server import EVE, MALLORY, TOKEN, init_data, link, served  # noqa: F401

from bot.view import applink, profile
from storage.base import PlayerStats, Rating

BAD_INIT = "This page was not opened by Telegram, or too long ago. Open it again."
REFUSED = "These standings are for the players of their chat."

STATS = ["📊 <b>Ann</b> · all games · all chats", "Played: 7 coups · won 4 · lost 3",
         "Net: +10", "Biggest win: +50 · biggest loss: -100",
         "Banks held: 3 · longest run: 2", "Naturals: 1",
         "Best hand: two pair, aces and fives"]
TOP_ALL = ["🏆 <b>All time</b> · all games", "1. Ann — +110 (6 coups, 4 won)",
           "2. Cid — -35 (3 coups, 0 won)", "3. Bob — -75 (5 coups, 2 won)",
           "To be ranked, play 3 coups."]
TOP_WEEK = ["🏆 <b>Last 7 days</b> · all games", "1. Ann — +80 (4 coups, 3 won)",
            "2. Bob — -45 (3 coups, 1 won)", "To be ranked, play 3 coups."]
RATING_NONE = ["🎯 Poker rating · this chat", "Nobody is ranked yet.",
               "To be ranked, play 5 hands."]


async def get(session: aiohttp.ClientSession, url: str, data: str | None,
              **query: str) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"tma {data}"} if data is not None else {}
    async with session.get(url, params=query, headers=headers) as res:
        return res.status, await res.json()


@pytest.fixture
async def seeded(served: Any) -> Any:  # noqa: F811
    host, _bot, _web, url = served
    await seed(host.storage)
    return url


async def test_the_profile_is_the_signed_users_own_with_what_stats_says(seeded: str) -> None:
    async with aiohttp.ClientSession() as session:
        # a page's own claim of another user changes nothing: the signed user is asked for
        status, ann = await get(session, seeded + "api/profile", init_data(ANN),
                                user="2", user_id="2")
    assert status == 200 and ann["ok"] and ann["name"] == "Ann" and ann["lang"] == "en"
    assert ann["stats"] == STATS
    assert [(g["game"], g["name"], g["lines"]) for g in ann["games"]] == [
        ("chemin_de_fer", "Chemin de fer", [
            "📊 <b>Ann</b> · Chemin de fer · all chats", "Played: 6 coups · won 3 · lost 3",
            "Net: -30", "Biggest win: +50 · biggest loss: -100",
            "Banks held: 3 · longest run: 2", "Naturals: 1"]),
        ("draw_poker", "Draw poker (jackpots)", [
            "📊 <b>Ann</b> · Draw poker (jackpots) · all chats", "Played: 1 coup · won 1 · lost 0",
            "Net: +40", "Biggest win: +40 · biggest loss: 0",
            "Best hand: two pair, aces and fives"])]
    assert ann["titles"] == ["🏆 Champion of Casino Royale, October 2026"]
    # net day by day, summed: +50, then -20 and -100, then +30 and +40, then -5 and +15
    assert ann["chart"] == [{"day": day(40).isoformat(), "net": 50},
                            {"day": day(10).isoformat(), "net": -70},
                            {"day": day(3).isoformat(), "net": 0},
                            {"day": day(0).isoformat(), "net": 10}]
    assert ann["achievements"] == [{
        "line": "🌟 <b>First natural</b> — eight or nine points on the first two cards",
        "where": "Chemin de fer · Casino Royale"}]
    # her one draw poker hand, rated as /stats words it (openskill's ordinal after it)
    assert ann["ratings"] == ["🎯 Poker rating in «Casino Royale»: 3.4 (1 hand)"]
    assert {c["id"]: c["name"] for c in ann["chats"]} == {CHAT: "Casino Royale",
                                                          OTHER: "Back Room"}
    assert ann["ui"]["achievements_none"] == "No achievements yet."
    assert ann["ui"]["rating_none"] == "No rated poker hands yet."


async def test_the_profile_in_russian_for_a_russian_reader(seeded: str) -> None:
    async with aiohttp.ClientSession() as session:
        status, ann = await get(session, seeded + "api/profile", init_data(ANN, lang="ru"))
    assert status == 200 and ann["lang"] == "ru"
    assert ann["stats"][:3] == ["📊 <b>Ann</b> · все игры · все чаты",
                                "Сыграно: 7 конов · выиграно 4 · проиграно 3", "Итог: +10"]
    assert ann["titles"] == ["🏆 Чемпион чата «Casino Royale», октябрь 2026"]
    assert (ann["ui"]["profile"], ann["ui"]["standings"], ann["ui"]["achievements_none"]) == (
        "Профиль", "Лидеры", "Достижений пока нет.")


async def test_a_page_telegram_did_not_sign_gets_nothing(seeded: str) -> None:
    signed = init_data(ANN)
    forged = init_data_py.sign({"user": json.dumps({"id": ANN, "first_name": "Ann"})},
                               "654321:ANOTHER-BOT", auth_date=time.time())
    tampered = signed.replace("%22id%22%3A1%2C", "%22id%22%3A2%2C")
    assert tampered != signed
    stale = init_data(ANN, auth_date=time.time() - 7200)  # the server takes an hour
    async with aiohttp.ClientSession() as session:
        for data in (forged, tampered, stale, "", None):
            for path in ("api/profile", "api/standings"):
                status, body = await get(session, seeded + path, data)
                assert (status, body) == (403, {"ok": False, "code": "auth",
                                                "text": BAD_INIT}), (path, data)
        # worded in the language the page claims (a claim good enough for a refusal)
        russian = init_data(ANN, lang="ru", token="654321:ANOTHER-BOT")
        assert await get(session, seeded + "api/profile", russian) == (403, {
            "ok": False, "code": "auth",
            "text": "Эта страница открыта не из Telegram или слишком давно. Откройте её заново."})


async def test_a_chats_standings_are_top_s_for_its_players(seeded: str) -> None:
    async with aiohttp.ClientSession() as session:
        url = seeded + "api/standings"
        # opened from the table's link (its start_param), or from the page's own link
        status, board = await get(session, url, init_data(ANN, param=link(CHAT)))
        assert status == 200 and board["lines"] == TOP_ALL and board["rating"] == RATING_NONE
        assert (board["chat"], board["title"], board["period"], board["game"]) == (
            CHAT, "Casino Royale", "all", "")
        assert [p["name"] for p in board["periods"]] == ["Today", "Last 7 days",
                                                         "Last 30 days", "All time"]
        assert board["games"][:2] == [{"key": "", "name": "all games"},
                                      {"key": "chemin_de_fer", "name": "Chemin de fer"}]
        assert (await get(session, url, init_data(BOB), table=link(CHAT)))[1]["lines"] \
            == TOP_ALL
        week = await get(session, url, init_data(CID), chat=str(CHAT), period="week")
        assert week[1]["lines"] == TOP_WEEK
        today = await get(session, url, init_data(ANN), chat=str(CHAT), period="today")
        assert today[1]["lines"] == ["🏆 <b>Today</b> · all games", "Nobody is ranked yet.",
                                     "To be ranked, play 3 coups."]
        cdf = await get(session, url, init_data(ANN), chat=str(CHAT), period="month",
                        game="chemin_de_fer")
        assert cdf[1]["lines"] == [
            "🏆 <b>Last 30 days</b> · Chemin de fer", "1. Ann — +20 (4 coups, 2 won)",
            "2. Bob — +15 (3 coups, 2 won)", "3. Cid — -35 (3 coups, 0 won)",
            "To be ranked, play 3 coups."]
        # without a link, his first chat (the richest); a member without a wallet (Eve)
        # sees the group's standings, Telegram saying he is in it
        first = await get(session, url, init_data(ANN))
        assert first[1]["chat"] in (CHAT, OTHER) and first[0] == 200
        assert (await get(session, url, init_data(EVE), chat=str(CHAT)))[1]["lines"] == TOP_ALL
        # Dan plays in the back room only: its standings, not the casino's
        dan = await get(session, url, init_data(DAN), chat=str(OTHER))
        assert dan[1]["lines"] == ["🏆 <b>All time</b> · all games",
                                   "Nobody is ranked yet.", "To be ranked, play 3 coups."]
        assert dan[1]["title"] == "Back Room"


async def test_a_stranger_gets_no_chats_standings_whatever_he_names(seeded: str) -> None:
    async with aiohttp.ClientSession() as session:
        url = seeded + "api/standings"
        for data, query in (
                (init_data(MALLORY), {"chat": str(CHAT)}),
                (init_data(MALLORY), {"table": link(CHAT)}),
                (init_data(MALLORY, param=link(CHAT)), {}),
                (init_data(DAN), {"chat": str(CHAT)}),  # another chat's player
                (init_data(CID), {"chat": str(OTHER)}),
                (init_data(MALLORY), {"chat": "-100; DROP TABLE wallets"}),
                (init_data(MALLORY, param=applink.start_param(b"a guessed key", CHAT)), {})):
            status, body = await get(session, url, data, **query)
            assert (status, body) == (403, {"ok": False, "code": "not_member",
                                            "text": REFUSED}), query
        # a stranger to every chat has none to show, and is told so
        status, none = await get(session, url, init_data(MALLORY))
        assert (status, none["chat"], none["ui"]["no_chats"]) == (
            200, None, "You have not played in any chat yet.")
        bad = await get(session, url, init_data(ANN), chat=str(CHAT), period="yesterday")
        assert bad == (400, {"ok": False, "code": "bad_request",
                             "text": "That is not an action this table knows."})


async def test_the_profile_of_a_player_with_no_coups(seeded: str) -> None:
    async with aiohttp.ClientSession() as session:
        status, eve = await get(session, seeded + "api/profile", init_data(EVE))
    assert status == 200
    assert eve["stats"] == ["📊 <b>Eve</b> · all games · all chats", "No settled coups yet."]
    assert (eve["games"], eve["titles"], eve["chart"], eve["chats"]) == ([], [], [], [])


@pytest.mark.parametrize(("lang", "mine", "board"), [
    ("en", "🎯 Poker rating in «Casino Royale»: 12.3 (31 hands)",
     ["🎯 Poker rating · this chat", "1. Ann — 12.3 (31 hands)", "2. Bob — -0.4 (1 hand)",
      "To be ranked, play 5 hands."]),
    ("ru", "🎯 Покерный рейтинг в чате «Casino Royale»: 12,3 (31 раздача)",
     ["🎯 Покерный рейтинг · этот чат", "1. Ann — 12,3 (31 раздача)",
      "2. Bob — -0,4 (1 раздача)", "Чтобы попасть в рейтинг, сыграйте 5 раздач."])])
def test_a_poker_rating_is_worded_as_the_chat_words_it(lang: str, mine: str,
                                                       board: list[str]) -> None:
    # the words, from figures: /stats' and /top rating's own
    ann = Rating(chat_id=CHAT, user_id=ANN, mu=30.0, sigma=5.9, hands=31, name="Ann")
    bob = Rating(chat_id=CHAT, user_id=BOB, mu=25.0, sigma=8.47, hands=1, name="Bob")
    page = profile.profile(lang, "Ann", PlayerStats(user_id=ANN), [], [], [],
                           [("Casino Royale", ann)], [], {CHAT: "Casino Royale"})
    assert page["ratings"] == [mine]
    assert profile.board(lang, CHAT, "Casino Royale", [], [ann, bob], period="all", game=None,
                         chats={})["rating"] == board

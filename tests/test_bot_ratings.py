"""The poker rating on /stats and /top rating: exact texts in English and Russian, from
seeded five-card stud hands played through the host (real SQLite storage, a recording
Telegram), each rating what openskill makes of the nets the hands' results showed."""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce
from test_bot_commands import HandlerBot
from test_bot_history import played, shown_nets
from test_bot_standings import send
from test_bot_tables import ANN, BOB, CHAT, CID, make_host

from bot.gateway import standings as commands
from bot.gateway.standings import top_args
from bot.view import ratings
from storage.base import Rating

__all__ = ["make_host"]  # fixture


def rated(mu: float, sigma: float, hands: int = 12, name: str = "Ann") -> Rating:
    return Rating(chat_id=CHAT, user_id=ANN, mu=mu, sigma=sigma, hands=hands, name=name)


def test_a_rating_is_its_ordinal_to_one_decimal_with_its_hands() -> None:
    ann = rated(30.0, 5.25, 31)  # 30 - 15.75 = 14.25
    assert ratings.stats_line("en", ann) == "🎯 Poker rating: 14.2 (31 hands)"
    assert ratings.stats_line("ru", ann) == "🎯 Покерный рейтинг: 14,2 (31 раздача)"
    assert ratings.stats_line("en", ann, "Casino Royale") \
        == "🎯 Poker rating in «Casino Royale»: 14.2 (31 hands)"
    assert ratings.stats_line("ru", rated(20.0, 7.0, 1), "Casino <Royale>") \
        == "🎯 Покерный рейтинг в чате «Casino &lt;Royale&gt;»: -1,0 (1 раздача)"
    assert ratings.ordinal("en", rated(24.96, 25 / 3)) == "0.0"  # -0.04, not "-0.0"
    assert ratings.ordinal("ru", rated(24.9, 25 / 3)) == "-0,1"


def test_top_rating_ranks_from_five_hands_and_says_so() -> None:
    rows = [rated(30.0, 5.25, 12), rated(26.0, 6.0, 5, "Bob")]
    assert ratings.top_text("en", rows) == (
        "🎯 Poker rating · this chat\n1. Ann — 14.2 (12 hands)\n2. Bob — 8.0 (5 hands)\n"
        "To be ranked, play 5 hands.")
    assert ratings.top_text("ru", rows) == (
        "🎯 Покерный рейтинг · этот чат\n1. Ann — 14,2 (12 раздач)\n2. Bob — 8,0 (5 раздач)\n"
        "Чтобы попасть в рейтинг, сыграйте 5 раздач.")
    assert ratings.top_text("en", []) == (
        "🎯 Poker rating · this chat\nNobody is ranked yet.\nTo be ranked, play 5 hands.")


def test_top_takes_rating_alone() -> None:
    assert top_args(["rating"]) == ("rating", None)
    assert top_args(["RATING"]) == ("rating", None)
    assert top_args(["rating", "stud"]) is None
    assert top_args(["stud", "rating"]) is None


def openskill_ordinals(nets: dict[tuple[int, int], int]) -> dict[int, tuple[float, int]]:
    """Each player's ordinal and hands, openskill rating the hands one by one in order, each
    player a team of one placed by his net (ties sharing a place)."""
    model = PlackettLuce()
    now: dict[int, Any] = {}
    hands: dict[int, int] = {}
    for hand in sorted({c for c, _ in nets}):
        players = sorted(p for c, p in nets if c == hand)
        places = [1 + sum(nets[(hand, o)] > nets[(hand, p)] for o in players) for p in players]
        teams = model.rate([[now.get(p, model.rating())] for p in players], ranks=places)
        for p, team in zip(players, teams, strict=True):
            now[p], hands[p] = team[0], hands.get(p, 0) + 1
    return {p: (r.ordinal(), hands[p]) for p, r in now.items()}


STATS_EN = {
    ANN: "📊 <b>Ann</b> · all games · this chat\nPlayed: 6 coups · won 1 · lost 5\nNet: -3\n"
         "Biggest win: +2 · biggest loss: -1\nShowdowns: 6\nShowdowns won: 1\n"
         "Best hand: a pair of queens\n🎯 Poker rating: 0.4 (6 hands)\n"
         "🏅 Achievements: 1 — First showdown",
    BOB: "📊 <b>Bob</b> · all games · this chat\nPlayed: 6 coups · won 1 · lost 5\nNet: -3\n"
         "Biggest win: +2 · biggest loss: -1\nShowdowns: 6\nShowdowns won: 1\n"
         "Best hand: a pair of eights\n🎯 Poker rating: 1.2 (6 hands)\n"
         "🏅 Achievements: 1 — First showdown",
    CID: "📊 <b>Cid</b> · all games · this chat\nPlayed: 6 coups · won 4 · lost 2\nNet: +6\n"
         "Biggest win: +2 · biggest loss: -1\nShowdowns: 6\nShowdowns won: 4\n"
         "Best hand: three treys\n🎯 Poker rating: 9.1 (6 hands)\n"
         "🏅 Achievements: 1 — First showdown"}
TOP_EN = ("🎯 Poker rating · this chat\n1. Cid — 9.1 (6 hands)\n2. Bob — 1.2 (6 hands)\n"
          "3. Ann — 0.4 (6 hands)\nTo be ranked, play 5 hands.")
TOP_RU = ("🎯 Покерный рейтинг · этот чат\n1. Cid — 9,1 (6 раздач)\n2. Bob — 1,2 (6 раздач)\n"
          "3. Ann — 0,4 (6 раздач)\nЧтобы попасть в рейтинг, сыграйте 5 раздач.")


async def test_stats_and_top_rating_of_seeded_stud_hands_are_what_openskill_makes_of_them(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await played(make_host, monkeypatch, "stud_poker", "rating-stud_poker", 6,
                             {"ante": 1})
    shown = shown_nets(bot)
    assert shown == {(1, ANN): 2, (1, BOB): -1, (1, CID): -1, (2, CID): 2, (2, ANN): -1,
                     (2, BOB): -1, (3, CID): 2, (3, ANN): -1, (3, BOB): -1, (4, CID): 2,
                     (4, BOB): -1, (4, ANN): -1, (5, BOB): 2, (5, CID): -1, (5, ANN): -1,
                     (6, CID): 2, (6, ANN): -1, (6, BOB): -1}
    expected = openskill_ordinals(shown)
    # the same nets, in another order: Bob won the later hand, so he stands above Ann
    assert {p: (f"{o:.1f}", n) for p, (o, n) in expected.items()} == {
        ANN: ("0.4", 6), BOB: ("1.2", 6), CID: ("9.1", 6)}
    tg = HandlerBot()
    for player in (ANN, BOB, CID):
        assert await send(host, tg, commands.cmd_stats, "/stats", player) == [STATS_EN[player]]
    assert await send(host, tg, commands.cmd_stats, "/stats stud", CID) \
        == [STATS_EN[CID].replace("all games", "Five-card stud")]
    assert await send(host, tg, commands.cmd_stats, "/stats chemin de fer", CID) \
        == ["📊 <b>Cid</b> · Chemin de fer · this chat\nNo settled coups yet."]
    assert await send(host, tg, commands.cmd_stats, "/stats", CID, private=True) == [
        STATS_EN[CID].replace("this chat", "all chats").replace(
            "Poker rating:", "Poker rating in «a group with a Five-card stud table»:")]
    assert await send(host, tg, commands.cmd_top, "/top rating") == [TOP_EN]
    assert await send(host, tg, commands.cmd_top, "/top rating stud") == [
        "Try: /top [today|week|month|season|all] [game], /top chips for the richest, or "
        "/top rating for the poker rating."]

    await host.lifecycle.set_language(CHAT, "ru")
    assert await send(host, tg, commands.cmd_top, "/top rating") == [TOP_RU]
    assert (await send(host, tg, commands.cmd_stats, "/stats", CID))[0].endswith(
        "\nЛучшая комбинация: тройка троек\n🎯 Покерный рейтинг: 9,1 (6 раздач)"
        "\n🏅 Достижения: 1 — Первое вскрытие")
    # recomputed from the recorded hands alone, the ratings are the same
    before = await host.storage.ratings(chat_id=CHAT)
    assert await host.storage.rebuild_stats() == 6
    assert await host.storage.ratings(chat_id=CHAT) == before
    assert await send(host, tg, commands.cmd_top, "/top rating") == [TOP_RU]


async def test_a_player_without_rated_hands_has_no_rating_line(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "twenty_one", "rating-twenty_one", 2)
    tg = HandlerBot()
    for private in (False, True):
        said = await send(host, tg, commands.cmd_stats, "/stats", ANN, private=private)
        assert said[0].startswith("📊 <b>Ann</b> · all games") and "🎯" not in said[0]
    assert await send(host, tg, commands.cmd_top, "/top rating") == [
        "🎯 Poker rating · this chat\nNobody is ranked yet.\nTo be ranked, play 5 hands."]

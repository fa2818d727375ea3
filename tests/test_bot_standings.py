"""/stats and /top: what a step records of the coup it settles, the texts from the figures
derived from those records (exact, in English and Russian), their arguments, and seeded
games played through the host (real SQLite storage, a recording Telegram) read back with
the commands as players send them."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Update
from test_bot_commands import HandlerBot
from test_bot_history import played, shown_nets
from test_bot_tables import ANN, BOB, CHAT, CID, NAMES, Host, make_host
from test_seventh_game import high_card

from bot import compose
from bot.gateway import standings as commands
from bot.gateway.context import BotData
from bot.gateway.standings import StatsAsk, stats_args, top_args
from bot.table.plan import settled_coups
from bot.view import standings
from games.engine import Hand, Points, settlement
from storage.base import PlayerStats, SettledCoup, Standing

__all__ = ["high_card", "make_host"]  # fixtures

ROOT = Path(__file__).resolve().parents[1]


async def send(host: Host, tg: HandlerBot, handler: Any, text: str, user: int = ANN, *,
               private: bool = False, reply_to: int | None = None,
               mention: tuple[int, str] | None = None) -> list[str]:
    """``user`` sends ``text`` in the group (``private``: in his private chat with the bot),
    as a reply to a message of ``reply_to``, or naming ``mention`` (a member's id and name)
    by a text mention after the command; the texts the handler answered with."""
    chat = ({"id": user, "type": "private", "first_name": NAMES[user]} if private
            else {"id": CHAT, "type": "supergroup", "title": "Table"})
    words = text.split()
    if mention is not None:
        text = f"{words[0]} {mention[1]} {' '.join(words[1:])}".strip()
    entities = [{"type": "bot_command", "offset": 0, "length": len(words[0])}]
    if mention is not None:
        entities.append({"type": "text_mention", "offset": len(words[0]) + 1,
                         "length": len(mention[1]),
                         "user": {"id": mention[0], "is_bot": False, "first_name": mention[1]}})
    message: dict[str, Any] = {
        "message_id": 50, "date": 0, "text": text, "entities": entities, "chat": chat,
        "from": {"id": user, "is_bot": False, "first_name": NAMES[user]}}
    if reply_to is not None:
        message["reply_to_message"] = {
            "message_id": 40, "date": 0, "text": "hi", "chat": chat,
            "from": {"id": reply_to, "is_bot": False, "first_name": NAMES[reply_to]}}
    update = Update.de_json({"update_id": 1, "message": message}, tg)  # type: ignore[arg-type]
    context = SimpleNamespace(args=text.split()[1:], bot=tg, bot_data=BotData(
        services=compose.services(host, daily_bonus=100)))
    before = len(tg.said)
    await handler(update, context)
    return [s.text for s in tg.said[before:]]



# ----------------------------------------------------------- what a step records


def test_a_settlement_is_recorded_as_the_coup_its_step_settles_hands_as_json_has_them(
        ) -> None:
    won = settlement("coup_settled", coup=7, nets={ANN: 30, BOB: -10, CID: -20},
                     banker=BOB, winners=[ANN],
                     hands={ANN: Hand(category="full_house", ranks=(12, 3)),
                            BOB: Points(n=23, bust=True)},
                     feats={ANN: ["natural", "banco_won"], BOB: [], CID: ["bust"]})
    assert settled_coups("chemin_de_fer", 1700000000.5, 1700000100.25, [won]) == (SettledCoup(
        game="chemin_de_fer", coup=7, opened=1700000000.5, settled_at=1700000100.25,
        banker=BOB, nets={ANN: 30, BOB: -10, CID: -20}, winners=(ANN,),
        hands={ANN: {"category": "full_house", "ranks": [12, 3]},
               BOB: {"n": 23, "bust": True}},
        feats={ANN: ("natural", "banco_won"), CID: ("bust",)}),)
    # a step that settles nothing records nothing
    assert settled_coups("chemin_de_fer", 1.0, 2.0, []) == ()


# ----------------------------------------------------------- the texts, from figures

FIGURES = PlayerStats(user_id=ANN, coups=21, won=11, lost=8, net=340, best=200, worst=-150,
                      banks=4, longest_bank=3, feats={"hc_doubled": 5, "lucky_seven": 1},
                      best_hand={"category": "full_house", "ranks": [11, 3]})


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "📊 <b>Ann &amp; co</b> · High card · this chat\n"
           "Played: 21 coups · won 11 · lost 8\nNet: +340\n"
           "Biggest win: +200 · biggest loss: -150\nBanks held: 4 · longest run: 3\n"
           "Doubled: 5\nLucky seven: 1\nBest hand: a full house, kings over fives"),
    ("ru", "📊 <b>Ann &amp; co</b> · Старшая карта · этот чат\n"
           "Сыграно: 21 кон · выиграно 11 · проиграно 8\nИтог: +340\n"
           "Крупнейший выигрыш: +200 · крупнейший проигрыш: -150\n"
           "Банков: 4 · самая длинная серия: 3\n"
           "Удвоения: 5\nLucky seven: 1\n"
           "Лучшая комбинация: фулл-хаус: тройка королей и пара пятёрок")])
def test_stats_word_every_figure_and_every_feat_by_the_games_labels_none_dropped(
        high_card: None, lang: str, expected: str) -> None:
    # "lucky_seven" is a feat no text labels: counted and shown by its name all the same
    assert standings.stats_text(lang, "Ann & co", FIGURES, game="high_card",
                                everywhere=False) == expected


@pytest.mark.parametrize(("lang", "game", "expected"), [
    ("en", "twenty_one", ["Two-card 21s: 2", "Busts: 1"]),
    ("en", None, ["Naturals: 2", "Busts: 1"]),
    ("ru", "twenty_one", ["21 с двух карт: 2", "Переборы: 1"]),
    ("ru", None, ["Натуральные: 2", "Переборы: 1"])])
def test_a_feat_is_worded_by_the_game_asked_for_and_by_the_shared_word_over_all_games(
        lang: str, game: str | None, expected: list[str]) -> None:
    # twenty-one names its naturals its own way; over every game they are naturals
    assert standings.feat_lines(lang, {"bust": 1, "natural": 2}, game) == expected


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "📊 <b>Bob</b> · all games · all chats\nPlayed: 1 coup · won 0 · lost 1\n"
           "Net: -5\nBiggest win: 0 · biggest loss: -5"),
    ("ru", "📊 <b>Bob</b> · все игры · все чаты\nСыграно: 1 кон · выиграно 0 · проиграно 1\n"
           "Итог: -5\nКрупнейший выигрыш: 0 · крупнейший проигрыш: -5")])
def test_stats_leave_out_banks_nobody_held_and_hands_nobody_showed(
        lang: str, expected: str) -> None:
    one = PlayerStats(user_id=BOB, coups=1, lost=1, net=-5, worst=-5)
    assert standings.stats_text(lang, "Bob", one, game=None, everywhere=True) == expected
    assert standings.stats_text(lang, "Bob", PlayerStats(user_id=BOB), game=None,
                                everywhere=True) == expected.split("\n")[0] + "\n" + {
        "en": "No settled coups yet.", "ru": "Сыгранных конов пока нет."}[lang]


@pytest.mark.parametrize(("lang", "expected", "nobody"), [
    ("en", "🏆 <b>Last 7 days</b> · Chemin de fer\n1. Cid — +40 (5 coups, 3 won)\n"
           "2. Ann — 0 (22 coups, 10 won)\n3. Bob — -40 (3 coups, 1 won)\n"
           "To be ranked, play 3 coups.",
     "🏆 <b>Today</b> · all games\nNobody is ranked yet.\nTo be ranked, play 3 coups."),
    ("ru", "🏆 <b>Последние 7 дней</b> · Шмен де фер\n1. Cid — +40 (5 конов, выиграно 3)\n"
           "2. Ann — 0 (22 кона, выиграно 10)\n3. Bob — -40 (3 кона, выиграно 1)\n"
           "Чтобы попасть в рейтинг, сыграйте 3 кона.",
     "🏆 <b>Сегодня</b> · все игры\nВ рейтинге пока никого.\n"
     "Чтобы попасть в рейтинг, сыграйте 3 кона.")])
def test_top_ranks_by_net_with_coups_and_wins_and_says_what_ranks_a_player(
        lang: str, expected: str, nobody: str) -> None:
    rows = [Standing(user_id=CID, name="Cid", coups=5, won=3, net=40),
            Standing(user_id=ANN, name="Ann", coups=22, won=10, net=0),
            Standing(user_id=BOB, name="Bob", coups=3, won=1, net=-40)]
    assert standings.top_text(lang, rows, period="week", game="chemin_de_fer") == expected
    assert standings.top_text(lang, [], period="today", game=None) == nobody


def test_a_period_is_its_utc_days_today_included() -> None:
    today = dt.date(2026, 11, 28)
    assert standings.period_days("today", today) == (today, today)
    assert standings.period_days("week", today) == (dt.date(2026, 11, 22), today)
    assert standings.period_days("month", today) == (dt.date(2026, 10, 30), today)
    assert standings.period_days("all", today) == (None, None)


# ----------------------------------------------------------- their arguments


def test_stats_take_a_game_as_players_call_it_and_a_name_before_or_after_it() -> None:
    assert stats_args([]) == StatsAsk()
    assert stats_args(["очко"]) == StatsAsk("twenty_one")
    assert stats_args(["Chemin", "de", "fer"]) == StatsAsk("chemin_de_fer")
    assert stats_args(["@Ann"]) == StatsAsk(None, "Ann")
    assert stats_args(["@Ann", "Smith"]) == StatsAsk(None, "Ann Smith")
    assert stats_args(["@Ann", "Smith", "chemin", "de", "fer"]) == StatsAsk(
        "chemin_de_fer", "Ann Smith")
    assert stats_args(["stud", "@Ann", "Smith"]) == StatsAsk("stud_poker", "Ann Smith")
    assert stats_args(["poker?"]) is None  # no game of that name
    assert stats_args(["Ann"]) is None  # a name is asked for with @


def test_top_takes_a_period_first_or_last_and_a_game() -> None:
    assert top_args([]) == ("all", None)
    assert top_args(["week"]) == ("week", None)
    assert top_args(["Today", "очко"]) == ("today", "twenty_one")
    assert top_args(["chemin", "de", "fer", "month"]) == ("month", "chemin_de_fer")
    assert top_args(["stud"]) == ("all", "stud_poker")
    assert top_args(["chips"]) == ("chips", None)
    assert top_args(["chips", "stud"]) is None  # the richest are the chat's, every game's
    assert top_args(["yesterday"]) is None
    assert top_args(["week", "month"]) is None


# ----------------------------------------------------------- seeded coups, read back

STATS_EN = {
    ANN: "📊 <b>Ann</b> · all games · this chat\nPlayed: 3 coups · won 0 · lost 2\nNet: -2\n"
         "Biggest win: 0 · biggest loss: -1\nBanks held: 1 · longest run: 1\nNaturals: 1\n"
         "🏅 Achievements: 1 — First natural",
    BOB: "📊 <b>Bob</b> · all games · this chat\nPlayed: 3 coups · won 0 · lost 2\nNet: -2\n"
         "Biggest win: 0 · biggest loss: -1\nBancos called: 1",
    CID: "📊 <b>Cid</b> · all games · this chat\nPlayed: 4 coups · won 3 · lost 0\nNet: +4\n"
         "Biggest win: +2 · biggest loss: 0\nBanks held: 3 · longest run: 3\nNaturals: 3\n"
         "Bancos called: 1\nBancos won: 1\nBancos won on a natural nine: 1\n"
         "🏅 Achievements: 3 — First natural, Banco!, Banco natural"}
TOP_EN = ("🏆 <b>All time</b> · all games\n1. Cid — +4 (4 coups, 3 won)\n"
          "2. Ann — -2 (3 coups, 0 won)\n3. Bob — -2 (3 coups, 0 won)\n"
          "To be ranked, play 3 coups.")
STATS_RU = {
    CID: "📊 <b>Cid</b> · все игры · этот чат\nСыграно: 4 кона · выиграно 3 · проиграно 0\n"
         "Итог: +4\nКрупнейший выигрыш: +2 · крупнейший проигрыш: 0\n"
         "Банков: 3 · самая длинная серия: 3\nНатуральные: 3\nОбъявленные банко: 1\n"
         "Выигранные банко: 1\nБанко, выигранные натуральной девяткой: 1\n"
         "🏅 Достижения: 3 — Первая натуральная, Банко!, Банко с девяткой"}
TOP_RU = ("🏆 <b>За всё время</b> · все игры\n1. Cid — +4 (4 кона, выиграно 3)\n"
          "2. Ann — -2 (3 кона, выиграно 0)\n3. Bob — -2 (3 кона, выиграно 0)\n"
          "Чтобы попасть в рейтинг, сыграйте 3 кона.")


async def test_stats_and_top_of_seeded_coups_are_what_the_results_showed(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await played(make_host, monkeypatch, "chemin_de_fer",
                             "standings-chemin_de_fer", 4)
    shown = shown_nets(bot)  # (coup, player) -> the net its result showed him
    assert shown == {(1, CID): 1, (1, ANN): -1, (2, CID): 1, (2, BOB): -1, (3, CID): 2,
                     (3, ANN): -1, (3, BOB): -1, (4, ANN): 0, (4, BOB): 0, (4, CID): 0}
    tg = HandlerBot()
    for player in (ANN, BOB, CID):
        assert await send(host, tg, commands.cmd_stats, "/stats", player) == [STATS_EN[player]]
        played_by = [n for (_, p), n in shown.items() if p == player]
        assert (f"Played: {len(played_by)} coups" in STATS_EN[player]
                and f"Net: {standings.signed(sum(played_by))}" in STATS_EN[player])
    assert await send(host, tg, commands.cmd_top, "/top") == [TOP_EN]

    # another player's: as a reply to his message, by @name, by a mention
    assert await send(host, tg, commands.cmd_stats, "/stats", ANN, reply_to=CID) \
        == [STATS_EN[CID]]
    assert await send(host, tg, commands.cmd_stats, "/stats @cid", BOB) == [STATS_EN[CID]]
    assert await send(host, tg, commands.cmd_stats, "/stats", BOB, mention=(CID, "Cid")) \
        == [STATS_EN[CID]]
    assert await send(host, tg, commands.cmd_stats, "/stats @Zed") \
        == ["Nobody called @Zed plays here. Reply to his message with /stats."]
    # a game's, and in a private chat all his chats'
    assert await send(host, tg, commands.cmd_stats, "/stats chemin de fer", CID) \
        == [STATS_EN[CID].replace("all games", "Chemin de fer")]
    assert await send(host, tg, commands.cmd_stats, "/stats stud @Cid") \
        == ["📊 <b>Cid</b> · Five-card stud · this chat\nNo settled coups yet."]
    assert await send(host, tg, commands.cmd_stats, "/stats", CID, private=True) \
        == [STATS_EN[CID].replace("this chat", "all chats")]
    assert await send(host, tg, commands.cmd_stats, "/stats poker?") == [
        "Try: /stats [game]; as a reply to someone's message, his; or /stats @name [game]."]

    # a period and a game; the richest; what /top takes
    assert await send(host, tg, commands.cmd_top, "/top week chemin de fer") \
        == [TOP_EN.replace("All time</b> · all games", "Last 7 days</b> · Chemin de fer")]
    assert await send(host, tg, commands.cmd_top, "/top stud") == [
        "🏆 <b>All time</b> · Five-card stud\nNobody is ranked yet.\n"
        "To be ranked, play 3 coups."]
    # the richest as before: wallet and table chips (a bank posted for the next coup is the
    # table's own account, in nobody's total)
    rich = await host.storage.leaderboard(chat_id=CHAT)
    assert [(w.name, w.balance + w.on_table) for w in rich] == [
        ("Cid", 1000), ("Ann", 998), ("Bob", 998)]
    assert await send(host, tg, commands.cmd_top, "/top chips") == [
        "Richest players:\n1. Cid — 1000\n2. Ann — 998\n3. Bob — 998"]
    assert await send(host, tg, commands.cmd_top, "/top yesterday") == [
        "Try: /top [today|week|month|season|all] [game], /top chips for the richest, or "
        "/top rating for the poker rating."]
    assert await send(host, tg, commands.cmd_top, "/top", private=True) \
        == ["This works in a group chat."]

    await host.lifecycle.set_language(CHAT, "ru")
    assert await send(host, tg, commands.cmd_stats, "/stats", CID) == [STATS_RU[CID]]
    assert await send(host, tg, commands.cmd_top, "/top") == [TOP_RU]

    # recomputed from the recorded coups alone, the figures are the same
    assert await host.storage.rebuild_stats() == 4
    assert await send(host, tg, commands.cmd_top, "/top") == [TOP_RU]
    await host.lifecycle.set_language(CHAT, "en")
    for player in (ANN, BOB, CID):
        assert await send(host, tg, commands.cmd_stats, "/stats", player) == [STATS_EN[player]]


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "📊 <b>Ann</b> · Five-card stud · this chat\nPlayed: 4 coups · won 2 · lost 2\n"
           "Net: +2\nBiggest win: +2 · biggest loss: -1\nShowdowns: 4\nShowdowns won: 2\n"
           "Best hand: a full house, deuces over jacks\n🎯 Poker rating: 4.6 (4 hands)\n"
           "🏅 Achievements: 2 — First showdown, Full house"),
    ("ru", "📊 <b>Ann</b> · Стад-покер · этот чат\n"
           "Сыграно: 4 кона · выиграно 2 · проиграно 2\nИтог: +2\n"
           "Крупнейший выигрыш: +2 · крупнейший проигрыш: -1\n"
           "Вскрытия: 4\nВыигранные вскрытия: 2\n"
           "Лучшая комбинация: фулл-хаус: тройка двоек и пара валетов\n"
           "🎯 Покерный рейтинг: 4,6 (4 раздачи)\n"
           "🏅 Достижения: 2 — Первое вскрытие, Фулл-хаус")])
async def test_stats_of_seeded_poker_hands_name_the_best_hand_shown(
        make_host: Any, monkeypatch: pytest.MonkeyPatch, lang: str,
        expected: str) -> None:
    host, _ = await played(make_host, monkeypatch, "stud_poker", "standings-stud_poker", 4,
                             {"ante": 1})
    await host.lifecycle.set_language(CHAT, lang)
    assert await send(host, HandlerBot(), commands.cmd_stats, "/stats stud") == [expected]


async def test_rebuild_stats_from_the_command_line_folds_every_recorded_coup(
        make_host: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    host, bot = await played(make_host, monkeypatch, "twenty_one", "standings-cli", 3)
    before = await host.storage.standings(chat_id=CHAT)
    coups = len({c for c, _ in shown_nets(bot)})
    await host.storage.close()  # the CLI is another process on the same file
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR")}
    done = subprocess.run([sys.executable, "-m", "bot.admin", "rebuild-stats"], text=True,
                          capture_output=True, timeout=120, cwd=ROOT,
                          env={**base, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path)})
    assert (done.returncode, done.stdout) == (0, f"{coups} coup(s) folded into the standings\n")
    await host.storage.open()
    assert await host.storage.standings(chat_id=CHAT) == before

"""Seasons through the host: a seeded game's month rolled over by a clock the test sets,
its one post delivered to the group, read again with /season 1, the titles on /stats, and
the chat's season chosen with /settings default season."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from test_bot_commands import HandlerBot
from test_bot_history import played
from test_bot_standings import STATS_EN, STATS_RU, send
from test_bot_tables import ANN, CHAT, CID, make_host

from bot.gateway import standings as commands
from bot.table import table_settings
from bot.table.seasons import Seasons, season_days
from bot.view.seasons import season_name

__all__ = ["make_host"]  # fixtures


def post_en(month: str) -> str:
    return (f"🏁 <b>Season 1 · {month}</b> is over\n"
            "🥇 Cid — +4 (4 coups)\n"
            "🥈 Ann — -2 (3 coups)\n"
            "🥉 Bob — -2 (3 coups)\n"
            "🏆 Champion: Cid (+4)\n"
            "🎲 Most coups: Cid (4 coups)\n"
            "🏦 Best banker: Cid (3 banks)\n"
            "A new season has begun: /season")


async def test_a_seeded_month_rolls_over_into_one_group_post_and_titles_on_stats(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, bot = await played(make_host, monkeypatch, "chemin_de_fer",
                             "standings-chemin_de_fer", 4)
    await host.storage.set_chat_title(chat_id=CHAT, title="Casino Royale")
    first, last = season_days("month", dt.datetime.now(dt.UTC).date())
    month = season_name("en", "month", first)
    after = dt.datetime.combine(last + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp()
    rollover = Seasons(host.storage, host.languages, host.doorbell, now=lambda: after)
    assert await Seasons(host.storage, host.languages, host.doorbell,
                         now=time.time).check() == []  # this month is not over
    before = len(bot.chat(CHAT))
    assert [s.number for s in await rollover.check()] == [1]
    assert await rollover.check() == []
    await host.idle()
    assert [m.text for m in bot.chat(CHAT)[before:]] == [post_en(month)]

    tg = HandlerBot()
    assert await send(host, tg, commands.cmd_season, "/season 1") == [post_en(month)]
    assert await send(host, tg, commands.cmd_season, "/season one") == [
        "Try: /season, or /season N for a past season."]
    assert await send(host, tg, commands.cmd_stats, "/stats", CID) == [
        STATS_EN[CID] + f"\n🏆 Champion of Casino Royale, {month}"
        f"\n🎲 Most coups in Casino Royale, {month}\n🏦 Best banker of Casino Royale, {month}"]
    assert await send(host, tg, commands.cmd_stats, "/stats", ANN) == [STATS_EN[ANN]]
    await host.lifecycle.set_language(CHAT, "ru")
    month_ru = season_name("ru", "month", first)
    assert await send(host, tg, commands.cmd_stats, "/stats", CID) == [
        STATS_RU[CID] + f"\n🏆 Чемпион чата «Casino Royale», {month_ru}"
        f"\n🎲 Больше всех конов в чате «Casino Royale», {month_ru}"
        f"\n🏦 Лучший банкир чата «Casino Royale», {month_ru}"]


async def test_the_chats_season_is_set_shown_and_forgotten_with_settings_default(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "chemin_de_fer",
                           "standings-chemin_de_fer", 1)
    tables = host.tables
    assert await table_settings.set_default(tables, CHAT, "season", "week") == (
        "Seasons in this chat: weekly.")
    assert await host.storage.chat_settings(chat_id=CHAT) == {"season": "week"}
    assert await table_settings.set_default(tables, CHAT, "season", "OFF") == (
        "Seasons in this chat: off.")
    assert await host.storage.chat_settings(chat_id=CHAT) == {"season": "off"}
    assert await table_settings.set_default(tables, CHAT, "season", "year") == (
        "Cannot set that: season: off | week | month | quarter")
    assert "season = off" in await table_settings.change(tables, CHAT, None, None)
    await host.lifecycle.set_language(CHAT, "ru")
    assert await table_settings.set_default(tables, CHAT, "season", "quarter") == (
        "Сезоны в этом чате: по кварталам.")
    assert await table_settings.set_default(tables, CHAT, "season", None) == (
        "Сезоны в этом чате: по месяцам.")
    assert await host.storage.chat_settings(chat_id=CHAT) == {}
    assert await send(host, HandlerBot(), commands.cmd_season, "/season 2") == [
        "Сезона 2 здесь нет; закончилось сезонов: 0."]


async def test_top_season_ranks_the_current_season_as_season_does_in_one_game_or_all(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "chemin_de_fer", "standings-chemin_de_fer", 4)
    first, last = season_days("month", dt.datetime.now(dt.UTC).date())
    title = (f"📅 <b>This season · {season_name('en', 'month', first)}</b>"
             f" ({first.isoformat()} – {last.isoformat()})")
    ranked = ("1. Cid — +4 (4 coups, 3 won)\n2. Ann — -2 (3 coups, 0 won)\n"
              "3. Bob — -2 (3 coups, 0 won)\nTo be ranked, play 3 coups.")
    tg = HandlerBot()
    season = await send(host, tg, commands.cmd_season, "/season")
    assert season == [f"{title}\n{ranked}"]
    assert await send(host, tg, commands.cmd_top, "/top season") == season
    assert await send(host, tg, commands.cmd_top, "/top chemin season") == [
        f"{title} · Chemin de fer\n{ranked}"]
    assert await send(host, tg, commands.cmd_top, "/top season 21") == [
        f"{title} · Twenty-one\nNobody is ranked yet.\nTo be ranked, play 3 coups."]

"""The Mini App's profile and standings pages in words: what /stats and /top say in the
chat (:mod:`bot.view.standings`, :mod:`bot.view.seasons`), line by line, so that the page
and the chat agree; and what only the page shows: the player's achievements, his poker
rating in each chat, and his net chips day by day for its chart.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from bot.view import i18n, seasons, standings
from bot.view import ratings as ratings_view
from games import registry
from storage.base import Earned, PlayerStats, Rating, SeasonTitle, Standing

UI_KEYS = ("app_profile", "app_standings", "app_loading", "app_by_game", "app_titles",
           "app_titles_none", "app_achievements", "app_achievements_none", "app_rating",
           "app_rating_none", "app_chart", "app_chart_none", "app_chat", "app_period",
           "app_game", "app_no_chats", "app_back_table", "app_network_error", "app_close")

MIN_HANDS = ratings_view.MIN_HANDS
"""The rated hands that rank a player on the chat's poker rating (as /top rating)."""


def ui(lang: str) -> dict[str, str]:
    """The pages' own words in ``lang``, plain text."""
    return {key.removeprefix("app_"): i18n.plain(i18n.t(lang, key)) for key in UI_KEYS}


def achievement_line(lang: str, earned: Earned, chat: str) -> dict[str, str]:
    """One achievement reached: its line (icon, title, what earns it, from the game's own
    texts) and where (the game, the chat)."""
    words = registry.texts_of(earned.game).achievements
    title, how = (words.get(lang, {}).get(earned.key) or words.get("en", {}).get(earned.key)
                  or (earned.key.replace("_", " ").capitalize(), ""))
    icon = next((a.icon for a in registry.achievements_of(earned.game) if a.key == earned.key),
                "🏅")
    return {"line": str(i18n.t(lang, "app_achievement_line", icon=icon, title=title, how=how)),
            "where": str(i18n.t(lang, "app_achievement_where",
                                game=i18n.game_name(lang, earned.game), chat=chat))}


def chart(days: Sequence[tuple[dt.date, int]]) -> list[dict[str, Any]]:
    """The net chart's points: each day he played, his net summed up to it."""
    total, points = 0, []
    for day, net in days:
        total += net
        points.append({"day": day.isoformat(), "net": total})
    return points


def profile(lang: str, name: str, overall: PlayerStats,
            games: Sequence[tuple[str, PlayerStats]], titles: Sequence[SeasonTitle],
            earned: Sequence[Earned], ratings: Sequence[tuple[str, Rating]],
            days: Sequence[tuple[dt.date, int]], chats: Mapping[int, str]) -> dict[str, Any]:
    """The profile page: /stats in private (all his chats), then the same per game he
    played; his titles as /stats lists them; his achievements; his poker rating in each
    chat where he has one (``ratings``: the chat's name and his rating); his net day by day;
    and his chats (id: name), whose standings the page offers."""
    untitled = str(i18n.t(lang, "chat_untitled"))
    return {
        "lang": i18n.lang_of(lang), "ui": ui(lang),
        "stats": standings.stats_text(lang, name, overall, game=None,
                                      everywhere=True).split("\n"),
        "games": [{"game": game, "name": i18n.game_name(lang, game),
                   "lines": standings.stats_text(lang, name, stats, game=game,
                                                 everywhere=True).split("\n")}
                  for game, stats in games],
        "titles": seasons.titles_lines(lang, titles),
        "achievements": [achievement_line(lang, e, chats.get(e.chat_id) or untitled)
                         for e in earned],
        "ratings": [ratings_view.stats_line(lang, r, chat or untitled) for chat, r in ratings],
        "chart": chart(days),
        "chats": [{"id": chat_id, "name": title or untitled} for chat_id, title in chats.items()],
    }


def board(lang: str, chat_id: int, chat: str, rows: Sequence[Standing],
          ratings: Sequence[Rating], *, period: str, game: str | None,
          chats: Mapping[int, str]) -> dict[str, Any]:
    """The standings page: /top of the chat over ``period`` in ``game`` (None: all), line
    by line as the chat shows it; its poker rating; the periods and games to pick from;
    and the reader's chats (id: name) to switch to."""
    untitled = str(i18n.t(lang, "chat_untitled"))
    return {
        "lang": i18n.lang_of(lang), "ui": ui(lang), "chat": chat_id, "title": chat or untitled,
        "period": period, "game": game or "",
        "lines": standings.top_text(lang, rows, period=period, game=game).split("\n"),
        "rating": ratings_view.top_text(lang, ratings).split("\n"),
        "periods": [{"key": p, "name": i18n.plain(i18n.t(lang, f"top_{p}"))}
                    for p in standings.PERIODS],
        "games": [{"key": "", "name": standings.games_label(lang, None)}, *(
            {"key": g, "name": i18n.game_name(lang, g)} for g in registry.GAMES)],
        "chats": [{"id": chat_id, "name": title or untitled} for chat_id, title in chats.items()],
    }

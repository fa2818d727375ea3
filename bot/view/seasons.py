"""Seasons in words: a season's name ("October 2026", "week 43, 2026", "Q4 2026"), its
group post (the podium and the titles, each with its figure), the current season's
standings (/season), and the titles a player took (on his /stats), in the reader's
language. A season's results are the JSON :mod:`bot.table.seasons` computed and storage
keeps (:attr:`storage.base.Season.results`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from bot.view import i18n
from bot.view.standings import MIN_COUPS, signed
from games.engine import Hand
from storage.base import Season, SeasonTitle, Standing

MEDALS = ("🥇", "🥈", "🥉")
"""The podium's places."""
TITLES = ("champion", "most_coups", "best_banker", "best_hand")
"""The titles of a season, in the order a player's are listed."""


def season_name(lang: str, kind: str, first_day: dt.date) -> str:
    """A season by the period it covers: its ISO week, its month or its quarter."""
    year, week, _ = first_day.isocalendar()
    if kind == "week":
        return str(i18n.t(lang, "season_week", week=week, year=year))
    if kind == "quarter":
        return str(i18n.t(lang, "season_quarter", quarter=(first_day.month + 2) // 3,
                          year=first_day.year))
    month = i18n.t(lang, f"month_{first_day.month}")
    return str(i18n.t(lang, "season_month", month=month, year=first_day.year))


def title_figure(lang: str, title: dict[str, Any]) -> dict[str, Any]:
    """A title's figure as its line names it: the champion's net, the most coups, the banks
    held, the best hand in words."""
    figure = title["figure"]
    match title["title"]:
        case "champion":
            return dict(net=signed(figure))
        case "most_coups":
            return dict(coups=i18n.count(lang, figure, "coup"))
        case "best_banker":
            return dict(banks=i18n.count(lang, figure, "bank"))
        case _:
            return dict(hand=i18n.hand_text(lang, Hand.model_validate(figure)))


def post_text(lang: str, season: Season) -> str:
    """A season's post: its number and name, the podium (net and coups), each title with
    its holder and figure, and that a new season has begun; or that nobody was ranked."""
    name = season_name(lang, season.kind, season.first_day)
    podium = season.results.get("podium", [])
    if not podium:
        return str(i18n.t(lang, "season_nobody", number=season.number, season=name))
    lines = [i18n.t(lang, "season_post_title", number=season.number, season=name)]
    lines += [i18n.t(lang, "season_podium", medal=medal, name=p["name"], net=signed(p["net"]),
                     coups=i18n.count(lang, p["coups"], "coup"))
              for medal, p in zip(MEDALS, podium, strict=False)]
    lines += [i18n.t(lang, f"season_{t['title']}", name=t["name"], **title_figure(lang, t))
              for t in season.results.get("titles", [])]
    lines.append(i18n.t(lang, "season_next"))
    return "\n".join(lines)


def current_text(lang: str, kind: str, first: dt.date, last: dt.date,
                 standings: Sequence[Standing], min_coups: int = MIN_COUPS,
                 game: str | None = None) -> str:
    """/season: the current season's name and days, and its standings so far (in ``game``
    alone, named after the days, if one is given: /top season [game])."""
    title = i18n.t(lang, "season_now_title", season=season_name(lang, kind, first),
                   first=first.isoformat(), last=last.isoformat())
    if game is not None:
        title = i18n.fill("{} · {}", title, i18n.game_name(lang, game))
    lines = [title]
    lines += [i18n.t(lang, "top_line", rank=rank, name=s.name, net=signed(s.net),
                     coups=i18n.count(lang, s.coups, "coup"), won=s.won)
              for rank, s in enumerate(standings, 1)] or [i18n.t(lang, "top_nobody")]
    lines.append(i18n.t(lang, "top_min", coups=i18n.count(lang, min_coups, "coup")))
    return "\n".join(lines)


def titles_lines(lang: str, titles: Sequence[SeasonTitle]) -> list[str]:
    """A player's titles, one a line: "🏆 Champion of Casino Royale, October 2026"; the
    newest season first, a season's in the order of :data:`TITLES`."""
    ordered = sorted(titles, key=lambda t: (-t.season.last_day.toordinal(), t.season.chat_id,
                                            TITLES.index(t.title)))
    return [str(i18n.t(lang, f"title_{t.title}",
                       chat=t.chat_title or i18n.t(lang, "chat_untitled"),
                       season=season_name(lang, t.season.kind, t.season.first_day)))
            for t in ordered]

"""Seasons: the SQL of a chat's ended seasons, written once for both backends (placeholders
by :class:`storage.standings.Marks`). A season is recorded with its results, the titles its
players took and its group post in one unit of work; ``seasons_once`` (chat, kind, first
day) makes a second recording of it write nothing, so the post goes once.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Season, SeasonTitle
from .standings import Marks, Query, Style

SEASON_COLUMNS = "chat_id, number, kind, first_day, last_day, posted_at, results"


def _epoch(day: dt.date) -> float:
    """The epoch time a UTC day starts at."""
    return dt.datetime.combine(day, dt.time(), dt.UTC).timestamp()


def coups_query(style: Style, chat_id: int, since: dt.date, until: dt.date) -> Query:
    """The chat's coups (their JSON) settled on the days from ``since`` to ``until``."""
    m = Marks(style)
    sql = (f"SELECT record FROM coups WHERE chat_id = {m(chat_id)}"
           f" AND settled_at >= {m(_epoch(since))}"
           f" AND settled_at < {m(_epoch(until + dt.timedelta(days=1)))} ORDER BY coup_id")
    return sql, m.args


def unseasoned_query(style: Style, kind: str, first_day: dt.date, last_day: dt.date) -> Query:
    """The chats that played on the season's days and have no such season recorded."""
    m = Marks(style)
    sql = ("SELECT DISTINCT d.chat_id FROM stat_days d"
           f" WHERE d.day >= {m(first_day.isoformat())} AND d.day <= {m(last_day.isoformat())}"
           " AND NOT EXISTS (SELECT 1 FROM seasons s WHERE s.chat_id = d.chat_id"
           f" AND s.kind = {m(kind)} AND s.first_day = {m(first_day.isoformat())})"
           " ORDER BY d.chat_id")
    return sql, m.args


def insert_season(style: Style, chat_id: int, kind: str, first_day: dt.date,
                  last_day: dt.date, posted_at: float, results: Mapping[str, Any]) -> Query:
    """Record a season numbered next in its chat; returns its number, or no row if it was
    recorded before (a number taken at once by another writer fails the unit instead)."""
    m = Marks(style)
    sql = (f"INSERT INTO seasons ({SEASON_COLUMNS})"
           f" SELECT {m(chat_id)}, COALESCE(MAX(number), 0) + 1, {m(kind)},"
           f" {m(first_day.isoformat())}, {m(last_day.isoformat())}, {m(posted_at)},"
           f" {m(json.dumps(dict(results)))} FROM seasons WHERE chat_id = {m(chat_id)}"
           " ON CONFLICT (chat_id, kind, first_day) DO NOTHING RETURNING number")
    return sql, m.args


def title_rows(chat_id: int, number: int, titles: Mapping[str, int]) -> list[tuple[Any, ...]]:
    """The ``season_titles`` rows of a season's titles (title -> user)."""
    return [(chat_id, number, title, user) for title, user in sorted(titles.items())]


def insert_titles(style: Style) -> str:
    """A statement writing one ``season_titles`` row (chat, number, title, user)."""
    return ("INSERT INTO season_titles (chat_id, number, title, user_id)"
            f" VALUES ({Marks(style).many(range(4))})")


def seasons_query(style: Style, chat_id: int) -> Query:
    """The chat's seasons, by number."""
    m = Marks(style)
    return (f"SELECT {SEASON_COLUMNS} FROM seasons WHERE chat_id = {m(chat_id)}"
            " ORDER BY number"), m.args


def titles_query(style: Style, user_id: int) -> Query:
    """The player's titles with their seasons and chat titles, newest season first."""
    m = Marks(style)
    columns = ", ".join(f"s.{c.strip()}" for c in SEASON_COLUMNS.split(","))
    sql = (f"SELECT t.title, COALESCE(c.title, ''), {columns} FROM season_titles t"
           " JOIN seasons s ON s.chat_id = t.chat_id AND s.number = t.number"
           " LEFT JOIN chats c ON c.chat_id = t.chat_id"
           f" WHERE t.user_id = {m(user_id)}"
           " ORDER BY s.last_day DESC, s.chat_id, t.title")
    return sql, m.args


def season_of(row: Sequence[Any]) -> Season:
    """A row of :data:`SEASON_COLUMNS` as a season."""
    return Season(chat_id=row[0], number=row[1], kind=row[2],
                  first_day=dt.date.fromisoformat(row[3]), last_day=dt.date.fromisoformat(row[4]),
                  posted_at=row[5], results=json.loads(row[6]))


def title_of(row: Sequence[Any]) -> SeasonTitle:
    """A row of :func:`titles_query` as a title."""
    return SeasonTitle(title=row[0], chat_title=row[1], season=season_of(row[2:]))

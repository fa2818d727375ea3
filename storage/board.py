"""The all-chats board: players ranked by net chips won in play over the coups of every chat
listed on it (its admin's ``/settings default global on``: ``"global": true`` in the chat's
settings), and each player's choice whether his name shows there (``privacy``).

Summing a period's ``stat_days`` over hundreds of chats would read millions of rows, so the
listed chats' figures are kept summed in ``stat_global``, per game and day, with game ``''``
for every game and day ``''`` for every day: all time is then read straight from an index,
a period from its days' rows. They change with what they sum, in the same unit of work:

* a step that records a coup of a listed chat adds it (:func:`coup_rows`), after reading the
  chat's flag under a share lock, so that a chat listed meanwhile waits for the step, or the
  step for it, and the coup is counted exactly once;
* listing a chat adds its ``stat_days``, unlisting takes them away (:func:`shift`);
* a rebuild of the standings fills ``stat_global`` again from the listed chats' rebuilt
  ``stat_days`` (:func:`refill`).

A week or a month would still add up some hundred thousand rows, so each is read as a
*window* (``stat_global_window``): its days but the last summed per player, made by the first
such /top global of the day (:func:`build`), and its last day's rows, merged in a query that
reads the window in rank order and those rows alone (:func:`board_query`). A window stands
while ``stat_global_windows`` has it: a step that counts a coup on one of its days drops it,
so do a listing, an unlisting and a rebuild; the next /top global makes it again.

The SQL is written once for both backends (:class:`storage.standings.Marks`); rows are
written in key order, so two steps of two chats never wait for each other crosswise.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .base import BoardStanding, SettledCoup
from .standings import Marks, Query, Style, day_of

if TYPE_CHECKING:
    import asyncpg

KEY = "global"
"""The chat setting (``chats.settings``) that lists the chat on the board."""
EVERY = ""
"""``stat_global``'s game for every game, and day for every day."""

_INTO = "INSERT INTO stat_global (game, day, user_id, coups, won, net) "
_ADDED = (" ON CONFLICT (game, day, user_id) DO UPDATE SET coups = stat_global.coups"
          " + excluded.coups, won = stat_global.won + excluded.won,"
          " net = stat_global.net + excluded.net")


def listed(settings: dict[str, Any]) -> bool:
    """Whether chat settings list the chat on the board."""
    return settings.get(KEY) is True


def _is_listed(style: Style) -> str:
    """A condition on ``chats.settings``: the chat is listed."""
    if style == "sqlite":
        return f"json_extract(settings, '$.{KEY}') IS 1"
    return f"COALESCE(settings -> '{KEY}' = 'true'::jsonb, false)"


def flag_query(style: Style, chat_id: int) -> Query:
    """Whether the chat is listed (no row: it is not); on PostgreSQL its row held shared
    until the transaction ends (listing it waits, and it waits for a listing)."""
    m = Marks(style)
    lock = " FOR SHARE" if style == "postgres" else ""
    return f"SELECT {_is_listed(style)} FROM chats WHERE chat_id = {m(chat_id)}{lock}", m.args


def counted_query(style: Style, step_id: int, chat_id: int, coup: SettledCoup) -> Query:
    """Whether step ``step_id`` recorded ``coup`` (one recorded before by another step
    counted then, and is not added again)."""
    m = Marks(style)
    sql = (f"SELECT 1 FROM coups WHERE chat_id = {m(chat_id)} AND opened = {m(coup.opened)}"
           f" AND game = {m(coup.game)} AND coup = {m(coup.coup)} AND step_id = {m(step_id)}")
    return sql, m.args


def coup_rows(coups: Iterable[SettledCoup]) -> list[tuple[Any, ...]]:
    """What ``coups`` add to ``stat_global``: per player, his coup (won if his net is above
    0) and net in the coup's game and day, its game every day, every game that day, and
    every game every day; summed per key, in key order."""
    out: dict[tuple[str, str, int], tuple[int, int, int]] = {}
    for coup in coups:
        day = day_of(coup.settled_at)
        for user, net in coup.nets.items():
            for game in (coup.game, EVERY):
                for when in (day, EVERY):
                    c, w, n = out.get((game, when, user), (0, 0, 0))
                    out[(game, when, user)] = (c + 1, w + (net > 0), n + net)
    return [(*key, *values) for key, values in sorted(out.items())]


def add_sql(style: Style) -> str:
    """Add one row (game, day, user, coups, won, net) to ``stat_global``."""
    return f"{_INTO}VALUES ({Marks(style).many(range(6))}){_ADDED}"


def _expanded(source: Callable[[], str]) -> str:
    """``stat_days`` rows where ``source()`` (a condition, made for each) holds, under each
    of their four keys."""
    return " UNION ALL ".join(
        f"SELECT {game} AS game, {day} AS day, user_id, coups, won, net"
        f" FROM stat_days WHERE {source()}"
        for game in ("game", f"'{EVERY}'") for day in ("day", f"'{EVERY}'"))


def shift(style: Style, chat_id: int, sign: int) -> tuple[Query, Query, Query]:
    """Add (``sign`` 1) or take away (-1) the chat's ``stat_days`` to ``stat_global``; then
    drop the rows of its keys that nothing counts any more, and every window."""
    m = Marks(style)
    add = (f"{_INTO}SELECT game, day, user_id, {sign} * SUM(coups), {sign} * SUM(won),"
           f" {sign} * SUM(net) FROM ({_expanded(lambda: f'chat_id = {m(chat_id)}')}) s WHERE true"
           f" GROUP BY game, day, user_id ORDER BY game, day, user_id{_ADDED}")
    d = Marks(style)
    drop = ("DELETE FROM stat_global WHERE coups = 0 AND (game, day, user_id) IN ("
            f"SELECT game, day, user_id FROM ({_expanded(lambda: f'chat_id = {d(chat_id)}')}) s)")
    return (add, m.args), (drop, d.args), ("DELETE FROM stat_global_windows", [])


def refill(style: Style) -> list[str]:
    """``stat_global`` from nothing but the listed chats' ``stat_days``; no window."""
    listed_chats = f"chat_id IN (SELECT chat_id FROM chats WHERE {_is_listed(style)})"
    return ["DELETE FROM stat_global_windows", "DELETE FROM stat_global_window",
            "DELETE FROM stat_global",
            "INSERT INTO stat_global (game, day, user_id, coups, won, net)"
            " SELECT game, day, user_id, SUM(coups), SUM(won), SUM(net)"
            f" FROM ({_expanded(lambda: listed_chats)}) s"
            " GROUP BY game, day, user_id ORDER BY game, day, user_id"]


Window = tuple[str, str, str]
"""A window's game (:data:`EVERY`: every game), first day and last day (ISO)."""


def window_of(game: str | None, since: dt.date | None, until: dt.date | None
              ) -> Window | None:
    """The window a period of more than one day is read with: its days but the last."""
    if since is None or until is None or since >= until:
        return None
    return game or EVERY, since.isoformat(), (until - dt.timedelta(days=1)).isoformat()


def window_query(style: Style, window: Window) -> Query:
    """Whether ``window`` stands."""
    m = Marks(style)
    return ("SELECT 1 FROM stat_global_windows WHERE game = "
            f"{m(window[0])} AND first_day = {m(window[1])} AND last_day = {m(window[2])}",
            m.args)


def build(style: Style, window: Window) -> list[Query]:
    """Make ``window``: windows of its game and first day, or of an earlier last day (read
    no more), dropped with their rows; its days summed per player."""
    game, first, last = window
    m, r = Marks(style), Marks(style)
    return [(f"DELETE FROM stat_global_windows WHERE (game = {m(game)}"
             f" AND first_day = {m(first)}) OR last_day < {m(last)}", m.args),
            ("DELETE FROM stat_global_window WHERE NOT EXISTS (SELECT 1 FROM stat_global_windows"
             " v WHERE v.game = stat_global_window.game"
             " AND v.first_day = stat_global_window.first_day)", []),
            ("INSERT INTO stat_global_window (game, first_day, user_id, coups, won, net)"
             f" SELECT {r(game)}, {r(first)}, user_id, SUM(coups), SUM(won), SUM(net)"
             f" FROM stat_global WHERE game = {r(game)} AND day >= {r(first)}"
             f" AND day <= {r(last)} GROUP BY user_id", r.args),
            ("INSERT INTO stat_global_windows (game, first_day, last_day) VALUES"
             f" ({Marks(style).many(window)})", list(window))]


def dropped(style: Style, coups: Sequence[SettledCoup]) -> Query:
    """Drop the windows with a day of ``coups`` (coups counted now): they no longer stand.
    (A coup of the current day is in none: windows end the day before.)"""
    m = Marks(style)
    first = min(day_of(c.settled_at) for c in coups)
    return f"DELETE FROM stat_global_windows WHERE last_day >= {m(first)}", m.args


def board_query(style: Style, *, game: str | None, since: dt.date | None,
                until: dt.date | None, min_coups: int, limit: int,
                window: Window | None = None) -> Query:
    """The query of :meth:`storage.base.Storage.board`: (user, name, coups, won, net,
    public). All time is read in rank order from ``stat_global_rank``; a period adds up
    its days' rows per player, or, with its ``window`` (standing), reads the window in rank
    order but for the players of its last day, whose rows it adds to theirs."""
    m = Marks(style)
    if since is None and until is None:
        ranked = ("SELECT user_id, coups, won, net FROM stat_global"
                  f" WHERE game = {m(game or EVERY)} AND day = {m(EVERY)}"
                  f" AND coups >= {m(min_coups)}"
                  f" ORDER BY net DESC, coups DESC, user_id LIMIT {m(limit)}")
    elif window is not None and until is not None:
        g, first, day = window[0], window[1], until.isoformat()
        ranked = (
            "SELECT * FROM (SELECT w.user_id, w.coups, w.won, w.net FROM stat_global_window w"
            f" WHERE w.game = {m(g)} AND w.first_day = {m(first)} AND w.coups >= {m(min_coups)}"
            " AND NOT EXISTS (SELECT 1 FROM stat_global t"
            f" WHERE t.game = {m(g)} AND t.day = {m(day)} AND t.user_id = w.user_id)"
            f" ORDER BY w.net DESC, w.coups DESC, w.user_id LIMIT {m(limit)}) a"
            " UNION ALL SELECT t.user_id, t.coups + COALESCE(w.coups, 0),"
            " t.won + COALESCE(w.won, 0), t.net + COALESCE(w.net, 0) FROM stat_global t"
            f" LEFT JOIN stat_global_window w ON w.game = {m(g)} AND w.first_day = {m(first)}"
            f" AND w.user_id = t.user_id WHERE t.game = {m(g)} AND t.day = {m(day)}"
            f" AND t.coups + COALESCE(w.coups, 0) >= {m(min_coups)}")
        ranked = (f"SELECT * FROM ({ranked}) u ORDER BY net DESC, coups DESC, user_id"
                  f" LIMIT {m(limit)}")
    else:
        # one range of the key: "0" is after every day's EVERY and before every date
        first = since.isoformat() if since is not None else "0"
        where = f"game = {m(game or EVERY)} AND day >= {m(first)}"
        if until is not None:
            where += f" AND day <= {m(until.isoformat())}"
        ranked = ("SELECT user_id, CAST(SUM(coups) AS BIGINT) AS coups,"
                  " CAST(SUM(won) AS BIGINT) AS won, CAST(SUM(net) AS BIGINT) AS net"
                  f" FROM stat_global WHERE {where} GROUP BY user_id"
                  f" HAVING SUM(coups) >= {m(min_coups)}"
                  f" ORDER BY net DESC, coups DESC, user_id LIMIT {m(limit)}")
    name = ("(SELECT w.name FROM wallets w WHERE w.user_id = s.user_id AND w.name <> ''"
            " ORDER BY w.created_at DESC, w.chat_id LIMIT 1)")
    sql = (f"SELECT s.user_id, COALESCE({name}, ''), s.coups, s.won, s.net,"
           f" COALESCE(p.public, {'0' if style == 'sqlite' else 'false'})"
           f" FROM ({ranked}) s LEFT JOIN privacy p ON p.user_id = s.user_id"
           " ORDER BY s.net DESC, s.coups DESC, s.user_id")
    return sql, m.args


def board_of(rows: Iterable[Sequence[Any]]) -> list[BoardStanding]:
    """The rows of :func:`board_query` as lines of the board."""
    return [BoardStanding(user_id=r[0], name=r[1], coups=r[2], won=r[3], net=r[4],
                          public=bool(r[5])) for r in rows]


# ---------------------------------------------------------------------- SQLite

def record_sqlite(conn: sqlite3.Connection, step_id: int, chat_id: int,
                  settled: Sequence[SettledCoup]) -> None:
    """Add the coups step ``step_id`` recorded to the board, if the chat is listed; inside
    the caller's unit of work, after :func:`storage.standings.record_sqlite`."""
    if not settled:
        return
    flag = conn.execute(*flag_query("sqlite", chat_id)).fetchall()
    if not flag or not flag[0][0]:
        return
    counted = [c for c in settled
               if conn.execute(*counted_query("sqlite", step_id, chat_id, c)).fetchall()]
    if counted:
        conn.executemany(add_sql("sqlite"), coup_rows(counted))
        conn.execute(*dropped("sqlite", counted))


def board_sqlite(conn: sqlite3.Connection, query: Query, window: Window | None
                 ) -> list[Any] | None:
    """The board's rows; None if its ``window`` does not stand (:func:`build_sqlite`)."""
    if window is not None and not conn.execute(*window_query("sqlite", window)).fetchall():
        return None
    return conn.execute(*query).fetchall()


def build_sqlite(conn: sqlite3.Connection, window: Window) -> None:
    """:func:`build`, inside the caller's unit of work."""
    for sql, args in build("sqlite", window):
        conn.execute(sql, args)


def relist_sqlite(conn: sqlite3.Connection, chat_id: int, settings: dict[str, Any]) -> None:
    """Before the chat's ``settings`` are written: add its figures to the board if they
    list it and did not, take them away if they no longer do."""
    flag = conn.execute(*flag_query("sqlite", chat_id)).fetchall()
    was, now = bool(flag and flag[0][0]), listed(settings)
    if was != now:
        for sql, args in shift("sqlite", chat_id, 1 if now else -1):
            conn.execute(sql, args)


def refill_sqlite(conn: sqlite3.Connection) -> None:
    """:func:`refill`, inside the caller's unit of work."""
    for sql in refill("sqlite"):
        conn.execute(sql)


# ------------------------------------------------------------------ PostgreSQL

async def record_postgres(conn: asyncpg.Connection, step_id: int, chat_id: int,
                          settled: Sequence[SettledCoup]) -> None:
    """:func:`record_sqlite` on a PostgreSQL connection, inside the caller's transaction."""
    if not settled or not await conn.fetchval(*_pg(flag_query("postgres", chat_id))):
        return
    counted = [c for c in settled
               if await conn.fetchval(*_pg(counted_query("postgres", step_id, chat_id, c)))]
    if counted:
        await conn.executemany(add_sql("postgres"), coup_rows(counted))
        # (a build holds the windows until it commits: the coup is in the window it makes,
        # or drops it)
        await conn.execute(*_pg(dropped("postgres", counted)))


async def build_postgres(conn: asyncpg.Connection, window: Window) -> None:
    """:func:`build` inside the caller's transaction, the windows held until it commits (a
    step that drops one waits, or the build waits for it and sees its coup), unless another
    build made it meanwhile."""
    await conn.execute("LOCK TABLE stat_global_windows IN EXCLUSIVE MODE")
    if await conn.fetchval(*_pg(window_query("postgres", window))):
        return
    for query in build("postgres", window):
        await conn.execute(*_pg(query))


async def relist_postgres(conn: asyncpg.Connection, chat_id: int,
                          settings: dict[str, Any]) -> None:
    """:func:`relist_sqlite` on a PostgreSQL connection: the chat's row held first, so
    that its steps wait until the figures moved (or the listing waits for them)."""
    row = await conn.fetchrow(f"SELECT {_is_listed('postgres')} FROM chats"
                              " WHERE chat_id = $1 FOR UPDATE", chat_id)
    was, now = bool(row is not None and row[0]), listed(settings)
    if was != now:
        for query in shift("postgres", chat_id, 1 if now else -1):
            await conn.execute(*_pg(query))


async def refill_postgres(conn: asyncpg.Connection) -> None:
    """:func:`refill` inside the caller's transaction, with every step's adding held off
    until it commits (they add to what it refilled)."""
    await conn.execute("LOCK TABLE stat_global IN SHARE ROW EXCLUSIVE MODE")
    for sql in refill("postgres"):
        await conn.execute(sql)


def _pg(query: Query) -> tuple[Any, ...]:
    sql, args = query
    return (sql, *args)

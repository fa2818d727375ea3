"""Standings: the settled coups a step records, and the figures derived from them alone.

A step that settles coups writes each one into ``coups`` (append-only, once per chat, table
opening, game and coup number) and, in the same unit of work, folds it into the derived
tables: ``stat_days`` (a player's figures per chat, game and UTC day), ``stat_feats`` (his
feats per chat and game), ``stat_players`` (his bank run and best hand per chat and
game), ``stat_ratings`` (his poker rating per chat: :mod:`storage.ratings`) and
``achievements`` (those his game declares, each reached once per chat and game:
:func:`reached`). :func:`fold` is the one function that says what a coup changes; a rebuild
deletes the derived tables and folds every recorded coup again with it, so the two cannot
differ.

The SQL is written once for both backends: :class:`Marks` numbers its placeholders in
SQLite's style (``?``) or PostgreSQL's (``$1``); each backend runs it on its connection
(:func:`record_sqlite` and :func:`rebuild_sqlite`, :func:`record_postgres` and
:func:`rebuild_postgres`).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from games.engine import Achievement
from games.poker.ranking import HandCategory
from games.registry import achievements_of

from . import ratings
from .base import Earned, PlayerStats, SettledCoup, Standing

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import asyncpg

Style = Literal["sqlite", "postgres"]
Query = tuple[str, list[Any]]

CATEGORY_ORDER: tuple[str, ...] = tuple(str(c) for c in (
    HandCategory.HIGH_CARD, HandCategory.PAIR, HandCategory.TWO_PAIR, HandCategory.THREE,
    HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.FULL_HOUSE, HandCategory.FOUR,
    HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH))
"""Poker hand categories, lowest first (:class:`games.poker.ranking.HandCategory`)."""
DERIVED = ("stat_days", "stat_feats", "stat_players", ratings.TABLE, "achievements")
"""The tables a rebuild deletes and refills."""
REBUILT_CHATS = ("SELECT chat_id FROM coups UNION SELECT chat_id FROM stat_days"
                 " UNION SELECT chat_id FROM stat_feats UNION SELECT chat_id FROM stat_players"
                 " UNION SELECT chat_id FROM achievements ORDER BY chat_id")
"""The chats a rebuild goes through: every chat with a recorded coup or a derived row."""


class Day(NamedTuple):
    """A player's figures in one chat, game and day (a ``stat_days`` row's values)."""

    coups: int = 0
    won: int = 0
    lost: int = 0
    net: int = 0
    best: int = 0
    worst: int = 0
    banks: int = 0


class Runs(NamedTuple):
    """What runs across a player's coups in one chat and game (a ``stat_players`` row's
    values): his current and longest run of coups holding the bank, his best poker hand
    (JSON) and its :func:`hand_key`."""

    bank_run: int = 0
    longest_bank: int = 0
    best_hand: str | None = None
    best_key: int | None = None


class Reached(NamedTuple):
    """When a player reached an achievement (an ``achievements`` row's values): the coup
    (its number on the table opened at ``opened``) and when it settled."""

    coup: int
    opened: float
    earned_at: float


DayKey = tuple[int, str, str, int]
"""(chat, game, day, user)."""
FeatKey = tuple[int, str, int, str]
"""(chat, game, user, feat)."""
RunKey = tuple[int, str, int]
"""(chat, game, user)."""
EarnedKey = tuple[int, str, int, str]
"""(chat, game, user, achievement)."""


@dataclass
class Rows:
    """Rows of the derived tables, by key (a row not here counts as empty)."""

    days: dict[DayKey, Day] = field(default_factory=dict)
    feats: dict[FeatKey, int] = field(default_factory=dict)
    runs: dict[RunKey, Runs] = field(default_factory=dict)
    skills: dict[ratings.Key, ratings.Skill] = field(default_factory=dict)
    earned: dict[EarnedKey, Reached] = field(default_factory=dict)

    def update(self, other: Rows) -> None:
        """Take ``other``'s rows over these."""
        self.days.update(other.days)
        self.feats.update(other.feats)
        self.runs.update(other.runs)
        self.skills.update(other.skills)
        self.earned.update(other.earned)


def day_of(settled_at: float) -> str:
    """The UTC day (``YYYY-MM-DD``) of an epoch time."""
    return dt.datetime.fromtimestamp(settled_at, dt.UTC).strftime("%Y-%m-%d")


def hand_key(hand: dict[str, Any]) -> int | None:
    """A poker hand's rank as one int (higher is better): its category's place in
    :data:`CATEGORY_ORDER`, then its ranks (most significant first, up to five, missing
    ones as 0) as base-13 digits. None for anything else (points of a banking game)."""
    category = hand.get("category")
    if category not in CATEGORY_ORDER:
        return None
    ranks = list(hand.get("ranks", ()))[:5]
    key = CATEGORY_ORDER.index(category)
    for rank in ranks + [0] * (5 - len(ranks)):
        key = key * 13 + int(rank)
    return key


def fold(rows: Rows, chat_id: int, coup: SettledCoup) -> Rows:
    """The derived rows ``coup`` of chat ``chat_id`` changes, as they are once it counts,
    from ``rows`` as they were (at least the rows it touches; a missing one is empty).

    For each player in ``nets``: one coup more, won if his net is above 0, lost if below,
    his net added, his best and worst coup kept, a bank if he is the ``banker``, each of
    his feats counted; the banker's bank run goes on (his longest kept), every other
    player's ends; his hand, if a poker hand better than his best, is his best; the
    achievements he reaches with it are his (:func:`reached`). A banker not in ``nets`` was
    not dealt in and counts nothing.
    """
    day = day_of(coup.settled_at)
    out = Rows()
    for user, net in coup.nets.items():
        d = rows.days.get((chat_id, coup.game, day, user), Day())
        out.days[(chat_id, coup.game, day, user)] = Day(
            d.coups + 1, d.won + (net > 0), d.lost + (net < 0), d.net + net,
            max(d.best, net), min(d.worst, net), d.banks + (user == coup.banker))
        for feat in coup.feats.get(user, ()):
            key = (chat_id, coup.game, user, feat)
            out.feats[key] = out.feats.get(key, rows.feats.get(key, 0)) + 1
        r = rows.runs.get((chat_id, coup.game, user), Runs())
        run = r.bank_run + 1 if user == coup.banker else 0
        best_hand, best_key = r.best_hand, r.best_key
        hand = coup.hands.get(user, {})
        key_now = hand_key(hand)
        if key_now is not None and (best_key is None or key_now > best_key):
            best_hand = json.dumps({"category": hand["category"],
                                    "ranks": list(hand.get("ranks", ()))})
            best_key = key_now
        out.runs[(chat_id, coup.game, user)] = Runs(run, max(r.longest_bank, run),
                                                    best_hand, best_key)
    out.skills = ratings.fold(rows.skills, chat_id, coup)
    out.earned = reached(rows, out, chat_id, coup)
    return out


def _declared(game: str) -> tuple[Achievement, ...]:
    """The achievements ``game`` declares; none for a game this host does not know (a
    coup recorded by a game since removed counts its figures, and earns nothing)."""
    try:
        return achievements_of(game)
    except KeyError:
        return ()


def reached(before: Rows, after: Rows, chat_id: int,
            coup: SettledCoup) -> dict[EarnedKey, Reached]:
    """The achievements ``coup``'s players reach with it: each one his game declares that
    he had not reached (in ``before``) and that the rows ``after`` the coup meet, by player
    in ``nets`` order, then in the order the game declares them. Only what the settlement
    shows counts: its feats, the bank, the hands shown.

    * ``feat``: his count of the feat in the chat and game is at least ``count``;
    * ``bank_run``: his current run of coups holding the bank is at least ``bank_run``;
    * ``hand``: the category of the best hand he showed is ``hand`` or a better one."""
    out: dict[EarnedKey, Reached] = {}
    declared = _declared(coup.game)
    if not declared:
        return out
    when = Reached(coup.coup, coup.opened, coup.settled_at)
    for user in coup.nets:
        runs = after.runs.get((chat_id, coup.game, user), Runs())
        category = -1 if runs.best_key is None else runs.best_key // 13 ** 5
        for achievement in declared:
            key = (chat_id, coup.game, user, achievement.key)
            if key in before.earned:
                continue
            if achievement.feat:
                feat = (chat_id, coup.game, user, achievement.feat)
                met = after.feats.get(feat, before.feats.get(feat, 0)) >= achievement.count
            elif achievement.bank_run:
                met = runs.bank_run >= achievement.bank_run
            else:
                met = (achievement.hand in CATEGORY_ORDER
                       and category >= CATEGORY_ORDER.index(achievement.hand))
            if met:
                out[key] = when
    return out


def earned_of(rows: Rows) -> list[Earned]:
    """The achievements in ``rows`` in the order they were reached (as :func:`fold` adds
    them)."""
    return [Earned(chat_id=k[0], game=k[1], user_id=k[2], key=k[3], coup=r.coup,
                   opened=r.opened, earned_at=r.earned_at) for k, r in rows.earned.items()]


def refold(chat_id: int, records: Iterable[str]) -> tuple[Rows, int]:
    """A chat's derived rows from nothing but its coups' ``records`` (JSON, in ``coup_id``
    order), folded one by one as their steps folded them; and how many there were."""
    rows, count = Rows(), 0
    for record in records:
        rows.update(fold(rows, chat_id, SettledCoup.model_validate_json(record)))
        count += 1
    return rows, count


# ------------------------------------------------------------------------- SQL

class Marks:
    """The placeholders of one statement in ``style`` (``?``, or ``$1``, ``$2``...) and the
    values they stand for, in the order they were made (write them in reading order)."""

    def __init__(self, style: Style) -> None:
        self.style = style
        self.args: list[Any] = []

    def __call__(self, value: Any) -> str:
        """A placeholder for ``value``."""
        self.args.append(value)
        return "?" if self.style == "sqlite" else f"${len(self.args)}"

    def many(self, values: Iterable[Any]) -> str:
        """Placeholders for ``values``, comma-separated."""
        return ", ".join(self(v) for v in values)


_DAY_KEY = ("chat_id", "game", "day", "user_id")
_FEAT_KEY = ("chat_id", "game", "user_id", "feat")
_RUN_KEY = ("chat_id", "game", "user_id")
_COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stat_days": (_DAY_KEY, Day._fields),
    "stat_feats": (_FEAT_KEY, ("n",)),
    "stat_players": (_RUN_KEY, Runs._fields),
    ratings.TABLE: ratings.COLUMNS,
    "achievements": (("chat_id", "game", "user_id", "key"), Reached._fields),
}
"""Each derived table's key columns and value columns."""


def upsert(style: Style, table: str) -> str:
    """A statement that writes one row of a derived table, whole (its key, then its values)."""
    key, values = _COLUMNS[table]
    columns = key + values
    marks = Marks(style).many(columns)
    sets = ", ".join(f"{c} = excluded.{c}" for c in values)
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}")


def insert_coup(style: Style, step_id: int, chat_id: int, coup: SettledCoup) -> Query:
    """Record ``coup`` of step ``step_id``; returns its id, or no row if it was recorded."""
    m = Marks(style)
    marks = m.many((step_id, chat_id, coup.game, coup.coup, coup.opened, coup.settled_at,
                    coup.banker, coup.model_dump_json()))
    sql = ("INSERT INTO coups (step_id, chat_id, game, coup, opened, settled_at, banker, record)"
           f" VALUES ({marks}) ON CONFLICT DO NOTHING RETURNING coup_id")
    return sql, m.args


def recorded_query(style: Style, chat_id: int, coup: SettledCoup) -> Query:
    """A row if ``coup`` is recorded already (its step counted it: it earns nothing more)."""
    m = Marks(style)
    return (f"SELECT 1 FROM coups WHERE chat_id = {m(chat_id)} AND opened = {m(coup.opened)}"
            f" AND game = {m(coup.game)} AND coup = {m(coup.coup)}", m.args)


def records_query(style: Style, chat_id: int) -> Query:
    """The chat's recorded coups (their JSON), in the order they were folded."""
    m = Marks(style)
    return f"SELECT record FROM coups WHERE chat_id = {m(chat_id)} ORDER BY coup_id", m.args


def touched(style: Style, chat_id: int, coup: SettledCoup) -> tuple[Query, ...]:
    """Queries for the rows ``coup`` changes, as they are stored (days, feats, runs,
    ratings, and the achievements its players reached in the chat's games of its kind), in
    the order :func:`rows_of` takes them."""
    users = sorted(coup.nets)
    queries = []
    for table, fixed in (("stat_days", (chat_id, coup.game, day_of(coup.settled_at))),
                         ("stat_feats", (chat_id, coup.game)),
                         ("stat_players", (chat_id, coup.game)), (ratings.TABLE, (chat_id,)),
                         ("achievements", (chat_id, coup.game))):
        key, values = _COLUMNS[table]
        m = Marks(style)
        where = " AND ".join(f"{c} = {m(v)}" for c, v in zip(key, fixed, strict=False))
        queries.append((f"SELECT {', '.join(key + values)} FROM {table}"
                        f" WHERE {where} AND user_id IN ({m.many(users)})", m.args))
    return tuple(queries)


def rows_of(days: Iterable[Sequence[Any]], feats: Iterable[Sequence[Any]],
            runs: Iterable[Sequence[Any]], skills: Iterable[Sequence[Any]] = (),
            earned: Iterable[Sequence[Any]] = ()) -> Rows:
    """Stored rows (whole, as :func:`touched` selects them) as :class:`Rows`."""
    return Rows(days={(r[0], r[1], r[2], r[3]): Day(*r[4:]) for r in days},
                feats={(r[0], r[1], r[2], r[3]): r[4] for r in feats},
                runs={(r[0], r[1], r[2]): Runs(*r[3:]) for r in runs},
                skills={(r[0], r[1]): ratings.Skill(*r[2:]) for r in skills},
                earned={(r[0], r[1], r[2], r[3]): Reached(*r[4:]) for r in earned})


def stored(rows: Rows) -> dict[str, list[tuple[Any, ...]]]:
    """``rows`` as whole rows of each derived table, for :func:`upsert`, in key order."""
    return {"stat_days": [(*k, *v) for k, v in sorted(rows.days.items())],
            "stat_feats": [(*k, v) for k, v in sorted(rows.feats.items())],
            "stat_players": [(*k, *v) for k, v in sorted(rows.runs.items())],
            ratings.TABLE: [(*k, *v) for k, v in sorted(rows.skills.items())],
            "achievements": [(*k, *v) for k, v in sorted(rows.earned.items())]}


def _player_filter(m: Marks, user_id: int, chat_id: int | None, game: str | None) -> str:
    where = f"user_id = {m(user_id)}"
    if chat_id is not None:
        where += f" AND chat_id = {m(chat_id)}"
    if game is not None:
        where += f" AND game = {m(game)}"
    return where


def player_queries(style: Style, *, user_id: int, chat_id: int | None,
                   game: str | None) -> tuple[Query, Query, Query]:
    """The queries of :meth:`storage.base.Storage.player_stats`: his totals, his feats and
    his runs; :func:`player_stats_of` reads their rows."""
    m1, m2, m3 = Marks(style), Marks(style), Marks(style)
    totals = ("SELECT CAST(COALESCE(SUM(coups), 0) AS BIGINT),"
              " CAST(COALESCE(SUM(won), 0) AS BIGINT), CAST(COALESCE(SUM(lost), 0) AS BIGINT),"
              " CAST(COALESCE(SUM(net), 0) AS BIGINT), COALESCE(MAX(best), 0),"
              " COALESCE(MIN(worst), 0), CAST(COALESCE(SUM(banks), 0) AS BIGINT)"
              f" FROM stat_days WHERE {_player_filter(m1, user_id, chat_id, game)}")
    feats = ("SELECT feat, CAST(SUM(n) AS BIGINT) FROM stat_feats"
             f" WHERE {_player_filter(m2, user_id, chat_id, game)} GROUP BY feat ORDER BY feat")
    runs = ("SELECT longest_bank, best_hand, best_key FROM stat_players"
            f" WHERE {_player_filter(m3, user_id, chat_id, game)}")
    return (totals, m1.args), (feats, m2.args), (runs, m3.args)


def net_days_query(style: Style, *, user_id: int, chat_id: int | None,
                   game: str | None) -> Query:
    """The query of :meth:`storage.base.Storage.net_by_day`: (day, net), by day."""
    m = Marks(style)
    return ("SELECT day, CAST(SUM(net) AS BIGINT) FROM stat_days"
            f" WHERE {_player_filter(m, user_id, chat_id, game)} GROUP BY day ORDER BY day",
            m.args)


def net_days_of(rows: Iterable[Sequence[Any]]) -> list[tuple[dt.date, int]]:
    """The rows of :func:`net_days_query` as (UTC day, net)."""
    return [(dt.date.fromisoformat(str(r[0])), int(r[1])) for r in rows]


def player_stats_of(user_id: int, totals: Sequence[Any], feats: Iterable[Sequence[Any]],
                    runs: Iterable[Sequence[Any]]) -> PlayerStats:
    """A player's figures from the rows of :func:`player_queries`: the longest bank run of
    his rows, and the best hand (the first of the highest key, in the order read)."""
    longest, best_hand, best_key = 0, None, None
    for run, hand, key in runs:
        longest = max(longest, int(run))
        if key is not None and (best_key is None or key > best_key):
            best_hand, best_key = hand, key
    coups, won, lost, net, best, worst, banks = (int(v) for v in totals)
    return PlayerStats(user_id=user_id, coups=coups, won=won, lost=lost, net=net, best=best,
                       worst=worst, banks=banks, longest_bank=longest,
                       feats={str(f): int(n) for f, n in feats},
                       best_hand=None if best_hand is None else json.loads(best_hand))


def standings_query(style: Style, *, chat_id: int, game: str | None, since: dt.date | None,
                    until: dt.date | None, min_coups: int, limit: int) -> Query:
    """The query of :meth:`storage.base.Storage.standings`: (user, name, coups, won, net)."""
    m = Marks(style)
    where = f"chat_id = {m(chat_id)}"
    if game is not None:
        where += f" AND game = {m(game)}"
    if since is not None:
        where += f" AND day >= {m(since.isoformat())}"
    if until is not None:
        where += f" AND day <= {m(until.isoformat())}"
    sql = ("SELECT s.user_id, COALESCE(NULLIF(w.name, ''), CAST(s.user_id AS TEXT)),"
           " s.coups, s.won, s.net FROM ("
           "  SELECT user_id, CAST(SUM(coups) AS BIGINT) AS coups,"
           "  CAST(SUM(won) AS BIGINT) AS won, CAST(SUM(net) AS BIGINT) AS net"
           f"  FROM stat_days WHERE {where} GROUP BY user_id"
           f"  HAVING SUM(coups) >= {m(min_coups)}) s"
           f" LEFT JOIN wallets w ON w.chat_id = {m(chat_id)} AND w.user_id = s.user_id"
           f" ORDER BY s.net DESC, s.coups DESC, s.user_id LIMIT {m(limit)}")
    return sql, m.args


def standings_of(rows: Iterable[Sequence[Any]]) -> list[Standing]:
    """The rows of :func:`standings_query` as standings."""
    return [Standing(user_id=r[0], name=r[1], coups=r[2], won=r[3], net=r[4]) for r in rows]


def achievements_query(style: Style, *, user_id: int, chat_id: int | None) -> Query:
    """The query of :meth:`storage.base.Storage.achievements`; :func:`achievements_in`
    reads its rows."""
    m = Marks(style)
    sql = ("SELECT chat_id, game, user_id, key, coup, opened, earned_at FROM achievements"
           f" WHERE {_player_filter(m, user_id, chat_id, None)}")
    return sql, m.args


def achievements_in(rows: Iterable[Sequence[Any]]) -> list[Earned]:
    """The rows of :func:`achievements_query`, oldest first; those reached at one coup in
    the order their game declares them."""
    def order(e: Earned) -> tuple[float, int, float, int, str, int]:
        keys = [a.key for a in _declared(e.game)]
        return (e.earned_at, e.chat_id, e.opened, e.coup, e.game,
                keys.index(e.key) if e.key in keys else len(keys))
    return sorted((Earned(chat_id=r[0], game=r[1], user_id=r[2], key=r[3], coup=r[4],
                          opened=r[5], earned_at=r[6]) for r in rows), key=order)


# ---------------------------------------------------------------------- SQLite

def record_sqlite(conn: sqlite3.Connection, step_id: int, chat_id: int,
                  settled: Sequence[SettledCoup]) -> None:
    """Record the coups step ``step_id`` settled and fold each into the derived tables,
    inside the caller's unit of work. A coup recorded before (the same chat, table opening,
    game and number) is left out: it counted once already, and the step goes on."""
    for coup in settled:
        if not conn.execute(*insert_coup("sqlite", step_id, chat_id, coup)).fetchall():
            log.warning("chat %s: coup %s of %s recorded before; not counted again",
                        chat_id, coup.coup, coup.game)
            continue
        _write_sqlite(conn, fold(_touched_sqlite(conn, chat_id, coup), chat_id, coup))


def _touched_sqlite(conn: sqlite3.Connection, chat_id: int, coup: SettledCoup) -> Rows:
    return rows_of(*(conn.execute(sql, args).fetchall()
                     for sql, args in touched("sqlite", chat_id, coup)))


def due_sqlite(conn: sqlite3.Connection, chat_id: int,
               settled: Sequence[SettledCoup]) -> list[Earned]:
    """What recording ``settled`` now would earn (:meth:`storage.base.Storage.
    achievements_due`): their touched rows as stored, folded as :func:`record_sqlite` would
    fold them, one after the other; nothing written."""
    rows, earned = Rows(), Rows()
    for coup in settled:
        if conn.execute(*recorded_query("sqlite", chat_id, coup)).fetchall():
            continue
        before = _touched_sqlite(conn, chat_id, coup)
        before.update(rows)
        after = fold(before, chat_id, coup)
        rows.update(after)
        earned.update(after)
    return earned_of(earned)


def _write_sqlite(conn: sqlite3.Connection, rows: Rows) -> None:
    for table, values in stored(rows).items():
        if values:
            conn.executemany(upsert("sqlite", table), values)


def rebuild_sqlite(conn: sqlite3.Connection, chat_id: int) -> int:
    """Delete the chat's derived rows and fold its recorded coups again (:func:`refold`);
    returns how many. Inside the caller's unit of work."""
    for table in DERIVED:
        conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (chat_id,))
    records = conn.execute(*records_query("sqlite", chat_id))
    rows, count = refold(chat_id, (r[0] for r in records))
    _write_sqlite(conn, rows)
    return count


# ------------------------------------------------------------------ PostgreSQL

async def record_postgres(conn: asyncpg.Connection, step_id: int, chat_id: int,
                          settled: Sequence[SettledCoup]) -> None:
    """:func:`record_sqlite` on a PostgreSQL connection, inside the caller's transaction."""
    for coup in settled:
        if await conn.fetchval(*_pg(insert_coup("postgres", step_id, chat_id, coup))) is None:
            log.warning("chat %s: coup %s of %s recorded before; not counted again",
                        chat_id, coup.coup, coup.game)
            continue
        await _write_postgres(conn, fold(await _touched_postgres(conn, chat_id, coup),
                                         chat_id, coup))


async def _touched_postgres(conn: asyncpg.Connection, chat_id: int, coup: SettledCoup) -> Rows:
    return rows_of(*[await conn.fetch(*_pg(q)) for q in touched("postgres", chat_id, coup)])


async def due_postgres(conn: asyncpg.Connection, chat_id: int,
                       settled: Sequence[SettledCoup]) -> list[Earned]:
    """:func:`due_sqlite` on a PostgreSQL connection."""
    rows, earned = Rows(), Rows()
    for coup in settled:
        if await conn.fetchval(*_pg(recorded_query("postgres", chat_id, coup))) is not None:
            continue
        before = await _touched_postgres(conn, chat_id, coup)
        before.update(rows)
        after = fold(before, chat_id, coup)
        rows.update(after)
        earned.update(after)
    return earned_of(earned)


async def _write_postgres(conn: asyncpg.Connection, rows: Rows, fresh: bool = False) -> None:
    """Write ``rows`` whole; ``fresh``: none of them is stored yet (a rebuild's), so they
    go in by ``COPY``, some forty times faster than upserts."""
    for table, values in stored(rows).items():
        if values and fresh:
            key, columns = _COLUMNS[table]
            await conn.copy_records_to_table(table, columns=key + columns, records=values)
        elif values:
            await conn.executemany(upsert("postgres", table), values)


async def rebuild_postgres(conn: asyncpg.Connection, chat_id: int) -> int:
    """:func:`rebuild_sqlite` on a PostgreSQL connection, inside the caller's transaction."""
    for table in DERIVED:
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = $1", chat_id)
    records = await conn.fetch(*_pg(records_query("postgres", chat_id)))
    rows, count = refold(chat_id, (r[0] for r in records))
    await _write_postgres(conn, rows, fresh=True)
    return count


def _pg(query: Query) -> tuple[Any, ...]:
    """A query as the positional arguments of an asyncpg call."""
    sql, args = query
    return (sql, *args)

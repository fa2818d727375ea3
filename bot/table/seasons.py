"""Seasons: each chat's standings over a calendar period in UTC (an ISO week, Monday to
Sunday; a calendar month, the default; a calendar quarter; or none: ``/settings default
season off|week|month|quarter``), and the rollover that closes them.

The rollover (:meth:`Seasons.check`, run every :data:`CHECK_EVERY` seconds by
:meth:`Seasons.run`) looks, for each kind of season, at the one that ended last: each chat
of that kind that played in it and has not recorded it gets its results (the podium and the
titles, computed here from the standings and the season's recorded coups) recorded, with
the group post that tells them, in one unit of work that a season recorded before leaves
untouched (:meth:`storage.base.Storage.record_season`): whichever worker or run gets there
first posts it, once. A season that ended while no process ran for a whole season more is
not looked at again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from bot.outbox.courier import Doorbell
from bot.outbox.payloads import GroupPost
from bot.table.languages import Languages
from bot.view import seasons as words
from bot.view.render import clip
from bot.view.standings import MIN_COUPS
from storage.base import OutboxDraft, Season, SettledCoup, Standing, Storage
from storage.standings import hand_key

log = logging.getLogger(__name__)

KINDS = ("week", "month", "quarter")
"""The kinds of season a chat can have."""
OFF = "off"
"""The setting's value for no seasons."""
DEFAULT = "month"
"""A chat's kind of season unless it chose one."""
KEY = "season"
"""The chat default (``chats.settings``) holding the chat's kind of season."""
CHECK_EVERY = 300.0
"""Seconds between two rollover checks."""
EVERYONE = 1 << 31
"""A standings limit no chat reaches: every player of the season."""


def kind_of(defaults: dict[str, Any]) -> str:
    """The chat's kind of season from its defaults: one of :data:`KINDS`, or :data:`OFF`."""
    kind = defaults.get(KEY, DEFAULT)
    return kind if kind in (*KINDS, OFF) else DEFAULT


def season_days(kind: str, day: dt.date) -> tuple[dt.date, dt.date]:
    """The first and the last day of the season of ``kind`` that ``day`` is in."""
    if kind == "week":
        first = day - dt.timedelta(days=day.weekday())
        return first, first + dt.timedelta(days=6)
    months = 3 if kind == "quarter" else 1
    first = day.replace(month=(day.month - 1) // months * months + 1, day=1)
    after = (first.replace(year=first.year + 1, month=1) if first.month + months > 12
             else first.replace(month=first.month + months))
    return first, after - dt.timedelta(days=1)


def last_ended(kind: str, today: dt.date) -> tuple[dt.date, dt.date]:
    """The season of ``kind`` that ended last before ``today``."""
    first, _ = season_days(kind, today)
    return season_days(kind, first - dt.timedelta(days=1))


def results(players: Sequence[Standing], coups: Sequence[SettledCoup]
            ) -> tuple[dict[str, Any], dict[str, int]]:
    """A season's results from its standings (``players``: everyone who played, ranked) and
    its coups: the podium (the first three with :data:`MIN_COUPS` coups), and the titles,
    each with its holder and figure: champion (the best net of the ranked), most coups,
    best banker (most banks held, if anyone held one), best poker hand shown (if any).
    Ties go to the higher in the standings (the hand: to the first shown). Also the titles
    by holder, for storage. Nobody ranked: no podium, no titles."""
    ranked = [p for p in players if p.coups >= MIN_COUPS]
    if not ranked:
        return {"podium": [], "titles": []}, {}
    order = {p.user_id: i for i, p in enumerate(players)}
    names = {p.user_id: p.name for p in players}
    busiest = max(players, key=lambda p: (p.coups, -order[p.user_id]))
    titles: list[tuple[str, int, Any]] = [("champion", ranked[0].user_id, ranked[0].net),
                                          ("most_coups", busiest.user_id, busiest.coups)]
    banks: dict[int, int] = {}
    best: tuple[int, int, dict[str, Any]] | None = None
    for coup in coups:
        if coup.banker is not None and coup.banker in coup.nets:
            banks[coup.banker] = banks.get(coup.banker, 0) + 1
        for user, hand in coup.hands.items():
            key = hand_key(hand)
            if key is not None and user in order and (best is None or key > best[0]):
                best = (key, user, {"category": hand["category"],
                                    "ranks": list(hand.get("ranks", ()))})
    if banks:
        banker = max(banks, key=lambda u: (banks[u], -order.get(u, EVERYONE)))
        titles.append(("best_banker", banker, banks[banker]))
    if best is not None:
        titles.append(("best_hand", best[1], best[2]))
    podium = [{"user_id": p.user_id, "name": p.name, "net": p.net, "coups": p.coups}
              for p in ranked[:3]]
    return ({"podium": podium,
             "titles": [{"title": t, "user_id": u, "name": names.get(u, str(u)), "figure": f}
                        for t, u, f in titles]},
            {t: u for t, u, _ in titles})


class Seasons:
    """The rollover of every chat's seasons (see the module docstring); ``now``: the wall
    clock (a test's sets it)."""

    def __init__(self, storage: Storage, languages: Languages, doorbell: Doorbell,
                 now: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.languages = languages
        self.doorbell = doorbell
        self.now = now

    def today(self) -> dt.date:
        """Today in UTC, by :attr:`now`."""
        return dt.datetime.fromtimestamp(self.now(), dt.UTC).date()

    async def check(self) -> list[Season]:
        """Record and post each season that ended last and is not recorded yet, in each
        chat that played in it; returns the seasons this call recorded."""
        done: list[Season] = []
        for kind in KINDS:
            first, last = last_ended(kind, self.today())
            for chat_id in await self.storage.unseasoned_chats(kind=kind, first_day=first,
                                                               last_day=last):
                defaults = await self.storage.chat_settings(chat_id=chat_id)
                if kind_of(defaults) != kind:
                    continue
                season = await self.close(chat_id, kind, first, last)
                if season is not None:
                    done.append(season)
        return done

    async def close(self, chat_id: int, kind: str, first: dt.date,
                    last: dt.date) -> Season | None:
        """Record the chat's season from ``first`` to ``last`` with its post (none if
        nobody was ranked); None if it was recorded before."""
        players = await self.storage.standings(chat_id=chat_id, since=first, until=last,
                                               limit=EVERYONE)
        coups = await self.storage.coups_between(chat_id=chat_id, since=first, until=last)
        found, titles = results(players, coups)
        lang = await self.languages.of(chat_id)

        def post(season: Season) -> list[OutboxDraft]:
            if not season.results["podium"]:
                return []
            return [GroupPost(text=clip(words.post_text(lang, season))).draft(chat_id)]

        season = await self.storage.record_season(
            chat_id=chat_id, kind=kind, first_day=first, last_day=last, results=found,
            titles=titles, post=post)
        if season is not None and found["podium"]:
            self.doorbell.ring(chat_id)
            log.info("chat %s: season %s (%s from %s) posted", chat_id, season.number, kind,
                     first)
        return season

    async def run(self, every: float = CHECK_EVERY) -> None:
        """Check every ``every`` seconds until cancelled; a failed check is logged, and the
        next one tries again."""
        while True:
            try:
                await self.check()
            except Exception:
                log.exception("season rollover failed")
            await asyncio.sleep(every)

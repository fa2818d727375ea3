"""Seasons on SQLite and PostgreSQL alike: a chat's season rolled over by a clock the test
sets, recorded once with its podium, its titles and its one group post (exact, in English
and Russian), whoever checks again or on another host; /season and the titles on /stats;
the season a day is in; the chat's setting."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage_backends import BACKENDS, Backend, backend

from bot.gateway.standings import season_text
from bot.outbox.courier import Doorbell
from bot.outbox.kinds import GROUP
from bot.table.languages import Languages
from bot.table.seasons import Seasons, kind_of, last_ended, season_days
from bot.view import seasons as words
from storage.base import OutboxDraft, Season, SettledCoup

CHAT, OTHER = -100, -200
ANN, BOB, CID, DAN = 1, 2, 3, 4
NAMES = {ANN: "Ann", BOB: "Bob", CID: "Cid", DAN: "Dan"}
OPENED = 1_700_000_000.5


def at(month: int, day: int, hour: int = 12) -> float:
    """An epoch time on 2026-``month``-``day`` (UTC)."""
    return dt.datetime(2026, month, day, hour, tzinfo=dt.UTC).timestamp()


def coup(n: int, nets: dict[int, int], when: float, *, banker: int | None = None,
         game: str = "chemin_de_fer", hands: dict[int, dict[str, Any]] | None = None
         ) -> SettledCoup:
    return SettledCoup(game=game, coup=n, opened=OPENED, settled_at=when, banker=banker,
                       nets=nets, winners=tuple(u for u, v in nets.items() if v > 0),
                       hands=hands or {})


OCTOBER = [
    coup(1, {ANN: 50, BOB: -30, CID: -20}, at(10, 5), banker=ANN),
    coup(2, {ANN: -10, BOB: 20, CID: -10}, at(10, 6), banker=ANN),
    coup(3, {ANN: 30, BOB: -10, CID: -20}, at(10, 7), banker=BOB),
    coup(4, {CID: 15, BOB: -15}, at(10, 20), game="draw_poker",
         hands={CID: {"category": "full_house", "ranks": [12, 3]},
                BOB: {"category": "pair", "ranks": [10]}}),
    coup(5, {ANN: 5, BOB: -5, CID: 0, DAN: 0}, at(10, 31, 23), banker=ANN),
]
"""Ann +75 in 4 coups (3 banks), Cid -35 in 5 (a full house), Bob -40 in 5, Dan 0 in 1."""
AROUND = [coup(90, {ANN: -100, BOB: 100}, at(9, 30), banker=BOB),
          coup(91, {ANN: -100, BOB: 100}, at(11, 1, 0), banker=BOB)]
"""Coups the day before October and the day after: not of its season."""

POST_EN = ("🏁 <b>Season 1 · October 2026</b> is over\n"
           "🥇 Ann — +75 (4 coups)\n"
           "🥈 Cid — -35 (5 coups)\n"
           "🥉 Bob — -40 (5 coups)\n"
           "🏆 Champion: Ann (+75)\n"
           "🎲 Most coups: Cid (5 coups)\n"
           "🏦 Best banker: Ann (3 banks)\n"
           "🃏 Best hand: Cid (a full house, aces over fives)\n"
           "A new season has begun: /season")
POST_RU = ("🏁 <b>Сезон 1 · октябрь 2026</b> завершён\n"
           "🥇 Ann — +75 (4 кона)\n"
           "🥈 Cid — -35 (5 конов)\n"
           "🥉 Bob — -40 (5 конов)\n"
           "🏆 Чемпион: Ann (+75)\n"
           "🎲 Больше всех конов: Cid (5 конов)\n"
           "🏦 Лучший банкир: Ann (3 банка)\n"
           "🃏 Лучшая комбинация: Cid (фулл-хаус: тройка тузов и пара пятёрок)\n"
           "Начался новый сезон: /season")


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        for chat, title in ((CHAT, "Casino Royale"), (OTHER, "Salon")):
            await b.storage.create_table(chat_id=chat, game="chemin_de_fer", settings={},
                                         state_json="{}", version=0)
            await b.storage.set_chat_title(chat_id=chat, title=title)
            for user, name in NAMES.items():
                await b.storage.wallet(chat_id=chat, user_id=user, name=name)
        yield b


async def seed(db: Backend, chat: int, coups: list[SettledCoup]) -> None:
    """Commit one step of the chat's table per coup."""
    for version, settled in enumerate(coups):
        await db.storage.commit_step(chat_id=chat, expected_version=version, state_json="{}",
                                     version=version + 1, transfers=[], coup=settled.coup,
                                     deadline=None, settled=[settled])


def rollover(storage: Any, when: float) -> Seasons:
    """The rollover on ``storage`` with its clock at ``when``."""
    return Seasons(storage, Languages(storage, "en"), Doorbell(), now=lambda: when)


async def posts(db: Backend, chat: int) -> list[str]:
    """The group posts waiting in the chat's outbox."""
    return [item.payload["text"] for item in await db.storage.pending_outbox(chat_id=chat)
            if item.kind == GROUP]


# ------------------------------------------------------------------ the rollover

async def test_a_month_rolled_over_posts_its_podium_and_titles_once_in_each_chats_language(
        db: Backend) -> None:
    await seed(db, CHAT, [*OCTOBER, AROUND[1]])
    await seed(db, OTHER, [c.model_copy(update={"opened": OPENED + 1}) for c in OCTOBER])
    await db.storage.set_chat_language(chat_id=OTHER, language="ru")
    assert await rollover(db.storage, at(10, 31, 23)).check() == []  # not over yet
    done = await rollover(db.storage, at(11, 1, 0)).check()
    assert [(s.chat_id, s.number, s.kind, s.first_day, s.last_day) for s in done] == [
        (OTHER, 1, "month", dt.date(2026, 10, 1), dt.date(2026, 10, 31)),
        (CHAT, 1, "month", dt.date(2026, 10, 1), dt.date(2026, 10, 31))]
    assert await posts(db, CHAT) == [POST_EN]
    assert await posts(db, OTHER) == [POST_RU]
    assert done[1].results["podium"] == [
        {"user_id": ANN, "name": "Ann", "net": 75, "coups": 4},
        {"user_id": CID, "name": "Cid", "net": -35, "coups": 5},
        {"user_id": BOB, "name": "Bob", "net": -40, "coups": 5}]
    assert [(t["title"], t["user_id"], t["figure"]) for t in done[1].results["titles"]] == [
        ("champion", ANN, 75), ("most_coups", CID, 5), ("best_banker", ANN, 3),
        ("best_hand", CID, {"category": "full_house", "ranks": [12, 3]})]


async def test_a_season_is_recorded_once_when_checked_again_or_by_another_host(
        db: Backend) -> None:
    await seed(db, CHAT, OCTOBER)
    first = await rollover(db.storage, at(11, 3)).check()
    assert [s.number for s in first] == [1]
    assert await rollover(db.storage, at(11, 4)).check() == []
    other = db.another()
    await other.open()
    try:
        assert await rollover(other, at(11, 30)).check() == []
    finally:
        await other.close()
    assert await posts(db, CHAT) == [POST_EN]
    assert await db.storage.seasons(chat_id=CHAT) == first
    titles = await db.storage.player_titles(user_id=ANN)
    assert [(t.title, t.chat_title, t.season.number) for t in titles] == [
        ("best_banker", "Casino Royale", 1), ("champion", "Casino Royale", 1)]


async def test_no_post_for_a_season_nobody_was_ranked_in_nor_for_a_chat_without_seasons(
        db: Backend) -> None:
    await seed(db, CHAT, OCTOBER[:2])  # two coups each: nobody ranked
    await seed(db, OTHER, OCTOBER)
    await db.storage.set_chat_settings(chat_id=OTHER, settings={"season": "off"})
    done = await rollover(db.storage, at(11, 2)).check()
    assert [(s.chat_id, s.results) for s in done] == [(CHAT, {"podium": [], "titles": []})]
    assert await posts(db, CHAT) == []
    assert await posts(db, OTHER) == []
    assert await rollover(db.storage, at(11, 3)).check() == []
    assert await season_text(db.storage, "en", CHAT, 1, dt.date(2026, 11, 3)) == (
        "Nobody was ranked in season 1 (October 2026).")
    assert await season_text(db.storage, "en", OTHER, None, dt.date(2026, 11, 3)) == (
        "Seasons are off in this chat: /settings default season month")


async def test_a_weekly_season_is_its_iso_week_and_a_quarterly_one_its_quarter(
        db: Backend) -> None:
    await seed(db, CHAT, OCTOBER)
    await db.storage.set_chat_settings(chat_id=CHAT, settings={"season": "week"})
    # week 44 of 2026: Monday 26 October to Sunday 1 November; coup 5 alone in it
    done = await rollover(db.storage, at(11, 2)).check()
    assert [(s.kind, s.first_day, s.last_day, s.results["podium"]) for s in done] == [
        ("week", dt.date(2026, 10, 26), dt.date(2026, 11, 1), [])]
    await db.storage.set_chat_settings(chat_id=CHAT, settings={"season": "quarter"})
    assert await rollover(db.storage, at(12, 31)).check() == []  # Q4 has not ended
    new_year = dt.datetime(2027, 1, 1, tzinfo=dt.UTC).timestamp()
    done = await rollover(db.storage, new_year).check()
    assert [(s.number, s.kind, s.first_day, s.last_day) for s in done] == [
        (2, "quarter", dt.date(2026, 10, 1), dt.date(2026, 12, 31))]
    assert await posts(db, CHAT) == [POST_EN.replace("Season 1 · October 2026",
                                                     "Season 2 · Q4 2026")]


# ------------------------------------------------------------------ storage

async def test_recording_a_season_again_writes_nothing_and_numbers_follow_in_the_chat(
        db: Backend) -> None:
    def post(season: Season) -> list[OutboxDraft]:
        return [OutboxDraft(kind=GROUP, target=CHAT, payload={"text": f"#{season.number}"})]

    def record(kind: str, first: dt.date) -> Any:
        return db.storage.record_season(chat_id=CHAT, kind=kind, first_day=first,
                                        last_day=first + dt.timedelta(days=6),
                                        results={"podium": [1]}, titles={"champion": BOB},
                                        post=post)

    one = await record("week", dt.date(2026, 10, 5))
    assert one is not None and one.number == 1
    assert await record("week", dt.date(2026, 10, 5)) is None
    two = await record("month", dt.date(2026, 10, 5))
    assert two is not None and two.number == 2
    assert await posts(db, CHAT) == ["#1", "#2"]
    assert [s.number for s in await db.storage.seasons(chat_id=CHAT)] == [1, 2]
    assert await db.storage.seasons(chat_id=OTHER) == []
    assert [(t.title, t.season.kind) for t in await db.storage.player_titles(user_id=BOB)] == [
        ("champion", "week"), ("champion", "month")]
    assert await db.storage.player_titles(user_id=ANN) == []


async def test_two_hosts_recording_one_season_at_once_record_it_once(db: Backend) -> None:
    await seed(db, CHAT, OCTOBER)
    other = db.another()
    await other.open()
    try:
        done = await asyncio.gather(*(rollover(s, at(11, 1)).check()
                                      for s in (db.storage, other, db.storage, other)))
    finally:
        await other.close()
    assert sorted(len(d) for d in done) == [0, 0, 0, 1]
    assert await posts(db, CHAT) == [POST_EN]


async def test_the_chats_to_close_are_those_that_played_in_the_season_and_have_not(
        db: Backend) -> None:
    await seed(db, CHAT, [AROUND[0], *OCTOBER])
    await seed(db, OTHER, [AROUND[1].model_copy(update={"opened": OPENED + 1})])
    october = ("month", dt.date(2026, 10, 1), dt.date(2026, 10, 31))
    assert await db.storage.unseasoned_chats(
        kind=october[0], first_day=october[1], last_day=october[2]) == [CHAT]
    assert [c.coup for c in await db.storage.coups_between(
        chat_id=CHAT, since=october[1], until=october[2])] == [1, 2, 3, 4, 5]
    await rollover(db.storage, at(11, 1)).check()
    assert await db.storage.unseasoned_chats(
        kind=october[0], first_day=october[1], last_day=october[2]) == []


# ------------------------------------------------------------------ texts

async def test_season_n_shows_its_post_again_and_season_the_current_standings(
        db: Backend) -> None:
    await seed(db, CHAT, [*OCTOBER, *(c.model_copy(update={"coup": 100 + c.coup,
                                                           "settled_at": c.settled_at + 86400 * 30})
                                      for c in OCTOBER[:3])])
    await rollover(db.storage, at(11, 1)).check()
    assert await season_text(db.storage, "en", CHAT, 1, dt.date(2026, 11, 28)) == POST_EN
    assert await season_text(db.storage, "ru", CHAT, 1, dt.date(2026, 11, 28)) == POST_RU
    assert await season_text(db.storage, "en", CHAT, 2, dt.date(2026, 11, 28)) == (
        "There is no season 2 here; seasons ended: 1.")
    assert await season_text(db.storage, "en", CHAT, None, dt.date(2026, 11, 28)) == (
        "📅 <b>This season · November 2026</b> (2026-11-01 – 2026-11-30)\n"
        "1. Ann — +70 (3 coups, 2 won)\n"
        "2. Bob — -20 (3 coups, 1 won)\n"
        "3. Cid — -50 (3 coups, 0 won)\n"
        "To be ranked, play 3 coups.")
    assert await season_text(db.storage, "ru", CHAT, None, dt.date(2026, 11, 28)) == (
        "📅 <b>Текущий сезон · ноябрь 2026</b> (2026-11-01 – 2026-11-30)\n"
        "1. Ann — +70 (3 кона, выиграно 2)\n"
        "2. Bob — -20 (3 кона, выиграно 1)\n"
        "3. Cid — -50 (3 кона, выиграно 0)\n"
        "Чтобы попасть в рейтинг, сыграйте 3 кона.")
    titles = await db.storage.player_titles(user_id=ANN)
    assert words.titles_lines("en", titles) == [
        "🏆 Champion of Casino Royale, October 2026",
        "🏦 Best banker of Casino Royale, October 2026"]
    assert words.titles_lines("ru", titles) == [
        "🏆 Чемпион чата «Casino Royale», октябрь 2026",
        "🏦 Лучший банкир чата «Casino Royale», октябрь 2026"]
    cid = await db.storage.player_titles(user_id=CID)
    assert words.titles_lines("en", cid) == [
        "🎲 Most coups in Casino Royale, October 2026",
        "🃏 Best hand in Casino Royale, October 2026"]


def test_season_names_in_english_and_russian() -> None:
    assert [words.season_name("en", k, dt.date(2026, 10, 1)) for k in
            ("week", "month", "quarter")] == ["week 40, 2026", "October 2026", "Q4 2026"]
    assert [words.season_name("ru", k, dt.date(2026, 10, 1)) for k in
            ("week", "month", "quarter")] == ["40-я неделя 2026", "октябрь 2026",
                                              "4-й квартал 2026"]


# ------------------------------------------------------------------ periods, setting

def test_a_season_is_an_iso_week_a_calendar_month_or_a_calendar_quarter_in_utc() -> None:
    day = dt.date(2026, 12, 31)  # a Thursday
    assert season_days("week", day) == (dt.date(2026, 12, 28), dt.date(2027, 1, 3))
    assert season_days("month", day) == (dt.date(2026, 12, 1), day)
    assert season_days("quarter", day) == (dt.date(2026, 10, 1), day)
    assert season_days("month", dt.date(2028, 2, 10)) == (dt.date(2028, 2, 1),
                                                          dt.date(2028, 2, 29))
    assert season_days("quarter", dt.date(2026, 5, 5)) == (dt.date(2026, 4, 1),
                                                           dt.date(2026, 6, 30))
    assert last_ended("month", dt.date(2027, 1, 1)) == (dt.date(2026, 12, 1), day)
    assert last_ended("quarter", dt.date(2027, 1, 1)) == (dt.date(2026, 10, 1), day)
    assert last_ended("week", dt.date(2027, 1, 4)) == (dt.date(2026, 12, 28),
                                                       dt.date(2027, 1, 3))


def test_a_chats_season_is_a_month_unless_it_chose_another_or_none() -> None:
    assert kind_of({}) == "month"
    assert [kind_of({"season": k}) for k in ("off", "week", "quarter", "year")] == [
        "off", "week", "quarter", "month"]

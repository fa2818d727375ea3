"""The all-chats board on SQLite and PostgreSQL alike: only the coups of listed chats count,
whenever the chat was listed; unlisting takes them away; each player's name and his choice
to show it; a rebuild gives the board the steps gave it."""

from __future__ import annotations

import datetime as dt
import random

from storage_backends import Backend
from test_storage_standings import ANN, BOB, CHAT, CID, DAN, OTHER, coup, db, settle

from storage.base import BoardStanding

__all__ = ["db"]  # fixtures

THIRD = -300


def line(user: int, name: str, coups: int, won: int, net: int,
         public: bool = False) -> BoardStanding:
    return BoardStanding(user_id=user, name=name, coups=coups, won=won, net=net, public=public)


async def listed(db: Backend, chat: int, on: bool) -> None:
    settings = await db.storage.chat_settings(chat_id=chat)
    await db.storage.set_chat_settings(chat_id=chat, settings={**settings, "global": on})


async def board_rows(db: Backend) -> list[tuple[object, ...]]:
    return await db.raw("SELECT game, day, user_id, coups, won, net FROM stat_global"
                        " ORDER BY 1, 2, 3")


async def test_the_board_sums_the_listed_chats_alone_names_and_choices_with_them(
        db: Backend) -> None:
    s = db.storage
    await s.wallet(chat_id=CHAT, user_id=ANN, name="Ann")
    await s.wallet(chat_id=OTHER, user_id=BOB, name="Bob")
    await s.set_chat_settings(chat_id=CHAT, settings={"season": "week"})
    # played before the chat is listed: counted once it is
    await settle(db, 0, coup(1, {ANN: 30, BOB: -10, CID: -20}, day=1))
    await listed(db, CHAT, True)
    assert await s.chat_settings(chat_id=CHAT) == {"season": "week", "global": True}
    await settle(db, 1, coup(2, {ANN: -40, BOB: 20, CID: 20}, day=2, game="baccarat"))
    await settle(db, 2, coup(3, {ANN: 5, BOB: -5, CID: 0}, day=3))
    # the unlisted chat's coups never count
    await settle(db, 0, coup(1, {DAN: 500, BOB: 100, ANN: -600}, day=2), chat=OTHER)
    await settle(db, 1, coup(2, {DAN: 500, BOB: 100, ANN: -600}, day=2), chat=OTHER)
    await settle(db, 2, coup(3, {DAN: 500, BOB: 100, ANN: -600}, day=2), chat=OTHER)
    await s.set_player_public(user_id=BOB, public=True)
    await s.set_player_public(user_id=CID, public=True)
    await s.set_player_public(user_id=CID, public=False)
    assert [await s.player_public(user_id=u) for u in (ANN, BOB, CID)] == [False, True, False]
    assert await s.board(min_coups=3) == [
        line(BOB, "Bob", 3, 1, 5, public=True), line(CID, "", 3, 1, 0),
        line(ANN, "Ann", 3, 2, -5)]
    assert await s.board(game="chemin_de_fer", min_coups=1) == [
        line(ANN, "Ann", 2, 2, 35), line(BOB, "Bob", 2, 0, -15, public=True),
        line(CID, "", 2, 0, -20)]
    day2, day3 = dt.date(2026, 11, 2), dt.date(2026, 11, 3)
    assert await s.board(since=day2, until=day2) == [
        line(BOB, "Bob", 1, 1, 20, public=True), line(CID, "", 1, 1, 20),
        line(ANN, "Ann", 1, 0, -40)]
    assert await s.board(since=day3, limit=1) == [line(ANN, "Ann", 1, 1, 5)]
    assert await s.board(since=day2, min_coups=3) == []
    # his newest named wallet names him
    await s.wallet(chat_id=THIRD, user_id=ANN, name="Annie")
    assert (await s.board(limit=1, game="chemin_de_fer"))[0].name == "Annie"
    # the other chat listed: its coups count, all of them; unlisted again: gone again
    await listed(db, OTHER, True)
    assert await s.board(min_coups=3) == [
        line(DAN, "", 3, 3, 1500), line(BOB, "Bob", 6, 4, 305, public=True),
        line(CID, "", 3, 1, 0), line(ANN, "Annie", 6, 2, -1805)]
    await listed(db, OTHER, False)
    await listed(db, CHAT, False)
    assert await s.board(min_coups=1) == []
    assert await board_rows(db) == []


async def test_a_rebuild_gives_the_board_the_steps_gave_it(db: Backend) -> None:
    rng = random.Random(15)
    versions = {CHAT: 0, OTHER: 0, THIRD: 0}
    await db.storage.create_table(chat_id=THIRD, game="chemin_de_fer", settings={},
                                  state_json="{}", version=0)
    await listed(db, THIRD, True)
    for n in range(1, 46):
        chat = rng.choice([CHAT, OTHER, THIRD])
        players = rng.sample([ANN, BOB, CID, DAN], rng.randint(2, 4))
        await settle(db, versions[chat], coup(
            n, {p: rng.randint(-50, 50) for p in players},
            game=rng.choice(["chemin_de_fer", "draw_poker"]), day=rng.randint(1, 5)), chat=chat)
        versions[chat] += 1
        if n == 15:
            await listed(db, CHAT, True)
        if n == 30:
            await listed(db, THIRD, False)
    live = await board_rows(db)
    assert len(live) >= 40
    assert {r[2] for r in live} == {ANN, BOB, CID, DAN}
    await db.raw("DELETE FROM stat_global")
    await db.raw("INSERT INTO stat_global VALUES ('', '', 99, 5, 5, 5)")
    await db.storage.rebuild_stats()
    assert await board_rows(db) == live
    # and the board is what CHAT's own standings say, CHAT being the one listed chat
    ranked = await db.storage.standings(chat_id=CHAT, min_coups=1, limit=10)
    assert [(r.user_id, r.coups, r.won, r.net) for r in await db.storage.board()] == [
        (r.user_id, r.coups, r.won, r.net) for r in ranked]


async def test_a_period_is_read_with_its_window_which_a_coup_on_its_days_drops(
        db: Backend) -> None:
    rng = random.Random(8)
    versions = {CHAT: 0, OTHER: 0}
    await listed(db, CHAT, True)

    async def play(n: int, day: int, chat: int = CHAT) -> None:
        players = rng.sample([ANN, BOB, CID, DAN], rng.randint(2, 4))
        await settle(db, versions[chat], coup(n, {p: rng.randint(-50, 50) for p in players},
                                              day=day), chat=chat)
        versions[chat] += 1

    for n in range(1, 31):
        await play(n, rng.randint(1, 6), rng.choice([CHAT, OTHER]))

    async def agree(first: int, last: int) -> None:
        # CHAT is the one listed chat: the board over a period is its standings
        since, until = dt.date(2026, 11, first), dt.date(2026, 11, last)
        ranked = await db.storage.standings(chat_id=CHAT, since=since, until=until)
        assert [(r.user_id, r.coups, r.won, r.net) for r in await db.storage.board(
            since=since, until=until)] == [(r.user_id, r.coups, r.won, r.net) for r in ranked]
        assert ranked

    windows = "SELECT game, first_day, last_day FROM stat_global_windows ORDER BY 1, 2"
    await agree(1, 4)
    assert await db.raw(windows) == [("", "2026-11-01", "2026-11-03")]
    await agree(2, 6)  # a later last day: the earlier window is read no more
    assert await db.raw(windows) == [("", "2026-11-02", "2026-11-05")]
    await agree(2, 6)
    await play(31, 6)  # on the period's last day: read from its rows, the window stands
    assert await db.raw(windows) == [("", "2026-11-02", "2026-11-05")]
    await agree(2, 6)
    await play(32, 3)  # on one of the window's days: dropped, and made again with it
    assert await db.raw(windows) == []
    await agree(2, 6)
    await play(33, 1, OTHER)  # an unlisted chat's coup drops nothing
    assert await db.raw(windows) == [("", "2026-11-02", "2026-11-05")]
    await listed(db, OTHER, False)  # a setting that lists nothing new moves nothing
    assert await db.raw(windows) == [("", "2026-11-02", "2026-11-05")]
    await listed(db, CHAT, False)
    assert await db.raw(windows) == []
    assert await db.storage.board(since=dt.date(2026, 11, 2), until=dt.date(2026, 11, 6)) == []

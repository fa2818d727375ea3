"""Standings on SQLite and PostgreSQL alike: settled coups recorded with their step, the
figures folded from them exactly, a coup counted once, and a rebuild equal to the fold."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from storage_backends import BACKENDS, RAW_ERRORS, Backend, backend

from games.poker.ranking import hand_of, hand_value
from storage.base import PlayerStats, SettledCoup, Standing
from storage.standings import CATEGORY_ORDER, DERIVED, hand_key

CHAT, OTHER = -100, -200
ANN, BOB, CID, DAN = 1, 2, 3, 4
OPENED = 1_700_000_000.5


def at(day: int, hour: int = 12) -> float:
    """An epoch time on 2026-11-``day`` (UTC)."""
    return dt.datetime(2026, 11, day, hour, tzinfo=dt.UTC).timestamp()


def coup(n: int, nets: dict[int, int], *, game: str = "chemin_de_fer", banker: int | None = None,
         day: int = 1, hands: dict[int, dict[str, Any]] | None = None,
         feats: dict[int, tuple[str, ...]] | None = None, opened: float = OPENED) -> SettledCoup:
    return SettledCoup(game=game, coup=n, opened=opened, settled_at=at(day), banker=banker,
                       nets=nets, winners=tuple(u for u, v in nets.items() if v > 0),
                       hands=hands or {}, feats=feats or {})


def poker(category: str, *ranks: int) -> dict[str, Any]:
    return {"category": category, "ranks": list(ranks)}


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        for chat in (CHAT, OTHER):
            await b.storage.create_table(chat_id=chat, game="chemin_de_fer", settings={},
                                         state_json="{}", version=0)
        yield b


async def settle(db: Backend, version: int, *settled: SettledCoup, chat: int = CHAT) -> int:
    """Commit a step of the chat's table from ``version`` that settles ``settled``."""
    return await db.storage.commit_step(chat_id=chat, expected_version=version,
                                        state_json="{}", version=version + 1, transfers=[],
                                        coup=settled[0].coup if settled else 0, deadline=None,
                                        settled=settled)


async def dump(db: Backend) -> dict[str, list[tuple[Any, ...]]]:
    """Every derived table, whole, by key."""
    return {table: await db.raw(f"SELECT * FROM {table} ORDER BY 1, 2, 3, 4")
            for table in DERIVED}


async def test_a_coup_folds_into_each_players_figures_exactly(db: Backend) -> None:
    await settle(db, 0, coup(1, {ANN: 50, BOB: -30, CID: -20}, banker=ANN,
                             feats={ANN: ("natural",), BOB: ("banco", "banco")}))
    await settle(db, 1, coup(2, {ANN: -40, BOB: 40, CID: 0}, banker=ANN,
                             feats={BOB: ("banco", "banco_won")}))
    await settle(db, 2, coup(3, {ANN: 10, BOB: -10}, banker=BOB, day=2))
    await settle(db, 3, coup(4, {ANN: -5, BOB: 5}, banker=BOB, day=2),
                 coup(5, {ANN: 7, BOB: -7}, banker=BOB, day=2))
    assert await db.storage.player_stats(user_id=ANN, chat_id=CHAT) == PlayerStats(
        user_id=ANN, coups=5, won=3, lost=2, net=22, best=50, worst=-40, banks=2,
        longest_bank=2, feats={"natural": 1})
    assert await db.storage.player_stats(user_id=BOB) == PlayerStats(
        user_id=BOB, coups=5, won=2, lost=3, net=-2, best=40, worst=-30, banks=3,
        longest_bank=3, feats={"banco": 3, "banco_won": 1})
    assert await db.storage.player_stats(user_id=CID, chat_id=CHAT,
                                         game="chemin_de_fer") == PlayerStats(
        user_id=CID, coups=2, won=0, lost=1, net=-20, best=0, worst=-20)
    assert await db.storage.player_stats(user_id=DAN) == PlayerStats(user_id=DAN)
    assert await db.raw("SELECT * FROM stat_days ORDER BY day, user_id") == [
        (CHAT, "chemin_de_fer", "2026-11-01", ANN, 2, 1, 1, 10, 50, -40, 2),
        (CHAT, "chemin_de_fer", "2026-11-01", BOB, 2, 1, 1, 10, 40, -30, 0),
        (CHAT, "chemin_de_fer", "2026-11-01", CID, 2, 0, 1, -20, 0, -20, 0),
        (CHAT, "chemin_de_fer", "2026-11-02", ANN, 3, 2, 1, 12, 10, -5, 0),
        (CHAT, "chemin_de_fer", "2026-11-02", BOB, 3, 1, 2, -12, 5, -10, 3)]
    # Ann's run ended when Bob took the bank; Cid, not dealt in since, keeps his 0.
    assert await db.raw("SELECT user_id, bank_run, longest_bank FROM stat_players"
                        " ORDER BY user_id") == [(ANN, 0, 2), (BOB, 3, 3), (CID, 0, 0)]
    assert await db.raw("SELECT chat_id, step_id, coup, banker FROM coups ORDER BY coup_id") == [
        (CHAT, s, n, b) for s, n, b in ((1, 1, ANN), (2, 2, ANN), (3, 3, BOB), (4, 4, BOB),
                                        (4, 5, BOB))]


async def test_the_best_poker_hand_shown_is_kept_and_points_are_not_hands(db: Backend) -> None:
    await settle(db, 0, coup(1, {ANN: 20, BOB: -20}, game="draw_poker",
                             hands={ANN: poker("two_pair", 12, 3), BOB: poker("pair", 9)}))
    await settle(db, 1, coup(2, {ANN: -20, BOB: 20}, game="draw_poker",
                             hands={ANN: poker("pair", 12), BOB: poker("straight", 4)}))
    await settle(db, 2, coup(3, {ANN: 20, BOB: -20}, game="draw_poker",
                             hands={ANN: poker("two_pair", 12, 4)}))
    await settle(db, 3, coup(4, {ANN: 10, BOB: -10}, game="twenty_one",
                             hands={ANN: {"n": 21, "bust": False}, BOB: {"n": 23, "bust": True}}))
    await settle(db, 0, coup(1, {ANN: 5, BOB: -5}, game="stud_poker",
                             hands={ANN: poker("royal_flush")}), chat=OTHER)
    ann = await db.storage.player_stats(user_id=ANN, chat_id=CHAT)
    assert ann.best_hand == {"category": "two_pair", "ranks": [12, 4]}
    assert (await db.storage.player_stats(user_id=ANN)).best_hand == {
        "category": "royal_flush", "ranks": []}
    assert (await db.storage.player_stats(user_id=BOB)).best_hand == {
        "category": "straight", "ranks": [4]}
    assert (await db.storage.player_stats(user_id=ANN, game="twenty_one")).best_hand is None


def test_hand_keys_follow_the_poker_ranking() -> None:
    # One hand of each category, weakest first, and within a category the higher ranks.
    hands = [["2c", "5d", "9h", "Js", "Kc"], ["2c", "2d", "9h", "Js", "Kc"],
             ["3c", "3d", "2h", "2s", "Kc"], ["3c", "3d", "3h", "2s", "Kc"],
             ["2c", "3d", "4h", "5s", "6c"], ["2c", "5c", "9c", "Jc", "Kc"],
             ["3c", "3d", "3h", "2s", "2c"], ["3c", "3d", "3h", "3s", "Kc"],
             ["9c", "Tc", "Jc", "Qc", "Kc"], ["Tc", "Jc", "Qc", "Kc", "Ac"]]
    named = [hand_of(hand_value(h)) for h in hands]
    keys = [hand_key({"category": str(v.category), "ranks": list(v.ranks)}) for v in named]
    assert [str(v.category) for v in named] == list(CATEGORY_ORDER)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert hand_key(poker("pair", 9)) < hand_key(poker("pair", 10))  # type: ignore[operator]
    assert hand_key(poker("two_pair", 12, 3)) < hand_key(  # type: ignore[operator]
        poker("two_pair", 12, 4))
    assert hand_key({"n": 21, "bust": False}) is None
    assert hand_key(poker("possible_flush")) is None


async def test_a_coup_recorded_before_is_not_counted_again_and_the_step_goes_on(
        db: Backend) -> None:
    await settle(db, 0, coup(1, {ANN: 50, BOB: -50}, banker=ANN))
    once = await db.storage.player_stats(user_id=ANN, chat_id=CHAT)
    # a twin of coup 1 comes with coup 2: coup 2 counts, the twin does not, the step commits
    await settle(db, 1, coup(2, {ANN: 1, BOB: -1}), coup(1, {ANN: 9, BOB: -9}))
    assert (await db.storage.load_table(chat_id=CHAT)).version == 2
    assert await db.raw("SELECT coup FROM coups ORDER BY coup") == [(1,), (2,)]
    assert await db.storage.player_stats(user_id=ANN, chat_id=CHAT) == once.model_copy(
        update={"coups": 2, "won": 2, "net": 51})
    # The same coup number of another table opening, or of another chat, is another coup.
    await settle(db, 2, coup(1, {ANN: 2, BOB: -2}, opened=OPENED + 1))
    await settle(db, 0, coup(1, {ANN: 2, BOB: -2}), chat=OTHER)
    assert (await db.storage.player_stats(user_id=ANN)).coups == 4


async def test_closing_a_table_records_the_coups_it_settles(db: Backend) -> None:
    await db.storage.close_table(chat_id=CHAT, expected_version=0, transfers=[], coup=1,
                                 settled=[coup(1, {ANN: 5, BOB: -5}, banker=BOB)])
    assert await db.storage.player_stats(user_id=BOB, chat_id=CHAT) == PlayerStats(
        user_id=BOB, coups=1, lost=1, net=-5, worst=-5, banks=1, longest_bank=1)


async def test_a_rebuild_gives_the_tables_the_steps_folded(db: Backend) -> None:
    rng = random.Random(33)
    games = ["chemin_de_fer", "draw_poker", "twenty_one"]
    categories = list(CATEGORY_ORDER)
    versions = {CHAT: 0, OTHER: 0}
    for n in range(1, 61):
        chat = rng.choice([CHAT, OTHER])
        players = rng.sample([ANN, BOB, CID, DAN], rng.randint(2, 4))
        nets = {p: rng.randint(-50, 50) for p in players}
        hands = {p: poker(rng.choice(categories), rng.randrange(13)) for p in players
                 if rng.random() < 0.5}
        feats = {p: tuple(rng.sample(["natural", "bust", "banco"], rng.randint(0, 2)))
                 for p in players}
        await settle(db, versions[chat],
                     coup(n, nets, game=rng.choice(games), banker=rng.choice([*players, None]),
                          day=rng.randint(1, 5), hands=hands, feats=feats), chat=chat)
        versions[chat] += 1
    folded = await dump(db)
    assert sum(len(rows) for rows in folded.values()) > 100
    assert await db.storage.rebuild_stats() == 60
    assert await dump(db) == folded
    for table in DERIVED:
        await db.raw(f"DELETE FROM {table}")
    # A row no coup accounts for (a chat without any) is gone after a rebuild too.
    await db.raw("INSERT INTO stat_feats VALUES (-999, 'baccarat', 1, 'natural', 5)")
    assert await db.storage.rebuild_stats() == 60
    assert await dump(db) == folded


async def test_standings_rank_a_chats_players_over_a_period(db: Backend) -> None:
    await db.storage.wallet(chat_id=CHAT, user_id=ANN, name="Ann")
    await db.storage.wallet(chat_id=CHAT, user_id=BOB, name="Bob")
    await db.storage.wallet(chat_id=OTHER, user_id=CID, name="Cid elsewhere")
    await settle(db, 0, coup(1, {ANN: 30, BOB: -10, CID: -20}, day=1))
    await settle(db, 1, coup(2, {ANN: -40, BOB: 20, CID: 20}, day=2, game="baccarat"))
    await settle(db, 2, coup(3, {ANN: 5, BOB: -5}, day=3))
    await settle(db, 3, coup(4, {BOB: 10, CID: -10}, day=3))
    await settle(db, 0, coup(1, {DAN: 100, ANN: -100}, day=2), chat=OTHER)
    s = db.storage
    assert await s.standings(chat_id=CHAT) == [
        Standing(user_id=BOB, name="Bob", coups=4, won=2, net=15),
        Standing(user_id=ANN, name="Ann", coups=3, won=2, net=-5),
        Standing(user_id=CID, name="3", coups=3, won=1, net=-10)]
    assert await s.standings(chat_id=CHAT, game="chemin_de_fer") == [
        Standing(user_id=ANN, name="Ann", coups=2, won=2, net=35),
        Standing(user_id=BOB, name="Bob", coups=3, won=1, net=-5),
        Standing(user_id=CID, name="3", coups=2, won=0, net=-30)]
    day2, day3 = dt.date(2026, 11, 2), dt.date(2026, 11, 3)
    assert await s.standings(chat_id=CHAT, since=day2, until=day2) == [
        Standing(user_id=BOB, name="Bob", coups=1, won=1, net=20),
        Standing(user_id=CID, name="3", coups=1, won=1, net=20),
        Standing(user_id=ANN, name="Ann", coups=1, won=0, net=-40)]
    assert await s.standings(chat_id=CHAT, since=day3) == [
        Standing(user_id=BOB, name="Bob", coups=2, won=1, net=5),
        Standing(user_id=ANN, name="Ann", coups=1, won=1, net=5),
        Standing(user_id=CID, name="3", coups=1, won=0, net=-10)]
    assert await s.standings(chat_id=CHAT, until=day2, min_coups=2, limit=1) == [
        Standing(user_id=BOB, name="Bob", coups=2, won=1, net=10)]
    assert await s.standings(chat_id=CHAT, min_coups=4) == [
        Standing(user_id=BOB, name="Bob", coups=4, won=2, net=15)]
    assert await s.standings(chat_id=CHAT, game="stud_poker") == []


async def test_player_stats_add_up_his_chats_or_keep_to_one(db: Backend) -> None:
    await settle(db, 0, coup(1, {ANN: 30, BOB: -30}, banker=ANN, feats={ANN: ("natural",)}))
    await settle(db, 1, coup(2, {ANN: 10, BOB: -10}, banker=ANN, game="baccarat"))
    await settle(db, 0, coup(1, {ANN: -60, BOB: 60}, banker=ANN, feats={ANN: ("natural",)}),
                 chat=OTHER)
    await settle(db, 1, coup(2, {ANN: -1, BOB: 1}, banker=ANN), chat=OTHER)
    await settle(db, 2, coup(3, {ANN: -1, BOB: 1}, banker=ANN), chat=OTHER)
    s = db.storage
    assert await s.player_stats(user_id=ANN) == PlayerStats(
        user_id=ANN, coups=5, won=2, lost=3, net=-22, best=30, worst=-60, banks=5,
        longest_bank=3, feats={"natural": 2})
    assert await s.player_stats(user_id=ANN, chat_id=CHAT) == PlayerStats(
        user_id=ANN, coups=2, won=2, net=40, best=30, banks=2, longest_bank=1,
        feats={"natural": 1})
    assert await s.player_stats(user_id=ANN, game="chemin_de_fer") == PlayerStats(
        user_id=ANN, coups=4, won=1, lost=3, net=-32, best=30, worst=-60, banks=4,
        longest_bank=3, feats={"natural": 2})
    assert await s.player_stats(user_id=ANN, chat_id=OTHER, game="baccarat") == PlayerStats(
        user_id=ANN)


async def test_recorded_coups_cannot_be_rewritten(db: Backend) -> None:
    await settle(db, 0, coup(1, {ANN: 5, BOB: -5}))
    with pytest.raises(RAW_ERRORS):
        await db.raw("UPDATE coups SET banker = 1")
    with pytest.raises(RAW_ERRORS):
        await db.raw("DELETE FROM coups")

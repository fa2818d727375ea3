"""Achievements on SQLite and PostgreSQL alike: reached once per chat and game at the coup
that first meets the condition its game declares (a feat counted so many times, the bank
held so many coups in a row, a poker hand of a category or better shown), recorded with
the step, foreseen exactly by ``achievements_due`` (which writes nothing), and a rebuild
equal to what the steps recorded."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import highcard
import pytest
from storage_backends import BACKENDS, Backend, backend
from test_storage_standings import ANN, BOB, CHAT, CID, DAN, OPENED, OTHER, at, dump, poker
from test_storage_standings import coup as any_coup

from games import registry
from games.engine import Achievement, GameTexts
from storage.base import Earned, SettledCoup
from storage.standings import CATEGORY_ORDER, DERIVED

GAME = "trial_card"


class Trial(highcard.HighCard):
    """High card declaring one achievement of each kind (feats, a bank run, a hand)."""

    name: ClassVar[str] = GAME
    texts: ClassVar[GameTexts] = highcard.TEXTS.model_copy(update={
        "name": {"en": "Trial", "ru": "Проба"}, "aliases": ("trial",)})
    achievements: ClassVar[tuple[Achievement, ...]] = (
        Achievement(key="first_double", feat="hc_doubled"),
        Achievement(key="three_doubles", feat="hc_doubled", count=3),
        Achievement(key="bank_three", bank_run=3),
        Achievement(key="full_house", hand="full_house"))


@pytest.fixture(autouse=True)
def trial() -> Iterator[None]:
    registry.register(Trial(), "test_storage_achievements")
    yield
    registry.unregister(GAME)


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        for chat in (CHAT, OTHER):
            await b.storage.create_table(chat_id=chat, game=GAME, settings={},
                                         state_json="{}", version=0)
        yield b


def coup(n: int, nets: dict[int, int], **kw: Any) -> SettledCoup:
    return any_coup(n, nets, game=GAME, **kw)


def earned(user: int, key: str, n: int, *, chat: int = CHAT, day: int = 1,
           game: str = GAME) -> Earned:
    return Earned(chat_id=chat, user_id=user, game=game, key=key, coup=n, opened=OPENED,
                  earned_at=at(day))


class Chats:
    """Steps of the two chats' tables: each asks what it earns, then commits."""

    def __init__(self, db: Backend) -> None:
        self.db = db
        self.versions = {CHAT: 0, OTHER: 0}

    async def settle(self, *settled: SettledCoup, chat: int = CHAT) -> list[Earned]:
        """Commit a step settling ``settled``; what ``achievements_due`` foresaw, checked
        against what the step recorded."""
        s = self.db.storage
        due = await s.achievements_due(chat_id=chat, settled=settled)
        before = await self.db.raw("SELECT chat_id, user_id, key FROM achievements")
        assert await s.achievements_due(chat_id=chat, settled=settled) == due  # wrote nothing
        await s.commit_step(chat_id=chat, expected_version=self.versions[chat],
                            state_json="{}", version=self.versions[chat] + 1, transfers=[],
                            coup=settled[0].coup, deadline=None, settled=settled)
        self.versions[chat] += 1
        after = await self.db.raw("SELECT chat_id, user_id, key FROM achievements")
        assert sorted(set(after) - set(before)) == sorted(
            (e.chat_id, e.user_id, e.key) for e in due)
        return due


async def test_a_feat_counted_so_often_earns_once_in_each_chat(db: Backend) -> None:
    chats = Chats(db)
    assert await chats.settle(coup(1, {ANN: 5, BOB: -5})) == []
    # players in the order of the nets, then the achievements in the order declared
    assert await chats.settle(coup(2, {BOB: 5, ANN: -5},
                                   feats={ANN: ("hc_doubled",), BOB: ("hc_doubled",)})) == [
        earned(BOB, "first_double", 2), earned(ANN, "first_double", 2)]
    assert await chats.settle(coup(3, {ANN: 5, BOB: -5}, feats={ANN: ("hc_doubled",)})) == []
    assert await chats.settle(coup(4, {ANN: 5, BOB: -5}, day=2,
                                   feats={ANN: ("hc_doubled",)})) == [
        earned(ANN, "three_doubles", 4, day=2)]
    assert await chats.settle(coup(5, {ANN: 5, BOB: -5}, feats={ANN: ("hc_doubled",)})) == []
    # another chat is another count; another game has none declared (its feats earn nothing)
    assert await chats.settle(coup(1, {ANN: 5, BOB: -5}, day=3, feats={ANN: ("hc_doubled",)}),
                              chat=OTHER) == [earned(ANN, "first_double", 1, chat=OTHER, day=3)]
    assert await chats.settle(any_coup(6, {ANN: 5, BOB: -5}, game="no_such_game",
                                       feats={ANN: ("hc_doubled",)})) == []
    s = db.storage
    assert await s.achievements(user_id=ANN, chat_id=CHAT) == [
        earned(ANN, "first_double", 2), earned(ANN, "three_doubles", 4, day=2)]
    assert await s.achievements(user_id=ANN) == [
        earned(ANN, "first_double", 2), earned(ANN, "three_doubles", 4, day=2),
        earned(ANN, "first_double", 1, chat=OTHER, day=3)]
    assert await s.achievements(user_id=BOB, chat_id=OTHER) == []
    assert await s.achievements(user_id=CID) == []


async def test_a_bank_run_and_a_hand_shown_earn_at_the_coup_that_meets_them(
        db: Backend) -> None:
    chats = Chats(db)
    assert await chats.settle(coup(1, {ANN: 5, BOB: -5}, banker=ANN)) == []
    assert await chats.settle(coup(2, {ANN: 5, BOB: -5}, banker=ANN)) == []
    # the run ends when another holds the bank: three more of Ann's it takes
    assert await chats.settle(coup(3, {ANN: 5, BOB: -5}, banker=BOB)) == []
    assert await chats.settle(coup(4, {ANN: 5, BOB: -5}, banker=ANN),
                              coup(5, {ANN: 5, BOB: -5}, banker=ANN)) == []
    # a four of a kind is better than a full house; points are no poker hand
    assert await chats.settle(coup(6, {ANN: 5, BOB: -5}, banker=ANN, hands={
        ANN: {"n": 9, "bust": False}, BOB: poker("four", 7)})) == [
        earned(ANN, "bank_three", 6), earned(BOB, "full_house", 6)]
    assert await chats.settle(coup(7, {ANN: 5, BOB: -5}, banker=ANN, hands={
        BOB: poker("royal_flush", 12)})) == []
    assert await chats.settle(coup(8, {CID: 5, DAN: -5}, hands={
        CID: poker("flush", 12), DAN: poker("full_house", 3, 2)})) == [
        earned(DAN, "full_house", 8)]
    # a banker not dealt in counts nothing
    assert await chats.settle(coup(9, {CID: 5, DAN: -5}, banker=BOB),
                              coup(10, {CID: 5, DAN: -5}, banker=BOB),
                              coup(11, {CID: 5, DAN: -5}, banker=BOB)) == []


async def test_a_coup_recorded_before_earns_nothing_more(db: Backend) -> None:
    chats = Chats(db)
    first = coup(1, {ANN: 5, BOB: -5}, feats={ANN: ("hc_doubled",)})
    assert await chats.settle(first) == [earned(ANN, "first_double", 1)]
    twice = coup(1, {ANN: 5, BOB: -5}, feats={ANN: ("hc_doubled",) * 3})
    assert await db.storage.achievements_due(chat_id=CHAT, settled=[twice]) == []
    assert await chats.settle(coup(2, {ANN: 5, BOB: -5}), twice) == []


async def test_achievements_rebuilt_are_those_the_steps_recorded(db: Backend) -> None:
    rng = random.Random(3333)
    chats = Chats(db)
    categories = list(CATEGORY_ORDER)
    announced = []
    for n in range(1, 81):
        settled = []
        for k in range(rng.choice([1, 1, 1, 2])):
            players = rng.sample([ANN, BOB, CID, DAN], rng.randint(2, 4))
            settled.append(coup(
                n * 10 + k, {p: rng.randint(-50, 50) for p in players},
                banker=rng.choice([*players, players[0], players[0], None]),
                day=rng.randint(1, 5),
                hands={p: poker(rng.choice(categories), rng.randrange(13)) for p in players
                       if rng.random() < 0.3},
                feats={p: ("hc_doubled",) for p in players if rng.random() < 0.2}))
        announced += await chats.settle(*settled, chat=rng.choice([CHAT, OTHER]))
    folded = await dump(db)
    assert len(folded["achievements"]) == len(announced) > 20
    assert {row[3] for row in folded["achievements"]} == {
        "first_double", "three_doubles", "bank_three", "full_house"}
    assert await db.storage.rebuild_stats() == sum(1 for _ in await db.raw("SELECT 1 FROM coups"))
    assert await dump(db) == folded
    for table in DERIVED:
        await db.raw(f"DELETE FROM {table}")
    await db.storage.rebuild_stats()
    assert await dump(db) == folded
    mine = sorted((e for e in announced if e.user_id == BOB),
                  key=lambda e: (e.earned_at, e.chat_id, e.coup))
    assert [e.key for e in await db.storage.achievements(user_id=BOB)] == [e.key for e in mine]

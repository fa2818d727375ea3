"""The poker rating: each rated hand is one Plackett-Luce match as openskill rates it (ranked
by net, ties sharing a place), only poker hands of two players or more count, and on SQLite
and PostgreSQL alike the ratings a step folds are the ratings a rebuild folds, float for
float."""

from __future__ import annotations

import random
from typing import Any

from openskill.models import PlackettLuce
from storage_backends import Backend
from test_storage_standings import ANN, BOB, CHAT, CID, DAN, OTHER, coup, db, settle

from games import registry
from storage import ratings
from storage.base import Rating
from storage.ratings import Skill
from storage.standings import refold

EVE = 5
__all__ = ["db"]  # fixture


def openskill_rated(before: list[tuple[float, float]],
                    ranks: list[float]) -> list[tuple[float, float]]:
    """What openskill itself makes of one match: players of (mu, sigma) ``before``, each a
    team of one, in places ``ranks``."""
    model = PlackettLuce()
    teams = model.rate([[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before],
                       ranks=ranks)
    return [(t[0].mu, t[0].sigma) for t in teams]


def test_only_the_poker_games_are_rated() -> None:
    assert {g: registry.rated(g) for g in registry.GAMES} == {
        "chemin_de_fer": False, "baccarat": False, "banchok": False, "twenty_one": False,
        "draw_poker": True, "stud_poker": True}
    assert ratings.rated("no_such_game") is False


def test_a_hand_is_rated_as_openskill_rates_its_players_ranked_by_net() -> None:
    first = ratings.fold({}, CHAT, coup(1, {CID: -20, ANN: 30, BOB: -10}, game="draw_poker"))
    # by id: Ann first (+30), Bob second (-10), Cid third (-20); everyone from 25, 25/3
    expected = openskill_rated([(25.0, 25 / 3)] * 3, [1, 2, 3])
    assert first == {(CHAT, p): Skill(mu, sigma, 1)
                     for p, (mu, sigma) in zip((ANN, BOB, CID), expected, strict=True)}
    assert first[(CHAT, ANN)].mu > 25 > first[(CHAT, CID)].mu
    # the next hand starts from where the first left them; Dan comes in fresh
    second = ratings.fold(first, CHAT, coup(2, {ANN: -5, CID: 10, DAN: -5}, game="stud_poker"))
    a, c = first[(CHAT, ANN)], first[(CHAT, CID)]
    expected = openskill_rated([(a.mu, a.sigma), (c.mu, c.sigma), (25.0, 25 / 3)], [2, 1, 2])
    assert second == {(CHAT, ANN): Skill(*expected[0], 2), (CHAT, CID): Skill(*expected[1], 2),
                      (CHAT, DAN): Skill(*expected[2], 1)}


def test_equal_nets_share_a_place() -> None:
    assert ratings.ranks({ANN: 10, BOB: 10, CID: -20}, [ANN, BOB, CID]) == [1, 1, 3]
    assert ratings.ranks({ANN: 0, BOB: 0}, [ANN, BOB]) == [1, 1]
    tied = ratings.fold({}, CHAT, coup(1, {ANN: 10, BOB: 10, CID: -20}, game="draw_poker"))
    assert tied[(CHAT, ANN)] == tied[(CHAT, BOB)]
    expected = openskill_rated([(25.0, 25 / 3)] * 3, [1, 1, 3])
    assert [tied[(CHAT, p)] for p in (ANN, BOB, CID)] == [Skill(*e, 1) for e in expected]
    # a hand everyone split moves nobody's mu
    split = ratings.fold({}, CHAT, coup(1, {ANN: 0, BOB: 0}, game="stud_poker"))
    assert split[(CHAT, ANN)].mu == split[(CHAT, BOB)].mu == 25.0
    assert split[(CHAT, ANN)].sigma < 25 / 3


def test_a_hand_of_one_player_and_a_banking_coup_are_not_rated() -> None:
    assert ratings.fold({}, CHAT, coup(1, {ANN: 3}, game="draw_poker")) == {}
    for game in ("chemin_de_fer", "baccarat", "banchok", "twenty_one"):
        assert ratings.fold({}, CHAT, coup(1, {ANN: 30, BOB: -30}, game=game)) == {}


async def test_a_chats_ratings_are_its_hands_folded_and_ranked_by_ordinal(db: Backend) -> None:
    await db.storage.wallet(chat_id=CHAT, user_id=ANN, name="Ann")
    await db.storage.wallet(chat_id=CHAT, user_id=BOB, name="Bob")
    await db.storage.wallet(chat_id=OTHER, user_id=CID, name="Cid elsewhere")
    hands = [coup(1, {ANN: 30, BOB: -10, CID: -20}, game="draw_poker"),
             coup(2, {ANN: 10, BOB: -10}, game="stud_poker"),
             coup(3, {ANN: 5}, game="draw_poker"),  # alone: not rated
             coup(4, {ANN: 50, BOB: -50, CID: 0}, game="twenty_one"),  # banking: not rated
             coup(5, {BOB: 4, CID: -4}, game="draw_poker")]
    for version, hand in enumerate(hands):
        await settle(db, version, hand)
    skills: dict[ratings.Key, Skill] = {}
    for hand in hands:
        skills.update(ratings.fold(skills, CHAT, hand))
    assert skills[(CHAT, ANN)].hands == 2 and skills[(CHAT, CID)].hands == 2

    def rating(user: int, name: str) -> Rating:
        return Rating(chat_id=CHAT, user_id=user, name=name, mu=skills[(CHAT, user)].mu,
                      sigma=skills[(CHAT, user)].sigma, hands=skills[(CHAT, user)].hands)

    s = db.storage
    assert await s.ratings(chat_id=CHAT) == sorted(
        [rating(ANN, "Ann"), rating(BOB, "Bob"), rating(CID, "3")],
        key=lambda r: -r.ordinal)
    assert [r.user_id for r in await s.ratings(chat_id=CHAT)] == [ANN, BOB, CID]
    assert await s.ratings(chat_id=CHAT, min_hands=3) == [rating(BOB, "Bob")]
    assert await s.ratings(chat_id=CHAT, limit=1) == [rating(ANN, "Ann")]
    assert await s.rating(user_id=CID, chat_id=CHAT) == rating(CID, "3")
    assert await s.rating(user_id=CID, chat_id=OTHER) is None
    assert await s.rating(user_id=DAN, chat_id=CHAT) is None
    assert await s.ratings(chat_id=OTHER) == []
    assert await db.raw("SELECT hands FROM stat_ratings ORDER BY user_id") == [(2,), (3,), (2,)]


async def test_a_rebuild_rates_every_hand_again_float_for_float(db: Backend) -> None:
    rng = random.Random(14)
    games = ["draw_poker", "stud_poker", "chemin_de_fer", "baccarat"]
    versions = {CHAT: 0, OTHER: 0}
    records: dict[int, list[str]] = {CHAT: [], OTHER: []}
    for n in range(1, 201):
        chat = rng.choice([CHAT, OTHER])
        players = rng.sample([ANN, BOB, CID, DAN, EVE], rng.randint(1, 5))
        hand = coup(n, {p: rng.choice([-20, -5, 0, 5, 20, 40]) for p in players},
                    game=rng.choice(games))
        await settle(db, versions[chat], hand, chat=chat)
        versions[chat] += 1
        records[chat].append(hand.model_dump_json())
    query = "SELECT chat_id, user_id, mu, sigma, hands FROM stat_ratings ORDER BY 1, 2"
    live: list[tuple[Any, ...]] = await db.raw(query)
    assert len(live) == 10 and all(r[4] > 10 for r in live)
    # the step's fold, stored and read back, is the pure fold of the chat's hands in order
    pure = {chat: refold(chat, records[chat])[0].skills for chat in (CHAT, OTHER)}
    assert live == [(c, u, *pure[c][(c, u)]) for c, u, *_ in live]
    assert await db.storage.rebuild_stats() == 200
    assert await db.raw(query) == live
    await db.raw("DELETE FROM stat_ratings")
    assert await db.storage.rebuild_stats() == 200
    rebuilt = await db.raw(query)
    assert rebuilt == live
    assert [(r[2].hex(), r[3].hex()) for r in rebuilt] == [(r[2].hex(), r[3].hex()) for r in live]

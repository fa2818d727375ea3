"""The poker rating: each player's skill in a chat's poker games, from the hands they played.

A settled hand of a rated game (:func:`games.registry.rated`: both poker games, never a
banking game) with at least two players in its nets is one match of openskill's
Plackett-Luce model (its defaults: mu 25, sigma 25/3): each player a team of one, ranked
by his net (the higher the better; equal nets share a rank). The chat's hands are folded
in the order they were recorded, as the standings are (:func:`storage.standings.fold`
calls :func:`fold`, in the unit of work of the step that settled the hand, and a rebuild
folds them again with it), into ``stat_ratings`` (chat, player: mu, sigma, hands rated).
A player is ranked by his ordinal, ``mu - 3 * sigma`` (:attr:`storage.base.Rating.ordinal`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from openskill.models import PlackettLuce

from games import registry

from .base import Rating, SettledCoup

MODEL = PlackettLuce()
"""The model every hand is rated with, openskill's defaults."""

Key = tuple[int, int]
"""(chat, user)."""


class Skill(NamedTuple):
    """A player's rating in one chat (a ``stat_ratings`` row's values); a player with no
    rated hand has the model's own."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    hands: int = 0


def rated(game: str) -> bool:
    """Whether a coup of ``game`` counts in the rating; a game no longer offered does not."""
    try:
        return registry.rated(game)
    except KeyError:
        return False


def ranks(nets: Mapping[int, int], players: Sequence[int]) -> list[float]:
    """Each of ``players``' place by net, 1 the best; equal nets share the place (one more
    than the players with a higher net)."""
    return [float(1 + sum(other > nets[p] for other in nets.values())) for p in players]


def fold(skills: Mapping[Key, Skill], chat_id: int, coup: SettledCoup) -> dict[Key, Skill]:
    """The ratings ``coup`` of chat ``chat_id`` changes, as they are once it counts, from
    ``skills`` as they were (at least its players'; a missing one has :class:`Skill`'s
    defaults): none unless its game is rated and at least two players are in its nets;
    then each of them rated by his place (:func:`ranks`), one hand more. The players are
    rated in the order of their ids, so that the floats are the same however the nets
    were ordered."""
    if len(coup.nets) < 2 or not rated(coup.game):
        return {}
    players = sorted(coup.nets)
    before = [skills.get((chat_id, p), Skill()) for p in players]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    after = MODEL.rate(teams, ranks=ranks(coup.nets, players))
    return {(chat_id, p): Skill(float(team[0].mu), float(team[0].sigma), s.hands + 1)
            for p, s, team in zip(players, before, after, strict=True)}


# ------------------------------------------------------------------------- SQL

TABLE = "stat_ratings"
COLUMNS = (("chat_id", "user_id"), Skill._fields)
"""The table's key columns and value columns."""
_RANKED = ("SELECT r.chat_id, r.user_id, r.mu, r.sigma, r.hands,"
           " COALESCE(NULLIF(w.name, ''), CAST(r.user_id AS TEXT)) FROM stat_ratings r"
           " LEFT JOIN wallets w ON w.chat_id = r.chat_id AND w.user_id = r.user_id")


def rating_query(mark: Callable[[Any], str], *, chat_id: int, user_id: int) -> str:
    """The query of :meth:`storage.base.Storage.rating`, its placeholders made by ``mark``
    (a :class:`storage.standings.Marks`)."""
    return f"{_RANKED} WHERE r.chat_id = {mark(chat_id)} AND r.user_id = {mark(user_id)}"


def ratings_query(mark: Callable[[Any], str], *, chat_id: int, min_hands: int,
                  limit: int) -> str:
    """The query of :meth:`storage.base.Storage.ratings`, its placeholders made by
    ``mark``: the chat's players by ordinal, as the index ``stat_ratings_rank`` orders them."""
    return (f"{_RANKED} WHERE r.chat_id = {mark(chat_id)} AND r.hands >= {mark(min_hands)}"
            f" ORDER BY r.mu - 3 * r.sigma DESC, r.hands DESC, r.user_id LIMIT {mark(limit)}")


def ratings_of(rows: Iterable[Sequence[Any]]) -> list[Rating]:
    """Rows of :func:`rating_query` or :func:`ratings_query` as ratings."""
    return [Rating(chat_id=r[0], user_id=r[1], mu=r[2], sigma=r[3], hands=r[4], name=r[5])
            for r in rows]

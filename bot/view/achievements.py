"""Achievements in words: the line a settled coup's result carries for each one its players
reached, the private message that tells the player, and his list on /stats. A game declares
its achievements and words them (:attr:`games.engine.GameTexts.achievements`): the host
knows none by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from bot.view import i18n
from games import registry
from storage.base import Earned


def words(lang: str, game: str, key: str) -> tuple[str, str]:
    """An achievement's title and what earns it, as its game words them in ``lang`` (else
    in English; else its key made readable, and nothing said of what earns it)."""
    try:
        texts = registry.texts_of(game).achievements
    except KeyError:
        texts = {}
    found = texts.get(lang, {}).get(key) or texts.get("en", {}).get(key)
    return found or (key.replace("_", " ").capitalize(), "")


def icon(game: str, key: str) -> str:
    """The achievement's icon, as its game declares it (🏅 by default)."""
    try:
        declared = registry.achievements_of(game)
    except KeyError:
        declared = ()
    return next((a.icon for a in declared if a.key == key), "🏅")


def earned_lines(lang: str, game: str, earned: Sequence[tuple[int, str]],
                 names: Mapping[int, str]) -> list[Markup]:
    """One line per achievement a settled coup's players reached (``earned``: player and
    key, in the order reached), as its result shows them: "🏅 Ann: <b>Double down</b> —
    doubled a stake"."""
    out = []
    for player, key in earned:
        title, what = words(lang, game, key)
        out.append(i18n.t(lang, "achievement_line", icon=icon(game, key),
                          name=names.get(player, str(player)), title=title, what=what))
    return out


def earned_dm(lang: str, game: str, key: str, chat: str) -> str:
    """The private message telling a player the achievement he reached in the group named
    ``chat`` ("" if its name is unknown)."""
    title, what = words(lang, game, key)
    if chat:
        return str(i18n.t(lang, "achievement_dm", icon=icon(game, key), chat=chat,
                          title=title, what=what))
    return str(i18n.t(lang, "achievement_dm_untitled", icon=icon(game, key), title=title,
                      what=what))


def stats_line(lang: str, earned: Sequence[Earned]) -> str | None:
    """/stats: how many achievements the player reached, and their titles (oldest first);
    None if none."""
    if not earned:
        return None
    titles = ", ".join(words(lang, e.game, e.key)[0] for e in earned)
    return str(i18n.t(lang, "stats_achievements", n=len(earned), titles=titles))

"""Every game the host offers, by its public name, loaded lazily; and their texts.

A game outside this package (a test's) joins with :func:`register`; the host then plays
it and words it like the others, from its own :class:`~games.engine.GameTexts`.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from games.engine import Achievement, Engine, GameTexts
from games.texts import game_texts

# public name -> "module:attribute" of the engine instance
GAMES: dict[str, str] = {
    "chemin_de_fer": "games.chemin_de_fer:ENGINE",
    "baccarat": "games.baccarat:ENGINE",
    "banchok": "games.banchok:ENGINE",
    "twenty_one": "games.twenty_one:ENGINE",
    "draw_poker": "games.poker.draw:ENGINE",
    "stud_poker": "games.poker.stud:ENGINE",
}

_REGISTERED: dict[str, Engine[Any]] = {}


def engine(name: str) -> Engine[Any]:
    """The engine of game ``name``; ``KeyError`` for an unknown game."""
    found = _REGISTERED.get(name)
    if found is not None:
        return found
    module, attr = GAMES[name].split(":")
    loaded: Engine[Any] = getattr(importlib.import_module(module), attr)
    return loaded


def register(game: Engine[Any], module: str) -> None:
    """Offer ``game`` (its engine instance, importable as ``module:ENGINE`` by a worker
    that loads games by name) beside the six; its texts join the vocabulary. Two games
    may share an event kind, a fact or a word only where they say it the same way."""
    clash = _clashes(game.texts, texts())
    if clash:
        raise ValueError(f"{game.name} words {clash} unlike the other games")
    GAMES[game.name] = f"{module}:ENGINE"
    _REGISTERED[game.name] = game
    texts.cache_clear()


def unregister(name: str) -> None:
    """Withdraw a game :func:`register` added."""
    if _REGISTERED.pop(name, None) is not None:
        GAMES.pop(name, None)
        texts.cache_clear()


def _clashes(mine: GameTexts, known: GameTexts) -> str:
    for field in ("events", "facts", "words", "values", "numbered", "actions", "settings"):
        ours, theirs = getattr(mine, field), getattr(known, field)
        for lang, entries in ours.items():
            for key, value in entries.items():
                if theirs.get(lang, {}).get(key, value) != value:
                    return f"{field} {key!r}"
    return ""


def achievements_of(name: str) -> tuple[Achievement, ...]:
    """The achievements game ``name`` declares (its engine's ``achievements``, none if it
    declares none), in the order it lists them. ``KeyError`` for an unknown game."""
    found: tuple[Achievement, ...] = getattr(engine(name), "achievements", ())
    return found


def rated(name: str) -> bool:
    """Whether game ``name``'s hands count in a chat's poker rating (its engine's ``rated``;
    a game that does not say so is not rated: no banking game is). ``KeyError`` for an
    unknown game."""
    return bool(getattr(engine(name), "rated", False))


def texts_of(name: str) -> GameTexts:
    """Game ``name``'s texts (:attr:`Engine.texts`) without loading its engine where it is
    one of the six (their texts are :func:`games.texts.game_texts`'): wording a twenty-one
    table does not import pokerkit. ``KeyError`` for an unknown game."""
    found = _REGISTERED.get(name)
    if found is not None:
        return found.texts
    if name not in GAMES:
        raise KeyError(name)
    return game_texts(name)


@functools.cache
def texts() -> GameTexts:
    """Every offered game's texts as one vocabulary (names and rules left out)."""
    merged = GameTexts(name={})
    return merged.merged(*(texts_of(name) for name in GAMES))

"""Every game the host offers, by its public name, loaded lazily."""

from __future__ import annotations

import importlib
from typing import Any

from games.engine import Engine

# public name -> "module:attribute" of the engine instance
GAMES: dict[str, str] = {
    "chemin_de_fer": "games.chemin_de_fer:ENGINE",
    "baccarat": "games.baccarat:ENGINE",
    "banchok": "games.banchok:ENGINE",
    "twenty_one": "games.twenty_one:ENGINE",
    "draw_poker": "games.poker.draw:ENGINE",
    "stud_poker": "games.poker.stud:ENGINE",
}


def engine(name: str) -> Engine[Any]:
    """The engine of game ``name``; ``KeyError`` for an unknown game."""
    module, attr = GAMES[name].split(":")
    found: Engine[Any] = getattr(importlib.import_module(module), attr)
    return found

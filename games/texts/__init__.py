"""The six games' texts: one vocabulary of events, facts, feats, words and buttons they share
(:data:`SHARED`), and each game's name, aliases and rules (:func:`game_texts`).

The host words everything of a game from its :class:`~games.engine.GameTexts` and knows
no game's words itself. The rules are ``games/rules/<game>.<lang>.md``, written from
docs/rules.md per game.
"""

from __future__ import annotations

import functools
from pathlib import Path

from games.engine import GameTexts
from games.texts import en, ru

RULES_DIR = Path(__file__).parent.parent / "rules"

SHARED = GameTexts(
    name={},
    events={"en": en.EVENTS, "ru": ru.EVENTS},
    facts={"en": en.INFO, "ru": ru.INFO},
    feats={"en": en.FEATS, "ru": ru.FEATS},
    words={"en": en.WORDS, "ru": ru.WORDS},
    values={"en": en.VALUES, "ru": ru.VALUES},
    numbered={"en": en.NUMBERED, "ru": ru.NUMBERED},
    actions={"en": en.ACTIONS, "ru": ru.ACTIONS},
    settings={"en": en.SETTINGS, "ru": ru.SETTINGS},
)
"""What the six games say in common (most of their events are the same few kinds)."""

POKER = ("draw_poker", "stud_poker")
"""The games that deal hands (their own words: :data:`games.texts.en.POKER_WORDS`)."""

# What players call the games, beyond their registry and display names.
ALIASES: dict[str, tuple[str, ...]] = {
    "chemin_de_fer": ("chemin", "chemmy", "шмен", "железка"),
    "baccarat": ("баккара", "баккара по-русски"),
    "banchok": ("banchok", "banczok", "банчок"),
    "twenty_one": ("21", "twentyone", "ochko", "очко", "двадцать одно"),
    "draw_poker": ("draw", "jackpots", "five card draw", "покер с прикупом", "джекпот"),
    "stud_poker": ("stud", "stud poker", "стад", "стад покер"),
}


def rules(game: str) -> dict[str, str]:
    """The /rules texts of ``game`` by language, from its files."""
    return {lang: path.read_text(encoding="utf-8") for lang in ("en", "ru")
            if (path := RULES_DIR / f"{game}.{lang}.md").is_file()}


@functools.cache
def game_texts(game: str) -> GameTexts:
    """The texts of one of the six games: its name, aliases, rules, own words (poker's
    hands, twenty-one's natural) and achievements' words over :data:`SHARED`."""
    words = {"en": en.POKER_WORDS, "ru": ru.POKER_WORDS} if game in POKER else {}
    return GameTexts(name={"en": en.GAME_NAMES[game], "ru": ru.GAME_NAMES[game]},
                     aliases=ALIASES.get(game, ()), rules=rules(game), words=words,
                     feats={"en": en.GAME_FEATS.get(game, {}),
                            "ru": ru.GAME_FEATS.get(game, {})},
                     achievements={"en": en.GAME_ACHIEVEMENTS.get(game, {}),
                                   "ru": ru.GAME_ACHIEVEMENTS.get(game, {})}).merged(SHARED)

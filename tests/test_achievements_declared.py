"""What the six games declare as achievements (games.engine.Achievement), and their words.

Each condition must be one the game can meet: a feat its settlements really count (the
contract test, tests/test_games_contract.py, checks that ``FEATS`` is exactly what each
game emits), a bank run where the game has a bank, or a real poker hand category.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from test_games_contract import FEATS

from games import registry
from games.engine import Achievement, GameTexts
from games.poker.ranking import HandCategory

SIX = ("chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker")
BANKING = {"chemin_de_fer", "baccarat", "banchok", "twenty_one"}
HANDS = [(c, c) for c in ("full_house", "four", "straight_flush", "royal_flush")]

#: game -> each achievement in order: key, icon, and its condition (feat with its count,
#: ``bank_run=n`` or ``hand=category``)
DECLARED: dict[str, list[tuple[str, str, str]]] = {
    "chemin_de_fer": [
        ("first_natural", "🌟", "natural×1"), ("naturals_10", "✨", "natural×10"),
        ("banco_won", "🎯", "banco_won×1"), ("bancos_5", "🎲", "banco_won×5"),
        ("banco_natural", "💎", "banco_natural×1"),
        ("bank_5", "🏦", "bank_run=5"), ("bank_10", "🏰", "bank_run=10")],
    "baccarat": [
        ("first_natural", "🌟", "natural×1"), ("naturals_10", "✨", "natural×10"),
        ("baccara", "🃏", "baccara×1"), ("extra_shoe", "🔁", "extra_shoe×1"),
        ("sweep", "🧹", "sweep×1"),
        ("bank_5", "🏦", "bank_run=5"), ("bank_10", "🏰", "bank_run=10")],
    "banchok": [
        ("banco_won", "🎯", "banco_won×1"), ("bank_broken", "💥", "bank_broken×1"),
        ("joined_10", "🤝", "joined×10"), ("bank_tripled", "💰", "bank_tripled×1"),
        ("bank_10", "🏦", "bank_run=10"), ("bank_20", "🏰", "bank_run=20")],
    "twenty_one": [
        ("first_natural", "🌟", "natural×1"), ("naturals_10", "✨", "natural×10"),
        ("three_sevens", "🎰", "three_sevens×1"), ("five_card_21", "🖐", "five_card_21×1"),
        ("bank_5", "🏦", "bank_run=5"), ("bank_10", "🏰", "bank_run=10")],
    "draw_poker": [
        ("opened_won", "🔓", "opened_won×1"), ("opened_won_10", "🗝", "opened_won×10"),
        ("full_house", "🏠", "hand=full_house"), ("four", "🍀", "hand=four"),
        ("straight_flush", "🌈", "hand=straight_flush"),
        ("royal_flush", "👑", "hand=royal_flush")],
    "stud_poker": [
        ("showdown_won", "🃏", "showdown_won×1"), ("showdowns_25", "🏆", "showdown_won×25"),
        ("full_house", "🏠", "hand=full_house"), ("four", "🍀", "hand=four"),
        ("straight_flush", "🌈", "hand=straight_flush"),
        ("royal_flush", "👑", "hand=royal_flush")],
}


def condition(a: Achievement) -> str:
    """An achievement's one condition, as :data:`DECLARED` writes it."""
    if a.feat:
        return f"{a.feat}×{a.count}"
    return f"bank_run={a.bank_run}" if a.bank_run else f"hand={a.hand}"


def test_every_game_declares_at_least_five_and_thirty_in_all_each_key_once() -> None:
    declared = {g: registry.achievements_of(g) for g in SIX}
    assert all(len(a) >= 5 for a in declared.values())
    assert sum(len(a) for a in declared.values()) == 38
    for achievements in declared.values():
        keys = [a.key for a in achievements]
        assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("game", SIX)
def test_the_registry_gives_a_games_achievements_as_its_engine_lists_them(game: str) -> None:
    listed = registry.achievements_of(game)
    assert listed == type(registry.engine(game)).achievements  # type: ignore[attr-defined]
    assert [(a.key, a.icon, condition(a)) for a in listed] == DECLARED[game]


@pytest.mark.parametrize("game", SIX)
def test_every_condition_is_one_the_game_can_meet(game: str) -> None:
    hands = {str(c) for c in HandCategory if not c.startswith("possible_")}
    for a in registry.achievements_of(game):
        if a.feat:
            assert a.feat in FEATS[game], (a.key, "a feat the game never counts")
        if a.bank_run:
            assert game in BANKING, (a.key, "a bank run in a game without a bank")
        if a.hand:
            assert game in ("draw_poker", "stud_poker") and a.hand in hands, a.key


@pytest.mark.parametrize("game", SIX)
def test_every_achievement_has_a_title_and_what_earns_it_in_both_languages(game: str) -> None:
    keys = [a.key for a in registry.achievements_of(game)]
    words = registry.texts_of(game).achievements
    for lang in ("en", "ru"):
        assert list(words[lang]) == keys, lang
        titles = [title for title, _ in words[lang].values()]
        assert len(set(titles)) == len(titles), lang  # no two alike in one game
        # what earns it follows a dash mid-sentence: it starts in lower case
        assert all(title and how and (how[0].islower() or how[0].isdigit())
                   for title, how in words[lang].values()), lang


@pytest.mark.parametrize(("game", "key", "lang", "words"), [
    ("chemin_de_fer", "banco_natural", "en", ("Banco natural", "a natural nine that wins a banco")),
    ("chemin_de_fer", "banco_natural", "ru",
     ("Банко с девяткой", "натуральная девятка, выигравшая банко")),
    ("baccarat", "sweep", "en", ("Clean sweep", "as banker, every stake of a coup taken, "
                                                "from two punters or more")),
    ("baccarat", "sweep", "ru", ("Подчистую", "банкомёт взял все ставки кона, а понтёров "
                                              "было двое или больше")),
    ("banchok", "bank_broken", "en", ("Bank breaker", "a win on the card that empties the bank")),
    ("banchok", "bank_broken", "ru", ("Сорвал банк", "выигрыш на карте, опустошившей банк")),
    ("banchok", "bank_20", "en", ("Iron bank", "the bank held twenty coups in a row")),
    ("twenty_one", "three_sevens", "ru", ("Три семёрки", "21 из трёх семёрок")),
    ("twenty_one", "bank_5", "ru", ("Крепкий банкомёт", "банк, удержанный пять конов подряд")),
    ("draw_poker", "opened_won", "en", ("Jacks to open", "a jackpot opened and won")),
    ("stud_poker", "royal_flush", "ru", ("Роял-флеш", "роял-флеш на вскрытии")),
])
def test_an_achievements_words(game: str, key: str, lang: str,
                               words: tuple[str, str]) -> None:
    assert registry.texts_of(game).achievements[lang][key] == words


@pytest.mark.parametrize("conditions", [
    {}, {"feat": "natural", "bank_run": 5}, {"feat": "natural", "hand": "four"},
    {"bank_run": 5, "hand": "four"}, {"feat": "natural", "bank_run": 5, "hand": "four"}])
def test_an_achievement_with_no_condition_or_two_is_refused(
        conditions: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="exactly one of feat, bank_run, hand"):
        Achievement(key="x", **conditions)  # type: ignore[arg-type]


def test_an_achievements_count_is_at_least_one() -> None:
    with pytest.raises(ValidationError):
        Achievement(key="x", feat="natural", count=0)
    assert Achievement(key="x", feat="natural").count == 1


class Undeclared:
    """A game (as far as the registry looks) that declares no achievements."""

    name = "undeclared"
    texts = GameTexts(name={"en": "Undeclared", "ru": "Без достижений"})


def test_a_game_that_declares_none_has_none_and_an_unknown_game_is_refused() -> None:
    registry.register(Undeclared(), __name__)  # type: ignore[arg-type]
    try:
        assert registry.achievements_of("undeclared") == ()
    finally:
        registry.unregister("undeclared")
    with pytest.raises(KeyError):
        registry.achievements_of("undeclared")


def documented() -> dict[str, set[str]]:
    """Each game's achievements as docs/rules.md §6 lists them ("🎯 Banco!")."""
    names = {"Chemin de fer": ["chemin_de_fer"], "Baccarat": ["baccarat"],
             "Banchok": ["banchok"], "Twenty-one": ["twenty_one"],
             "Draw poker": ["draw_poker"], "Five-card stud": ["stud_poker"],
             "Both poker games": ["draw_poker", "stud_poker"]}
    text = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    table = text.split("## 6. Achievements", 1)[1].split("Achievements:\n", 1)[1]
    out: dict[str, set[str]] = {g: set() for g in SIX}
    games: list[str] = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[1] in ("Achievement", "---"):
            continue
        games = names[cells[0]] if cells[0] else games
        for game in games:
            out[game].add(cells[1])
    return out


def test_the_rules_list_every_games_achievements_by_icon_and_title() -> None:
    assert documented() == {
        g: {f"{a.icon} {registry.texts_of(g).achievements['en'][a.key][0]}"
            for a in registry.achievements_of(g)} for g in SIX}

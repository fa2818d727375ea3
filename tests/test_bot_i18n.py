"""Every text exists in Russian and English; every refusal and event kind has a sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot import i18n
from games import registry
from games.engine import Event, Reason

GAMES_DIR = Path(__file__).resolve().parents[1] / "games"


def test_every_text_key_in_both_languages() -> None:
    assert set(i18n.TEXTS["en"]) == set(i18n.TEXTS["ru"])
    assert set(i18n.EVENTS["en"]) == set(i18n.EVENTS["ru"])
    assert set(i18n.ACTIONS["en"]) == set(i18n.ACTIONS["ru"])
    assert set(i18n.GAME_NAMES["en"]) == set(i18n.GAME_NAMES["ru"]) == set(registry.GAMES)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_reason_has_a_sentence(lang: str) -> None:
    assert set(i18n.REASONS[lang]) == set(Reason)


def _event_kinds() -> set[str]:
    kinds: set[str] = set()
    for path in GAMES_DIR.rglob("*.py"):
        kinds.update(re.findall(r"(?:public|private)\(\s*\"([a-z_]+)\"", path.read_text()))
    return kinds


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_event_kind_the_engines_emit_has_a_template(lang: str) -> None:
    missing = sorted(k for k in _event_kinds() if k not in i18n.EVENTS[lang])
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_action_kind_of_every_engine_has_a_label(lang: str) -> None:
    missing = []
    for name in registry.GAMES:
        try:
            engine = registry.engine(name)
        except ImportError:
            continue  # an engine not written yet
        missing += [k for k in engine.action_types if k not in i18n.ACTIONS[lang]]
    assert missing == []


def test_event_text_names_players_and_prints_cards() -> None:
    names = {7: "Ann"}
    line = i18n.event_text("en", Event(kind="hand_shown", data={"player": 7,
                                                                "cards": ["Th", "As"]}), names)
    assert line == "Ann shows 10♥ A♠"
    line = i18n.event_text("ru", Event(kind="stake_placed", data={"player": 7, "amount": 50}),
                           names)
    assert line == "Ann ставит 50"


def test_unknown_event_falls_back_to_its_data() -> None:
    line = i18n.event_text("en", Event(kind="moon_rose", data={"player": 7, "phase": 3}),
                           {7: "Ann"})
    assert line == "moon rose: player Ann, phase 3"


def test_language_from_telegram_code() -> None:
    assert i18n.lang_of("ru") == "ru"
    assert i18n.lang_of("uk-UA") == "ru"
    assert i18n.lang_of("en-GB") == "en"
    assert i18n.lang_of(None, "ru") == "ru"

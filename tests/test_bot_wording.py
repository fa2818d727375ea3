"""What a player reads at the chat table, word for word, in English and Russian: the table
message's header, seat lines and log, /verify and /rules (the issue "The chat table as
players meet it", its section "Wording and layout")."""

from __future__ import annotations

from typing import Any

from test_twenty_one_rules import table as twenty_one_table

from bot import drawing, i18n
from bot.specs import Sight
from games import twenty_one

NAMES = {1: "Ann", 2: "Bob", 3: "Cid"}


def first_line(lang: str, engine: Any, state: Any) -> str:
    """The table message's header as a person reads it."""
    text = drawing.table_render(lang, -1, Sight(engine, state), None, [], NAMES).text
    return i18n.plain(text.splitlines()[0])


def test_twenty_one_names_the_bank_like_every_banking_game() -> None:
    # Ann banks with her 300: the bank is her stack, which pays every punter
    state = twenty_one_table({1: 300, 2: 100, 3: 100}, [])
    assert first_line("en", twenty_one.ENGINE, state) == (
        "Twenty-one · coup #1 · staking · bank 300")
    assert first_line("ru", twenty_one.ENGINE, state) == "Очко · кон №1 · ставки · банк 300"

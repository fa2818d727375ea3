"""The banker tableau hint against the classic table, written out literally (docs/rules.md §1.7)."""

from __future__ import annotations

import pytest

from games.chemin_de_fer import banker_tableau_hint
from games.chemin_de_fer.tableau import banker_hint_unseen

# Rows: banker's points 0-7. Columns: punters stood ("-"), then punters' third card 0..9.
# D = draw, S = stand. The classic punto banco / chemin de fer banker rule.
CLASSIC = {
    #    -  0 1 2 3 4 5 6 7 8 9
    0: "D  D D D D D D D D D D",
    1: "D  D D D D D D D D D D",
    2: "D  D D D D D D D D D D",
    3: "D  D D D D D D D D S D",
    4: "D  S S D D D D D D S S",
    5: "D  S S S S D D D D S S",
    6: "S  S S S S S S D D S S",
    7: "S  S S S S S S S S S S",
}


def _expected(row: str) -> list[str]:
    return ["draw" if c == "D" else "stand" for c in row.split()]


@pytest.mark.parametrize("banker_points", range(8))
def test_tableau_hint_matches_classic_table_for_every_third_card(banker_points: int) -> None:
    expected = _expected(CLASSIC[banker_points])
    third_cards: list[int | None] = [None, *range(10)]
    got = [banker_tableau_hint(banker_points, third) for third in third_cards]
    assert got == expected


def test_tableau_hint_covers_exactly_88_cases() -> None:
    cases = [(b, t) for b in range(8) for t in [None, *range(10)]]
    assert len(cases) == 88
    draws = sum(banker_tableau_hint(b, t) == "draw" for b, t in cases)
    assert draws == sum(row.count("D") for row in CLASSIC.values())


def test_unseen_third_card_hint_is_majority_of_ranks() -> None:
    # tens and faces are 4 of 13 ranks worth 0: with 4 the tableau draws on 6/13 ranks
    assert [banker_hint_unseen(b) for b in range(8)] == [
        "draw", "draw", "draw", "draw", "stand", "stand", "stand", "stand"]


def test_tableau_hint_refuses_impossible_points() -> None:
    with pytest.raises(ValueError):
        banker_tableau_hint(8, None)
    with pytest.raises(ValueError):
        banker_tableau_hint(3, 10)

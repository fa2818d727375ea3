"""The table message is drawn from the public view: no seat's hidden card ever shows."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot import render
from bot.specs import Sight, amount_field, collect_buttons
from games import registry
from games.cards import pretty
from games.engine import Join, SeatView, Start, TableView, parse_action

PRETTY = {pretty(r + s): r + s for r in "23456789TJQKA" for s in "cdhs"}
CARD_RE = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")


def cards_in(text: str) -> set[str]:
    return {PRETTY[m.group(0)] for m in CARD_RE.finditer(text)}


def public_cards(view: TableView) -> set[str]:
    out = {c for s in view.seats for c in s.face_up}
    out |= cards_in(render.i18n.format_value(list(view.info.values()), {}))
    return out


def engines() -> list[str]:
    found = []
    for name in registry.GAMES:
        try:
            registry.engine(name)
        except ImportError:
            continue
        found.append(name)
    return found


def play(name: str, seed: int, steps: int) -> list[tuple[Any, Any]]:
    """Three players join; the awaited ones take their first legal option each step."""
    engine = registry.engine(name)
    rng = random.Random(seed)
    state = engine.new_table({}, rng)
    for p in (1, 2, 3):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=1000), rng).state
    state = engine.apply(state, 1, Start(), rng).state
    out = []
    for _ in range(steps):
        out.append((engine, state))
        waiting = engine.awaiting(state)
        if not waiting:
            break
        player = waiting[0]
        spec = next(s for s in engine.legal_actions(state, player) if s.kind != "leave")
        data: dict[str, Any] = {"kind": spec.kind}
        if spec.kind == "cut":
            data["offset"] = rng.randrange(1000)
        elif amount_field(engine, spec.kind) and spec.min is not None:
            data[amount_field(engine, spec.kind)] = spec.min  # type: ignore[index]
        state = engine.apply(state, player, parse_action(engine, data), rng).state
    return out


@pytest.mark.parametrize("name", engines())
def test_table_message_and_buttons_never_show_a_hidden_card(name: str) -> None:
    checked = 0
    for seed in range(3):
        for engine, state in play(name, seed, 40):
            view = engine.view(state, None)
            text = render.table_text("en", view, 1.0e9, [])
            buttons = collect_buttons(Sight(engine, state))
            markup = render.keyboard("en", -5, view, buttons,
                                     {k for k in buttons.kinds if amount_field(engine, k)},
                                     True)
            shown = text + "".join(b.text + str(b.callback_data)
                                   for row in (markup.inline_keyboard if markup else ())
                                   for b in row)
            hidden = {c for s in view.seats for c in engine.view(state, s.player).my_cards}
            leaked = cards_in(shown) & hidden
            assert leaked - public_cards(view) == set()
            checked += 1
    assert checked > 10


def test_dm_shows_only_the_viewers_cards() -> None:
    view = TableView(game="baccarat", version=3, coup=2, phase="draw", viewer=7,
                     seats=(SeatView(player=7, name="Ann", stack=10, face_down=2),
                            SeatView(player=8, name="Bob", stack=10, face_down=2)),
                     my_cards=("Th", "9s"))
    assert render.dm_text("en", view, []) == "Baccarat, coup #2:\nYour cards: 10♥ 9♠"
    assert render.cards_popup("ru", view) == "Ваши карты: 10♥ 9♠"

"""What the end-to-end tests may observe of the host beyond Telegram (off in production).

The transcript check of the e2e tests holds every group text against the cards the
engines made public. With ``TEST_HOOKS`` set, the host appends those cards, as the
engine gave them, to ``DATA_DIR/shown.jsonl`` (one line per step:
``{"chat": id, "cards": [...]}``), each table message the courier posted or
edited to ``DATA_DIR/tables.jsonl`` (``{"chat", "message", "version"}``), and every seat's
hidden cards at each committed step to ``DATA_DIR/hidden.jsonl`` (``{"chat", "version",
"hidden": {"<player>": [...]}}``: what the Mini App's end-to-end test holds every frame a
page got against); without it nothing is recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from games.engine import Cards, Engine, Event, GameState, Rows, ShoeRevealed, Value


def raw_cards(values: Iterable[Value]) -> list[str]:
    """The cards (``"Th"``) these typed values show, lists and players' lines included."""
    out: list[str] = []
    for value in values:
        if isinstance(value, Cards):
            out += value.cards
        elif isinstance(value, Rows):
            out += raw_cards(value.items)
            out += raw_cards(v for line in value.rows for v in line.fields.values())
    return out


class Hooks:
    """Records the public cards of each step when a path is given; else does nothing."""

    def __init__(self, shown_path: Path | None = None) -> None:
        self.shown_path = shown_path
        self.tables_path = None if shown_path is None else shown_path.with_name("tables.jsonl")
        self.hidden_path = None if shown_path is None else shown_path.with_name("hidden.jsonl")

    def table_shown(self, chat_id: int, message_id: int, version: int) -> None:
        """The group's table message ``message_id`` now shows step ``version`` (buttons name
        decisions, not steps: this is how a test knows the message is up to date)."""
        if self.tables_path is None:
            return
        with self.tables_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"chat": chat_id, "message": message_id,
                                "version": version}) + "\n")

    def public_events(self, chat_id: int, events: Sequence[Event]) -> None:
        """The public events of a committed step (shoe reveals excepted)."""
        if self.shown_path is None:
            return
        cards = [c for e in events if not isinstance(e, ShoeRevealed)
                 for c in raw_cards(e.data.values())]
        if cards:
            with self.shown_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"chat": chat_id, "cards": cards}) + "\n")

    def hidden_cards(self, chat_id: int, engine: Engine[Any], state: GameState) -> None:
        """Every seat's hidden cards (its own view's ``my_cards``) at a committed step."""
        if self.hidden_path is None:
            return
        hidden = {str(s.player): list(engine.view(state, s.player).my_cards)
                  for s in engine.view(state, None).seats}
        with self.hidden_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"chat": chat_id, "version": state.version,
                                "hidden": hidden}) + "\n")

"""What the end-to-end tests may observe of the host beyond Telegram (off in production).

The transcript check of the e2e tests holds every group text against the cards the
engines made public. With ``TEST_HOOKS`` set, the host appends those cards, as the
engine gave them, to ``DATA_DIR/shown.jsonl`` (one line per step:
``{"chat": id, "cards": [...]}``), and each table message the courier posted or
edited to ``DATA_DIR/tables.jsonl`` (``{"chat", "message", "version"}``); without it
nothing is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from games.engine import Event

CARD = re.compile(r"[2-9TJQKA][cdhs]")


def raw_cards(value: Any) -> list[str]:
    """Card strings (``"Th"``) anywhere in plain event data."""
    if isinstance(value, str):
        return [value] if CARD.fullmatch(value) else []
    if isinstance(value, list | tuple):
        return [c for v in value for c in raw_cards(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in raw_cards(v)]
    return []


class Hooks:
    """Records the public cards of each step when a path is given; else does nothing."""

    def __init__(self, shown_path: Path | None = None) -> None:
        self.shown_path = shown_path
        self.tables_path = None if shown_path is None else shown_path.with_name("tables.jsonl")

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
        cards = [c for e in events if e.kind != "shoe_revealed" for c in raw_cards(e.data)]
        if cards:
            with self.shown_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"chat": chat_id, "cards": cards}) + "\n")

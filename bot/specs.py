"""From legal actions to buttons and back: which field an amount or a choice fills.

The host knows no game: these helpers read an engine's action classes
(``engine.action_types``) to find the int field an amount button fills and
the field a choice fills, and merge every player's legal actions into the
buttons of the table message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, get_args, get_origin

from bot import render
from games.engine import ActionSpec, Engine, GameState, IllegalAction, TableView

# A player id nobody has: legal_actions for it tells whether a newcomer may join.
OUTSIDER = 0


def amount_field(engine: Engine[Any], kind: str) -> str | None:
    """The int field an amount button fills (``amount``, ``stake``...), if the action has one."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return None
    for name, info in cls.model_fields.items():
        if name != "kind" and (info.annotation is int or int in get_args(info.annotation)):
            return name
    return None


def choice_field(engine: Engine[Any], kind: str) -> str | None:
    """The field a choice button fills (the first non-int field), if any."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return None
    for name, info in cls.model_fields.items():
        if name != "kind" and not (info.annotation is int or int in get_args(info.annotation)):
            return name
    return None


def choice_data(engine: Engine[Any], kind: str, choice: str) -> dict[str, Any]:
    """Action fields for a choice: a bool field named after it is set, else the choice field
    takes the value (a list field gets the split choice); unmatched choices keep defaults."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return {}
    info = cls.model_fields.get(choice)
    if info is not None and info.annotation is bool:
        return {choice: True}
    for name, f in cls.model_fields.items():
        if name == "kind" or f.annotation is bool or f.annotation is int \
                or int in get_args(f.annotation):
            continue
        if get_origin(f.annotation) in (list, tuple):
            return {name: choice.replace(",", " ").split()}
        return {name: choice}
    return {}


def private_step(engine: Engine[Any], state: GameState, awaited: Sequence[int]) -> bool:
    """True when some awaited player may take an action whose mere offer reveals a hidden
    card (``ActionSpec.private``, e.g. jackpots' *Open*): then every awaited player decides in
    his private chat, so the group cannot tell who was offered what."""
    for player in awaited:
        try:
            if any(spec.private for spec in engine.legal_actions(state, player)):
                return True
        except IllegalAction:
            continue
    return False


def player_buttons(engine: Engine[Any], state: GameState, player: int) -> render.Buttons:
    """One player's own legal actions (private ones included): his private keyboard."""
    buttons = render.Buttons()
    with contextlib.suppress(IllegalAction):
        buttons.add(engine.legal_actions(state, player))
    return buttons


def collect_buttons(engine: Engine[Any], state: GameState, view: TableView) -> render.Buttons:
    """Union of every seated player's legal actions, and Join for newcomers; never a private
    action, and none of the awaited players' decisions in a private step (see above)."""
    buttons = render.Buttons()
    awaited = list(view.awaiting)
    hide = set(awaited) if private_step(engine, state, awaited) else set()
    for player in [*awaited, *(s.player for s in view.seats), OUTSIDER]:
        if player in hide:
            continue
        try:
            buttons.add(s for s in engine.legal_actions(state, player) if not s.private)
        except IllegalAction:
            continue
    return buttons


def union_choices(specs: Sequence[ActionSpec]) -> list[str]:
    """Choices of one kind across players, in first-seen order (what the buttons index)."""
    seen: list[str] = []
    for spec in specs:
        for c in spec.choices:
            if c not in seen:
                seen.append(c)
    return seen


"""What one state shows (:class:`Sight`: its views and each player's legal actions, computed
once), and from legal actions to buttons and back.

The host knows no game: these helpers read an engine's action classes
(``engine.action_types``) to find the int field an amount button fills and
the field a choice fills, and merge every player's legal actions into the
buttons of the table message.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from games.engine import (
    MAX_CHOICES,
    Action,
    ActionSpec,
    Engine,
    GameState,
    IllegalAction,
    PlayerId,
    TableView,
)


@dataclass
class Buttons:
    """What the table message offers: one entry per action kind, in first-seen order, with
    the players it is offered to."""

    kinds: dict[str, list[ActionSpec]] = field(default_factory=dict)
    offered: dict[str, set[int]] = field(default_factory=dict)

    def add(self, specs: Iterable[ActionSpec], player: int | None = None) -> None:
        """Merge one player's legal actions."""
        for spec in specs:
            self.kinds.setdefault(spec.kind, []).append(spec)
            if player is not None:
                self.offered.setdefault(spec.kind, set()).add(player)


# A player id nobody has: legal_actions for it tells whether a newcomer may join.
OUTSIDER = 0


class Sight:
    """What one state shows: each view and each player's legal actions, computed once.

    Engines are pure, so one state always gives the same answers; a step's DMs, the
    table message and the decoding of the next press all read the same state, and
    share one ``Sight`` of it (:class:`bot.table.record.Table` holds it).
    """

    def __init__(self, engine: Engine[Any], state: GameState) -> None:
        self.engine = engine
        self.state = state
        self._views: dict[PlayerId | None, TableView] = {}
        self._legal: dict[PlayerId, tuple[ActionSpec, ...] | IllegalAction] = {}
        self._private: bool | None = None
        self.scenes: dict[Hashable, Any] = {}
        """Its viewers' scenes, derived once (:func:`bot.view.scene.scene` keeps them)."""

    def view(self, viewer: PlayerId | None = None) -> TableView:
        """``engine.view(state, viewer)``; None: the public view."""
        view = self._views.get(viewer)
        if view is None:
            view = self._views[viewer] = self.engine.view(self.state, viewer)
        return view

    def legal(self, player: PlayerId) -> tuple[ActionSpec, ...]:
        """``engine.legal_actions(state, player)``; raises its IllegalAction."""
        legal = self._legal.get(player)
        if legal is None:
            try:
                legal = tuple(self.engine.legal_actions(self.state, player))
            except IllegalAction as exc:
                legal = exc
            self._legal[player] = legal
        if isinstance(legal, IllegalAction):
            raise legal
        return legal

    @property
    def private(self) -> bool:
        """Whether the awaited players decide in private (see :func:`private_step`)."""
        if self._private is None:
            self._private = private_step(self.engine, self.state, self.view().awaiting,
                                         self.legal)
        return self._private


def amount_field(engine: Engine[Any], kind: str) -> str | None:
    """The int field an amount button fills (``amount``, ``stake``...), if the action has one."""
    cls = engine.action_types.get(kind)
    return None if cls is None else _int_field(cls)


@functools.cache
def _int_field(cls: type[Action]) -> str | None:
    """An action class's first int field but ``kind``: read once per class (every drawing of
    a table asks it of each of its buttons' kinds)."""
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


def private_step(engine: Engine[Any], state: GameState, awaited: Sequence[int],
                 legal: Callable[[PlayerId], Sequence[ActionSpec]] | None = None) -> bool:
    """True when some awaited player may take an action whose mere offer reveals a hidden
    card (``ActionSpec.private``, e.g. jackpots' *Open*): then every awaited player decides in
    his private chat, so the group cannot tell who was offered what."""
    for player in awaited:
        try:
            specs = (legal(player) if legal is not None
                     else engine.legal_actions(state, player))
            if any(spec.private for spec in specs):
                return True
        except IllegalAction:
            continue
    return False


def player_buttons(sight: Sight, player: int) -> Buttons:
    """One player's own legal actions (private ones included): his private keyboard."""
    buttons = Buttons()
    with contextlib.suppress(IllegalAction):
        buttons.add(sight.legal(player), player)
    return buttons


def collect_buttons(sight: Sight) -> Buttons:
    """Union of every seated player's legal actions, and Join for newcomers; never a private
    action, and none of the awaited players' decisions in a private step (see above)."""
    buttons = Buttons()
    view = sight.view()
    awaited = list(view.awaiting)
    hide = set(awaited) if sight.private else set()
    for player in [*awaited, *(s.player for s in view.seats), OUTSIDER]:
        if player in hide:
            continue
        try:
            buttons.add((s for s in sight.legal(player) if not s.private), player)
        except IllegalAction:
            continue
    return buttons


def union_choices(specs: Sequence[ActionSpec]) -> list[str]:
    """Choices of one kind across players, in first-seen order, at most
    :data:`~games.engine.MAX_CHOICES`: what the buttons offer, and what a press's choice
    index is read against (the keyboard and the decoder share this one list)."""
    seen: list[str] = []
    for spec in specs:
        for c in spec.choices:
            if c not in seen:
                seen.append(c)
    return seen[:MAX_CHOICES]


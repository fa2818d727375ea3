"""What one viewer may see of a table at one version (:class:`Scene`), derived once.

A table is shown on several screens: the group's table message (the public scene), a
player's turn prompt and his view shown to him alone in the group (his scene), the Mini
App's page. Each used to derive its facts from the engine's views on its own; now each is
drawn from a :class:`Scene`, language-free data, worded only when drawn
(:mod:`bot.view.screens`), so two screens of one moment cannot tell a viewer different
facts.

**Decision** (where a scene is kept): on the state's :class:`bot.view.sight.Sight`. Every
screen of one version reads the same ``Sight`` (the table record holds it, a step's plan
draws its prompts from it before a record exists, the ephemeral views' moments carry it),
so a scene kept there is derived once for all of them. What the host keeps beside the
state (the coup's log, the names, the last result, the clock's deadline, who was told of
his turn elsewhere) may change without a new state (a clock's commit): it is part of the
key a scene is kept under, so a scene never outlives what it was derived from. The clock's
deadline is not: a turn's clock starts once its turn was shown, and until then every
drawing counts down from its own moment, so a scene is derived once without it and each
deadline is that scene with another :attr:`Scene.deadline` (sharing :attr:`Scene.drawn`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.view.codec import HOST_FILLED
from bot.view.keyboards import UTILITIES
from bot.view.results import last_result
from bot.view.sight import Buttons, Sight, amount_field, collect_buttons, player_buttons
from games.engine import Input, PlayerId, SeatView, Settlement, TableView, Value


@dataclass(frozen=True, eq=False)
class Scene:
    """What ``viewer`` (a player, seated or watching; None: the public, the group) may see
    of a table at one version, and what he may do there: no word of any language."""

    chat_id: int
    viewer: PlayerId | None
    table: TableView
    """The public view: every seat as anyone sees it (up cards, how many face down, stake,
    stack, role, status), the bank or pot, the public facts, who is awaited."""
    mine: TableView | None
    """The seated viewer's own view (his hidden cards, his private facts); None: the public
    or a watcher."""
    deadline: float | None
    """The end of the turn's clock (None: nobody awaited, or no time shown)."""
    decision: int
    """The step at which the awaited players' decision began (what a button answers)."""
    log: tuple[dict[str, Any], ...]
    """The coup's log entries as the record keeps them."""
    names: dict[int, str]
    """Who is who, for the log and the result: the record's names, the seats' over them."""
    result: Settlement | None
    """The last settled coup while the coup after it is on (its coup number in it)."""
    shown: tuple[dict[str, Any], ...]
    """The log entries of :attr:`result`'s coup that showed hands (its showdown)."""
    earned: tuple[tuple[int, str], ...]
    """The achievements :attr:`result`'s players reached with it (player, key), in the
    order reached: each screen that shows the result shows them under it."""
    buttons: Buttons
    """What the viewer may do: the public scene, the table message's buttons (never an
    awaited player's private decision); a player's, his own legal actions."""
    amount_kinds: frozenset[str]
    """The kinds of :attr:`buttons` that take an amount."""
    private: bool
    """The awaited players decide in private (an action's offer would reveal a card)."""
    committed: bool
    """The shoe in play is committed (/verify can prove it)."""
    prompted: frozenset[int] = frozenset()
    """Awaited players told of their turn elsewhere than the group."""
    no_dm: frozenset[int] = frozenset()
    """Players the bot cannot write to in private."""
    told: frozenset[int] = frozenset()
    """Those of :attr:`no_dm` told already, at an earlier decision, that their buttons are
    under *My cards* (the group's table tells each once)."""
    app: bool = False
    """The table is played in the Mini App (a coup's group message is its card)."""
    open_url: str | None = None
    """The Mini App's direct link for the table, None without the app."""
    switch: int = 0
    """How the keyboard's amounts are taken (banchok's joining)."""
    quiet: bool = False
    """A coup under way at a table played in the Mini App."""
    card: bool = False
    """The group's message is the coup's card: every awaited player decides in the app or
    in private, none on it."""
    drawn: dict[Hashable, Any] = field(default_factory=dict, repr=False)
    """What :mod:`bot.view.screens` drew of this scene that its deadline does not change (a
    keyboard, a text but its time left), by what was drawn: kept for its next drawings,
    and shared by the scene's copies for other deadlines (:func:`scene`)."""

    @property
    def seen(self) -> TableView:
        """The view the viewer has: his own if he is seated, else the public's."""
        return self.mine if self.mine is not None else self.table

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Every seat as the viewer sees it."""
        return self.seen.seats

    @property
    def awaited(self) -> tuple[PlayerId, ...]:
        """Whose turn it is."""
        return self.table.awaiting

    @property
    def coup(self) -> int:
        """The coup under way (0 before the first)."""
        return self.table.coup

    @property
    def version(self) -> int:
        """The step this scene is of."""
        return self.table.version

    @property
    def bank(self) -> int:
        """The bank (0: none)."""
        return self.table.bank

    @property
    def pot(self) -> int:
        """The pot (0: none)."""
        return self.table.pot

    @property
    def my_cards(self) -> tuple[str, ...]:
        """The viewer's hidden cards."""
        return self.mine.my_cards if self.mine is not None else ()

    @property
    def my_facts(self) -> Mapping[str, Value]:
        """The viewer's private facts (his points, a hint)."""
        return self.mine.my_facts if self.mine is not None else {}

    @property
    def costs(self) -> dict[str, int]:
        """What each move of :attr:`buttons` that costs one set amount costs, by kind: the
        amount to call, a banco's: what its button names ("Call 2", "Banco! 250")."""
        out = {}
        for kind, specs in self.buttons.kinds.items():
            fixed = {s.min for s in specs if s.min is not None and s.min == s.max}
            if len(fixed) == 1 and kind not in (*HOST_FILLED, *UTILITIES, *self.amount_kinds) \
                    and not any(s.choices or s.input is Input.OWN_CARDS for s in specs):
                out[kind] = fixed.pop()
        return out


def scene(chat_id: int, sight: Sight, viewer: PlayerId | None, deadline: float | None,
          log: Sequence[dict[str, Any]], names: Mapping[int, str], *,
          decision: int | None = None, last: dict[str, Any] | None = None,
          prompted: frozenset[int] = frozenset(), no_dm: frozenset[int] = frozenset(),
          told: frozenset[int] = frozenset(), app: bool = False, open_url: str | None = None,
          switch: int = 0) -> Scene:
    """``viewer``'s scene of ``sight``'s state (None: the public's), from what the host keeps
    beside it: the clock's ``deadline``, the coup's ``log``, the ``names``, the ``decision``
    (None: this step's), the ``last`` result as the record keeps it, and the table's flags.
    Derived once for one key (see the module's decision)."""
    held = tuple(log)
    key: Hashable = (chat_id, viewer, decision, tuple(map(id, held)), tuple(names.items()),
                     id(last), prompted, no_dm, told, app, open_url, switch)
    kept = sight.scenes.get(key)
    if kept is None:
        made = _derived(chat_id, sight, viewer, deadline, held, names, decision, last,
                        prompted, no_dm, told, app, open_url, switch)
        if len(sight.scenes) >= SCENES_KEPT:
            sight.scenes.clear()
        # the record's dict held: no other can take its id; the scene by its deadline
        kept = sight.scenes[key] = (last, {made.deadline: made})
    dated: dict[float | None, Scene] = kept[1]
    base = next(iter(dated.values()))
    shown = deadline if base.awaited else None
    known = dated.get(shown)
    if known is None:
        if len(dated) >= DEADLINES_KEPT:
            del dated[next(iter(dated))]
        known = dated[shown] = dataclasses.replace(base, deadline=shown)
    return known


SCENES_KEPT = 32
"""Scenes kept for one state at most (its viewers, with what the host keeps beside it)."""

DEADLINES_KEPT = 4
"""Deadlines one scene is kept for at most (a turn's clock counts down from each drawing's
moment until it starts; then from its start)."""


def _derived(chat_id: int, sight: Sight, viewer: PlayerId | None, deadline: float | None,
             log: tuple[dict[str, Any], ...], names: Mapping[int, str], decision: int | None,
             last: dict[str, Any] | None, prompted: frozenset[int], no_dm: frozenset[int],
             told: frozenset[int], app: bool, open_url: str | None, switch: int) -> Scene:
    view, result = sight.view(), last_result(last)
    buttons = collect_buttons(sight) if viewer is None else player_buttons(sight, viewer)
    seated = any(s.player == viewer for s in view.seats)
    shown = result is not None and view.coup <= result.coup + 1
    awaited = set(view.awaiting)
    quiet = app and view.coup > 0 and bool(awaited)
    card = quiet and awaited <= prompted
    if card:  # the awaited players decide in the app or in private: not on the card
        kinds = {k: v for k, v in buttons.kinds.items()
                 if k in UTILITIES or not buttons.offered.get(k, set()) & awaited}
        buttons = Buttons(kinds, {k: v for k, v in buttons.offered.items() if k in kinds})
    return Scene(
        chat_id=chat_id, viewer=viewer, table=view,
        mine=sight.view(viewer) if seated else None,
        deadline=deadline if view.awaiting else None,
        decision=view.version if decision is None else decision, log=log,
        names={**names, **{s.player: s.name for s in view.seats}},
        result=result if shown else None,
        shown=tuple(last.get("shown", ())) if shown and last is not None else (),
        earned=tuple((int(p), str(k)) for p, k in last.get("earned", ()))
        if shown and last is not None else (),
        buttons=buttons,
        amount_kinds=frozenset(k for k in buttons.kinds if amount_field(sight.engine, k)),
        private=sight.private, committed=view.shoe is not None and bool(view.shoe.commitments),
        prompted=prompted, no_dm=no_dm, told=told, app=app, open_url=open_url, switch=switch,
        quiet=quiet, card=card)

"""From a pressed button or a typed amount to an engine action, strictly.

A button's data must be exactly one our renderer could have drawn for the
presser's legal actions now (:func:`bot.render.keyboard`): an amount only on an
amount button, a choice only where there are choices, a card selection only
where the choices are the presser's own cards. Anything else is forged and
refused, never read as a plainer press (``leave`` with a selection is not
*Leave*).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot import i18n
from bot.callbacks import ActionButton
from bot.render import HOST_FILLED, amounts_for
from bot.specs import (
    Sight,
    amount_field,
    choice_data,
    choice_field,
    collect_buttons,
    player_buttons,
    union_choices,
)
from games.engine import ActionSpec, Engine

MAX_AMOUNT = 10**12


class Forged(Exception):
    """The press could not have come from a button we drew."""


class NotOffered(Forged):
    """An amount no button of the presser's offers now: forged, or drawn for an earlier
    state of the decision (the group's table may lag behind); refused either way."""


@dataclass(frozen=True)
class AskAmount:
    """The player pressed "type an amount" for ``spec`` (``choice``: for that one of its
    choices, e.g. a banchok stake that forbids joining)."""

    spec: ActionSpec
    choice: str | None = None


@dataclass(frozen=True)
class PickCards:
    """The player opens (``mask`` None) or changes his private selection among his cards."""

    spec: ActionSpec
    mask: int | None


@dataclass(frozen=True)
class Act:
    """A complete action to apply (``data``: its fields before the host fills any)."""

    data: dict[str, Any]


Decoded = AskAmount | PickCards | Act


def _own_cards(spec: ActionSpec) -> bool:
    return any(i18n.is_card(c) for c in spec.choices)


def decode_press(sight: Sight, player: int, button: ActionButton, spec: ActionSpec,
                 private: bool, typed: bool = False) -> Decoded:
    """What ``button`` asks of ``spec`` (the presser's legal action of that kind) in the
    state ``sight`` shows; raises :class:`Forged` when no button of ours carries that data.
    ``typed``: the amount was typed (any in the spec's range), not a button's preset."""
    b = button
    engine = sight.engine
    if _own_cards(spec):
        if b.amount is not None or b.choice is not None:
            raise Forged("a card selection takes no amount or choice")
        if b.confirm is not None:
            return Act(_selection(engine, spec, b.kind, b.confirm))
        if b.select is not None:
            if not private:
                raise Forged("a selection is changed in the private chat only")
            _mask_fits(spec, b.select)
            return PickCards(spec, b.select)
        if b.ask:
            return PickCards(spec, None)
        raise Forged("a card selection needs the private keyboard")
    if b.select is not None or b.confirm is not None:
        raise Forged("no card selection for this action")
    field = amount_field(engine, b.kind)
    # a private keyboard is drawn from the presser's own actions, the group's from the union
    # of everybody's: what a choice's index and an amount button's preset are read against
    drawn = (player_buttons(sight, player) if private else collect_buttons(sight)
             ).kinds.get(b.kind, []) if b.choice is not None or (
                 b.amount is not None and not typed) else []
    chosen: str | None = None
    if b.choice is not None:
        if not spec.choices or b.kind in HOST_FILLED:
            raise Forged("no choices for this action")
        choices = union_choices(drawn)
        if b.choice >= len(choices):
            raise Forged("choice out of range")
        chosen = choices[b.choice]
    if b.ask:
        if field is None or b.kind in HOST_FILLED or (b.amount is not None):
            raise Forged("no amount to type for this action")
        return AskAmount(spec, chosen)
    data: dict[str, Any] = {"kind": b.kind}
    if chosen is not None:
        data.update(choice_data(engine, b.kind, chosen))
    if b.amount is not None:
        if field is None or b.kind in HOST_FILLED or (spec.min is None and spec.max is None
                                                      and not spec.presets):
            raise Forged("no amount for this action")
        if not typed and b.amount not in amounts_for(drawn)[0]:
            raise NotOffered("no button offers this amount now")
        data[field] = b.amount
    elif b.choice is not None and field is not None:
        raise Forged("this choice comes with an amount")
    return Act(data)


def _mask_fits(spec: ActionSpec, mask: int) -> None:
    if mask < 0 or mask >> len(spec.choices):
        raise Forged("selection names a card the player does not hold")


def _selection(engine: Engine[Any], spec: ActionSpec, kind: str, mask: int) -> dict[str, Any]:
    _mask_fits(spec, mask)
    field = choice_field(engine, kind)
    if field is None:
        raise Forged("no selection field")
    return {"kind": kind, field: [c for i, c in enumerate(spec.choices) if mask >> i & 1]}


def parse_amount(text: str) -> int | None:
    """A typed amount ("1 000", "+200", "1_000"); None for anything that is not a number."""
    raw = text.strip().replace(" ", "").replace("_", "").replace("\u00a0", "")
    if not re.fullmatch(r"[+-]?\d{1,30}", raw):
        return None
    return int(raw)


def amount_bounds(specs: list[ActionSpec]) -> tuple[int, int]:
    """The range a typed amount must fall in, over the player's specs of one kind."""
    lo = min((s.min for s in specs if s.min is not None), default=1)
    hi = max((s.max for s in specs if s.max is not None), default=MAX_AMOUNT)
    return lo, hi


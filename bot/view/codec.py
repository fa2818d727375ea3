"""Callback data codec: every button names its table, coup and step, in at most 64 bytes.

Formats (fields separated by ``|``):

* ``a|<chat>|<coup>|<version>|<kind>|<arg>`` — a table action. ``arg`` is
  empty, an amount (digits), ``?`` (the player will type an amount; ``?c<n>``: an
  amount for the n-th choice) or
  ``c<n>`` (the n-th of the spec's ``choices``), ``s<mask>`` (a private
  selection of the presser's own cards, shown again), ``k<mask>`` (that
  selection confirmed) or ``t<n>`` (the keyboard shown again with its amounts taken the
  n-th choice's way: a banchok stake's *Joining allowed / No joining* switch).
* ``m|<chat>`` — *My cards*: the presser's own cards in a pop-up.
* ``n|<game>`` — open a table of ``game`` (the /newtable picker).
* ``l|<lang>`` — set the chat's language.
* ``p|<user>|<0 or 1>`` — the /privacy picker of ``user``: hide (0) or show (1) his
  name on the all-chats board (:func:`decode_privacy`; never a :data:`Button`).

Anything else, or anything over 64 bytes, is malformed (a forged press).

And back from a press to an engine action, strictly (:func:`decode_press`):

A button's data must be exactly one our renderer could have drawn for the
presser's legal actions now (:func:`bot.view.keyboards.keyboard`): an amount only on an
amount button, a choice only where there are choices, a card selection only
where the choices are the presser's own cards. Anything else is forged and
refused, never read as a plainer press (``leave`` with a selection is not
*Leave*).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.view.sight import (
    Sight,
    amount_field,
    choice_data,
    choice_field,
    collect_buttons,
    player_buttons,
    union_choices,
)
from games.engine import ActionSpec, Engine, Input

MAX_BYTES = 64
ASK = "?"

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,23}$")
_INT = re.compile(r"^-?\d{1,16}$")
_NAT = re.compile(r"^\d{1,13}$")


class Malformed(ValueError):
    """The data did not come from one of our buttons."""


@dataclass(frozen=True)
class ActionButton:
    """A press on a table action button."""

    chat_id: int
    coup: int
    version: int
    kind: str
    amount: int | None = None
    ask: bool = False
    choice: int | None = None
    select: int | None = None
    confirm: int | None = None
    switch: int | None = None


@dataclass(frozen=True)
class MyCards:
    """A press on *My cards*."""

    chat_id: int


@dataclass(frozen=True)
class NewTable:
    """A press in the /newtable game picker."""

    game: str


@dataclass(frozen=True)
class SetLanguage:
    """A press in the /language picker."""

    language: str


Button = ActionButton | MyCards | NewTable | SetLanguage


def encode(button: Button) -> str:
    """The callback data of ``button``; ``ValueError`` if it would not fit in 64 bytes."""
    if isinstance(button, ActionButton):
        if not _KIND.match(button.kind):
            raise ValueError("bad action kind")
        if button.ask:
            arg = ASK if button.choice is None else f"{ASK}c{button.choice}"
        elif button.choice is not None:
            arg = f"{'' if button.amount is None else button.amount}c{button.choice}"
        elif button.select is not None:
            arg = f"s{button.select}"
        elif button.confirm is not None:
            arg = f"k{button.confirm}"
        elif button.switch is not None:
            arg = f"t{button.switch}"
        elif button.amount is not None:
            arg = str(button.amount)
        else:
            arg = ""
        data = f"a|{button.chat_id}|{button.coup}|{button.version}|{button.kind}|{arg}"
    elif isinstance(button, MyCards):
        data = f"m|{button.chat_id}"
    elif isinstance(button, NewTable):
        data = f"n|{button.game}"
    else:
        data = f"l|{button.language}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError("callback data over 64 bytes")
    return data


def decode(data: str | None) -> Button:
    """Parse callback data; :class:`Malformed` for anything we did not produce."""
    if not data or len(data.encode()) > MAX_BYTES:
        raise Malformed("empty or too long")
    parts = data.split("|")
    tag = parts[0]
    if tag == "a" and len(parts) == 6:
        _, chat, coup, version, kind, arg = parts
        if not (_INT.match(chat) and _NAT.match(coup) and _NAT.match(version)
                and _KIND.match(kind)):
            raise Malformed("bad action button")
        amount: int | None = None
        choice: int | None = None
        select: int | None = None
        confirm: int | None = None
        switch: int | None = None
        ask = False
        both = re.fullmatch(r"(\d{1,13})c(\d{1,3})", arg)
        asked = re.fullmatch(r"\?c(\d{1,3})", arg)
        if both:
            amount, choice = int(both.group(1)), int(both.group(2))
        elif arg == ASK:
            ask = True
        elif asked:
            ask, choice = True, int(asked.group(1))
        elif arg[:1] in ("c", "s", "k", "t") and _NAT.match(arg[1:]):
            value = int(arg[1:])
            if arg[0] == "c":
                choice = value
            elif arg[0] == "s":
                select = value
            elif arg[0] == "k":
                confirm = value
            else:
                switch = value
        elif _NAT.match(arg):
            amount = int(arg)
        elif arg:
            raise Malformed("bad argument")
        return ActionButton(int(chat), int(coup), int(version), kind, amount, ask, choice,
                            select, confirm, switch)
    if tag == "m" and len(parts) == 2 and _INT.match(parts[1]):
        return MyCards(int(parts[1]))
    if tag == "n" and len(parts) == 2 and _KIND.match(parts[1]):
        return NewTable(parts[1])
    if tag == "l" and len(parts) == 2 and parts[1] in ("ru", "en"):
        return SetLanguage(parts[1])
    raise Malformed("unknown button")


@dataclass(frozen=True)
class PrivacyButton:
    """A press in the /privacy picker of ``user_id``: show his name on the all-chats board
    (``public``) or hide it."""

    user_id: int
    public: bool


PRIVACY_PATTERN = r"^p\|"
"""The data of every /privacy press (and of any forged one that passes for it)."""


def encode_privacy(button: PrivacyButton) -> str:
    """The callback data of a /privacy button."""
    return f"p|{button.user_id}|{int(button.public)}"


def decode_privacy(data: str | None) -> PrivacyButton:
    """Parse a /privacy button's data, strictly; :class:`Malformed` for anything else."""
    found = re.fullmatch(r"p\|(\d{1,16})\|([01])", data or "")
    if found is None:
        raise Malformed("not a privacy button")
    return PrivacyButton(int(found.group(1)), found.group(2) == "1")


# ------------------------------------------------- what a keyboard offers, both ways

MAX_PRESETS = 4
# Action kinds whose argument the host supplies itself (contract: the whole
# wallet as buy-in), so they are plain buttons. A cut's depth is the cutter's own.
HOST_FILLED = ("join",)

def amounts_for(specs: Sequence[ActionSpec]) -> tuple[list[int], bool]:
    """A few preset amounts (union over players) and whether to offer typing one."""
    values: set[int] = set()
    for spec in specs:
        values.update(spec.presets)
    if not values:
        for spec in specs:
            values.update(v for v in (spec.min, spec.max) if v is not None)
    ranged = any(s.min is not None and s.max is not None and s.max > s.min for s in specs)
    ordered = sorted(values)
    if len(ordered) > MAX_PRESETS:
        # keep the smallest, the largest and evenly spread ones between
        step = (len(ordered) - 1) / (MAX_PRESETS - 1)
        ordered = sorted({ordered[round(i * step)] for i in range(MAX_PRESETS)})
    return ordered, ranged


# ------------------------------------------------------------ from a press to an action

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
class Switch:
    """The player flips the way his keyboard's amounts are taken: it is drawn again with
    ``way`` (an index into the choices his keyboard offers: ``choice``) on its switch and its
    amounts. Nothing is played: the switch is the keyboard's own state, not the table's."""

    spec: ActionSpec
    way: int
    choice: str


@dataclass(frozen=True)
class Act:
    """A complete action to apply (``data``: its fields before the host fills any)."""

    data: dict[str, Any]


Decoded = AskAmount | PickCards | Switch | Act


def _own_cards(spec: ActionSpec) -> bool:
    return spec.input is Input.OWN_CARDS


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
    if b.switch is not None:
        return _switch(sight, player, b, b.switch, spec, private, field)
    drawn = _drawn(sight, player, b.kind, private) if b.choice is not None or (
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


def _drawn(sight: Sight, player: int, kind: str, private: bool) -> list[ActionSpec]:
    """The specs of ``kind`` a keyboard was drawn from: a private keyboard from the
    presser's own actions, the group's from the union of everybody's (what a choice's or a
    switch's index and an amount button's preset are read against)."""
    return (player_buttons(sight, player) if private else collect_buttons(sight)
            ).kinds.get(kind, [])


def _switch(sight: Sight, player: int, b: ActionButton, way: int, spec: ActionSpec,
            private: bool, field: str | None) -> Switch:
    """A switch press: only where a keyboard draws one (choices taken with amounts), to one
    of the choices that keyboard offers, and carrying nothing else."""
    if b.ask or b.amount is not None or b.choice is not None or field is None \
            or not spec.choices or b.kind in HOST_FILLED:
        raise Forged("no switch on this action")
    ways = union_choices(_drawn(sight, player, b.kind, private))
    if way >= len(ways):
        raise Forged("switch out of range")
    return Switch(spec, way, ways[way])


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


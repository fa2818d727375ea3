"""Callback data codec: every button names its table, coup and step, in at most 64 bytes.

Formats (fields separated by ``|``):

* ``a|<chat>|<coup>|<version>|<kind>|<arg>`` — a table action. ``arg`` is
  empty, an amount (digits), ``?`` (the player will type an amount; ``?c<n>``: an
  amount for the n-th choice) or
  ``c<n>`` (the n-th of the spec's ``choices``), ``s<mask>`` (a private
  selection of the presser's own cards, shown again) or ``k<mask>`` (that
  selection confirmed).
* ``m|<chat>`` — *My cards*: the presser's own cards in a pop-up.
* ``n|<game>`` — open a table of ``game`` (the /newtable picker).
* ``l|<lang>`` — set the chat's language.

Anything else, or anything over 64 bytes, is malformed (a forged press).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
        ask = False
        both = re.fullmatch(r"(\d{1,13})c(\d{1,3})", arg)
        asked = re.fullmatch(r"\?c(\d{1,3})", arg)
        if both:
            amount, choice = int(both.group(1)), int(both.group(2))
        elif arg == ASK:
            ask = True
        elif asked:
            ask, choice = True, int(asked.group(1))
        elif arg[:1] in ("c", "s", "k") and _NAT.match(arg[1:]):
            value = int(arg[1:])
            if arg[0] == "c":
                choice = value
            elif arg[0] == "s":
                select = value
            else:
                confirm = value
        elif _NAT.match(arg):
            amount = int(arg)
        elif arg:
            raise Malformed("bad argument")
        return ActionButton(int(chat), int(coup), int(version), kind, amount, ask, choice,
                            select, confirm)
    if tag == "m" and len(parts) == 2 and _INT.match(parts[1]):
        return MyCards(int(parts[1]))
    if tag == "n" and len(parts) == 2 and _KIND.match(parts[1]):
        return NewTable(parts[1])
    if tag == "l" and len(parts) == 2 and parts[1] in ("ru", "en"):
        return SetLanguage(parts[1])
    raise Malformed("unknown button")

"""Typed values: what event data and view facts hold (:mod:`games.engine`'s contract).

Each value says what it is, so a screen words it by its type (a card, a player, an
amount) and never guesses from a key's spelling or a string's shape. Engines build them
with the short helpers here (``cards("Ah")``, ``who(p)``, ``chips(5)``).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidatorFunctionWrapHandler, WrapValidator

PlayerId = int
"""A player is identified by his Telegram user id."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class Cards(_Value):
    """Cards shown (``"Ah"``, ``"Tc"``), in order."""

    t: Literal["cards"] = "cards"
    cards: tuple[str, ...]


class Players(_Value):
    """One player or several (shown by name), in order."""

    t: Literal["players"] = "players"
    ids: tuple[PlayerId, ...]


class Chips(_Value):
    """An amount of chips."""

    t: Literal["chips"] = "chips"
    n: int


class Signed(_Value):
    """A win (+) or a loss (−) of chips."""

    t: Literal["signed"] = "signed"
    n: int


class Count(_Value):
    """A number; with ``noun`` ("card", "point"), a number of those ("3 cards")."""

    t: Literal["count"] = "count"
    n: int
    noun: str = ""


class Word(_Value):
    """A word the game's texts translate (an outcome, a hint, an action's kind, a reason)."""

    t: Literal["word"] = "word"
    word: str


class Hand(_Value):
    """A poker hand: its category (``"pair"``, ``"straight_flush"``...) and its ranks, most
    significant first (0 = deuce ... 12 = ace)."""

    t: Literal["hand"] = "hand"
    category: str
    ranks: tuple[int, ...]


class Points(_Value):
    """A hand's points (a banking game's): over the limit it is ``bust``."""

    t: Literal["points"] = "points"
    n: int
    bust: bool = False


class Text(_Value):
    """Shown as it is (a hash, a name the player typed)."""

    t: Literal["text"] = "text"
    text: str


class Flag(_Value):
    """Yes or no."""

    t: Literal["flag"] = "flag"
    on: bool


def typed_dict(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A dict whose values are typed values already is taken as it is (checking each one's
    type once more is most of the cost of an event); anything else is validated."""
    if type(value) is dict and all(isinstance(v, _Value) for v in value.values()):
        return value
    return handler(value)


class Row(BaseModel):
    """One player's line of a list (a result, a shown hand): his name, then ``fields``."""

    model_config = ConfigDict(frozen=True)
    player: PlayerId
    fields: Annotated[dict[str, Value], WrapValidator(typed_dict)] = Field(default_factory=dict)


class Rows(_Value):
    """A list of players' lines, or of values (``items``: several hands, several amounts)."""

    t: Literal["rows"] = "rows"
    rows: tuple[Row, ...] = ()
    items: tuple[Value, ...] = ()


class Each(_Value):
    """One value per player, in order ("Boris 1, Chloé 1": what each paid, won...)."""

    t: Literal["each"] = "each"
    values: Annotated[dict[PlayerId, Value], WrapValidator(typed_dict)]


Value = Annotated[Cards | Players | Chips | Signed | Count | Word | Hand | Points | Text
                  | Flag | Rows | Each, Field(discriminator="t")]
"""Every value event data and view facts may hold."""

Row.model_rebuild()
Rows.model_rebuild()
Each.model_rebuild()


_built = functools.lru_cache(maxsize=8192)


@_built
def _value(kind: type[_Value], *args: Any) -> Any:
    return kind(**dict(zip(kind.__pydantic_fields__, args, strict=False)))


def cards(*shown: str) -> Cards:
    """Cards shown: ``cards("Ah", "Tc")`` or ``cards(*hand)``."""
    found: Cards = _value(Cards, "cards", shown)
    return found


def who(*players: PlayerId) -> Players:
    """One player or several: ``who(p)``, ``who(*order)``."""
    found: Players = _value(Players, "players", players)
    return found


def chips(n: int) -> Chips:
    """An amount of chips."""
    found: Chips = _value(Chips, "chips", n)
    return found


def signed(n: int) -> Signed:
    """A win or loss."""
    found: Signed = _value(Signed, "signed", n)
    return found


def count(n: int, noun: str = "") -> Count:
    """A number (of ``noun``)."""
    found: Count = _value(Count, "count", n, noun)
    return found


def word(w: str) -> Word:
    """A word the game's texts translate."""
    found: Word = _value(Word, "word", w)
    return found


def points(n: int, bust: bool = False) -> Points:
    """A hand's points."""
    found: Points = _value(Points, "points", n, bust)
    return found


def text(s: str) -> Text:
    """A text shown as is."""
    return Text(text=s)


def flag(on: bool) -> Flag:
    """Yes or no."""
    found: Flag = _value(Flag, "flag", on)
    return found


def row(player: PlayerId, **fields: Value) -> Row:
    """One player's line: ``row(p, cards=cards(*c), net=signed(5), outcome=word("win"))``."""
    return Row(player=player, fields=fields)


def rows(*lines: Row) -> Rows:
    """A list of players' lines."""
    return Rows(rows=tuple(lines))


def items(*values: Value) -> Rows:
    """A list of values."""
    return Rows(items=tuple(values))


def each(values: dict[PlayerId, Value]) -> Each:
    """One value per player: ``each({p: chips(n) for p, n in paid.items()})``."""
    return Each(values=values)

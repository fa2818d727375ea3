"""What became of a press or a typed amount, as data: the service decides it, the view words it.

:class:`bot.table.presses.Presses` returns one of these for a button, a typed amount or
*My cards*, and :mod:`bot.view.answers` turns it into the pop-up, the prompt, the keyboards
and the DM, in the presser's language. Nothing here is worded: a refusal is a typed reason
(the engine's :class:`games.engine.Reason`, or the host's own :class:`HostReason`), an
accepted press the action it took and whose move it is now.

The union lives in the view (the lowest layer of bot/, see tests/test_layers.py) rather
than beside the service that builds it: the view words it and may not import the service,
while the service and the gateway may both import the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from bot.view.sight import Sight
from games.engine import Reason, TableView


class HostReason(StrEnum):
    """Why the host itself refused a press, before or besides the engine."""

    FORGED = "forged"
    """No button of ours could carry this (malformed, a later decision, an unknown action,
    a choice never offered)."""
    STALE = "stale"
    """The table changed under the press (another worker committed first)."""
    STALE_COUP = "stale_coup"
    """The button was for another coup."""
    STALE_TURN = "stale_turn"
    """The button was for an earlier decision of the presser's."""
    STALE_AMOUNT = "stale_amount"
    """The button's amount or choice is no longer offered."""
    OTHER_TABLE = "other_table"
    """The button belongs to another chat's table."""
    NO_TABLE = "no_table"
    """The chat has no table (closed meanwhile)."""
    TABLE_PAUSED = "table_paused"
    """The bot cannot write in the group: the table waits."""
    WALLET_LOW = "wallet_low"
    """Join with an empty wallet."""
    GROUP_ONLY = "group_only"
    """A table is opened in a group only."""


@dataclass(frozen=True)
class Done:
    """What an accepted press did: the action's kind, and for *Join* the chips the player
    sat down with (his buy-in as the table took it)."""

    kind: str
    buy_in: int | None = None


@dataclass(frozen=True)
class YourMove:
    """The table waits for the presser himself."""


@dataclass(frozen=True)
class Waiting:
    """The table waits for others: their seat names, in the order it awaits them."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Options:
    """The table waits for the presser: what he may do now, as his private decision keyboard
    offers it (drawn from the table's ``sight`` for ``player``, answering ``decision``)."""

    chat_id: int
    sight: Sight
    player: int
    decision: int


@dataclass(frozen=True)
class Accepted:
    """The press made a step: what it did, and whose move it is now (None: nobody's)."""

    done: Done
    next: YourMove | Waiting | None = None
    committed: ClassVar[bool] = True


@dataclass(frozen=True)
class Repeated:
    """A press the table had already taken, delivered again (its first answer may be lost):
    answered as done with the ``label`` the table recorded with the step
    (:attr:`bot.table.record.TableMeta.done`), and whose move it is now."""

    label: str
    next: YourMove | Waiting | None = None
    committed: ClassVar[bool] = True


@dataclass(frozen=True)
class Refused:
    """The press changed nothing, and why; for a stale press what is current now (the
    presser's own options, or whom the table waits for)."""

    reason: Reason | HostReason
    now: Options | Waiting | None = None
    pressed: int = 0
    """For :attr:`HostReason.STALE_COUP`: the coup the button was for (0: not known)."""
    coup: int = 0
    """For :attr:`HostReason.STALE_COUP`: the coup under way (0: none yet)."""
    game: str = ""
    """For :attr:`HostReason.STALE_COUP`: the table's game, which names its deals."""
    name: str | None = None
    """The player whose typed amount was refused, named in the answer ("Bob: ..."); None
    for a press (its pop-up is his own)."""
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class AmountAsked:
    """"✏️ amount" was pressed: the player is asked to type the amount of ``kind`` (with
    ``choice``, named when it is not the action's plain way), from ``min`` to ``max`` when
    both are known; in the group, or in his private chat (``private``) where he pressed."""

    player: int
    name: str
    kind: str
    choice: str | None
    min: int | None
    max: int | None
    private: bool
    here: bool = False
    """Pressed on his view shown to him alone in the group (an ephemeral message): the
    prompt goes to him alone there too, and he writes the amount in the group."""
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class Selection:
    """A private keyboard to pick some of one's own cards: the table, coup and decision it
    answers, the action, its cards, those ticked so far (a bit mask) and the most it takes."""

    chat_id: int
    coup: int
    decision: int
    kind: str
    choices: tuple[str, ...]
    mask: int
    limit: int | None
    app: str = ""
    """The Mini App's page for the table (its ``web_app`` button goes under the cards);
    empty without the app."""


@dataclass(frozen=True)
class PickHere:
    """A selection changed (or opened) in the presser's private chat: the pressed message's
    keyboard turns into it, with an empty pop-up."""

    selection: Selection
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class PickInPrivate:
    """A selection opened from the group: it goes to the presser's private chat, and the
    pop-up sends him there."""

    player: int
    selection: Selection
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class Switched:
    """The keyboard's switch was pressed (:class:`bot.view.codec.Switch`): the pressed
    keyboard is drawn again, its amounts taken the ``way`` (an index into its choices) it
    now names. Nothing was played. ``group``: it was the group's table message, drawn as the
    group's (``open_url``, ``prompted``, ``app``: as :func:`bot.view.screens.table_render`
    takes them); else the presser's own keyboard (``page``: the Mini App's page, whose
    button goes under it in his private chat, empty in the group)."""

    options: Options
    way: int
    choice: str
    group: bool = False
    page: str = ""
    open_url: str | None = None
    prompted: frozenset[int] = frozenset()
    app: bool = False
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class Cards:
    """*My cards*: the presser's own view of the table, or None when the chat has no table."""

    view: TableView | None
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class Opened:
    """A table of ``game`` opened from the /newtable picker."""

    game: str
    committed: ClassVar[bool] = True


@dataclass(frozen=True)
class NotOpened:
    """The /newtable picker's table was not opened: ``text`` is why, as the tables service
    words it for /newtable."""

    text: str
    committed: ClassVar[bool] = False


@dataclass(frozen=True)
class LanguageSet:
    """The chat's language is now ``language``."""

    language: str
    committed: ClassVar[bool] = True


Outcome = (Accepted | Repeated | Refused | AmountAsked | PickHere | PickInPrivate | Switched
           | Cards | Opened | NotOpened | LanguageSet)
"""What became of a button press."""


@dataclass(frozen=True)
class DmOpened:
    """Start pressed in private from a table's deep link: that table (its ``sight``), for
    the player's own cards and his decision if it is open (``decision``: the one his
    keyboard answers; ``prompted``: his turn is prompted in private at that table)."""

    chat_id: int
    sight: Sight
    player: int
    decision: int
    prompted: bool
    app: str = ""
    """The Mini App's page for the table (a ``web_app`` button); empty without the app."""


@dataclass(frozen=True)
class NotANumber:
    """A typed amount that is no whole number: ``name`` is told how to write one."""

    name: str


@dataclass(frozen=True)
class OutOfBounds:
    """A typed amount outside what ``name`` may stake now: from ``min`` to ``max``."""

    name: str
    min: int
    max: int


@dataclass(frozen=True)
class WhichAmount:
    """"@bot 200" from ``name`` with no amount asked of him and not exactly one amount
    action to take: how to write one (``bot``: the bot's username)."""

    name: str
    bot: str


Typed = Refused | NotANumber | OutOfBounds | WhichAmount
"""What a typed amount got when it was not taken."""


def refusal(outcome: Outcome) -> str:
    """The name of the reason a press changed nothing, for the metrics; empty otherwise."""
    if isinstance(outcome, Refused):
        return outcome.reason.value
    if isinstance(outcome, NotOpened):
        return "table_not_opened"
    return ""

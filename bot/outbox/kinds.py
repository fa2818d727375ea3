"""What the outbox holds: the kinds of items a step writes for the courier to send (each
kind's payload is a model of :mod:`bot.outbox.payloads`)."""

from typing import NamedTuple

GROUP = "group"
"""Outbox kind: a new group message (``text``, optional ``markup``). Also the kind a
command's picker is recorded under once posted (:meth:`storage.base.Storage.record_sent`)."""
SETTLE = "settle"
"""Outbox kind: a coup's result; the live table message is edited into it."""
TABLE = "table"
"""Outbox kind: post the table message anew (drawn when it is sent)."""
DM = "dm"
"""Outbox kind: a direct message to a player (``text``, optional ``markup``)."""
DM_EDIT = "dm_edit"
"""Outbox kind: a player's turn prompt edited (``message_id``, ``text``, ``markup``)."""
EPHEMERAL = "ephemeral"
"""Outbox kind: a player's private view shown to him alone in the group (a Bot API 10.2
ephemeral message) edited (``receiver``, ``message_id``: its ephemeral message id, ``text``,
``markup``). It goes with the group's messages, in their order and under their budget
(EPHEMERAL_IN_GROUP_BUDGET)."""
CLOSE = "close"
"""Outbox kind: a closed table's closing text (``text``), posted at the bottom of the chat;
the live table message retires."""


class SeenPrompt(NamedTuple):
    """A turn prompt (a ``DM`` with ``turn``) the courier delivered, as the clock hears it."""

    message_id: int
    digest: str
    """What it shows (:attr:`bot.view.screens.Prompt.digest`), as drafted."""
    version: int | None
    """The table's version it was drawn at (``version`` in its payload; None in an item
    drafted before the payload carried it): at that version it shows what it would show if
    drawn again, and the clock need not draw it again to know."""

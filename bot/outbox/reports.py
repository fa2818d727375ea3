"""What the courier reports of its deliveries, as data, for the table service to act on.

A delivery teaches the table something: a turn was shown (a player's clock may start), the
group refuses the bot, a player does, the table message is gone, or the courier has no
drawing of a chat's table (it delivers a chat this process has not published). The courier
never calls the table service for any of that: it puts a :data:`Report` on the
:class:`Reports` queue and goes on; the table service hears the queue in its own task
(:meth:`bot.table.lifecycle.Lifecycle.hear`) and commits or publishes what follows, under
the chat's lock, as for any other change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.outbox.kinds import SeenPrompt

GROUP, PROMPT, PAGE, VIEW = "group", "prompt", "page", "view"
"""The channels a turn is shown on (a fact of presence's ``channel``): the group's table
message, the player's private prompt, his open page of the Mini App, his view shown to him
alone in the group (under *My cards*)."""


@dataclass(frozen=True)
class TurnShown:
    """``players`` were shown decision ``decision`` on ``channel``. ``drawn``: the deadline
    the group's table message showing it was drawn with; ``prompt``: the one player's turn
    prompt delivered (its message id, digest and version)."""

    chat_id: int
    decision: int
    players: tuple[int, ...]
    channel: str
    drawn: float | None = None
    prompt: SeenPrompt | None = None


@dataclass(frozen=True)
class GroupLost:
    """The group refuses the bot (kicked, blocked): its table pauses."""

    chat_id: int


@dataclass(frozen=True)
class DmBlocked:
    """``user_id`` does not accept the bot's private messages."""

    chat_id: int
    user_id: int


@dataclass(frozen=True)
class TableMissing:
    """The live table message is gone (deleted): the table is posted anew."""

    chat_id: int


@dataclass(frozen=True)
class Unpublished:
    """The courier has no drawing of the chat's table (this process has not published it,
    or another worker changed it since): it is published, and the courier rung."""

    chat_id: int


Report = TurnShown | GroupLost | DmBlocked | TableMissing | Unpublished


class Reports:
    """The courier's reports, in order, for the table service's own task."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Report] = asyncio.Queue()
        self.handling = 0
        """Reports taken and not yet acted on (:meth:`idle`)."""

    def report(self, report: Report) -> None:
        """Tell the table service ``report`` (it acts on it in its own task)."""
        self.queue.put_nowait(report)

    async def next(self) -> Report:
        """The next report (waits for one); the hearer calls :meth:`done` once acted on."""
        report = await self.queue.get()
        self.handling += 1
        return report

    def done(self) -> None:
        """A report taken by :meth:`next` has been acted on."""
        self.handling -= 1

    def idle(self) -> bool:
        """Whether every report has been acted on."""
        return self.queue.empty() and not self.handling

"""How a group's message budget is spent: the turn first, the rest held back.

Telegram takes about 20 sends *and edits together* a minute in one group. The
courier (:mod:`bot.outbox.courier`) asks :class:`Pace` before it edits a table message:

* an edit that is the only way an awaited player learns of his turn (he has no turn
  prompt in his private chat) goes at once; so does the edit that first offers a step
  forward nobody is awaited for (Start, when enough players sit): a button someone must
  press next is a turn too;
* any other edit only refreshes what the group sees: it waits ``gap`` seconds after
  the group's last message, at most ``per_coup`` of them go out in one coup but for one
  that takes off a turn the message shows and that is over (a ``to act`` that is no longer
  true, and its buttons, never stay until the coup's result), and none
  takes the last ``reserve`` messages of the minute, kept for commands (``/balance``)
  and the coup's result (a command whose answer finds the minute full answers in the
  sender's private chat instead: :func:`bot.gateway.context.say`). Meanwhile steps pile up into
  the one edit that follows.

A table played in the Mini App (``/settings screen app``) spends less: while a coup is
under way (``quiet``) its table message is not edited at all, but for a turn that only
the group can show (urgent, as above) and the edit that takes such a turn off the message
once it is over (its buttons would answer nothing else); the coup's card and its result
are its messages.

Coup results and new table messages are never held back: the courier sends them
as they come.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

HELD = -1.0
"""What :meth:`Pace.wait` says of an edit held until the coup ends."""


@dataclass
class Pace:
    """The group budget's rules; ``spare(chat)`` is how many messages the group's window
    still takes now (the rate limiter's count)."""

    gap: float
    per_coup: int
    reserve: int
    spare: Callable[[int], int] | None = None
    clock: Callable[[], float] = time.monotonic
    last: dict[int, float] = field(default_factory=dict)
    coup_edits: dict[int, tuple[int, int]] = field(default_factory=dict)
    turns: dict[int, tuple[int, Hashable]] = field(default_factory=dict)

    def wait(self, chat_id: int, coup: int, turn: Hashable, urgent: bool,
             quiet: bool = False) -> float:
        """Seconds before the group's table message may be edited to show (``coup``,
        ``turn``): 0 now, :data:`HELD` not in this coup. ``turn``: what the table waits for
        (:attr:`bot.view.screens.TableScreen.turn`); ``urgent``: the table's next press
        becomes known only from this edit (an awaited player without a private prompt, or
        Start); ``quiet``: a coup played in the Mini App, whose message only an urgent edit
        changes (:attr:`bot.view.screens.TableScreen.quiet`)."""
        if urgent and self.turns.get(chat_id) != (coup, turn):
            return 0.0
        if quiet:
            return HELD
        if chat_id not in self.last:
            return 0.0  # nothing shown by this process yet: the table as it is, once
        seen_coup, count = self.coup_edits.get(chat_id, (coup, 0))
        if seen_coup == coup and count >= self.per_coup and self.turns.get(chat_id) == (
                coup, turn):
            return HELD  # the message shows the turn still: its other news wait
        left = self.last[chat_id] + self.gap - self.clock()
        if left > 0:
            return left
        if self.spare is not None and self.spare(chat_id) <= self.reserve:
            return max(1.0, self.gap / 4)
        return 0.0

    def edited(self, chat_id: int, coup: int, turn: Hashable) -> None:
        """The table message of ``chat_id`` now shows (``coup``, ``turn``)."""
        seen_coup, count = self.coup_edits.get(chat_id, (coup, 0))
        self.coup_edits[chat_id] = (coup, count + 1 if seen_coup == coup else 1)
        self.turns[chat_id] = (coup, turn)
        self.sent(chat_id)

    def posted(self, chat_id: int, coup: int, turn: Hashable) -> None:
        """A new table message for ``coup`` went out (it starts the coup's count)."""
        self.coup_edits[chat_id] = (coup, 0)
        self.turns[chat_id] = (coup, turn)
        self.sent(chat_id)

    def sent(self, chat_id: int) -> None:
        """Some message went to the group just now."""
        self.last[chat_id] = self.clock()

    def forget(self, chat_id: int) -> None:
        """Nothing is known of what the group was shown (the bot is back in it)."""
        for known in (self.last, self.coup_edits, self.turns):
            known.pop(chat_id, None)

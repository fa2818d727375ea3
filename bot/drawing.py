"""From a table to what people see: the group's table message and each player's DM.

Pure functions over views (``engine.view``): the table message from the public
view, a player's direct message and decision keyboard from his own. What a step
must send is returned as :class:`storage.base.OutboxDraft` items, which the commit
writes with the step (see :mod:`bot.delivery`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot import i18n, render
from bot.render import Keyboard
from bot.specs import Sight, amount_field, collect_buttons, player_buttons
from games.engine import Event
from storage.base import OutboxDraft

GROUP = "group"
"""Outbox kind: a new group message (``text``, optional ``markup``)."""
SETTLE = "settle"
"""Outbox kind: a coup's result; the live table message is edited into it."""
TABLE = "table"
"""Outbox kind: post the table message anew (drawn when it is sent)."""
DM = "dm"
"""Outbox kind: a direct message to a player (``text``, optional ``markup``)."""


@dataclass(frozen=True)
class Render:
    """A table message as it should look now."""

    text: str
    markup: Keyboard | None

    @property
    def markup_json(self) -> str | None:
        """The keyboard as the ``reply_markup`` parameter."""
        return None if self.markup is None else self.markup.as_json()


def deep_link_payload(chat_id: int) -> str:
    """/start payload naming a table: ``t`` + the chat id (``m`` for minus)."""
    return "t" + str(chat_id).replace("-", "m")


def parse_payload(payload: str) -> int | None:
    """The chat id in a deep link payload, or None."""
    if payload.startswith("t") and re.fullmatch(r"m?\d{1,16}", payload[1:]):
        return int(payload[1:].replace("m", "-"))
    return None


def markup_json(markup: Keyboard | None) -> dict[str, Any] | None:
    """A keyboard as JSON for the outbox."""
    return None if markup is None else markup.as_dict()


def table_render(lang: str, chat_id: int, sight: Sight, deadline: float | None,
                 lines: Sequence[str]) -> Render:
    """The group's table message: the public view, its buttons and the coup's log."""
    engine, view = sight.engine, sight.view()
    buttons = collect_buttons(sight)
    amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
    show_cards = any(s.face_down for s in view.seats)
    text = render.table_text(lang, view, deadline if view.awaiting else None, lines,
                             sight.private)
    markup = render.keyboard(lang, chat_id, view, buttons, amount_kinds, show_cards)
    return Render(text, markup)


def decision_keyboard(lang: str, chat_id: int, sight: Sight, player: int) -> Keyboard | None:
    """In a private step, the awaited ``player``'s own actions as buttons for his DM."""
    view = sight.view()
    if player not in view.awaiting or not sight.private:
        return None
    buttons = player_buttons(sight, player)
    amount_kinds = {k for k in buttons.kinds if amount_field(sight.engine, k)}
    return render.keyboard(lang, chat_id, view, buttons, amount_kinds, False)


def direct_messages(lang: str, chat_id: int, sight: Sight, events: Sequence[Event],
                    names: dict[int, str]) -> list[OutboxDraft]:
    """Each reader's private events with his cards; in a private step every awaited player
    also gets his decision keyboard (with his cards, or on its own)."""
    readers: list[int] = []
    for e in events:
        for p in e.to or ():
            if p not in readers:
                readers.append(p)
    awaited = list(sight.view().awaiting)
    private = awaited and sight.private
    out = []
    for player in [*readers, *(p for p in awaited if private and p not in readers)]:
        mine = [e for e in events if e.to is not None and player in e.to]
        lines = render.event_lines(lang, mine, names)
        markup = decision_keyboard(lang, chat_id, sight, player)
        if markup is not None:
            lines.append(i18n.t(lang, "decide_private"))
        out.append(OutboxDraft(kind=DM, target=player,
                               payload={"text": render.dm_text(lang, sight.view(player), lines),
                                        "markup": markup_json(markup)}))
    return out


def group_message(chat_id: int, text: str,
                  markup: Keyboard | None = None) -> OutboxDraft:
    """A new group message for the outbox."""
    return OutboxDraft(kind=GROUP, target=chat_id,
                       payload={"text": render.clip(text), "markup": markup_json(markup)})


def dm_message(user_id: int, text: str,
               markup: Keyboard | None = None) -> OutboxDraft:
    """A direct message for the outbox."""
    return OutboxDraft(kind=DM, target=user_id,
                       payload={"text": render.clip(text), "markup": markup_json(markup)})


def settlement(chat_id: int, text: str) -> OutboxDraft:
    """A coup's result for the outbox: the live table message becomes it."""
    return OutboxDraft(kind=SETTLE, target=chat_id, payload={"text": render.clip(text)})


def table_post(chat_id: int) -> OutboxDraft:
    """Post the table message anew (at the bottom of the chat)."""
    return OutboxDraft(kind=TABLE, target=chat_id, payload={})

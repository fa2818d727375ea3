"""From a table to what people see: the group's table message and each player's DM.

Pure functions over views (``engine.view``): the table message from the public
view, a player's direct message and decision keyboard from his own. What a step
must send is returned as :class:`storage.base.OutboxDraft` items, which the commit
writes with the step (see :mod:`bot.delivery`).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from bot import i18n, render
from bot.render import Keyboard
from bot.specs import Sight, amount_field, collect_buttons, player_buttons
from games.cards import pretty_all
from games.engine import Event, Settlement, ShoeRevealed
from storage.base import OutboxDraft

GROUP = "group"
"""Outbox kind: a new group message (``text``, optional ``markup``)."""
SETTLE = "settle"
"""Outbox kind: a coup's result; the live table message is edited into it."""
TABLE = "table"
"""Outbox kind: post the table message anew (drawn when it is sent)."""
DM = "dm"
"""Outbox kind: a direct message to a player (``text``, optional ``markup``)."""
CLOSE = "close"
"""Outbox kind: a closed table's closing text (``text``), posted at the bottom of the chat;
the live table message retires."""


@dataclass(frozen=True)
class Render:
    """A table message as it should look now, and the turn it shows."""

    text: str
    markup: Keyboard | None
    coup: int = 0
    version: int = 0
    """The step drawn."""
    decision: int = 0
    """The step at which the awaited players' decision began."""
    awaited: tuple[int, ...] = ()
    prompted: frozenset[int] = frozenset()
    """The awaited players told of their turn in their private chat: the group's message
    is not how they learn it."""
    deadline: float | None = field(default=None, compare=False)
    """The end of the turn's clock as drawn (the time left counts down to it); not compared:
    two drawings of one text are the same message, whatever deadline each was drawn for."""
    called: bool = False
    """Nobody is awaited, yet the table offers a step forward (Start, once enough players
    sit): someone must press it next, and this message is the only place it shows."""

    @property
    def urgent_for(self) -> tuple[int, ...]:
        """The awaited players who learn of their turn only from this message."""
        return tuple(p for p in self.awaited if p not in self.prompted)

    @property
    def urgent(self) -> bool:
        """Whether this message is how the table's next press becomes known: an awaited
        player's turn he has no private prompt for, or a step forward nobody is awaited for
        (the Start button that appears when the table becomes startable)."""
        return bool(self.urgent_for) or self.called

    @property
    def turn(self) -> tuple[int, bool]:
        """What the table waits for, as the group's pace tells turns apart: the decision,
        and whether a step forward nobody is awaited for is offered (Start appears without
        a new decision)."""
        return self.decision, self.called

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


TIMED_OUT = "host:timed_out"
"""A coup log entry the host adds: these awaited players ran out of time."""


def log_entry(event: Event) -> dict[str, Any]:
    """A public event as the table record keeps it in the coup's log. A revealed shoe's
    line names nothing, and its proof is kept once, as the record's ``revealed`` (for
    /verify): its entry keeps no data (a 52-card shoe's proof was half of a stud table's
    record, written and serialized again with every step of the next hand)."""
    if isinstance(event, ShoeRevealed):
        return {"kind": event.kind, "data": {}}
    return {"kind": event.kind, "data": event.model_dump(mode="json")["data"]}


# Log lines already drawn, by the log entry (the record's entries are never changed, and
# the copy of the table a commit keeps holds the same ones) for a language and names: every
# drawing of a table draws its whole coup log again, though only its last entries are new.
# Each value holds its entry, so that no other entry can have its id while it is here. The
# least recently drawn go first: a settled coup's entries, an idle table's. (When it was
# emptied whole at 8,192 entries, 200 stud tables drew nearly half their lines anew.)
_LINES: OrderedDict[int, tuple[dict[str, Any], str, tuple[tuple[int, str], ...], Markup]] = (
    OrderedDict())
_LINES_MAX = 16384
"""About 25 entries a busy table (60 at most): room for some 600 tables at once, ~16 MB."""


def log_lines(lang: str, log: Sequence[dict[str, Any]], names: dict[int, str]) -> list[Markup]:
    """The coup's log in ``lang``, drawn when shown (so /language changes it too)."""
    out = []
    who_is = tuple(names.items())
    for entry in log:
        key = id(entry)
        known = _LINES.get(key)
        if known is not None and known[0] is entry and known[1] == lang \
                and known[2] == who_is:
            _LINES.move_to_end(key)
            out.append(known[3])
            continue
        data = entry.get("data") or {}
        if entry.get("kind") == TIMED_OUT:
            who = ", ".join(names.get(p, str(p)) for p in data.get("players", ()))
            line = i18n.t(lang, "timed_out", names=who)
        else:
            line = i18n.event_text(lang, Event(kind=str(entry.get("kind")), data=data), names)
        _LINES[key] = (entry, lang, who_is, line)
        _LINES.move_to_end(key)
        if len(_LINES) > _LINES_MAX:
            _LINES.popitem(last=False)
        out.append(line)
    return out


def table_render(lang: str, chat_id: int, sight: Sight, deadline: float | None,
                 log: Sequence[dict[str, Any]], names: dict[int, str], *,
                 decision: int | None = None, prompted: frozenset[int] = frozenset()
                 ) -> Render:
    """The group's table message: the public view, its buttons and the coup's log."""
    engine, view = sight.engine, sight.view()
    buttons = collect_buttons(sight)
    amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
    show_cards = any(s.face_down for s in view.seats)
    committed = bool(view.info.get("commitment") or view.info.get("commitments"))
    deadline = deadline if view.awaiting else None
    text = render.table_text(lang, view, deadline,
                             log_lines(lang, log, {**names, **render.names_of(view)}),
                             sight.private, committed=committed)
    markup = render.keyboard(lang, chat_id, view, buttons, amount_kinds, show_cards, decision)
    called = not view.awaiting and any(k not in render.UTILITIES for k in buttons.kinds)
    return Render(text, markup, view.coup, view.version,
                  view.version if decision is None else decision, tuple(view.awaiting),
                  prompted, deadline, called)


def decision_keyboard(lang: str, chat_id: int, sight: Sight, player: int,
                      decision: int | None = None, prompted: bool = False) -> Keyboard | None:
    """The awaited ``player``'s own actions as buttons for his DM: in a private step, or
    when his turn is prompted there (``prompted``)."""
    view = sight.view()
    if player not in view.awaiting or not (sight.private or prompted):
        return None
    buttons = player_buttons(sight, player)
    amount_kinds = {k for k in buttons.kinds if amount_field(sight.engine, k)}
    return render.keyboard(lang, chat_id, view, buttons, amount_kinds, False, decision)


# Private events that only say what the DM's "Your cards" line says anyway.
REPEATS = frozenset({"hand_seen", "cards_received", "card_dealt"})


def direct_messages(langs: dict[int, str], chat_id: int, sight: Sight,
                    events: Sequence[Event], names: dict[int, str],
                    prompts: frozenset[int] = frozenset(), decision: int | None = None
                    ) -> list[OutboxDraft]:
    """Each reader's private events with his cards, in his own language (``langs``); every
    awaited player of ``prompts`` (the host's choice: in a private step every awaited
    player, when his decision is new or its buttons changed) also gets his turn with his
    decision keyboard (with his cards, or on its own): such a DM carries
    ``turn`` (the decision), so that its delivery starts his clock. What a player was told
    about a coup this step settled comes first, under that coup's number, before what he is
    dealt for the next."""
    settled_at = next((i for i, e in enumerate(events) if isinstance(e, Settlement)), None)
    earlier, later = (list(events), []) if settled_at is None else (
        list(events[:settled_at]), list(events[settled_at:]))
    if settled_at is not None:
        data = events[settled_at].data
        coup = data.get("coup", data.get("hand"))
        # what follows the result but names the settled coup (a proof of its cards)
        earlier += [e for e in later if coup is not None
                    and e.data.get("coup", e.data.get("hand")) == coup]
        later = [e for e in later if e not in earlier]
        out = [OutboxDraft(kind=DM, target=player, payload={"text": render.dm_text(
            langs[player], None, lines, game=sight.view().game, coup=coup), "markup": None})
            for player, mine in _private(earlier)
            if (lines := _told(langs[player], mine, names, hand_shown=False))]
    else:
        out, later = [], list(earlier)
    awaited = list(sight.view().awaiting)
    mine_later = dict(_private(later))
    for p in awaited:
        if p in prompts:
            mine_later.setdefault(p, [])
    for player, mine in mine_later.items():
        lang, view = langs[player], sight.view(player)
        lines = _told(lang, mine, names, hand_shown=bool(view.my_cards))
        markup = decision_keyboard(lang, chat_id, sight, player, decision, player in prompts)
        if not (lines or markup or view.my_cards or view.my_info):
            continue  # nothing to tell him: no DM that is a title alone
        payload: dict[str, Any] = {}
        if markup is not None:
            lines.append(i18n.t(lang, "decide_private"))
            payload["turn"] = sight.state.version if decision is None else decision
        payload |= {"text": render.dm_text(lang, view, lines),
                    "markup": markup_json(markup)}
        out.append(OutboxDraft(kind=DM, target=player, payload=payload))
    return out


def _private(events: Sequence[Event]) -> list[tuple[int, list[Event]]]:
    """Each reader of private events, in order of first mention, with his events."""
    readers: dict[int, list[Event]] = {}
    for e in events:
        for p in e.to or ():
            readers.setdefault(p, []).append(e)
    return list(readers.items())


def _told(lang: str, mine: Sequence[Event], names: dict[int, str], *,
          hand_shown: bool) -> list[Markup]:
    """A player's private events as DM lines, less those that only repeat his cards. Where
    the DM shows no hand of his (``hand_shown`` false: a coup this step settled, or cards
    he has since turned face up), the hand the step dealt him leads as the "Your cards"
    line, or, where his events do not name the whole hand, those events tell it."""
    rest = [e for e in mine if e.kind not in REPEATS]
    hand = None if hand_shown else next(
        (e.data["cards"] for e in reversed(mine)
         if e.kind in REPEATS and isinstance(e.data.get("cards"), list)), None)
    if hand is not None:
        return [i18n.t(lang, "your_cards", cards=pretty_all(hand)),
                *render.event_lines(lang, rest, names)]
    return render.event_lines(lang, rest if hand_shown else mine, names)


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


def closing(chat_id: int, text: str) -> OutboxDraft:
    """A closed table's closing text for the outbox: a new message at the bottom of the chat
    (whoever closed the table looks there), and the table message retires."""
    return OutboxDraft(kind=CLOSE, target=chat_id, payload={"text": render.clip(text)})


def table_post(chat_id: int, asked: bool = False) -> OutboxDraft:
    """Post the table message anew (at the bottom of the chat). ``asked``: a player asked for
    it (/table), so it is posted even where the live message already shows the table."""
    return OutboxDraft(kind=TABLE, target=chat_id, payload={"asked": True} if asked else {})

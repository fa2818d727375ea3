"""Texts from views and events: the table, a seat, whose turn, a player's direct message.

The table message is drawn from the PUBLIC view (``engine.view(state, None)``)
and public events only; a player's direct message from his own view
(``my_cards``) and the events addressed to him. Nothing here reads the state.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from bot.view import i18n
from games.cards import pretty_all
from games.engine import (
    Event,
    TableView,
    Value,
)

MAX_TEXT = 4000


def names_of(view: TableView) -> dict[int, str]:
    """Player id -> seat name."""
    return {s.player: s.name for s in view.seats}


RECENT = 3
"""How many of the coup's last events the table message shows above its collapsed log."""


def seat_line(lang: str, seat: Any, view: TableView, turn: bool = True) -> Markup:
    """One seat: turn marker (without ``turn``, none, nor a "to act" status), name, role,
    stack, stake, face-up cards, face-down cards as 🂠, status."""
    awaited = turn and seat.player in view.awaiting
    try:
        return _drawn_seat_line(lang, seat, awaited, turn)
    except TypeError:  # a seat that is not a frozen view (unhashable): drawn every time
        return _seat_line(lang, seat, awaited, turn)


TURN_STATUS = "to act"  # a seat's status while it is his turn: a turn marker, as ▶ is


def _seat_line(lang: str, seat: Any, awaited: bool, turn: bool = True) -> Markup:
    name = i18n.fill("<b>{}</b>", seat.name) if awaited else i18n.html(seat.name)
    head = i18n.fill("{} ({})", name, i18n.word(lang, seat.role, "role")) if seat.role \
        else name
    parts = [Markup("▶ ") + head if awaited else head, i18n.fill("💰{}", seat.stack)]
    if seat.stake:
        parts.append(i18n.t(lang, "seat_stake", stake=seat.stake))
    cards = pretty_all(list(seat.face_up)) if seat.face_up else ""
    if seat.face_down:
        cards = (cards + " " if cards else "") + "🂠" * min(seat.face_down, 10)
    if cards:
        parts.append(i18n.html(cards))
    if seat.status and (turn or seat.status != TURN_STATUS):
        parts.append(i18n.html(i18n.word(lang, seat.status, "status")))
    return i18n.joined(" · ", parts)


# Seat lines already drawn, by language, seat (a frozen view) and whether it is awaited: a
# step changes a seat or two, and the table message draws them all.
_drawn_seat_line = functools.lru_cache(maxsize=4096)(_seat_line)


def info_lines(lang: str, facts: Mapping[str, Value], names: dict[int, str]) -> list[Markup]:
    """Facts of the game (a view's public ``facts`` or the viewer's ``my_facts``), each
    labelled by the game's texts and worded by its type."""
    try:
        key = (lang, tuple(facts.items()), tuple(names.items()))
        known = _FACTS.get(key)
    except TypeError:  # a value holding a dict (a list of players' lines): drawn each time
        return _info_lines(lang, facts, names)
    if known is None:
        known = _FACTS[key] = tuple(_info_lines(lang, facts, names))
        if len(_FACTS) > _FACTS_MAX:
            _FACTS.popitem(last=False)
    else:
        _FACTS.move_to_end(key)
    return list(known)


def _info_lines(lang: str, facts: Mapping[str, Value], names: dict[int, str]) -> list[Markup]:
    return [i18n.fill("{}: {}", i18n.info_label(lang, key),
                      i18n.format_value(value, names, key, lang))
            for key, value in facts.items() if not i18n.empty(value)]


# Facts' lines already drawn, by language, facts (their typed values are frozen, and equal
# when they say the same) and names: a table's public facts mostly outlast its steps.
_FACTS: OrderedDict[tuple[str, tuple[tuple[str, Value], ...], tuple[tuple[int, str], ...]],
                    tuple[Markup, ...]] = OrderedDict()
_FACTS_MAX = 4096


def header(lang: str, view: TableView) -> Markup:
    """The table's first line: game, coup, what is going on, bank or pot."""
    return _header(lang, view.game, view.phase, view.coup, view.bank, view.pot)


@functools.lru_cache(maxsize=4096)
def _header(lang: str, game_key: str, phase_key: str, coup: int, bank: int, pot: int) -> Markup:
    # drawn once for what it shows: a coup's steps mostly keep its header
    parts = [*_title(lang, game_key, phase_key, coup)]
    parts += [i18n.t(lang, key, amount=n) for key, n in (("bank", bank), ("pot", pot)) if n]
    return i18n.joined(" · ", parts)


@functools.lru_cache(maxsize=1024)
def _title(lang: str, game_key: str, phase_key: str, coup: int) -> tuple[Markup, ...]:
    # the header but the bank and the pot, which change from step to step
    game = i18n.game_name(lang, game_key)
    # the phase in italics: the one italic of the header (the e2e policies read it)
    phase = i18n.fill("<i>{}</i>", i18n.word(lang, phase_key, "phase"))
    if phase_key == "idle":  # its word plain, as the Mini App shows it too
        return (i18n.t(lang, "idle_table", game=game, phase=i18n.word(lang, phase_key, "phase")),)
    if coup:
        return (i18n.t(lang, "table_title", game=game, deal=i18n.deal(lang, game_key, coup)),
                phase)
    # the auction, banker draw or cut before the first coup
    return (i18n.fill("<b>{}</b>", game), phase)


def time_left(lang: str, deadline: float, now: float) -> Markup:
    """The time left to decide as Telegram's date-time entity: every reader's app shows it
    counting in his own terms; the text inside is what older apps show."""
    seconds = max(0, round(deadline - now))
    return i18n.fill('<tg-time unix="{}" format="r">{}</tg-time>',
        int(deadline), _seconds(lang, seconds))


@functools.lru_cache(maxsize=1024)
def _seconds(lang: str, n: int) -> Markup:
    # "12 s": worded once for a number of seconds (a turn's clock shows the same few)
    return i18n.t(lang, "seconds", n=n)


def table_text(lang: str, view: TableView, deadline: float | None, log: Sequence[Markup],
               private: bool = False, now: float | None = None,
               committed: bool = False, own: Sequence[Markup] = (),
               under: Sequence[Markup] = (), lead: int = 0, turn: bool = True,
               by_cards: Sequence[int] = (), told: frozenset[int] = frozenset()) -> str:
    """The one group message of a table, edited in place: a header, one line per seat,
    whose turn and the time left, the last few events, the rest of the coup log collapsed
    (its first ``lead`` lines first: see :func:`fit`). With ``own``, a player's turn
    prompt: the same table, then his own lines last (his cards, his facts, his move),
    beside his keyboard. ``under``: lines right under the header (the last coup's
    result). Without ``turn``: no line of whose turn it is (the group's card of a coup
    played in the Mini App, which is not edited as turns pass). ``by_cards``: awaited players
    of a private step without a private chat: their turn is not "deciding privately", and
    they are told their buttons are under *My cards*, but for those ``told`` already."""
    return table_layout(lang, view, log, private, committed, own, under, lead, turn,
                        by_cards, told).text(lang, deadline, now)


@dataclass(frozen=True)
class Layout:
    """A table's text (:func:`table_text`) but the time left to decide, which is drawn last
    (:meth:`text`): what a screen keeps of one drawing for the next, whatever the
    deadline and the moment."""

    head: tuple[Markup, ...]
    """The header, the lines under it, the public facts and the seats."""
    turn: tuple[str, str] | None
    """The turn line's text key and whose turn it is; None: no turn line."""
    then: tuple[Markup, ...]
    """The lines after the turn line: who finds his buttons under *My cards*, the last
    few events."""
    log: tuple[Markup, ...]
    """The rest of the coup's log, collapsed."""
    tail: tuple[Markup, ...]
    """The lines last (the committed shoe, a player's own)."""
    lead: int
    """How many of :attr:`log`'s first lines lead it (see :func:`fit`)."""

    def text(self, lang: str, deadline: float | None, now: float | None = None) -> str:
        """The text counting down to ``deadline`` as of ``now`` (None: the time now)."""
        lines = list(self.head)
        if self.turn is not None:
            key, who = self.turn
            if deadline:
                lines.append(i18n.t(lang, key, names=who, left=time_left(
                    lang, deadline, time.time() if now is None else now)))
            else:
                lines.append(i18n.t(lang, key + "_nodeadline", names=who))
        lines += self.then
        return fit(lines, self.log, self.tail, self.lead)


def table_layout(lang: str, view: TableView, log: Sequence[Markup], private: bool = False,
                 committed: bool = False, own: Sequence[Markup] = (),
                 under: Sequence[Markup] = (), lead: int = 0, turn: bool = True,
                 by_cards: Sequence[int] = (), told: frozenset[int] = frozenset()) -> Layout:
    """:func:`table_text` (the same arguments) but its time left."""
    names = names_of(view)
    head = table_head(lang, view, turn)
    if under:
        head = (head[0], *under, *head[1:])
    turn_line, then = None, []
    if view.awaiting and turn:
        who = ", ".join(names.get(p, str(p)) for p in view.awaiting)
        # a private step reads the same for every awaited player, whoever holds what
        turn_line = ("turn_private" if private and not by_cards else "turn", who)
        if hint := [p for p in by_cards if p not in told]:
            then.append(i18n.t(lang, "buttons_in_cards", names=", ".join(
                names.get(p, str(p)) for p in hint)))
    then.extend(Markup("· ") + line for line in log[-RECENT:])
    tail = (i18n.t(lang, "committed_shoe"), *own) if committed else tuple(own)
    return Layout(head, turn_line, tuple(then), tuple(log[:-RECENT]), tail, lead)


# The header, facts and seat lines of the views drawn lately, by the view (each value holds
# it, so that no other view can have its id while it is here), language and turn: a
# version's table message, its turn prompts and its views shown to one player all lead
# with them.
_HEADS: OrderedDict[tuple[int, str, bool], tuple[TableView, tuple[Markup, ...]]] = (
    OrderedDict())
_HEADS_MAX = 256


def table_head(lang: str, view: TableView, turn: bool = True) -> tuple[Markup, ...]:
    """A table's first lines: its header, its public facts in one line, a line per seat (no
    seat: a line saying so); without ``turn``, no turn marker on them (:func:`seat_line`)."""
    key = (id(view), lang, turn)
    known = _HEADS.get(key)
    if known is not None and known[0] is view:
        return known[1]
    lines = [header(lang, view)]
    facts = info_lines(lang, view.facts, names_of(view))
    if facts:
        lines.append(i18n.joined(" · ", facts))
    if view.seats:
        lines.extend(seat_line(lang, s, view, turn) for s in view.seats)
    else:
        lines.append(i18n.t(lang, "no_seats"))
    head = tuple(lines)
    _HEADS[key] = (view, head)
    if len(_HEADS) > _HEADS_MAX:
        _HEADS.popitem(last=False)
    return head


def fit(head: Sequence[Markup], log: Sequence[Markup], tail: Sequence[Markup] = (),
        lead: int = 0) -> str:
    """``head``, then ``log`` in an expandable quote, then ``tail``, kept under Telegram's
    length. The log's first ``lead`` lines are what players must notice (the hands shown),
    put before the rest: a collapsed quote shows its first lines. The log loses its other
    lines first, oldest first, then those (tags are never cut)."""
    body = "\n".join(head)
    end = "\n".join(tail)
    room = MAX_TEXT - len(body) - len(end) - 40
    first: list[str] = []
    for line in log[:lead]:
        if len(line) + 1 > room:
            break
        first.append(line)
        room -= len(line) + 1
    kept: list[str] = []
    for line in reversed(log[lead:]):
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    quoted = first + kept[::-1]
    parts = [body]
    if quoted:
        parts.append("<blockquote expandable>" + "\n".join(quoted) + "</blockquote>")
    if end:
        parts.append(end)
    return "\n".join(parts) if len(body) <= MAX_TEXT else body[:MAX_TEXT]


def clip(text: str) -> str:
    """Keep a plain text under Telegram's 4096 characters, dropping from the top."""
    if len(text) <= MAX_TEXT:
        return text
    return "…\n" + text[-MAX_TEXT:]


def event_lines(lang: str, events: Sequence[Event], names: dict[int, str]) -> list[Markup]:
    """HTML lines for events already filtered for their reader."""
    return [i18n.event_text(lang, e, names) for e in events]


def dm_text(lang: str, view: TableView | None, lines: Sequence[Markup], *,
            game: str = "", coup: Any = None) -> str:
    """A player's direct message: the table and coup, his own cards (his whole hand), his
    own facts, then what happened to him. Without a view: about a past coup (``game``,
    ``coup``), his events only."""
    if view is None:
        return fit([i18n.t(lang, "dm_header", game=i18n.game_name(lang, game),
                           deal=i18n.deal(lang, game, coup)),
                    *lines], [])
    game = i18n.game_name(lang, view.game)
    # before the first coup (the auction, the cut) the game's name alone, as on the table
    out = [i18n.t(lang, "dm_header", game=game, deal=i18n.deal(lang, view.game, view.coup))
           if view.coup
           else i18n.fill("<b>{}</b>", game)]
    if view.my_cards:
        out.append(own_cards(lang, view))
    out.extend(info_lines(lang, view.my_facts, names_of(view)))
    out.extend(lines)
    return fit(out, [])


def own_cards(lang: str, view: TableView) -> Markup:
    """The viewer's "Your cards" line: his hidden cards, then those of his hand face up on
    his seat (stud's up cards): his whole hand, on every private screen."""
    seat = next((s for s in view.seats if s.player == view.viewer), None)
    up = [c for c in seat.face_up if c not in view.my_cards] if seat is not None else []
    return i18n.t(lang, "your_cards_up" if up else "your_cards",
                  cards=pretty_all(list(view.my_cards)), up=pretty_all(up))


def cards_popup(lang: str, view: TableView) -> str:
    """The *My cards* pop-up (plain text, at most 200 characters)."""
    if not view.my_cards:
        return i18n.plain(i18n.t(lang, "no_cards"))
    lines = [own_cards(lang, view), *info_lines(lang, view.my_facts, names_of(view))]
    return i18n.plain("\n".join(lines))[:200]

"""Texts and buttons from views and events: the only road from a table to a person.

The table message is drawn from the PUBLIC view (``engine.view(state, None)``)
and public events only; a player's direct message from his own view
(``my_cards``) and the events addressed to him. Nothing here reads the state.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from markupsafe import Markup
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.view import i18n
from bot.view.codec import HOST_FILLED, ActionButton, MyCards, amounts_for, encode
from bot.view.sight import Buttons, union_choices
from games.cards import pretty_all
from games.engine import (
    ActionSpec,
    Event,
    Hand,
    Input,
    Points,
    Settlement,
    TableView,
    Value,
)
from storage.base import ChatWallet, LedgerEntry

MAX_TEXT = 4000


class Button(NamedTuple):
    """One inline button: its label and its callback data; or, a link, its ``url`` (a URL
    button) or its ``web_app`` (the Mini App's page, opened in place: private chats only,
    Telegram refuses it in a group)."""

    text: str
    callback_data: str = ""
    url: str = ""
    web_app: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The Bot API's InlineKeyboardButton object."""
        if self.url:
            return {"text": self.text, "url": self.url}
        if self.web_app:
            return {"text": self.text, "web_app": {"url": self.web_app}}
        return {"text": self.text, "callback_data": self.callback_data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Button:
        """Back from :meth:`as_dict`."""
        web_app = data.get("web_app")
        return cls(data["text"], data.get("callback_data", ""), data.get("url", ""),
                   web_app["url"] if isinstance(web_app, dict) else "")

    def ptb(self) -> InlineKeyboardButton:
        """PTB's object."""
        if self.url:
            return InlineKeyboardButton(self.text, url=self.url)
        if self.web_app:
            return InlineKeyboardButton(self.text, web_app=WebAppInfo(self.web_app))
        return InlineKeyboardButton(self.text, callback_data=self.callback_data)


@dataclass(frozen=True)
class Keyboard:
    """An inline keyboard as plain data, rows of :class:`Button`.

    The bot draws a keyboard for every table change and DM; PTB's keyboard objects cost
    more to build and to serialize than the rest of drawing, so ours stay plain and go to
    the Bot API as the JSON string it takes. :meth:`markup` gives PTB's object where a
    PTB method wants one.
    """

    inline_keyboard: tuple[tuple[Button, ...], ...]

    @classmethod
    def of(cls, rows: Iterable[Iterable[Button]]) -> Keyboard:
        """A keyboard of these rows."""
        return cls(tuple(tuple(row) for row in rows))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Keyboard:
        """Back from :meth:`as_dict` (the outbox keeps keyboards as JSON)."""
        return cls.of((Button.from_dict(b) for b in row) for row in data["inline_keyboard"])

    def as_dict(self) -> dict[str, Any]:
        """The Bot API's InlineKeyboardMarkup object."""
        return {"inline_keyboard": [[b.as_dict() if b.url or b.web_app else
                                     {"text": b.text, "callback_data": b.callback_data}
                                     for b in row] for row in self.inline_keyboard]}

    def as_json(self) -> str:
        """The ``reply_markup`` parameter as the Bot API takes it: a JSON string."""
        return json.dumps(self.as_dict(), ensure_ascii=False, separators=(",", ":"))

    def markup(self) -> InlineKeyboardMarkup:
        """PTB's object, for PTB's own methods."""
        return InlineKeyboardMarkup([[b.ptb() for b in row] for row in self.inline_keyboard])

    def in_group(self) -> Keyboard:
        """This keyboard as a group may show it: without its ``web_app`` buttons (Telegram
        refuses one in any message of a group, one only its receiver sees included, with
        ``BUTTON_TYPE_INVALID``; the group's table message has the app's URL button), and
        without a row they leave empty."""
        if not any(b.web_app for row in self.inline_keyboard for b in row):
            return self
        rows = (tuple(b for b in row if not b.web_app) for row in self.inline_keyboard)
        return Keyboard(tuple(row for row in rows if row))

    def with_row(self, row: Sequence[Button], first: bool = False) -> Keyboard:
        """This keyboard with one more row: last, or ``first``."""
        rows = (tuple(row), *self.inline_keyboard) if first else (*self.inline_keyboard,
                                                                    tuple(row))
        return Keyboard(rows)


def open_button(lang: str, url: str) -> Button:
    """The group's *Open table* button: a URL button to the Mini App's direct link (a
    ``web_app`` button is refused in a group)."""
    return Button(i18n.plain(i18n.t(lang, "open_table")), url=url)


def app_button(lang: str, url: str) -> Button:
    """A private chat's *Open table* button: the Mini App's page, opened in place."""
    return Button(i18n.plain(i18n.t(lang, "open_table")), web_app=url)


def with_app(lang: str, markup: Keyboard | None, url: str | None) -> Keyboard | None:
    """A private keyboard with the app's button on a row of its own under it (``url``: the
    page for this table, None without the app); a message without a keyboard stays so."""
    if markup is None or not url:
        return markup
    return markup.with_row([app_button(lang, url)])


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
    return Markup(" · ").join(parts)


# Seat lines already drawn, by language, seat (a frozen view) and whether it is awaited: a
# step changes a seat or two, and the table message draws them all.
_drawn_seat_line = functools.lru_cache(maxsize=4096)(_seat_line)


def info_lines(lang: str, facts: Mapping[str, Value], names: dict[int, str]) -> list[Markup]:
    """Facts of the game (a view's public ``facts`` or the viewer's ``my_facts``), each
    labelled by the game's texts and worded by its type."""
    return [i18n.fill("{}: {}", i18n.info_label(lang, key),
                      i18n.format_value(value, names, key, lang))
            for key, value in facts.items() if not i18n.empty(value)]


def header(lang: str, view: TableView) -> Markup:
    """The table's first line: game, coup, what is going on, bank or pot."""
    return _header(lang, view.game, view.phase, view.coup, view.bank, view.pot)


@functools.lru_cache(maxsize=4096)
def _header(lang: str, game_key: str, phase_key: str, coup: int, bank: int, pot: int) -> Markup:
    # drawn once for what it shows: a coup's steps mostly keep its header
    game = i18n.game_name(lang, game_key)
    # the phase in italics: the one italic of the header (the e2e policies read it)
    phase = i18n.fill("<i>{}</i>", i18n.word(lang, phase_key, "phase"))
    if phase_key == "idle":  # its word plain, as the Mini App shows it too
        parts = [i18n.t(lang, "idle_table", game=game, phase=i18n.word(lang, phase_key, "phase"))]
    elif coup:
        parts = [i18n.t(lang, "table_title", game=game, deal=i18n.deal(lang, game_key, coup)),
                 phase]
    else:  # the auction, banker draw or cut before the first coup
        parts = [i18n.fill("<b>{}</b>", game), phase]
    parts += [i18n.t(lang, key, amount=n) for key, n in (("bank", bank), ("pot", pot)) if n]
    return Markup(" · ").join(parts)


def time_left(lang: str, deadline: float, now: float) -> Markup:
    """The time left to decide as Telegram's date-time entity: every reader's app shows it
    counting in his own terms; the text inside is what older apps show."""
    seconds = max(0, round(deadline - now))
    return i18n.fill('<tg-time unix="{}" format="r">{}</tg-time>',
        int(deadline), i18n.t(lang, "seconds", n=seconds))


def table_text(lang: str, view: TableView, deadline: float | None, log: Sequence[Markup],
               private: bool = False, now: float | None = None,
               committed: bool = False, own: Sequence[Markup] = (),
               under: Sequence[Markup] = (), lead: int = 0, turn: bool = True,
               by_cards: Sequence[int] = ()) -> str:
    """The one group message of a table, edited in place: a header, one line per seat,
    whose turn and the time left, the last few events, the rest of the coup log collapsed
    (its first ``lead`` lines first: see :func:`fit`). With ``own``, a player's turn
    prompt: the same table, then his own lines last (his cards, his facts, his move),
    beside his keyboard. ``under``: lines right under the header (the last coup's
    result). Without ``turn``: no line of whose turn it is (the group's card of a coup
    played in the Mini App, which is not edited as turns pass). ``by_cards``: awaited players
    of a private step without a private chat: told their buttons are under *My cards*."""
    names = names_of(view)
    lines = [header(lang, view), *under]
    facts = info_lines(lang, view.facts, names)
    if facts:
        lines.append(Markup(" · ").join(facts))
    if view.seats:
        lines.extend(seat_line(lang, s, view, turn) for s in view.seats)
    else:
        lines.append(i18n.t(lang, "no_seats"))
    if view.awaiting and turn:
        who = ", ".join(names.get(p, str(p)) for p in view.awaiting)
        # a private step reads the same for every awaited player, whoever holds what
        key = "turn_private" if private and not by_cards else "turn"
        if deadline:
            lines.append(i18n.t(lang, key, names=who, left=time_left(
                lang, deadline, time.time() if now is None else now)))
        else:
            lines.append(i18n.t(lang, key + "_nodeadline", names=who))
        if by_cards:
            lines.append(i18n.t(lang, "buttons_in_cards", names=", ".join(
                names.get(p, str(p)) for p in by_cards)))
    lines.extend(Markup("· ") + line for line in log[-RECENT:])
    tail = [i18n.t(lang, "committed_shoe")] if committed else []
    return fit(lines, log[:-RECENT], [*tail, *own], lead)


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


# Buttons anybody may need whatever the turn: they go last.
UTILITIES = ("join", "leave")


def keyboard(lang: str, chat_id: int, view: TableView, buttons: Buttons,
             amount_kinds: set[str], show_cards: bool,
             decision: int | None = None, switch: int = 0) -> Keyboard | None:
    """Inline buttons drawn from the players' legal actions, laid out by who uses them: the
    awaited players' actions first (amounts on the buttons, presets on their own row), then
    what others may do (labelled with the role when only that role may), then the
    utilities (My cards, Join), and Leave alone on the last row. Each button names the
    decision it answers (``decision``: the step at which the awaited players' decision
    began; ``switch``: the way its amounts are taken, :func:`kind_rows`).

    Leave is never where Join was: a player who taps Join twice (the table redrawn in
    between) must not stand up again. While nobody is awaited (a table waiting for
    players) Join leads, so that it keeps its row as players sit down and Start appears
    below it; Leave, offered to whoever sat down, takes a row of its own under everything."""
    step = view.version if decision is None else decision

    def data(kind: str, **kw: Any) -> str:
        return encode(ActionButton(chat_id, view.coup, step, kind, **kw))

    awaited = set(view.awaiting)
    roles = {s.player: s.role for s in view.seats}
    first: list[list[Button]] = []
    then: list[list[Button]] = []
    utilities: list[Button] = []
    leave: list[Button] = []
    for kind, specs in buttons.kinds.items():
        if kind in UTILITIES:
            (leave if kind == "leave" else utilities).append(
                Button(i18n.action_label(lang, kind), data(kind)))
            continue
        who = buttons.offered.get(kind, set())
        label = i18n.action_label(lang, kind)
        holders = {roles.get(p, "") for p in who}
        if who and not who & awaited and len(holders) == 1 and "" not in holders \
                and len(who) < len(view.seats):
            label = f"{label} ({i18n.word(lang, holders.pop(), 'role')})"
        rows = first if who & awaited else then
        rows.extend(kind_rows(lang, kind, label, specs, kind in amount_kinds, data, switch))
    out = _pack(first) + _pack(then)
    if show_cards:
        utilities.insert(0, Button(i18n.plain(i18n.t(lang, "my_cards_button")),
                                   encode(MyCards(chat_id))))
    if utilities:
        if awaited:
            out.extend(fitted(utilities, 3))
        else:
            out[:0] = fitted(utilities, 3)
    if leave:
        out.append(leave)
    return Keyboard.of(out) if out else None


def _pack(rows: list[list[Button]]) -> list[list[Button]]:
    """Lone buttons side by side (up to three to a row), before the rows of amounts; every
    row as many rows as it takes for each word of its labels to fit (:func:`fitted`)."""
    lone = [row[0] for row in rows if len(row) == 1]
    return fitted(lone, 3) + [part for r in rows if len(r) > 1 for part in fitted(r)]


# Telegram draws a row's buttons equally wide, and the sandbox page as Telegram does; a
# label wider than its button wraps (the page) or is cut short (the apps). A row is kept to
# as many buttons as leave each word of every label room on one line in the narrowest row
# a keyboard gets on a 390 px phone: its message's bubble, some 240 px wide.
ROW_PX = 240
BUTTON_PAD_PX = 12
BUTTON_GAP_PX = 4
MOST_IN_ROW = 5
# A glyph's width at 14 px in a wide font (DejaVu Sans, what the page falls back to; the
# apps' fonts are narrower), a little over rather than under.
_NARROW = frozenset("ijlI.,:;'!|")
_SEMI = frozenset("frt()-/ ")
_WIDE = frozenset("mwMWжшщыюфЖШЩЫЮФ—…№@")
_BROAD = frozenset("ABCDEFGHKLNOPQRSTUVXYZАБВГДЕЁЗИЙКЛМНОПРСТУХЦЧЭЯмдц")


def _glyph_px(char: str) -> float:
    if char in _NARROW:
        return 4.5
    if char in _SEMI:
        return 6.0
    if char.isdigit():
        return 9.0
    if char in _WIDE:
        return 13.5
    if char in _BROAD:
        return 10.5
    if char == "\ufe0f":  # the emoji variation selector: no width of its own
        return 0.0
    if ord(char) >= 0x2000 and not ("\u0400" <= char <= "\u04ff"):
        return 17.0  # an emoji or a symbol (a card suit, ✏️, 🚪)
    return 9.0


def label_fits(labels: Sequence[str]) -> bool:
    """Whether these labels, side by side in one row, leave each of their words room on a
    line (a label may wrap between words, never inside one)."""
    n = len(labels)
    room = (ROW_PX - BUTTON_GAP_PX * (n - 1)) / n - BUTTON_PAD_PX
    return all(sum(_glyph_px(c) for c in word) <= room
               for label in labels for word in label.split())


def fitted(buttons: Sequence[Button], most: int = MOST_IN_ROW) -> list[list[Button]]:
    """``buttons`` in order, in as few rows of at most ``most`` as :func:`label_fits` allows,
    as even as they fit ("Stake 5 | 25 | 75" over "300 | ✏️ amount", not four over one)."""
    rows: list[list[Button]] = []
    start = 0
    for size in _row_sizes(tuple(b.text for b in buttons), most):
        rows.append(list(buttons[start:start + size]))
        start += size
    return rows


@functools.lru_cache(maxsize=4096)
def _row_sizes(labels: tuple[str, ...], most: int) -> tuple[int, ...]:
    """How many of ``labels`` each row of :func:`fitted` takes: measured once per row of
    labels (a table's buttons come back with each of its drawings, and measuring their
    glyphs cost a fifth of drawing the keyboard)."""
    rows: list[int] = []
    row: list[str] = []
    for label in labels:  # greedy: how many rows it takes
        if row and (len(row) == most or not label_fits([*row, label])):
            rows.append(len(row))
            row = []
        row.append(label)
    if row:
        rows.append(len(row))
    if len(rows) < 2:
        return tuple(rows)
    base, extra = divmod(len(labels), len(rows))
    for sizes in ([base + 1] * extra + [base] * (len(rows) - extra),
                  [base] * (len(rows) - extra) + [base + 1] * extra):
        even, start = [], 0
        for size in sizes:
            even.append(labels[start:start + size])
            start += size
        if all(len(r) <= most and label_fits(r) for r in even):
            return tuple(sizes)
    return tuple(rows)


def amount_label(lang: str, kind: str, label: str, amount: int) -> str:
    """A button's label with its amount: "Call 2", "Raise to 6"."""
    return amount_template(lang, kind, label).replace("{amount}", str(amount))


def amount_template(lang: str, kind: str, label: str) -> str:
    """:func:`amount_label` with ``{amount}`` left to fill ("Raise to {amount}"): the Mini
    App fills it as its player picks the amount."""
    template = i18n.games_texts().actions.get(i18n.lang_of(lang), {}).get(f"{kind}:amount")
    return template or f"{label} {{amount}}"


def kind_rows(lang: str, kind: str, label: str, specs: Sequence[ActionSpec], amounts: bool,
              data: Any, switch: int = 0) -> list[list[Button]]:
    """The rows of one action kind (``switch``: the way amounts are taken, see below)."""
    choices = [c for s in specs for c in s.choices]
    if any(s.input is Input.OWN_CARDS for s in specs):
        # choices among the presser's own cards: picked in private (DM), never here
        return [[Button(f"{label}…", data(kind, ask=True))]]
    if choices and amounts:
        # amounts taken one of several ways (a banchok stake with or without joining): a
        # switch naming the way shown, which draws the keyboard again with the next way,
        # and one row of amounts taken that way (a row a way read alike)
        ways = union_choices(specs)
        way = switch % len(ways)
        named = i18n.t(lang, "switch_way", way=i18n.choice_label(lang, ways[way]))
        return [[Button(i18n.plain(named), data(kind, switch=(way + 1) % len(ways)))],
                amount_row(lang, kind, label, specs, data, way)]
    if choices and kind not in HOST_FILLED:
        row = [Button(f"{label}: {i18n.choice_label(lang, c)}", data(kind, choice=i))
               for i, c in enumerate(union_choices(specs))]
        return [row[i:i + 3] for i in range(0, len(row), 3)]
    if amounts and kind not in HOST_FILLED:
        return [amount_row(lang, kind, label, specs, data)]
    fixed = {s.min for s in specs if s.min is not None and s.min == s.max}
    if len(fixed) == 1 and kind not in HOST_FILLED:  # a call: what it costs
        return [[Button(amount_label(lang, kind, label, fixed.pop()), data(kind))]]
    return [[Button(label, data(kind))]]


def amount_row(lang: str, kind: str, label: str, specs: Sequence[ActionSpec], data: Any,
               choice: int | None = None) -> list[Button]:
    """Amounts: "Stake 5 | 25 | …", ✏️ for a range (``choice``: the way each is taken)."""
    presets, ranged = amounts_for(specs)
    row = [Button(amount_label(lang, kind, label, v) if i == 0 else str(v),
                  data(kind, amount=v, choice=choice)) for i, v in enumerate(presets)]
    if ranged or not row:
        text = i18n.plain(i18n.t(lang, "type_amount"))
        row.append(Button(text if row else f"{label} {text}", data(kind, ask=True, choice=choice)))
    return row


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


def hand_words(lang: str, hand: Hand | Points | None) -> str | None:
    """A settlement's hand in words: a poker hand, or points."""
    if isinstance(hand, Hand):
        return i18n.hand_text(lang, hand)
    if isinstance(hand, Points):
        return i18n.points(lang, hand.n, hand.bust)
    return None


def headline(lang: str, result: Settlement, names: dict[int, str]) -> Markup:
    """Who won what, with which hand: "Dave wins 42 with a pair of eights"."""
    nets = result.nets
    winners = sorted((p for p, n in nets.items() if n > 0), key=lambda p: -nets[p])
    if not winners:  # a pot of nothing still has its winner (poker checked through)
        return _back(lang, result, names)
    parts = []
    for p in winners[:3]:
        name = names.get(p, str(p))
        words = hand_words(lang, result.hands.get(p))
        amount = nets.get(p, 0)
        parts.append(i18n.t(lang, "wins_with", name=name, amount=amount, hand=words)
                     if words else i18n.t(lang, "wins", name=name, amount=amount))
    return Markup(", ").join(parts)


def _back(lang: str, result: Settlement, names: dict[int, str]) -> Markup:
    """The headline of a coup nobody won anything in: its winners took back only their own
    chips ("Bob takes his own chips back with a pair of queens", a split), not "wins 0"."""
    winners = list(result.winners)
    if not winners:
        return i18n.t(lang, "nobody_won")
    if len(winners) > 1:
        who = [names.get(p, str(p)) for p in winners]
        return i18n.t(lang, "split_back", names=i18n.t(
            lang, "and", first=", ".join(who[:-1]), last=who[-1]))
    name = names.get(winners[0], str(winners[0]))
    words = hand_words(lang, result.hands.get(winners[0]))
    return i18n.t(lang, "back_with", name=name, hand=words) if words \
        else i18n.t(lang, "back", name=name)


def net_line(lang: str, result: Settlement, names: dict[int, str]) -> Markup:
    """Every player's net, biggest win first: "Dave +42 · Ann −2 · Bob (banker) −40"."""
    nets = result.nets
    parts = []
    for p in sorted(nets, key=lambda p: -nets[p]):
        name = i18n.html(names.get(p, str(p)))
        if p == result.banker:
            name = i18n.fill("{} ({})", name, i18n.word(lang, "banker", "role"))
        n = nets[p]
        parts.append(i18n.fill("{} {}", name, f"+{n}" if n > 0 else
                               (f"−{-n}" if n < 0 else "±0")))
    return Markup(" · ").join(parts)


def result_line(lang: str, game: str, result: Settlement, names: dict[int, str]) -> Markup:
    """The last coup's result in one line, leading the next coup's table message."""
    return i18n.t(lang, "last_result", deal=i18n.deal(lang, game, result.coup, capital=True),
                  headline=headline(lang, result, names), nets=net_line(lang, result, names))


def settlement_text(lang: str, game: str, result: Settlement,
                    names: dict[int, str], log: Sequence[Markup], lead: int = 0,
                    then: Sequence[Markup] = ()) -> str:
    """A settled coup: the result first (who won what, with which hand; every player's net,
    the banker's included), the coup's log collapsed under it (its first ``lead`` lines
    first: see :func:`fit`), and, each as a line of the log, what followed it (``then``)."""
    head = [i18n.fill("🏆 <b>{}</b>", headline(lang, result, names)),
            i18n.t(lang, "settled_title", game=i18n.game_name(lang, game),
                   deal=i18n.deal(lang, game, result.coup))]
    nets = net_line(lang, result, names)
    if nets:
        head.append(nets)
    return fit(head, log, [Markup("· ") + line for line in then], lead=lead)


def selection_keyboard(lang: str, chat_id: int, coup: int, version: int, kind: str,
                       choices: Sequence[str], mask: int, limit: int | None, app: str = ""
                       ) -> Keyboard:
    """A private keyboard to pick some of one's own cards (e.g. a poker discard); ``app``:
    the Mini App's page, whose button goes last."""
    def data(**kw: Any) -> str:
        return encode(ActionButton(chat_id, coup, version, kind, **kw))

    row = []
    for i, card in enumerate(choices):
        on = bool(mask >> i & 1)
        row.append(Button(("✅ " if on else "") + i18n.card_label(card),
                          data(select=mask ^ (1 << i))))
    count = bin(mask).count("1")
    label = f"{i18n.action_label(lang, kind)} {count}"
    if limit is not None and count > limit:
        label = f"✗ {label}"
    rows = [*fitted(row), [Button(label, data(confirm=mask))]]
    if app:
        rows.append([app_button(lang, app)])
    return Keyboard.of(rows)


def balances_text(lang: str, name: str, wallets: Sequence[ChatWallet]) -> str:
    """/balance in a private chat: the player's wallet in each chat he plays in, named by
    the chat's title, or, where none was seen, by its open table's game (chips are per
    chat: none of them plays anywhere else)."""
    if not wallets:
        return i18n.t(lang, "balance_nowhere", name=name)
    lines = [i18n.t(lang, "balance_chats", name=name)]
    for w in wallets:
        lines.append(i18n.t(lang, "balance_chat", chat=chat_name(lang, w),
                            balance=w.wallet.balance, on_table=w.wallet.on_table))
    return "\n".join(lines)


def chat_name(lang: str, w: ChatWallet) -> str:
    """What names a chat to a player in his private chat: its title, or, where none was
    seen, its open table's game."""
    return w.title or (i18n.t(lang, "chat_untitled_game", game=i18n.game_name(lang, w.game))
                       if w.game else i18n.t(lang, "chat_untitled"))


def histories_text(lang: str, name: str,
                   results: Sequence[tuple[ChatWallet, Sequence[str]]]) -> str:
    """/history in a private chat: the player's latest results in each chat he plays in
    (:func:`history_lines` of each), under the chat's name; chats without any are left out."""
    results = [(w, lines) for w, lines in results if lines]
    if not results:
        return i18n.t(lang, "history_nowhere", name=name)
    out = [str(i18n.t(lang, "history_chats", name=name))]
    for w, lines in results:
        out.append(str(i18n.t(lang, "history_chat", chat=chat_name(lang, w))))
        out.extend(lines)
    return "\n".join(out)


def history_lines(lang: str, entries: Sequence[LedgerEntry], limit: int = 10) -> list[str]:
    """A player's latest results, newest first: his net per coup, and grants and bonuses.

    **Decision** (what a player expects): a coup's line is what he won or lost in it, the
    figure its result showed him, as punter or as banker. Moves between his own wallet,
    stack and stake cancel out; so do a bank's posting and its return, because the ledger
    books a bank to its banker while it is his (:func:`games.banking.bank_holders`): the
    bank's wins and losses are his. Chips are booked under the coup they are for (a bank
    posted or antes paid for a coup about to begin are that coup's, never a coup #0; a
    step that settles one coup and deals the next splits, see
    :func:`bot.table.plan.booked_coups`), so no line merges two coups' movements."""
    groups: list[tuple[str, int, str, int]] = []  # game, coup, reason, net
    for e in entries:
        key = (e.game, e.coup, "" if e.game else e.reason)
        if groups and groups[-1][:3] == key:
            groups[-1] = (*key, groups[-1][3] + e.delta)
        else:
            groups.append((*key, e.delta))
    lines: list[str] = []
    for game, coup, reason, net in groups:
        if net == 0:
            continue
        amount = f"+{net}" if net > 0 else str(net)
        if game:
            lines.append(i18n.t(lang, "history_coup", game=i18n.game_name(lang, game),
                                deal=i18n.deal(lang, game, coup), amount=amount))
        else:
            lines.append(i18n.t(lang, "history_other", what=i18n.word(lang, reason),
                                amount=amount))
        if len(lines) == limit:
            break
    return lines

"""Inline keyboards: the plain data the bot sends (:class:`Keyboard`), and the buttons a
table's legal actions make, laid out as players read them (amounts on the buttons, rows
whose labels fit a phone's width).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.view import i18n
from bot.view.codec import HOST_FILLED, ActionButton, MyCards, amounts_for, encode
from bot.view.sight import Buttons, union_choices
from games.engine import ActionSpec, Input, TableView


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
        """The ``reply_markup`` parameter as the Bot API takes it: a JSON string, written
        once (a prompt's digest and its send both read it; the keyboard never changes)."""
        written: str | None = self.__dict__.get("_json")
        if written is None:
            written = json.dumps(self.as_dict(), ensure_ascii=False, separators=(",", ":"))
            object.__setattr__(self, "_json", written)
        return written

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


def profile_keyboard(lang: str, url: str) -> Keyboard:
    """A private chat's *My profile* button: the app's profile page, opened in place."""
    return Keyboard.of([[Button(i18n.plain(i18n.t(lang, "app_profile_button")), web_app=url)]])


def with_app(lang: str, markup: Keyboard | None, url: str | None) -> Keyboard | None:
    """A private keyboard with the app's button on a row of its own under it (``url``: the
    page for this table, None without the app); a message without a keyboard stays so."""
    if markup is None or not url:
        return markup
    return markup.with_row([app_button(lang, url)])


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
    return all(_word_px(word) <= room for label in labels for word in label.split())


@functools.lru_cache(maxsize=4096)
def _word_px(word: str) -> float:
    """A word's width: measured once (a row of amounts measured anew, its amounts changed,
    mostly holds words measured before)."""
    return sum(_glyph_px(c) for c in word)


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


@functools.lru_cache(maxsize=1024)
def amount_template(lang: str, kind: str, label: str) -> str:
    """:func:`amount_label` with ``{amount}`` left to fill ("Raise to {amount}"): the Mini
    App fills it as its player picks the amount. Looked up once (the games' texts never
    change), as every amount button asks it."""
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

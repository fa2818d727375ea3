"""Texts and buttons from views and events: the only road from a table to a person.

The table message is drawn from the PUBLIC view (``engine.view(state, None)``)
and public events only; a player's direct message from his own view
(``my_cards``) and the events addressed to him. Nothing here reads the state.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import i18n
from bot.callbacks import ActionButton, MyCards, encode
from games.cards import pretty_all
from games.engine import ActionSpec, Event, TableView
from storage.base import LedgerEntry

MAX_TEXT = 4000
MAX_PRESETS = 4
# Action kinds whose argument the host supplies itself (contract: the whole
# wallet as buy-in), so they are plain buttons. A cut's depth is the cutter's own.
HOST_FILLED = ("join",)


class Button(NamedTuple):
    """One inline button: its label and its callback data."""

    text: str
    callback_data: str


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
        return cls.of((Button(b["text"], b["callback_data"]) for b in row)
                      for row in data["inline_keyboard"])

    def as_dict(self) -> dict[str, Any]:
        """The Bot API's InlineKeyboardMarkup object."""
        return {"inline_keyboard": [[{"text": b.text, "callback_data": b.callback_data}
                                     for b in row] for row in self.inline_keyboard]}

    def as_json(self) -> str:
        """The ``reply_markup`` parameter as the Bot API takes it: a JSON string."""
        return json.dumps(self.as_dict(), ensure_ascii=False, separators=(",", ":"))

    def markup(self) -> InlineKeyboardMarkup:
        """PTB's object, for PTB's own methods."""
        return InlineKeyboardMarkup([[InlineKeyboardButton(b.text, callback_data=b.callback_data)
                                      for b in row] for row in self.inline_keyboard])


@dataclass
class Buttons:
    """What the table message offers: one entry per action kind, in first-seen order."""

    kinds: dict[str, list[ActionSpec]] = field(default_factory=dict)

    def add(self, specs: Iterable[ActionSpec]) -> None:
        """Merge one player's legal actions."""
        for spec in specs:
            self.kinds.setdefault(spec.kind, []).append(spec)


def names_of(view: TableView) -> dict[int, str]:
    """Player id -> seat name."""
    return {s.player: s.name for s in view.seats}


def deadline_clock(deadline: float) -> str:
    """HH:MM:SS in UTC: a fixed time, right however late the message is read."""
    return dt.datetime.fromtimestamp(deadline, dt.UTC).strftime("%H:%M:%S")


def seat_line(lang: str, index: int, seat: Any, view: TableView) -> str:
    """One seat: order number, name, role, stack, stake, face-up cards, hidden count, status."""
    parts = [f"{index}. {seat.name}"]
    if seat.role:
        parts[0] += f" [{i18n.word(lang, seat.role, 'role')}]"
    parts.append(f"💰{seat.stack}")
    if seat.stake:
        parts.append(i18n.t(lang, "seat_stake", stake=seat.stake))
    cards = pretty_all(list(seat.face_up)) if seat.face_up else ""
    if seat.face_down:
        cards = (cards + " " if cards else "") + i18n.t(lang, "seat_hidden", n=seat.face_down)
    if cards:
        parts.append(cards)
    if seat.status:
        parts.append(f"({i18n.word(lang, seat.status, 'status')})")
    marker = "▶ " if seat.player in view.awaiting else ""
    return marker + " · ".join(parts)


def info_lines(lang: str, info: dict[str, Any], names: dict[int, str]) -> list[str]:
    """Facts of the game (public ``info`` or the viewer's ``my_info``), labelled and with
    word values (a hint, a poker hand) translated; hashes are shortened (full text: /verify)."""
    lines = []
    for key, value in info.items():
        if value is None or value is False or value in ("", 0) or value == [] or value == {}:
            continue
        if key.startswith("last") and (isinstance(value, dict) or (
                isinstance(value, list) and any(isinstance(v, dict) for v in value))):
            continue  # the previous coup's summary is in its settlement message
        if key.startswith("commitment"):
            hashes = value if isinstance(value, list) else [value]
            text = " ".join(str(h)[:16] + "…" for h in hashes)
        else:
            text = i18n.format_value(value, names, key, lang)
        lines.append(f"{i18n.info_label(lang, key)}: {text}")
    return lines


def table_text(lang: str, view: TableView, deadline: float | None,
               recent: Sequence[str], private: bool = False) -> str:
    """The one group message of a table, edited in place."""
    game = i18n.game_name(lang, view.game)
    names = names_of(view)
    if view.phase == "idle":
        lines = [i18n.t(lang, "table_idle", game=game)]
    elif view.coup:
        lines = [i18n.t(lang, "table_title", game=game, coup=view.coup)]
    else:  # the auction, banker draw or cut before the first coup
        lines = [game]
    lines.append(i18n.t(lang, "phase", phase=i18n.word(lang, view.phase, "phase")))
    money = []
    if view.bank:
        money.append(i18n.t(lang, "bank", amount=view.bank))
    if view.pot:
        money.append(i18n.t(lang, "pot", amount=view.pot))
    if money:
        lines.append(" · ".join(money))
    lines.extend(info_lines(lang, view.info, names))
    lines.append("")
    if view.seats:
        lines.extend(seat_line(lang, i + 1, s, view) for i, s in enumerate(view.seats))
    else:
        lines.append(i18n.t(lang, "no_seats"))
    if view.awaiting:
        who = ", ".join(names.get(p, str(p)) for p in view.awaiting)
        lines.append("")
        # a private step reads the same for every awaited player, whoever holds what
        key = "turn_private" if private else "turn"
        if deadline:
            lines.append(i18n.t(lang, key, names=who, time=deadline_clock(deadline)))
        else:
            lines.append(i18n.t(lang, key + "_nodeadline", names=who))
    if recent:
        lines.append("")
        lines.extend(recent[-8:])
    return clip("\n".join(lines))


def clip(text: str) -> str:
    """Keep a text under Telegram's 4096 characters, dropping from the top."""
    if len(text) <= MAX_TEXT:
        return text
    return "…\n" + text[-MAX_TEXT:]


def event_lines(lang: str, events: Sequence[Event], names: dict[int, str]) -> list[str]:
    """Text lines for events already filtered for their reader."""
    return [i18n.event_text(lang, e, names) for e in events]


def amounts_for(specs: Sequence[ActionSpec]) -> tuple[list[int], bool]:
    """A few preset amounts (union over players) and whether to offer typing one."""
    values: set[int] = set()
    for spec in specs:
        values.update(spec.presets)
    if not values:
        for spec in specs:
            values.update(v for v in (spec.min, spec.max) if v is not None)
    ranged = any(s.min is not None and s.max is not None and s.max > s.min for s in specs)
    ordered = sorted(values)
    if len(ordered) > MAX_PRESETS:
        # keep the smallest, the largest and evenly spread ones between
        step = (len(ordered) - 1) / (MAX_PRESETS - 1)
        ordered = sorted({ordered[round(i * step)] for i in range(MAX_PRESETS)})
    return ordered, ranged


def keyboard(lang: str, chat_id: int, view: TableView, buttons: Buttons,
             amount_kinds: set[str], show_cards: bool) -> Keyboard | None:
    """Inline buttons drawn from the players' legal actions."""
    rows: list[list[Button]] = []
    simple: list[Button] = []

    def data(kind: str, **kw: Any) -> str:
        return encode(ActionButton(chat_id, view.coup, view.version, kind, **kw))

    for kind, specs in buttons.kinds.items():
        label = i18n.action_label(lang, kind)
        choices = [c for s in specs for c in s.choices]
        if any(i18n.is_card(c) for c in choices):
            # choices among the presser's own cards: picked in private (DM), never here
            rows.append([Button(f"{label}…", data(kind, ask=True))])
        elif choices and kind in amount_kinds:
            presets, _ = amounts_for(specs)
            for i, c in enumerate(dict.fromkeys(choices)):
                rows.append([Button(
                    f"{label} {v} · {i18n.choice_label(lang, c)}" if j == 0 else str(v),
                    data(kind, amount=v, choice=i))
                    for j, v in enumerate(presets)])
        elif choices and kind not in HOST_FILLED:
            seen: list[str] = []
            for c in choices:
                if c not in seen:
                    seen.append(c)
            row = [Button(f"{label}: {i18n.choice_label(lang, c)}", data(kind, choice=i))
                   for i, c in enumerate(seen[:12])]
            rows.extend(row[i:i + 3] for i in range(0, len(row), 3))
        elif kind in amount_kinds and kind not in HOST_FILLED:
            presets, ranged = amounts_for(specs)
            row = [Button(f"{label} {v}" if i == 0 else str(v), data(kind, amount=v))
                   for i, v in enumerate(presets)]
            if ranged or not row:
                text = i18n.t(lang, "type_amount")
                row.append(Button(text if row else f"{label} {text}", data(kind, ask=True)))
            rows.append(row)
        else:
            simple.append(Button(label, data(kind)))
    rows.extend(simple[i:i + 3] for i in range(0, len(simple), 3))
    if show_cards:
        rows.append([Button(i18n.t(lang, "my_cards_button"), encode(MyCards(chat_id)))])
    return Keyboard.of(rows) if rows else None


def dm_text(lang: str, view: TableView, lines: Sequence[str]) -> str:
    """A player's direct message: his private events and his own hidden cards."""
    game = i18n.game_name(lang, view.game)
    out = [i18n.t(lang, "dm_header", game=game, coup=view.coup), *lines]
    if view.my_cards:
        out.append(i18n.t(lang, "your_cards", cards=pretty_all(list(view.my_cards))))
    out.extend(info_lines(lang, view.my_info, names_of(view)))
    return clip("\n".join(out))


def cards_popup(lang: str, view: TableView) -> str:
    """The *My cards* pop-up (at most 200 characters)."""
    if not view.my_cards:
        return i18n.t(lang, "no_cards")
    lines = [i18n.t(lang, "your_cards", cards=pretty_all(list(view.my_cards))),
             *info_lines(lang, view.my_info, names_of(view))]
    return "\n".join(lines)[:200]


def settlement_text(lang: str, view: TableView, coup: int, lines: Sequence[str]) -> str:
    """The new group message for a settled coup: what happened and who won what."""
    game = i18n.game_name(lang, view.game)
    return clip("\n".join([i18n.t(lang, "settled_title", game=game, coup=coup), *lines]))


def selection_keyboard(lang: str, chat_id: int, coup: int, version: int, kind: str,
                       choices: Sequence[str], mask: int, limit: int | None
                       ) -> Keyboard:
    """A private keyboard to pick some of one's own cards (e.g. a poker discard)."""
    def data(**kw: Any) -> str:
        return encode(ActionButton(chat_id, coup, version, kind, **kw))

    row = []
    for i, card in enumerate(choices):
        on = bool(mask >> i & 1)
        row.append(Button(("✅ " if on else "") + i18n.choice_label(lang, card),
                          data(select=mask ^ (1 << i))))
    count = bin(mask).count("1")
    label = f"{i18n.action_label(lang, kind)} {count}"
    if limit is not None and count > limit:
        label = f"✗ {label}"
    return Keyboard.of([row, [Button(label, data(confirm=mask))]])


def history_lines(lang: str, entries: Sequence[LedgerEntry], limit: int = 10) -> list[str]:
    """A player's latest results, newest first: his net per coup (moves between his own
    wallet, stack and stake cancel out), and grants and bonuses."""
    groups: list[tuple[str, int, str, int]] = []  # game, coup, reason, net
    for e in entries:
        key = (e.game, e.coup, "" if e.game else e.reason)
        if groups and groups[-1][:3] == key:
            groups[-1] = (*key, groups[-1][3] + e.delta)
        else:
            groups.append((*key, e.delta))
    lines = []
    for game, coup, reason, net in groups:
        if net == 0:
            continue
        amount = f"+{net}" if net > 0 else str(net)
        if game:
            lines.append(i18n.t(lang, "history_coup", game=i18n.game_name(lang, game),
                                coup=coup, amount=amount))
        else:
            lines.append(i18n.t(lang, "history_other", what=i18n.word(lang, reason),
                                amount=amount))
        if len(lines) == limit:
            break
    return lines

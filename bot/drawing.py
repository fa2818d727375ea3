"""From a table to what people see: the group's table message and each player's DM.

Pure functions over views (``engine.view``): the table message from the public
view, a player's direct message and decision keyboard from his own. What a step
must send is returned as :class:`storage.base.OutboxDraft` items, which the commit
writes with the step (see :mod:`bot.delivery`).
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
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
DM_EDIT = "dm_edit"
"""Outbox kind: a player's turn prompt edited (``message_id``, ``text``, ``markup``)."""
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

TURN_NOTICES = frozenset({"cut_requested", "cut_awaited"})
"""Public events that only say whose turn it is: the table message's turn line ("⏳ Cid")
says it while it lasts, so the coup's log leaves them out (the log tells what was done:
"Cid cuts the shoe")."""


def deals_merged(events: Sequence[Event]) -> list[Event]:
    """Public events with each run of cards dealt face down (a draw poker deal: five to every
    player, one at a time) told as one: "Bob, Cid, Ann each get 5 cards face down", when every
    player of the run got as many."""
    out: list[Event] = []
    run: list[Any] = []

    def flush() -> None:
        got = {p: run.count(p) for p in run}
        if len(run) > 1 and len(set(got.values())) == 1:
            each = len(run) // len(got)
            data: dict[str, Any] = {"players": list(got)}
            out.append(Event(kind=FACE_DOWN_DEALS, data=data | ({"each": each} if each > 1
                                                                 else {})))
        else:
            out.extend(Event(kind="card_dealt_face_down", data={"player": p}) for p in run)
        run.clear()

    for event in events:
        if event.kind == "card_dealt_face_down" and set(event.data) == {"player"}:
            run.append(event.data["player"])
            continue
        if run:
            flush()
        out.append(event)
    if run:
        flush()
    return out


FACE_DOWN_DEALS = "cards_dealt_face_down"
"""A coup log entry the host makes of a run of ``card_dealt_face_down`` events: ``players``
in the order they were dealt, and ``each`` card (absent for one card each)."""


def timeouts_folded(events: Sequence[Event]) -> list[tuple[Event, bool]]:
    """Public events as the coup's log tells them, each with whether it is what a player's
    time running out did for him: his "timed out" event is folded into the first later event
    of his in the step (his safe default, "Bob sits this coup out"), which then reads as the
    timeout ("⏰ Bob sits this coup out (timed out)"). One timeout is one line; a "timed out"
    with nothing of his after it stays a line of its own."""
    out: list[tuple[Event, bool]] = []
    folded: set[Any] = set()
    for i, event in enumerate(events):
        player = event.data.get("player")
        if event.kind == "timed_out" and any(
                later.data.get("player") == player and later.kind not in UNFOLDED
                for later in events[i + 1:]):
            folded.add(player)
            continue
        mark = event.kind not in UNFOLDED and player in folded
        if mark:
            folded.discard(player)
        out.append((event, mark))
    return out


UNFOLDED = frozenset({"timed_out", "stood_up"})
"""Events a timeout is never folded into: another timeout, and a stand-up (two timeouts in a
row: a fact of its own)."""


def log_entry(event: Event, timed_out: bool = False) -> dict[str, Any]:
    """A public event as the table record keeps it in the coup's log (``timed_out``: what a
    player's timeout did for him, see :func:`timeouts_folded`). A revealed shoe's
    line names nothing, and its proof is kept once, as the record's ``revealed`` (for
    /verify): its entry keeps no data (a 52-card shoe's proof was half of a stud table's
    record, written and serialized again with every step of the next hand)."""
    if isinstance(event, ShoeRevealed):
        return {"kind": event.kind, "data": {}}
    entry = {"kind": event.kind, "data": event.model_dump(mode="json")["data"]}
    return {**entry, "timed_out": True} if timed_out else entry


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
            if entry.get("timed_out"):
                line = i18n.t(lang, "timed_out_did", line=line)
        _LINES[key] = (entry, lang, who_is, line)
        _LINES.move_to_end(key)
        if len(_LINES) > _LINES_MAX:
            _LINES.popitem(last=False)
        out.append(line)
    return out


SHOWDOWN = frozenset({"hands_shown", "hand_shown", "natural_shown", "cards_shown",
                      "card_turned", "openers_shown", "baccara_declared", "banker_baccara"})
"""Log entries that show the cards deciding a coup: a showdown, a natural, a turned card."""


def hands_first(log: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The coup's log with the entries that show hands (:data:`SHOWDOWN`) before the rest,
    each part in its order, and how many lead. A collapsed log shows its first lines: they
    must be the hands, not who took the bank or cut the shoe."""
    shown = [e for e in log if e.get("kind") in SHOWDOWN]
    if not shown:
        return list(log), 0
    return shown + [e for e in log if e.get("kind") not in SHOWDOWN], len(shown)


def result_text(lang: str, game: str, coup: int, data: dict[str, Any],
                names: dict[int, str], log: Sequence[dict[str, Any]]) -> str:
    """A settled coup's message: its result, then its log collapsed, the hands first."""
    ordered, lead = hands_first(log)
    return render.settlement_text(lang, game, coup, data, names,
                                  log_lines(lang, ordered, names), lead)


def table_render(lang: str, chat_id: int, sight: Sight, deadline: float | None,
                 log: Sequence[dict[str, Any]], names: dict[int, str], *,
                 decision: int | None = None, prompted: frozenset[int] = frozenset(),
                 last: dict[str, Any] | None = None) -> Render:
    """The group's table message: the public view, its buttons and the coup's log; while
    the coup after it is on, the ``last`` coup's result leads it."""
    engine, view = sight.engine, sight.view()
    buttons = collect_buttons(sight)
    amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
    show_cards = any(s.face_down for s in view.seats)
    deadline = deadline if view.awaiting else None
    coup = last.get("coup") if last else None
    under = [render.result_line(lang, coup, last.get("data") or {}, {
        **names, **render.names_of(view)})] if last and isinstance(coup, int) \
        and view.coup <= coup + 1 else []
    text = _table_text(lang, sight, deadline, log, names, under=under)
    markup = render.keyboard(lang, chat_id, view, buttons, amount_kinds, show_cards, decision)
    called = not view.awaiting and any(k not in render.UTILITIES for k in buttons.kinds)
    return Render(text, markup, view.coup, view.version,
                  view.version if decision is None else decision, tuple(view.awaiting),
                  prompted, deadline, called)


def _table_text(lang: str, sight: Sight, deadline: float | None,
                log: Sequence[dict[str, Any]], names: dict[int, str],
                own: Sequence[Markup] = (), under: Sequence[Markup] = ()) -> str:
    """The public table as the group sees it (``own``: a player's lines below it,
    ``under``: lines under its header). The last few entries of the coup's log show as
    they came; the hands lead the collapsed rest."""
    view = sight.view()
    committed = bool(view.info.get("commitment") or view.info.get("commitments"))
    older, lead = hands_first(log[:-render.RECENT])
    return render.table_text(lang, view, deadline if view.awaiting else None,
                             log_lines(lang, [*older, *log[-render.RECENT:]],
                                       {**names, **render.names_of(view)}),
                             sight.private, committed=committed, own=own, under=under,
                             lead=lead)


@dataclass(frozen=True)
class Prompt:
    """A player's turn prompt in his private chat: the table from his seat and his keyboard.
    ``digest`` tells two drawings apart by what they show (not the seconds left), so that
    an open prompt is edited only when the table or his choices changed."""

    text: str
    markup: Keyboard | None
    digest: str


def prompt(lang: str, chat_id: int, sight: Sight, player: int, deadline: float | None,
           log: Sequence[dict[str, Any]], names: dict[int, str], *,
           decision: int | None = None, lines: Sequence[Markup] = (),
           last: Markup | None = None, keyboard: bool = True) -> Prompt:
    """A player's turn prompt: everything the group's table shows (every seat, its up
    cards and stakes, the bank or pot, whose turn, the coup's events), then his own hidden
    cards and private facts, what happened to him (``lines``) and ``last`` (by default:
    his move is here), with his decision keyboard. Without ``keyboard``: a prompt whose
    decision is gone, ``last`` saying what became of it."""
    mine = sight.view(player)
    own = []
    if mine.my_cards:
        own.append(i18n.t(lang, "your_cards", cards=pretty_all(list(mine.my_cards))))
    own += render.info_lines(lang, mine.my_info, render.names_of(sight.view()))
    own += lines
    own.append(i18n.t(lang, "decide_private") if last is None else last)
    markup = decision_keyboard(lang, chat_id, sight, player, decision, True) if keyboard \
        else None
    text = _table_text(lang, sight, deadline, log, names, own)
    shows = _TIME_LEFT.sub("", text) + (markup.as_json() if markup is not None else "")
    return Prompt(text, markup, hashlib.blake2b(shows.encode(), digest_size=8).hexdigest())


_TIME_LEFT = re.compile(r"<tg-time [^>]*>[^<]*</tg-time>")
"""The time left as drawn: not what tells two drawings of a prompt apart."""


def closed_prompt(lang: str, chat_id: int, sight: Sight, player: int, message_id: int,
                  log: Sequence[dict[str, Any]], names: dict[int, str], last: Markup
                  ) -> OutboxDraft:
    """A delivered turn prompt whose decision is gone, edited: the table as it was, no
    keyboard, and ``last``, what became of the decision."""
    return prompt_edit(player, message_id, prompt(lang, chat_id, sight, player, None, log,
                                                  names, keyboard=False, last=last))


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
# What such an event may tell of the hand besides its cards, told under them as his view's
# facts would be ("Your points: 8").
HAND_FACTS = ("points",)


def direct_messages(langs: dict[int, str], chat_id: int, sight: Sight,
                    events: Sequence[Event], names: dict[int, str],
                    prompts: frozenset[int] = frozenset(), decision: int | None = None,
                    log: Sequence[dict[str, Any]] = (), deadline: float | None = None,
                    open_prompts: Mapping[int, tuple[int, str]] | None = None
                    ) -> list[OutboxDraft]:
    """Each reader's private events with his cards, in his own language (``langs``); every
    awaited player of ``prompts`` (the host's choice: in a private step every awaited
    player, when his decision is new or its buttons changed) also gets his turn with his
    decision keyboard (with his cards, or on its own): such a DM carries
    ``turn`` (the decision), so that its delivery starts his clock. What a player was told
    about a coup this step settled comes first, under that coup's number, before what he is
    dealt for the next. A DM with a decision keyboard is his turn prompt (:func:`prompt`):
    the table from his seat (the coup's ``log``, the time left to ``deadline``), with a
    ``digest`` of what it shows. A player whose prompt of this decision is open
    (``open_prompts``: its message id and digest) gets no new one: it is edited
    (:data:`DM_EDIT`) where what it shows changed."""
    open_prompts = open_prompts or {}
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
        if p in prompts or p in open_prompts:
            mine_later.setdefault(p, [])
    for player, mine in mine_later.items():
        lang, view = langs[player], sight.view(player)
        lines = _told(lang, mine, names, hand_shown=bool(view.my_cards))
        shown = open_prompts.get(player) if player in awaited else None
        markup = decision_keyboard(lang, chat_id, sight, player, decision,
                                   player in prompts or shown is not None)
        if markup is not None and shown is not None:
            turn = prompt(lang, chat_id, sight, player, deadline, log, names,
                          decision=decision, lines=lines)
            if turn.digest != shown[1]:
                out.append(prompt_edit(player, shown[0], turn))
            continue
        if markup is not None:
            turn = prompt(lang, chat_id, sight, player, deadline, log, names,
                          decision=decision, lines=lines)
            out.append(OutboxDraft(kind=DM, target=player, payload={
                "turn": sight.state.version if decision is None else decision,
                "digest": turn.digest, "text": turn.text, "markup": markup_json(turn.markup)}))
            continue
        if not (lines or view.my_cards or view.my_info):
            continue  # nothing to tell him: no DM that is a title alone
        out.append(OutboxDraft(kind=DM, target=player, payload={
            "text": render.dm_text(lang, view, lines), "markup": None}))
    return out


def prompt_edit(player: int, message_id: int, turn: Prompt) -> OutboxDraft:
    """Edit a player's delivered turn prompt into ``turn`` (its digest goes with it)."""
    return OutboxDraft(kind=DM_EDIT, target=player, payload={
        "message_id": message_id, "text": turn.text, "markup": markup_json(turn.markup),
        "digest": turn.digest})


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
    line, with its points where the event tells them (no view of a settled coup does), or,
    where his events do not name the whole hand, those events tell it."""
    rest = [e for e in mine if e.kind not in REPEATS]
    dealt = None if hand_shown else next(
        (e for e in reversed(mine)
         if e.kind in REPEATS and isinstance(e.data.get("cards"), list)), None)
    if dealt is not None:
        facts = {k: dealt.data[k] for k in HAND_FACTS if isinstance(dealt.data.get(k), int)}
        return [i18n.t(lang, "your_cards", cards=pretty_all(dealt.data["cards"])),
                *render.info_lines(lang, facts, names),
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

"""From a table to what people see: the group's table message, a turn prompt, the coup's log.

Pure functions over a state's views (:class:`bot.view.sight.Sight`): the table message
(:class:`TableScreen`) from the public view, a player's turn prompt and decision keyboard
from his own, the coup's log from the typed events it keeps. Which of them a step sends,
as outbox items, is :mod:`bot.table.sends`'s to say.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from bot.view import i18n, proofs, render
from bot.view.render import Keyboard
from bot.view.sight import Buttons, Sight, amount_field, collect_buttons, player_buttons
from games.engine import (
    About,
    Count,
    Event,
    PlayerId,
    Settlement,
    ShoeRevealed,
    StoodUp,
    TimedOut,
    Value,
    count,
    visible_events,
    who,
)


@dataclass(frozen=True)
class TableScreen:
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
    """A move nobody awaited makes is offered (Start once enough players sit; on a Mini App
    coup's card, banchok's joining): this message is the only place the chat shows it."""
    quiet: bool = False
    """A coup under way at a table played in the Mini App: its message is not edited till
    the result, but where it is the only way an awaited player sees his turn (:attr:`urgent`)."""
    opener: Keyboard | None = field(default=None, compare=False)
    """The *Open table* button alone (None without the Mini App): a coup's result keeps it,
    and between coups the group has the table's link still."""

    @property
    def urgent(self) -> bool:
        """Whether this message is how the table's next press becomes known: an awaited
        player's turn he has no private prompt for, or a step forward nobody is awaited for
        (the Start button that appears when the table becomes startable)."""
        return any(p not in self.prompted for p in self.awaited) or self.called

    @property
    def turn(self) -> tuple[int, bool, tuple[int, ...]]:
        """What the table waits for, as the group's pace tells turns apart: the decision,
        whether a step forward nobody is awaited for is offered (Start appears without a
        new decision), and whom the message shows awaited (a Mini App coup's card: nobody,
        nor its decision: a move it offers the others is drawn once, not at every decision;
        several awaited: those yet to answer)."""
        return self.decision if self.awaited or not self.quiet else 0, self.called, \
            self.awaited

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

def logged(event: Event) -> bool:
    """Whether the coup's log tells ``event``: not one that only says whose turn it is
    (:attr:`About.TURN`): the table message's turn line ("⏳ Cid") says it while it lasts,
    and the log tells what was done ("Cid cuts the shoe")."""
    return event.about is not About.TURN


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
            data: dict[str, Value] = {"players": who(*got)}
            out.append(Event(kind=FACE_DOWN_DEALS, data=data | ({"each": count(each)}
                                                                 if each > 1 else {})))
        else:
            out.extend(dealt[p].pop(0) for p in run)
        run.clear()

    dealt: dict[PlayerId, list[Event]] = {}
    for event in events:
        player = event.player
        if event.about is About.DEALT_DOWN and player is not None:
            run.append(player)
            dealt.setdefault(player, []).append(event)
            continue
        if run:
            flush()
        out.append(event)
    if run:
        flush()
    return out


FACE_DOWN_DEALS = "host:dealt_face_down"
"""A coup log entry the host makes of a run of cards dealt face down
(:attr:`About.DEALT_DOWN`): ``players`` in the order they were dealt, and ``each`` card
(absent for one card each)."""


def timeouts_folded(events: Sequence[Event]) -> list[tuple[Event, bool]]:
    """Public events as the coup's log tells them, each with whether it is what a player's
    time running out did for him: his "timed out" event is folded into the first later event
    of his in the step (his safe default, "Bob sits this coup out"), which then reads as the
    timeout ("⏰ Bob sits this coup out (timed out)"). One timeout is one line; a "timed out"
    with nothing of his after it stays a line of its own."""
    out: list[tuple[Event, bool]] = []
    folded: set[Any] = set()
    for i, event in enumerate(events):
        player = event.player
        if isinstance(event, TimedOut) and any(
                later.player == player and not isinstance(later, UNFOLDED)
                for later in events[i + 1:]):
            folded.add(player)
            continue
        mark = not isinstance(event, UNFOLDED) and player in folded
        if mark:
            folded.discard(player)
        out.append((event, mark))
    return out


UNFOLDED = (TimedOut, StoodUp)
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
    # its typed values as they are (frozen): the record's JSON writes them when it is stored
    # (bot.table.record.TableMeta.stored), once; an entry read back holds their JSON form
    entry: dict[str, Any] = {"kind": event.kind, "data": dict(event.data)}
    if event.about is About.SHOWDOWN:
        entry["showdown"] = True
    if timed_out:
        entry["timed_out"] = True
    return entry


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
            who_ran = ", ".join(names.get(p, str(p)) for p in data.get("players", ()))
            line = i18n.t(lang, "timed_out", names=who_ran)
        else:
            line = _entry_line(lang, entry, names)
            if entry.get("timed_out"):
                line = i18n.t(lang, "timed_out_did", line=line)
        _LINES[key] = (entry, lang, who_is, line)
        _LINES.move_to_end(key)
        if len(_LINES) > _LINES_MAX:
            _LINES.popitem(last=False)
        out.append(line)
    return out


def _entry_line(lang: str, entry: dict[str, Any], names: dict[int, str]) -> Markup:
    """One log entry's line: a game's event in its texts, or the host's own deal line."""
    try:
        # a step's new entry holds typed values, taken as they are (games.values.typed_dict);
        # an entry read back from storage holds their JSON, validated here
        event = Event(kind=str(entry.get("kind")), data=entry.get("data") or {})
    except ValueError:  # an entry of an older shape (kept from before an upgrade)
        return i18n.html(i18n.word(lang, str(entry.get("kind"))))
    if event.kind == FACE_DOWN_DEALS:
        players = event.data.get("players")
        each = event.data.get("each")
        return i18n.t(lang, "dealt_face_down_each" if each is not None else "dealt_face_down",
                      players=i18n.format_value(players, names) if players else "",
                      each=each.n if isinstance(each, Count) else 1)
    return i18n.event_text(lang, event, names)


def hands_first(log: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The coup's log with the entries that show hands (:attr:`About.SHOWDOWN`) before the rest,
    each part in its order, and how many lead. A collapsed log shows its first lines: they
    must be the hands, not who took the bank or cut the shoe."""
    shown = [e for e in log if e.get("showdown")]
    if not shown:
        return list(log), 0
    return shown + [e for e in log if not e.get("showdown")], len(shown)


def result_text(lang: str, game: str, result: Settlement,
                names: dict[int, str], log: Sequence[dict[str, Any]],
                then: Sequence[dict[str, Any]] = ()) -> str:
    """A settled coup's message: its result, its log collapsed (hands first), ``then`` last."""
    ordered, lead = hands_first(log)
    return render.settlement_text(lang, game, result, names, log_lines(lang, ordered, names),
                                  lead, log_lines(lang, then, names))


# The last results read back, by the record's dict (never changed in place; each value
# holds its dict, so that no other can have its id while it is here): every drawing of the
# table reads the same one.
_RESULTS: OrderedDict[int, tuple[dict[str, Any], Settlement | None]] = OrderedDict()
_RESULTS_MAX = 1024


def last_result(last: dict[str, Any] | None) -> Settlement | None:
    """The last settled coup as the table record keeps it (:func:`Settlement.model_dump`),
    or None (none yet, or kept in an older shape)."""
    if not last:
        return None
    known = _RESULTS.get(id(last))
    if known is not None and known[0] is last:
        _RESULTS.move_to_end(id(last))
        return known[1]
    try:
        result: Settlement | None = Settlement.model_validate(last)
    except ValueError:
        result = None
    _keep_result(last, result)
    return result


def kept_result(result: Settlement, log: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A settled coup as the table record keeps it (:func:`last_result` reads it), known
    already as ``result``: a chemin de fer coup is a few steps long, and the next drawing of
    the table would validate back the dump just made. With it, as ``shown``, the entries of
    its coup's ``log`` that showed hands (:func:`hands_first`): the Mini App's result shows
    them as the group's result does, after the coup's log is gone."""
    last = result.model_dump(mode="json")
    ordered, lead = hands_first(log)
    if lead:
        last["shown"] = ordered[:lead]
    _keep_result(last, result)
    return last


def _keep_result(last: dict[str, Any], result: Settlement | None) -> None:
    _RESULTS[id(last)] = (last, result)
    if len(_RESULTS) > _RESULTS_MAX:
        _RESULTS.popitem(last=False)


# The last results' lines already drawn, by the settlement (kept by :func:`last_result`;
# each value holds it, so that no other can have its id while it is here) for a language
# and names: every drawing of the next coup's table leads with the same line.
_RESULT_LINES: OrderedDict[int, tuple[Settlement, str, tuple[tuple[int, str], ...], Markup]] = (
    OrderedDict())


def _result_line(lang: str, game: str, result: Settlement, names: dict[int, str]) -> Markup:
    """:func:`bot.view.render.result_line`, drawn once for a language and names."""
    who_is = tuple(names.items())
    known = _RESULT_LINES.get(id(result))
    if known is not None and known[0] is result and known[1] == lang and known[2] == who_is:
        return known[3]
    line = render.result_line(lang, game, result, names)
    _RESULT_LINES[id(result)] = (result, lang, who_is, line)
    if len(_RESULT_LINES) > _RESULTS_MAX:
        _RESULT_LINES.popitem(last=False)
    return line


def table_render(lang: str, chat_id: int, sight: Sight, deadline: float | None,
                 log: Sequence[dict[str, Any]], names: dict[int, str], *,
                 decision: int | None = None, prompted: frozenset[int] = frozenset(),
                 last: dict[str, Any] | None = None, open_url: str | None = None,
                 app: bool = False, no_dm: frozenset[int] = frozenset(),
                 switch: int = 0) -> TableScreen:
    """The group's table message: the public view, its buttons and the coup's log; while
    the coup after it is on, the ``last`` coup's result leads it. ``open_url``: the Mini
    App's direct link for this table, the *Open table* button's, on the first row.

    ``app``: the table is played in the Mini App (``/settings screen app``). While a coup is
    under way (someone is awaited in a coup) the message is then the coup's *card*
    (:data:`TableScreen.quiet`: it is posted when the coup starts and left as it is until
    its result): the table without whose turn it is or a clock, a line saying where moves
    are made, and only the buttons nobody awaited decides with (*My cards*, *Join*,
    *Leave*). An awaited player who is not told his turn in private (not in ``prompted``:
    he has no private chat with the bot) is the exception: the group is the only place he
    can see it, so the message is drawn as in the chat, his turn and buttons on it, and
    that edit goes out at once (it counts against the group's budget), as does the card's
    offer of a move to the others (banchok's joining). ``no_dm``: players the bot cannot
    write to: a private step tells them their buttons are under *My cards*. ``switch``: see
    ``render.kind_rows``."""
    engine, view = sight.engine, sight.view()
    buttons = collect_buttons(sight)
    quiet = app and view.coup > 0 and bool(view.awaiting)
    card = quiet and set(view.awaiting) <= prompted
    awaited = set(view.awaiting)
    if card:  # the awaited players decide in the app or in private: not on the card
        kinds = {k: v for k, v in buttons.kinds.items()
                 if k in render.UTILITIES or not buttons.offered.get(k, set()) & awaited}
        buttons = Buttons(kinds, {k: v for k, v in buttons.offered.items() if k in kinds})
    amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
    show_cards = any(s.face_down for s in view.seats)
    deadline = deadline if view.awaiting and not card else None
    result = last_result(last)
    under = [_result_line(lang, view.game, result, {**names, **render.names_of(view)})] \
        if result is not None and view.coup <= result.coup + 1 else []
    text = _table_text(lang, sight, deadline, log, names, under=under, turn=not card,
                       own=[i18n.t(lang, "app_card")] if card else (),
                       by_cards=[p for p in view.awaiting if p in no_dm] if sight.private else ())
    markup = render.keyboard(lang, chat_id, view, buttons, amount_kinds, show_cards, decision,
                             switch)
    opener = render.Keyboard.of([[render.open_button(lang, open_url)]]) if open_url else None
    if opener is not None:
        markup = markup.with_row(opener.inline_keyboard[0], first=True) \
            if markup is not None else opener
    called = (card or not view.awaiting) and any(k not in render.UTILITIES for k in buttons.kinds)
    return TableScreen(text, markup, view.coup, view.version,
                       view.version if decision is None else decision,
                       () if card else tuple(view.awaiting), prompted, deadline, called, quiet,
                       opener)


def _table_text(lang: str, sight: Sight, deadline: float | None,
                log: Sequence[dict[str, Any]], names: dict[int, str],
                own: Sequence[Markup] = (), under: Sequence[Markup] = (),
                turn: bool = True, by_cards: Sequence[int] = ()) -> str:
    """The public table as the group sees it (``own``: a player's lines below it,
    ``under``: lines under its header; without ``turn``, no line of whose turn it is). The
    last few entries of the coup's log show as they came; the hands lead the collapsed
    rest."""
    view = sight.view()
    committed = view.shoe is not None and bool(view.shoe.commitments)
    older, lead = hands_first(log[:-render.RECENT])
    return render.table_text(lang, view, deadline if view.awaiting else None,
                             log_lines(lang, [*older, *log[-render.RECENT:]],
                                       {**names, **render.names_of(view)}),
                             sight.private, committed=committed, own=own, under=under,
                             lead=lead, turn=turn, by_cards=by_cards)


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
           last: Markup | None = None, keyboard: bool = True, app: str | None = None
           ) -> Prompt:
    """A player's turn prompt, and his view shown to him alone in the group (one drawing:
    the two cannot tell him different things): everything the group's table shows (every
    seat, its up cards and stakes, the bank or pot, whose turn and the time left, the
    coup's events), then his own cards (his up cards too) and private facts, what happened
    to him (``lines``) and ``last`` (by default, while he is awaited: his move is here),
    with his decision keyboard (the amount to call on its button). Without ``keyboard``:
    a prompt whose decision is gone, ``last`` saying what became of it. ``app``: the Mini
    App's page for this table, whose ``web_app`` button goes under his keyboard."""
    mine = sight.view(player)
    own = [render.own_cards(lang, mine)] if mine.my_cards else []
    own += render.info_lines(lang, mine.my_facts, render.names_of(sight.view()))
    own += lines
    buttons = decision_keyboard(lang, chat_id, sight, player, decision, True) if keyboard \
        else None
    if last is not None or buttons is not None:
        own.append(i18n.t(lang, "decide_private") if last is None else last)
    text = _table_text(lang, sight, deadline, log, names, own)
    return drawn(text, render.with_app(lang, buttons, app))


def drawn(text: str, markup: Keyboard | None) -> Prompt:
    """A private drawing (a turn prompt, a view in the group for one player) with the
    digest of what it shows: its text less the time left, and its keyboard."""
    shows = _TIME_LEFT.sub("", text) + (markup.as_json() if markup is not None else "")
    return Prompt(text, markup, hashlib.blake2b(shows.encode(), digest_size=8).hexdigest())


_TIME_LEFT = re.compile(r"<tg-time [^>]*>[^<]*</tg-time>")
"""The time left as drawn: not what tells two drawings of a prompt apart."""


def prompt_outcome(lang: str, player: int, actor: int | None, action: str,
                   timed_out: Sequence[int], new_coup: bool,
                   events: Sequence[Event] = (), names: dict[int, str] | None = None, *,
                   game: str = "", coup: int = 0) -> Markup:
    """What became of a player's decision, in one line of his closed prompt: his own
    action (``actor``, its kind ``action``), his time running out, or the decision (or the
    coup ``coup`` of ``game``) being over. His action, or what the table did for him, reads
    as the step's public ``events`` tell it ("✅ Ann bids 50"): a bare label ("✅ Bid") said
    neither how much nor, after a timeout, what was decided."""
    mine = next((e for e in events if e.to is None and e.player == player
                 and not isinstance(e, TimedOut | StoodUp)), None)
    if player == actor and action:
        if mine is not None:
            return i18n.t(lang, "prompt_done", label=i18n.event_text(lang, mine, names or {}))
        return i18n.t(lang, "prompt_done", label=i18n.action_label(lang, action))
    if player in timed_out:
        if mine is not None:
            return i18n.t(lang, "prompt_timed_out_did",
                          line=i18n.event_text(lang, mine, names or {}))
        return i18n.t(lang, "prompt_timed_out")
    if new_coup:
        return i18n.t(lang, "prompt_coup_over", deal=i18n.deal(lang, game, coup, capital=True))
    return i18n.t(lang, "prompt_over")


def closing_text(lang: str, events: Sequence[Event], names: dict[int, str]) -> str:
    """A closed table's closing text: that it closed, what closing did (the table's
    ``events``: the coup voided, chips back), and how each shoe it revealed was made."""
    lines: list[str] = [i18n.t(lang, "closed_table")]
    lines += [i18n.event_text(lang, e, names) for e in visible_events(events, None)
              if not isinstance(e, ShoeRevealed)]
    for event in events:
        if isinstance(event, ShoeRevealed):
            lines.append(proofs.revealed_text(lang, proofs.Revealed.model_validate(
                proofs.revealed_record(event)), names))
    return "\n\n".join(lines)


def decision_keyboard(lang: str, chat_id: int, sight: Sight, player: int,
                      decision: int | None = None, prompted: bool = False,
                      switch: int = 0) -> Keyboard | None:
    """The awaited ``player``'s own actions as buttons for his DM: in a private step, or
    when his turn is prompted there (``prompted``); ``switch``: how its amounts are taken."""
    view = sight.view()
    if player not in view.awaiting or not (sight.private or prompted):
        return None
    buttons = player_buttons(sight, player)
    amount_kinds = {k for k in buttons.kinds if amount_field(sight.engine, k)}
    return render.keyboard(lang, chat_id, view, buttons, amount_kinds, False, decision, switch)


def ephemeral_view(lang: str, chat_id: int, sight: Sight, player: int,
                   deadline: float | None, log: Sequence[dict[str, Any]],
                   names: dict[int, str], decision: int, *, last: Markup | None = None
                   ) -> Prompt | None:
    """A player's private view shown to him alone in the group (a Bot API 10.2 ephemeral
    message), drawn as his turn prompt is (:func:`prompt`): a player without a private
    chat decides here, on the same facts (the bank or pot, every up card, the time left).
    ``last``: his view once the decision it answered is gone, without a keyboard, saying
    what became of it. None: nothing private to show (no hidden card, no fact of his own,
    no decision): his *My cards* pop-up says so."""
    view = sight.view(player)
    shown = prompt(lang, chat_id, sight, player, deadline, log, names, decision=decision,
                   last=last, keyboard=last is None)
    private = view.my_cards or view.my_facts or shown.markup is not None or last is not None
    return shown if private else None

"""The coup's log: the entries the table record keeps of a coup's public events (folded
timeouts, merged face-down deals), and their lines in a reader's language, drawn once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from bot.view import i18n
from games.engine import (
    About,
    Count,
    Event,
    PlayerId,
    ShoeRevealed,
    StoodUp,
    TimedOut,
    Value,
    count,
    who,
)

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

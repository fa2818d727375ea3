"""A settled coup in words: who won what with which hand, every player's net, the
settlement's message, and the last result leading the next coup's table.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from bot.view import i18n
from bot.view.logbook import hands_first, log_lines
from bot.view.render import fit
from games.engine import Hand, Points, Settlement


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
    first: see :func:`bot.view.render.fit`), and, each as a line of the log, what followed
    it (``then``)."""
    head = [i18n.fill("🏆 <b>{}</b>", headline(lang, result, names)),
            i18n.t(lang, "settled_title", game=i18n.game_name(lang, game),
                   deal=i18n.deal(lang, game, result.coup))]
    nets = net_line(lang, result, names)
    if nets:
        head.append(nets)
    return fit(head, log, [Markup("· ") + line for line in then], lead=lead)


def result_text(lang: str, game: str, result: Settlement,
                names: dict[int, str], log: Sequence[dict[str, Any]],
                then: Sequence[dict[str, Any]] = ()) -> str:
    """A settled coup's message: its result, its log collapsed (hands first), ``then`` last."""
    ordered, lead = hands_first(log)
    return settlement_text(lang, game, result, names, log_lines(lang, ordered, names), lead,
                           log_lines(lang, then, names))


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


def kept_result(result: Settlement, log: Sequence[dict[str, Any]] = (),
                earned: Sequence[tuple[int, str]] = ()) -> dict[str, Any]:
    """A settled coup as the table record keeps it (:func:`last_result` reads it), known
    already as ``result``: a chemin de fer coup is a few steps long, and the next drawing of
    the table would validate back the dump just made. With it, as ``shown``, the entries of
    its coup's ``log`` that showed hands (:func:`bot.view.logbook.hands_first`): the Mini
    App's result shows them as the group's result does, after the coup's log is gone. And,
    as ``earned``, the achievements its players reached with it (player and key, in the
    order reached), that every screen showing the result shows under it."""
    last = result.model_dump(mode="json")
    ordered, lead = hands_first(log)
    if lead:
        last["shown"] = ordered[:lead]
    if earned:
        last["earned"] = [[p, k] for p, k in earned]
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


def drawn_result_line(lang: str, game: str, result: Settlement, names: dict[int, str]
                      ) -> Markup:
    """:func:`result_line`, drawn once for a language and names."""
    who_is = tuple(names.items())
    known = _RESULT_LINES.get(id(result))
    if known is not None and known[0] is result and known[1] == lang and known[2] == who_is:
        return known[3]
    line = result_line(lang, game, result, names)
    _RESULT_LINES[id(result)] = (result, lang, who_is, line)
    if len(_RESULT_LINES) > _RESULTS_MAX:
        _RESULT_LINES.popitem(last=False)
    return line

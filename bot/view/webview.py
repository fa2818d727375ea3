"""The Mini App's snapshot of a table for one viewer (docs/webapp.md): pure, from the typed
view the engine gives that viewer and his legal actions, nothing else.

Deny by default: the snapshot is built from ``sight.view(viewer)`` (a seated player's seat
view, else the public view) and ``sight.legal(viewer)``; another seat's hidden card has no
field in either (:class:`games.engine.SeatView`), so it cannot reach a page. Texts are worded
here, in the viewer's language, as the chat words them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.view import i18n, keyboards, logbook, render, results
from bot.view.codec import HOST_FILLED, amount_bounds, amounts_for
from bot.view.sight import Sight, amount_field, player_buttons, union_choices
from games.engine import Input, PlayerId

UI_KEYS = ("app_connecting", "app_connected", "app_reconnecting", "app_offline", "app_log",
           "app_log_empty", "app_close", "app_your_cards", "app_your_turn", "app_waiting_for",
           "app_seconds", "app_coup", "app_bank", "app_pot", "app_result", "app_amount",
           "app_confirm", "app_pick_cards", "app_spectator", "app_you", "app_network_error",
           "app_card_back", "app_card_name", "app_card_ranks", "app_card_suits", "app_table")
"""The page's own words (its buttons, its states), sent with every snapshot."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking: the validated user, and whether he sits at the table."""

    user_id: PlayerId
    name: str
    seated: bool


def ui(lang: str, game: str = "") -> dict[str, str]:
    """The page's own words in ``lang``, plain text, a deal named as ``game`` names it
    ("Hand #{n}"); ``{names}``, ``{n}``, ``{rank}``, ``{suit}`` are the page's to fill."""
    texts = i18n.TEXTS[i18n.lang_of(lang)]
    words = {key.removeprefix("app_"): texts[key] for key in UI_KEYS}
    words["coup"] = words["coup"].format(deal=i18n.deal(lang, game, "{n}", capital=True))
    return words


def seated(sight: Sight, user_id: PlayerId) -> bool:
    """Whether ``user_id`` has a seat at the table."""
    return any(s.player == user_id for s in sight.view().seats)


def snapshot(lang: str, chat_id: int, title: str, sight: Sight, viewer: Viewer, *,
             rev: int, decision: int, deadline: float | None, now: float,
             log: list[dict[str, Any]], names: dict[int, str],
             last: dict[str, Any] | None, is_open: bool = True) -> dict[str, Any]:
    """The whole table as ``viewer`` may see it now, with his actions (docs/webapp.md)."""
    view = sight.view(viewer.user_id if viewer.seated else None)
    names = {**names, **render.names_of(view)}
    awaiting = set(view.awaiting)
    result = results.last_result(last)
    table = {
        "chat_id": chat_id, "title": title, "open": is_open,
        "game": view.game, "game_name": i18n.game_name(lang, view.game), "coup": view.coup,
        "phase": i18n.word(lang, view.phase, "phase"), "bank": view.bank, "pot": view.pot,
        "seats": [{"player": s.player, "name": s.name, "stack": s.stack, "stake": s.stake,
                   "face_up": list(s.face_up), "face_down": s.face_down,
                   "role": i18n.word(lang, s.role, "role") if s.role else "",
                   "status": i18n.word(lang, s.status, "status") if s.status else "",
                   "turn": s.player in awaiting, "me": s.player == viewer.user_id}
                  for s in view.seats],
        "facts": _facts(lang, view.facts, names),
        "awaiting": list(view.awaiting),
        "deadline": deadline if awaiting else None,
        "log": [str(line) for line in logbook.log_lines(lang, log, names)],
        "result": None if result is None or view.coup > result.coup + 1 else {
            "coup": result.coup,
            "headline": str(results.headline(lang, result, names)),
            "nets": [{"player": p, "name": names.get(p, str(p)), "net": n,
                      "banker": p == result.banker}
                     for p, n in sorted(result.nets.items(), key=lambda kv: -kv[1])]},
    }
    return {
        "type": "snapshot", "version": view.version, "rev": rev, "server_time": now,
        "lang": lang, "ui": ui(lang, view.game), "table": table,
        "me": {"id": viewer.user_id, "name": viewer.name, "seated": viewer.seated,
               "cards": list(view.my_cards), "facts": _facts(lang, view.my_facts, names)},
        "decision": decision,
        "actions": actions(lang, sight, viewer.user_id),
    }


def _facts(lang: str, facts: dict[str, Any], names: dict[int, str]) -> list[dict[str, str]]:
    return [{"label": i18n.info_label(lang, key),
             "text": str(i18n.format_value(value, names, key, lang))}
            for key, value in facts.items() if not i18n.empty(value)]


def fixed_amount(sight: Sight, player: PlayerId, kind: str) -> int | None:
    """The one amount ``player``'s action ``kind`` takes, when it takes exactly one (shown
    as a plain button, "Stake 1"): the amount a page's plain action stands for."""
    specs = player_buttons(sight, player).kinds.get(kind, [])
    if not specs or not amount_field(sight.engine, kind) or kind in HOST_FILLED:
        return None
    presets, ranged = amounts_for(specs)
    if ranged or len(presets) != 1 or any(s.choices for s in specs):
        return None
    return presets[0]


def actions(lang: str, sight: Sight, player: PlayerId) -> list[dict[str, Any]]:
    """The viewer's own legal actions, one entry per kind, as his private keyboard offers
    them (:func:`bot.view.sight.player_buttons`: what an action's choice index and preset
    are read against when it comes back)."""
    out = []
    engine = sight.engine
    for kind, specs in player_buttons(sight, player).kinds.items():
        label = i18n.action_label(lang, kind)
        entry: dict[str, Any] = {"kind": kind, "label": label, "input": "plain", "min": None,
                                 "max": None, "presets": [], "choices": [], "pick": None}
        if kind in keyboards.UTILITIES:
            entry["input"] = "utility"
        elif any(s.input is Input.OWN_CARDS for s in specs):
            spec = specs[0]
            entry.update(input="own_cards", pick=spec.max,
                         choices=[{"index": i, "label": c} for i, c in enumerate(spec.choices)])
        else:
            choices = union_choices(specs) if kind not in HOST_FILLED else []
            entry["choices"] = [{"index": i, "label": i18n.choice_label(lang, c)}
                                for i, c in enumerate(choices)]
            if amount_field(engine, kind) and kind not in HOST_FILLED and any(
                    s.min is not None or s.max is not None or s.presets for s in specs):
                presets, ranged = amounts_for(specs)
                lo, hi = amount_bounds(specs) if ranged else (min(presets), max(presets))
                fixed = lo == hi
                # one amount only: a plain button, the page adds its cost ("Stake 1")
                entry.update(input="plain" if fixed and not choices else "amount",
                             min=lo, max=hi, presets=presets)
            elif choices:
                entry["input"] = "choice"
        out.append(entry)
    return out

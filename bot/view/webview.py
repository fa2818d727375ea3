"""The Mini App's snapshot of a table for one viewer (docs/webapp.md): pure, drawn from his
scene (:class:`bot.view.scene.Scene`), as the chat's screens are, nothing else.

Deny by default: the scene holds the view the engine gives that viewer (a seated player's
seat view, else the public view) and his legal actions; another seat's hidden card has no
field in either (:class:`games.engine.SeatView`), so it cannot reach a page. Texts are worded
here, in the viewer's language, as the chat words them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.view import achievements, i18n, keyboards, logbook, results
from bot.view.codec import HOST_FILLED, ActionButton, amount_bounds, amounts_for, decode
from bot.view.scene import Scene
from bot.view.sight import (
    OUTSIDER,
    Buttons,
    Sight,
    amount_field,
    player_buttons,
    union_choices,
)
from games.engine import ActionSpec, Input, PlayerId, TableView

UI_KEYS = ("app_connecting", "app_connected", "app_reconnecting", "app_offline", "app_log",
           "app_log_empty", "app_close", "app_your_cards", "app_your_turn", "app_waiting_for",
           "app_seconds", "app_coup", "app_bank", "app_pot", "app_result", "app_amount",
           "app_confirm", "app_pick_cards", "app_spectator", "app_you", "app_network_error",
           "app_card_back", "app_card_name", "app_card_ranks", "app_card_suits", "app_table",
           "app_standings")
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


def snapshot(lang: str, title: str, scene: Scene, viewer: Viewer, *, rev: int, now: float,
             is_open: bool = True) -> dict[str, Any]:
    """The whole table as ``viewer`` may see it now, with his actions (docs/webapp.md),
    drawn from his ``scene`` (the public one's facts, his cards and his actions) in his
    language, as the chat words them."""
    view, names = scene.seen, scene.names
    awaiting = set(view.awaiting)
    table = {
        "chat_id": scene.chat_id, "title": title, "open": is_open,
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
        "deadline": scene.deadline,
        "log": [str(line) for line in logbook.log_lines(lang, scene.log, names)],
        "result": settled(lang, scene),
    }
    return {
        "type": "snapshot", "version": view.version, "rev": rev, "server_time": now,
        "lang": lang, "ui": ui(lang, view.game), "table": table,
        "me": {"id": viewer.user_id, "name": viewer.name, "seated": viewer.seated,
               "cards": list(scene.my_cards), "facts": _facts(lang, scene.my_facts, names)},
        "decision": scene.decision,
        "actions": actions(lang, scene),
    }


def settled(lang: str, scene: Scene) -> dict[str, Any] | None:
    """The last settled coup while the table is at it or at the coup after it
    (:attr:`Scene.result`), as the group's result words it: its headline, the hands shown
    (:func:`bot.view.logbook.log_lines` of the entries that showed them, each line as the
    group's result has it), every net."""
    result, names = scene.result, scene.names
    if result is None:
        return None
    return {"coup": result.coup, "headline": str(results.headline(lang, result, names)),
            "hands": [str(line) for line in logbook.log_lines(lang, scene.shown, names)],
            "earned": [str(line) for line in achievements.earned_lines(
                lang, scene.table.game, scene.earned, names)],
            "nets": [{"player": p, "name": names.get(p, str(p)), "net": n,
                      "banker": p == result.banker}
                     for p, n in sorted(result.nets.items(), key=lambda kv: -kv[1])]}


def _facts(lang: str, facts: Mapping[str, Any], names: dict[int, str]) -> list[dict[str, str]]:
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


def actions(lang: str, scene: Scene) -> list[dict[str, Any]]:
    """The viewer's own legal actions (:attr:`Scene.buttons`), one entry per kind, as his
    private keyboard offers them (:func:`bot.view.sight.player_buttons`: what an action's
    choice index and preset are read against when it comes back), in its order and in its
    words: a plain action's ``label`` is its button's ("Call 2", "Banco! 250"), an amount's
    ``confirm`` its buttons' words around the amount ("Raise to {amount}")."""
    out = []
    buttons = scene.buttons
    kinds = tuple((kind, tuple(specs)) for kind, specs in buttons.kinds.items())
    words = dict(_worded(lang, kinds, scene.amount_kinds))
    for kind, specs in buttons.kinds.items():
        label = i18n.action_label(lang, kind)
        entry: dict[str, Any] = {"kind": kind, "label": words.get(kind, label),
                                 "input": "plain", "min": None, "max": None, "presets": [],
                                 "choices": [], "pick": None}
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
            if kind in scene.amount_kinds and kind not in HOST_FILLED and any(
                    s.min is not None or s.max is not None or s.presets for s in specs):
                presets, ranged = amounts_for(specs)
                lo, hi = amount_bounds(specs) if ranged else (min(presets), max(presets))
                fixed = lo == hi
                # one amount only: a plain button, worded with its cost ("Stake 1")
                entry.update(input="plain" if fixed and not choices else "amount",
                             min=lo, max=hi, presets=presets)
                if entry["input"] == "amount":
                    entry.update(label=label,
                                 confirm=keyboards.amount_template(lang, kind, label))
            elif choices:
                entry.update(input="choice", label=label)
        out.append(entry)
    order = {kind: i for i, kind in enumerate(words)}
    return sorted(out, key=lambda entry: order.get(entry["kind"], len(order)))


@functools.lru_cache(maxsize=4096)
def _worded(lang: str, kinds: tuple[tuple[str, tuple[ActionSpec, ...]], ...],
            amount_kinds: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """Each action kind as the viewer's private keyboard words its first button ("Call 2",
    "Banco! 250", "Raise to 4"), in the keyboard's order; drawn once for what the labels
    depend on: the keyboard of one awaited player (no button of his labelled with his role
    for others), read back. A page is pushed each version, and a player's choices change
    far less often."""
    view = TableView(game="", version=0, coup=0, phase="", viewer=None, seats=(),
                     awaiting=(OUTSIDER,))
    buttons = Buttons({kind: list(specs) for kind, specs in kinds},
                      {kind: {OUTSIDER} for kind, _ in kinds})
    markup = keyboards.keyboard(lang, 0, view, buttons, set(amount_kinds), False)
    words: dict[str, str] = {}
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            pressed = decode(button.callback_data) if button.callback_data else None
            if isinstance(pressed, ActionButton) and not pressed.ask:
                words.setdefault(pressed.kind, button.text)
    return tuple(words.items())

"""One moment, one scene per viewer: the group's table message, a player's turn prompt, his
view shown to him alone in the group and his Mini App snapshot say what his scene holds, in
every game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_bot_ephemeral import GAMES, at_a_decision, labels, shown_to
from test_bot_tables import CHAT as TABLE_CHAT
from test_bot_tables import (
    NAMES,
    make_host,  # noqa: F401 (a fixture)
)

from bot.view import i18n, keyboards, screens, webview
from bot.view.scene import Scene
from games.cards import pretty_all

CLOCK = re.compile(r'<tg-time unix="(\d+)" format="r">(\d+) s</tg-time>')


def seat_cards(scene: Scene) -> dict[str, str]:
    """Each seat's cards as the scene holds them, written as a seat line shows them: its
    up cards, then one 🂠 a card face down."""
    out = {}
    for seat in scene.seats:
        up = pretty_all(list(seat.face_up)) if seat.face_up else ""
        down = "🂠" * seat.face_down
        out[seat.name] = f"{up} {down}".strip()
    return out


def told(text: str, scene: Scene, seconds: tuple[int, ...]) -> None:
    """``text`` shows ``scene``'s bank or pot, every seat's cards, whose turn it is and the
    time left to its deadline (``seconds``: the whole seconds it may read, drawn a moment
    after the deadline was taken)."""
    lines = text.splitlines()
    head = lines[0]
    assert (f" · bank {scene.bank}" in head) == bool(scene.bank), head
    assert (f" · pot {scene.pot}" in head) == bool(scene.pot), head
    for name, cards in seat_cards(scene).items():
        [line] = [x for x in lines if name in x and "💰" in x]
        if cards:
            assert f" · {cards}" in line, line
        else:
            assert "🂠" not in line, line
    who = ", ".join(scene.names[p] for p in scene.awaited)
    assert any(x.startswith(f"⏳ {who} · ") for x in lines), text
    assert scene.deadline is not None
    [(unix, left)] = CLOCK.findall(text)
    assert int(unix) == int(scene.deadline)
    assert int(left) in seconds


@pytest.mark.parametrize("game", GAMES)
async def test_the_screens_of_one_moment_say_what_his_scene_holds(
        game: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """At a seeded decision of each game, the group's message (the public scene), the
    awaited player's turn prompt and his view in the group (his scene) show the bank or
    pot, every up card, whose turn it is and the time left as the scenes hold them, his
    cards, and what each move that costs one set amount costs on its button (in poker, the
    amount to call), on the page too."""
    host, _, player = await at_a_decision(make_host, monkeypatch, game)
    table = await host.tables.load(TABLE_CHAT)
    due = await host.tables.clock.due(table)
    assert due is not None
    mine, public = table.scene(player, due), table.scene(None, due)
    assert mine is table.scene(player, due)  # derived once
    assert (mine.bank, mine.pot, mine.seats, mine.awaited) == (
        public.bank, public.pot, public.seats, public.awaited)
    assert mine.awaited == (player,) and mine.my_cards
    now = host.tables.clock.now()
    seconds = (round(due - now), round(due - now) - 1)
    published = host.tables.feed.latest(TABLE_CHAT)  # as the courier draws it
    assert published is not None and published.version == table.state.version
    group = published.screen()
    assert group is not None
    told(group.text, public, seconds)
    prompt = screens.prompt("en", mine)
    shown, keyboard = await shown_to(host, player)
    assert keyboard is not None and prompt.markup is not None
    for text in (prompt.text, shown):
        told(text, mine, seconds)
        assert f"\nYour cards: <b>{pretty_all(list(mine.my_cards))}</b>" in text
    assert labels(keyboard) == labels(prompt.markup)
    costs = {kind: keyboards.amount_label("en", kind, i18n.action_label("en", kind), n)
             for kind, n in mine.costs.items()}
    if game.endswith("poker"):
        assert mine.costs["call"] > 0 and costs["call"] == f"Call {mine.costs['call']}"
    assert set(costs.values()) <= {t for row in labels(keyboard) for t, _ in row}
    page = webview.snapshot("en", "Table", mine, webview.Viewer(player, NAMES[player], True),
                            rev=table.rec.rev, now=now)
    felt = page["table"]
    assert (felt["bank"], felt["pot"], felt["awaiting"], felt["deadline"]) == (
        mine.bank, mine.pot, [player], due)
    assert {s["name"]: (tuple(s["face_up"]), s["face_down"]) for s in felt["seats"]} == {
        s.name: (s.face_up, s.face_down) for s in mine.seats}
    assert page["me"]["cards"] == list(mine.my_cards)
    assert set(costs.values()) <= {a["label"] for a in page["actions"]}

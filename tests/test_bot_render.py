"""The table message is drawn from the public view: no seat's hidden card ever shows."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from poker_fixtures import stud_after_first_bet
from test_chemin_de_fer_rules import shoe_of as chemin_shoe
from test_chemin_de_fer_rules import staking as chemin_staking
from test_twenty_one_rules import table as twenty_one_table

from bot.ops.hooks import raw_cards
from bot.table import sends
from bot.view import i18n, keyboards, logbook, render, results, screens
from bot.view.scene import scene
from bot.view.sight import Sight, amount_field, collect_buttons
from games import chemin_de_fer, registry, twenty_one
from games.cards import pretty
from games.engine import (
    Hand,
    Join,
    SeatView,
    Start,
    TableView,
    parse_action,
    settlement,
)

PRETTY = {pretty(r + s): r + s for r in "23456789TJQKA" for s in "cdhs"}
CARD_RE = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")


def cards_in(text: str) -> set[str]:
    return {PRETTY[m.group(0)] for m in CARD_RE.finditer(text)}


def public_cards(view: TableView) -> set[str]:
    out = {c for s in view.seats for c in s.face_up}
    out |= {c for v in view.facts.values() for c in raw_cards([v])}
    return out


def engines() -> list[str]:
    found = []
    for name in registry.GAMES:
        try:
            registry.engine(name)
        except ImportError:
            continue
        found.append(name)
    return found


def play(name: str, seed: int, steps: int) -> list[tuple[Any, Any]]:
    """Three players join; the awaited ones take their first legal option each step."""
    engine = registry.engine(name)
    rng = random.Random(seed)
    state = engine.new_table({}, rng)
    for p in (1, 2, 3):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=1000), rng).state
    state = engine.apply(state, 1, Start(), rng).state
    out = []
    for _ in range(steps):
        out.append((engine, state))
        waiting = engine.awaiting(state)
        if not waiting:
            break
        player = waiting[0]
        spec = next(s for s in engine.legal_actions(state, player) if s.kind != "leave")
        data: dict[str, Any] = {"kind": spec.kind}
        if spec.kind == "cut":
            data["offset"] = rng.randint(spec.min or 0, spec.max or 0)
        elif amount_field(engine, spec.kind) and spec.min is not None:
            data[amount_field(engine, spec.kind)] = spec.min  # type: ignore[index]
        state = engine.apply(state, player, parse_action(engine, data), rng).state
    return out


@pytest.mark.parametrize("name", engines())
def test_table_message_and_buttons_never_show_a_hidden_card(name: str) -> None:
    checked = 0
    for seed in range(3):
        for engine, state in play(name, seed, 40):
            view = engine.view(state, None)
            text = render.table_text("en", view, 1.0e9, [])
            buttons = collect_buttons(Sight(engine, state))
            markup = keyboards.keyboard("en", -5, view, buttons,
                                     {k for k in buttons.kinds if amount_field(engine, k)},
                                     True)
            shown = text + "".join(b.text + str(b.callback_data)
                                   for row in (markup.inline_keyboard if markup else ())
                                   for b in row)
            hidden = {c for s in view.seats for c in engine.view(state, s.player).my_cards}
            leaked = cards_in(shown) & hidden
            assert leaked - public_cards(view) == set()
            checked += 1
    assert checked > 10


def test_dm_shows_only_the_viewers_cards() -> None:
    view = TableView(game="baccarat", version=3, coup=2, phase="draw", viewer=7,
                     seats=(SeatView(player=7, name="Ann", stack=10, face_down=2),
                            SeatView(player=8, name="Bob", stack=10, face_down=2)),
                     my_cards=("Th", "9s"))
    assert render.dm_text("en", view, []) == "<b>Baccarat · coup #2</b>\nYour cards: <b>10♥ 9♠</b>"
    assert render.cards_popup("ru", view) == "Ваши карты: 10♥ 9♠"


def test_buttons_put_the_awaited_players_actions_first_with_their_amounts() -> None:
    engine, state = stud_after_first_bet()
    render_ = screens.table_render("en", scene(-1, Sight(engine, state), None, None, [], {}))
    assert render_.markup is not None
    assert [[b.text for b in row] for row in render_.markup.inline_keyboard] == [
        ["Call 2", "Fold", "Raise to 4"], ["🂠 My cards", "🪑 Join"], ["🚪 Leave"]]
    ru = screens.table_render("ru", scene(-1, Sight(engine, state), None, None, [], {}))
    assert ru.markup is not None
    # "Уравнять" is too wide for a third of the narrowest row: two rows, no word broken
    assert [[b.text for b in row] for row in ru.markup.inline_keyboard[:2]] == [
        ["Уравнять 2", "Пас"], ["Повысить до 4"]]


def test_names_with_markup_characters_stay_text_in_every_template() -> None:
    engine = registry.engine("stud_poker")
    state = engine.new_table({}, random.Random(3))
    names = ["<b>&", "</code>", "a&amp;b"]
    for p, name in enumerate(names, 1):
        state = engine.apply(state, p, Join(name=name, buy_in=100)).state
    step = engine.apply(state, 1, Start())
    sight = Sight(engine, step.state)
    table = screens.table_render("en", scene(-1, sight, None, 1.0e9, [
        logbook.log_entry(e) for e in step.events if e.to is None], {}))
    assert "&lt;b&gt;&amp;" in table.text and "&lt;/code&gt;" in table.text
    assert "a&amp;amp;b" in table.text
    tags = set(re.findall(r"</?([^ >]*)", table.text))
    assert tags == {"b", "i", "tg-time", "blockquote"}, tags
    # the seat line: bold with ▶ when that seat is the one awaited (the up cards decide)
    assert re.search(r"\n(▶ <b>&lt;b&gt;&amp;</b>|&lt;b&gt;&amp;) \(dealer\) · 💰100 · ",
                     table.text)
    assert re.search(r"\n(▶ )?<b>& \(dealer\) · 💰100 · ", i18n.plain(table.text))
    nets = settlement("coup_settled", coup=1, nets={1: 5, 2: -5}, banker=2)
    settled = results.settlement_text("en", "stud_poker", nets, {1: names[0], 2: names[1]}, [])
    assert settled.splitlines()[:3] == [
        "🏆 <b>&lt;b&gt;&amp; wins 5</b>", "Five-card stud · hand #1 settled",
        "&lt;b&gt;&amp; +5 · &lt;/code&gt; (banker) −5"]
    dms = sends.direct_messages({1: "en", 2: "en", 3: "en"}, -1, sight, step.events,
                                  dict(enumerate(names, 1)))
    assert all("</code>" not in str(d.payload["text"]) for d in dms)
    assert i18n.plain(i18n.t("en", "named", name="<b>&", text="x")) == "<b>&: x"


def test_a_step_that_settles_and_deals_tells_each_coup_under_its_own_number() -> None:
    engine = registry.engine("stud_poker")
    state = engine.new_table({}, random.Random(3))
    for p in (1, 2):
        state = engine.apply(state, p, Join(name=f"P{p}", buy_in=100)).state
    state = engine.apply(state, 1, Start()).state
    state = engine.apply(state, engine.awaiting(state)[0],
                         engine.action_types["bet"](amount=2)).state
    step = engine.apply(state, engine.awaiting(state)[0], engine.action_types["fold"]())
    assert step.state.coup == 2
    dms = sends.direct_messages({1: "en", 2: "en"}, -1, Sight(engine, step.state),
                                  step.events, {1: "P1", 2: "P2"})
    heads = {(d.target, str(d.payload["text"]).splitlines()[0]) for d in dms}
    proofs = [d for d in dms if "Proof of your cards in hand 1" in str(d.payload["text"])]
    assert proofs and all(str(d.payload["text"]).startswith("<b>Five-card stud · hand #1</b>")
                          for d in proofs)
    assert (1, "<b>Five-card stud · hand #2</b>") in heads
    assert (2, "<b>Five-card stud · hand #2</b>") in heads


def test_a_hand_dealt_in_a_step_that_shows_or_settles_it_still_reaches_its_player() -> None:
    # each DM once said its title alone: the dealt cards were dropped as repeats of a
    # "Your cards" line that the settled (or face-up) hand never drew
    names, langs = {1: "Ann", 2: "Bob", 3: "Cid"}, {1: "en", 2: "ru", 3: "en"}

    def dms(prefix: list[str]) -> dict[int, str]:
        state = twenty_one_table({1: 100, 2: 100, 3: 100}, prefix)
        state = twenty_one.ENGINE.apply(state, 2, twenty_one.Stake(amount=10)).state
        step = twenty_one.ENGINE.apply(state, 3, twenty_one.Stake(amount=10))
        return {d.target: str(d.payload["text"]) for d in sends.direct_messages(
            langs, -1, Sight(twenty_one.ENGINE, step.state), step.events, names)}

    # the banker (Ann) is dealt 21: the coup settles in the step that dealt every hand
    assert dms(["As", "5c", "Ah", "Kd", "6c", "Ts"]) == {
        2: "<b>Очко · кон №1</b>\nВаши карты: <b>A♠ K♦</b>\nВаши очки: 21",
        3: "<b>Twenty-one · coup #1</b>\nYour cards: <b>5♣ 6♣</b>\nYour total: 11",
        1: "<b>Twenty-one · coup #1</b>\nYour cards: <b>A♥ 10♠</b>\nYour total: 21"}
    # Bob is dealt 21 and shows it at once: his cards are face up, and still his DM names them
    assert dms(["As", "9c", "5h", "Kd", "7c", "6s", "Ts"]) == {
        2: "<b>Очко · кон №1</b>\nВаши карты: <b>A♠ K♦</b>\nВаши очки: 21",
        # Cid decides next: his prompt is the table from his seat, Bob's 21 face up on it
        3: "<b>Twenty-one · coup #1</b> · <i>drawing</i> · bank 80\n"
           "p1 (banker) · 💰80 · 🂠🂠\np2 (punter) · 💰120 · A♠ K♦ · twenty-one\n"
           "▶ <b>p3</b> (punter) · 💰90 · stake 10 · 🂠🂠 · to act\n⏳ p3 · deciding privately\n"
           "🔒 shoe committed · /verify\nYour cards: <b>9♣ 7♣</b>\nYour total: 16\n"
           "Your move at the table — choose here:",
        1: "<b>Twenty-one · coup #1</b>\nYour cards: <b>5♥ 6♠</b>\nYour total: 11"}
    # chemin de fer: the punters' 8 and the banker's 9 are naturals, settled at the deal
    state = chemin_staking(chemin_shoe("4d", "5h", "4h", "4s"), bank=100)
    step = chemin_de_fer.ENGINE.apply(state, 4, chemin_de_fer.Stake(amount=100))
    assert {d.target: str(d.payload["text"]) for d in sends.direct_messages(
        {p: "en" for p in range(1, 5)}, -1, Sight(chemin_de_fer.ENGINE, step.state),
        step.events, {1: "Ann", 2: "Bob", 3: "Cid", 4: "Dan"})} == {
        4: "<b>Chemin de fer · coup #1</b>\nYour cards: <b>4♦ 4♥</b>\nYour points: 8",
        1: "<b>Chemin de fer · coup #1</b>\nYour cards: <b>5♥ 4♠</b>\nYour points: 9"}


def test_a_settlement_leads_with_the_winner_and_his_hand() -> None:
    names = {1: "Dave", 2: "Ann", 3: "Bob"}
    pair = Hand(category="pair", ranks=(6,))
    data = settlement("coup_settled", coup=4, nets={1: 42, 2: -2, 3: -40}, hands={1: pair},
                      winners=[1])
    text = results.settlement_text("en", "stud_poker", data, names, [])
    assert text.splitlines() == [f"🏆 <b>Dave wins 42 with {i18n.hand_text('en', pair)}</b>",
                                 "Five-card stud · hand #4 settled",
                                 "Dave +42 · Ann −2 · Bob −40"]
    ru = results.settlement_text("ru", "stud_poker", data, names, [])
    assert ru.splitlines()[0] == f"🏆 <b>Dave выигрывает 42: {i18n.hand_text('ru', pair)}</b>"
    nothing = settlement("coup_settled", coup=5, nets={1: 0, 2: 0}, winners=[2])
    assert results.settlement_text("en", "stud_poker", nothing, names, []).splitlines()[0] \
        == "🏆 <b>Ann takes his own chips back</b>"  # not "wins 0"
    banked = settlement("coup_settled", coup=2, nets={1: 10, 2: -5, 3: -5}, banker=3)
    assert results.settlement_text("en", "twenty_one", banked, names, []).splitlines()[2] \
        == "Dave +10 · Ann −5 · Bob (banker) −5"

"""Every text exists in Russian and English; every refusal and event kind has a sentence."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.view import i18n, render
from bot.view.sight import amount_field, choice_data
from games import registry
from games.engine import (
    Each,
    Event,
    Hand,
    Join,
    Reason,
    Rows,
    SeatView,
    Start,
    TableView,
    Value,
    Word,
    cards,
    chips,
    count,
    each,
    items,
    parse_action,
    points,
    row,
    rows,
    signed,
    who,
    word,
)

GAMES_DIR = Path(__file__).resolve().parents[1] / "games"


def test_every_text_key_in_both_languages() -> None:
    assert set(i18n.TEXTS["en"]) == set(i18n.TEXTS["ru"])
    assert set(i18n.HOST_WORDS["en"]) == set(i18n.HOST_WORDS["ru"])
    texts = registry.texts()
    for table in ("events", "actions", "facts", "words", "values", "numbered", "settings"):
        assert set(getattr(texts, table)["en"]) == set(getattr(texts, table)["ru"]), table
    for name in registry.GAMES:
        assert set(registry.engine(name).texts.name) == {"en", "ru"}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_reason_has_a_sentence(lang: str) -> None:
    assert set(i18n.REASONS[lang]) == set(Reason)


def _event_kinds() -> set[str]:
    kinds: set[str] = set()
    for path in GAMES_DIR.rglob("*.py"):
        kinds.update(re.findall(r"(?:public|private)\(\s*\"([a-z_]+)\"", path.read_text()))
    return kinds


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_event_kind_the_engines_emit_has_a_template(lang: str) -> None:
    missing = sorted(k for k in _event_kinds() if k not in i18n.games_texts().events[lang])
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_action_kind_of_every_engine_has_a_label(lang: str) -> None:
    missing = []
    for name in registry.GAMES:
        try:
            engine = registry.engine(name)
        except ImportError:
            continue  # an engine not written yet
        missing += [k for k in engine.action_types
                    if k not in i18n.games_texts().actions[lang]]
    assert missing == []


def test_event_text_names_players_and_prints_cards() -> None:
    names = {7: "Ann"}
    line = i18n.event_text("en", Event(kind="hand_shown", data={
        "player": who(7), "cards": cards("Th", "As")}), names)
    assert line == "Ann shows 10♥ A♠"
    line = i18n.event_text("ru", Event(kind="stake_placed", data={"player": who(7),
                                                                  "amount": chips(50)}), names)
    assert line == "Ann ставит 50"


def test_unknown_event_falls_back_to_its_data() -> None:
    line = i18n.event_text("en", Event(kind="moon_rose", data={"player": who(7),
                                                               "phase": count(3)}), {7: "Ann"})
    assert line == "moon rose: player Ann, phase 3"


def test_language_from_telegram_code() -> None:
    assert i18n.lang_of("ru") == "ru"
    assert i18n.lang_of("uk-UA") == "ru"
    assert i18n.lang_of("en-GB") == "en"
    assert i18n.lang_of(None, "ru") == "ru"


# ---------------------------------------------------------------- every word the engines show

SEEDS = range(3)
STEPS = 300


@dataclass
class Seen:
    """Everything the views and events of random play put in front of a reader."""

    phases: set[str] = field(default_factory=set)
    roles: set[str] = field(default_factory=set)
    statuses: set[str] = field(default_factory=set)
    info: set[str] = field(default_factory=set)
    my_info: set[str] = field(default_factory=set)
    values: set[tuple[str, str]] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def words_in(self, key: str, value: Value) -> None:
        """The words (typed :class:`Word` values) under ``key``, lists and players' lines
        included; a poker hand is worded as a whole (every language has every category)."""
        if isinstance(value, Hand):
            for lang in i18n.LANGUAGES:
                assert i18n.hand_text(lang, value)
        elif isinstance(value, Word):
            self.values.add((key, value.word))
        elif isinstance(value, Rows):
            for v in value.items:
                self.words_in(key, v)
            for line in value.rows:
                for k, v in line.fields.items():
                    self.words_in(k, v)
        elif isinstance(value, Each):
            for v in value.values.values():
                self.words_in(key, v)

    def look(self, view: TableView) -> None:
        """Record one view."""
        self.phases.add(view.phase)
        for seat in view.seats:
            if seat.role:
                self.roles.add(seat.role)
            if seat.status:
                self.statuses.add(seat.status)
        self.info.update(view.facts)
        self.my_info.update(view.my_facts)
        for key, value in [*view.facts.items(), *view.my_facts.items()]:
            self.words_in(key, value)


def random_play(name: str, seen: Seen) -> None:
    """Seeded random legal actions (and some timeouts) of 2-5 players, every view recorded."""
    engine = registry.engine(name)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = engine.new_table({}, rng)
        for p in range(1, rng.randint(engine.min_players, min(engine.max_players, 5)) + 1):
            buy_in = rng.choice([40, 300, 1000])
            state = engine.apply(state, p, Join(name=f"P{p}", buy_in=buy_in), rng).state
        state = engine.apply(state, 1, Start(), rng).state
        for _ in range(STEPS):
            public_view = engine.view(state, None)
            seen.look(public_view)
            for seat in public_view.seats:
                seen.look(engine.view(state, seat.player))
            seen.texts.append(render.table_text("ru", public_view, None, []))
            waiting = engine.awaiting(state)
            if not waiting:
                break
            if rng.random() < 0.04:
                step = engine.timeout(state, rng)
            else:
                player = rng.choice(waiting)
                specs = [s for s in engine.legal_actions(state, player)
                         if s.kind != "leave" or rng.random() < 0.05]
                spec = rng.choice(specs)
                data: dict[str, Any] = {"kind": spec.kind}
                if spec.kind == "cut":
                    data["offset"] = rng.randint(spec.min or 0, min(spec.max or 0, 99))
                elif spec.choices:
                    data.update(choice_data(engine, spec.kind, rng.choice(spec.choices)))
                amount = amount_field(engine, spec.kind)
                if amount and spec.min is not None and spec.kind != "cut":
                    data[amount] = rng.randint(spec.min, spec.max or spec.min)
                step = engine.apply(state, player, parse_action(engine, data), rng)
            seen.events.extend(step.events)
            for event in step.events:
                for key, value in event.data.items():
                    seen.words_in(key, value)
            state = step.state


@pytest.fixture(scope="module")
def seen() -> dict[str, Seen]:
    out = {}
    for name in registry.GAMES:
        out[name] = Seen()
        random_play(name, out[name])
    return out


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", list(registry.GAMES))
def test_every_phase_role_status_and_info_key_has_an_explicit_translation(
        seen: dict[str, Seen], name: str, lang: str) -> None:
    got = seen[name]
    assert got.phases and got.statuses  # the play reached the game itself
    missing = sorted(
        [f"phase {p}" for p in got.phases if not i18n.has_word(lang, p, "phase")]
        + [f"role {r}" for r in got.roles if not i18n.has_word(lang, r, "role")]
        + [f"status {s}" for s in got.statuses if not i18n.has_word(lang, s, "status")]
        + [f"fact {k}" for k in got.info | got.my_info
           if k not in i18n.games_texts().facts[lang]])
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", list(registry.GAMES))
def test_every_word_valued_fact_and_event_field_is_translated(
        seen: dict[str, Seen], name: str, lang: str) -> None:
    missing = sorted(f"{k}={v}" for k, v in seen[name].values
                     if i18n.value_text(lang, v, k) is None)
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", list(registry.GAMES))
def test_every_event_the_engines_emit_fills_one_of_its_templates(
        seen: dict[str, Seen], name: str, lang: str) -> None:
    """No event falls back to the generic "kind: key value" line."""
    generic = [f"{event.kind}{sorted(event.data)}" for event in seen[name].events
               if not i18n.has_template(lang, event)]
    assert sorted(set(generic)) == []


# Latin words a Russian table may show: player names of the play, and "UTC".
LATIN_OK = re.compile(r"\bP\d\b|\bUTC\b|[0-9a-f]{16}…")


@pytest.mark.parametrize("name", list(registry.GAMES))
def test_a_russian_table_has_no_english_word(seen: dict[str, Seen], name: str) -> None:
    texts = seen[name].texts
    assert len(texts) > 30
    for text in texts:
        # card ranks (J, Q, K, A) are single letters; a word has two or more
        english = re.findall(r"[A-Za-z]{2,}", LATIN_OK.sub("", text))
        assert english == [], text


RU_BANKER_DRAW = """<b>Шмен де фер · кон №3</b> · <i>прикуп банкомёта</i> · банк 240
Поставлено: 200 · Банк не покрыт на: 40 · Сожжены: K♠ 4♦ 9♣
▶ <b>Анна</b> (банкомёт) · 💰760 · 🂠🂠 · ходит
Борис (понтёр) · 💰800 · ставка 200 · 🂠🂠🂠 · играет руку
Вера (понтёр) · 💰500 · уходит
⏳ Анна · <tg-time unix="1000000045" format="r">45 с</tg-time>"""


def banker_draw_view(viewer: int | None) -> TableView:
    """Chemin de fer, coup 3: the punter Boris drew, the banker Anna decides."""
    mine = viewer == 1
    return TableView(
        game="chemin_de_fer", version=40, coup=3, phase="banker_draw", viewer=viewer,
        seats=(SeatView(player=1, name="Анна", stack=760, face_down=2, role="banker",
                        status="to act"),
               SeatView(player=2, name="Борис", stack=800, stake=200, face_down=3,
                        role="punter", status="plays the hand"),
               SeatView(player=3, name="Вера", stack=500, role="punter", status="leaving")),
        my_cards=("4h", "Tc") if mine else (), bank=240, awaiting=(1,),
        facts={"staked": chips(200), "uncovered": chips(40), "burned": cards("Ks", "4d", "9c")},
        my_facts={"hint": word("draw"), "points": points(4)} if mine else {})


def test_russian_table_message_of_a_banker_draw_exactly() -> None:
    text = render.table_text("ru", banker_draw_view(None), 1.0e9 + 45, [], now=1.0e9)
    assert text == RU_BANKER_DRAW


def test_english_table_keeps_phase_names_the_e2e_policies_read() -> None:
    text = render.table_text("en", banker_draw_view(None), None, [])
    assert text.splitlines()[0] == ("<b>Chemin de fer · coup #3</b> · <i>banker draw</i> · "
                                    "bank 240")
    assert "▶ <b>Анна</b> (banker) · 💰760 · 🂠🂠 · to act" in text.splitlines()


def test_the_banker_reads_his_points_and_the_tableau_hint_in_his_language() -> None:
    assert render.dm_text("ru", banker_draw_view(1), []) == (
        "<b>Шмен де фер · кон №3</b>\nВаши карты: <b>4♥ 10♣</b>\nПо таблице: прикупать\n"
        "Ваши очки: 4")
    assert render.cards_popup("en", banker_draw_view(1)) == (
        "Your cards: 4♥ 10♣\nTableau: draw\nYour points: 4")


def hand(category: str, *ranks: int) -> Hand:
    """A poker hand value as the engines send it (ranks: 0 = deuce .. 12 = ace)."""
    return Hand(category=category, ranks=ranks)


@pytest.mark.parametrize(("value", "english", "russian"), [
    (hand("pair", 10), "a pair of queens", "пара дам"),
    (hand("two_pair", 12, 3), "two pair, aces and fives", "две пары: тузы и пятёрки"),
    (hand("three", 5), "three sevens", "тройка семёрок"),
    (hand("four", 11), "four kings", "каре королей"),
    (hand("full_house", 2, 5), "a full house, fours over sevens",
     "фулл-хаус: тройка четвёрок и пара семёрок"),
    (hand("straight", 9), "a straight, jack high", "стрит до валета"),
    (hand("straight", 3), "a straight, five high", "стрит до пятёрки"),
    (hand("flush", 12), "a flush, ace high", "флеш до туза"),
    (hand("straight_flush", 7), "a straight flush, nine high", "стрит-флеш до девятки"),
    (hand("royal_flush"), "a royal flush", "роял-флеш"),
    (hand("high_card", 11), "king high", "старшая карта — король"),
    (hand("high_card", 1), "trey high", "старшая карта — тройка"),
    (hand("possible_full_house"), "possible full house", "возможен фулл-хаус"),
])
def test_poker_hands_read_in_both_languages(value: Hand, english: str,
                                            russian: str) -> None:
    assert i18n.hand_text("en", value) == english
    assert i18n.hand_text("ru", value) == russian


def test_every_hand_category_has_a_template_in_both_languages() -> None:
    from games.poker.ranking import HandCategory
    for lang in i18n.LANGUAGES:
        assert set(i18n.HANDS[lang]) == set(HandCategory)


def test_stud_showing_and_results_read_in_russian() -> None:
    names = {7: "Ann", 8: "Bob"}
    line = i18n.event_text("ru", Event(kind="showing", data={
        "player": who(7), "cards": cards("Qs", "Qd"), "value": hand("pair", 10),
        "possible": items(hand("possible_full_house"), hand("possible_flush"))}), names)
    assert line == "Ann: Q♠ Q♦, пара дам; возможен фулл-хаус, возможен флеш"
    line = i18n.event_text("en", Event(kind="hand_shown", data={
        "player": who(8), "cards": cards("2c", "2d", "2h", "7s", "7d"),
        "value": hand("full_house", 0, 5)}), names)
    assert line == "Bob shows 2♣ 2♦ 2♥ 7♠ 7♦: a full house, deuces over sevens"
    line = i18n.event_text("ru", Event(kind="coup_settled", data={
        "coup": count(2), "banker": who(8), "results": rows(row(
            7, stake=chips(20), outcome=word("win"), net=signed(20), points=points(7)))}),
        names)
    assert line == "Расчёт: Ann: +20 (выигрыш, ставка 20, 7 очков)"


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Coup settled: Ann: +20 (win, stake 20, 1 point); Bob: -20 (loss, stake 20, 2 points)"),
    ("ru", "Расчёт: Ann: +20 (выигрыш, ставка 20, 1 очко); Bob: -20 (проигрыш, ставка 20, 2 очка)"),
])
def test_a_results_points_take_the_plural_their_number_asks(lang: str, expected: str) -> None:
    # "(1 pts)" read wrong; so would "очков: 1" beside the other counted nouns
    line = i18n.event_text(lang, Event(kind="coup_settled", data={
        "coup": count(2), "banker": who(9), "results": rows(
            row(7, stake=chips(20), outcome=word("win"), net=signed(20), points=points(1)),
            row(8, stake=chips(20), outcome=word("loss"), net=signed(-20), points=points(2)))}),
        {7: "Ann", 8: "Bob", 9: "Cid"})
    assert line == expected


def test_the_showing_of_every_seat_reads_as_hands_in_the_table_facts() -> None:
    text = i18n.format_value(each({7: hand("pair", 12), 8: hand("high_card", 8)}),
                             {7: "Ann", 8: "Bob"}, "showing", "ru")
    assert text == "Ann пара тузов, Bob старшая карта — десятка"


def test_points_are_counted_in_each_language() -> None:
    assert [i18n.points("en", n) for n in (1, 2, 9)] == ["1 point", "2 points", "9 points"]
    assert [i18n.points("ru", n) for n in (0, 1, 3, 5, 11, 14, 21, 22, 25)] == [
        "0 очков", "1 очко", "3 очка", "5 очков", "11 очков", "14 очков", "21 очко",
        "22 очка", "25 очков"]
    assert i18n.points("en", 23, bust=True) == "23, bust"
    assert i18n.points("ru", 23, bust=True) == "23, перебор"

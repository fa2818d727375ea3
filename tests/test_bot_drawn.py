"""What a screen keeps of its drawings (the scene's deadline-free drawings, the table's first
lines by view): a later drawing reads exactly as one drawn afresh, and shows what changed."""

from __future__ import annotations

import random
from typing import Any

import pytest
from poker_fixtures import stud_after_first_bet

from bot.view import keyboards, logbook, render, screens
from bot.view.scene import scene
from bot.view.sight import Sight
from games import cards
from games.engine import GameState, Players, SeatView, TableView, public, who

NAMES = {1: "Ann", 2: "Bob", 3: "Cid", 4: "Dan"}
STUD_TABLE = """<b>Five-card stud · hand #1</b> · <i>betting</i> · pot 2
P1 (dealer) · 💰98 · stake 2 · 9♠ 🂠 · in hand
▶ <b>P2</b> · 💰100 · 6♠ 🂠 · to act
P3 · 💰100 · 2♦ 🂠 · in hand
⏳ P2 · <tg-time unix="{unix}" format="r">{left} s</tg-time>
· P1 checks{more}
🔒 shoe committed · /verify"""


@pytest.fixture(autouse=True)
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shoes shuffled by a seeded generator: every hand is dealt as the texts below say."""
    shuffles = random.Random("drawn")
    monkeypatch.setattr(cards, "secure_rng", lambda: shuffles)


def stud() -> tuple[Any, GameState]:
    """A five-card stud hand (P1, P2, P3), P2 to act after P1's bet."""
    return stud_after_first_bet()


def checked() -> list[dict[str, Any]]:
    """A coup's log: P1 checked."""
    return [logbook.log_entry(public("checked", player=who(1)))]


def fresh(lang: str, state: GameState, engine: Any, deadline: float | None,
          log: list[dict[str, Any]], names: dict[int, str]) -> screens.TableScreen:
    """The table message drawn from a sight of its own: nothing kept from another drawing."""
    return screens.table_render(lang, scene(-1, Sight(engine, state), None, deadline, log,
                                            names))


def test_a_scene_is_derived_once_whatever_its_deadline() -> None:
    """The scenes of two deadlines share what was derived and drawn; each keeps its own
    deadline, and the same deadline gives the same scene."""
    engine, state = stud()
    sight = Sight(engine, state)
    first = scene(-1, sight, None, 1.0e9 + 30, [], NAMES)
    later = scene(-1, sight, None, 1.0e9 + 12, [], NAMES)
    assert (first.deadline, later.deadline) == (1.0e9 + 30, 1.0e9 + 12)
    assert later.buttons is first.buttons and later.drawn is first.drawn
    assert scene(-1, sight, None, 1.0e9 + 30, [], NAMES) is first
    assert scene(-1, sight, None, None, [], NAMES).deadline is None


def test_the_table_drawn_again_for_another_deadline_reads_as_drawn_afresh(
        monkeypatch: Any) -> None:
    """A table message drawn for one deadline, then for another (its clock started): the
    second shows its own time left, exactly as a drawing of its own would."""
    engine, state = stud()
    sight = Sight(engine, state)
    monkeypatch.setattr(render.time, "time", lambda: 1.0e9)
    log = checked()
    one = screens.table_render("en", scene(-1, sight, None, 1.0e9 + 30, log, NAMES))
    two = screens.table_render("en", scene(-1, sight, None, 1.0e9 + 12, log, NAMES))
    assert one.text == STUD_TABLE.format(unix=1000000030, left=30, more='')
    assert two.text == STUD_TABLE.format(unix=1000000012, left=12, more='')
    assert (one.deadline, two.deadline) == (1.0e9 + 30, 1.0e9 + 12)
    assert two.markup is one.markup  # drawn once
    assert two == fresh("en", state, engine, 1.0e9 + 12, checked(), NAMES)
    assert two.text == fresh("en", state, engine, 1.0e9 + 12, checked(), NAMES).text


def test_a_new_log_entry_a_new_name_and_another_language_are_drawn(monkeypatch: Any) -> None:
    """What a scene is kept by (the log, the names, the language): changed, the table shows
    the change."""
    engine, state = stud()
    sight = Sight(engine, state)
    monkeypatch.setattr(render.time, "time", lambda: 1.0e9)
    dealt = [{"kind": logbook.FACE_DOWN_DEALS, "data": {"players": who(1, 4)}}]
    screens.table_render("en", scene(-1, sight, None, 1.0e9 + 30, checked(), NAMES))
    screens.table_render("en", scene(-1, sight, None, 1.0e9 + 30, dealt, NAMES))
    more = [*checked(), logbook.log_entry(public("folded", player=who(2)))]
    longer = screens.table_render("en", scene(-1, sight, None, 1.0e9 + 30, more, NAMES))
    assert longer.text == STUD_TABLE.format(unix=1000000030, left=30, more="\n· P2 folds")
    renamed = screens.table_render("en", scene(-1, sight, None, 1.0e9 + 30, dealt,
                                               {**NAMES, 4: "Don"}))
    assert "\n· P1, Don each get a card face down\n" in renamed.text
    russian = screens.table_render("ru", scene(-1, sight, None, 1.0e9 + 30, checked(), NAMES))
    assert russian.text == fresh("ru", state, engine, 1.0e9 + 30, checked(), NAMES).text
    assert russian.text.splitlines()[::4] == [
        "<b>Стад-покер · раздача №1</b> · <i>торговля</i> · в банке 2",
        '⏳ P2 · <tg-time unix="1000000030" format="r">30 с</tg-time>']


def test_a_prompt_drawn_twice_reads_as_drawn_afresh(monkeypatch: Any) -> None:
    """P2's turn prompt, drawn again with other lines of his own and another deadline: as
    drawn afresh, keyboard and digest included."""
    engine, state = stud()
    monkeypatch.setattr(render.time, "time", lambda: 1.0e9)
    sight = Sight(engine, state)
    log = checked()
    first = screens.prompt("en", scene(-1, sight, 2, 1.0e9 + 30, log, NAMES))
    mine = [render.i18n.fill("{}", "<you>")]
    again = screens.prompt("en", scene(-1, sight, 2, 1.0e9 + 12, log, NAMES), lines=mine)
    alone = screens.prompt("en", scene(-1, Sight(engine, state), 2, 1.0e9 + 12, checked(),
                                       NAMES), lines=mine)
    assert again == alone and again.markup is first.markup
    own = ("\nYour cards: <b>K♦</b> · face up: <b>6♠</b>\nYour hand: king high"
           "{mine}\nYour move at the table — choose here:")
    assert first.text == STUD_TABLE.format(unix=1000000030, left=30, more="") + own.format(
        mine="")
    assert again.text == STUD_TABLE.format(unix=1000000012, left=12, more="") + own.format(
        mine="\n&lt;you&gt;")
    assert first.digest != again.digest  # his lines differ, not only the time left
    assert again.digest == screens.drawn(first.text.replace(
        "Your move", "&lt;you&gt;\nYour move"), again.markup).digest
    assert [[b.text for b in row] for row in again.markup.inline_keyboard] == [
        ["Call 2", "Fold", "Raise to 4"], ["🚪 Leave"]]


def test_the_first_lines_of_a_changed_seat_are_drawn_anew() -> None:
    """The table's first lines are kept by its view: another view (a stack changed) draws
    its own."""
    seats = (SeatView(player=1, name="Ann", stack=10), SeatView(player=2, name="Bob", stack=8))
    view = TableView(game="baccarat", version=3, coup=2, phase="bets", viewer=None,
                     seats=seats, facts={"offered": Players(ids=(2,))})
    before = render.table_head("en", view)
    after = render.table_head("en", view.model_copy(update={"seats": (
        seats[0], seats[1].model_copy(update={"stack": 5}))}))
    assert before[-1] == "Bob · 💰8" and after[-1] == "Bob · 💰5"
    assert before[:-1] == after[:-1]


def test_a_keyboard_is_written_once_as_it_is() -> None:
    """A keyboard's JSON, written once, is what it holds."""
    board = keyboards.Keyboard.of([[keyboards.Button("Bet 4", "a:1"), keyboards.Button(
        "<&>", "b")]])
    assert board.as_json() == ('{"inline_keyboard":[[{"text":"Bet 4","callback_data":"a:1"},'
                               '{"text":"<&>","callback_data":"b"}]]}')
    assert board.as_json() is board.as_json()
    assert keyboards.Keyboard.from_dict(board.as_dict()) == board




def test_facts_and_the_header_drawn_before_change_with_what_they_show() -> None:
    """Public facts and the header are kept by what they show: another player offered the
    bank, another name for him, another language, another bank draw their own lines."""
    offered = {"offered_to": Players(ids=(2,))}
    assert render.info_lines("en", offered, {2: "Bob"}) == ["Bank offered to: Bob"]
    assert render.info_lines("en", {"offered_to": Players(ids=(1,))}, {1: "Ann"}) == [
        "Bank offered to: Ann"]
    assert render.info_lines("en", offered, {2: "<Bo>"}) == ["Bank offered to: &lt;Bo&gt;"]
    assert render.info_lines("ru", offered, {2: "Bob"}) == ["Банк предложен: Bob"]
    view = TableView(game="chemin_de_fer", version=3, coup=2, phase="bank", viewer=None,
                     seats=(), bank=40, facts=offered)
    assert render.header("en", view) == "<b>Chemin de fer · coup #2</b> · <i>bank</i> · bank 40"
    assert render.header("en", view.model_copy(update={"bank": 55})) == (
        "<b>Chemin de fer · coup #2</b> · <i>bank</i> · bank 55")
    assert render.header("ru", view) == "<b>Шмен де фер · кон №2</b> · <i>bank</i> · банк 40"

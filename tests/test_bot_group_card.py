"""The group's table message never claims a turn that is over, and tells a player without a
private chat where his buttons are (issue 32).

Seen played: the card kept `pot 3` and `Boris · to act` three actions later (the coup's
refreshes were spent, so the edit was held until the result), and a coup played in the
Mini App kept its first player's `to act` until the result; a player without a private
chat was told he was "deciding privately".
"""

from __future__ import annotations

import pytest
from poker_fixtures import stud_after_first_bet
from test_bot_pace import Clock
from test_twenty_one_rules import table as twenty_one_table

from bot.outbox.pace import HELD, Pace
from bot.view import i18n, logbook, results, screens
from bot.view.scene import scene
from bot.view.sight import Sight
from games import twenty_one
from games.engine import Event, settlement, who

CHAT = -1


def test_a_turn_that_is_over_is_taken_off_once_the_coups_refreshes_are_spent() -> None:
    clock = Clock()
    pace = Pace(gap=8.0, per_coup=1, reserve=3, spare=lambda chat: 20, clock=clock)
    pace.posted(CHAT, 1, (5, False, (2,)))
    clock.now += 8
    pace.edited(CHAT, 1, (6, False, (3,)))  # the coup's one refresh
    clock.now += 1
    # the same turn with other news (a pot): held until the result, as before
    assert pace.wait(CHAT, 1, (6, False, (3,)), urgent=False) == HELD
    # the turn shown is over: drawn when the gap and the budget allow, never held
    assert pace.wait(CHAT, 1, (7, False, (1,)), urgent=False) == 7.0
    clock.now += 7
    assert pace.wait(CHAT, 1, (7, False, (1,)), urgent=False) == 0.0
    # one of several awaited together answered: the others' turn goes on, his is over
    assert pace.wait(CHAT, 1, (6, False, (4,)), urgent=False) == 0.0
    low = Pace(gap=8.0, per_coup=1, reserve=3, spare=lambda chat: 3, clock=clock)
    low.posted(CHAT, 1, (5, False, (2,)))
    low.edited(CHAT, 1, (6, False, (3,)))
    clock.now += 8
    assert low.wait(CHAT, 1, (7, False, (1,)), urgent=False) == 2.0  # the reserve is kept


def test_two_drawings_awaiting_fewer_players_tell_different_turns() -> None:
    engine, state = stud_after_first_bet()
    drawn = screens.table_render("en", scene(CHAT, Sight(engine, state), None, None, [], {}))
    assert drawn.turn == (state.version, False, tuple(engine.awaiting(state)))
    fewer = screens.TableScreen(drawn.text, drawn.markup, drawn.coup, drawn.version,
                                drawn.decision, ())
    assert fewer.turn != drawn.turn


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_app_card_shows_nobody_to_act(lang: str) -> None:
    engine, state = stud_after_first_bet()
    sight = Sight(engine, state)
    awaited = frozenset(engine.awaiting(state))
    to_act = i18n.word(lang, "to act", "status")
    chat = screens.table_render(lang, scene(CHAT, sight, None, 1.0e9, [], {}, prompted=awaited))
    assert f"· {to_act}" in chat.text  # played in the chat, the turn shows
    card = screens.table_render(lang, scene(CHAT, sight, None, 1.0e9, [], {}, prompted=awaited,
                                            app=True))
    assert card.quiet and card.awaited == ()
    assert to_act not in card.text and "⏳" not in card.text and "▶" not in card.text
    assert i18n.t(lang, "app_card") in card.text


def twenty_one_private_step() -> Sight:
    """Twenty-one with p2 and p3 staked: p2 decides to buy or stand, in private."""
    state = twenty_one_table({1: 300, 2: 100, 3: 100}, [])
    for player in (2, 3):
        state = twenty_one.ENGINE.apply(state, player, twenty_one.Stake(amount=10)).state
    sight = Sight(twenty_one.ENGINE, state)
    assert sight.private and list(sight.view().awaiting) == [2]
    return sight


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "👉 p2: your buttons are under 🂠 My cards."),
    ("ru", "👉 p2: ваши кнопки — под «🂠 Мои карты».")])
def test_a_player_without_a_private_chat_is_sent_to_my_cards(lang: str, line: str) -> None:
    sight = twenty_one_private_step()
    lines = i18n.plain(screens.table_render(lang, scene(
        CHAT, sight, None, None, [], {}, prompted=frozenset(),
        no_dm=frozenset({2}))).text).splitlines()
    assert lines[lines.index("⏳ p2") + 1] == line
    assert lines[-1] == i18n.plain(i18n.t(lang, "committed_shoe"))
    # with a private chat he decides there, as the group is told
    told = i18n.plain(screens.table_render(lang, scene(CHAT, sight, None, None, [], {},
                                                       prompted=frozenset({2}))).text)
    assert i18n.plain(i18n.t(lang, "turn_private_nodeadline", names="p2")) in told
    assert "👉" not in told


def test_a_result_with_no_table_after_it_tells_the_bank_offered() -> None:
    result = settlement("chemin_de_fer_settled", coup=1, nets={7: 5, 8: -5}, winners=[7])
    offered = [logbook.log_entry(Event(kind="bank_offered", data={"player": who(8)}))]
    text = results.result_text("en", "chemin_de_fer", result, {7: "Ann", 8: "Bob"}, [],
                               offered)
    assert text.splitlines()[-1] == "· The bank is offered to Bob"
    assert "offered" not in results.result_text("en", "chemin_de_fer", result,
                                                {7: "Ann", 8: "Bob"}, [])

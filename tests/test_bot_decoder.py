"""The press decoder: only data our renderer could have drawn becomes an action."""

from __future__ import annotations

import pytest
from test_poker_draw_rules import AK, JJ, TT, play, three

from bot.view import keyboards
from bot.view.codec import Act, ActionButton, Forged, PickCards, decode_press
from bot.view.sight import Sight
from games.poker.common import Call, Fold
from games.poker.draw import ENGINE, Open

CHAT = -1


def at_the_draw() -> tuple[object, object]:
    s = play(three(JJ, TT, AK, then=["As", "Ks", "Qs", "9d", "9h"]),
             (2, Open()), (3, Call()), (1, Fold()))
    spec = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "discard")
    return s, spec


def test_a_card_selection_is_drawn_only_in_the_pressers_private_chat() -> None:
    s, spec = at_the_draw()
    select = ActionButton(CHAT, s.coup, s.version, "discard", select=0b101)
    # a forged selection press on the group message draws nothing there
    with pytest.raises(Forged):
        decode_press(Sight(ENGINE, s), 2, select, spec, private=False)
    assert decode_press(Sight(ENGINE, s), 2, select, spec, private=True) == PickCards(spec, 0b101)
    # the group's "Discard…" button opens the selection in private
    ask = ActionButton(CHAT, s.coup, s.version, "discard", ask=True)
    assert decode_press(Sight(ENGINE, s), 2, ask, spec, private=False) == PickCards(spec, None)
    confirm = ActionButton(CHAT, s.coup, s.version, "discard", confirm=0b11)
    assert decode_press(Sight(ENGINE, s), 2, confirm, spec, private=True) == Act(
        {"kind": "discard", "cards": list(s.seats[1].cards[:2])})


def test_a_selection_naming_a_card_the_player_does_not_hold_is_forged() -> None:
    s, spec = at_the_draw()
    for mask in (1 << 5, -1):
        with pytest.raises(Forged):
            decode_press(Sight(ENGINE, s), 2, ActionButton(CHAT, s.coup, s.version, "discard",
                                                    confirm=mask), spec, private=True)


def test_extra_arguments_never_read_as_a_plainer_press() -> None:
    s, _ = at_the_draw()
    leave = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "leave")
    for button in (ActionButton(CHAT, s.coup, s.version, "leave", confirm=999),
                   ActionButton(CHAT, s.coup, s.version, "leave", select=1),
                   ActionButton(CHAT, s.coup, s.version, "leave", amount=5),
                   ActionButton(CHAT, s.coup, s.version, "leave", choice=0),
                   ActionButton(CHAT, s.coup, s.version, "leave", ask=True)):
        with pytest.raises(Forged):
            decode_press(Sight(ENGINE, s), 2, button, leave, private=False)
    plain = ActionButton(CHAT, s.coup, s.version, "leave")
    assert decode_press(Sight(ENGINE, s), 2, plain, leave, private=False) == Act({"kind": "leave"})


def test_the_keyboard_and_the_decoder_offer_the_same_choices() -> None:
    """At most MAX_CHOICES choice buttons are drawn, and a press is read against exactly
    those: the thirteenth of thirteen choices is not on the keyboard, so a press naming it
    is forged (the decoder once accepted any index below the number of choices)."""
    import highcard  # a game of the tests' own, whose spec we stretch to 13 choices

    from bot.view.sight import Buttons
    from games.engine import MAX_CHOICES, ActionSpec, Input

    words = tuple(f"w{i}" for i in range(MAX_CHOICES + 1))
    spec = ActionSpec(kind="decide", input=Input.CHOICE, choices=words)
    state = highcard.HighCardState(coup=1, phase="choices", seats=[
        highcard.Seat(player=1, name="A", stack=10), highcard.Seat(player=2, name="B",
                                                                  stack=10, staked=1)])

    class Wide(highcard.HighCard):
        def legal_actions(self, state: object, player: int) -> list[ActionSpec]:
            return [spec]

    engine = Wide()
    sight = Sight(engine, state)
    buttons = Buttons()
    buttons.add([spec], 2)
    keyboard = keyboards.keyboard("en", CHAT, sight.view(), buttons, set(), False)
    assert keyboard is not None
    drawn = [b.text for row in keyboard.inline_keyboard for b in row]
    assert drawn == [f"Decide: {w}" for w in words[:MAX_CHOICES]]
    last = ActionButton(CHAT, 1, 0, "decide", choice=MAX_CHOICES - 1)
    assert decode_press(sight, 2, last, spec, private=False) == Act(
        {"kind": "decide", "choice": words[MAX_CHOICES - 1]})
    with pytest.raises(Forged):
        decode_press(sight, 2, ActionButton(CHAT, 1, 0, "decide", choice=MAX_CHOICES), spec,
                     private=False)

"""The callback data codec: round trips within 64 bytes, anything else is refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.view.codec import (
    ActionButton,
    Malformed,
    MyCards,
    NewTable,
    SetLanguage,
    decode,
    encode,
)


def test_action_button_round_trip_with_amount() -> None:
    button = ActionButton(-1001234567890, 12, 345, "stake", amount=250)
    data = encode(button)
    assert data == "a|-1001234567890|12|345|stake|250"
    assert decode(data) == button


def test_ask_choice_select_confirm_round_trip() -> None:
    for button in (ActionButton(-5, 1, 2, "bid", ask=True),
                   ActionButton(-5, 1, 2, "stake", ask=True, choice=1),
                   ActionButton(-5, 1, 2, "discard", choice=3),
                   ActionButton(-5, 1, 2, "discard", select=0b10110),
                   ActionButton(-5, 1, 2, "discard", confirm=0),
                   ActionButton(-5, 1, 2, "fold"), MyCards(-5), NewTable("baccarat"),
                   SetLanguage("ru")):
        assert decode(encode(button)) == button


@settings(deadline=None, max_examples=200)
@given(chat=st.integers(-10**13, -1), coup=st.integers(0, 10**9),
       version=st.integers(0, 10**9), amount=st.integers(0, 10**12))
def test_largest_buttons_fit_in_64_bytes(chat: int, coup: int, version: int,
                                         amount: int) -> None:
    data = encode(ActionButton(chat, coup, version, "join_stake", amount=amount))
    assert len(data.encode()) <= 64
    assert decode(data).amount == amount  # type: ignore[union-attr]


@pytest.mark.parametrize("data", [
    None, "", "a|-5|1|2|stake", "a|-5|x|2|stake|1", "a|-5|1|2|Stake|1",
    "a|-5|1|2|stake|-3", "a|-5|1|2|stake|1.5", "z|1", "l|de", "n|Poker!", "m|abc",
    "a|-5|1|2|stake|" + "9" * 60,
])
def test_forged_data_is_malformed(data: str | None) -> None:
    with pytest.raises(Malformed):
        decode(data)


def test_encode_refuses_what_would_not_fit() -> None:
    with pytest.raises(ValueError):
        encode(ActionButton(-5, 1, 2, "x" * 80))

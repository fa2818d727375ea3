"""The group budget's rules (bot/outbox/pace.py): the turn at once, cosmetic edits held back."""

from __future__ import annotations

from bot.outbox.pace import HELD, Pace

CHAT = -1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def pace(spare: int = 20) -> tuple[Pace, Clock]:
    clock = Clock()
    return Pace(gap=8.0, per_coup=2, reserve=3, spare=lambda chat: spare, clock=clock), clock


def test_the_first_look_and_an_unseen_turn_go_at_once() -> None:
    p, clock = pace()
    assert p.wait(CHAT, 1, 5, urgent=False) == 0.0  # nothing shown yet by this process
    p.posted(CHAT, 1, 5)
    clock.now += 1
    assert p.wait(CHAT, 1, 5, urgent=False) == 7.0  # a refresh waits out the gap
    assert p.wait(CHAT, 1, 6, urgent=True) == 0.0  # a turn only the group can show: now
    p.edited(CHAT, 1, 6)
    assert p.wait(CHAT, 1, 6, urgent=True) == 8.0  # that turn is shown: a refresh again


def test_refreshes_are_counted_per_coup_and_spare_the_reserve() -> None:
    p, clock = pace()
    p.posted(CHAT, 1, 5)
    for _ in range(2):
        clock.now += 8
        assert p.wait(CHAT, 1, 5, urgent=False) == 0.0
        p.edited(CHAT, 1, 5)
    clock.now += 8
    assert p.wait(CHAT, 1, 5, urgent=False) == HELD  # the coup's refreshes are spent
    p.posted(CHAT, 2, 9)  # the next coup's table message
    clock.now += 8
    assert p.wait(CHAT, 2, 9, urgent=False) == 0.0
    low, clock = pace(spare=3)
    low.posted(CHAT, 1, 5)
    clock.now += 8
    assert low.wait(CHAT, 1, 5, urgent=False) == 2.0  # the last 3 of the minute are kept
    assert low.wait(CHAT, 1, 6, urgent=True) == 0.0  # but never from a turn


def test_a_group_message_restarts_the_gap() -> None:
    p, clock = pace()
    p.posted(CHAT, 1, 5)
    clock.now += 7
    p.sent(CHAT)  # a coup's result, a stand-up line
    clock.now += 2
    assert p.wait(CHAT, 1, 5, urgent=False) == 6.0
    p.forget(CHAT)
    assert p.wait(CHAT, 1, 5, urgent=False) == 0.0

"""Five-card stud, docs/rules.md §5 and §5b: one fixed-shoe scenario per rule."""

from __future__ import annotations

import pytest
from poker_fixtures import fixed_shoe, seated, stud_order
from pydantic import BaseModel

from games.engine import (
    Hand,
    IllegalAction,
    Settlement,
    cards,
    chips,
    count,
    each,
    flag,
    items,
    row,
    rows,
    signed,
)
from games.poker.common import Bet, Call, Check, Fold, PokerState, Raise
from games.poker.kit import ZeroAnte, build
from games.poker.phh import kit_from_phh, phh_text
from games.poker.stud import ENGINE


def cards_in(data: object) -> set[str]:
    """Every card-like string anywhere in an event's data."""
    if isinstance(data, BaseModel):  # a typed value: its cards are in its fields
        return cards_in(data.model_dump(mode="json"))
    if isinstance(data, str):
        return {data} if len(data) == 2 and data[0] in "23456789TJQKA" else set()
    if isinstance(data, dict):
        return set().union(*(cards_in(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(cards_in(v) for v in data)) if data else set()
    return set()


def kinds(state: PokerState, player: int) -> list[str]:
    return [a.kind for a in ENGINE.legal_actions(state, player) if a.kind != "leave"]


def play(state: PokerState, *moves: tuple[int, object]) -> PokerState:
    for player, action in moves:
        state = ENGINE.apply(state, player, action).state  # type: ignore[arg-type]
    return state


# players 2, 3, 1 are dealt in that order (player 1 deals): [hole, up1, up2, up3, up4]
P2 = ["2c", "Kd", "Ks", "Qs", "3c"]
P3 = ["9d", "Kh", "7c", "5d", "4h"]
P1 = ["Ac", "8s", "2d", "Js", "6h"]


def table(*hands: list[str], stacks: tuple[int, ...] = (100, 100, 100),
          **settings: object) -> PokerState:
    return seated(ENGINE, list(stacks), [fixed_shoe(stud_order(hands))], dict(settings))


def test_rule_5b_1_no_ante_one_card_down_one_up() -> None:
    s = table(P2, P3, P1)
    assert s.pot == 0 and {x.stack for x in s.seats} == {100}
    public = ENGINE.view(s, None)
    assert [(v.player, v.face_up, v.face_down) for v in public.seats] == [
        (1, ("8s",), 1), (2, ("Kd",), 1), (3, ("Kh",), 1)]
    assert ENGINE.view(s, 3).my_cards == ("9d",)
    # pokerkit accepted the hand only through the zero-valued ante
    assert s.kit is not None
    assert all(isinstance(a, ZeroAnte) and a == 0 for a in build(s.kit).antes)


def test_rule_5b_1_ante_setting_is_posted() -> None:
    s = table(P2, P3, P1, ante=2)
    assert s.pot == 6 and {x.stack for x in s.seats} == {98}


def test_rule_5b_2_four_rounds_until_one_hole_and_four_up_cards() -> None:
    s = table(P2, P3, P1)
    for _ in range(4):
        for _ in range(3):
            s = ENGINE.apply(s, ENGINE.awaiting(s)[0], Check()).state
    assert s.last_hand is not None
    # P2's queens win 0 chips net (nobody bet), but he showed his hand
    assert s.last_hand.finishing_stacks == [100, 100, 100]
    assert [a for a in s.last_hand.kit.log if a.startswith("d dh p1")] == [
        f"d dh p1 {c}" for c in P2]


def test_rule_5b_3_best_up_card_opens_ties_nearest_dealers_left() -> None:
    s = table(P2, P3, P1)
    # kings for players 2 and 3: player 2 sits nearer the dealer's left
    assert ENGINE.awaiting(s) == [2]
    s = play(s, (2, Check()), (3, Check()), (1, Check()))
    # round 2: a pair of kings showing opens, ahead of king-seven
    assert ENGINE.awaiting(s) == [2]
    s = table(P3, P2, P1)
    assert ENGINE.awaiting(s) == [2]  # now player 2 holds Kh, still nearer the left


def test_rule_5b_3_four_flush_does_not_beat_equal_ranks() -> None:
    # up cards A K Q 9 for players 2 (mixed) and 3 (all hearts): equal, 2 opens
    p2 = ["2c", "Ac", "Kd", "Qc", "9s"]
    p3 = ["3c", "Ah", "Kh", "Qh", "9h"]
    p1 = ["4c", "5d", "6s", "7d", "Ts"]
    s = table(p2, p3, p1)
    for _ in range(3):
        s = play(s, (2, Check()), (3, Check()), (1, Check()))
    assert ENGINE.awaiting(s) == [2]


def test_rule_5b_3_check_before_a_bet_then_call_raise_or_fold() -> None:
    s = table(P2, P3, P1)
    assert kinds(s, 2) == ["check", "bet"]
    s = play(s, (2, Bet()))
    assert kinds(s, 3) == ["call", "fold", "raise"]
    with pytest.raises(IllegalAction):
        ENGINE.apply(s, 3, Check())


def test_rule_5b_4_showing_values_announced_from_the_second_up_card() -> None:
    s = play(table(P2, P3, P1), (2, Check()), (3, Check()))
    step = ENGINE.apply(s, 1, Check())
    showing = {e.player: (e.data["cards"], e.data["value"], e.data["possible"])
               for e in step.events if e.kind == "showing"}
    assert showing == {2: (cards("Kd", "Ks"), Hand(category="pair", ranks=(11,)), items()),
                       3: (cards("Kh", "7c"), Hand(category="high_card", ranks=(11,)), items()),
                       1: (cards("8s", "2d"), Hand(category="high_card", ranks=(6,)), items())}
    assert all(e.to is None for e in step.events if e.kind == "showing")


def test_rule_5b_5_fold_turns_up_cards_down_and_hides_the_hole_card() -> None:
    s = play(table(P2, P3, P1), (2, Bet()), (3, Fold()))
    public = ENGINE.view(s, None)
    assert [(v.player, v.face_up, v.face_down, v.status) for v in public.seats
            if v.player == 3] == [(3, (), 0, "folded")]
    assert ENGINE.view(s, 3).my_cards == ()
    step = ENGINE.apply(s, 1, Fold())
    # one player left: wins without showing his hole card
    assert not [e for e in step.events if e.kind == "hand_shown"]
    # the events of this hand (after them the next hand is dealt from a fresh shuffle)
    this_hand = step.events[:[e.kind for e in step.events].index("hand_started")]
    assert [e.kind for e in this_hand] == ["folded", "coup_settled", "shoe_revealed",
                                           *["cards_proven"] * 3]
    # the settlement: every player's net (his bet came back to 2), 2 took the pot of
    # nothing, no hand was shown
    settled = this_hand[1]
    assert isinstance(settled, Settlement)
    assert (settled.coup, settled.nets, settled.winners, settled.hands) == (
        1, {2: 0, 3: 0, 1: 0}, (2,), {})
    assert settled.data == {"net": each({p: signed(0) for p in (2, 3, 1)})}
    assert settled.feats == {2: ("voluntary",)}  # he bet; the others only folded
    assert step.state.coup == 2 and not any(x.voluntary for x in step.state.seats)
    assert all("2c" not in cards_in(e.data) for e in this_hand
               if e.to is None and e.kind != "shoe_revealed")
    assert step.state.last_hand is not None
    assert step.state.last_hand.finishing_stacks == [100, 100, 100]


def test_rule_5_checked_through_every_hand_shows_down_and_none_entered_voluntarily() -> None:
    s = table(P2, P3, P1)
    events = []
    for _ in range(12):
        step = ENGINE.apply(s, ENGINE.awaiting(s)[0], Check())
        s, events = step.state, events + step.events
    (settled,) = [e for e in events if isinstance(e, Settlement)]
    assert settled.winners == (2,)  # P2's kings take the pot of nothing
    assert settled.feats == {2: ("showdown", "showdown_won"), 3: ("showdown",),
                             1: ("showdown",)}


def test_rule_5b_6_small_bet_rounds_1_2_big_bet_3_4() -> None:
    # no open pair in round 2 here: P2 gets 7c instead of the second queen
    p2 = ["2c", "Kd", "7c", "Qs", "3c"]
    p3 = ["9d", "Kh", "Qh", "5d", "4h"]
    s = table(p2, p3, P1)
    sizes = []
    for _ in range(4):
        first = ENGINE.awaiting(s)[0]
        sizes.append(next(a.min for a in ENGINE.legal_actions(s, first) if a.kind == "bet"))
        for _ in range(3):
            s = ENGINE.apply(s, ENGINE.awaiting(s)[0], Check()).state
    assert sizes == [2, 2, 4, 4]


def test_rule_5b_6_big_bet_in_round_2_when_an_open_pair_shows() -> None:
    s = play(table(P2, P3, P1), (2, Check()), (3, Check()), (1, Check()))
    bet = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "bet")
    assert (bet.min, bet.max) == (4, 4)


def test_rule_5_three_way_all_in_with_two_side_pots() -> None:
    # players 1..4 = A (10), B (30), C (60), D (200); A deals: B, C, D, A are dealt
    b = ["Qc", "Qd", "Jc", "Jd", "4d"]   # two pair
    c = ["3c", "3d", "5h", "6c", "Td"]   # pair of threes
    d = ["2c", "As", "7d", "8h", "9s"]   # ace high, opens with the ace
    a = ["Kc", "Kd", "Kh", "4c", "2d"]   # three kings
    s = seated(ENGINE, [10, 30, 60, 200], [fixed_shoe(stud_order([b, c, d, a]))],
               {"small_bet": 10, "structure": "pot"})
    assert ENGINE.awaiting(s) == [4]
    step = None
    for player, action in ((4, Bet(amount=10)), (1, Call()), (2, Raise(amount=30)),
                           (3, Raise(amount=60)), (4, Call())):
        step = ENGINE.apply(s, player, action)
        s = step.state
    assert step is not None and s.last_hand is not None
    settled = next(e for e in step.events if isinstance(e, Settlement))
    # C takes back a side pot of 60, as much as he put in: he is no winner, his net is 0
    assert settled.nets == {2: 30, 3: 0, 4: -60, 1: 30} and settled.winners == (2, 1)
    assert settled.feats == {
        2: ("voluntary", "showdown", "showdown_won"), 3: ("voluntary", "showdown"),
        4: ("voluntary", "showdown"), 1: ("voluntary", "showdown", "showdown_won")}
    # main pot 4 x 10 = 40 to A; side pot 3 x 20 = 60 to B; side pot 2 x 30 = 60 to C
    finishing = dict(zip(s.last_hand.kit.players, s.last_hand.finishing_stacks, strict=True))
    assert finishing == {1: 40, 2: 60, 3: 60, 4: 140}


def test_rule_5_fixed_limit_raise_cap() -> None:
    s = play(table(P2, P3, P1), (2, Bet()), (3, Raise()), (1, Raise()), (2, Raise()))
    assert kinds(s, 3) == ["call", "fold"]
    with pytest.raises(IllegalAction):
        ENGINE.apply(s, 3, Raise())


def test_phh_round_trip_of_a_stud_hand() -> None:
    s = play(table(P2, P3, P1), (2, Bet()), (3, Call()), (1, Fold()))
    while s.kit is not None and s.coup == 1:
        s = ENGINE.apply(s, ENGINE.awaiting(s)[0], Check()).state
    assert s.last_hand is not None
    text = phh_text(s.last_hand)
    kit, finishing = kit_from_phh(text)
    assert kit == s.last_hand.kit and "variant = 'F5CS'" in text
    assert finishing == s.last_hand.finishing_stacks == list(build(kit).stacks)
    assert finishing == [102, 98, 100]


def test_view_names_the_viewers_own_hand_hole_card_included_to_him_alone() -> None:
    # player 1's hole card pairs his up card; player 3 makes a straight with five cards
    s = table(P2, ["3d", "4h", "5c", "6d", "7h"], ["8c", "8s", "2d", "Js", "6h"])
    assert ENGINE.view(s, 1).my_facts == {"hand": Hand(category="pair", ranks=(6,))}
    # the table sees only his up card (what it shows is worded from the up cards)
    assert [v.face_up for v in ENGINE.view(s, 1).seats if v.player == 1] == [("8s",)]
    assert ENGINE.view(s, 1).facts == {} == ENGINE.view(s, None).facts
    assert ENGINE.view(s, 2).my_facts == {"hand": Hand(category="high_card", ranks=(11,))}
    assert ENGINE.view(s, None).my_facts == {} and ENGINE.view(s, 99).my_facts == {}
    for _ in range(3):  # three rounds checked: everybody holds five cards
        for _ in range(3):
            s = ENGINE.apply(s, ENGINE.awaiting(s)[0], Check()).state
    assert ENGINE.view(s, 3).my_facts == {"hand": Hand(category="straight", ranks=(5,))}
    assert ENGINE.view(s, 2).my_facts == {"hand": Hand(category="pair", ranks=(11,))}
    s = ENGINE.apply(s, ENGINE.awaiting(s)[0], Bet()).state
    folder = ENGINE.awaiting(s)[0]
    s = ENGINE.apply(s, folder, Fold()).state
    assert ENGINE.view(s, folder).my_facts == {}


def test_rule_0_12_closing_mid_round_gives_back_this_rounds_bets_and_the_pot() -> None:
    hands = [["2c", "Kh"], ["3d", "4s"]]  # player 2 shows the king and opens
    s = seated(ENGINE, [50, 80], [fixed_shoe(stud_order(hands))], {"ante": 1})
    s = play(s, (2, Bet()))
    assert s.pot == 2 and {x.player: (x.stack, x.bet) for x in s.seats} == {
        1: (49, 0), 2: (77, 2)}
    step = ENGINE.close(s)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("pot", "wallet:1", 1), ("pot", "wallet:2", 1),
        ("stack:1", "wallet:1", 49), ("stack:2", "wallet:2", 77),
        ("stake:2", "wallet:2", 2)]
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(
        row(1, amount=chips(50)), row(2, amount=chips(80)))}
    assert step.state.seats == [] and ENGINE.awaiting(step.state) == []

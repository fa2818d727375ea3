"""Twenty-one (docs/rules.md §4): one fixed-shoe scenario per numbered rule, exact chips."""

from __future__ import annotations

import random

import pytest

from games.cards import DECK, Shoe
from games.engine import (
    About,
    Cut,
    IllegalAction,
    Input,
    Join,
    Leave,
    Reason,
    Rows,
    Settlement,
    ShoeRevealed,
    Start,
    cards,
    chips,
    count,
    flag,
    is_table_account,
    net,
    parse_action,
    points,
    row,
    rows,
    signed,
    who,
    word,
)
from games.twenty_one import ENGINE, Buy, Pass, Stake, Stand, State, total

BANKER = 1


class StackedRng(random.Random):
    """A seeded stdlib rng whose next shuffles put the given cards on top."""

    def __init__(self, *tops: list[str]) -> None:
        super().__init__(7)
        self.tops = list(tops)

    def shuffle(self, x: list[str]) -> None:  # type: ignore[override]
        super().shuffle(x)
        if self.tops:
            top = self.tops.pop(0)
            for c in top:
                x.remove(c)
            x[:0] = top


def stacked(prefix: list[str]) -> list[str]:
    """Two decks with ``prefix`` dealt first, the rest in deck order."""
    rest = [c for _ in range(2) for c in DECK]
    for c in prefix:
        rest.remove(c)
    return [*prefix, *rest]


def table(stacks: dict[int, int], prefix: list[str], min_stake: int = 1,
          banker: int = BANKER, shoe: list[str] | None = None) -> State:
    """Seated players, ``banker`` holding a cut shoe that deals ``prefix`` first; then Start."""
    s = ENGINE.new_table({"min_stake": min_stake})
    for p, buy_in in stacks.items():
        s = ENGINE.apply(s, p, Join(name=f"p{p}", buy_in=buy_in)).state
    order = shoe if shoe is not None else stacked(prefix)
    s = s.model_copy(update={"banker": banker, "shoe": Shoe.fixed(order, decks=2)})
    return ENGINE.apply(s, BANKER, Start()).state


def play(s: State, *moves: tuple[int, object]) -> tuple[State, list]:
    """Apply moves in order, checking the chip bookkeeping of each; all events returned."""
    events = []
    for player, action in moves:
        before = ENGINE.accounts(s)
        step = ENGINE.apply(s, player, action)  # type: ignore[arg-type]
        after = dict(before)
        for acct, delta in net(step.transfers).items():
            after[acct] = after.get(acct, 0) + delta
        assert {k: v for k, v in after.items() if v and is_table_account(k)} == ENGINE.accounts(
            step.state)
        s = step.state
        events += step.events
    return s, events


def stacks(s: State) -> dict[int, int]:
    return {x.player: x.stack for x in s.seats}


def kinds(events: list) -> list[str]:
    return [e.kind for e in events]


def feats_of(events: list) -> dict[int, tuple[str, ...]]:
    """The feats the one settlement among ``events`` counts."""
    (settled,) = [e for e in events if isinstance(e, Settlement)]
    return settled.feats


def test_rule_4_1_highest_card_banks_ties_redraw_and_right_hand_cuts() -> None:
    s = ENGINE.new_table({})
    for p in (1, 2, 3):
        s = ENGINE.apply(s, p, Join(name=f"p{p}", buy_in=100)).state
    # Draw: 5h, Kc, Ks -> 2 and 3 tie on kings and redraw: Ah beats 3d.
    rng = StackedRng(["5h", "Kc", "Ks", "Ah", "3d"])
    step = ENGINE.apply(s, 1, Start(), rng)
    draws = [e.data["draws"] for e in step.events if e.kind == "banker_draw"]
    assert draws == [rows(row(1, card=cards("5h")), row(2, card=cards("Kc")),
                          row(3, card=cards("Ks"))),
                     rows(row(2, card=cards("Ah")), row(3, card=cards("3d")))]
    assert all(e.to is None for e in step.events)
    assert step.state.banker == 2
    assert kinds(step.events).count("shoe_committed") == 2  # the draw shoe, then the talia's
    assert "shoe_revealed" in kinds(step.events)
    assert step.state.phase == "cut"
    assert ENGINE.awaiting(step.state) == [1]  # the player to the banker's right
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(step.state, 3, Cut(offset=5))
    assert err.value.reason == Reason.NOT_YOUR_TURN
    cut = ENGINE.apply(step.state, 1, Cut(offset=5)).state
    assert cut.phase == "staking" and cut.shoe is not None and cut.shoe.cut == 5
    assert ENGINE.awaiting(cut) == [3]  # stakes start on the banker's left


def test_rule_4_2_stakes_before_the_deal_within_twice_the_bankers_cover() -> None:
    s = table({1: 100, 2: 100, 3: 100, 4: 8}, [])
    assert s.phase == "staking" and all(not x.cards for x in s.seats)
    spec = {a.kind: a for a in ENGINE.legal_actions(s, 2)}
    assert (spec["stake"].min, spec["stake"].max) == (1, 50)
    for bad, reason in ((0, Reason.AMOUNT_OUT_OF_RANGE), (51, Reason.EXCEEDS_BANK)):
        with pytest.raises(IllegalAction) as err:  # a 0 is refused as it is parsed
            ENGINE.apply(s, 2, parse_action(ENGINE, {"kind": "stake", "amount": bad}))
        assert err.value.reason == reason
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 3, Stake(amount=5))
    assert err.value.reason == Reason.NOT_YOUR_TURN
    s, _ = play(s, (2, Stake(amount=45)))
    spec = {a.kind: a for a in ENGINE.legal_actions(s, 3)}
    assert spec["stake"].max == 5  # 2 x (45 + 5) = 100 = the banker's stack
    s, _ = play(s, (3, Pass()))
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 4, Stake(amount=9))
    assert err.value.reason == Reason.INSUFFICIENT_CHIPS
    s, events = play(s, (4, Stake(amount=5)))
    assert stacks(s) == {1: 100, 2: 55, 3: 100, 4: 3}
    assert ENGINE.accounts(s)["stake:2"] == 45
    # The punter who passed sits the coup out: no cards for him.
    assert [len(x.cards) for x in s.seats] == [2, 2, 0, 2]
    assert kinds(events)[:2] == ["stake_placed", "card_dealt"]


def test_rule_4_2_when_the_cover_is_used_up_later_punters_sit_out() -> None:
    s = table({1: 20, 2: 100, 3: 100}, ["2c", "3c", "4c", "5c", "6c", "7c"])
    s, events = play(s, (2, Stake(amount=10)))
    assert [e.data for e in events if e.kind == "stake_skipped"] == [
        {"player": who(3), "reason": word("bank_covered")}]
    assert s.phase == "drawing" and not s.seats[2].cards


def test_rule_4_2_stake_timeout_is_no_stake() -> None:
    s = table({1: 100, 2: 100, 3: 100}, [])
    step = ENGINE.timeout(s)
    assert [e.kind for e in step.events][:2] == ["timed_out", "stake_declined"]
    assert step.state.seats[1].timeouts == 1 and ENGINE.awaiting(step.state) == [3]


def test_rule_4_3_two_cards_face_down_and_card_values() -> None:
    assert total(["As", "9d"]) == 20
    assert total(["As", "Ad"]) == 12
    assert total(["As", "5d", "Kc"]) == 16
    assert total(["Kc", "Qd", "Jh"]) == 30
    assert total(["Tc", "7d"]) == 17
    s = table({1: 100, 2: 100, 3: 100}, ["9c", "4d", "Th", "8c", "7d", "5h"])
    s, events = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    assert {x.player: x.cards for x in s.seats} == {
        2: ["9c", "8c"], 3: ["4d", "7d"], 1: ["Th", "5h"]}
    dealt = [e for e in events if e.kind == "card_dealt"]
    assert [e.to for e in dealt] == [(2,), (3,), (1,)] * 2
    public = ENGINE.view(s, None)
    assert [(v.face_up, v.face_down) for v in public.seats] == [((), 2)] * 3
    assert ENGINE.view(s, 3).my_cards == ("4d", "7d")


def test_rule_4_4_banker_21_takes_every_stake_including_a_punters_21() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["As", "5c", "Ah", "Kd", "6c", "Ts"])
    s, events = play(s, (2, Stake(amount=10)), (3, Stake(amount=20)))
    shown = [e.data for e in events if e.kind == "natural_shown"]
    assert shown == [{"player": who(1), "cards": cards("Ah", "Ts")}]  # the punter's stays hidden
    assert "hands_shown" not in kinds(events)
    assert stacks(s) == {1: 130, 2: 90, 3: 80}
    # the banker's natural counts; punter 2's 21 stays hidden, so it counts nothing
    assert feats_of(events) == {1: ("natural",)}
    assert s.phase == "staking" and s.coup == 2


def test_rule_4_5_punter_21_paid_double_at_once_whatever_the_banker_makes() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["As", "9c", "5h", "Kd", "7c", "6s", "Ts"])
    s, events = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    assert [e.data for e in events if e.kind == "natural_shown"] == [
        {"player": who(2), "cards": cards("As", "Kd")}]
    assert stacks(s) == {1: 80, 2: 120, 3: 90}
    assert ENGINE.view(s, None).seats[1].face_up == ("As", "Kd")
    # Punter 3 stands on 16; the banker buys to 21 and still owes punter 2 nothing back.
    s, events = play(s, (3, Stand()), (1, Buy()), (1, Stand()))
    assert total(["5h", "6s", "Ts"]) == 21
    assert stacks(s) == {1: 90, 2: 120, 3: 90}
    assert feats_of(events) == {2: ("natural",)}  # the banker's 21 on three cards is none


def test_rule_4_6_a_punters_21_of_three_sevens_counts_three_sevens() -> None:
    # 2: 7c 7d buys 7s; 3: Tc 7h (17); the banker 9h 8s (17)
    s = table({1: 100, 2: 100, 3: 100}, ["7c", "Tc", "9h", "7d", "7h", "8s", "7s"])
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    s, events = play(s, (2, Buy()), (2, Stand()), (3, Stand()), (1, Stand()))
    assert stacks(s) == {1: 90, 2: 110, 3: 100}  # 2 wins 10; 3 ties the banker
    assert feats_of(events) == {2: ("three_sevens",)}


def test_rule_4_6_the_bankers_three_sevens_count_and_another_three_card_21_does_not() -> None:
    # 2: Tc 9c (19) stands; the banker 7h 7d buys 7s: 21
    s = table({1: 100, 2: 100}, ["Tc", "7h", "9c", "7d", "7s"])
    s, events = play(s, (2, Stake(amount=10)), (2, Stand()), (1, Buy()), (1, Stand()))
    assert stacks(s) == {1: 110, 2: 90}
    assert feats_of(events) == {1: ("three_sevens",)}
    # 2: 7c 6d buys 8s: 21 on three cards, but not of sevens
    s = table({1: 100, 2: 100}, ["7c", "Tc", "6d", "9h", "8s"])
    s, events = play(s, (2, Stake(amount=10)), (2, Buy()), (2, Stand()), (1, Stand()))
    assert stacks(s) == {1: 90, 2: 110}
    assert feats_of(events) == {}


def test_rule_4_6_21_on_five_cards_counts_and_five_cards_short_of_it_do_not() -> None:
    # 2: 2c 3c buys 4c 5c 7c: 21 on five cards; 3: 2d 3d buys 4d 5d 6d: 20 on five
    prefix = ["2c", "2d", "9h", "3c", "3d", "8s", "4c", "5c", "7c", "4d", "5d", "6d"]
    s = table({1: 100, 2: 100, 3: 100}, prefix)
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    s, events = play(s, (2, Buy()), (2, Buy()), (2, Buy()), (3, Buy()), (3, Buy()),
                     (3, Buy()), (1, Stand()))
    assert stacks(s) == {1: 80, 2: 110, 3: 110}
    assert feats_of(events) == {2: ("five_card_21",)}


def test_rule_4_6_buy_up_to_three_cards_in_dealing_order_busts_stay_hidden() -> None:
    prefix = ["2c", "Tc", "9h", "2d", "6c", "8h", "3c", "3d", "2h", "Kd"]
    s = table({1: 100, 2: 100, 3: 100}, prefix)
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 3, Buy())
    assert err.value.reason == Reason.NOT_YOUR_TURN
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 1, Buy())
    assert err.value.reason == Reason.NOT_YOUR_TURN
    # Punter 2 (2c 2d) buys three cards, then his turn ends by itself.
    s, events = play(s, (2, Buy()), (2, Buy()), (2, Buy()))
    assert s.seats[1].cards == ["2c", "2d", "3c", "3d", "2h"] and ENGINE.awaiting(s) == [3]
    bought = [e for e in events if e.kind == "card_bought"]
    assert [(e.to, e.data.get("card")) for e in bought if e.to] == [
        ((2,), cards("3c")), ((2,), cards("3d")), ((2,), cards("2h"))]
    assert [e.data for e in bought if e.to is None][-1] == {"player": who(2), "bought": count(3)}
    # Punter 3 (Tc 6c) buys Kd and busts: the group learns only that he bought.
    s, events = play(s, (3, Buy()))
    assert total(s.seats[2].cards) == 26
    for e in events:
        assert e.to == (3,) or "Kd" not in e.model_dump_json()
    assert [a.kind for a in ENGINE.legal_actions(s, 3)] == ["leave", "stand"]
    assert ENGINE.view(s, None).seats[2].status == "to act"
    s, events = play(s, (3, Stand()))
    assert ENGINE.view(s, None).seats[2].status == "stood"
    assert ENGINE.awaiting(s) == [1]  # then the banker buys
    s, events = play(s, (1, Stand()))
    shown = next(e.data["hands"] for e in events if e.kind == "hands_shown")
    assert isinstance(shown, Rows)
    assert [(h.player, h.fields["total"]) for h in shown.rows] == [
        (2, points(12)), (3, points(26, bust=True)), (1, points(17))]
    assert stacks(s) == {1: 120, 2: 90, 3: 90}


def group_keyboard(s: State) -> dict[int, list[str]]:
    """What the group's buttons offer per seat: non-private actions, and none of an awaited
    player's while he decides privately (bot/view/sight.py ``collect_buttons``)."""
    awaited = ENGINE.awaiting(s)
    private = any(a.private for p in awaited for a in ENGINE.legal_actions(s, p))
    return {x.player: [a.kind for a in ENGINE.legal_actions(s, x.player) if not a.private]
            for x in s.seats if not (private and x.player in awaited)}


def test_rule_4_6_decision_buying_is_private_so_a_bust_never_shows_on_the_group_keyboard() -> None:
    prefix = ["Tc", "2h", "6c", "3h", "Kd", "5d", "2s"]
    s = table({1: 100, 2: 100}, prefix)
    s, _ = play(s, (2, Stake(amount=10)))
    before = group_keyboard(s)
    assert [(a.kind, a.private) for a in ENGINE.legal_actions(s, 2)] == [
        ("leave", False), ("buy", True), ("stand", True)]
    s, _ = play(s, (2, Buy()))  # Tc 6c Kd: 26, bust
    assert [(a.kind, a.private) for a in ENGINE.legal_actions(s, 2)] == [
        ("leave", False), ("stand", True)]
    assert group_keyboard(s) == before == {1: ["leave"]}
    # the banker's buying is his own private decision too (2h 3h: Buy offered)
    s, _ = play(table({1: 100, 2: 100}, prefix), (2, Stake(amount=10)), (2, Stand()))
    assert ENGINE.awaiting(s) == [1]
    assert [(a.kind, a.private) for a in ENGINE.legal_actions(s, 1)] == [
        ("leave", False), ("buy", True), ("stand", True)]
    assert group_keyboard(s) == {2: ["leave"]}


def test_rule_4_6_banker_timeout_buys_while_sixteen_or_less() -> None:
    s = table({1: 100, 2: 100}, ["Tc", "2h", "9c", "3h", "4d", "5s", "2d", "Kc"])
    s, _ = play(s, (2, Stake(amount=10)), (2, Stand()))
    step = ENGINE.timeout(s)
    # 2h 3h (5) -> 4d (9) -> 5s (14) -> 2d (16): three bought, he stands on 16 < 19.
    hands = next(e.data["hands"] for e in step.events if e.kind == "hands_shown")
    assert isinstance(hands, Rows)
    assert hands.rows[-1] == row(1, cards=cards("2h", "3h", "4d", "5s", "2d"), total=points(16))
    assert stacks(step.state) == {1: 90, 2: 110}
    assert step.state.seats[0].timeouts == 1


def test_rule_4_7_banker_stands_higher_wins_lower_and_bust_lose_equal_is_a_standoff() -> None:
    # Dealing order 2, 3, 4, 5, banker 1.
    prefix = ["Tc", "Td", "Th", "Ts", "9c", "9d", "7d", "8h", "5s", "9h", "Kc"]
    s = table({1: 200, 2: 100, 3: 100, 4: 100, 5: 100}, prefix)
    s, _ = play(s, *[(p, Stake(amount=10)) for p in (2, 3, 4, 5)])
    s, events = play(s, (2, Stand()), (3, Stand()), (4, Stand()), (5, Buy()), (5, Stand()),
                     (1, Stand()))
    settled = next(e for e in events if isinstance(e, Settlement))
    assert settled.hands[1] == points(18)
    assert settled.data["results"] == rows(
        row(2, outcome=word("win"), net=signed(10)),
        row(3, outcome=word("lose"), net=signed(-10)),
        row(4, outcome=word("push"), net=signed(0)),
        row(5, outcome=word("bust"), net=signed(-10)),
    )
    assert settled.nets[1] == 10 and settled.banker == 1
    assert settled.feats == {5: ("bust",)}
    assert stacks(s) == {1: 210, 2: 110, 3: 90, 4: 100, 5: 90}


def test_rule_4_7_banker_bust_pays_double_and_a_busted_punter_neither_pays_nor_is_paid() -> None:
    prefix = ["Tc", "Td", "Th", "5c", "9d", "6h", "Ks", "Qs"]
    s = table({1: 200, 2: 100, 3: 100}, prefix)
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=20)))
    s, events = play(s, (2, Stand()), (3, Buy()), (3, Stand()), (1, Buy()), (1, Stand()))
    settled = next(e.data for e in events if e.kind == "coup_settled")
    assert settled["results"] == rows(
        row(2, outcome=word("banker_bust"), net=signed(20)),
        row(3, outcome=word("both_bust"), net=signed(0)),
    )
    assert feats_of(events) == {3: ("bust",), 1: ("bust",)}
    assert stacks(s) == {1: 180, 2: 120, 3: 100}


def test_rule_4_7_banker_does_not_buy_when_every_punter_is_bust() -> None:
    s = table({1: 100, 2: 100}, ["Tc", "2h", "9c", "3h", "Kd"])
    s, events = play(s, (2, Stake(amount=10)), (2, Buy()), (2, Stand()))
    assert s.seats[0].cards == [] and stacks(s) == {1: 110, 2: 90}
    assert "hands_shown" in kinds(events)
    assert feats_of(events) == {2: ("bust",)}


def test_rule_4_8_talia_ends_below_five_cards_per_player_and_the_bank_passes_left() -> None:
    shoe = ["Tc", "9c", "9d", "Td", *["2c"] * 10, "3c"]  # 15 cards: 5 per player, once
    s = table({1: 100, 2: 100, 3: 100}, [], shoe=shoe)
    s, _ = play(s, (2, Stake(amount=10)), (3, Pass()), (2, Stand()))
    rng = random.Random(3)
    step = ENGINE.apply(s, 1, Stand(), rng)  # 19 against 19: a stand-off
    assert stacks(step.state) == {1: 100, 2: 100, 3: 100}
    # 11 cards remain < 15: the talia is over, the shoe is shown and the bank passes left.
    found = kinds(step.events)
    assert found.index("coup_settled") < found.index("shoe_revealed") < found.index(
        "bank_passed") < found.index("shoe_committed")
    revealed = next(e for e in step.events if e.kind == "shoe_revealed")
    assert isinstance(revealed, ShoeRevealed) and revealed.record["order"] == shoe
    assert step.state.banker == 2 and step.state.phase == "cut"
    assert ENGINE.awaiting(step.state) == [1]  # the new banker's right-hand neighbour cuts
    s = ENGINE.apply(step.state, 1, Cut(offset=40)).state
    assert s.phase == "staking" and s.coup == 2 and ENGINE.awaiting(s) == [3]


def test_two_timeouts_stand_a_punter_up_after_the_coup() -> None:
    s = table({1: 100, 2: 100, 3: 100}, [])
    s = ENGINE.timeout(s).state  # 2 passes
    s = ENGINE.apply(s, 3, Stake(amount=5)).state
    s = ENGINE.apply(s, 3, Stand()).state
    s = ENGINE.apply(s, 1, Stand()).state  # coup 2 starts, 2 to stake
    step = ENGINE.timeout(s)
    assert kinds(step.events)[:3] == ["timed_out", "stood_up", "stake_declined"]
    assert step.state.seats[1].leaving
    s, events = play(step.state, (3, Stake(amount=5)), (3, Stand()), (1, Stand()))
    assert [x.player for x in s.seats] == [1, 3]
    assert "player_left" in kinds(events)


def test_leaving_during_a_coup_waits_for_the_settlement() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["Tc", "9c", "Td", "9d", "8c", "8d"])
    s, _ = play(s, (2, Stake(amount=10)), (3, Pass()))
    s, events = play(s, (2, Leave()))
    assert kinds(events) == ["leaving"] and s.seats[1].leaving
    s, events = play(s, (2, Stand()), (1, Stand()))
    assert [x.player for x in s.seats] == [1, 3]
    assert next(e.data for e in events if e.kind == "coup_settled")["results"] == rows(
        row(2, outcome=word("win"), net=signed(10)))


def test_view_my_facts_give_only_the_viewer_the_total_of_his_hidden_cards() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["As", "9c", "5h", "Kd", "7c", "6s", "Ts"])
    assert ENGINE.view(s, 2).my_facts == {}  # no cards before the deal
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    # Punter 2's 21 (As Kd) is face up now; punter 3 holds 9c 7c, the banker 5h 6s.
    assert {p: ENGINE.view(s, p).my_facts for p in (1, 2, 3)} == {
        1: {"total": points(11)}, 2: {}, 3: {"total": points(16)}}
    assert ENGINE.view(s, None).my_facts == {}
    s, _ = play(s, (3, Stand()), (1, Buy()))
    assert ENGINE.view(s, 1).my_facts == {"total": points(21)}


def test_rule_0_12_closing_mid_coup_voids_it_and_returns_stakes_and_stacks() -> None:
    # dealing order 2, 3, banker 1, twice: 14, 14, 16; nobody holds 21
    s = table({1: 100, 2: 100, 3: 100}, ["9h", "8h", "7h", "5c", "6c", "9c"])
    s, _ = play(s, (2, Stake(amount=10)), (3, Stake(amount=20)))
    assert s.phase == "drawing"
    step = ENGINE.close(s)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("stack:1", "wallet:1", 100), ("stack:2", "wallet:2", 90),
        ("stack:3", "wallet:3", 80), ("stake:2", "wallet:2", 10),
        ("stake:3", "wallet:3", 20)]
    assert kinds(step.events) == ["table_closed", "shoe_revealed"]
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(
        *(row(p, amount=chips(100)) for p in (1, 2, 3)))}
    revealed = step.events[1]
    assert isinstance(revealed, ShoeRevealed)
    assert revealed.record["order"][:6] == ["9h", "8h", "7h", "5c", "6c", "9c"]
    assert step.state.seats == [] and ENGINE.awaiting(step.state) == []


def test_rule_0_4_a_cut_outside_the_shoe_is_refused_and_the_spec_says_so() -> None:
    s = ENGINE.new_table({})
    for p in (1, 2, 3):
        s = ENGINE.apply(s, p, Join(name=f"p{p}", buy_in=100)).state
    s = ENGINE.apply(s, 1, Start(), StackedRng(["5h", "Kc", "2s"])).state
    assert s.phase == "cut" and ENGINE.awaiting(s) == [1]
    (spec,) = [a for a in ENGINE.legal_actions(s, 1) if a.kind == "cut"]
    assert (spec.input, spec.min, spec.max) == (Input.AMOUNT, 0, 103)  # two decks
    for offset in (104, 312):
        with pytest.raises(IllegalAction) as err:
            ENGINE.apply(s, 1, Cut(offset=offset))
        assert err.value.reason == Reason.AMOUNT_OUT_OF_RANGE
    cut = ENGINE.apply(s, 1, Cut(offset=103)).state
    assert cut.shoe is not None and cut.shoe.cut == 103 and cut.phase == "staking"


def test_the_settlement_names_every_net_the_bankers_included_hands_and_winners() -> None:
    # Dealing order 2, 3, 4, 5, banker 1 (as in the §4.7 test): 2 wins, 3 and 5 lose, 4 pushes
    prefix = ["Tc", "Td", "Th", "Ts", "9c", "9d", "7d", "8h", "5s", "9h", "Kc"]
    s = table({1: 200, 2: 100, 3: 100, 4: 100, 5: 100}, prefix)
    s, _ = play(s, *[(p, Stake(amount=10)) for p in (2, 3, 4, 5)])
    s, events = play(s, (2, Stand()), (3, Stand()), (4, Stand()), (5, Buy()), (5, Stand()),
                     (1, Stand()))
    (settled,) = [e for e in events if isinstance(e, Settlement)]
    assert (settled.kind, settled.coup, settled.banker) == ("coup_settled", 1, 1)
    assert settled.nets == {2: 10, 3: -10, 4: 0, 5: -10, 1: 10}
    assert settled.winners == (2, 1)
    assert settled.hands == {2: points(19), 3: points(17), 4: points(18),
                             5: points(25, bust=True), 1: points(18)}


def test_after_a_bankers_21_the_settlement_shows_only_his_hand() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["As", "5c", "Ah", "Kd", "6c", "Ts"])
    s, events = play(s, (2, Stake(amount=10)), (3, Stake(amount=20)))
    (settled,) = [e for e in events if isinstance(e, Settlement)]
    assert settled.nets == {2: -10, 3: -20, 1: 30} and settled.winners == (1,)
    assert settled.hands == {1: points(21)}
    assert [(e.kind, e.about) for e in events if e.about == About.SHOWDOWN] == [
        ("natural_shown", About.SHOWDOWN)]


def test_events_say_what_they_are_about_and_specs_what_they_ask() -> None:
    s = table({1: 100, 2: 100, 3: 100}, ["9c", "4d", "Th", "8c", "7d", "5h", "2c"])
    stake = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "stake")
    assert stake.input == Input.AMOUNT
    assert {a.kind: a.input for a in ENGINE.legal_actions(s, 2)} == {
        "leave": Input.UTILITY, "stake": Input.AMOUNT, "pass": Input.PLAIN}
    s, events = play(s, (2, Stake(amount=10)), (3, Stake(amount=10)))
    dealt = [e for e in events if e.kind == "card_dealt"]
    assert {e.about for e in dealt} == {About.OWN_HAND}
    assert dealt[-1].to == (1,) and dealt[-1].data == {
        "card": cards("5h"), "cards": cards("Th", "5h"), "total": points(15)}
    s, events = play(s, (2, Buy()))
    # the card he bought is his own (his message shows his hand); the group's is not
    assert [(e.to, e.about) for e in events if e.kind == "card_bought"] == [
        ((2,), About.OWN_HAND), (None, About.NOTHING)]
    s, events = play(s, (2, Stand()), (3, Stand()), (1, Stand()))
    assert [(e.kind, e.about) for e in events if e.about] == [("hands_shown", About.SHOWDOWN)]


def test_the_view_shows_only_the_tables_facts_and_the_shoe_apart() -> None:
    s = table({1: 100, 2: 100, 3: 100}, [])
    view = ENGINE.view(s, None)
    assert view.facts == {"can_still_stake": chips(50)}
    assert s.shoe is not None and view.shoe is not None
    assert view.shoe.commitments == (s.shoe.commitment,) and view.shoe.cards_left == 104
    s, _ = play(s, (2, Stake(amount=50)))
    assert ENGINE.view(s, None).facts == {}  # the banker's cover is used up


def test_the_room_left_for_stakes_is_shown_only_while_stakes_are_taken() -> None:
    s = table({1: 100, 2: 100, 3: 100}, [])
    s, _ = play(s, (2, Stake(amount=10)))
    assert ENGINE.view(s, None).facts == {"can_still_stake": chips(40)}
    s, _ = play(s, (3, Stake(amount=10)))
    # the cards are dealt: nobody may stake any more, so no "Stakes still allowed: 30"
    assert s.phase == "drawing" and ENGINE.view(s, None).facts == {}


def test_rule_0_13_a_punter_below_the_minimum_stake_is_stood_up_after_the_coup() -> None:
    from broke import a_punter_with_4_chips_at_a_table_of_5

    a_punter_with_4_chips_at_a_table_of_5("twenty_one")

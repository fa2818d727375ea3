"""Polish banchok (docs/rules.md §3): one fixed-shoe scenario per numbered rule, exact chips."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.banchok import ENGINE, Decline, JoinStake, PostBank, Stake, State, Turn, punter_wins
from games.cards import DECK, RANKS, Shoe, verify
from games.engine import (
    BANK,
    About,
    Action,
    Cut,
    Event,
    IllegalAction,
    Input,
    Join,
    Leave,
    Reason,
    Settlement,
    ShoeRevealed,
    Start,
    cards,
    chips,
    count,
    flag,
    is_table_account,
    net,
    row,
    rows,
    signed,
    text,
    who,
    word,
)


class StackedRng(random.Random):
    """A seeded stdlib rng whose next shuffles put the given cards on top."""

    def __init__(self, *tops: list[str]) -> None:
        super().__init__(11)
        self.tops = list(tops)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        super().shuffle(x)
        if self.tops:
            top = self.tops.pop(0)
            for c in top:
                x.remove(c)
            x[:0] = top


def seated(stacks: dict[int, int], **settings: Any) -> State:
    s = ENGINE.new_table(settings)
    for p, buy_in in stacks.items():
        s = ENGINE.apply(s, p, Join(name=f"p{p}", buy_in=buy_in)).state
    return s


def banked(stacks: dict[int, int], prefix: list[str], banker: int = 1,
           **settings: Any) -> State:
    """``banker`` is offered the bank, posts it; the shoe deals ``prefix`` first (cut at 0)."""
    s = seated(stacks, **settings)
    s = s.model_copy(update={"phase": "post", "queue": [banker]})
    s, _ = play(s, (banker, PostBank()), rng=StackedRng(prefix))
    cutter = ENGINE.awaiting(s)[0]
    s, _ = play(s, (cutter, Cut(offset=0)))
    return s


def play(s: State, *moves: tuple[int, Action], rng: random.Random | None = None,
         ) -> tuple[State, list[Event]]:
    """Apply moves in order, checking the chip bookkeeping of each; all events returned."""
    events: list[Event] = []
    for player, action in moves:
        before = ENGINE.accounts(s)
        step = ENGINE.apply(s, player, action, rng)
        after = dict(before)
        for acct, delta in net(step.transfers).items():
            after[acct] = after.get(acct, 0) + delta
        assert {k: v for k, v in after.items() if v and is_table_account(k)} == \
            ENGINE.accounts(step.state)
        s = step.state
        events += step.events
    return s, events


def stacks(s: State) -> dict[int, int]:
    return {x.player: x.stack for x in s.seats}


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def feats_of(events: list[Event]) -> list[dict[int, tuple[str, ...]]]:
    """The feats each settlement among ``events`` counts, in order."""
    return [e.feats for e in events if isinstance(e, Settlement)]


def refused(s: State, player: int, action: Action) -> Reason:
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, player, action)
    return err.value.reason


# Dealing order with banker 1 and punters 2, 3: 2 3 2 3 2 3, then 2's card, 3's card.
HANDS = ["9h", "2c", "4s", "3c", "Kd", "4c"]


def test_rule_3_1_lowest_card_posts_the_first_bank_ties_redraw() -> None:
    s = seated({1: 1000, 2: 1000, 3: 1000})
    rng = StackedRng(["Kc", "2h", "2s", "9d", "5c"])
    s, events = play(s, (1, Start()), rng=rng)
    draws = [e.data["draws"] for e in events if e.kind == "banker_draw"]
    assert draws == [rows(row(1, card=cards("Kc")), row(2, card=cards("2h")),
                          row(3, card=cards("2s"))),
                     rows(row(2, card=cards("9d")), row(3, card=cards("5c")))]
    assert [e.data for e in events if e.kind == "bank_offered"] == [
        {"player": who(3), "amount": chips(300)}]
    assert refused(s, 2, PostBank()) == Reason.NOT_YOUR_TURN
    s, events = play(s, (3, PostBank()))
    assert s.banker == 3 and s.bank == 300 and stacks(s) == {1: 1000, 2: 1000, 3: 700}
    assert ENGINE.accounts(s)[BANK] == 300


def test_rule_3_2_banker_shuffles_and_the_player_to_his_right_cuts() -> None:
    s = seated({1: 1000, 2: 1000, 3: 1000}).model_copy(update={"phase": "post", "queue": [1]})
    s, events = play(s, (1, PostBank()), rng=random.Random(4))
    assert kinds(events) == ["bank_posted", "shoe_committed"]
    assert ENGINE.awaiting(s) == [3]
    assert refused(s, 2, Cut(offset=9)) == Reason.NOT_YOUR_TURN
    s, events = play(s, (3, Cut(offset=9)))
    assert s.shoe is not None and s.shoe.cut == 9 and kinds(events)[0] == "shoe_cut"


def test_rule_3_3_three_cards_face_down_to_every_punter_one_at_a_time() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, HANDS)
    assert {x.player: x.cards for x in s.seats} == {1: [], 2: ["9h", "4s", "Kd"],
                                                    3: ["2c", "3c", "4c"]}
    public = ENGINE.view(s, None)
    assert [(v.face_up, v.face_down) for v in public.seats] == [((), 0), ((), 3), ((), 3)]
    assert ENGINE.view(s, 2).my_cards == ("9h", "4s", "Kd")
    assert ENGINE.view(s, 1).my_cards == ()


def test_rule_3_4_each_punter_from_the_left_stakes_minimum_to_bank_then_a_card_is_turned() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "5h", "5c"], joining=False)
    assert ENGINE.awaiting(s) == [2]
    spec = {a.kind: a for a in ENGINE.legal_actions(s, 2)}
    assert set(spec) == {"leave", "stake"}  # punters cannot pass
    assert (spec["stake"].min, spec["stake"].max) == (5, 300)
    assert refused(s, 2, Stake(amount=4)) == Reason.AMOUNT_OUT_OF_RANGE
    assert refused(s, 2, Stake(amount=301)) == Reason.EXCEEDS_BANK
    assert refused(s, 3, Stake(amount=5)) == Reason.NOT_YOUR_TURN
    s, events = play(s, (2, Stake(amount=40)))
    assert kinds(events)[:3] == ["stake_placed", "card_turned", "cards_shown"]
    assert next(e.data for e in events if e.kind == "card_turned") == {
        "punter": who(2), "card": cards("5h")}
    assert stacks(s) == {1: 700, 2: 1040, 3: 1000} and s.bank == 260
    assert ENGINE.awaiting(s) == [3]
    # Timeout: the minimum stake (punters cannot pass); 5c beats 4c -> 3 loses 5.
    step = ENGINE.timeout(s)
    assert next(e.data for e in step.events if e.kind == "stake_placed")["amount"] == chips(5)
    assert step.state.bank == 265 and stacks(step.state)[3] == 995


def test_rule_3_5_a_card_of_the_suit_equal_or_higher_wins_an_identical_card_too() -> None:
    # 2's 9h against 9h (identical): wins. 3's clubs 2 3 4 against 5c: covered.
    s = banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "9h", "5c"], joining=False)
    s, events = play(s, (2, Stake(amount=100)), (3, Stake(amount=60)))
    settled = [e.data for e in events if e.kind == "coup_settled"]
    assert [(d["punter"], d["card"], d["won"], d["results"]) for d in settled] == [
        (who(2), cards("9h"), flag(True), rows(row(2, net=signed(100)))),
        (who(3), cards("5c"), flag(False), rows(row(3, net=signed(-60)))),
    ]
    assert s.bank == 260 and stacks(s) == {1: 700, 2: 1100, 3: 940}
    assert punter_wins("Ts", ["9s", "Ah", "Ac"]) is False  # a higher card of another suit
    assert punter_wins("Ks", ["As", "2c", "3d"]) is True


def test_rule_3_6_joining_each_pays_his_part_total_within_the_bank() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000, 4: 1000},
               ["9h", "2c", "2d", "4s", "3c", "3d", "Kd", "4c", "4d", "Th"])
    s, events = play(s, (2, Stake(amount=50)))
    assert s.phase == "joining" and ENGINE.awaiting(s) == [2]
    spec = {a.kind: a for a in ENGINE.legal_actions(s, 3)}
    assert (spec["join_stake"].min, spec["join_stake"].max) == (1, 250)
    assert refused(s, 1, JoinStake(amount=10)) == Reason.NOT_ALLOWED  # not the banker
    s, _ = play(s, (3, JoinStake(amount=100)))
    assert refused(s, 4, JoinStake(amount=151)) == Reason.EXCEEDS_BANK
    assert refused(s, 4, JoinStake(amount=1001)) == Reason.INSUFFICIENT_CHIPS
    # 4 fills the bank exactly: nothing more can join, so the card is turned at once.
    s, events = play(s, (4, JoinStake(amount=150)))
    settled = next(e.data for e in events if e.kind == "coup_settled")
    assert settled["card"] == cards("Th") and settled["won"] == flag(False)  # 9h < Th
    assert settled["results"] == rows(row(2, net=signed(-50)), row(3, net=signed(-100)),
                                      row(4, net=signed(-150)))
    assert feats_of(events) == [{3: ("joined",), 4: ("joined",)}]
    assert s.bank == 600 and stacks(s) == {1: 700, 2: 950, 3: 900, 4: 850}


def test_rule_3_8_every_player_who_wins_on_the_card_that_empties_the_bank_broke_it() -> None:
    # 2 holds 9h 4s Kd; the turned 8h is a heart no higher than his 9h: he wins
    s = banked({1: 1000, 2: 1000, 3: 1000, 4: 1000},
               ["9h", "2c", "2d", "4s", "3c", "3d", "Kd", "4c", "4d", "8h"])
    s, events = play(s, (2, Stake(amount=100)), (3, JoinStake(amount=100)),
                     (4, JoinStake(amount=100)))
    assert next(e.data for e in events if e.kind == "coup_settled")["won"] == flag(True)
    assert feats_of(events) == [{3: ("joined", "bank_broken"), 4: ("joined", "bank_broken"),
                                 2: ("bank_broken",)}]
    assert stacks(s) == {1: 700, 2: 1100, 3: 1100, 4: 1100}


def test_rule_3_8_a_win_that_leaves_chips_in_the_bank_breaks_nothing() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000},
               ["9h", "2c", "4s", "3c", "Kd", "4c", "8h"], joining=False)
    s, events = play(s, (2, Stake(amount=100)))
    assert next(e.data for e in events if e.kind == "coup_settled")["won"] == flag(True)
    assert feats_of(events) == [{}] and s.bank == 200


def test_rule_3_6_a_punter_who_forbids_joining_may_not_join_others() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000, 4: 1000},
               ["9h", "2c", "2d", "4s", "3c", "3d", "Kd", "4c", "4d", "6c", "Ac"])
    s, events = play(s, (2, Stake(amount=50, forbid_joining=True)))
    assert "joining_open" not in kinds(events)  # turned at once: 6c, 2 loses 50
    assert stacks(s)[2] == 950 and s.bank == 350
    s, _ = play(s, (3, Stake(amount=20)))
    assert refused(s, 2, JoinStake(amount=10)) == Reason.JOINING_FORBIDDEN
    s, events = play(s, (4, JoinStake(amount=10)), (3, Turn()))
    settled = next(e.data for e in events if e.kind == "coup_settled")
    assert settled["card"] == cards("Ac") and settled["results"] == rows(
        row(3, net=signed(-20)), row(4, net=signed(-10)))
    off = banked({1: 1000, 2: 1000, 3: 1000}, HANDS, joining=False)
    assert refused(off, 2, Stake(amount=5, forbid_joining=True)) == Reason.NOT_ALLOWED


def test_rule_3_7_continuous_play_new_cards_without_shuffle_used_cards_go_under() -> None:
    prefix = [*HANDS, "5h", "5c", "Qs", "Qh", "Js", "Jh", "Ts", "Th"]
    s = banked({1: 1000, 2: 1000, 3: 1000}, prefix, joining=False)
    position = s.shoe.position if s.shoe else -1
    s, events = play(s, (2, Stake(amount=5)), (3, Stake(amount=5)))
    assert "shoe_committed" not in kinds(events)
    assert {x.player: x.cards for x in s.seats} == {1: [], 2: ["Qs", "Js", "Ts"],
                                                    3: ["Qh", "Jh", "Th"]}
    assert s.shoe is not None and s.shoe.position == position + 8
    extended = next(e.data for e in events if e.kind == "shoe_extended")
    assert extended["cards"] == count(8, "card") and extended["gathered_by"] == who(3)
    part = s.under[0]
    assert sorted(part.order) == sorted([*HANDS, "5h", "5c"])
    assert extended["commitment"] == text(part.commitment)
    assert verify(part.order, part.salt, part.commitment)
    held = sum(len(x.cards) for x in s.seats)
    assert held + s.shoe.remaining + sum(u.remaining for u in s.under) + len(s.used) == 104


def test_rule_3_8_a_tripled_bank_passes_left_who_posts_or_leaves() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000, 4: 1000},
               ["2c", "2d", "2h", "3c", "3d", "3h", "4c", "4d", "4h", "As", "5s"], joining=False)
    s, events = play(s, (2, Stake(amount=300)), (3, Stake(amount=300)))
    # 2 staked the whole bank ("bank", §3.4) and lost; 3's 300 is half of it, and triples it
    assert feats_of(events) == [{2: ("banco",)}, {1: ("bank_tripled",)}]
    ended = next(e.data for e in events if e.kind == "bank_ended")
    assert ended == {"player": who(1), "amount": chips(900), "reason": word("tripled")}
    assert stacks(s) == {1: 1600, 2: 700, 3: 700, 4: 1000}
    assert all(not x.cards for x in s.seats) and s.shoe is None  # 4's cards are discarded
    assert "shoe_revealed" in kinds(events)
    assert s.phase == "post" and ENGINE.awaiting(s) == [2]  # the player on the banker's left
    assert [a.kind for a in ENGINE.legal_actions(s, 1)] == ["leave"]  # no adding, no taking
    s, events = play(s, (2, Decline()))
    assert kinds(events)[:2] == ["bank_declined", "player_left"]
    assert [x.player for x in s.seats] == [1, 3, 4] and ENGINE.awaiting(s) == [3]
    s, _ = play(s, (3, PostBank()), rng=random.Random(1))
    assert s.banker == 3 and s.bank == 300 and s.last_banker == 1


def test_rule_3_8_a_broken_bank_passes_and_nobody_banks_twice_in_a_row() -> None:
    s = banked({1: 1000, 2: 1000}, ["As", "2c", "Ac", "Ks"])
    s, events = play(s, (2, Stake(amount=300)))
    assert feats_of(events) == [{2: ("banco", "banco_won", "bank_broken")}]
    assert next(e.data for e in events if e.kind == "bank_ended") == {
        "player": who(1), "amount": chips(0), "reason": word("broken")}
    assert stacks(s) == {1: 700, 2: 1300} and ENGINE.awaiting(s) == [2]
    s, events = play(s, (2, Decline()))
    # Only the last banker is left: he may not hold the bank twice in a row.
    assert s.phase == "idle" and kinds(events)[-1] == "table_idle"


def test_rule_3_9_the_card_is_turned_only_after_the_stake() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, HANDS)
    assert s.shoe is not None and s.shoe.position == 6
    s, events = play(s, (2, Stake(amount=10)))
    assert s.phase == "joining" and "card_turned" not in kinds(events)
    assert s.shoe is not None and s.shoe.position == 6
    assert "card_turned" in kinds(ENGINE.timeout(s).events)  # the punter's default: turn


def test_rule_0_7_one_timeout_on_the_bank_offer_passes_it_over_he_keeps_his_seat() -> None:
    s = seated({1: 1000, 2: 100, 3: 1000}).model_copy(update={"phase": "post", "queue": [1, 2, 3]})
    step = ENGINE.timeout(s)
    assert kinds(step.events)[:2] == ["timed_out", "bank_passed_over"]
    assert "player_left" not in kinds(step.events) and "bank_declined" not in kinds(step.events)
    assert [e.data for e in step.events if e.kind == "bank_skipped"] == [
        {"player": who(2), "reason": word("insufficient_chips")}]
    s = step.state
    assert [x.player for x in s.seats] == [1, 2, 3] and s.seats[0].timeouts == 1
    assert ENGINE.awaiting(s) == [3]
    # 3 lets it pass too; 1 banked nobody: nobody took the bank, the table says so
    step = ENGINE.timeout(s)
    assert [e.data for e in step.events if e.kind == "bank_not_taken"] == [
        {"amount": chips(300)}]
    s = step.state
    assert s.phase == "idle" and [x.player for x in s.seats] == [1, 2, 3]
    # offered again, 1 times out a second time in a row: stood up, and gone at once
    s = s.model_copy(update={"phase": "post", "queue": [1, 3]})
    step = ENGINE.timeout(s)
    assert kinds(step.events)[:4] == ["timed_out", "bank_passed_over", "stood_up", "player_left"]
    assert [x.player for x in step.state.seats] == [2, 3] and ENGINE.awaiting(step.state) == [3]
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [("stack:1", "wallet:1", 1000)]


def test_rule_3_8_a_banker_leaving_mid_bank_keeps_it_until_it_is_empty_or_tripled() -> None:
    # 2 loses 300 to 5c: the bank doubles; the banker presses Leave between punters
    s = banked({1: 1000, 2: 1000, 3: 1000},
               ["9h", "2c", "4s", "3c", "Kd", "4c", "Th", "5c"], joining=False)
    s, _ = play(s, (2, Stake(amount=300)))
    assert s.bank == 600 and s.phase == "staking" and ENGINE.awaiting(s) == [3]
    s, events = play(s, (1, Leave()))
    assert [e.data for e in events] == [{"player": who(1)}]
    assert kinds(events) == ["banker_leaving"]
    assert s.bank == 600 and s.banker == 1 and stacks(s)[1] == 700  # nothing taken out
    assert [a.kind for a in ENGINE.legal_actions(s, 1)] == []
    # the bank plays on; tripled, it ends and he stands up with it
    step = ENGINE.apply(s, 3, Stake(amount=300))
    assert next(e.data for e in step.events if e.kind == "bank_ended") == {
        "player": who(1), "amount": chips(900), "reason": word("tripled")}
    assert [(t.src, t.dst, t.amount) for t in step.transfers if "1" in t.src + t.dst] == [
        ("bank", "stack:1", 900), ("stack:1", "wallet:1", 1600)]
    assert [x.player for x in step.state.seats] == [2, 3] and ENGINE.awaiting(step.state) == [2]


def test_rule_3_8_the_last_banker_may_bank_again_when_nobody_else_can() -> None:
    # 2 loses 300 twice: the bank triples and 2 is left with 200, short of the bank
    s = banked({1: 1000, 2: 800}, ["2c", "3c", "4c", "5c", "2d", "3d", "4d", "5d"])
    s, events = play(s, (2, Stake(amount=300)), (2, Stake(amount=300)))
    assert stacks(s) == {1: 1600, 2: 200}
    found = [k for k in kinds(events) if k != "shoe_revealed"]
    assert found[found.index("bank_ended"):] == [
        "bank_ended", "bank_skipped", "bank_offered_again", "bank_offered"]
    assert ENGINE.awaiting(s) == [1]
    s, _ = play(s, (1, PostBank()), rng=random.Random(3))
    assert s.banker == 1 and s.bank == 300 and s.phase == "cut"


def test_rule_3_8_the_last_banker_declining_a_second_bank_keeps_his_seat() -> None:
    s = seated({1: 1000, 2: 200}).model_copy(update={"last_banker": 1})
    s, events = play(s, (2, Start()))
    assert ENGINE.awaiting(s) == [1] and "bank_offered_again" in kinds(events)
    s, events = play(s, (1, Decline()))
    assert kinds(events) == ["bank_declined", "bank_not_taken", "table_idle"]
    assert s.phase == "idle" and [x.player for x in s.seats] == [1, 2]


def test_rule_3_8_a_table_where_nobody_can_post_the_bank_says_why() -> None:
    s = seated({1: 250, 2: 290})
    s, events = play(s, (1, Start()), rng=StackedRng(["5c", "9d"]))
    assert [e.data for e in events if e.kind == "bank_skipped"] == [
        {"player": who(1), "reason": word("insufficient_chips")},
        {"player": who(2), "reason": word("insufficient_chips")}]
    assert [e.data for e in events if e.kind == "bank_unaffordable"] == [
        {"amount": chips(300)}]
    assert s.phase == "idle" and kinds(events)[-1] == "table_idle"


def test_a_leaving_joiner_stays_until_his_card_is_turned() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "5h"])
    s, _ = play(s, (2, Stake(amount=10)), (3, JoinStake(amount=20)), (3, Leave()))
    assert s.seats[2].leaving and s.seats[2].stake == 20
    s, events = play(s, (2, Turn()))
    assert [x.player for x in s.seats] == [1, 2]
    assert stacks(s) == {1: 700, 2: 1010}
    cash_out = [e for e in events if e.kind == "player_left"]
    assert [e.data for e in cash_out] == [{"player": who(3)}]


def covered_literally(banker: str, punter: str) -> bool:
    """An independent reading of §3.5 for one punter card: does the banker's card beat it?"""
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
    if punter[1] != banker[1]:
        return True  # another suit never covers the banker's card
    return order.index(punter[0]) < order.index(banker[0])


def test_rule_3_5_covering_exhaustively_for_every_pair_of_cards() -> None:
    assert "".join(sorted(RANKS)) == "".join(sorted("23456789TJQKA"))
    wins = 0
    for banker in DECK:
        for card in DECK:
            expected = not covered_literally(banker, card)
            assert punter_wins(banker, [card]) is expected, (banker, card)
            wins += expected
    assert wins == 4 * sum(range(1, 14))  # per suit: ace beats 13 ranks ... deuce beats 1


def test_rule_3_7_when_the_shoe_runs_out_the_gathered_part_under_it_is_dealt() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, HANDS, joining=False)
    s = s.model_copy(update={"shoe": Shoe.fixed(["5h", "5c"], decks=2)})
    s, events = play(s, (2, Stake(amount=5)), (3, Stake(amount=5)))
    found = kinds(events)
    assert found.index("shoe_extended") < found.index("shoe_revealed") < found.index(
        "cards_dealt")
    revealed = next(e for e in events if e.kind == "shoe_revealed")
    assert isinstance(revealed, ShoeRevealed) and revealed.record["order"] == ["5h", "5c"]
    dealt = sorted(c for x in s.seats for c in x.cards)
    assert s.shoe is not None and sorted([*dealt, *s.shoe.dealing_order[6:]]) == sorted(
        [*HANDS, "5h", "5c"])


def test_a_banker_leaving_before_any_stake_takes_his_bank_at_once() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, HANDS)
    s, events = play(s, (1, Leave()))
    assert next(e.data for e in events if e.kind == "bank_ended") == {
        "player": who(1), "amount": chips(300), "reason": word("banker_left")}
    assert [x.player for x in s.seats] == [2, 3] and ENGINE.awaiting(s) == [2]
    assert ENGINE.accounts(s) == {"stack:2": 1000, "stack:3": 1000}


def test_a_punter_short_of_the_minimum_stakes_what_he_has() -> None:
    s = banked({1: 1000, 2: 1000, 3: 7}, [*HANDS, "Th"])
    s, _ = play(s, (2, Stake(amount=10)), (3, JoinStake(amount=4)), (2, Turn()))
    # 3 lost 4 of his 7 while joining: his own stake may now be 1 to 3.
    spec = {a.kind: a for a in ENGINE.legal_actions(s, 3)}
    assert stacks(s)[3] == 3 and (spec["stake"].min, spec["stake"].max) == (3, 3)


def test_rule_0_12_closing_mid_coup_voids_it_stakes_back_bank_to_its_banker() -> None:
    s = banked({1: 1000, 2: 500, 3: 500}, HANDS)
    s, _ = play(s, (2, Stake(amount=50)), (3, JoinStake(amount=20)))
    assert s.phase == "joining" and s.bank == 300
    step = ENGINE.close(s)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("bank", "wallet:1", 300), ("stack:1", "wallet:1", 700),
        ("stack:2", "wallet:2", 450), ("stack:3", "wallet:3", 480),
        ("stake:2", "wallet:2", 50), ("stake:3", "wallet:3", 20)]
    assert kinds(step.events) == ["table_closed", "shoe_revealed"]
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(
        row(1, amount=chips(1000)), row(2, amount=chips(500)), row(3, amount=chips(500)))}
    revealed = step.events[1]
    assert isinstance(revealed, ShoeRevealed) and revealed.record["order"][:6] == HANDS
    assert step.state.seats == [] and ENGINE.awaiting(step.state) == []


def test_the_first_coup_is_number_one_from_the_call_to_stake_to_its_settlement() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "5h", "5c"], joining=False)
    assert ENGINE.awaiting(s) == [2] and s.coup == 1 and ENGINE.view(s, None).coup == 1
    s, events = play(s, (2, Stake(amount=40)))
    settled = next(e for e in events if e.kind == "coup_settled")
    assert isinstance(settled, Settlement) and settled.coup == 1
    assert ENGINE.awaiting(s) == [3] and s.coup == 2  # the next punter's coup is number 2


def test_rule_0_4_a_cut_outside_the_shoe_is_refused_and_the_spec_says_so() -> None:
    s = seated({1: 1000, 2: 1000, 3: 1000}).model_copy(update={"phase": "post", "queue": [1]})
    s, _ = play(s, (1, PostBank()), rng=random.Random(4))
    (spec,) = [a for a in ENGINE.legal_actions(s, 3) if a.kind == "cut"]
    assert (spec.input, spec.min, spec.max) == (Input.AMOUNT, 0, 103)  # two decks
    for offset in (104, 312):
        assert refused(s, 3, Cut(offset=offset)) == Reason.AMOUNT_OUT_OF_RANGE
    s, _ = play(s, (3, Cut(offset=103)))
    assert s.shoe is not None and s.shoe.cut == 103 and s.phase == "staking"


def test_the_settlement_names_every_net_the_bankers_included_and_the_winners() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "9h", "5c"], joining=False)
    s, events = play(s, (2, Stake(amount=100)), (3, Stake(amount=60)))
    settled = [e for e in events if isinstance(e, Settlement)]
    assert [(e.coup, e.nets, e.banker, e.winners, e.hands) for e in settled] == [
        (1, {2: 100, 1: -100}, 1, (2,), {}),
        (2, {3: -60, 1: 60}, 1, (1,), {}),
    ]
    assert [e.kind for e in events if isinstance(e, Settlement)] == ["coup_settled"] * 2


def test_events_say_what_they_are_about() -> None:
    s = seated({1: 1000, 2: 1000, 3: 1000}).model_copy(update={"phase": "post", "queue": [1]})
    s, _ = play(s, (1, PostBank()), rng=StackedRng([*HANDS, "5h"]))
    s, events = play(s, (3, Cut(offset=0)))
    dealt = [e for e in events if e.kind == "card_dealt"]
    assert {e.about for e in dealt} == {About.OWN_HAND}
    assert dealt[-1].to == (3,) and dealt[-1].data == {
        "card": cards("4c"), "cards": cards("2c", "3c", "4c")}
    s, events = play(s, (2, Stake(amount=10)), (2, Turn()))
    assert [(e.kind, e.about) for e in events if e.about] == [
        ("card_turned", About.SHOWDOWN), ("cards_shown", About.SHOWDOWN)]
    assert next(e.data for e in events if e.kind == "cards_shown") == {
        "player": who(2), "cards": cards("9h", "4s", "Kd")}


def test_the_view_shows_only_the_tables_facts_and_the_shoe_apart() -> None:
    s = banked({1: 1000, 2: 1000, 3: 1000, 4: 1000},
               ["9h", "2c", "2d", "4s", "3c", "3d", "Kd", "4c", "4d", "Th"])
    view = ENGINE.view(s, None)
    assert view.facts == {"joining": flag(True), "punter": who(2)}  # nothing staked yet
    assert view.shoe is not None and s.shoe is not None
    assert view.shoe.commitments == (s.shoe.commitment,) and view.shoe.cards_left == 104 - 9
    stake = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "stake")
    assert (stake.input, stake.choices) == (Input.CHOICE, ("allow_joining", "forbid_joining"))
    s, _ = play(s, (2, Stake(amount=50)))
    assert ENGINE.view(s, None).facts == {
        "joining": flag(True), "punter": who(2), "stake_total": chips(50)}
    join = next(a for a in ENGINE.legal_actions(s, 3) if a.kind == "join_stake")
    assert (join.input, join.min, join.max) == (Input.AMOUNT, 1, 250)
    s, _ = play(s, (2, Turn()), (3, Stake(amount=20, forbid_joining=True)))
    assert ENGINE.view(s, 2).facts == {
        "joining": flag(True), "forbidding": who(3), "punter": who(4)}
    assert ENGINE.view(s, 2).my_facts == {}
    off = banked({1: 1000, 2: 1000, 3: 1000}, HANDS, joining=False)
    stake = next(a for a in ENGINE.legal_actions(off, 2) if a.kind == "stake")
    assert (stake.input, stake.choices) == (Input.AMOUNT, ())
    assert ENGINE.view(off, None).facts == {"punter": who(2)}
    post = seated({1: 1000, 2: 1000}).model_copy(update={"phase": "post", "queue": [1]})
    assert {a.kind: a.input for a in ENGINE.legal_actions(post, 1)} == {
        "leave": Input.UTILITY, "post_bank": Input.PLAIN, "decline": Input.PLAIN}



def test_rule_0_13_a_punter_below_the_minimum_stake_is_stood_up_after_the_coup() -> None:
    from broke import a_punter_with_4_chips_at_a_table_of_5

    a_punter_with_4_chips_at_a_table_of_5("banchok")

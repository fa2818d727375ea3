"""Jackpots draw poker, docs/rules.md §5 and §5a: one fixed-shoe scenario per rule."""

from __future__ import annotations

import random
from typing import Any

import pytest
from poker_fixtures import draw_order, fixed_shoe, seated

from games.cards import Shoe
from games.engine import (
    About,
    Cards,
    CardsProven,
    Hand,
    IllegalAction,
    Input,
    Join,
    Purpose,
    Reason,
    Settlement,
    ShoeRevealed,
    cards,
    chips,
    count,
    flag,
    net,
    row,
    rows,
    who,
)
from games.poker.common import Bet, Call, Check, Fold, PokerEngine, PokerState, Raise
from games.poker.draw import ENGINE, Discard, Open
from games.poker.kit import build
from games.poker.phh import kit_from_phh, phh_text
from games.poker.stud import ENGINE as STUD
from games.verify.check import check

JJ = ["Jc", "Jd", "2c", "3c", "4c"]      # jacks: may open
TT = ["Tc", "Td", "2d", "3d", "4d"]      # tens: may not
AK = ["Ah", "Kd", "7h", "3h", "5s"]      # nothing
QQ = ["Qc", "Qd", "Qh", "6c", "8c"]      # trips


def kinds(state: PokerState, player: int) -> list[str]:
    return [a.kind for a in ENGINE.legal_actions(state, player) if a.kind != "leave"]


def play(state: PokerState, *moves: tuple[int, object]) -> PokerState:
    for player, action in moves:
        state = ENGINE.apply(state, player, action).state  # type: ignore[arg-type]
    return state


def stacks(state: PokerState) -> dict[int, int]:
    return {s.player: s.stack for s in state.seats}


def three(*hands: list[str], then: tuple[str, ...] | list[str] = (),
          **settings: object) -> PokerState:
    # player 1 deals, so players 2, 3, 1 receive hands[0], [1], [2]
    return seated(ENGINE, [100, 100, 100], [fixed_shoe(draw_order(hands, then))],
                  dict(settings))


def test_rule_5a_1_everybody_antes_and_gets_five_cards_face_down() -> None:
    s = three(JJ, TT, AK)
    assert s.pot == 3 and stacks(s) == {1: 99, 2: 99, 3: 99}
    assert ENGINE.view(s, 2).my_cards == tuple(JJ)
    public = ENGINE.view(s, None)
    assert public.my_cards == () and all(v.face_down == 5 and v.face_up == () for v in public.seats)
    assert ENGINE.awaiting(s) == [2]  # the dealer's left speaks first


def test_rule_5a_2_open_is_offered_only_with_jacks_or_better() -> None:
    s = three(TT, JJ, AK)
    assert kinds(s, 2) == ["check"]
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 2, Open())
    assert err.value.reason == Reason.NO_OPENERS
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 2, Bet())
    assert err.value.reason == Reason.NO_OPENERS
    # offering Open reveals jacks or better, so before the opening the whole decision is
    # private for holder and non-holder alike: the group cannot tell them apart
    assert [(a.kind, a.private) for a in ENGINE.legal_actions(s, 2)] == [
        ("leave", False), ("check", True)]
    s = play(s, (2, Check()))
    assert kinds(s, 3) == ["check", "open"]
    assert [(a.kind, a.private) for a in ENGINE.legal_actions(s, 3)] == [
        ("leave", False), ("check", True), ("open", True)]


def test_rule_5a_2_nobody_opens_antes_again_into_the_same_pot_and_new_deal() -> None:
    second = fixed_shoe(draw_order([JJ, TT, AK]))
    s = seated(ENGINE, [100, 100, 100],
               [fixed_shoe(draw_order([TT, AK, ["9c", "8d", "2h", "3s", "5h"]])), second])
    step = ENGINE.apply(play(s, (2, Check()), (3, Check())), 1, Check())
    kinds_seen = [e.kind for e in step.events]
    assert "hands_thrown_in" in kinds_seen and "shoe_revealed" in kinds_seen
    assert kinds_seen.count("shoe_committed") == 1
    s = step.state
    assert s.pot == 6 and stacks(s) == {1: 98, 2: 98, 3: 98} and s.passed_deals == 1
    assert s.shoe is not None and s.shoe.commitment == second.commitment
    assert ENGINE.view(s, 2).my_cards == tuple(JJ)
    assert sum(t.amount for t in step.transfers if t.reason == "ante") == 3
    # the opener wins the whole carried pot: 6 in antes + 2 of his own back
    s = play(s, (2, Open()), (3, Fold()), (1, Fold()))
    assert s.last_hand is not None and s.last_hand.finishing_stacks == [104, 98, 98]


def test_rule_5a_3_after_the_opening_no_more_checking() -> None:
    s = play(three(JJ, TT, AK), (2, Open()))
    assert kinds(s, 3) == ["call", "fold", "raise"]
    with pytest.raises(IllegalAction):
        ENGINE.apply(s, 3, Check())


def test_rule_5a_4_draw_up_to_three_cards_replacements_private() -> None:
    s = play(three(JJ, TT, AK, then=["As", "Ks", "Qs", "9d", "9h"]),
             (2, Open()), (3, Call()), (1, Fold()))
    assert s.phase == "draw" and ENGINE.awaiting(s) == [2]
    spec = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "discard")
    assert (spec.min, spec.max, spec.private) == (0, 3, True)
    assert spec.input == Input.OWN_CARDS and spec.choices == tuple(s.seats[1].cards)
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 2, Discard(cards=("2c", "3c", "4c", "Jc")))
    assert err.value.reason == Reason.BAD_DISCARD
    step = ENGINE.apply(s, 2, Discard(cards=("2c", "3c", "4c")))
    drawn = [e for e in step.events if e.kind == "cards_drawn"]
    assert drawn[0].to == (2,) and drawn[0].data["cards"] == cards("As", "Ks", "Qs")
    public = [e for e in step.events if e.kind == "discarded"]
    assert public[0].to is None and public[0].data == {"player": who(2), "count": count(3, "card")}
    s = step.state
    assert ENGINE.view(s, 2).my_cards == ("Jc", "Jd", "As", "Ks", "Qs")
    # the opener's discards are kept to prove his openers
    assert s.seats[1].discards == ["2c", "3c", "4c"]


def test_rule_5a_4_setting_four_cards_when_the_kept_card_is_an_ace() -> None:
    s = play(three(JJ, AK, TT, ace_four=True), (2, Open()), (3, Call()), (1, Fold()),
             (2, Discard()))
    assert [a.max for a in ENGINE.legal_actions(s, 3) if a.kind == "discard"] == [4]
    with pytest.raises(IllegalAction) as err:  # keeps the king, not an ace
        ENGINE.apply(s, 3, Discard(cards=("Ah", "7h", "3h", "5s")))
    assert err.value.reason == Reason.BAD_DISCARD
    s = ENGINE.apply(s, 3, Discard(cards=("Kd", "7h", "3h", "5s"))).state
    assert ENGINE.view(s, 3).my_cards[0] == "Ah" and len(ENGINE.view(s, 3).my_cards) == 5


def test_rule_5a_4_without_the_setting_four_cards_are_refused() -> None:
    s = play(three(JJ, AK, TT), (2, Open()), (3, Call()), (1, Fold()), (2, Discard()))
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 3, Discard(cards=("Kd", "7h", "3h", "5s")))
    assert err.value.reason == Reason.BAD_DISCARD


def test_rule_5a_5_second_round_big_bet_starts_with_the_opener() -> None:
    # player 3 (second to speak) opens; the second round starts with him
    s = play(three(TT, JJ, AK), (2, Check()), (3, Open()), (1, Call()), (2, Call()),
             (2, Discard()), (3, Discard()), (1, Discard()))
    assert ENGINE.awaiting(s) == [3]
    bet = next(a for a in ENGINE.legal_actions(s, 3) if a.kind == "bet")
    assert (bet.min, bet.max) == (4, 4)  # the big bet, 2L


def test_rule_5a_6_opener_shows_openers_even_when_uncontested() -> None:
    s = play(three(JJ, TT, AK), (2, Open()), (3, Fold()))
    step = ENGINE.apply(s, 1, Fold())
    shown = [e for e in step.events if e.kind == "openers_shown"]
    assert shown[0].to is None and shown[0].data == {"player": who(2), "cards": cards("Jc", "Jd")}
    assert shown[0].about == About.SHOWDOWN
    assert not [e for e in step.events if e.kind == "hand_shown"]
    assert step.state.last_hand is not None
    assert step.state.last_hand.finishing_stacks == [102, 99, 99]
    settled = next(e for e in step.events if isinstance(e, Settlement))
    # uncontested: no showdown, but a jackpot opened and won
    assert settled.feats == {2: ("voluntary", "opened", "opened_won")}


def test_rule_5a_6_an_opener_who_wins_the_showdown_counts_a_jackpot_opened_and_won() -> None:
    s = play(three(JJ, TT, AK), (2, Open()), (3, Call()), (1, Fold()),
             (2, Discard()), (3, Discard()), (2, Check()))
    step = ENGINE.apply(s, 3, Check())
    settled = next(e for e in step.events if isinstance(e, Settlement))
    # the pot: three antes, 2's opening bet of 2 and 3's call of it
    assert (settled.nets, settled.winners) == ({2: 4, 3: -3, 1: -1}, (2,))
    assert settled.feats == {2: ("voluntary", "opened", "opened_won", "showdown",
                                 "showdown_won"), 3: ("voluntary", "showdown")}


def test_rule_5a_6_opener_who_broke_his_openers_still_proves_them() -> None:
    s = play(three(JJ, TT, AK, then=["9s", "8s"]), (2, Open()), (3, Call()), (1, Fold()),
             (2, Discard(cards=("Jc", "Jd"))), (3, Discard()), (2, Check()))
    step = ENGINE.apply(s, 3, Check())
    shown = {e.kind: e.data for e in step.events if e.kind in ("openers_shown",)}
    assert shown["openers_shown"]["cards"] == cards("Jc", "Jd")
    hands = [e for e in step.events if e.kind == "hand_shown"]
    assert all(e.about == About.SHOWDOWN for e in hands)
    assert {e.player: e.data["value"] for e in hands} == {
        2: Hand(category="high_card", ranks=(7,)), 3: Hand(category="pair", ranks=(8,))}
    settled = next(e for e in step.events if isinstance(e, Settlement))
    assert settled.hands == {2: Hand(category="high_card", ranks=(7,)),
                             3: Hand(category="pair", ranks=(8,))}
    assert (settled.coup, settled.nets, settled.winners) == (1, {2: -3, 3: 4, 1: -1}, (3,))
    # 3's call is voluntary; 1's ante alone is not, nor checking the second round
    assert settled.feats == {2: ("voluntary", "opened", "showdown"),
                             3: ("voluntary", "showdown", "showdown_won")}
    assert step.state.last_hand is not None
    assert step.state.last_hand.finishing_stacks == [97, 104, 99]


def test_rule_5a_6_showdown_best_hand_wins_exact_amounts() -> None:
    s = play(three(JJ, QQ, AK), (2, Open()), (3, Raise()), (1, Fold()), (2, Call()),
             (2, Discard()), (3, Discard()), (2, Check()), (3, Bet()), (2, Call()))
    assert s.last_hand is not None
    # pot: 3 antes + 4 + 4 (first round) + 4 + 4 (second): trips beat jacks
    assert s.last_hand.finishing_stacks == [91, 110, 99]


def test_rule_5_fixed_limit_at_most_one_bet_and_three_raises() -> None:
    s = play(three(JJ, QQ, AK), (2, Open()), (3, Raise()), (1, Raise()))
    raise_spec = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "raise")
    assert (raise_spec.min, raise_spec.max) == (8, 8)
    s = play(s, (2, Raise()))
    assert kinds(s, 3) == ["call", "fold"]  # the cap: one bet and three raises
    with pytest.raises(IllegalAction):
        ENGINE.apply(s, 3, Raise())


def test_rule_5_pot_limit_bounds() -> None:
    s = three(JJ, QQ, AK, structure="pot")
    spec = next(a for a in ENGINE.legal_actions(s, 2) if a.kind == "open")
    assert (spec.min, spec.max) == (2, 3)  # at least L, at most the pot (3 antes)
    s = play(s, (2, Open(amount=3)))
    spec = next(a for a in ENGINE.legal_actions(s, 3) if a.kind == "raise")
    # call 3, then raise by the pot after the call (3 + 3 + 3): to 12
    assert (spec.min, spec.max) == (6, 12)
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(s, 3, Raise(amount=13))
    assert err.value.reason == Reason.AMOUNT_OUT_OF_RANGE


def test_rule_5_dealer_button_moves_clockwise_every_hand() -> None:
    s = play(three(JJ, TT, AK), (2, Open()), (3, Fold()), (1, Fold()))
    assert s.button == 2 and ENGINE.awaiting(s) == [3]


def test_rule_0_timeouts_check_else_fold_and_two_stand_up() -> None:
    s = three(TT, JJ, AK)
    step = ENGINE.timeout(s)  # player 2 may check: he checks
    assert [e.kind for e in step.events] == ["timed_out", "checked"]
    s = play(step.state, (3, Open()))
    s = ENGINE.timeout(s).state  # player 1 cannot check: he folds
    assert s.seats[0].folded and s.seats[0].timeouts == 1
    step = ENGINE.timeout(s)  # player 2's second timeout in a row: folds, stood up
    kinds_seen = [e.kind for e in step.events]
    assert kinds_seen[:3] == ["timed_out", "stood_up", "folded"]
    assert [s.player for s in step.state.seats] == [1, 3]
    cash = [t for t in step.transfers if t.reason == "cash_out"]
    assert [(t.src, t.dst, t.amount) for t in cash] == [("stack:2", "wallet:2", 99)]


def test_rule_5a_4_timeout_in_the_draw_stands_pat() -> None:
    s = play(three(JJ, TT, AK), (2, Open()), (3, Call()), (1, Fold()))
    step = ENGINE.timeout(s)
    assert [e.data for e in step.events if e.kind == "discarded"] == [
        {"player": who(2), "count": count(0, "card")}]
    assert ENGINE.view(step.state, 2).my_cards == tuple(JJ)


def test_phh_round_trip_of_a_finished_hand() -> None:
    s = play(three(JJ, QQ, AK), (2, Open()), (3, Raise()), (1, Fold()), (2, Call()),
             (2, Discard(cards=("2c", "3c"))), (3, Discard()), (2, Check()), (3, Bet()),
             (2, Call()))
    assert s.last_hand is not None
    text = phh_text(s.last_hand)
    kit, finishing = kit_from_phh(text)
    assert kit.log == s.last_hand.kit.log and kit == s.last_hand.kit
    assert finishing == s.last_hand.finishing_stacks == list(build(kit).stacks)
    assert "variant = 'F5CD'" in text


def test_transfers_match_accounts_for_a_whole_hand() -> None:
    s = three(JJ, QQ, AK)
    for player, action in [(2, Open()), (3, Raise()), (1, Fold()), (2, Call())]:
        before = ENGINE.accounts(s)
        step = ENGINE.apply(s, player, action)
        after = ENGINE.accounts(step.state)
        moved = net(step.transfers)
        assert all(before.get(k, 0) + moved.get(k, 0) == after.get(k, 0)
                   for k in set(before) | set(after))
        s = step.state


def test_view_names_the_viewers_own_hand_to_him_alone() -> None:
    s = three(JJ, TT, AK, then=["Jh", "Js", "5d"])
    assert ENGINE.view(s, 2).my_facts == {"hand": Hand(category="pair", ranks=(9,))}
    assert ENGINE.view(s, 3).my_facts == {"hand": Hand(category="pair", ranks=(8,))}
    assert ENGINE.view(s, 1).my_facts == {"hand": Hand(category="high_card", ranks=(12,))}
    assert ENGINE.view(s, None).my_facts == {} and ENGINE.view(s, 99).my_facts == {}
    s = play(s, (2, Open()), (3, Call()), (1, Fold()), (2, Discard(cards=("2c", "3c", "4c"))))
    # after the draw his new hand; a folded player has no hand left
    assert ENGINE.view(s, 2).my_facts == {"hand": Hand(category="four", ranks=(9,))}
    assert ENGINE.view(s, 1).my_facts == {}
    assert all("jacks" not in str(ENGINE.view(s, v).facts) for v in (None, 1, 3))


def test_rule_0_12_closing_mid_hand_gives_back_antes_and_bets() -> None:
    s = play(three(JJ, TT, AK), (2, Open()), (3, Call()), (1, Fold()))
    assert s.phase == "draw" and s.pot == 7 and stacks(s) == {1: 99, 2: 97, 3: 97}
    step = ENGINE.close(s)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("pot", "wallet:1", 1), ("pot", "wallet:2", 3), ("pot", "wallet:3", 3),
        ("stack:1", "wallet:1", 99), ("stack:2", "wallet:2", 97),
        ("stack:3", "wallet:3", 97)]
    # docs/rules.md §0.5: only the proofs of shown cards (none), and each his own privately
    assert [e.kind for e in step.events] == ["table_closed", "shoe_revealed", *["cards_proven"] * 3]
    revealed = step.events[1]
    assert isinstance(revealed, ShoeRevealed)
    assert revealed.record["shown"] == [] and "order" not in revealed.record
    assert revealed.purpose == Purpose.ONE_HAND  # nobody cuts a poker hand's deck
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(
        *(row(p, amount=chips(100)) for p in (1, 2, 3)))}
    assert step.state.seats == [] and step.state.phase == "waiting"


class InOrder(random.Random):
    """An rng whose shuffles leave the cards in the order given: the new stub is predictable."""

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        pass


def test_rule_5a_4_when_the_stub_runs_out_the_discards_but_the_drawers_own_are_reshuffled() -> None:
    # 8 players: 40 cards dealt, a stub of 12; all discard three (the most), 8 two of them.
    hands = [["Jc", "Jd", "2c", "3c", "4c"],                # 2 opens with jacks
             ["2d", "3d", "4d", "6h", "8h"], ["5c", "6c", "7c", "9d", "Td"],
             ["2h", "3h", "4h", "Qc", "Kc"], ["5d", "6d", "7d", "Qd", "Kd"],
             ["5h", "7h", "9h", "Th", "Qh"], ["2s", "3s", "4s", "5s", "6s"],
             ["7s", "8s", "9s", "Ts", "Js"]]                # 1, the dealer, speaks last
    stub = ["Ac", "Ad", "Ah", "As", "Kh", "Ks", "Qs", "Jh", "8c", "8d", "9c", "Tc"]
    s = seated(ENGINE, [100] * 8, [fixed_shoe(draw_order(hands, stub))])
    s = play(s, (2, Open()), *((p, Call()) for p in (3, 4, 5, 6, 7, 8, 1)))
    assert s.phase == "draw" and ENGINE.awaiting(s) == [2]
    junk = {p: tuple(h[2:]) for p, h in zip([2, 3, 4, 5, 6, 7, 8, 1], hands, strict=True)}
    junk[8] = junk[8][:2]
    got: dict[int, list[str]] = {}
    rng = InOrder()
    for p in (2, 3, 4, 5, 6, 7, 8, 1):
        spec = next(a for a in ENGINE.legal_actions(s, p) if a.kind == "discard")
        assert spec.max == 3  # offered, and honoured below
        step = ENGINE.apply(s, p, Discard(cards=junk[p]), rng)
        drawn = next(e.data["cards"] for e in step.events if e.kind == "cards_drawn")
        assert isinstance(drawn, Cards)
        got[p] = list(drawn.cards)
        rebuilt = [e for e in step.events if e.kind == "stub_rebuilt"]
        if p == 6:  # the stub is empty: 3, 4 and 5 discarded; the opener's are kept
            assert rebuilt[0].to is None and rebuilt[0].data["cards"] == count(9, "card")
        elif p == 1:  # one card left, then a stub of what 6, 7 and 8 discarded
            assert rebuilt[0].data["cards"] == count(8, "card")
        else:
            assert rebuilt == []
        s = step.state
    assert [got[p] for p in (2, 3, 4, 5)] == [stub[0:3], stub[3:6], stub[6:9], stub[9:12]]
    assert got[6] == list(junk[3]) and got[7] == list(junk[4]) and got[8] == list(junk[5][:2])
    # never his own discards back, never the opener's, never a card just dealt
    assert got[1] == [junk[5][2], *junk[6][:2]]
    assert s.phase == "betting" and ENGINE.awaiting(s) == [2]
    held = [c for x in s.seats for c in x.cards]
    assert len(held) == 40 == len(set(held))
    assert not set(held) & set(junk[2])  # the openers' proof stays out of play
    # the hand plays to its end on pokerkit and its history replays
    s = play(s, *((p, Check()) for p in (2, 3, 4, 5, 6, 7, 8)))
    step = ENGINE.apply(s, 1, Check())
    s = step.state
    assert s.last_hand is not None and sum(s.last_hand.finishing_stacks) == 800
    # each player's own proof covers the deck and both stubs, and checks
    proofs = [e for e in step.events if isinstance(e, CardsProven)]
    assert sorted(e.to or () for e in proofs) == [(p,) for p in range(1, 9)]
    for e in proofs:
        assert e.coup == 1 and isinstance(e.record, list) and len(e.record) == 3
        assert all(r.ok for r in check(e.record))
    kit, finishing = kit_from_phh(phh_text(s.last_hand))
    assert finishing == s.last_hand.finishing_stacks == list(build(kit).stacks)


@pytest.mark.parametrize("engine", [ENGINE, STUD])
def test_rule_0_10_join_is_offered_only_while_a_seat_is_free(engine: PokerEngine) -> None:
    s = engine.new_table({})
    for p in range(1, engine.max_players):
        s = engine.apply(s, p, Join(name=f"P{p}", buy_in=100)).state
    assert [a.kind for a in engine.legal_actions(s, 99)] == ["join"]
    s = engine.apply(s, engine.max_players, Join(name="last", buy_in=100)).state
    assert engine.legal_actions(s, 99) == []  # full: no Join button to be refused on
    with pytest.raises(IllegalAction) as err:
        engine.apply(s, 99, Join(name="late", buy_in=100))
    assert err.value.reason == Reason.TABLE_FULL


@pytest.mark.parametrize("ace_four", [False, True])
def test_rule_5a_4_eight_players_drawing_the_most_never_see_a_card_twice(ace_four: bool) -> None:
    """Random deals at a full table, everyone discarding all he may: every discard offered is
    honoured, and no card is ever in two hands (the stubs are rebuilt as often as needed)."""
    rebuilt = 0
    for seed in range(25):
        s = seated(ENGINE, [100] * 8, [Shoe.shuffled(1, random.Random(seed))] * 20,
                   {"ace_four": ace_four})
        rng = random.Random(seed)
        while s.last_hand is None:
            p = ENGINE.awaiting(s)[0]
            specs = {a.kind: a for a in ENGINE.legal_actions(s, p)}
            action: Any
            if "discard" in specs:
                cards = next(x.cards for x in s.seats if x.player == p)
                most = specs["discard"].max
                assert most == (4 if ace_four and any(c[0] == "A" for c in cards) else 3)
                aces = [c for c in cards if c[0] == "A"]
                action = Discard(cards=tuple(c for c in cards if c != aces[0])
                                 if most == 4 else cards[-3:])
            else:
                action = Open() if "open" in specs else Call() if "call" in specs else Check()
            step = ENGINE.apply(s, p, action, rng)
            rebuilt += sum(e.kind == "stub_rebuilt" for e in step.events)
            s = step.state
            held = [c for x in s.seats if x.in_hand for c in x.cards]
            assert len(held) == len(set(held))
    assert rebuilt > 25  # the rule is really exercised


def test_specs_say_what_they_ask_and_events_say_what_they_are() -> None:
    s = three(JJ, TT, AK)
    assert [(a.kind, a.input) for a in ENGINE.legal_actions(s, 2)] == [
        ("leave", Input.UTILITY), ("check", Input.PLAIN), ("open", Input.AMOUNT)]
    assert [(a.kind, a.input) for a in ENGINE.legal_actions(s, 99)] == [("join", Input.UTILITY)]
    step = ENGINE.apply(s, 2, Open())
    assert [(a.kind, a.input) for a in ENGINE.legal_actions(step.state, 3)] == [
        ("leave", Input.UTILITY), ("call", Input.PLAIN), ("fold", Input.PLAIN),
        ("raise", Input.AMOUNT)]
    assert [e.data for e in step.events] == [{"player": who(2), "to": chips(2)}]
    # the next hand: its number is the coup; face-down cards are dealt down, privately named
    s = play(step.state, (3, Fold()))
    # the table shows who opened, and the deck's commitment goes to /verify
    view = ENGINE.view(s, None)
    assert view.facts == {"opener": who(2)} and s.shoe is not None
    assert view.shoe is not None and view.shoe.commitments == (s.shoe.commitment,)
    assert view.shoe.cards_left == 52 - 15
    step = ENGINE.apply(s, 1, Fold())
    started = next(e for e in step.events if e.kind == "hand_started")
    assert started.data["coup"] == count(2) and started.data["button"] == who(2)
    down = [e for e in step.events if e.kind == "card_dealt_face_down"]
    assert len(down) == 15 and all(e.about == About.DEALT_DOWN and e.to is None for e in down)
    own = [e for e in step.events if e.kind == "card_dealt"]
    assert len(own) == 15 and all(e.to == (e.player,) and e.data["face_down"] == flag(True)
                                  for e in own)
    proofs = [e for e in step.events if isinstance(e, CardsProven)]
    assert [(e.to, e.coup) for e in proofs] == [((p,), 1) for p in (2, 3, 1)]
    assert all(isinstance(e.record, dict) and all(r.ok for r in check(e.record)) for e in proofs)


# ------------------------------------------------------------------ §0.7, §0.13


def test_rule_0_7_players_timed_out_twice_post_no_ante_the_thrown_in_hand_is_void() -> None:
    # everybody times out: two deals thrown in, then the absent are stood up; no third
    # deal is dealt (antes taken each time, for ever, before): their antes go back
    from bot.view import i18n

    s = seated(ENGINE, [100, 100, 100], [fixed_shoe(draw_order([TT, AK, JJ])),
                                         fixed_shoe(draw_order([AK, JJ, TT]))])
    antes_taken = 0
    events = []
    while ENGINE.awaiting(s):
        step = ENGINE.timeout(s, random.Random(1))
        antes_taken += sum(t.amount for t in step.transfers if t.reason == "ante")
        events += step.events
        s = step.state
    assert antes_taken == 3  # the second deal's antes; the first's came with Start
    assert [e.player for e in events if e.kind == "stood_up"] == [2, 3, 1]
    assert [e.kind for e in events].count("hands_thrown_in") == 2
    void = next(e for e in events if isinstance(e, Settlement))
    assert void.nets == {2: 0, 3: 0, 1: 0} and void.winners == ()
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    assert i18n.event_text("en", void, names) == (
        "Absent, stood up: Bob, Cy, Ann. The hand is void; the antes go back: "
        "Bob 2, Cy 2, Ann 2")
    assert i18n.event_text("ru", void, names) == (
        "Нет за столом, встают: Bob, Cy, Ann. Сдача аннулирована, анте возвращено: "
        "Bob 2, Cy 2, Ann 2")
    assert [(e.player, e.data["stack"]) for e in events if e.kind == "player_left"] == [
        (1, chips(100)), (2, chips(100)), (3, chips(100))]
    assert s.seats == [] and s.kit is None and s.phase == "waiting" and s.pot == 0


def test_rule_0_13_a_seat_with_no_chips_is_stood_up_after_the_hand() -> None:
    # player 3 is all in on his ante of 1 and loses it: he has nothing left to ante
    from bot.view import i18n

    s = seated(ENGINE, [100, 100, 1], [fixed_shoe(draw_order([QQ, AK, TT])),
                                       fixed_shoe(draw_order([JJ, TT]))])
    coup = s.coup
    events = []
    for player, action in ((2, Open()), (1, Fold())):
        step = ENGINE.apply(s, player, action)
        events += step.events
        s = step.state
    while s.coup == coup:
        step = ENGINE.apply(s, ENGINE.awaiting(s)[0], Discard(cards=()))
        events += step.events
        s = step.state
    stood = next(e for e in events if e.kind == "stood_up")
    assert stood.player == 3
    assert i18n.event_text("en", stood, {3: "Cy"}) == "🚪 Cy cannot cover 1 and is stood up"
    assert i18n.event_text("ru", stood, {3: "Cy"}) == (
        "🚪 Cy: фишек меньше, чем 1, — встаёт из-за стола")
    assert [(e.player, e.data["stack"]) for e in events if e.kind == "player_left"] == [
        (3, chips(0))]
    assert [p.player for p in s.seats] == [1, 2] and s.coup == coup + 1

"""Fixed-shoe scenarios, one or more per numbered rule of docs/rules.md §1 (chemin de fer).

Seats: players 1..n sit in that order (clockwise). With player 1 as banker,
the punter to his right is player n, then n-1, ... (counter-clockwise).
Dealing order: punter, banker, punter, banker, then third cards.
"""

from __future__ import annotations

import random

import pytest

from bot.view import results
from games.banking import Bid, Decline, Draw, Pass, Retire, Stake, Stand
from games.cards import Shoe, timeout_cut
from games.chemin_de_fer import ENGINE, banker_hint
from games.chemin_de_fer.model import Banco, Continue, NameBank, State
from games.engine import (
    About,
    Action,
    Cut,
    Event,
    IllegalAction,
    Input,
    Join,
    Leave,
    PlayerId,
    Reason,
    Settlement,
    ShoeRevealed,
    Start,
    cards,
    chips,
    count,
    flag,
    net,
    points,
    row,
    rows,
    signed,
    stake,
    text,
    who,
    word,
)

BURN = ["2c", "3c", "4c"]
PAD = ["Kc"] * 12  # filler so the shoe does not run low during a scenario


def shoe_of(*cards: str, pad: bool = True) -> Shoe:
    """A fixed shoe: the three burned cards, the scenario's cards, filler."""
    return Shoe.fixed([*BURN, *cards, *(PAD if pad else [])])


def act(state: State, player: PlayerId, action: Action,
        events: list[Event] | None = None) -> State:
    """Apply an action, check the chips moved as the accounts say, collect events."""
    step = ENGINE.apply(state, player, action, random.Random(7))
    before, after = ENGINE.accounts(state), ENGINE.accounts(step.state)
    for account, delta in net(step.transfers).items():
        if not account.startswith("wallet:"):
            before[account] = before.get(account, 0) + delta
    assert {k: v for k, v in before.items() if v} == after
    if events is not None:
        events.extend(step.events)
    return step.state


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def first(events: list[Event], kind: str) -> Event:
    return next(e for e in events if e.kind == kind)


def seated(n: int = 4, stack_: int = 1000, **settings: int) -> State:
    state = ENGINE.new_table(dict(settings))
    for p in range(1, n + 1):
        state = act(state, p, Join(name=f"p{p}", buy_in=stack_))
    return state


def staking(shoe: Shoe, n: int = 4, bank: int = 100, stack_: int = 1000,
            events: list[Event] | None = None, **settings: int) -> State:
    """Player 1 wins the auction with ``bank``, player n cuts at 0: staking opens."""
    state = seated(n, stack_, **settings).model_copy(update={"shoe": shoe})
    state = act(state, 1, Start(), events)
    state = act(state, 1, Bid(amount=bank), events)
    for p in range(2, n + 1):
        state = act(state, p, Pass(), events)
    assert state.phase == "cut" and ENGINE.awaiting(state) == [n]
    state = act(state, n, Cut(offset=0), events)
    assert state.phase == "staking"
    return state


def stakes(state: State, *amounts: tuple[PlayerId, int]) -> State:
    for player, amount in amounts:
        state = act(state, player, Stake(amount=amount))
    return state


def stacks(state: State) -> dict[PlayerId, int]:
    return {s.player: s.stack for s in state.seats}


# ------------------------------------------------------------------ §1.1


def test_rule_1_1_bank_auction_highest_bid_wins_earliest_on_ties() -> None:
    events: list[Event] = []
    state = seated(4).model_copy(update={"shoe": shoe_of()})
    state = act(state, 1, Start())
    assert state.phase == "auction" and ENGINE.awaiting(state) == [1, 2, 3, 4]
    state = act(state, 3, Bid(amount=80), events)
    state = act(state, 1, Bid(amount=50), events)
    state = act(state, 2, Bid(amount=80), events)
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 4, Bid(amount=1001))
    assert exc.value.reason == Reason.INSUFFICIENT_CHIPS
    state = act(state, 4, Pass(), events)
    # 3 and 2 both bid 80; 3 bid first
    assert state.banker == 3 and state.bank == 80
    assert stacks(state) == {1: 1000, 2: 1000, 3: 920, 4: 1000}
    assert first(events, "banker_chosen").data == {"player": who(3), "bank": chips(80)}


def test_rule_1_1_auction_timeout_passes_for_everyone_pending_and_no_bid_goes_idle() -> None:
    state = act(seated(3), 1, Start())
    state = act(state, 2, Pass())
    step = ENGINE.timeout(state)
    assert [e.player for e in step.events if e.kind == "timed_out"] == [1, 3]
    assert step.state.phase == "idle" and step.state.banker is None
    assert step.state.version == state.version + 1
    assert "auction_failed" in kinds(step.events)
    assert stacks(step.state) == {1: 1000, 2: 1000, 3: 1000}


# ------------------------------------------------------------------ §1.2


def test_rule_1_2_burn_three_cards_face_up_at_a_new_shoe() -> None:
    events: list[Event] = []
    state = staking(shoe_of("5d", "6d", "7d", "8d"), events=events)
    assert kinds(events).index("shoe_cut") < kinds(events).index("cards_burned")
    burned = first(events, "cards_burned")
    assert burned.to is None and burned.data == {"cards": cards("2c", "3c", "4c")}
    view = ENGINE.view(state, None)
    assert view.facts["burned"] == cards("2c", "3c", "4c")
    assert view.shoe is not None and view.shoe.cards_left == 4 + len(PAD)


def test_rule_1_2_burn_four_cards_when_the_setting_says_so() -> None:
    events: list[Event] = []
    staking(shoe_of("5d", "6d", "7d", "8d"), events=events, burn=4)
    assert first(events, "cards_burned").data == {"cards": cards("2c", "3c", "4c", "5d")}


# ------------------------------------------------------------------ §1.3


def test_rule_1_3_staking_goes_counter_clockwise_from_the_banker_right() -> None:
    state = staking(shoe_of("Kd", "Kh", "5d", "5h"), bank=100)
    assert ENGINE.awaiting(state) == [4]
    state = act(state, 4, Stake(amount=30))
    assert ENGINE.awaiting(state) == [3]
    spec = {s.kind: s for s in ENGINE.legal_actions(state, 3)}
    assert "banco" not in spec  # a stake has been placed
    assert (spec["stake"].min, spec["stake"].max) == (1, 70)
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 3, Stake(amount=71))
    assert exc.value.reason == Reason.EXCEEDS_BANK
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 3, Banco())
    assert exc.value.reason == Reason.BANCO_NOT_ALLOWED
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 2, Stake(amount=10))
    assert exc.value.reason == Reason.NOT_YOUR_TURN
    state = act(state, 3, Pass())
    state = act(state, 2, Stake(amount=70))
    # bank covered: 30 + 70; the deal follows (punters 0+5=5 choose)
    assert state.phase == "punter_draw" and state.playing == 2
    assert ENGINE.accounts(state)[stake(4)] == 30
    assert ENGINE.accounts(state)[stake(2)] == 70


def test_rule_1_3_banco_ends_staking_and_caller_plays_alone() -> None:
    state = staking(shoe_of("Kd", "Kh", "9d", "5h"), bank=100)
    state = act(state, 4, Pass())
    events: list[Event] = []
    state = act(state, 3, Banco(), events)
    assert kinds(events)[:2] == ["banco_called", "cards_dealt"]
    # punters' natural 9 beats banker 5: player 3 alone wins 100
    assert stacks(state)[3] == 1100 and stacks(state)[2] == 1000
    settled = first(events, "coup_settled")
    assert isinstance(settled, Settlement) and settled.coup == 1
    assert settled.data["results"] == rows(row(3, net=signed(100)), row(1, net=signed(-100)))
    assert settled.nets == {3: 100, 1: -100}
    # the shown hands in points, and who banked, for the settlement's headline
    assert settled.hands == {3: points(9), 1: points(5)}
    assert settled.banker == 1
    names = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di"}
    assert results.settlement_text("en", "chemin_de_fer", settled, names, []).splitlines() == [
        "🏆 <b>Cy wins 100 with 9 points</b>", "Chemin de fer · coup #1 settled",
        "Cy +100 · Ann (banker) −100"]
    assert results.headline("ru", settled, names) == "Cy выигрывает 100: 9 очков"


def test_rule_1_3_stake_cannot_exceed_the_punters_stack() -> None:
    state = staking(shoe_of(), bank=100)
    state = state.model_copy(update={"seats": [
        s.model_copy(update={"stack": 40}) if s.player == 4 else s for s in state.seats]})
    spec = {s.kind: s for s in ENGINE.legal_actions(state, 4)}
    assert "banco" not in spec and spec["stake"].max == 40
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 4, Stake(amount=41))
    assert exc.value.reason == Reason.INSUFFICIENT_CHIPS


def test_rule_1_3_nobody_stakes_coup_void_banker_continues_or_retires() -> None:
    state = staking(shoe_of(), bank=100)
    step = ENGINE.timeout(state)  # safe default: pass
    state = step.state
    state = act(state, 3, Pass())
    state = act(state, 2, Pass())
    assert state.phase == "void_choice" and ENGINE.awaiting(state) == [1]
    assert {s.kind for s in ENGINE.legal_actions(state, 1)} == {"leave", "continue", "retire"}
    replay = ENGINE.timeout(state).state  # safe default: continue
    assert replay.phase == "staking" and replay.banker == 1 and replay.bank == 100
    assert replay.coup == state.coup + 1
    retired = act(state, 1, Retire())
    assert retired.phase == "auction" and retired.banker is None
    assert stacks(retired)[1] == 1000


# ------------------------------------------------------------------ §1.4


def test_rule_1_4_deal_order_and_largest_stake_plays_seen_only_by_him() -> None:
    # punters: 2, 4 (=6, stands); banker: K, 7 (=7)
    state = staking(shoe_of("2d", "Kd", "4d", "7h"), bank=100)
    events: list[Event] = []
    state = act(state, 4, Stake(amount=20))
    state = act(state, 3, Stake(amount=40))
    state = act(state, 2, Stake(amount=40), events)
    # 3 and 2 tie at 40; 3 is nearer the banker's right
    assert first(events, "cards_dealt").data == {"playing": who(3), "banker": who(1)}
    seen = [e for e in events if e.kind == "hand_seen"]
    assert [(e.to, e.data["cards"], e.about) for e in seen] == [
        ((3,), cards("2d", "4d"), About.OWN_HAND), ((1,), cards("Kd", "7h"), About.OWN_HAND)]
    assert state.phase == "punter_draw" and ENGINE.awaiting(state) == [3]
    assert ENGINE.view(state, 3).my_cards == ("2d", "4d")
    assert ENGINE.view(state, 1).my_cards == ("Kd", "7h")
    for viewer in (None, 2, 4):
        view = ENGINE.view(state, viewer)
        assert view.my_cards == ()
        # the commitment is hex, where "2d" or "4d" may occur by chance
        assert view.shoe is not None
        shown = view.model_dump_json().replace(view.shoe.commitments[0], "")
        assert not any(c in shown for c in ("2d", "4d", "Kd", "7h"))
    assert {s.player: s.face_down for s in ENGINE.view(state, None).seats} == {
        1: 2, 2: 0, 3: 2, 4: 0}


# ------------------------------------------------------------------ §1.5


def test_rule_1_5_natural_nine_beats_natural_eight() -> None:
    events: list[Event] = []
    state = staking(shoe_of("4d", "5h", "4h", "4s"), bank=100)  # punters 8, banker 9
    state = act(state, 4, Stake(amount=100), events)
    shown = [e for e in events if e.kind == "natural_shown"]
    assert [(e.to, e.data["hand"], e.data["points"], e.about) for e in shown] == [
        (None, word("punters"), points(8), About.SHOWDOWN),
        (None, word("banker"), points(9), About.SHOWDOWN)]
    assert first(events, "coup_settled").data["outcome"] == word("banker")
    assert state.bank == 200 and stacks(state)[4] == 900
    assert "punter_drew" not in kinds(events) and "banker_drew" not in kinds(events)


def test_rule_1_5_equal_naturals_are_a_standoff() -> None:
    events: list[Event] = []
    state = staking(shoe_of("4d", "5h", "5h", "4s"), bank=100)  # 9 and 9
    state = act(state, 4, Stake(amount=60), events)
    state = act(state, 3, Stake(amount=40), events)
    assert first(events, "coup_settled").data["outcome"] == word("standoff")
    assert stacks(state) == {1: 900, 2: 1000, 3: 1000, 4: 1000} and state.bank == 100


# ------------------------------------------------------------------ §1.6


def test_rule_1_6_punter_must_draw_on_0_to_4_face_down() -> None:
    # punters 2+2=4 draw a 3 (=7); banker K+6=6 stands on default
    events: list[Event] = []
    state = staking(shoe_of("2d", "Kd", "2h", "6h", "3s"), bank=100)
    state = act(state, 4, Stake(amount=100), events)
    # docs/rules.md §1.6 Decision: he presses Draw himself, the only button in his DM
    assert state.phase == "punter_draw" and ENGINE.awaiting(state) == [4]
    assert [(s.kind, s.private) for s in ENGINE.legal_actions(state, 4)] == [
        ("leave", False), ("draw", True)]
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 4, Stand())
    assert exc.value.reason == Reason.MUST_DRAW
    state = act(state, 4, Draw(), events)
    drew = first(events, "punter_drew")
    assert drew.to is None and drew.data == {"player": who(4)}
    third = first(events, "card_drawn")
    assert third.to == (4,) and third.data["card"] == cards("3s")
    assert state.phase == "banker_draw"
    assert not any("3s" in str(e.data) for e in events if e.to is None)
    assert "3s" not in ENGINE.view(state, 1).model_dump_json()
    assert ENGINE.view(state, 4).my_cards == ("2d", "2h", "3s")


def test_rule_1_6_punter_must_stand_on_6_or_7() -> None:
    events: list[Event] = []
    state = staking(shoe_of("3d", "Kd", "4h", "2h"), bank=100)  # punters 7
    state = act(state, 4, Stake(amount=100), events)
    assert "punter_stood" not in kinds(events)  # nothing tells the banker his band yet
    assert [(s.kind, s.private) for s in ENGINE.legal_actions(state, 4)] == [
        ("leave", False), ("stand", True)]
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 4, Draw())
    assert exc.value.reason == Reason.MUST_STAND
    state = act(state, 4, Stand(), events)
    assert first(events, "punter_stood").data == {"player": who(4)}
    assert state.phase == "banker_draw"
    assert {s.kind for s in ENGINE.legal_actions(state, 4)} == {"leave"}


def test_rule_1_6_punter_chooses_on_5_and_stands_by_default() -> None:
    state = staking(shoe_of("2d", "Kd", "3h", "6h", "9s"), bank=100)  # punters 5
    state = act(state, 4, Stake(amount=100))
    assert state.phase == "punter_draw" and ENGINE.awaiting(state) == [4]
    assert [(s.kind, s.private) for s in ENGINE.legal_actions(state, 4)] == [
        ("leave", False), ("draw", True), ("stand", True)]
    stood = ENGINE.timeout(state)
    assert first(stood.events, "punter_stood").data == {"player": who(4)}
    assert stood.state.phase == "banker_draw" and len(stood.state.punter_cards) == 2
    drawn = act(state, 4, Draw())
    assert drawn.punter_cards == ["2d", "3h", "9s"]


def test_rule_1_6_decision_the_punters_band_never_shows_before_he_decides() -> None:
    """On 3, 5 and 7 the group and the banker see the same table, the same events and the
    same keyboard until the punter presses; a timeout reads the same too."""
    seen = []
    for punters in (("2d", "Ah"), ("2d", "3h"), ("3d", "4h")):  # 3, 5, 7 points
        events: list[Event] = []
        state = staking(shoe_of(punters[0], "Kd", punters[1], "6h", "9s"), bank=100)
        state = act(state, 4, Stake(amount=100), events)
        public_events = [(e.kind, e.data) for e in events if e.to is None]
        # (the shoe's commitment differs with its cards: a hash, not a card)
        banker = ENGINE.view(state, 1).model_dump(exclude={"shoe": {"commitments"}})
        group = ENGINE.view(state, None).model_dump(exclude={"shoe": {"commitments"}})
        keyboard = {p: [(s.kind, s.private) for s in ENGINE.legal_actions(state, p)]
                    for p in (1, 2, 3)}
        timed_out = first(ENGINE.timeout(state).events, "timed_out")
        seen.append((public_events, banker, group, keyboard, ENGINE.awaiting(state),
                     timed_out.to, sorted(timed_out.data)))
    assert seen[0] == seen[1] == seen[2]


# ------------------------------------------------------------------ §1.7


def test_rule_1_7_banker_chooses_freely_and_never_holds_more_than_three() -> None:
    # punters 7 stand; banker 3: he may stand against the tableau
    events: list[Event] = []
    state = staking(shoe_of("3d", "Kd", "4h", "3h"), bank=100)
    state = act(act(state, 4, Stake(amount=100)), 4, Stand())
    assert banker_hint(state) == "draw"
    state = act(state, 1, Stand(), events)
    assert first(events, "hands_shown").data["banker_points"] == points(3)
    assert first(events, "hands_shown").about == About.SHOWDOWN
    assert first(events, "coup_settled").data["outcome"] == word("punters")
    assert first(events, "hands_shown").data["banker"] == cards("Kd", "3h")
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 1, Draw())
    assert exc.value.reason in (Reason.WRONG_PHASE, Reason.NOT_YOUR_TURN)


def test_rule_1_7_tableau_hint_is_shown_to_the_banker_alone() -> None:
    # punters 2+2=4 draw face down; banker K+4=4: the hint for an unseen card is "stand"
    state = act(staking(shoe_of("2d", "Kd", "2h", "4h", "3s"), bank=100), 4, Stake(amount=100))
    assert banker_hint(state) is None  # not before the punter has decided
    state = act(state, 4, Draw())
    assert state.phase == "banker_draw"
    assert ENGINE.view(state, 1).my_facts == {"hint": word("stand"), "points": points(4)}
    assert ENGINE.view(state, 4).my_facts == {"points": points(7)}
    assert ENGINE.view(state, None).my_facts == {} and ENGINE.view(state, 2).my_facts == {}
    # punters 7 stand; banker 3: the classic table says draw
    stood = act(staking(shoe_of("3d", "Kd", "4h", "3h"), bank=100), 4, Stake(amount=100))
    stood = act(stood, 4, Stand())
    assert ENGINE.view(stood, 1).my_facts == {"hint": word("draw"), "points": points(3)}


def test_rule_1_7_banker_timeout_draws_on_5_and_stands_on_6() -> None:
    on5 = staking(shoe_of("3d", "Kd", "4h", "5h", "4s"), bank=100)  # punters 7, banker 5
    step = ENGINE.timeout(act(act(on5, 4, Stake(amount=100)), 4, Stand()))
    assert "banker_drew" in kinds(step.events)
    assert first(step.events, "hands_shown").data["banker"] == cards("Kd", "5h", "4s")
    on6 = staking(shoe_of("3d", "Kd", "4h", "6h", "4s"), bank=100)  # punters 7, banker 6
    step = ENGINE.timeout(act(act(on6, 4, Stake(amount=100)), 4, Stand()))
    assert "banker_stood" in kinds(step.events)
    assert first(step.events, "hands_shown").data["banker"] == cards("Kd", "6h")


# ------------------------------------------------------------------ §1.8


def test_rule_1_8_banker_wins_takes_every_stake_and_stays() -> None:
    events: list[Event] = []
    state = staking(shoe_of("Kd", "9h", "7h", "Kh"), bank=100)  # punters 7 vs banker natural 9
    state = stakes(state, (4, 30), (3, 50))
    state = act(state, 2, Stake(amount=20), events)
    settled = first(events, "coup_settled")
    assert settled.data["results"] == rows(
        row(2, net=signed(-20)), row(3, net=signed(-50)), row(4, net=signed(-30)),
        row(1, net=signed(100)))
    assert isinstance(settled, Settlement) and settled.banker == 1
    assert settled.nets == {2: -20, 3: -50, 4: -30, 1: 100}
    assert state.banker == 1 and state.bank == 200 and state.phase == "staking"
    assert stacks(state) == {1: 900, 2: 980, 3: 950, 4: 970}


def test_rule_1_8_punters_win_paid_even_and_bank_passes_right() -> None:
    events: list[Event] = []
    state = staking(shoe_of("9d", "Kd", "Kh", "7h"), bank=100)  # punters natural 9
    state = stakes(state, (4, 30), (3, 50))
    state = act(state, 2, Pass(), events)
    # 4 and 3 paid even; the banker takes back the 20 left; bank offered to 4
    assert stacks(state) == {1: 920, 2: 1000, 3: 1050, 4: 1030}
    assert state.bank == 0 and state.banker is None
    assert state.phase == "bank_offer" and ENGINE.awaiting(state) == [4]
    state = act(state, 4, Decline())
    assert ENGINE.awaiting(state) == [3]
    state = act(state, 3, NameBank(amount=250))
    assert state.banker == 3 and state.bank == 250 and stacks(state)[3] == 800
    # no auction; the new banker's right is player 2
    assert state.phase == "staking" and ENGINE.awaiting(state) == [2]


def test_rule_1_8_bank_refused_by_all_goes_to_a_new_auction() -> None:
    state = staking(shoe_of("9d", "Kd", "Kh", "7h"), bank=100)
    state = stakes(state, (4, 100))
    for player in (4, 3, 2):
        state = act(state, player, Decline())
    assert state.phase == "auction" and ENGINE.awaiting(state) == [1, 2, 3, 4]


def test_rule_1_8_standoff_returns_stakes_and_replays_with_new_stakes() -> None:
    events: list[Event] = []
    state = staking(shoe_of("3d", "4d", "4h", "3h"), bank=100)  # 7 v 7, banker stands
    coup = state.coup
    state = act(stakes(state, (4, 60), (3, 40)), 4, Stand())
    state = act(state, 1, Stand(), events)
    assert first(events, "coup_settled").data["outcome"] == word("standoff")
    assert stacks(state) == {1: 900, 2: 1000, 3: 1000, 4: 1000}
    assert state.phase == "staking" and state.banker == 1 and state.bank == 100
    assert state.coup == coup + 1 and ENGINE.awaiting(state) == [4]


def feats_of(events: list[Event]) -> dict[PlayerId, tuple[str, ...]]:
    """The feats the coup's settlement counts."""
    settled = first(events, "coup_settled")
    assert isinstance(settled, Settlement)
    return settled.feats


def test_rules_1_3_and_1_5_a_banco_won_on_a_natural_counts_for_the_caller() -> None:
    events: list[Event] = []
    state = act(staking(shoe_of("Kd", "Kh", "9d", "5h"), bank=100), 4, Pass())
    act(state, 3, Banco(), events)  # punters K 9 (a natural 9), banker K 5
    assert feats_of(events) == {3: ("natural", "banco", "banco_won", "banco_natural")}


def test_rules_1_3_and_1_5_a_banco_won_on_a_natural_eight_is_no_banco_natural() -> None:
    events: list[Event] = []
    state = act(staking(shoe_of("Kd", "Kh", "8d", "5h"), bank=100), 4, Pass())
    act(state, 3, Banco(), events)  # punters K 8 (a natural 8), banker K 5
    assert feats_of(events) == {3: ("natural", "banco", "banco_won")}


def test_rules_1_3_and_1_6_a_banco_won_with_nine_on_three_cards_is_no_banco_natural() -> None:
    events: list[Event] = []
    # punters 2 2 (4) draw a 5: 9 on three cards; banker K 6 stands on 6
    state = act(staking(shoe_of("2d", "Kd", "2h", "6h", "5s"), bank=100), 4, Pass())
    state = act(act(state, 3, Banco()), 3, Draw())
    act(state, 1, Stand(), events)
    assert first(events, "coup_settled").data["outcome"] == word("punters")
    assert feats_of(events) == {3: ("banco", "banco_won")}


def test_rules_1_3_and_1_5_a_first_stake_of_the_whole_bank_is_a_banco_lost_to_a_natural(
        ) -> None:
    events: list[Event] = []
    # punters 4 4 (a natural 8), banker 5 4 (a natural 9): both naturals count
    act(staking(shoe_of("4d", "5h", "4h", "4s"), bank=100), 4, Stake(amount=100), events)
    assert feats_of(events) == {4: ("natural", "banco"), 1: ("natural",)}


def test_rule_1_5_the_punters_natural_counts_for_the_playing_punter_alone() -> None:
    events: list[Event] = []
    state = staking(shoe_of("9d", "Kd", "Kh", "7h"), bank=100)  # punters natural 9
    act(stakes(state, (4, 30), (3, 50)), 2, Pass(), events)
    assert feats_of(events) == {3: ("natural",)}


def test_rule_1_5_nine_on_three_cards_is_no_natural() -> None:
    events: list[Event] = []
    # punters 2 2 (4) draw a 9: 3; banker K 6 (6) draws a 3: 9 on three cards
    state = staking(shoe_of("2d", "Kd", "2h", "6h", "9s", "3c"), bank=100)
    state = act(stakes(state, (4, 60), (3, 40)), 4, Draw())
    act(state, 1, Draw(), events)
    assert first(events, "coup_settled").data["outcome"] == word("banker")
    assert feats_of(events) == {}


# ------------------------------------------------------------------ §1.9


def test_rule_1_9_banker_retires_between_coups_with_the_bank() -> None:
    state = staking(shoe_of("Kd", "9h", "7h", "Kh"), bank=100)
    state = stakes(state, (4, 100))  # banker wins: bank 200
    assert state.bank == 200 and state.phase == "staking"
    assert "retire" in {s.kind for s in ENGINE.legal_actions(state, 1)}
    events: list[Event] = []
    state = act(state, 1, Retire(), events)
    assert first(events, "banker_retired").data == {"player": who(1), "amount": chips(200)}
    assert stacks(state)[1] == 1100 and state.bank == 0
    assert state.phase == "auction"


def test_rule_1_9_no_retiring_once_a_stake_is_placed() -> None:
    state = stakes(staking(shoe_of(), bank=100), (4, 10))
    assert "retire" not in {s.kind for s in ENGINE.legal_actions(state, 1)}
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 1, Retire())
    assert exc.value.reason == Reason.WRONG_PHASE


def test_rule_1_9_banker_leaving_mid_coup_retires_after_it() -> None:
    state = stakes(staking(shoe_of("3d", "Kd", "4h", "6h"), bank=100), (4, 50))
    state = act(act(act(state, 3, Pass()), 2, Pass()), 4, Stand())
    assert state.phase == "banker_draw"
    state = act(state, 1, Leave())  # punters 7 v banker 6: he must wait for the coup
    assert state.banker == 1 and state.seats[0].leaving
    events: list[Event] = []
    state = act(state, 1, Stand(), events)
    # punters won 50; he takes back 50 of the bank; bank offered to 4; he is gone
    assert [s.player for s in state.seats] == [2, 3, 4]
    assert first(events, "player_left").data == {"player": who(1), "stack": chips(950)}
    assert state.phase == "bank_offer" and ENGINE.awaiting(state) == [4]


# ----------------------------------------------------------------- §1.10


def test_rule_1_10_short_shoe_is_revealed_and_replaced_committed_cut_burned() -> None:
    # after the coup only 4 cards remain: the next coup needs a new shoe
    short = shoe_of("Kd", "9h", "7h", "Kh", "2s", "3s", "4s", "5s", pad=False)
    state = staking(short, bank=100)
    events: list[Event] = []
    state = act(state, 4, Stake(amount=100), events)
    revealed = first(events, "shoe_revealed")
    assert isinstance(revealed, ShoeRevealed) and revealed.whole
    assert revealed.record["order"] == short.order and revealed.record["salt"] == "test"
    committed = first(events, "shoe_committed")
    assert state.shoe is not None
    assert committed.data["commitment"] == text(state.shoe.commitment)
    assert len(state.shoe.order) == 6 * 52
    assert state.phase == "cut" and ENGINE.awaiting(state) == [4]
    assert first(events, "cut_requested").about == About.TURN
    view = ENGINE.view(state, None)
    assert view.shoe is not None and view.shoe.commitments == (state.shoe.commitment,)
    step = ENGINE.timeout(state)  # safe default: the timeout cut of docs/rules.md §0.4
    cut = timeout_cut(state.shoe.commitment, [x.player for x in state.seats], state.coup, 312)
    assert first(step.events, "shoe_cut").data == {
        "player": who(4), "offset": count(cut), "auto": flag(True)}
    assert first(step.events, "cards_burned").data["cards"] == cards(
        *(state.shoe.order * 2)[cut:cut + 3])
    assert step.state.phase == "staking"


def test_rule_0_4_the_cut_is_a_depth_within_the_shoe_never_wrapped() -> None:
    """Legal actions promise exactly the cuts apply accepts: 0 .. size - 1."""
    shoe = shoe_of("Kd", "9h", "7h", "Kh")
    state = seated(4).model_copy(update={"shoe": shoe})
    state = act(state, 1, Start())
    state = act(state, 1, Bid(amount=100))
    for p in (2, 3, 4):
        state = act(state, p, Pass())
    assert state.phase == "cut" and ENGINE.awaiting(state) == [4]
    size = len(shoe.order)
    (spec,) = [s for s in ENGINE.legal_actions(state, 4) if s.kind == "cut"]
    assert (spec.input, spec.min, spec.max) == (Input.AMOUNT, 0, size - 1)
    for offset in (size, size + 1, 312):
        with pytest.raises(IllegalAction) as exc:
            ENGINE.apply(state, 4, Cut(offset=offset))
        assert exc.value.reason == Reason.AMOUNT_OUT_OF_RANGE
    events: list[Event] = []
    deepest = act(state, 4, Cut(offset=size - 1), events)
    assert deepest.shoe is not None and deepest.shoe.cut == size - 1
    assert first(events, "shoe_cut").data["offset"] == count(size - 1)


def test_a_new_312_card_shoe_refuses_a_cut_at_312() -> None:
    short = shoe_of("Kd", "9h", "7h", "Kh", "2s", "3s", "4s", "5s", pad=False)
    state = act(staking(short, bank=100), 4, Stake(amount=100))
    assert state.phase == "cut" and state.shoe is not None and len(state.shoe.order) == 312
    with pytest.raises(IllegalAction) as exc:
        ENGINE.apply(state, 4, Cut(offset=312))
    assert exc.value.reason == Reason.AMOUNT_OUT_OF_RANGE
    assert act(state, 4, Cut(offset=311)).phase == "staking"


def test_specs_say_what_they_ask_and_facts_hold_only_what_the_table_shows() -> None:
    state = seated(3)
    assert [(s.kind, s.input) for s in ENGINE.legal_actions(state, 1)] == [
        ("leave", Input.UTILITY), ("start", Input.PLAIN)]
    assert [(s.kind, s.input) for s in ENGINE.legal_actions(state, 9)] == [
        ("join", Input.UTILITY)]
    state = act(state, 1, Start())
    assert {s.kind: s.input for s in ENGINE.legal_actions(state, 2)} == {
        "leave": Input.UTILITY, "bid": Input.AMOUNT, "pass": Input.PLAIN}
    state = act(state, 2, Bid(amount=30))
    # the bids so far; no settings, no shoe hash, nothing empty
    assert ENGINE.view(state, None).facts == {"bids": rows(row(2, amount=chips(30)))}
    state = staking(shoe_of("9d", "Kd", "Kh", "7h"), bank=100)
    assert {s.kind: s.input for s in ENGINE.legal_actions(state, 4)} == {
        "leave": Input.UTILITY, "banco": Input.PLAIN, "stake": Input.AMOUNT,
        "pass": Input.PLAIN}
    view = ENGINE.view(state, None)
    assert view.facts == {"uncovered": chips(100), "burned": cards(*BURN)}
    assert view.shoe is not None and view.shoe.cut == 0 and view.shoe.cutter == 4
    state = act(state, 4, Stake(amount=30))
    assert ENGINE.view(state, None).facts == {
        "staked": chips(30), "uncovered": chips(70), "burned": cards(*BURN)}
    # punters natural 9 win: the bank is offered to 4, and the last coup is no fact
    state = act(state, 3, Stake(amount=70))
    assert state.phase == "bank_offer"
    assert ENGINE.view(state, None).facts == {"offered_to": who(4), "burned": cards(*BURN)}
    assert {s.kind: s.input for s in ENGINE.legal_actions(state, 4)} == {
        "leave": Input.UTILITY, "name_bank": Input.AMOUNT, "decline": Input.PLAIN}


# --------------------------------------------------------------- §0 timeouts


def test_two_timeouts_in_a_row_stand_a_player_up_after_the_coup() -> None:
    state = staking(shoe_of("3d", "Kd", "4h", "6h", *["Kc"] * 6), bank=100)
    state = ENGINE.timeout(state).state  # 4 passes (1st)
    state = act(act(state, 3, Stake(amount=100)), 3, Stand())
    state = ENGINE.timeout(state).state  # banker stands on 6 (1st); punters won
    state = act(state, 4, NameBank(amount=50))  # 4 acted: his count is back to 0
    assert {s.player: s.timeouts for s in state.seats} == {1: 1, 2: 0, 3: 0, 4: 0}
    assert ENGINE.awaiting(state) == [3]
    state = ENGINE.timeout(state).state  # 3 passes (1st)
    step = ENGINE.timeout(state)  # 2 passes (1st), 1 (banker earlier) now awaited
    state = step.state
    assert ENGINE.awaiting(state) == [1]
    step = ENGINE.timeout(state)  # 1's second timeout in a row
    assert first(step.events, "stood_up").data == {"player": who(1)}
    state = step.state
    assert state.phase == "void_choice" and state.seats[0].leaving
    events: list[Event] = []
    state = act(state, 4, Continue(), events)
    assert first(events, "player_left").data == {"player": who(1), "stack": chips(900)}
    assert [s.player for s in state.seats] == [2, 3, 4] and state.banker == 4


# ------------------------------------------------------------------ §0.12


def test_rule_0_12_closing_mid_coup_voids_it_stakes_back_bank_to_its_banker() -> None:
    dealt = ["5h", "6d", "Kd", "Qd"]  # punters 5 (they choose), banker 6
    state = stakes(staking(shoe_of(*dealt), n=3, bank=100), (3, 30), (2, 20))
    assert state.phase == "punter_draw" and state.bank == 100
    step = ENGINE.close(state)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("bank", "wallet:1", 100), ("stack:1", "wallet:1", 900),
        ("stack:2", "wallet:2", 980), ("stack:3", "wallet:3", 970),
        ("stake:2", "wallet:2", 20), ("stake:3", "wallet:3", 30)]
    assert kinds(step.events) == ["table_closed", "shoe_revealed"]
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(
        row(1, amount=chips(1000)), row(2, amount=chips(1000)), row(3, amount=chips(1000)))}
    revealed = step.events[1]
    assert isinstance(revealed, ShoeRevealed)
    assert revealed.record["order"] == [*BURN, *dealt, *PAD]
    assert step.state.seats == [] and step.state.phase == "idle"


# ------------------------------------------------------------------ §0.13


def test_rule_0_13_punters_who_cannot_stake_the_minimum_are_stood_up_instead_of_void_coups(
        ) -> None:
    # every punter at 0 chips: each coup would be void, and the banker's safe default (go on)
    # started the next, for ever; they are stood up with a line saying why, and the table
    # waits for players with the bank back in the banker's stack
    from bot.view import i18n

    state = ENGINE.new_table({"min_stake": 5}).model_copy(update={"shoe": shoe_of()})
    for p, buy_in in ((1, 1000), (2, 4), (3, 0)):
        state = act(state, p, Join(name=f"p{p}", buy_in=buy_in))
    state = act(state, 1, Start())
    state = act(state, 1, Bid(amount=100))
    state = act(state, 2, Pass())
    events: list[Event] = []
    state = act(state, 3, Pass(), events)
    stood = [e for e in events if e.kind == "stood_up"]
    assert [e.player for e in stood] == [2, 3]
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    assert [i18n.event_text("en", e, names) for e in stood] == [
        "🚪 Bob cannot cover 5 and is stood up", "🚪 Cy cannot cover 5 and is stood up"]
    assert i18n.event_text("ru", stood[0], names) == (
        "🚪 Bob: фишек меньше, чем 5, — встаёт из-за стола")
    assert "coup_void" not in kinds(events)
    assert state.phase == "idle" and state.coup == 0 and ENGINE.awaiting(state) == []
    assert stacks(state) == {1: 1000}
    assert [e.data["stack"] for e in events if e.kind == "player_left"] == [chips(4), chips(0)]

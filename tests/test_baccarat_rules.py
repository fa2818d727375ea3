"""Fixed-shoe scenarios, one or more per numbered rule of docs/rules.md §2 (old Russian baccarat).

Table: players 1..4 sit in that order (clockwise); player 1 wins the bank
with 600 chips (stack 1000 -> 400), players 2, 3, 4 keep 1000 each.
With the banker at seat 0:

* first dealing round (clockwise): 2, 3, 4, then the banker 1;
* second round (counter-clockwise): 4, 3, 2, then the banker 1;
* third cards: first to the banker's right (4), first to his left (2),
  second to the right (3);
* the cutter is the punter to the banker's right: player 4.

Cards: ``9h`` is 9 points, ``Ks``/``Tc`` 0, ``Ad`` 1.
"""

from __future__ import annotations

import random

import pytest

from games.baccarat import ENGINE
from games.baccarat.model import (
    AUCTION,
    BANKER_DRAW,
    CUT,
    DECLARING,
    DRAWING,
    IDLE,
    POST_BANK,
    STAKING,
    BaccaratState,
    DeclareBaccara,
    PostBank,
)
from games.banking import Bid, Draw, Pass, Retire, Stake, Stand
from games.cards import Shoe
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
    Rows,
    Settlement,
    ShoeRevealed,
    Start,
    Transfer,
    cards,
    chips,
    count,
    flag,
    net,
    points,
    row,
    rows,
    signed,
    text,
    who,
    word,
)

PAD = ["Tc"] * 40  # zero-point filler so a scenario never runs the shoe low
RNG = random.Random(5)


class Play:
    """A table driven step by step; checks chips after every step and keeps the events."""

    def __init__(self, state: BaccaratState) -> None:
        self.state = state
        self.events: list[Event] = []

    def __call__(self, player: PlayerId, action: Action) -> Play:
        step = ENGINE.apply(self.state, player, action, RNG)
        self._check(step.state, step.transfers)
        self.events += step.events
        return self

    def timeout(self) -> Play:
        step = ENGINE.timeout(self.state, RNG)
        self._check(step.state, step.transfers)
        self.events += step.events
        return self

    def _check(self, after: BaccaratState, transfers: list[Transfer]) -> None:
        before = ENGINE.accounts(self.state)
        for account, delta in net(transfers).items():
            if not account.startswith("wallet:"):
                before[account] = before.get(account, 0) + delta
        assert {k: v for k, v in before.items() if v} == ENGINE.accounts(after)
        assert after.version == self.state.version + 1
        self.state = after

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def find(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def stacks(self) -> dict[PlayerId, int]:
        return {s.player: s.stack for s in self.state.seats}

    def settled(self) -> Settlement:
        (settled,) = self.find("coup_settled")
        assert isinstance(settled, Settlement)
        return settled

    def nets(self) -> dict[PlayerId, int]:
        """The punters' nets; the banker's (in the same ``nets``) is minus their sum, and
        each punter's line of ``results`` says the same, but a baccara declarer's: his
        stake came back when he declared, he has no line and his net is 0."""
        settled = self.settled()
        assert settled.banker == 1
        punters = {p: n for p, n in settled.nets.items() if p != settled.banker}
        assert settled.nets[settled.banker] == -sum(punters.values())
        assert settled.data["banker_net"] == signed(-sum(punters.values()))
        results = settled.data["results"]
        assert isinstance(results, Rows)
        declared = {p for p, feats in settled.feats.items() if "baccara" in feats}
        assert {p: punters[p] for p in declared} == dict.fromkeys(declared, 0)
        assert {r.player: r.fields["net"] for r in results.rows} == \
            {p: signed(n) for p, n in punters.items() if p not in declared}
        return punters


def auctioned(players: int = 4, bank: int = 600) -> Play:
    """Players 1..n seated with 1000 each; player 1 won the bank; the shoe waits for the cut."""
    play = Play(ENGINE.new_table({}))
    for p in range(1, players + 1):
        play(p, Join(name=f"P{p}", buy_in=1000))
    play(1, Start())(1, Bid(amount=bank))
    for p in range(2, players + 1):
        play(p, Pass())
    return play


def dealt_shoe(hands: dict[PlayerId, tuple[str, str]], *rest: str) -> list[str]:
    """The shoe order that deals ``hands`` (banker 1 at seat 0 of 4), then ``rest``."""
    punters = [p for p in (2, 3, 4) if p in hands]
    first = [*punters, 1]                  # clockwise from the banker's left, banker last
    second = [*reversed(punters), 1]       # counter-clockwise from his right, banker last
    return [hands[p][0] for p in first] + [hands[p][1] for p in second] + list(rest)


def coup(hands: dict[PlayerId, tuple[str, str]], *rest: str, bank: int = 600,
         stakes: dict[PlayerId, int] | None = None, pad: bool = True,
         declaring: bool = False) -> Play:
    """A table in its first coup with a fixed shoe, after the cut and the stakes, and
    (unless ``declaring``) after every punter passed on declaring baccara (§2.6)."""
    play = auctioned(bank=bank)
    cards = dealt_shoe(hands, *rest) + (PAD if pad else [])
    play.state = play.state.model_copy(update={"shoe": Shoe.fixed(cards, decks=2)})
    play(4, Cut(offset=0))
    for p in (2, 3, 4):
        amount = (stakes or {}).get(p, 100 if p in hands else 0)
        play(p, Stake(amount=amount) if amount else Pass())
    while not declaring and play.state.phase == DECLARING:
        play(ENGINE.awaiting(play.state)[0], Pass())
    return play


# ---------------------------------------------------------------- §2.1 auction


def test_rule_2_1_highest_bid_wins_earliest_on_ties_and_moves_into_the_bank() -> None:
    play = Play(ENGINE.new_table({}))
    for p in (1, 2, 3, 4):
        play(p, Join(name=f"P{p}", buy_in=1000))
    play(2, Start())(3, Bid(amount=500))(2, Bid(amount=700))(4, Bid(amount=700))
    assert play.state.phase == AUCTION and ENGINE.awaiting(play.state) == [1]
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 1, Bid(amount=1001))
    assert err.value.reason is Reason.INSUFFICIENT_CHIPS
    play.timeout()  # player 1's safe default: pass
    assert play.state.banker == 2 and play.state.bank == 700
    assert play.stacks() == {1: 1000, 2: 300, 3: 1000, 4: 1000}
    assert play.find("bank_won")[0].data == {"player": who(2), "amount": chips(700)}


def test_rule_2_1_nobody_bids_leaves_the_table_idle() -> None:
    play = Play(ENGINE.new_table({}))
    for p in (1, 2, 3):
        play(p, Join(name=f"P{p}", buy_in=1000))
    play(1, Start()).timeout()
    assert play.state.phase == IDLE and play.state.banker is None
    assert "auction_failed" in play.kinds()


def test_rule_2_1_the_bank_covers_every_stake_twice() -> None:
    play = auctioned(bank=600)
    play(4, Cut(offset=0))(2, Stake(amount=200))
    assert [(s.kind, s.min, s.max) for s in ENGINE.legal_actions(play.state, 3)][1] == \
        ("stake", 1, 100)
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 3, Stake(amount=101))
    assert err.value.reason is Reason.EXCEEDS_BANK
    play(3, Stake(amount=100))  # 2 × (200 + 100) = 600 ≤ 600
    assert [s.kind for s in ENGINE.legal_actions(play.state, 4)] == ["leave", "pass"]
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 4, Stake(amount=1))
    assert err.value.reason is Reason.EXCEEDS_BANK


# -------------------------------------------------------------------- §2.2 cut


def test_rule_2_2_banker_shuffles_and_the_punter_to_his_right_cuts() -> None:
    play = auctioned()
    (committed,) = play.find("shoe_committed")
    assert play.state.phase == CUT and ENGINE.awaiting(play.state) == [4]
    assert play.state.shoe is not None
    assert committed.data["commitment"] == text(play.state.shoe.commitment)
    shoe = ENGINE.view(play.state, None).shoe
    assert shoe is not None and text(shoe.commitments[0]) == committed.data["commitment"]
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 2, Cut(offset=3))
    assert err.value.reason is Reason.NOT_YOUR_TURN
    order = play.state.shoe.order
    play(4, Cut(offset=6))
    assert play.state.shoe.cut == 6
    assert play.state.shoe.peek(2) == order[6:8]
    assert play.state.phase == STAKING
    assert play.find("shoe_cut")[0].data == {"player": who(4), "cut": count(6)}


def test_rule_0_4_the_cut_is_any_depth_of_the_shoe_and_none_beyond() -> None:
    play = auctioned()
    (spec,) = [s for s in ENGINE.legal_actions(play.state, 4) if s.kind == "cut"]
    assert (spec.input, spec.min, spec.max) == (Input.AMOUNT, 0, 103)
    for offset in (104, 110, 312):  # it used to wrap round the shoe: 110 was a cut at 6
        before = play.state.model_dump_json()
        with pytest.raises(IllegalAction) as err:
            ENGINE.apply(play.state, 4, Cut(offset=offset))
        assert err.value.reason is Reason.AMOUNT_OUT_OF_RANGE
        assert play.state.model_dump_json() == before
    play(4, Cut(offset=103))
    assert play.state.shoe.cut == 103  # type: ignore[union-attr]
    assert play.state.phase == STAKING


def test_rule_2_2_a_newcomer_does_not_take_the_cut_and_a_leaving_cutter_passes_it() -> None:
    play = auctioned()
    play(5, Join(name="P5", buy_in=1000))  # sits after player 4, i.e. to the banker's right
    assert ENGINE.awaiting(play.state) == [4]
    play(4, Leave())
    assert ENGINE.awaiting(play.state) == [5] and play.state.phase == CUT
    assert play.stacks() == {1: 400, 2: 1000, 3: 1000, 5: 1000}


# ----------------------------------------------------------------- §2.3 stakes


def test_rule_2_3_a_punter_who_does_not_stake_in_time_sits_out() -> None:
    play = auctioned()
    cards = dealt_shoe({1: ("Tc", "Tc"), 2: ("2c", "3c"), 3: ("2d", "3d")}) + PAD
    play.state = play.state.model_copy(update={"shoe": Shoe.fixed(cards, decks=2)})
    play(4, Cut(offset=0))(2, Stake(amount=100))(3, Stake(amount=100))
    assert play.state.phase == STAKING and ENGINE.awaiting(play.state) == [4]
    play.timeout()
    assert play.find("sat_out")[0].data == {"player": who(4)}
    assert play.state.phase == DECLARING and ENGINE.awaiting(play.state) == [2, 3]
    seats = {s.player: s for s in play.state.seats}
    assert seats[4].cards == [] and seats[4].stack == 1000
    assert seats[2].cards == ["2c", "3c"] and seats[1].cards == ["Tc", "Tc"]


# ------------------------------------------------------------------- §2.4 deal


def test_rule_2_4_two_rounds_clockwise_then_counter_clockwise_banker_last() -> None:
    order = ["2c", "3c", "4c", "5c", "2d", "3d", "4d", "5d", *PAD]
    play = auctioned()
    play.state = play.state.model_copy(update={"shoe": Shoe.fixed(order, decks=2)})
    play(4, Cut(offset=0))(2, Stake(amount=100))(3, Stake(amount=100))(4, Stake(amount=100))
    (dealt,) = play.find("cards_dealt")
    assert dealt.data == {"first_round": who(2, 3, 4, 1), "second_round": who(4, 3, 2, 1)}
    # first round 2c 3c 4c 5c to 2, 3, 4, 1; second round 2d 3d 4d 5d to 4, 3, 2, 1
    expected = {2: ("2c", "4d"), 3: ("3c", "3d"), 4: ("4c", "2d"), 1: ("5c", "5d")}
    for p, hand in expected.items():
        assert ENGINE.view(play.state, p).my_cards == hand
    received = {e.to: (e.about, e.data["cards"]) for e in play.find("cards_received")}
    assert received == {(p,): (About.OWN_HAND, cards(*c)) for p, c in expected.items()}
    public = ENGINE.view(play.state, None)
    assert public.my_cards == () and all(s.face_up == () for s in public.seats)
    assert [s.face_down for s in public.seats] == [2, 2, 2, 2]


# --------------------------------------------------------------- §2.5 naturals


def test_rule_2_5_banker_best_natural_takes_all_stakes_and_wins_ties() -> None:
    play = coup({1: ("9h", "Ks"), 2: ("9d", "Kh"), 3: ("8c", "Kd"), 4: ("3c", "Kc")})
    assert [e.data["player"] for e in play.find("natural_shown")] == [who(2), who(3), who(1)]
    assert play.find("natural_shown")[0].data["cards"] == cards("9d", "Kh")
    assert play.find("natural_shown")[0].data["points"] == points(9)
    assert {e.about for e in play.find("natural_shown")} == {About.SHOWDOWN}
    assert play.nets() == {2: -100, 3: -100, 4: -100}
    # the banker took every stake of three punters: a sweep
    assert play.settled().feats == {2: ("natural",), 3: ("natural",), 1: ("natural", "sweep")}
    assert play.state.bank == 900
    assert "third_card_dealt" not in play.kinds() and play.state.phase == STAKING
    assert play.state.coup == 2


def test_rule_2_8_a_banker_who_takes_every_stake_of_two_punters_or_more_counts_a_sweep(
        ) -> None:
    # no naturals: 2 (5) and 3 (4) stand; the banker's 7 beats both
    play = coup({1: ("7h", "Ks"), 2: ("5c", "Kc"), 3: ("4d", "Kd")})
    play(3, Stand())(2, Stand())(1, Stand())
    assert play.nets() == {2: -100, 3: -100}
    assert play.settled().feats == {1: ("sweep",)}


def test_rule_2_8_one_stake_taken_or_one_punter_paid_is_no_sweep() -> None:
    alone = coup({1: ("7h", "Ks"), 2: ("5c", "Kc")})
    alone(2, Stand())(1, Stand())
    assert alone.nets() == {2: -100} and alone.settled().feats == {}
    # 3's 7 beats the banker's 6 (paid double); 2's 5 loses
    paid = coup({1: ("6h", "Ks"), 2: ("5c", "Kc"), 3: ("7d", "Kd")})
    paid(3, Stand())(2, Stand())(1, Stand())
    assert paid.nets() == {2: -100, 3: 200} and paid.settled().feats == {}


def test_rules_2_6_and_2_8_a_declarer_got_his_stake_back_so_there_is_no_sweep() -> None:
    # 2 declares baccara; 4 (6) stands, 3 (3) draws a ten; the banker's 7 beats both
    play = coup({1: ("7h", "Ks"), 2: ("Kd", "Qh"), 3: ("3c", "Kc"), 4: ("6c", "Kh")}, "Td",
                declaring=True)
    play(2, DeclareBaccara())(4, Stand())(3, Draw())(1, Stand())
    assert play.nets() == {2: 0, 3: -100, 4: -100}
    assert play.settled().feats == {2: ("baccara",)}


def test_rule_2_5_banker_eight_pays_the_nines_double_and_takes_the_rest() -> None:
    play = coup({1: ("8h", "Ks"), 2: ("9d", "Kh"), 3: ("8c", "Kd"), 4: ("2c", "Kc")})
    assert play.nets() == {2: 200, 3: -100, 4: -100}
    assert play.stacks() == {1: 400, 2: 1200, 3: 900, 4: 900}
    assert play.state.bank == 600  # -200 to player 2, +200 from players 3 and 4


def test_rule_2_5_best_punter_natural_is_paid_double_and_takes_other_stakes() -> None:
    play = coup({1: ("5h", "Ks"), 2: ("9d", "Kh"), 3: ("8c", "Kd"), 4: ("3c", "Kc")})
    assert play.nets() == {2: 400, 3: -100, 4: -100}  # 2 × 100 from the bank + 200
    assert play.stacks() == {1: 400, 2: 1400, 3: 900, 4: 900}
    assert play.state.bank == 400


def test_rule_2_5_decision_several_best_naturals_split_remainder_first_dealt() -> None:
    # Players 3 and 4 share the best natural; player 2's 101 splits 51 / 50, the odd
    # chip to player 3, first of them in dealing order (draw order would pick 4).
    play = coup({1: ("5h", "Ks"), 2: ("4d", "Kh"), 3: ("9c", "Kd"), 4: ("9s", "Qc")},
                stakes={2: 101, 3: 50, 4: 50})
    assert play.nets() == {2: -101, 3: 151, 4: 150}
    assert play.stacks() == {1: 400, 2: 899, 3: 1151, 4: 1150}
    assert play.state.bank == 400


# --------------------------------------------------------------- §2.6 baccara


def _baccara_coup() -> Play:
    # No naturals; draw order 4 (6: stands), 2 (0: declares), 3 (3: draws 4d -> 7).
    play = coup({1: ("5h", "Ks"), 2: ("Kd", "Qh"), 3: ("3c", "Kc"), 4: ("6c", "Kh")}, "4d",
                declaring=True)
    play(2, DeclareBaccara())(4, Stand())(3, Draw())(1, Stand())
    return play


def test_rule_2_6_baccara_returns_the_stake_settles_others_and_passes_the_bank() -> None:
    play = _baccara_coup()
    commitment = play.state.shoe.commitment  # type: ignore[union-attr]
    assert play.find("baccara_declared")[0].data == {"player": who(2),
                                                     "cards": cards("Kd", "Qh"),
                                                     "stake": chips(100)}
    assert play.find("baccara_declared")[0].about is About.SHOWDOWN
    assert play.nets() == {2: 0, 3: 200, 4: 200}  # 7 and 6 beat the banker's 5
    # the declarer counts a baccara, and played the coup (net 0)
    assert play.settled().feats == {2: ("baccara",)}
    # The old banker keeps what is left of his bank: 600 - 400 = 200 -> stack 600.
    assert play.stacks() == {1: 600, 2: 1000, 3: 1200, 4: 1200}
    assert play.state.phase == POST_BANK and ENGINE.awaiting(play.state) == [2]
    assert play.state.banker is None and play.state.bank == 0
    assert [(s.kind, s.min, s.max) for s in ENGINE.legal_actions(play.state, 2)][1:] == \
        [("post_bank", 2, 1000), ("decline", None, None)]
    assert [s.input for s in ENGINE.legal_actions(play.state, 2)] == \
        [Input.UTILITY, Input.AMOUNT, Input.PLAIN]
    play(2, PostBank(amount=500))
    assert play.state.banker == 2 and play.state.bank == 500 and play.stacks()[2] == 500
    # The shoe is not reshuffled: same commitment, dealing goes on after the 9 cards used.
    assert play.state.shoe.commitment == commitment  # type: ignore[union-attr]
    assert play.state.shoe.position == 9  # type: ignore[union-attr]
    assert play.state.phase == STAKING and "shoe_committed" not in play.kinds()[-5:]


def test_rule_2_6_declining_the_bank_opens_a_new_auction() -> None:
    play = _baccara_coup()
    play.timeout()  # the declarer's safe default: decline
    assert play.state.phase == AUCTION and play.state.banker is None
    assert "shoe_revealed" in play.kinds()


def test_rule_2_6_baccara_is_declared_before_any_third_card_privately_by_every_punter() -> None:
    # 2 and 4 hold 0, 3 holds 6: all three answer at once, in private, before a third card
    play = coup({1: ("5h", "Ks"), 2: ("Kd", "Qh"), 3: ("4c", "2d"), 4: ("Qs", "Kh")}, "Ac",
                declaring=True)
    assert play.state.phase == DECLARING and ENGINE.awaiting(play.state) == [2, 3, 4]
    assert "third_card_dealt" not in play.kinds()
    offered = {p: [(s.kind, s.private) for s in ENGINE.legal_actions(play.state, p)]
               for p in (2, 3, 4)}
    assert offered == {2: [("leave", False), ("baccara", True), ("pass", True)],
                       3: [("leave", False), ("pass", True)],
                       4: [("leave", False), ("baccara", True), ("pass", True)]}
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 3, DeclareBaccara())
    assert err.value.reason is Reason.NOT_ALLOWED
    play(4, Pass())(2, DeclareBaccara())
    # one declarer a coup: the round ends at once; third cards follow, 2 has none
    assert play.state.phase == DRAWING and play.state.draw_order == [4, 3]
    assert play.find("baccara_passed")[0].data == {"player": who(4)}
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 4, DeclareBaccara())  # no baccara once third cards start
    assert err.value.reason is Reason.WRONG_PHASE
    play(4, Draw())(3, Stand())
    assert play.state.phase == BANKER_DRAW


def test_rule_2_6_decision_a_punter_who_lets_his_time_run_out_plays_on() -> None:
    play = coup({1: ("5h", "Ks"), 2: ("Kd", "Qh"), 3: ("4c", "2d"), 4: ("Qs", "Kh")}, "Ac",
                declaring=True)
    play.timeout()
    assert play.find("baccara_passed") and not play.find("baccara_declared")
    assert play.state.phase == DRAWING and play.state.draw_order == [4, 2, 3]


# ------------------------------------------------------------ §2.7 third cards


def test_rule_2_7_third_cards_right_left_order_face_up_then_the_banker() -> None:
    play = coup({1: ("2h", "Ks"), 2: ("3c", "Kc"), 3: ("6d", "Kd"), 4: ("Ac", "Kh")},
                "5d", "4s", "3s")
    assert play.state.phase == DRAWING and play.state.draw_order == [4, 2, 3]
    assert ENGINE.awaiting(play.state) == [4]
    # docs/rules.md §2.7 Decision: the draw is private for every punter, whatever he holds
    assert [(s.kind, s.private) for s in ENGINE.legal_actions(play.state, 4)] == [
        ("leave", False), ("draw", True), ("stand", True)]
    play(4, Draw())
    (public_card, told) = play.find("third_card_dealt") + play.find("third_card_points")
    # only the face-up card is public; with it, his points would tell his hidden two
    assert (public_card.to, public_card.data) == (None, {"player": who(4), "card": cards("5d")})
    assert (told.to, told.data) == ((4,), {"card": cards("5d"), "points": points(6)})
    seat4 = ENGINE.view(play.state, 2).seats[3]
    assert (seat4.face_up, seat4.face_down) == (("5d",), 2)
    play.timeout()  # player 2 on 3: safe default, take a card (4s -> 7)
    assert ENGINE.awaiting(play.state) == [3]
    assert [(s.kind, s.private) for s in ENGINE.legal_actions(play.state, 3)] == [
        ("leave", False), ("stand", True)]
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 3, Draw())  # 6 stands
    assert err.value.reason is Reason.CANNOT_DRAW
    play(3, Stand())
    assert play.state.phase == BANKER_DRAW and ENGINE.awaiting(play.state) == [1]
    play.timeout()  # banker on 2: safe default, draw (3s -> 5)
    assert play.find("banker_drew")[0].data == {"player": who(1), "card": cards("3s")}
    assert play.nets() == {2: 200, 3: 200, 4: 200}  # 7, 6, 6 beat the banker's 5
    assert play.state.bank == 0


# ------------------------------------------------------------- §2.8 settlement


def test_rule_2_8_banker_higher_or_equal_takes_lower_pays_double() -> None:
    play = coup({1: ("5h", "Ks"), 2: ("5c", "Kc"), 3: ("4d", "Kd"), 4: ("7c", "Kh")})
    play(4, Stand())(2, Stand())(3, Stand())(1, Stand())
    settled = play.settled()
    assert settled.data["results"] == rows(*(
        row(p, stake=chips(100), outcome=word(o), net=signed(n), points=points(pts))
        for p, o, n, pts in [(2, "tie_loss", -100, 5), (3, "loss", -100, 4),
                             (4, "win", 200, 7)]))
    assert (settled.coup, settled.banker, settled.nets) == (1, 1, {2: -100, 3: -100, 4: 200,
                                                                   1: 0})
    assert settled.hands == {2: points(5), 3: points(4), 4: points(7), 1: points(5)}
    assert settled.data["bank"] == chips(600)
    (shown,) = play.find("hands_shown")
    assert shown.about is About.SHOWDOWN
    assert shown.data["hands"] == rows(*(row(p, cards=cards(*c), points=points(pts)) for p, c, pts
                                         in [(2, ("5c", "Kc"), 5), (3, ("4d", "Kd"), 4),
                                             (4, ("7c", "Kh"), 7), (1, ("5h", "Ks"), 5)]))
    assert play.stacks() == {1: 400, 2: 900, 3: 900, 4: 1200}
    assert play.state.bank == 600


def test_rule_2_8_decision_six_six_shared_equally_odd_chip_to_the_banker() -> None:
    play = coup({1: ("6h", "Ks"), 2: ("6c", "Kc"), 3: ("6d", "Kd")},
                stakes={2: 101, 3: 100})
    play(3, Stand())(2, Stand())(1, Stand())
    # 101: 303 shared 151 / 152 (odd chip to the banker); 100: 300 shared 150 / 150.
    assert play.nets() == {2: 50, 3: 50}
    assert play.stacks() == {1: 400, 2: 1050, 3: 1050, 4: 1000}
    assert play.state.bank == 500


def test_rules_2_5_and_2_6_nine_on_three_cards_and_an_undeclared_baccara_count_nothing(
        ) -> None:
    # third cards: 3 (0, passed on baccara) draws a ten, 2 (4) a five: 9 on three cards
    play = coup({1: ("5h", "Ks"), 2: ("4c", "Kc"), 3: ("Kd", "Qd")}, "Th", "5d")
    play(3, Draw())(2, Draw())(1, Stand())
    assert play.nets() == {2: 200, 3: -100}
    assert play.settled().feats == {}


# ----------------------------------------------------------------- §2.9 tenure


def test_rule_2_9_an_exhausted_shoe_ends_the_tenure_with_a_new_auction() -> None:
    # 12 cards: a coup needs 3 × (3 punters + banker) = 12; after it 4 are left.
    play = coup({1: ("9h", "Ks"), 2: ("2d", "Kh"), 3: ("3c", "Kd"), 4: ("4c", "Kc")},
                "Tc", "Tc", "Tc", "Tc", pad=False)
    (ended,) = play.find("tenure_ended")
    assert ended.data == {"banker": who(1), "reason": word("shoe_exhausted"),
                          "bank": chips(900)}
    assert play.stacks()[1] == 1300 and play.state.bank == 0
    assert play.state.phase == AUCTION and play.find("shoe_revealed")
    revealed = play.find("shoe_revealed")[0]
    assert isinstance(revealed, ShoeRevealed) and revealed.whole
    assert revealed.record["order"][:2] == ["2d", "3c"]


def test_rule_2_9_banker_dealt_baccara_deals_one_more_shoe() -> None:
    play = coup({1: ("Kh", "Ks"), 2: ("9d", "Kh"), 3: ("3c", "Kd"), 4: ("4c", "Kc")},
                "Tc", "Tc", "Tc", "Tc", pad=False)
    assert play.find("banker_baccara")[0].data == {"player": who(1), "extra_shoes": count(1)}
    assert play.find("banker_baccara")[0].about is About.SHOWDOWN
    # his earned shoe counts for him; player 2's natural 9 for player 2
    assert play.settled().feats == {2: ("natural",), 1: ("extra_shoe",)}
    assert "tenure_ended" not in play.kinds()
    assert play.find("extra_shoe_started")[0].data == {"banker": who(1),
                                                       "extra_shoes_left": count(0)}
    assert play.state.phase == CUT and play.state.banker == 1
    assert play.state.shoe is not None and play.state.shoe.remaining == 104
    assert play.state.bank == 400  # the 9 is paid 200 and takes the other two stakes


def test_rule_2_9_banker_retires_between_coups_keeping_his_bank() -> None:
    play = auctioned()
    play(4, Cut(offset=0))(2, Stake(amount=100))
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(play.state, 2, Retire())
    assert err.value.reason is Reason.NOT_ALLOWED
    play(1, Retire())
    assert play.stacks() == {1: 1000, 2: 1000, 3: 1000, 4: 1000}
    assert play.state.phase == AUCTION and play.state.bank == 0


def test_rule_2_9_punter_baccara_ends_the_tenure_at_once() -> None:
    play = _baccara_coup()
    (ended,) = play.find("tenure_ended")
    assert ended.data == {"banker": who(1), "reason": word("punter_baccara"),
                          "bank": chips(200)}


# ------------------------------------------------------- §0 timeouts, seating


def test_two_timeouts_in_a_row_stand_a_player_up() -> None:
    play = auctioned()
    play(4, Cut(offset=0))
    play.timeout()  # everyone sits out: coup void, next coup's staking
    assert play.find("coup_void") and play.state.phase == STAKING
    play.timeout()
    assert [e.data["player"] for e in play.find("stood_up")] == [who(2), who(3), who(4)]
    assert play.state.phase == IDLE and [s.player for s in play.state.seats] == [1]
    assert play.find("tenure_ended")[0].data["reason"] == word("not_enough_players")


def test_joining_mid_coup_plays_from_the_next_and_leaving_waits_for_settlement() -> None:
    play = coup({1: ("5h", "Ks"), 2: ("4c", "Kc"), 3: ("4d", "Kd"), 4: ("7c", "Kh")})
    play(5, Join(name="P5", buy_in=300))(3, Leave())
    assert [s.kind for s in ENGINE.legal_actions(play.state, 5)] == ["leave"]
    assert {s.player: s.leaving for s in play.state.seats}[3] is True
    play(4, Stand())(2, Stand())(3, Stand())(1, Stand())
    assert play.nets() == {2: -100, 3: -100, 4: 200}
    assert 3 not in play.stacks() and play.find("player_left")[0].data == {"player": who(3)}
    assert ENGINE.awaiting(play.state) == [2, 4, 5]


def test_view_my_facts_give_only_the_viewer_his_points_while_his_cards_are_hidden() -> None:
    # No naturals; 2 (0) declares baccara; draw order 4 (4: draws 2h -> 6), 3 (6).
    play = coup({1: ("5h", "Ks"), 2: ("Kd", "Qh"), 3: ("4c", "2d"), 4: ("3c", "Ad")}, "2h",
                declaring=True)
    assert {p: ENGINE.view(play.state, p).my_facts for p in (1, 2, 3, 4)} == {
        1: {"points": points(5)}, 2: {"points": points(0)}, 3: {"points": points(6)},
        4: {"points": points(4)}}
    assert ENGINE.view(play.state, None).my_facts == {}
    assert ENGINE.view(play.state, 99).my_facts == {}
    play(2, DeclareBaccara())  # his two cards are face up now: nothing private left
    assert ENGINE.view(play.state, 2).my_facts == {}
    play(4, Draw())
    assert ENGINE.view(play.state, 4).my_facts == {"points": points(6)}
    assert ENGINE.view(play.state, 3).my_facts == {"points": points(6)}


def test_view_facts_are_only_what_the_table_shows() -> None:
    play = Play(ENGINE.new_table({"min_stake": 5}))
    for p in (1, 2, 3, 4):
        play(p, Join(name=f"P{p}", buy_in=1000))
    play(1, Start())(3, Bid(amount=500))(2, Bid(amount=700))
    view = ENGINE.view(play.state, None)
    # settings, the banker, the shoe: /settings, the seat lines, /verify
    assert view.facts == {"bids": rows(row(3, amount=chips(500)), row(2, amount=chips(700)))}
    assert view.shoe is None
    play(4, Pass())(1, Pass())  # 2 holds the bank of 700; the shoe waits for 4's cut
    view = ENGINE.view(play.state, None)
    assert view.facts == {}
    assert view.shoe is not None and play.state.shoe is not None
    assert view.shoe.commitments == (play.state.shoe.commitment,)
    assert view.shoe.cards_left == 104
    play(1, Cut(offset=0))(3, Stake(amount=100))
    assert ENGINE.view(play.state, None).facts == {"stake_room": chips(250)}
    assert ENGINE.settings(play.state) == {"min_stake": 5}


def test_view_a_declarer_is_a_fact_and_his_baccara_a_showdown() -> None:
    play = _baccara_coup()
    assert play.state.phase == POST_BANK
    assert ENGINE.view(play.state, None).facts == {"declarer": who(2)}


# ---------------------------------------------------------------- §0.12 closing


def test_rule_0_12_closing_mid_coup_voids_it_stakes_back_bank_to_its_banker() -> None:
    play = coup({1: ("Kh", "2s"), 2: ("2h", "3h"), 3: ("4h", "2d")}, stakes={2: 100, 3: 40})
    assert play.state.phase == "drawing" and play.state.bank == 600
    step = ENGINE.close(play.state)
    assert [(t.src, t.dst, t.amount) for t in step.transfers] == [
        ("bank", "wallet:1", 600), ("stack:1", "wallet:1", 400),
        ("stack:2", "wallet:2", 900), ("stack:3", "wallet:3", 960),
        ("stack:4", "wallet:4", 1000), ("stake:2", "wallet:2", 100),
        ("stake:3", "wallet:3", 40)]
    assert [e.kind for e in step.events] == ["table_closed", "shoe_revealed"]
    assert step.events[0].data == {"coup": count(1), "void": flag(True), "returned": rows(*(
        row(p, amount=chips(1000)) for p in (1, 2, 3, 4)))}
    assert step.state.seats == [] and ENGINE.awaiting(step.state) == []



def test_rule_0_13_a_punter_below_the_minimum_stake_is_stood_up_after_the_coup() -> None:
    from broke import a_punter_with_4_chips_at_a_table_of_5

    a_punter_with_4_chips_at_a_table_of_5("baccarat")

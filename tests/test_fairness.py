"""Provable fairness, docs/rules.md §0.4 (the cut) and §0.5 (the per-card commitment).

The Merkle encoding is checked against an independent reimplementation of its
written specification (games/verify/merkle.py), each kind of tampering is caught,
the cutter's own depth is applied exactly, a timeout cuts at the documented hash,
and a poker hand with a fold reveals no folded card anywhere public.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from poker_fixtures import draw_order, fixed_shoe, seated
from pydantic import BaseModel

from games.banking import Bid, Pass
from games.cards import DECK, Shoe, commitment_of
from games.chemin_de_fer import ENGINE as CHEMIN
from games.engine import (
    Cards,
    CardsProven,
    Cut,
    Event,
    Join,
    ShoeRevealed,
    Start,
    count,
    flag,
    who,
)
from games.poker.common import Bet, Call, Check, Fold
from games.poker.draw import ENGINE as DRAW
from games.poker.draw import Discard, Open
from games.verify.check import check, compact
from games.verify.merkle import root_from_proof

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------ the encoding, independently


def _sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def spec_root(order: list[str], salt: str) -> str:
    """The root as games/verify/merkle.py's docstring specifies it, written from the text."""
    level = []
    for p, card in enumerate(order):
        card_salt = hmac.new(salt.encode(), b"card" + p.to_bytes(4, "big"),
                             hashlib.sha256).digest()[:16]
        level.append(_sha(b"\x00", p.to_bytes(4, "big"), card.encode(), card_salt))
    while len(level) > 1:
        nxt = [_sha(b"\x01", level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0].hex()


def test_rule_0_5_commitment_is_the_documented_merkle_root() -> None:
    for order in (["Ah"], ["Ah", "Kd"], ["Ah", "Kd", "2c"], list(DECK), list(DECK) * 6):
        assert commitment_of(order, "s4lt") == spec_root(order, "s4lt")
    shoe = Shoe.fixed(["Ah", "Kd", "2c"], salt="test")
    assert shoe.commitment == spec_root(["Ah", "Kd", "2c"], "test")
    # a different salt or a swapped pair gives another commitment
    assert commitment_of(["Ah", "Kd", "2c"], "tesu") != shoe.commitment
    assert commitment_of(["Kd", "Ah", "2c"], "test") != shoe.commitment


def _dealt(cards: int, cut: int = 0) -> Shoe:
    shoe = Shoe.shuffled(1, random.Random(11)).with_cut(cut, by=3, seated=[1, 2, 3], coup=4)
    return shoe.deal(cards)[0]


def test_rule_0_5_proofs_of_any_shown_cards_give_the_root() -> None:
    shoe = _dealt(20, cut=7)
    for picks in ([0], [5, 6], [0, 3, 9, 19], list(range(20))):
        cards = [shoe.dealing_order[k] for k in picks]
        record = shoe.reveal_shown(cards)
        assert sorted(c for _, c, _ in record["shown"]) == sorted(cards)
        assert root_from_proof(52, [tuple(x) for x in record["shown"]],
                               record["nodes"]) == shoe.commitment
        assert all(r.ok for r in check(record))
    # the order of cards is not revealed: a single card's record names only that card
    one = shoe.reveal_shown([shoe.dealing_order[0]])
    assert "order" not in one and "salt" not in one and len(one["shown"]) == 1


def _fails(record: dict[str, Any]) -> list[str]:
    return [r.name for r in check(record) if not r.ok]


@pytest.mark.parametrize("tamper", ["card", "salt", "position", "sibling", "extra", "missing"])
def test_rule_0_5_a_tampered_proof_fails(tamper: str) -> None:
    shoe = _dealt(10)
    record = json.loads(json.dumps(shoe.reveal_shown(shoe.dealing_order[2:5])))
    assert _fails(record) == []
    first = record["shown"][0]
    if tamper == "card":
        first[1] = "2c" if first[1] != "2c" else "3c"
    elif tamper == "salt":
        first[2] = ("0" if first[2][0] != "0" else "1") + first[2][1:]
    elif tamper == "position":
        first[0] = (first[0] + 1) % 52 if first[0] + 1 not in [x[0] for x in record["shown"]] \
            else (first[0] + 20) % 52
    elif tamper == "sibling":
        record["nodes"][0] = hashlib.sha256(b"forged").hexdigest()
    elif tamper == "extra":
        record["nodes"].append(hashlib.sha256(b"more").hexdigest())
    else:
        record["nodes"].pop()
    assert "proof" in _fails(record)


@pytest.mark.parametrize("tamper", ["order", "salt", "dealt", "burned", "cut"])
def test_rule_0_5_a_tampered_full_shoe_fails(tamper: str) -> None:
    shoe = _dealt(0, cut=30).burn(3)[0].deal(5)[0]
    record = shoe.reveal()
    assert _fails(record) == []
    assert record["dealt"] == shoe.dealing_order[:8] and record["burned"] == shoe.order[30:33]
    if tamper == "order":
        record["order"] = [record["order"][1], record["order"][0], *record["order"][2:]]
        want = "root"
    elif tamper == "salt":
        record["salt"] += "x"
        want = "root"
    elif tamper == "dealt":
        record["dealt"][4] = next(c for c in DECK if c != record["dealt"][4])
        want = f"dealt #5 {record['dealt'][4]}"
    elif tamper == "burned":
        record["burned"] = record["burned"][::-1]
        want = "burned"
    else:
        record["cut"] = 52
        want = "cut"
    assert want in _fails(record)


def test_rule_0_5_the_compact_record_fits_a_message_for_eight_decks() -> None:
    shoe = Shoe.shuffled(8, random.Random(1)).with_cut(100, by=1, seated=[1, 2], coup=1)
    shoe = shoe.deal(len(shoe.order))[0]
    text = compact(shoe.reveal())
    assert len(text) < 3000
    assert all(r.ok for r in check(json.loads(text)))


# ------------------------------------------------------------------- the cut


def _at_cut(shoe: Shoe) -> Any:
    """Chemin de fer, four players, player 1 banks: player 4 is to cut ``shoe``."""
    state = CHEMIN.new_table({})
    for p in range(1, 5):
        state = CHEMIN.apply(state, p, Join(name=f"p{p}", buy_in=1000)).state
    state = state.model_copy(update={"shoe": shoe})
    state = CHEMIN.apply(state, 1, Start()).state
    state = CHEMIN.apply(state, 1, Bid(amount=100)).state
    for p in (2, 3, 4):
        state = CHEMIN.apply(state, p, Pass()).state
    assert state.phase == "cut" and CHEMIN.awaiting(state) == [4]
    return state


SIX_DECKS = [c for _ in range(6) for c in DECK]


def test_rule_0_4_the_cutter_chooses_the_depth_and_it_is_applied_exactly() -> None:
    state = _at_cut(Shoe.fixed(SIX_DECKS, decks=6))
    spec = next(s for s in CHEMIN.legal_actions(state, 4) if s.kind == "cut")
    assert (spec.min, spec.max, spec.presets) == (0, 311, (78, 156, 234))
    step = CHEMIN.apply(state, 4, Cut(offset=100))
    burned = next(e for e in step.events if e.kind == "cards_burned").data["cards"]
    # dealing starts at committed position 100
    assert burned == Cards(cards=tuple(SIX_DECKS[100:103]))
    assert step.state.shoe is not None and step.state.shoe.peek(2) == SIX_DECKS[103:105]
    record = step.state.shoe.reveal()
    assert (record["cut"], record["cutter"], record["seated"], record["coup"]) == (
        100, 4, [1, 2, 3, 4], state.coup)
    assert all(r.ok for r in check(record))


def test_rule_0_4_a_timed_out_cut_is_the_documented_hash_of_public_data() -> None:
    shoe = Shoe.fixed(SIX_DECKS, decks=6, salt="cut-test")
    state = _at_cut(shoe)
    text = f"cut|{shoe.commitment}|1,2,3,4|{state.coup}"
    want = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 312
    step = CHEMIN.timeout(state)
    cut = next(e for e in step.events if e.kind == "shoe_cut").data
    assert cut == {"player": who(4), "offset": count(want), "auto": flag(True)}
    burned = next(e for e in step.events if e.kind == "cards_burned").data["cards"]
    assert burned == Cards(cards=tuple((SIX_DECKS * 2)[want:want + 3]))
    lines = [r.line() for r in check(step.state.shoe.reveal())]  # type: ignore[union-attr]
    assert "OK   cut origin: the timeout rule's value" in lines


# ------------------------------------------------------------- poker, item 6

# player 1 deals: 2, 3, 1 receive these; 2 opens on jacks, 3 calls, 1 folds.
P2 = ["Jc", "Jd", "2c", "3c", "4c"]
P3 = ["Tc", "Td", "2d", "3d", "4d"]
P1 = ["Ah", "Kd", "7h", "3h", "5s"]   # folded: must never be public


def _cards_in(value: Any) -> set[str]:
    if isinstance(value, BaseModel):  # a typed value: every card string inside it
        return _cards_in(value.model_dump(mode="json"))
    if isinstance(value, str):
        if len(value) == 2 and value[0] in "23456789TJQKA" and value[1] in "cdhs":
            return {value}
        if value.startswith(("{", "[")):
            return _cards_in(json.loads(value))
        if len(value) % 2 == 0 and len(value) >= 4 and all(
                value[i] in "23456789TJQKA" and value[i + 1] in "cdhs"
                for i in range(0, len(value), 2)):
            return {value[i:i + 2] for i in range(0, len(value), 2)}
        return set()
    if isinstance(value, dict):
        return set().union(set(), *(_cards_in(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(_cards_in(v) for v in value))
    return set()


def _hand_with_a_fold(*finish: tuple[int, Any]) -> list[Event]:
    state = seated(DRAW, [100, 100, 100], [fixed_shoe(draw_order([P2, P3, P1]))])
    events: list[Event] = []
    for player, action in [(2, Open()), (3, Call()), (1, Fold()), *finish]:
        step = DRAW.apply(state, player, action)
        events += step.events
        state = step.state
    return events[:[e.kind for e in events].index("hand_started")]


def test_rule_0_5_poker_reveals_no_folded_card_at_the_showdown() -> None:
    # both draw three, check it down: 2 and 3 show, 1's folded hand stays secret
    events = _hand_with_a_fold((2, Discard(cards=("2c", "3c", "4c"))),
                               (3, Discard(cards=("2d", "3d", "4d"))), (2, Check()), (3, Check()))
    public = [e for e in events if e.to is None]
    assert not set(P1) & set().union(*(_cards_in(e.data) for e in public))
    revealed = next(e for e in public if isinstance(e, ShoeRevealed)).record
    assert "order" not in revealed and "salt" not in revealed
    shown = [c for _, c, _ in revealed["shown"]]
    assert sorted(shown) == sorted(["Jc", "Jd", *DRAW_2, "Tc", "Td", *DRAW_3])
    assert all(r.ok for r in check(revealed))
    # the discards were never shown either
    assert not {"2c", "3c", "4c", "2d", "3d", "4d"} & set(shown)


# after the draw, 2 and 3 get the next six cards of the deck (in deck order, after the deal)
_REST = [c for c in DECK if c not in P1 + P2 + P3]
DRAW_2, DRAW_3 = _REST[0:3], _REST[3:6]


def test_rule_0_5_poker_an_uncontested_winner_shows_only_his_openers() -> None:
    events = _hand_with_a_fold((2, Discard()), (3, Discard()), (2, Bet()), (3, Fold()))
    public = [e for e in events if e.to is None]
    seen = set().union(*(_cards_in(e.data) for e in public))
    assert seen == {"Jc", "Jd"}  # §5a.6: the opener shows his openers, nothing else
    revealed = next(e for e in public if isinstance(e, ShoeRevealed)).record
    assert [c for _, c, _ in revealed["shown"]] == ["Jc", "Jd"]
    assert all(r.ok for r in check(revealed))


def test_rule_0_5_each_poker_player_gets_the_proof_of_his_own_cards_privately() -> None:
    events = _hand_with_a_fold((2, Discard()), (3, Discard()), (2, Bet()), (3, Fold()))
    proofs = {e.to: e for e in events if isinstance(e, CardsProven)}
    assert set(proofs) == {(1,), (2,), (3,)}
    for player, hand in ((1, P1), (2, P2), (3, P3)):
        record = proofs[(player,)].record
        assert isinstance(record, dict)
        assert sorted(c for _, c, _ in record["shown"]) == sorted(hand)
        assert all(r.ok for r in check(record))


# ------------------------------------------------------------- the verifier


def _run(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "games.verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_verifier_command_says_ok_or_fail_and_exits_accordingly(tmp_path: Path) -> None:
    shoe = _dealt(12, cut=5)
    good = tmp_path / "good.json"
    good.write_text("Saved from /verify:\n" + compact(shoe.reveal()), encoding="utf-8")
    run = _run(good)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "ALL OK"
    record = shoe.reveal()
    record["dealt"][3] = next(c for c in DECK if c != record["dealt"][3])
    bad = tmp_path / "bad.json"
    bad.write_text(compact(record), encoding="utf-8")
    run = _run(bad)
    assert run.returncode == 1
    assert f"FAIL dealt #4 {record['dealt'][3]}" in run.stdout
    junk = tmp_path / "junk.json"
    junk.write_text("no record here", encoding="utf-8")
    assert _run(junk).returncode == 2


def test_rule_0_4_a_chosen_depth_equal_to_the_timeouts_is_still_the_cutters() -> None:
    shoe = Shoe.fixed(SIX_DECKS, decks=6, salt="cut-test")
    state = _at_cut(shoe)
    rule = shoe.timeout_cut([1, 2, 3, 4], state.coup)
    step = CHEMIN.apply(state, 4, Cut(offset=rule))
    assert step.state.shoe is not None and not step.state.shoe.by_timeout
    lines = [r.line() for r in check(step.state.shoe.reveal())]
    assert "OK   cut origin: chosen by player 4" in lines
    timed = CHEMIN.timeout(state).state.shoe
    assert timed is not None and timed.by_timeout and timed.cut == rule

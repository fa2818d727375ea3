"""What a player reads, as he reads it: numbers that are true, and what he must notice first.

Fixed shoes throughout; each test names the exact text, in English and in Russian where
it is about words.
"""

from __future__ import annotations

from test_banchok_rules import HANDS
from test_banchok_rules import banked as banchok_banked

from bot import render
from games import banchok


def test_a_banchok_result_names_the_bankers_net() -> None:
    # Ann banks; Boris stakes 100 on 9h 4s Kd and the turned 9h covers it: the bank pays
    state = banchok_banked({1: 1000, 2: 1000, 3: 1000}, [*HANDS, "9h", "5c"], joining=False)
    step = banchok.ENGINE.apply(state, 2, banchok.Stake(amount=100))
    data = next(e.data for e in step.events if e.kind == "coup_settled")
    names = {1: "Ann", 2: "Boris", 3: "Chloé"}
    assert render.settlement_text("en", "banchok", 1, data, names, []).splitlines() == [
        "🏆 <b>Boris wins 100</b>", "Polish banchok · coup #1 settled",
        "Boris +100 · Ann (banker) −100"]
    assert render.settlement_text("ru", "banchok", 1, data, names, []).splitlines() == [
        "🏆 <b>Boris выигрывает 100</b>", "Польский банчок · кон №1: расчёт",
        "Boris +100 · Ann (банкомёт) −100"]

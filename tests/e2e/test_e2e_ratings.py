"""The poker rating through the real bot and the sandbox: after five hands of draw poker,
/top rating and /stats answer what openskill makes of the nets the group's results showed,
hand by hand."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness import DEFAULT, POLICIES, BotProcess, Game
from openskill.models import PlackettLuce
from test_e2e_games import open_and_seat
from test_e2e_standings import ANN, BOB, CID, NET, PLAYERS, answer

HANDS = 5
SEEDED = Path(__file__).resolve().with_name("seeded")
ROOT = SEEDED.parents[2]


def shown(ordinal: float) -> str:
    """An ordinal as the bot shows it: one decimal, never "-0.0"."""
    return f"{ordinal:.1f}".replace("-0.0", "0.0")


def rated(results: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """Each player's ordinal and hands rated, openskill rating the results' nets (the third
    line of each: "Cid +2 · Ann −1 · Bob −1") one hand after another, each player a team of
    one placed by his net."""
    model = PlackettLuce()
    now: dict[str, Any] = {}
    hands: dict[str, int] = {}
    ids = {p.name: p.id for p in PLAYERS}
    for m in results:
        nets = {name: -int(n) if sign == "−" else int(n)
                for name, _, sign, n in NET.findall(m["text"].splitlines()[2])}
        if len(nets) < 2:
            continue
        players = sorted(nets, key=ids.__getitem__)
        places = [1 + sum(v > nets[p] for v in nets.values()) for p in players]
        teams = model.rate([[now.get(p, model.rating())] for p in players], ranks=places)
        for p, team in zip(players, teams, strict=True):
            now[p], hands[p] = team[0], hands.get(p, 0) + 1
    return {p: (r.ordinal(), hands[p]) for p, r in now.items()}


async def test_top_rating_and_stats_answer_what_openskill_makes_of_the_hands(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", extra={  # the same cards each run
        "SHOE_SEED": "rating e2e", "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}"})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -1001, PLAYERS)
    await open_and_seat(game, "draw_poker")
    policy = POLICIES["draw_poker"]
    while len(await game.settlements()) < HANDS:
        await game.play_until_settled(policy, policy.get("", DEFAULT))
    results = await game.settlements()
    expected = rated(results)
    assert sorted(expected) == ["Ann", "Bob", "Cid"]
    assert {n for _, n in expected.values()} == {len(results)}
    ranked = sorted(expected, key=lambda p: (-expected[p][0], -expected[p][1],
                                             next(x.id for x in PLAYERS if x.name == p)))
    hands = f"{len(results)} hands"
    assert await answer(game, CID, "/top rating") == "\n".join([
        "🎯 Poker rating · this chat",
        *(f"{i}. {p} — {shown(expected[p][0])} ({hands})" for i, p in enumerate(ranked, 1)),
        "To be ranked, play 5 hands."])
    for player in (ANN, BOB):
        said = await answer(game, player, "/stats")
        assert said.startswith(f"📊 {player.name} · all games · this chat\n")
        # the rating under his figures (his achievements, if any, after it)
        assert f"🎯 Poker rating: {shown(expected[player.name][0])} ({hands})" \
            in said.split("\n")[1:]
    assert "Traceback" not in bot.log_text()

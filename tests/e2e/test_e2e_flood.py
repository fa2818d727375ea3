"""Flood limits on: the bot at its production group limit (20 messages a window) loses no step.

The sandbox counts Telegram's limit over a minute of ``time.monotonic``; to keep
the test short its clock runs SPEED times faster, and the bot's window is
shortened by the same factor (GROUP_RATE_PERIOD), so 20 messages a "minute"
stay 20 messages a window on both sides.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from harness import DEFAULT, BotProcess, Game, Player, _chat
from test_e2e_games import open_and_seat

from sandbox import state as sandbox_state

SPEED = 6.0
WINDOW = 60 / SPEED
LIMIT = 20
CHAT = -3003
PLAYERS = [Player(301, "Gus"), Player(302, "Hal"), Player(303, "Ivy"), Player(304, "Jon"),
           Player(305, "Kim")]
FLOODED = ("sendMessage", "editMessageText", "editMessageReplyMarkup")


async def test_burst_under_flood_limits_loses_no_step(sandbox, bot_factory, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    handle, sb = sandbox
    real = time.monotonic
    monkeypatch.setattr(sandbox_state, "time",
                        SimpleNamespace(time=time.time, monotonic=lambda: real() * SPEED))
    await sb.flood(True, group_per_minute=LIMIT)
    bot = BotProcess(handle.url, tmp_path / "data", timeout=30,
                     extra={"GROUP_MESSAGES_PER_MINUTE": str(LIMIT),
                            "GROUP_RATE_PERIOD": str(WINDOW)})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, PLAYERS)

    # five players join, one starts, and two whole coups are played, as fast as the table
    # allows: more group messages than one window holds
    await open_and_seat(game, "twenty_one")
    await game.play_until_settled({}, DEFAULT)
    await game.play_until_settled({}, DEFAULT)
    final = await game.synced()  # the table message shows the stored step

    version = bot.db_table(CHAT)[2]
    assert {d.split("|")[3] for _, d in sb.buttons(final) if d and d.startswith("a|")} \
        == {str(version)}
    assert all(p.name in final["text"] for p in PLAYERS)
    log = [e for e in await sb.log() if _chat(e) == CHAT and e["method"] in FLOODED]
    sent = [e for e in log if e["ok"]]
    refused = [e for e in log if not e["ok"]]
    print(f"\nflood: {len(sent)} group messages/edits, {len(refused)} refused, "
          f"{sent[-1]['time'] - sent[0]['time']:.1f} s")
    assert len(sent) > LIMIT, "the burst must reach the limit for this test to mean anything"
    assert refused == []  # the bot kept under the limit itself: no 429
    times = [e["time"] for e in sent]
    tightest = min(times[i + LIMIT] - times[i] for i in range(len(times) - LIMIT))
    assert tightest >= WINDOW, f"{LIMIT + 1} messages within {tightest:.2f} s"

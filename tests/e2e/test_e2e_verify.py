"""docs/rules.md §0.5 through the real bot: /verify's record of a real hand checks OK with
``python -m games.verify``, and one corrupted card makes it FAIL; a player's private proof
of his own cards, sent when he asks, checks OK too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import ROOT, Player, group_with_bot

from games.cards import DECK

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]


def verifier(path: Path) -> subprocess.CompletedProcess[str]:
    """``python -m games.verify FILE``, as a player runs it."""
    return subprocess.run([sys.executable, "-m", "games.verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def record_of(text: str) -> dict[str, Any]:
    """The JSON record at the end of a bot message."""
    return json.loads(text[text.index("{"):])


async def test_verify_record_of_a_sandbox_hand_checks_ok_and_a_corrupt_card_fails(
        sandbox, bot_factory, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", -1001, PLAYERS,
                                table="stud_poker", start=True)
    sb, bot = game.sb, game.bot
    await game.play_until_settled({}, ["check", "call", "fold"])
    await game.synced()

    before = len(await sb.bot_messages(game.chat_id))
    await game.command(PLAYERS[1], "/verify")
    reply = await sb.wait_for(
        lambda: _newest_with_record(sb, game.chat_id, before), timeout=20)
    record = record_of(reply["text"])
    assert "order" not in record and "salt" not in record  # stud: shown cards only
    assert len(record["shown"]) >= 6  # every up card of three players at least

    good = tmp_path / "hand.json"
    good.write_text(reply["text"], encoding="utf-8")  # the message as the player saved it
    run = verifier(good)
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines()[-1] == "ALL OK"

    shown = record["shown"]
    # a card that is in none of the shown positions (the shuffle decides which are)
    shown[0][1] = next(c for c in DECK if c not in {x[1] for x in shown})
    bad = tmp_path / "corrupt.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    run = verifier(bad)
    assert run.returncode == 1
    assert "FAIL proof" in run.stdout

    # each player's own cards, proven to him alone in his private chat when he asks
    assert not [m for m in await sb.bot_messages(PLAYERS[0].id) if "🔐" in (m.get("text") or "")]
    await game.command(PLAYERS[0], "/verify")

    async def proof() -> dict[str, Any] | None:
        return next((m for m in reversed(await sb.bot_messages(PLAYERS[0].id))
                     if "🔐" in (m.get("text") or "")), None)

    dm = await sb.wait_for(proof, timeout=20)
    mine = tmp_path / "mine.json"
    mine.write_text(dm["text"], encoding="utf-8")
    run = verifier(mine)
    assert run.returncode == 0, run.stdout
    assert "Traceback" not in bot.log_text()


async def _newest_with_record(sb: Any, chat_id: int, before: int) -> dict[str, Any] | None:
    for m in (await sb.bot_messages(chat_id))[before:]:
        text = m.get("text") or ""
        if "games.verify" in text and "{" in text:
            return m
    return None


async def test_the_cutter_presses_a_depth_and_verify_says_who_cut_where(
        sandbox, bot_factory, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", -1002, PLAYERS,
                                table="chemin_de_fer", start=True)
    sb, bot = game.sb, game.bot
    await game.step(PLAYERS[0], ["bid"])
    for p in PLAYERS[1:]:
        await game.step(p, ["pass"])
    message = await game.synced()
    cutter = game.awaited(message)[0]
    depths = [int(d.split("|")[-1]) for _, d in sb.buttons(message)
              if d and d.startswith("a|") and d.split("|")[4] == "cut" and d[-1] != "?"]
    assert depths == [78, 156, 234]  # a quarter, half, three quarters of 312
    assert any(d.endswith("|cut|?") for _, d in sb.buttons(message) if d)  # or type one
    chosen = next(d for _, d in sb.buttons(message) if d and d.endswith("|cut|156"))
    await game.press(cutter, chosen, message["message_id"])
    await game.synced()
    state = json.loads(bot.db_table(game.chat_id)[1])
    assert (state["shoe"]["cut"], state["shoe"]["cutter"]) == (156, cutter.id)

    before = len(await sb.bot_messages(game.chat_id))
    await game.command(PLAYERS[0], "/verify")

    async def reply() -> dict[str, Any] | None:
        for m in (await sb.bot_messages(game.chat_id))[before:]:
            if "How it was cut:" in (m.get("text") or ""):
                return m
        return None

    text = (await sb.wait_for(reply, timeout=20))["text"]
    assert (f"How it was cut: {cutter.name} chose to cut it at 156, so dealing begins at "
            "committed position 156. Burned face up first: 3 cards.") in text

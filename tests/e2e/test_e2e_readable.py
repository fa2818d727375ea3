"""What a group reads, per game, through the real bot and the sandbox: two coups played.

For every game: each table message the group sees stays within its line budget outside
the collapsed log and is formatted (bold header, the time left as a date-time entity);
each settlement opens with who won what; coups are numbered 1, 2 in order; no poker call
reads "calls 0"; at the end only one message of the chat has live buttons. A Russian
chat plays the same way and reads no English word.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from harness import DEFAULT, POLICIES, Game, Player, group_with_bot

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]
GAMES = ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
TABLE_LINES = 14
HEADLINE = {"en": re.compile(r"^🏆 (\w+ wins \d+( with .+)?(, )?)+$|^🏆 Stand-off"
                            r"|^🏆 \w+ takes his own chips back( with .+)?$"
                            r"|^🏆 .+ split the pot: each takes his own chips back$"),
            "ru": re.compile(r"^🏆 (\w+ выигрывает \d+(: .+)?(, )?)+$|^🏆 Ничья"
                            r"|^🏆 \w+ забирает свои фишки назад(: .+)?$"
                            r"|^🏆 .+ делят банк: каждый забирает свои фишки назад$")}
TITLE = {"en": re.compile(r" · (?:coup|hand) #(\d+) settled$"),
         "ru": re.compile(r" · (?:кон|раздача) №(\d+): расчёт$")}
# Latin a Russian reader may meet: player names, card ranks, commands
LATIN_OK = re.compile(r"\b(Ann|Bob|Cid)\b|/\w+")


def outside_log(message: dict[str, Any]) -> list[str]:
    """The message's lines outside its expandable quote."""
    units = (message["text"] or "").encode("utf-16-le")
    for e in message.get("entities") or ():
        if e["type"] == "expandable_blockquote":
            units = units[:2 * e["offset"]] + units[2 * (e["offset"] + e["length"]):]
    return [ln for ln in units.decode("utf-16-le").split("\n") if ln.strip()]


def kinds(message: dict[str, Any]) -> set[str]:
    """The entity types of a message."""
    return {e["type"] for e in message.get("entities") or ()}


async def play_two_coups(game: Game, name: str) -> list[dict[str, Any]]:
    """Play until two coups have settled; every synced table message seen on the way."""
    seen: list[dict[str, Any]] = []
    policy = POLICIES.get(name, {})
    for _ in range(2):
        before = len(await game.settlements())
        for _ in range(200):
            if len(await game.settlements()) > before:
                break
            message = await game.synced()
            seen.append(message)
            awaited = game.awaited(message)
            if awaited:
                await game.step(awaited[0], policy.get(_phase(message), policy.get("", DEFAULT)))
        assert len(await game.settlements()) > before, seen[-1]["text"]
    return seen


def _phase(message: dict[str, Any]) -> str:
    from harness import phase_of
    return phase_of(message)


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", GAMES)
async def test_the_group_reads_a_compact_formatted_table(
        name: str, lang: str, sandbox: Any, bot_factory: Any, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", -1001, PLAYERS)
    sb = game.sb
    await game.command(PLAYERS[0], f"/language {lang}")
    for _ in range(100):
        said = [m for m in await sb.bot_messages(game.chat_id)
                if m["text"] in ("Language: English.", "Язык: русский.")]
        if said:
            break
        await asyncio.sleep(0.05)
    first_id = said[0]["message_id"]
    await game.command(PLAYERS[0], f"/newtable {name}")
    for p in PLAYERS:
        await game.step(p, ["join"])
    await game.step(PLAYERS[0], ["start"])
    seen = await play_two_coups(game, name)

    clocks = 0
    for message in seen:
        lines = outside_log(message)
        assert len(lines) <= TABLE_LINES, message["text"]
        assert "bold" in kinds(message), message["text"]
        if game.awaited(message) and not game.decides_in_private(message, game.awaited(
                message)[0]):
            # the time left, once the turn has been shown (before, the ⏳ line names only)
            turn = next(ln for ln in lines if ln.startswith("⏳"))
            if "date_time" in kinds(message):
                clocks += 1
            else:
                assert " · " not in turn, message["text"]
    assert clocks > 0
    settlements = await game.settlements()
    numbers = []
    for s in settlements:
        first, second = s["text"].splitlines()[:2]
        assert HEADLINE[lang].match(first), s["text"]
        found = TITLE[lang].search(second)
        assert found, s["text"]
        numbers.append(int(found.group(1)))
    assert numbers[:2] == [1, 2]

    await game.synced()
    messages = await sb.bot_messages(game.chat_id)
    live = [m for m in messages if sb.buttons(m)]
    assert len(live) == 1, [m["text"].splitlines()[0] for m in live]
    texts = [m["text"] or "" for m in messages if m["message_id"] > first_id]
    assert not [t for t in texts if re.search(r"calls 0\b|уравнивает: 0\b", t)]
    if lang == "ru":
        for text in texts:
            english = re.findall(r"[A-Za-z]{2,}", LATIN_OK.sub("", text))
            assert english == [], text

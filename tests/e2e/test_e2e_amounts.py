"""Typed amounts through the real bot and the sandbox: ✏️ opens a reply addressed to the
presser (ForceReply), his reply is his stake; "@banco_bot 30" stakes too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import Game, Player, decode_action, group_with_bot

PLAYERS = [Player(101, "Ann"), Player(102, "Bob"), Player(103, "Cid")]
CHAT = -1001


async def staking(game: Game) -> tuple[Player, dict[str, Any]]:
    """Twenty-one until a punter is asked to stake: him and the table message."""
    for _ in range(40):
        message = await game.synced()
        awaited = game.awaited(message)
        kinds = {a[2] for _, d in game.sb.buttons(message) if (a := decode_action(d))}
        if awaited and "stake" in kinds:
            return awaited[0], message
        if awaited:
            await game.step(awaited[0], ["start", "cut", "bid", "name_bank", "accept",
                                         "post_bank", "continue"])
    raise AssertionError("nobody was asked to stake")


def stake_on(message: dict[str, Any], player: Player) -> str:
    """The seat line of ``player``."""
    return next(ln for ln in message["text"].splitlines()
                if ln.startswith((player.name, f"▶ {player.name}")))


async def test_a_reply_to_the_prompt_and_at_bot_are_stakes(
        sandbox: Any, bot_factory: Any, tmp_path: Path) -> None:
    game = await group_with_bot(sandbox, bot_factory, tmp_path / "data", CHAT, PLAYERS,
                                timeout=60, table="twenty_one", start=True)
    sb, bot = game.sb, game.bot
    player, message = await staking(game)
    ask = next(d for _, d in sb.buttons(message)
               if (a := decode_action(d)) and a[2] == "stake" and a[3] == "?")
    answer = await sb.press(CHAT, message["message_id"], player.id, ask, wait=10)
    assert answer["text"].startswith("Type the amount (")

    async def prompt() -> dict[str, Any] | None:
        return next((m for m in await sb.bot_messages(CHAT)
                     if (m.get("reply_markup") or {}).get("force_reply")), None)

    asked = await sb.wait_for(prompt, timeout=10)
    low, high = asked["reply_markup"]["input_field_placeholder"].split("–")
    assert asked["text"] == f"{player.name}, Stake: how much? {low}–{high}"
    assert asked["reply_markup"]["selective"] is True
    assert any(e["type"] == "text_link" and e["url"] == f"tg://user?id={player.id}"
               for e in asked["entities"])
    amount = int(low) + 1
    sent = await sb.send(CHAT, player.id, str(amount), reply_to=asked["message_id"])
    assert sent["delivered"]

    async def staked() -> dict[str, Any] | None:
        m = await game.synced()
        return m if f"stake {amount}" in stake_on(m, player) else None

    await sb.wait_for(staked, timeout=10)

    # the next punter asked to stake writes "@banco_bot N" instead
    nxt, message = await staking(game)
    assert nxt != player
    sent = await sb.send(CHAT, nxt.id, f"@banco_bot {low}")
    assert sent["delivered"]

    async def staked_too() -> dict[str, Any] | None:
        # read in the coup's log (the table's, or the result's): the last stake deals the
        # cards, and a natural may settle his stake at once, off his seat line
        for m in await sb.bot_messages(CHAT):
            if any(ln.endswith(f"{nxt.name} stakes {low}") for ln in m["text"].splitlines()):
                return m
        return None

    await sb.wait_for(staked_too, timeout=10)
    assert "Traceback" not in bot.log_text()

"""Jackpots' private *Open*, through the real bot: a fixed deck gives one player openers.

The shoe is fixed the way a restart would find it: the table is opened and
everybody sits down, the bot is stopped, the stored state gets a queued fixed
shoe (``PokerState.queued_shoes``), and a new bot process resumes from it. The
first hand is then dealt from that shoe (Ann deals; Bob acts first, then Cid).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from harness import (
    GROUP_METHODS,
    BotProcess,
    Game,
    Player,
    _chat,
    _texts,
    decode_action,
    synced_now,
)
from poker_fixtures import draw_order, fixed_shoe

from bot.view import i18n
from games import registry
from games.engine import Reason

CHAT = -4004
ANN, BOB, CID = Player(401, "Ann"), Player(402, "Bob"), Player(403, "Cid")
OPENERS = ["Jc", "Jd", "3h", "4s", "8c"]  # a pair of jacks: may open
NOTHING = ["2c", "5d", "7h", "9s", "Kc"]  # king high: may not
ANN_HAND = ["2d", "6d", "7c", "9h", "Qc"]
# the words a group must never show before the pot is opened: Open and its forms
OPEN_WORDS = re.compile(r"(?i)\bopen|открыт|открыв")
TABLE_TITLE = "Draw poker (jackpots) · hand"
POLICY = ["call", "check", "discard", "fold"]


async def seated_with_fixed_shoe(game: Game, tmp_path: Path, bot_factory: list[BotProcess],
                                 hands: list[list[str]]) -> None:
    """Table open, three seated, the next shoe fixed while the bot is down, Ann starts."""
    await game.setup()
    await game.enable_dms()
    await game.command(ANN, "/newtable draw_poker")
    for p in (ANN, BOB, CID):
        await game.step(p, ["join"])
    await game.synced()
    game.bot.kill()
    name, state_json, version = game.bot.db_table(CHAT) or ("", "", 0)
    engine = registry.engine(name)
    state = engine.state_type.model_validate_json(state_json)
    shoe = fixed_shoe(draw_order(hands))
    game.bot.write_state(CHAT, state.model_copy(update={"queued_shoes": [shoe]})
                         .model_dump_json())
    restarted = BotProcess(game.bot.url, tmp_path / "data", timeout=30)
    bot_factory.append(restarted)
    restarted.start()
    game.bot = restarted
    assert (await game.synced()) and restarted.db_table(CHAT)[2] == version
    await game.step(ANN, ["start"])


def kinds(sb: Any, message: dict[str, Any] | None) -> set[str]:
    """Action kinds on a message's buttons."""
    return {a[2] for _, d in sb.buttons(message) if (a := decode_action(d))}


def turn_line(message: dict[str, Any], player: Player) -> str:
    """The ⏳ line with the awaited name and the deadline taken out: its shape."""
    line = next(ln for ln in message["text"].splitlines() if ln.startswith("⏳"))
    return re.sub(r"\d+ s$", "N s", line.replace(player.name, "NAME"))


async def decision_message(game: Game, player: Player) -> tuple[dict[str, Any], int]:
    """The synced table message while ``player`` is awaited before the opening; checks the
    group cannot tell what he holds: the neutral private line, no decision buttons."""
    await game.synced()

    async def clocked() -> dict[str, Any] | None:
        # his clock starts once his turn has reached him: then the group shows the time
        m = await synced_now(game)
        return m if m and turn_line(m, player).endswith(" s") else None

    message = await game.sb.wait_for(clocked, timeout=10)
    version = game.bot.db_meta(CHAT)["decision"]
    assert game.awaited(message) == [player]
    expected = i18n.t("en", "turn_private", names=player.name, left="N s")
    assert turn_line(message, player) == expected.replace(player.name, "NAME"), message["text"]
    assert kinds(game.sb, message) <= {"leave", "join"}, game.sb.buttons(message)
    return message, version


async def forged_open(game: Game, player: Player, version: int) -> dict[str, Any]:
    """``player`` presses a made-up Open of step ``version`` in his private chat."""
    dm = await game.sb.last_bot_message(player.id)
    assert dm is not None
    answer = await game.sb.press(player.id, dm["message_id"], player.id,
                                 f"a|{CHAT}|1|{version}|open|2", forge=True, wait=10)
    assert answer["answered"]
    assert game.bot.db_table(CHAT)[2] == version  # nothing changed
    return answer


async def group_texts(game: Game, before: int | None = None) -> list[str]:
    """Every table text and button label the bot sent to the group (up to log ``before``)."""
    out: list[str] = []
    for entry in await game.sb.log():
        if _chat(entry) != CHAT or entry["method"] not in GROUP_METHODS:
            continue
        if before is not None and entry["seq"] >= before:
            continue
        texts = _texts(entry.get("params") or {})
        if texts[0].startswith(TABLE_TITLE) or entry["method"] == "editMessageReplyMarkup":
            out.extend(texts)
    return out


async def group_buttons(game: Game) -> list[str]:
    """Every button label the bot ever put in the group."""
    out: list[str] = []
    for entry in await game.sb.log():
        if _chat(entry) == CHAT and entry["method"] in GROUP_METHODS:
            out.extend(_texts(entry.get("params") or {})[1:])
    return out


@pytest.mark.parametrize("holder_first", [True, False])
async def test_open_only_in_the_holders_private_chat(holder_first: bool, sandbox, bot_factory,
                                                     tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=30)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, [ANN, BOB, CID])
    holder, other = (BOB, CID) if holder_first else (CID, BOB)
    hands = [OPENERS, NOTHING, ANN_HAND] if holder_first else [NOTHING, OPENERS, ANN_HAND]
    await seated_with_fixed_shoe(game, tmp_path, bot_factory, hands)
    assert game.bot.db_table(CHAT) is not None

    # Bob decides first; the group sees the same neutral line whatever he holds
    first, version = await decision_message(game, BOB)
    bob_keys = kinds(sb, await game.dm_keyboard(BOB, version))
    assert ("open" in bob_keys) == holder_first and "check" in bob_keys
    if holder_first:
        refused = await forged_open(game, other, version)
        assert refused["text"] == i18n.reason_text("en", Reason.NOT_YOUR_TURN)
    else:
        refused = await forged_open(game, other, version)
        assert refused["text"] == "You need jacks or better to open."
        await game.step(BOB, ["check"])
        second, version = await decision_message(game, CID)
        assert turn_line(second, CID) == turn_line(first, BOB)
        assert sb.buttons(second) == [(t, d.replace(f"|{version - 1}|", f"|{version}|"))
                                      for t, d in sb.buttons(first) if d]
        assert "open" in kinds(sb, await game.dm_keyboard(CID, version))

    # the holder opens from his private chat: the group sees the bet
    log_before = max(e["seq"] for e in await sb.log()) + 1
    await game.step(holder, ["open"])
    table = await game.synced()
    assert game.bot.db_table(CHAT)[2] == version + 1
    seat = next(ln for ln in table["text"].splitlines()
                if ln.startswith((holder.name, f"▶ {holder.name}")))
    assert "stake 2" in seat and "💰997" in seat, table["text"]
    # the pot counts the bets of the round: 3 antes and the 2 he opened with
    assert " · pot 5" in table["text"].splitlines()[0], table["text"]
    assert not any(OPEN_WORDS.search(t) for t in await group_texts(game, log_before)), \
        await group_texts(game, log_before)

    # now the other player may not open either: refused, nothing changes
    if holder_first:
        refused = await forged_open(game, other, version + 1)
        assert refused["text"] == i18n.reason_text("en", Reason.NOT_ALLOWED)

    await game.play_until_settled({}, POLICY)
    assert not any(OPEN_WORDS.search(t) for t in await group_buttons(game))

"""The group's table message keeps up with the table under the group's budget (issue 32).

Seen played: the card showed `pot 3` and `Boris · to act` three actions later with a pot
of 7 (the coup's refreshes were spent: the edit was held until the result); a player
without a private chat staked by reply and the group still showed him `to act` with stake
buttons that answered "You cannot do that now."; and he was told he was "deciding
privately". Through the real bot on seeded shoes, at the group's pace: players with a
private chat act on their turn prompts there, Fay (who never opened hers) on the group.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from harness import DEFAULT, ROOT, BotProcess, Game, Player, decode_action
from test_e2e_keyboards import free_port, with_app

from bot.view import i18n
from games import registry

ANN, BOB, CID, FAY = Player(611, "Ann"), Player(612, "Bob"), Player(613, "Cid"), Player(614, "Fay")
SEEDED = Path(__file__).resolve().with_name("seeded")
TO_ACT = " · " + i18n.word("en", "to act", "status")
POT = re.compile(r"\bpot (\d+)\b")
STAKE = re.compile(r" · stake (\d+)\b")
LIE_FOR = 6.0
"""Seconds the card may lag behind the table at most (its turn is then drawn): one gap of
the test's pace (1 s), and the machine's slowness, well under the coup's length."""


async def paced_table(sandbox: Any, bot_factory: list[BotProcess], data: Path, chat: int,
                      name: str, players: list[Player], dms: list[Player], **env: str) -> Game:
    """A bot with turn prompts in private chats, its group's edits paced as ``env`` says,
    its shoes seeded; a group of ``players`` (``dms`` opened their private chats) seated at
    a table of ``name``, its first coup started."""
    handle, sb = sandbox
    bot = BotProcess(handle.url, data, timeout=60, extra={
        "TURN_DMS": "1", "GROUP_RESERVE": "3", "SHOE_SEED": f"group card {name}",
        "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}", **env})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, chat, players)
    await game.setup()
    await game.enable_dms(dms)
    await seated(game, name)
    return game


async def seated(game: Game, name: str) -> None:
    """``name``'s table open, every player seated from its Join button, the first starts
    (pressed as the message stands: at the group's pace it is not redrawn every step)."""
    sb = game.sb
    await game.command(game.players[0], f"/newtable {name}")
    message = await sb.wait_for(game.table_message, timeout=30)
    join = next(d for _, d in sb.buttons(message) if (a := decode_action(d)) and a[2] == "join")
    for p in game.players:
        await sb.press(game.chat_id, message["message_id"], p.id, join, wait=10)

    async def start() -> tuple[dict[str, Any], str] | None:
        m = await game.table_message()
        data = next((d for _, d in sb.buttons(m) if (a := decode_action(d)) and a[2] == "start"),
                    None)
        return (m, data) if m and data else None

    message, data = await sb.wait_for(start, timeout=30)
    await sb.press(game.chat_id, message["message_id"], game.players[0].id, data, wait=10)


def table_now(game: Game) -> tuple[list[str], dict[str, int], str, int]:
    """As stored: the awaited players' names, the chips in play (the pot, each seat's
    stake), the phase, the decision."""
    row = game.bot.db_table(game.chat_id)
    assert row is not None
    engine = registry.engine(row[0])
    view = engine.view(engine.state_type.model_validate_json(row[1]), None)
    names = {s.player: s.name for s in view.seats}
    return ([names[p] for p in view.awaiting],
            {"pot": view.pot} | {s.name: s.stake for s in view.seats if s.stake}, view.phase,
            int(game.bot.db_meta(game.chat_id).get("decision", 0)))


def seat_name(line: str) -> str:
    """The name on a seat line."""
    return line.lstrip("▶ ").split(" · ")[0].split(" (")[0]


def to_act(text: str) -> list[str]:
    """The names the card shows `to act`, in seat order."""
    return [seat_name(ln) for ln in text.splitlines() if ln.endswith(TO_ACT)]


def in_play(text: str) -> dict[str, int]:
    """The chips in play the card shows: the pot on its first line, each seat's stake."""
    pot = POT.search(text.split("\n", 1)[0])
    return {"pot": int(pot[1]) if pot else 0} | {
        seat_name(ln): int(m[1]) for ln in text.splitlines()
        if ln.split(" · ")[1:2] and ln.split(" · ")[1].startswith("💰")
        and (m := STAKE.search(ln))}


async def prompt_of(game: Game, player: Player, decision: int) -> dict[str, Any] | None:
    """``player``'s turn prompt of ``decision`` in his private chat, once it is there."""
    for m in reversed(await game.sb.bot_messages(player.id)):
        if any((a := decode_action(d)) and a[1] == decision for _, d in game.sb.buttons(m)):
            return m
    return None


async def act_in_private(game: Game, player: Player, decision: int,
                         prefer: tuple[str, ...] = ()) -> None:
    """``player`` answers his turn prompt: the first of the ``prefer`` moves, or of the
    usual ones, that the table takes."""
    prompt = await game.sb.wait_for(lambda: prompt_of(game, player, decision), timeout=10)
    done = await game._press_first(player, [*prefer, *DEFAULT], player.id, prompt, "min")
    assert done is not None, prompt["text"]


async def card_tells_the_truth(game: Game) -> dict[str, Any]:
    """Wait until the group's table message shows as `to act` whom the table awaits, and
    its pot; it, then."""
    async def true() -> dict[str, Any] | None:
        awaited, chips, _, _ = table_now(game)
        m = await game.table_message()
        return m if m and to_act(m["text"]) == awaited and in_play(m["text"]) == chips \
            else None

    try:
        return await game.sb.wait_for(true, timeout=LIE_FOR)
    except (AssertionError, TimeoutError) as exc:
        m = await game.table_message()
        raise AssertionError(f"the table awaits {table_now(game)[:2]}, its card shows "
                             f"{(to_act(m['text']), in_play(m['text'])) if m else None}:\n"
                             f"{m['text'] if m else None}") from exc


async def test_the_card_of_a_stud_hand_follows_every_turn_and_the_pot(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Four players decide in private; the coup's one refresh is soon spent. After every
    move the card shows, within a gap of the pace, who is to act now and the pot."""
    game = await paced_table(sandbox, bot_factory, tmp_path / "data", -4611, "stud_poker",
                             [ANN, BOB, CID, FAY], [ANN, BOB, CID, FAY],
                             GROUP_MESSAGES_PER_MINUTE="60", GROUP_EDIT_GAP="1",
                             GROUP_EDITS_PER_COUP="1")
    players = {p.name: p for p in game.players}
    moves, seen = 0, set()
    while not await game.settlements():
        await card_tells_the_truth(game)
        awaited, chips, _, decision = table_now(game)
        if not awaited:
            continue
        seen.add(sum(chips.values()))
        await act_in_private(game, players[awaited[0]], decision, ("bet", "call"))
        moves += 1
    # every street's bets: the card followed each of them, and the chips as they grew
    assert moves >= 8 and len(seen) >= 3, (moves, seen)


async def test_a_player_without_a_private_chat_learns_where_his_buttons_are(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Twenty-one at the production pace. Fay stakes by typing her amount in reply: her
    turn and its stake buttons leave the card at once (not a gap later, nor at the result).
    Her buy or stand is a private decision: the card tells her that her buttons are under
    *My cards*, not that she decides privately."""
    chat = -4612
    game = await paced_table(sandbox, bot_factory, tmp_path / "data", chat, "twenty_one",
                             [ANN, BOB, FAY], [ANN, BOB], GROUP_MESSAGES_PER_MINUTE="20",
                             GROUP_EDIT_GAP="8", GROUP_EDITS_PER_COUP="3")
    sb = game.sb
    players = {p.name: p for p in game.players}
    staked = False
    for _ in range(60):
        awaited, _, phase, decision = table_now(game)
        if "Fay" not in awaited:
            if awaited:
                await act_in_private(game, players[awaited[0]], decision)
            else:  # a step on its way
                await sb.wait_for(lambda: table_now(game)[0], timeout=10)
            continue
        if staked:
            break
        # her turn reaches her on the group's card (she has no private chat)
        async def her_turn(decision: int = decision) -> dict[str, Any] | None:
            m = await game.table_message()
            return m if m and "Fay" in to_act(m["text"]) and any(
                (a := decode_action(d)) and a[1] == decision for _, d in sb.buttons(m)) \
                else None

        card = await sb.wait_for(her_turn, timeout=10)
        if phase != "staking":  # the cut
            assert await game._press_first(FAY, DEFAULT, chat, card, "min") is not None
            continue
        ask = next(d for _, d in sb.buttons(card)
                   if (a := decode_action(d)) and a[2] == "stake" and a[3] == "?")
        await sb.press(chat, card["message_id"], FAY.id, ask, wait=10)

        async def prompt() -> dict[str, Any] | None:
            return next((m for m in await sb.bot_messages(chat)
                         if (m.get("reply_markup") or {}).get("force_reply")), None)

        asked = await sb.wait_for(prompt, timeout=10)
        await sb.send(chat, FAY.id, "10", reply_to=asked["message_id"])
        await sb.wait_for(lambda: "Fay" not in table_now(game)[0], timeout=10)

        async def taken_off() -> dict[str, Any] | None:
            m = await game.table_message()
            return m if m and "Fay" not in to_act(m["text"]) and "stake 10" in m["text"] \
                and not any((a := decode_action(d)) and a[2] == "stake"
                            for _, d in sb.buttons(m)) else None

        await sb.wait_for(taken_off, timeout=3)
        staked = True
    else:
        raise AssertionError("Fay was never asked to buy or stand")
    # her buy or stand: the card tells her where her buttons are
    async def told() -> dict[str, Any] | None:
        m = await game.table_message()
        return m if m and "👉 Fay: your buttons are under 🂠 My cards." in m["text"] else None

    card = await sb.wait_for(told, timeout=10)
    turn = next(ln for ln in card["text"].splitlines() if ln.startswith("⏳"))
    assert re.fullmatch(r"⏳ Fay · \d+ s", turn), turn
    assert "deciding privately" not in card["text"]


async def test_between_coups_in_the_app_the_group_keeps_the_table_link_and_hears_the_bank(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Chemin de fer played in the Mini App (its default where the bot has one), everybody
    deciding on his turn prompts. A coup's result keeps the *Open table* link, so between
    coups (the bank offered, before the next coup's card) the group still has it; the bank
    offered after a coup is told on that result."""
    chat = -4613
    game = await paced_table(sandbox, bot_factory, tmp_path / "data", chat, "chemin_de_fer",
                             [ANN, BOB, CID], [ANN, BOB, CID], **with_app(free_port()))
    sb = game.sb
    players = {p.name: p for p in game.players}
    for _ in range(40):  # the seeded first coup: Cid's natural beats the bank
        awaited, _, phase, decision = table_now(game)
        if phase == "bank_offer":
            break
        if awaited:
            await act_in_private(game, players[awaited[0]], decision)
        else:  # a step on its way
            await sb.wait_for(lambda: table_now(game)[0], timeout=10)
    else:
        raise AssertionError("the bank was never offered")
    assert awaited == ["Cid"]

    async def told() -> dict[str, Any] | None:
        last = (await sb.bot_messages(chat))[-1]
        return last if last["text"].endswith("\n· The bank is offered to Cid") else None

    result = await sb.wait_for(told, timeout=10)
    assert result["text"].startswith("🏆 Cid wins 1 with 9 points\nChemin de fer · coup #1 "
                                     "settled\n"), result["text"]
    assert result["text"].splitlines()[-2:] == ["· Ann passes the bank on",
                                                "· The bank is offered to Cid"]
    assert [[b["text"] for b in row] for row in result["reply_markup"]["inline_keyboard"]] \
        == [["🃏 Open table"]]
    assert "/table?startapp=" in result["reply_markup"]["inline_keyboard"][0][0]["url"]
    # the next coup's card comes once Cid posts his bank, the link first as ever
    await act_in_private(game, CID, table_now(game)[3])

    async def card() -> dict[str, Any] | None:
        last = (await sb.bot_messages(chat))[-1]
        return last if last["text"].startswith("Chemin de fer · coup #2") else None

    assert (await sb.wait_for(card, timeout=10))["reply_markup"]["inline_keyboard"][0] == \
        result["reply_markup"]["inline_keyboard"][0]

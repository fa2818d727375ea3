"""Banchok played in the chat at a table whose screen is the Mini App (the bot has the app, so
``screen`` is ``app``): the real bot through the sandbox, a seeded shoe, every player on his
private prompts and the group, none on a page.

Coup 1: the punter stakes from his prompt with joining allowed, and another player joins
his stake from the group's card (drawn again to offer it). Coup 2: that player, now the
punter, flips his prompt's switch to *No joining* (the prompt's keyboard drawn again in
place, nothing played) and stakes: nobody is offered to join, and his card is turned at once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, BotProcess, Game, Player
from test_banchok_keyboards import TEXTS as KEYBOARDS
from test_e2e_webhook import free_port

from games import registry

SEEDED = Path(__file__).resolve().with_name("seeded")
CHAT = -9410
ANN, BOB, CID = Player(941, "Ann"), Player(942, "Bob"), Player(943, "Cid")
PLAYERS = [ANN, BOB, CID]
TIMEOUT = 20.0


# the punter's prompts as the in-process tests read them, then coup 2's (the punter's 5 and
# the joiner's 5 went to the bank, now 310), the join row of the group's card, the joiner's
# pop-up and the punter's *Turn card*
TEXTS: dict[str, dict[str, Any]] = {
    "en": {**KEYBOARDS["en"],
           "allowed2": [["🔁 Joining allowed"], ["Stake 5", "25", "77"],
                        ["310", "✏️ amount"], ["🚪 Leave"], ["🃏 Open table"]],
           "forbidden2": [["🔁 No joining"], ["Stake 5", "25", "77"],
                          ["310", "✏️ amount"], ["🚪 Leave"], ["🃏 Open table"]],
           "join_row": ["Join stake (punter) 1", "5", "75"], "joined": "Join stake",
           "turn": "Turn card"},
    "ru": {**KEYBOARDS["ru"],
           "allowed2": [["🔁 С примазкой"], ["Ставка 5", "25", "77"],
                        ["310", "✏️ сумма"], ["🚪 Встать"], ["🃏 Открыть стол"]],
           "forbidden2": [["🔁 Без примазки"], ["Ставка 5", "25", "77"],
                          ["310", "✏️ сумма"], ["🚪 Встать"], ["🃏 Открыть стол"]],
           "join_row": ["Примазаться (понтёр) 1", "5"], "joined": "Примазаться",
           "turn": "Открыть карту"},
}


def rows(message: dict[str, Any] | None) -> list[list[str]]:
    markup = (message or {}).get("reply_markup") or {}
    return [[b["text"] for b in row] for row in markup.get("inline_keyboard", [])]


def data_of(message: dict[str, Any], text: str) -> str:
    return next(b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
                for b in row if b["text"] == text)


class Table:
    """The stored table, as the bot committed it."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.engine = registry.engine("banchok")

    def state(self) -> Any:
        row = self.game.bot.db_table(self.game.chat_id)
        assert row is not None
        return self.engine.state_type.model_validate_json(row[1])

    def decision(self) -> int:
        return int(self.game.bot.db_meta(self.game.chat_id).get("decision", 0))

    def awaited(self) -> Player:
        [player] = self.engine.awaiting(self.state())
        return next(p for p in PLAYERS if p.id == player)


async def press(game: Game, chat: int, message: dict[str, Any], player: Player,
                text: str) -> dict[str, Any]:
    answer = await game.sb.press(chat, message["message_id"], player.id,
                                 data_of(message, text), wait=10)
    assert answer["answered"], answer
    return answer


async def group_offering_join(game: Game) -> dict[str, Any]:
    """The group's table message once it offers to join the stake."""
    async def offered() -> dict[str, Any] | None:
        for m in reversed(await game.sb.bot_messages(CHAT)):
            if any(d and "|join_stake|" in d for _, d in game.sb.buttons(m)):
                return m
        return None

    return await game.sb.wait_for(offered, timeout=TIMEOUT)


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_chat_player_joins_a_stake_and_another_stakes_with_no_joining(
        lang: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    port = free_port()
    app_url = f"http://127.0.0.1:{port}/app/"
    bot = BotProcess(handle.url, tmp_path / "data", timeout=120.0, extra={
        "WEBAPP_URL": app_url, "WEBAPP_SHORT_NAME": "table", "WEBAPP_LISTEN": "127.0.0.1",
        "WEBAPP_PORT": str(port), "WEBAPP_SDK_URL": f"{handle.url}/js/telegram-web-app.js",
        "SHOE_SEED": "banchok join e2e", "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}"})
    bot_factory.append(bot)
    bot.start()
    texts = TEXTS[lang]
    game = Game(sb, bot, CHAT, PLAYERS)
    for p in PLAYERS:
        await sb.add_user(p.id, p.name, username=p.name.lower(), language_code=lang)
    await sb.add_chat(CHAT, "Banchok", "supergroup", members=[p.id for p in PLAYERS],
                      admins=[ANN.id])
    await sb.add_bot(CHAT, ANN.id)
    await game.enable_dms()
    await game.command(ANN, "/newtable banchok")
    for p in PLAYERS:
        await game.step(p, ["join"])
    await game.step(ANN, ["start"])
    table = Table(game)

    # the bank's offer and the cut, each on its player's prompt
    for _ in range(10):
        await sb.wait_for(lambda: table.engine.awaiting(table.state()) or None, timeout=TIMEOUT)
        if table.state().phase == "staking":
            break
        player = table.awaited()
        dm = await game.dm_keyboard(player, table.decision())
        kind = "post_bank" if table.state().phase == "post" else "cut"
        data = next(d for _, d in sb.buttons(dm) if d and f"|{kind}|" in d and "|?" not in d)
        await sb.press(player.id, dm["message_id"], player.id, data, wait=10)
    state = table.state()
    assert state.phase == "staking"
    banker = next(p for p in PLAYERS if p.id == state.banker)
    punter = table.awaited()
    [joiner] = [p for p in PLAYERS if p not in (banker, punter)]

    # coup 1: the punter's prompt has one switch over one row of amounts
    dm = await game.dm_keyboard(punter, table.decision())
    assert rows(dm) == texts["allowed"]
    await press(game, punter.id, dm, punter, texts["allowed"][1][0])  # "Stake 5"
    # the group's card offers the others to join, and the joiner does, from the group
    card = await group_offering_join(game)
    join_rows = rows(card)
    assert texts["join_row"] in join_rows, join_rows
    answer = await press(game, CHAT, card, joiner, "5")
    assert answer["text"].startswith(texts["joined"]), answer
    state = table.state()
    assert state.joiners == [joiner.id]
    assert {s.player: s.stake for s in state.seats} == {punter.id: 5, joiner.id: 5,
                                                        banker.id: 0}
    dm = await game.dm_keyboard(punter, table.decision())
    await press(game, punter.id, dm, punter, texts["turn"])
    await sb.wait_for(lambda: (table.state().coup >= 2 and table.state().phase == "staking")
                      or None, timeout=TIMEOUT)
    # the joiner's part played at the punter's odds (the seeded card covered them both)
    assert table.state().last.results == [(punter.id, -5), (joiner.id, -5)]

    # coup 2: the joiner is the punter; his switch draws his prompt again with no joining
    assert table.awaited() == joiner
    version = table.state().version
    dm = await game.dm_keyboard(joiner, table.decision())
    assert rows(dm) == texts["allowed2"], (rows(dm), table.state().bank)
    answer = await press(game, joiner.id, dm, joiner, texts["allowed"][0][0])
    assert answer["text"] == texts["to_forbidden"]

    async def switched() -> dict[str, Any] | None:
        for m in await sb.bot_messages(joiner.id):
            if m["message_id"] == dm["message_id"] and rows(m) == texts["forbidden2"]:
                return m
        return None

    dm = await sb.wait_for(switched, timeout=TIMEOUT)
    assert table.state().version == version  # only the keyboard changed: nothing played
    mark = len(await sb.log())
    await press(game, joiner.id, dm, joiner, texts["forbidden2"][1][0])  # "Stake 5"
    await sb.wait_for(lambda: table.state().coup >= 3 or None, timeout=TIMEOUT)
    seat = next(s for s in table.state().seats if s.player == joiner.id)
    assert seat.forbids
    last = table.state().last
    assert last is not None and [p for p, _ in last.results] == [joiner.id]
    # nobody was offered to join his stake, anywhere
    after = json.dumps(await sb.log(since=mark), ensure_ascii=False)
    assert "|join_stake|" not in after


SWITCHED_HERE = [["🔁 No joining"], ["Stake 5", "25", "75"], ["300", "✏️ amount"],
                 ["🚪 Leave"]]
"""Fay's own keyboard with no joining, in her view shown to her alone in the group."""


async def test_the_switch_works_on_the_group_table_and_on_a_view_shown_to_her_alone(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """A table played in the chat; Fay has no private chat, so her stake is on the group's
    table message: its switch draws that keyboard again in place (the group's message);
    from *My cards*, her view shown to her alone has the switch too, drawn again in place
    there, and its amounts stake with no joining."""
    from harness import DEFAULT, decode_action
    from test_e2e_ephemeral import FAY, start

    game = await start(sandbox, bot_factory, tmp_path, -2436, "banchok")
    sb, chat = game.sb, game.chat_id
    for _ in range(40):  # until the table waits for Fay's stake
        message = await game.synced()
        if game.awaited(message) == [FAY] and any(
                (a := decode_action(d)) is not None and a[2] == "stake"
                for _, d in sb.buttons(message)):
            break
        await game.step(game.awaited(message)[0], DEFAULT)
    else:
        raise AssertionError("Fay was never asked to stake")
    version = game.bot.db_table(chat)[2]  # type: ignore[index]
    stakes = rows(message)[:3]
    assert stakes == [["🔁 Joining allowed"], ["Stake 5", "25", "75"], ["300", "✏️ amount"]]

    # on the group's table message: that message's keyboard, drawn again in place
    answer = await press(game, chat, message, FAY, "🔁 Joining allowed")
    assert answer["text"] == "Your stake now: No joining"

    async def group_switched() -> dict[str, Any] | None:
        m = next(m for m in await sb.bot_messages(chat) if m["message_id"] == message["message_id"])
        return m if rows(m)[:3] == SWITCHED_HERE[:3] else None

    await sb.wait_for(group_switched, timeout=TIMEOUT)

    # in her view shown to her alone
    mine = next(d for _, d in sb.buttons(message) if d and d.startswith("m|"))
    assert (await sb.press(chat, message["message_id"], FAY.id, mine, wait=10))["answered"]

    async def view(expected: list[list[str]]) -> dict[str, Any] | None:
        return next((m for m in reversed(await sb.view(chat, FAY.id))
                     if m.get("ephemeral") and rows(m) == expected), None)

    allowed = [["🔁 Joining allowed"], *SWITCHED_HERE[1:]]
    shown = await sb.wait_for(lambda: view(allowed), timeout=TIMEOUT)
    switch = data_of(shown, "🔁 Joining allowed")
    number = shown["ephemeral_message_id"]
    answer = await sb.press_ephemeral(chat, number, FAY.id, switch, wait=10)
    assert answer["text"] == "Your stake now: No joining"
    shown = await sb.wait_for(lambda: view(SWITCHED_HERE), timeout=TIMEOUT)
    assert shown["ephemeral_message_id"] == number  # the same view, drawn again
    assert game.bot.db_table(chat)[2] == version  # type: ignore[index]  # nothing played
    answer = await sb.press_ephemeral(chat, number, FAY.id, data_of(shown, "Stake 5"), wait=10)
    assert answer["answered"]
    await sb.wait_for(lambda: game.bot.db_table(chat)[2] > version or None,  # type: ignore[index]
                      timeout=TIMEOUT)
    state = Table(game).state()
    assert next(s for s in state.seats if s.player == FAY.id).forbids

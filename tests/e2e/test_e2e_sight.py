"""Nobody decides blind: at every decision, what the awaited player sees shows every public
card and amount the group's table shows at that moment.

With turn DMs on (the default), a player who opened his private chat decides there, on his
turn prompt; one who did not decides on the group's table. For each of the six games,
through the real bot: at every decision the public view is read from the bot's database
(every seat's face-up cards and stake, the bank, the pot, the public facts such as the
amount to call), and the awaited player's newest prompt, or the group's table for Cid who
never opened his private chat (in the games with no private decision), must show all of it
before he presses. The prompts once
said only "Your cards: 8♥ / Your hand: queen high": stud was bet blind, baccarat's banker
drew without seeing the punter's face-up third card, and twenty-one's banker never saw a
punter's 21 turned face up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness import DEFAULT, POLICIES, BotProcess, Game, Player, decode_action

from bot.view import i18n, render
from games import registry
from games.cards import pretty_all

ANN, BOB, CID = Player(111, "Ann"), Player(112, "Bob"), Player(113, "Cid")
CHAT = -1101
GAMES = ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
OPEN_ONLY = ("banchok", "stud_poker")
"""Games without a private decision (no hidden card decides what a player may do)."""


def missing(text: str, view: Any) -> list[str]:
    """What of a public view ``text`` does not show, as the group's table shows it: each
    seat's face-up cards and stake on that seat's line, the bank, the pot and the public
    facts (the amount to call...)."""
    lines = text.splitlines()
    wanted = [i18n.plain(i18n.t("en", "bank", amount=view.bank))] if view.bank else []
    if view.pot:
        wanted.append(i18n.plain(i18n.t("en", "pot", amount=view.pot)))
    wanted += [i18n.plain(line) for line in render.info_lines(
        "en", view.facts, render.names_of(view))]
    out = [str(w) for w in wanted if w not in text]
    for seat in view.seats:
        shown = [pretty_all(list(seat.face_up))] if seat.face_up else []
        if seat.stake:
            shown.append(i18n.plain(i18n.t("en", "seat_stake", stake=seat.stake)))
        line = next((ln for ln in lines if ln.lstrip("▶ ").startswith(seat.name + " ")
                     or ln.lstrip("▶ ") == seat.name), "")
        out += [f"{seat.name}: {w}" for w in shown if w not in line]
    return out


async def newest_prompt(game: Game, player: Player, decision: int) -> dict[str, Any] | None:
    """The newest message in the player's private chat with buttons of this decision."""
    for m in reversed(await game.sb.bot_messages(player.id)):
        for _, data in game.sb.buttons(m):
            a = decode_action(data)
            if a and data and data.split("|")[1] == str(CHAT) and a[1] == decision:
                return m
    return None


@pytest.mark.parametrize("name", GAMES)
async def test_every_decision_shows_the_deciding_player_the_whole_public_table(
        name: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60, extra={"TURN_DMS": "1"})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, [ANN, BOB, CID])
    await game.setup()
    # where no decision is private, Cid never opens his private chat: he decides on the
    # group's table (a private decision would wait for him in vain, until its deadline)
    blind = name in OPEN_ONLY
    await game.enable_dms([ANN, BOB] if blind else [ANN, BOB, CID])
    await game.command(ANN, f"/newtable {name}")
    for p in game.players:
        await game.step(p, ["join"])
    await game.step(ANN, ["start"])
    policy = POLICIES.get(name, {})
    settled = len(await game.settlements())
    checked: dict[str, int] = {"prompt": 0, "group": 0, "cards": 0}
    for _ in range(120):
        if len(await game.settlements()) > settled:
            break
        row = bot.db_table(CHAT)
        assert row is not None
        engine = registry.engine(row[0])
        state = engine.state_type.model_validate_json(row[1])
        awaited = engine.awaiting(state)
        if not awaited:
            await game.synced()
            continue
        player = next(p for p in game.players if p.id == awaited[0])
        view = engine.view(state, None)
        prefer = policy.get(state.phase, policy.get("", DEFAULT))
        checked["cards"] += any(s.face_up for s in view.seats)
        if player is CID and blind:
            message = await game.synced()
            lacks = missing(message["text"], view)
            assert not lacks, f"the group's table lacks {lacks}:\n{message['text']}"
            checked["group"] += 1
            await game.step(player, prefer)
            continue
        decision = int(bot.db_meta(CHAT).get("decision", 0))

        async def shown(player: Player = player, decision: int = decision,
                        view: Any = view) -> dict[str, Any] | None:
            m = await newest_prompt(game, player, decision)
            return m if m is not None and not missing(m["text"], view) else None

        try:
            prompt = await sb.wait_for(shown, timeout=10)
        except TimeoutError:
            m = await newest_prompt(game, player, decision)
            text = m["text"] if m else "(no prompt)"
            raise AssertionError(f"{player.name} decides on a prompt without "
                                 f"{missing(text, view)}:\n{text}") from None
        checked["prompt"] += 1
        done = await game._press_first(player, prefer, player.id, prompt, "min")
        assert done is not None, f"{player.name} could do none of {prefer} on:\n{prompt}"
    else:
        raise AssertionError(f"{name}: the coup did not settle")
    print(f"\nE2E sight {name}: {checked}")
    assert checked["prompt"] >= 2 and checked["prompt"] + checked["group"] >= 3

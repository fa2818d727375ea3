"""Private cards inside the group (Bot API 10.2 ephemeral messages), through the real bot.

Fay never opens a private chat with the bot. She presses *🂠 My cards* on the group's table
and gets her private view in the group, to her alone: her cards, and while she is
awaited her decision keyboard, which she plays from. Ann and Bob play as usual. Every
call the bot makes is checked by the transcript check (no card shown privately appears in
a group text), and at every step Ann's and Bob's views of the group are read for Fay's
cards. Shoes are seeded (``tests/e2e/seeded/sitecustomize.py``), so each run deals the same
cards.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from harness import (
    DEFAULT,
    POLICIES,
    ROOT,
    BotProcess,
    Game,
    Player,
    cards_in,
    chips,
    decode_action,
)
from test_e2e_sight import missing

from games import registry
from games.cards import pretty_all

ANN, BOB, FAY = Player(2401, "Ann"), Player(2402, "Bob"), Player(2403, "Fay")
SEEDED = Path(__file__).resolve().with_name("seeded")
# what Fay does, from her views, in the seeded first coup: in twenty-one she buys a card
# (the view is edited to her new cards and keyboard) and stands; in stud she checks on
# every street; in draw poker nobody opens five times, then she opens (a decision whose
# mere offer tells her hand: hers alone), discards from her view turned into her
# selection, and checks
FAY_MOVES = {"twenty_one": ["buy", "stand"], "stud_poker": ["check"] * 4,
             "draw_poker": ["check"] * 6 + ["open", "discard", "check"]}


def fay_cards(bot: BotProcess, chat_id: int) -> list[str]:
    """Fay's hidden cards now, from the stored state."""
    row = bot.db_table(chat_id)
    assert row is not None
    engine = registry.engine(row[0])
    state = engine.state_type.model_validate_json(row[1])
    return list(engine.view(state, FAY.id).my_cards)


async def start(sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path, chat_id: int,
                game_name: str, settings: str = "", **env: str) -> Game:
    """A seeded bot, a group of three where Ann and Bob opened their private chats and Fay
    did not, a table of ``game_name`` (with Ann's ``/settings {settings}``, if any) with all
    three seated and its first coup started."""
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60, extra={
        "SHOE_SEED": f"ephemeral e2e {game_name}",
        "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}", **env})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, chat_id, [ANN, BOB, FAY])
    await game.setup()
    await game.enable_dms([ANN, BOB])
    await game.command(ANN, f"/newtable {game_name}")
    if settings:
        await game.synced()
        await game.command(ANN, f"/settings {settings}")
    for p in (ANN, BOB, FAY):
        await game.step(p, ["join"])
    await game.step(ANN, ["start"])
    return game


def awaited_now(bot: BotProcess, chat_id: int) -> list[int]:
    """Whom the stored table awaits."""
    row = bot.db_table(chat_id)
    assert row is not None
    engine = registry.engine(row[0])
    return list(engine.awaiting(engine.state_type.model_validate_json(row[1])))


async def fay_here(game: Game, prefer: list[str]) -> list[str]:
    """Fay presses *My cards* on the table message and finds her view in the group (only in
    her own view of it), showing her cards; she presses the first preferred action on its
    keyboard that the table takes, and, while the table then still awaits her, the same
    view edited to her next decision (her new cards, her new keyboard). What she did."""
    sb, bot, chat = game.sb, game.bot, game.chat_id
    message = await game.synced()
    mine = next(d for _, d in sb.buttons(message) if d and d.startswith("m|"))
    answer = await sb.press(chat, message["message_id"], FAY.id, mine, wait=10)
    assert answer["answered"]
    number: int | None = None
    done: list[str] = []
    while FAY.id in awaited_now(bot, chat):
        decision = int(bot.db_meta(chat).get("decision", 0))
        view = await sb.wait_for(lambda d=decision, n=number: view_of(game, FAY, d, n),
                                 timeout=10)
        number = view["ephemeral_message_id"]
        assert f"Your cards: {pretty_all(fay_cards(bot, chat))}" in view["text"], view["text"]
        assert view["receiver_id"] == FAY.id
        done.append(await fay_presses(game, view, prefer if done else ["buy", *prefer]))
    return done


async def view_of(game: Game, player: Player, decision: int, number: int | None = None
                  ) -> dict[str, Any] | None:
    """The newest view shown to ``player`` alone in the group (its ``number``, if given)
    with his keyboard of ``decision``, as he sees the group now; None if there is none."""
    for m in reversed(await game.sb.view(game.chat_id, player.id)):
        if m.get("ephemeral") and number in (None, m["ephemeral_message_id"]) and any(
                (a := decode_action(d)) is not None and a[1] == decision
                for _, d in game.sb.buttons(m)):
            return m
    return None


async def fay_presses(game: Game, view: dict[str, Any], prefer: list[str]) -> str:
    """Fay presses, on her view, the first preferred action the table takes; its kind."""
    sb, bot, chat = game.sb, game.bot, game.chat_id
    for kind in prefer:
        for label, data in sb.buttons(view):
            action = decode_action(data)
            if action is not None and action[2] == kind and label.endswith("…") and data:
                await fay_picks(game, view, data)
                return kind
            if action is None or action[2] != kind or action[3] == "?" or data is None \
                    or action[3][:1] == "t":  # a switch only draws her keyboard again
                continue
            before = bot.db_table(chat)
            pressed = await sb.press_ephemeral(chat, view["ephemeral_message_id"], FAY.id,
                                               data, wait=10)
            assert pressed["answered"]
            after = bot.db_table(chat)
            if before is not None and after is not None and after[2] != before[2]:
                return kind
    raise AssertionError(f"Fay could do none of {prefer}: {view['text']} "
                         f"{game.sb.buttons(view)}")


async def fay_picks(game: Game, view: dict[str, Any], data: str) -> None:
    """A choice among her own cards (a discard): the view's keyboard turns into her
    selection, and she confirms it as it is (she keeps her cards)."""
    sb, bot, chat = game.sb, game.bot, game.chat_id
    number = view["ephemeral_message_id"]
    await sb.press_ephemeral(chat, number, FAY.id, data, wait=10)

    async def selection() -> dict[str, Any] | None:
        for m in await sb.view(chat, FAY.id):
            if m.get("ephemeral_message_id") == number and any(
                    d and d.startswith("a|") and d.split("|")[5].startswith("k")
                    for _, d in sb.buttons(m)):
                return m
        return None

    picking = await sb.wait_for(selection, timeout=10)
    assert f"Your cards: {pretty_all(fay_cards(bot, chat))}" in picking["text"]
    confirm = next(d for _, d in sb.buttons(picking)
                   if d and d.startswith("a|") and d.split("|")[5].startswith("k"))
    before = bot.db_table(chat)
    await sb.press_ephemeral(chat, number, FAY.id, confirm, wait=10)
    after = bot.db_table(chat)
    assert before is not None and after is not None and after[2] == before[2] + 1


async def until_fay_decides_privately(game: Game) -> dict[str, Any]:
    """Play until the table waits for Fay's private decision (twenty-one's buy or stand);
    the table message then."""
    for _ in range(40):
        message = await game.synced()
        awaited = game.awaited(message)
        if awaited == [FAY] and game.decides_in_private(message, FAY):
            return message
        await game.step(awaited[0], DEFAULT)
    raise AssertionError("Fay was never asked to buy or stand")


async def nobody_else_sees(game: Game, seen: set[str]) -> None:
    """Neither Ann's nor Bob's view of the group shows a card of Fay's that is still hidden,
    and no message there is one of Fay's views."""
    hidden = set(fay_cards(game.bot, game.chat_id))
    for viewer in (ANN, BOB):
        for m in await game.sb.view(game.chat_id, viewer.id):
            assert not m.get("ephemeral") or m.get("receiver_id") == viewer.id
            leaked = set(cards_in(m["text"] or "")) & hidden - seen
            assert not leaked, f"{viewer.name} sees {leaked}: {m['text']}"


async def play_a_coup(game: Game) -> list[str]:
    """Play until a coup settles; Fay only through her views in the group. What she did
    there, in order."""
    fay_moves: list[str] = []
    row = game.bot.db_table(game.chat_id)
    assert row is not None
    # (banchok's punter turns his card)
    prefer = [*POLICIES.get(row[0], {}).get("", DEFAULT), "turn"]
    for _ in range(120):
        if game.bot.db_meta(game.chat_id).get("last_result"):  # settled (as committed: the
            return fay_moves  # next hand may be dealt by the same step, before its message)
        message = await game.synced()
        game.check_hidden(message["text"])
        await nobody_else_sees(game, game.seen_public)
        awaited = game.awaited(message)
        if not awaited:
            continue
        mine = any(d and d.startswith("m|") for _, d in game.sb.buttons(message))
        if awaited[0] == FAY and mine:
            fay_moves += await fay_here(game, prefer)
        elif awaited[0] == FAY:  # no hidden card yet (the cut, the bank): the group's buttons
            assert not game.decides_in_private(message, FAY)
            await game.step(FAY, DEFAULT)
        else:
            await game.step(awaited[0], DEFAULT)
    raise AssertionError("the coup did not settle")


@pytest.mark.parametrize("game_name", ["twenty_one", "stud_poker", "draw_poker"])
async def test_a_player_without_a_private_chat_plays_from_the_group(
        game_name: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    chat = -2400 - len(game_name)
    game = await start(sandbox, bot_factory, tmp_path, chat, game_name)
    sb = game.sb
    moves = await play_a_coup(game)
    assert moves == FAY_MOVES[game_name]
    # she got no private message: she has no private chat with the bot
    assert await sb.bot_messages(FAY.id) == []
    # her views went to her alone, and none of them was ever in the group's history
    views = await sb.ephemeral_messages(chat)
    assert views and {v["receiver_id"] for v in views} == {FAY.id}
    assert not any(m.get("ephemeral") for m in await sb.messages(chat))
    # a view whose decision is gone loses its keyboard (an edit on its way after the step)
    async def disarmed() -> bool:
        decision = int(game.bot.db_meta(chat).get("decision", 0))
        return all(a is None or a[1] == decision
                   for v in await sb.ephemeral_messages(chat)
                   for a in (decode_action(d) for _, d in sb.buttons(v)))

    await sb.wait_for(disarmed, timeout=10)
    held, issued = chips(game.bot)
    assert held == issued


async def test_a_view_never_delivered_leaves_the_pop_up_the_deep_link_and_the_clock(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Fay is offline: Telegram takes her view and never shows it. Her *My cards* pop-up
    still holds her cards, the group's deep link still leads her to the private chat, where
    Start brings her cards and her decision, and her decision's clock ran from the group's
    table, which showed her turn, not from the view."""
    chat = -2431
    game = await start(sandbox, bot_factory, tmp_path, chat, "twenty_one")
    sb, bot = game.sb, game.bot
    await sb.set_offline(FAY.id)
    message = await until_fay_decides_privately(game)
    # the group's table showed her turn: her clock runs (it never waits for a view)
    due = await sb.wait_for(lambda: bot.db_due(chat), timeout=10)
    mine = next(d for _, d in sb.buttons(message) if d and d.startswith("m|"))
    popup = await sb.press(chat, message["message_id"], FAY.id, mine, wait=10)
    cards = fay_cards(bot, chat)
    row = bot.db_table(chat)
    assert row is not None
    engine = registry.engine(row[0])
    total = engine.view(engine.state_type.model_validate_json(row[1]), FAY.id).my_facts["total"]
    assert popup["text"] == f"Your cards: {pretty_all(cards)}\nYour total: {total.n}"

    async def sent() -> list[dict[str, Any]]:
        return [v for v in await sb.ephemeral_messages(chat) if v["receiver_id"] == FAY.id]

    views = await sb.wait_for(sent, timeout=10)
    assert [v["delivered"] for v in views] == [False]
    assert not any(m.get("ephemeral") for m in await sb.view(chat, FAY.id))
    assert bot.db_due(chat) == due
    # the durable way: the deep link the group got, then Start in private
    async def deep_link() -> dict[str, Any] | None:
        return next((m for m in await sb.bot_messages(chat) if "?start=t" in (m["text"] or "")),
                    None)

    link = await sb.wait_for(deep_link, timeout=10)
    assert link["text"].startswith("Fay, I cannot write to you privately. Open ")
    payload = link["text"].split("?start=")[1].split()[0]
    await sb.send(FAY.id, FAY.id, f"/start {payload}")
    dm = await sb.wait_for(lambda: sb.last_bot_message(FAY.id), timeout=10)
    assert f"Your cards: {pretty_all(cards)}" in dm["text"]
    stand = next(d for _, d in sb.buttons(dm) if (a := decode_action(d)) and a[2] == "stand")
    before = bot.db_table(chat)
    await sb.press(FAY.id, dm["message_id"], FAY.id, stand, wait=10)
    after = bot.db_table(chat)
    assert before is not None and after is not None and after[2] == before[2] + 1
    held, issued = chips(bot)
    assert held == issued



CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(os.environ.get("EPHEMERAL_SHOTS")
             or Path(tempfile.gettempdir()) / "banco-ephemeral-e2e")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")
async def test_in_the_sandbox_page_her_view_shows_to_her_and_she_decides_there(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """The sandbox's page as Fay: *My cards* on the table brings her view under it, marked
    as hers alone, with her cards and her buy and stand; she stands from it. As Ann, the
    same group shows none of it."""
    from playwright.async_api import async_playwright

    handle, _ = sandbox
    chat = -2433
    game = await start(sandbox, bot_factory, tmp_path, chat, "twenty_one")
    await until_fay_decides_privately(game)
    cards = pretty_all(fay_cards(game.bot, chat))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 900})
            context.set_default_timeout(10_000)
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(f"{handle.url}/")
            await page.click(f'#users .item[data-user="{FAY.id}"]')
            await page.locator(f'#users .item.sel[data-user="{FAY.id}"]').wait_for()
            await page.locator("#groupchat .msg.bot .kb button", has_text="My cards").last.click()
            mine = page.locator("#groupchat .msg.ephemeral")
            await mine.locator(".kb button", has_text="Stand").wait_for()
            assert await mine.locator(".eph").inner_text() == "Only you can see this"
            text = await mine.locator(".text").inner_text()
            assert f"Your cards: {cards}" in text
            assert "Your move at the table — choose here:" in text
            SHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SHOTS / "fay-view.png"))
            version = (game.bot.db_table(chat) or ("", "", 0))[2]
            await mine.locator(".kb button", has_text="Stand").click()
            await mine.locator(".text >> text=✅ Fay stands").wait_for()
            assert await mine.locator(".kb button").count() == 0  # its decision is gone
            assert (game.bot.db_table(chat) or ("", "", 0))[2] == version + 1
            await page.screenshot(path=str(SHOTS / "fay-stood.png"))
            await page.click(f'#users .item[data-user="{ANN.id}"]')
            await page.locator(f'#users .item.sel[data-user="{ANN.id}"]').wait_for()
            await page.evaluate("refresh()")
            await page.locator("#groupchat .msg.bot").last.wait_for()
            assert await page.locator("#groupchat .msg.ephemeral").count() == 0
            assert await page.locator(f"#groupchat >> text=Your cards: {cards}").count() == 0
            await page.screenshot(path=str(SHOTS / "ann-view.png"))
            assert errors == []
        finally:
            await browser.close()


async def test_a_wrong_amount_asked_from_her_view_is_answered_to_her_alone(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """Fay presses ✏️ on her view shown to her alone: the prompt is hers alone, and so is the
    answer to an amount she typed wrong; the group sees only what she wrote."""
    # banchok: a punter stakes on the card he holds face down, so his view has his stake
    game = await start(sandbox, bot_factory, tmp_path, -2435, "banchok")
    sb, bot, chat = game.sb, game.bot, game.chat_id
    for _ in range(40):  # until the table waits for Fay's stake on her card
        message = await game.synced()
        awaited = game.awaited(message)
        if awaited == [FAY] and fay_cards(bot, chat) and any(
                (a := decode_action(d)) is not None and a[2] == "stake"
                for _, d in sb.buttons(message)):
            break
        await game.step(awaited[0], DEFAULT)
    else:
        raise AssertionError("Fay was never asked to stake")
    mine = next(d for _, d in sb.buttons(message) if d and d.startswith("m|"))
    assert (await sb.press(chat, message["message_id"], FAY.id, mine, wait=10))["answered"]

    async def hers(text: str) -> dict[str, Any] | None:
        return next((m for m in reversed(await sb.view(chat, FAY.id))
                     if m.get("ephemeral") and text in (m["text"] or "")), None)

    async def view() -> dict[str, Any] | None:
        return next((m for m in reversed(await sb.view(chat, FAY.id))
                     if m.get("ephemeral") and any(
                         (a := decode_action(d)) is not None and a[2] == "stake" and a[3] == "?c0"
                         for _, d in sb.buttons(m))), None)

    shown = await sb.wait_for(view, timeout=10)
    ask = next(d for _, d in sb.buttons(shown)
               if (a := decode_action(d)) is not None and a[2] == "stake" and a[3] == "?c0")
    pressed = await sb.press_ephemeral(chat, shown["ephemeral_message_id"], FAY.id, ask,
                                       wait=10)
    assert pressed["text"].startswith("Write the amount (") and pressed["text"].endswith(
        ") in this chat.")
    await sb.wait_for(lambda: hers("Write the number in this chat."), timeout=10)
    # (the bot reads a group line that names it: privacy mode)
    assert (await sb.send(chat, FAY.id, "@banco_bot lots"))["delivered"]
    wrong = "Fay, send a whole number of chips (e.g. 50)."
    answered = await sb.wait_for(lambda: hers(wrong), timeout=10)
    assert answered["receiver_id"] == FAY.id
    # nobody else reads it: not in the group, not in Ann's or Bob's view of it
    assert not any(wrong in (m["text"] or "") for m in await sb.bot_messages(chat))
    for other in (ANN, BOB):
        assert not any(wrong in (m["text"] or "") for m in await sb.view(chat, other.id))
    assert "Traceback" not in bot.log_text()


CLOCK = re.compile(r"^(⏳ .* · )(\d+) s$", re.M)
"""The turn's line with the seconds left, as Telegram shows a ``tg-time`` to older apps."""


def stored(bot: BotProcess, chat_id: int) -> tuple[Any, Any]:
    """The stored table: its engine and its state."""
    row = bot.db_table(chat_id)
    assert row is not None
    engine = registry.engine(row[0])
    return engine, engine.state_type.model_validate_json(row[1])


async def my_view(game: Game, player: Player) -> dict[str, Any]:
    """``player`` presses *My cards* on the group's table: his view shown to him alone in
    the group, with his keyboard of the decision under way, as he reads it."""
    message = await game.synced()
    mine = next(d for _, d in game.sb.buttons(message) if d and d.startswith("m|"))
    pressed = await game.sb.press(game.chat_id, message["message_id"], player.id, mine,
                                  wait=10)
    assert pressed["answered"]
    decision = int(game.bot.db_meta(game.chat_id).get("decision", 0))
    return await game.sb.wait_for(lambda: view_of(game, player, decision), timeout=10)


def decides_on(view: dict[str, Any], game: Game, player: Player) -> list[str]:
    """What of his decision ``player``'s ``view`` lacks, against the stored table: the
    bank or pot, every seat's up cards and stake, his cards with his own up cards, whose
    turn with his time left as the table's clock has it, the amount to call on its
    button."""
    engine, state = stored(game.bot, game.chat_id)
    public, mine = engine.view(state, None), engine.view(state, player.id)
    text = view["text"]
    lacks = missing(text, public)
    seat = next(s for s in public.seats if s.player == player.id)
    up = [c for c in seat.face_up if c not in mine.my_cards]
    cards = f"Your cards: {pretty_all(list(mine.my_cards))}" + (
        f" · face up: {pretty_all(up)}" if up else "")
    if f"\n{cards}\n" not in text:
        lacks.append(cards)
    turn = CLOCK.search(text)
    due = float(game.bot.db_meta(game.chat_id)["due"])
    if turn is None or not turn.group(1).startswith(f"⏳ {player.name} · ") or abs(
            int(turn.group(2)) - (due - time.time())) > 3:
        lacks.append(f"{player.name}'s turn with {due - time.time():.0f} s left")
    labels = [label for label, _ in game.sb.buttons(view)]
    lacks += [f"Call {s.min}" for s in engine.legal_actions(state, player.id)
              if s.kind == "call" and f"Call {s.min}" not in labels]
    return lacks


@pytest.mark.parametrize("game_name", ["twenty_one", "stud_poker"])
async def test_my_cards_in_the_group_shows_what_a_turn_prompt_shows(
        game_name: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    """At their decisions holding cards, players press *My cards* on the group's table:
    Fay, who has no private chat, and Ann and Bob, who have theirs. The view shown to each
    alone in the group has what he decides on: the bank or the pot, every up card and
    stake, his cards (stud's up cards on their line), his turn with his time left, and the
    amount to call on its button. Ann's and Bob's read as their turn prompts in their
    private chats at the same moment, but for the seconds left. Fay plays from her view;
    Ann and Bob bet where they may, so that in stud Fay has a bet to call."""
    chat = -2440 - len(game_name)
    # every turn prompted in the private chat, a turn of a public step (stud's) too
    game = await start(sandbox, bot_factory, tmp_path, chat, game_name, TURN_DMS="1")
    bot, sb = game.bot, game.sb
    seen: dict[str, int] = {"prompt": 0, "Fay": 0, "call": 0}
    for _ in range(200):
        if seen["prompt"] and seen["Fay"] and (seen["call"] or game_name != "stud_poker"):
            break
        awaited = game.awaited(await game.synced())
        if not awaited:
            continue
        player = awaited[0]
        engine, state = stored(bot, chat)
        if not engine.view(state, player.id).my_cards:
            await game.step(player, ["bet", *DEFAULT])
            continue
        view = await my_view(game, player)
        assert view["receiver_id"] == player.id
        lacks = decides_on(view, game, player)
        assert not lacks, f"{player.name}'s view lacks {lacks}:\n{view['text']}"
        if player is FAY:
            seen["Fay"] += 1
            seen["call"] += any(label.startswith("Call ") for label, _ in sb.buttons(view))
            await fay_presses(game, view, ["call", "check", "buy", "stand"])
            continue
        decision = int(bot.db_meta(chat).get("decision", 0))
        prompt = await game.dm_keyboard(player, decision)
        assert CLOCK.sub(r"\1⏱", view["text"]) == CLOCK.sub(r"\1⏱", prompt["text"])
        assert sb.buttons(view) == sb.buttons(prompt)
        seen["prompt"] += 1
        await game.step(player, ["bet", *DEFAULT])
    else:
        raise AssertionError(f"not every view was seen: {seen}")
    print(f"\nE2E my cards {game_name}: {seen}")
    held, issued = chips(bot)
    assert held == issued

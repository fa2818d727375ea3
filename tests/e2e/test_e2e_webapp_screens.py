"""The Mini App page words the table as the group does, on the real bot through the sandbox.

Ann and Bob open the group's **Open table** link in Chromium (390×844) and play a coup of
chemin de fer from their pages alone (seeded shoe). The page is read as a player reads it:
the idle table's phase in the chat's words, the settled coup's result under its number with
the hands worded as the group's result message words them, the next coup's turn line and
clock beside that result, and, after the bot restarts, the group's name as the page's
title (no update of the group has come since).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from harness import BotProcess, Game, Player
from test_e2e_webapp import (
    CHROMIUM,
    TIMEOUT,
    AppPage,
    app_bot,
    is_amount,
    open_app,
    open_link,
    tap,
    until,
)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")

CHAT = -9400
ANN, BOB = Player(94001, "Ann"), Player(94002, "Bob")
AVOID = ("pass", "decline", "retire")
"""Moves a player here never makes while he has another: the coup must be played out."""


def next_move(snap: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """The awaited player's move: his first amount (its first preset), else his first
    other action but a utility or one of :data:`AVOID`."""
    offered = [a for a in snap["actions"] if a["input"] != "utility"]
    amounts = [a for a in offered if is_amount(a)]
    if amounts:
        return amounts[0], amounts[0]["presets"][0]
    plain = [a for a in offered if a["kind"] not in AVOID] or offered
    return (plain[0], None) if plain else None


async def page_text(app: AppPage, selector: str) -> list[str]:
    """What a player reads in the elements ``selector`` picks."""
    found: list[str] = await app.page.locator(selector).all_text_contents()
    return [t.strip() for t in found]


async def test_the_page_reads_as_the_group_and_keeps_its_title_over_a_restart(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    handle, sb = sandbox
    bot, app_url = app_bot(handle, bot_factory, tmp_path / "data", "app screens")
    game = Game(sb, bot, CHAT, [ANN, BOB])
    await game.setup()
    await sb.register_miniapp("table", app_url, token="test-token", title="Banco")
    await game.command(ANN, "/newtable chemin_de_fer")
    link = await sb.wait_for(lambda: open_link(sb, CHAT), timeout=TIMEOUT)
    group_title = f"Table {CHAT}"
    progress = asyncio.Event()

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            pages: dict[int, AppPage] = {}
            for user in (ANN, BOB):
                pages[user.id] = await open_app(sb, browser, user, link, progress,
                                                chat_id=CHAT)
            for app in pages.values():
                await until(app.drawn, progress, f"{app.user.name}'s first snapshot")
            bob = pages[BOB.id]
            assert await page_text(bob, "#title") == [group_title]
            # the idle table's phase, as the group's table message says it
            assert await page_text(bob, "#coup .phase") == ["waiting for players"]
            assert any("waiting for players" in (m.get("text") or "")
                       for m in await sb.bot_messages(CHAT))

            for player in (ANN, BOB):
                app = pages[player.id]
                join = next(a for a in app.snap["actions"] if a["kind"] == "join")
                answer = await tap(app, join, None)
                assert answer and answer["ok"], answer

            # the awaited players play from their pages until the coup is settled
            for _ in range(60):
                await until(lambda: all(a.snap for a in pages.values()), progress, "snapshots")
                lead = max((a.snap for a in pages.values()),
                           key=lambda s: (s["version"], s["rev"]))
                if lead["table"]["result"] is not None:
                    break
                awaited = lead["table"]["awaiting"] or [ANN.id]
                app = pages[awaited[0]]
                # his own page has the table as the lead page has it (it may come later)
                at = (lead["version"], lead["rev"])
                await until(lambda app=app, at=at: (app.snap["version"], app.snap["rev"]) >= at,
                            progress, f"{app.user.name}'s snapshot")
                await until(app.drawn, progress, f"{app.user.name}'s page drawn")
                chosen = next_move(app.snap)
                assert chosen is not None, app.snap["actions"]
                await tap(app, *chosen)
            else:
                raise AssertionError("the coup did not settle")

            # Bob's page: the result under its coup's number, the hands as the group has them
            coup = lead["table"]["result"]["coup"]
            await until(bob.drawn, progress, "Bob's page drawn")
            await bob.page.locator("#hands li").first.wait_for(state="visible")
            assert await page_text(bob, "#result-title") == [f"Result · Coup #{coup}"]
            hands = await page_text(bob, "#hands li")
            settled = await sb.wait_for(lambda: next_result(sb, coup), timeout=TIMEOUT)
            assert hands and all(line in settled.split("\n") for line in hands), (
                hands, settled)
            assert any(", points: " in line for line in hands), hands

            # the next decision: whose turn and his clock show beside the result
            await until(lambda: bob.snap["table"]["awaiting"], progress, "the next decision")
            await until(bob.drawn, progress, "Bob's page drawn")
            assert await bob.page.locator("#turnline .who").is_visible()
            assert await bob.page.locator("#result").is_visible()

            # the bot restarts: the page comes back to the same table under the group's name
            before = bob.version
            bot.kill()
            bot.start()
            await until(lambda: len([f for f in bob.frames if f.get("type") == "snapshot"
                                     and f["version"] >= before]) >= 2,
                        progress, "Bob's page back after the restart", timeout=60)
            await until(bob.drawn, progress, "Bob's page drawn")
            assert await page_text(bob, "#title") == [group_title]
        finally:
            await browser.close()


async def next_result(sb: Any, coup: int) -> str | None:
    """The group's result message of coup ``coup`` (its text as the group reads it)."""
    for m in await sb.bot_messages(CHAT):
        text = m.get("text") or ""
        if text.startswith("🏆") and f"coup #{coup} settled" in text:
            return str(text)
    return None

"""The Mini App's profile and standings through the real bot and the sandbox, in headless
Chromium at 390 px: after three coups of chemin de fer (a seeded shoe), the pages say what
/stats and /top say in the chats, line for line.

Ann's private chat has the *📊 My profile* ``web_app`` button under /start and /stats (the
app's profile page); the sandbox opens it as Telegram's web view would (initData signed with
the bot's token, its own telegram-web-app.js), and the page shows her /stats of all chats,
and one point on her net chart (every coup was today) at her net. Its standings tab is the
group's /top. Then Cid opens the group's table link, taps the table page's standings
button, and reads the same /top there.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from harness import DEFAULT, POLICIES, BotProcess, Game, Player
from test_e2e_webapp import PHONE, SHOTS, app_bot, open_link

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")
PLAYERS = [Player(111, "Ann"), Player(112, "Bob"), Player(113, "Cid")]
ANN, BOB, CID = PLAYERS
CHAT = -1011
TIMEOUT = 20.0


async def answer_in(sb: Any, chat_id: int, user: Player, text: str) -> dict[str, Any]:
    """The bot's next message in ``chat_id`` after ``user`` sends ``text`` there."""
    before = len(await sb.bot_messages(chat_id))
    await sb.send(chat_id, user.id, text)

    async def new() -> dict[str, Any] | None:
        mine = await sb.bot_messages(chat_id)
        return mine[before] if len(mine) > before else None

    found: dict[str, Any] = await sb.wait_for(new, timeout=TIMEOUT)
    return found


def web_app_buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [(b["text"], b["web_app"]["url"])
            for row in (message.get("reply_markup") or {}).get("inline_keyboard", [])
            for b in row if "web_app" in b]


async def lines(page: Any, selector: str) -> list[str]:
    found: list[str] = await page.locator(selector).all_inner_texts()
    return [t.strip() for t in found]


async def test_the_profile_and_standings_pages_say_what_stats_and_top_say(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    handle, sb = sandbox
    bot, app_url = app_bot(handle, bot_factory, tmp_path / "data", "profile e2e")
    await sb.register_miniapp("table", app_url, token="test-token", title="Banco")
    game = Game(sb, bot, CHAT, PLAYERS)
    await game.setup()
    await game.enable_dms()
    await game.command(ANN, "/newtable chemin_de_fer")
    await game.synced()
    await game.command(ANN, "/settings screen chat")  # played on the group's message
    for p in PLAYERS:
        await game.step(p, ["join"])
    await game.step(ANN, ["start"])
    policy = POLICIES.get("chemin_de_fer", {})
    for _ in range(3):
        await game.play_until_settled(policy, policy.get("", DEFAULT))
    assert len(await game.settlements()) == 3

    # the private chat's button, under /start and under /stats
    profile_url = app_url + "?page=profile"
    start = await answer_in(sb, ANN.id, ANN, "/start")
    assert web_app_buttons(start) == [("📊 My profile", profile_url)]
    stats = await answer_in(sb, ANN.id, ANN, "/stats")
    assert web_app_buttons(stats) == [("📊 My profile", profile_url)]
    top = await answer_in(sb, CHAT, CID, "/top")
    assert web_app_buttons(top) == []  # never in a group
    net = int(next(line for line in stats["text"].splitlines()
                   if line.startswith("Net: ")).removeprefix("Net: "))

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            opened = await sb.open_miniapp(ANN.id, url=profile_url)
            context = await browser.new_context(viewport=PHONE, has_touch=True)
            context.set_default_timeout(TIMEOUT * 1000)
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(opened["url"])
            await page.wait_for_selector("body[data-profile='ready']")
            # /stats in her private chat, line for line
            assert await lines(page, "#p-stats p") == stats["text"].splitlines()
            assert await page.eval_on_selector_all(
                "#chart svg circle", "cs => cs.map(c => Number(c.dataset.net))") == [net]
            SHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SHOTS / "profile-e2e.png"), full_page=True)
            # its standings tab: the group's /top
            await page.tap("#tab-standings")
            await page.wait_for_selector(f"body[data-board='{CHAT}:all:']")
            assert await lines(page, "#s-top p") == top["text"].splitlines()
            assert await lines(page, "#title") == [f"Table {CHAT}"]

            # from the group's table: Cid taps the standings button on the table page
            link = await open_link(sb, CHAT)
            assert link is not None
            cid = await sb.open_miniapp(CID.id, link=link, chat_id=CHAT)
            page = await (await browser.new_context(viewport=PHONE, has_touch=True)).new_page()
            page.set_default_timeout(TIMEOUT * 1000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(cid["url"])
            await page.wait_for_selector("body[data-version]")
            await page.tap("#stats-open")
            await page.wait_for_selector(f"body[data-board='{CHAT}:all:']")
            assert await lines(page, "#s-top p") == top["text"].splitlines()
            await page.screenshot(path=str(SHOTS / "standings-e2e.png"), full_page=True)
            await page.tap("#back")
            await page.wait_for_selector("body[data-version]")
            assert errors == []
        finally:
            await browser.close()
    assert "Traceback" not in bot.log_text()

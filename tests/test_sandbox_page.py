"""The sandbox's web page in headless Chromium, at phone (390 px) and desktop (1280 px) width,
plus the sandbox features it leans on: ForceReply markup and the world kept in a file.

The sandbox runs in this process; the people and the bot act through the control API and
the Bot API, and the page is checked as a person would see it (what is visible, computed
styles, what a click does). Screenshots go to $SANDBOX_PAGE_SHOTS (default: a folder in the
system's temp dir) to be looked at. Chromium is Debian's (/usr/bin/chromium): these tests
skip only when it is absent.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sandbox.client import SandboxClient
from sandbox.persist import StateFile
from sandbox.server import SandboxHandle, start_sandbox

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
SHOTS = Path(os.environ.get("SANDBOX_PAGE_SHOTS") or Path(tempfile.gettempdir()) / "banco-page")
TOKEN = "123456:TEST"
ANN, BOB, ODD = 1, 2, 3
ODD_NAME = "<b>&"  # a name that must show as written, not as markup
GROUP = -100
GROUP_TITLE = "Table </code> & co"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

TABLE_HTML = (
    "<b>Baccarat</b> — shoe 1\n"
    "<i>Punters:</i> Ann, Bob\n"
    "<blockquote expandable>Coup 1: banker 7, player 5\nCoup 2: banker 3, player 9\n"
    "Coup 3: banker 6, player 6\nCoup 4: banker 8, player 2\nCoup 5: banker 1, player 4"
    "</blockquote>\n"
    "Bank: <code>1 000</code> · <u>your turn</u> · <s>old stake</s> · "
    '<tg-spoiler>hole card</tg-spoiler> · <a href="https://example.org/rules">rules</a>\n'
    "<blockquote>Ann holds the shoe</blockquote>\n"
    "<pre>K♠ 9♥\nQ♦ 3♣</pre>"
)
TABLE_TEXT_START = "Baccarat — shoe 1\nPunters: Ann, Bob\n"
KEYBOARD = {
    "inline_keyboard": [
        [{"text": "Banco!", "callback_data": "banco"}, {"text": "Pass", "callback_data": "pass"}],
        [
            {"text": "Stake 100", "callback_data": "s100"},
            {"text": "Stake 200", "callback_data": "s200"},
            {"text": "Stake 500", "callback_data": "s500"},
        ],
    ]
}

needs_chromium = pytest.mark.skipif(not HAVE_CHROMIUM, reason="Chromium is not installed")


# --- fixtures -------------------------------------------------------------------------


@pytest.fixture
async def sandbox() -> AsyncIterator[SandboxHandle]:
    handle = await start_sandbox("127.0.0.1", 0)  # no state file: memory only
    try:
        yield handle
    finally:
        await handle.stop()


@pytest.fixture
async def sb(sandbox: SandboxHandle) -> AsyncIterator[SandboxClient]:
    async with SandboxClient(sandbox.url) as client:
        yield client


@pytest.fixture
async def botapi(sandbox: SandboxHandle) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/bot{TOKEN}", verify=False) as client:
        yield client


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if not HAVE_CHROMIUM:
        pytest.skip("Chromium is not installed")
    from playwright.async_api import async_playwright  # a dev dependency: missing is an error

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        await chromium.close()


@pytest.fixture
async def ids(sb: SandboxClient, botapi: httpx.AsyncClient) -> dict[str, int]:
    """The seeded world (see seed) and the ids of its group messages."""
    return await seed(sb, botapi)


@pytest.fixture
def page_at(browser: Any, sandbox: SandboxHandle) -> Callable[[dict[str, int]], Awaitable[Any]]:
    """Opens the page of the test's sandbox at a viewport."""
    return lambda viewport: open_page(browser, sandbox, viewport)


async def open_page(browser: Any, sandbox: SandboxHandle, viewport: dict[str, int]) -> Any:
    """The page at a viewport, loaded and drawn once."""
    context = await browser.new_context(viewport=viewport)
    context.set_default_timeout(5000)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(f"{sandbox.url}/")
    await page.wait_for_selector("#users .item", state="attached")
    return page


async def redraw(page: Any) -> None:
    """Have the page poll the sandbox now rather than at its next 0.8 s tick."""
    await page.evaluate("refresh()")


async def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path


async def call(botapi: httpx.AsyncClient, method: str, **params: Any) -> Any:
    response = await botapi.post(f"/{method}", json=params)
    body = response.json()
    assert body["ok"], body
    return body["result"]


async def seed(sb: SandboxClient, botapi: httpx.AsyncClient) -> dict[str, int]:
    """Three people, a group with the bot, a table message, chat lines and a private chat."""
    await sb.add_user(ANN, "Ann", "ann_player", "en")
    await sb.add_user(BOB, "Bob", "bob_player", "en")
    await sb.add_user(ODD, ODD_NAME, None, "en")
    await sb.add_chat(GROUP, GROUP_TITLE, "supergroup", members=[ANN, BOB, ODD], admins=[ANN])
    await sb.add_bot(GROUP, ANN)
    table = await call(
        botapi, "sendMessage", chat_id=GROUP, text=TABLE_HTML, parse_mode="HTML",
        reply_markup=KEYBOARD,
    )
    bob = await sb.send(GROUP, BOB, "Banco for me @banco_bot")
    odd = await sb.send(GROUP, ODD, "I say </code> & <i>hi</i>")
    await sb.send(ANN, ANN, "/start")
    await call(
        botapi, "sendMessage", chat_id=ANN, parse_mode="HTML",
        text="<b>Welcome, Ann!</b> Your balance is <code>1000</code> chips.",
    )
    return {"table": table["message_id"], "bob": bob["message_id"], "odd": odd["message_id"]}


async def visible_chats(page: Any) -> list[str]:
    """Ids of the chat panes a person can see."""
    ids: list[str] = await page.evaluate(
        """[...document.querySelectorAll('.chat')]
             .filter((el) => el.getClientRects().length
                             && getComputedStyle(el).visibility !== 'hidden')
             .map((el) => el.id)"""
    )
    return ids


async def newest_press(sb: SandboxClient) -> dict[str, Any]:
    """The newest button press waiting for the bot (its callback_query), once there is one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while True:
        queries = [u["callback_query"] for u in await sb.updates() if "callback_query" in u]
        if queries:
            return queries[-1]
        assert loop.time() < deadline, "no press reached the sandbox"
        await asyncio.sleep(0.02)


async def scroll_width(page: Any) -> int:
    width: int = await page.evaluate("document.documentElement.scrollWidth")
    return width


# --- layout -----------------------------------------------------------------------------


@needs_chromium
async def test_phone_width_one_chat_a_drawer_and_no_sideways_scroll(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    # wide things: an unbroken word, a long link, a long pre line, five buttons in a row
    await sb.send(GROUP, BOB, "Look " + "A" * 120 + " https://example.org/" + "x" * 150)
    row = [{"text": f"Raise by {n} chips", "callback_data": f"r{n}"} for n in range(1, 6)]
    await call(botapi, "sendMessage", chat_id=GROUP, parse_mode="HTML",
               text="<pre>" + "K♠ " * 60 + "</pre>", reply_markup={"inline_keyboard": [row]})
    page = await page_at(PHONE)
    await page.wait_for_selector("#groupchat .msg.bot .kb >> text=Raise by 5 chips")

    assert await scroll_width(page) <= 390
    assert not await page.is_visible("#sidebar")
    assert await page.is_visible("#menu")
    assert await visible_chats(page) == ["groupchat"]
    box = await page.locator("#groupchat").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["width"] >= 360  # the one chat fills the width
    await shot(page, "phone-390-group")

    await page.click("#menu")
    await page.wait_for_selector("#sidebar", state="visible")
    assert await page.get_attribute("#menu", "aria-expanded") == "true"
    assert await scroll_width(page) <= 390
    await page.wait_for_timeout(250)  # the drawer's slide (0.18 s) ends
    await shot(page, "phone-390-menu-open")
    # picking a group in the drawer shows it and closes the drawer
    await page.click(f'#groups .item[data-group="{GROUP}"]')
    await page.wait_for_selector("#sidebar", state="hidden")
    assert await visible_chats(page) == ["groupchat"]

    # the switch shows the private chat instead
    assert await page.inner_text('#switch button[data-view="group"]') == GROUP_TITLE
    assert await page.inner_text('#switch button[data-view="dm"]') == "Ann (private)"
    await page.click('#switch button[data-view="dm"]')
    assert await visible_chats(page) == ["privatechat"]
    assert await page.inner_text("#privatechat .msg.bot .text") == (
        "Welcome, Ann! Your balance is 1000 chips."
    )
    assert await scroll_width(page) <= 390
    await shot(page, "phone-390-private")
    await page.click('#switch button[data-view="group"]')
    assert await visible_chats(page) == ["groupchat"]
    assert page.errors == []


@needs_chromium
async def test_desktop_width_keeps_the_sidebar_and_both_chats(
    page_at: Any, ids: dict[str, int]
) -> None:
    page = await page_at(DESKTOP)
    await page.wait_for_selector("#privatechat .msg.bot")
    assert await page.is_visible("#sidebar")
    assert not await page.is_visible("#menu")
    assert not await page.is_visible("#switch")
    assert await visible_chats(page) == ["groupchat", "privatechat"]
    assert await scroll_width(page) <= 1280
    sidebar = await page.locator("#sidebar").bounding_box()
    group = await page.locator("#groupchat").bounding_box()
    private = await page.locator("#privatechat").bounding_box()
    assert sidebar and group and private
    assert sidebar["width"] == 270
    assert sidebar["x"] + sidebar["width"] <= group["x"] < private["x"]  # side by side
    await shot(page, "desktop-1280")
    assert page.errors == []


@needs_chromium
async def test_the_header_card_is_drawn_not_left_to_the_fonts(
    page_at: Any, ids: dict[str, int]
) -> None:
    # Debian's fonts have no playing-card emoji (U+1F0A0-1F0FF shows as a box), so the
    # header's card is an SVG and the title is plain text
    for viewport, title in ((DESKTOP, "Banco sandbox"), (PHONE, "Banco")):
        page = await page_at(viewport)
        heading = page.locator("header h1")
        assert await heading.inner_text() == title
        card = await heading.locator("svg.logo").bounding_box()
        text = await heading.bounding_box()
        assert card and text
        assert 14 <= card["width"] <= 24 and 18 <= card["height"] <= 26
        # before the title, on its middle
        assert abs(card["x"] - text["x"]) <= 3
        middle = text["y"] + text["height"] / 2
        assert abs(card["y"] + card["height"] / 2 - middle) <= 3
        await page.screenshot(path=str(SHOTS / f"header-{viewport['width']}.png"),
                              clip={"x": 0, "y": 0, "width": viewport["width"], "height": 48})
        assert page.errors == []


# --- rich text and literal text ------------------------------------------------------------


@needs_chromium
async def test_entities_render_as_telegram_shows_them(
    page_at: Any, sb: SandboxClient, ids: dict[str, int]
) -> None:
    page = await page_at(PHONE)
    table = page.locator(f'#groupchat .msg[data-id="{ids["table"]}"]')
    await table.wait_for()
    text = table.locator(".text")

    def style(selector: str, prop: str) -> Any:
        return text.locator(selector).first.evaluate(f"(el) => getComputedStyle(el).{prop}")

    assert await text.locator("b").first.inner_text() == "Baccarat"
    assert int(await style("b", "fontWeight")) >= 700
    assert await text.locator("i").inner_text() == "Punters:"
    assert await style("i", "fontStyle") == "italic"
    assert await text.locator("u").inner_text() == "your turn"
    assert "underline" in await style("u", "textDecorationLine")
    assert await text.locator("s").inner_text() == "old stake"
    assert "line-through" in await style("s", "textDecorationLine")
    assert await text.locator("code").inner_text() == "1 000"
    assert "monospace" in await style("code", "fontFamily")
    assert await text.locator("pre").inner_text() == "K♠ 9♥\nQ♦ 3♣"
    assert await text.locator("a").inner_text() == "rules"
    assert await text.locator("a").get_attribute("href") == "https://example.org/rules"

    # a spoiler is hidden until clicked
    spoiler = text.locator(".spoiler")
    assert await spoiler.inner_text() == "hole card"
    assert await spoiler.evaluate("(el) => getComputedStyle(el).color") == "rgba(0, 0, 0, 0)"
    await spoiler.click()
    assert await spoiler.evaluate("(el) => getComputedStyle(el).color") == "rgb(31, 42, 55)"

    # the expandable quote shows about three lines until clicked; the plain one shows whole
    quotes = text.locator("blockquote")
    assert await quotes.count() == 2
    expandable, plain = quotes.nth(0), quotes.nth(1)
    assert await expandable.inner_text() == (
        "Coup 1: banker 7, player 5\nCoup 2: banker 3, player 9\nCoup 3: banker 6, player 6\n"
        "Coup 4: banker 8, player 2\nCoup 5: banker 1, player 4"
    )
    sizes = "(el) => [el.clientHeight, el.scrollHeight]"
    shown, full = await expandable.evaluate(sizes)
    line = 14 * 1.4
    assert 3 * line <= shown < 4 * line < full
    await shot(page, "phone-390-quote-collapsed")
    await expandable.click()
    shown, full = await expandable.evaluate(sizes)
    assert shown == full >= 5 * line
    await shot(page, "phone-390-quote-expanded")
    await expandable.click()
    shown, full = await expandable.evaluate(sizes)
    assert shown < full
    assert await plain.inner_text() == "Ann holds the shoe"
    shown, full = await plain.evaluate(sizes)
    assert shown == full

    # the whole text, with the blocks on their own lines and no empty line around them
    assert (await text.inner_text()).startswith(TABLE_TEXT_START + "Coup 1")
    # the keyboard under it
    rows = await table.locator(".kb .kbrow").evaluate_all(
        "(rows) => rows.map((r) => [...r.querySelectorAll('button')].map((b) => b.textContent))"
    )
    assert rows == [["Banco!", "Pass"], ["Stake 100", "Stake 200", "Stake 500"]]
    # an expanded quote stays expanded when the page draws the chat again
    await expandable.click()
    await sb.send(GROUP, BOB, "/status")
    await redraw(page)
    await page.wait_for_selector('#groupchat .msg .text >> text="/status"')
    shown, full = await table.locator("blockquote").nth(0).evaluate(sizes)
    assert shown == full
    assert page.errors == []


@needs_chromium
async def test_names_and_texts_show_as_written(
    page_at: Any, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    page = await page_at(DESKTOP)
    odd = page.locator(f'#groupchat .msg[data-id="{ids["odd"]}"]')
    await odd.wait_for()
    assert await odd.locator(".who").inner_text() == ODD_NAME
    assert await odd.locator(".text").inner_text() == "I say </code> & <i>hi</i>"
    assert await odd.locator(".text b, .text i, .text code").count() == 0
    assert await page.locator(f'#users .item[data-user="{ODD}"] .name').inner_text() == (
        f"{ODD_NAME} #{ODD}"
    )
    assert await page.locator("#groupchat .chat-head .title").inner_text() == GROUP_TITLE
    assert await page.locator(f'#groups .item[data-group="{GROUP}"] .name').inner_text() == (
        f"{GROUP_TITLE} {GROUP}"
    )
    # a bot text with entities around user text: only the entities become markup
    await call(botapi, "sendMessage", chat_id=GROUP, parse_mode="HTML",
               text="<b>&lt;b&gt;&amp;</b> stakes <code>&lt;/code&gt;</code>")
    await redraw(page)
    last = page.locator("#groupchat .msg.bot").last
    await last.locator(".text >> text=stakes").wait_for()
    assert await last.locator(".text b").inner_text() == "<b>&"
    assert await last.locator(".text code").inner_text() == "</code>"
    assert page.errors == []


@needs_chromium
async def test_commands_in_a_text_are_links_that_send_them_in_that_chat(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    await sb.send(BOB, BOB, "/start")
    await call(botapi, "sendMessage", chat_id=BOB, text="Bob, see /help")
    sent = await call(
        botapi, "sendMessage", chat_id=GROUP, parse_mode="HTML",
        text="Check the shoe with /verify, your chips with <b>/balance@banco_bot</b>.\n"
             'Not these: <code>/notme</code> <a href="https://example.org/rules">/rules</a> '
             "https://example.org/a-/help &lt;/code&gt;",
    )
    page = await page_at(DESKTOP)
    message = page.locator(f'#groupchat .msg[data-id="{sent["message_id"]}"]')
    await message.wait_for()
    commands = message.locator(".text a.cmd")
    assert await commands.all_inner_texts() == ["/verify", "/balance@banco_bot"]
    assert await message.locator(".text b a.cmd").inner_text() == "/balance@banco_bot"
    assert await message.locator(".text code").inner_text() == "/notme"
    assert await message.locator(".text a:not(.cmd)").all_inner_texts() == [
        "/rules", "https://example.org/a-/help"
    ]
    # a person's "</code>" and "</i>" are no commands
    odd = page.locator(f'#groupchat .msg[data-id="{ids["odd"]}"]')
    assert await odd.locator(".text a.cmd, .text .link").count() == 0
    await shot(page, "desktop-1280-commands")

    # a click sends the command, as written, in the message's chat as the acting user
    for command in ("/verify", "/balance@banco_bot"):
        await commands.filter(has_text=command).click()
        await page.locator(f'#groupchat .msg.me .text >> text="{command}"').wait_for()
        mine = (await sb.messages(GROUP))[-1]
        assert (mine["from_id"], mine["text"], mine.get("reply_to_message_id")) == (
            ANN, command, None
        )
        update = (await sb.updates())[-1]["message"]
        assert (update["chat"]["id"], update["from"]["id"], update["text"]) == (
            GROUP, ANN, command
        )
    # in another user's private chat the acting user cannot write: nothing is sent
    await page.click(f'#privatechat .tabs button[data-dm="{BOB}"]')
    help_link = page.locator("#privatechat .msg.bot .text a.cmd", has_text="/help")
    await help_link.click()
    await page.locator(".toast.err >> text=Only Bob writes in this private chat").wait_for()
    assert [m["text"] for m in await sb.messages(BOB)] == ["/start", "Bob, see /help"]
    # acting as Bob it is sent there
    await page.click(f'#users .item[data-user="{BOB}"]')
    await page.locator(f'#users .item.sel[data-user="{BOB}"]').wait_for()
    await help_link.click()
    await page.locator('#privatechat .msg.me .text >> text="/help"').wait_for()
    assert [(m["from_id"], m["text"]) for m in await sb.messages(BOB)][-1] == (BOB, "/help")
    assert page.errors == []


# --- replies ---------------------------------------------------------------------------


@needs_chromium
async def test_reply_to_a_message_from_the_page(
    page_at: Any, sb: SandboxClient, sandbox: SandboxHandle, ids: dict[str, int]
) -> None:
    page = await page_at(PHONE)
    bob = page.locator(f'#groupchat .msg[data-id="{ids["bob"]}"]')
    await bob.wait_for()
    composer = page.locator("#groupchat .composer")

    # choose reply, see the bar, cancel it
    await bob.locator("button.reply").click()
    bar = composer.locator(".replybar")
    assert await bar.locator(".to").inner_text() == "Replying to Bob"
    assert await bar.locator(".snippet").inner_text() == "Banco for me @banco_bot"
    assert await composer.locator("input").evaluate("(el) => el === document.activeElement")
    await shot(page, "phone-390-replying")
    await bar.locator("button.cancel").click()
    assert await composer.locator(".replybar").count() == 0

    # reply again and send: the message carries reply_to_message
    await bob.locator("button.reply").click()
    await composer.locator("input").fill("Not so fast, Bob")
    await composer.locator("input").press("Enter")
    await page.wait_for_selector('#groupchat .msg.me .text >> text="Not so fast, Bob"')
    assert await composer.locator(".replybar").count() == 0
    sent = (await sb.messages(GROUP))[-1]
    assert (sent["from_id"], sent["text"], sent["reply_to_message_id"]) == (
        ANN, "Not so fast, Bob", ids["bob"]
    )
    stored = sandbox.world.find_message(GROUP, sent["message_id"])
    assert stored is not None
    assert stored.extra["reply_to_message"]["message_id"] == ids["bob"]
    assert stored.extra["reply_to_message"]["text"] == "Banco for me @banco_bot"
    # the page shows whom it answers
    mine = page.locator(f'#groupchat .msg[data-id="{sent["message_id"]}"]')
    assert await mine.locator(".quote").inner_text() == "BobBanco for me @banco_bot"
    assert page.errors == []


@needs_chromium
async def test_force_reply_prompt_starts_a_reply_for_the_addressed_player(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    page = await page_at(PHONE)
    await page.wait_for_selector("#groupchat .msg.bot")
    composer = page.locator("#groupchat .composer")
    input_field = composer.locator("input")
    assert await composer.locator(".replybar").count() == 0

    # a selective prompt for Bob (mentioned) leaves Ann's composer alone
    for_bob = await call(
        botapi, "sendMessage", chat_id=GROUP, text="@bob_player, how much do you stake?",
        reply_markup={"force_reply": True, "selective": True,
                      "input_field_placeholder": "Bob's stake"},
    )
    await redraw(page)
    await page.wait_for_selector(f'#groupchat .msg[data-id="{for_bob["message_id"]}"]')
    assert await composer.locator(".replybar").count() == 0

    # a prompt naming Ann starts a reply for her, with the prompt's placeholder
    prompt = await call(
        botapi, "sendMessage", chat_id=GROUP, parse_mode="HTML",
        text=f'<a href="tg://user?id={ANN}">Ann</a>, how much do you stake?',
        reply_markup={"force_reply": True, "selective": True,
                      "input_field_placeholder": "Amount, e.g. 250"},
    )
    await redraw(page)
    await composer.locator(".replybar").wait_for()
    assert await composer.locator(".replybar .to").inner_text() == "Replying to Banco"
    assert await composer.locator(".replybar .snippet").inner_text() == (
        "Ann, how much do you stake?"
    )
    assert await input_field.get_attribute("placeholder") == "Amount, e.g. 250"
    assert await input_field.evaluate("(el) => el === document.activeElement")
    await shot(page, "phone-390-force-reply")

    await input_field.fill("250")
    await input_field.press("Enter")
    await page.wait_for_selector('#groupchat .msg.me .text >> text="250"')
    sent = (await sb.messages(GROUP))[-1]
    assert (sent["from_id"], sent["text"], sent["reply_to_message_id"]) == (
        ANN, "250", prompt["message_id"]
    )
    # a reply to the bot passes its privacy mode: the bot gets it, replying to the prompt
    update = (await sb.updates())[-1]
    assert update["message"]["text"] == "250"
    assert update["message"]["reply_to_message"]["message_id"] == prompt["message_id"]
    assert "reply_to_message" not in update["message"]["reply_to_message"]
    # answered: the prompt does not start again
    await redraw(page)
    assert await composer.locator(".replybar").count() == 0
    assert await input_field.get_attribute("placeholder") == "Message as Ann"

    # Bob's own prompt is waiting for him when the page acts as Bob
    await page.click("#menu")
    await page.click(f'#users .item[data-user="{BOB}"]')
    await page.wait_for_selector("#groupchat .composer .replybar")
    assert await composer.locator(".replybar .snippet").inner_text() == (
        "@bob_player, how much do you stake?"
    )
    assert await input_field.get_attribute("placeholder") == "Bob's stake"
    assert page.errors == []


# --- the composer ------------------------------------------------------------------------


@needs_chromium
async def test_the_try_start_hint_shows_only_while_a_chat_is_empty(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    await sb.add_user(ANN, "Ann", "ann_player", "en")
    await sb.add_user(BOB, "Bob", "bob_player", "en")
    await sb.add_chat(GROUP, GROUP_TITLE, "supergroup", members=[ANN, BOB], admins=[ANN])
    await sb.add_bot(GROUP, ANN)  # a note that Ann added the bot: still an empty chat
    page = await page_at(PHONE)
    group_input = page.locator("#groupchat .composer input")
    private_input = page.locator("#privatechat .composer input")
    await page.locator("#groupchat .msg.service").wait_for()
    assert await group_input.get_attribute("placeholder") == "Message as Ann (try /start)"
    await page.click('#switch button[data-view="dm"]')
    assert await private_input.get_attribute("placeholder") == "Message as Ann (try /start)"
    await shot(page, "phone-390-try-start")

    # Ann starts the bot: her private chat has begun
    await private_input.fill("/start")
    await private_input.press("Enter")
    await page.locator('#privatechat .msg.me .text >> text="/start"').wait_for()
    assert await private_input.get_attribute("placeholder") == "Message as Ann"
    # the group is still empty until someone, the bot too, writes there
    assert await group_input.get_attribute("placeholder") == "Message as Ann (try /start)"
    await call(botapi, "sendMessage", chat_id=GROUP, text="Hello! /newtable opens a table.")
    await redraw(page)
    await page.locator("#groupchat .msg.bot").wait_for(state="attached")
    assert await group_input.get_attribute("placeholder") == "Message as Ann"
    # Bob's private chat is still empty
    await page.click("#menu")
    await page.click(f'#users .item[data-user="{BOB}"]')
    await page.locator(f'#privatechat[data-chat="{BOB}"]').wait_for()
    assert await private_input.get_attribute("placeholder") == "Message as Bob (try /start)"
    assert await group_input.get_attribute("placeholder") == "Message as Bob"
    assert page.errors == []


# --- buttons ---------------------------------------------------------------------------


@needs_chromium
async def test_a_pressed_button_spins_until_its_answer_not_until_its_message_changes(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    page = await page_at(PHONE)
    table = page.locator(f'#groupchat .msg[data-id="{ids["table"]}"]')
    passing = table.locator(".kb button", has_text="Pass")
    await passing.click()
    query = await newest_press(sb)
    assert (query["data"], query["from"]["id"]) == ("pass", ANN)
    assert await passing.is_disabled()
    assert await passing.get_attribute("aria-busy") == "true"
    assert not await table.locator(".kb button", has_text="Banco!").is_disabled()
    await shot(page, "phone-390-press-spinning")

    # the bot edits the message before it answers: the press is still waiting
    await call(botapi, "editMessageText", chat_id=GROUP, message_id=ids["table"],
               text="Ann passes?", reply_markup=KEYBOARD)
    await redraw(page)
    await table.locator(".text >> text=Ann passes?").wait_for()
    assert await passing.is_disabled()
    # it is Ann's press: acting as Bob the button is his to press
    await page.click("#menu")
    await page.click(f'#users .item[data-user="{BOB}"]')
    await table.locator(".kb button:enabled", has_text="Pass").wait_for()
    await page.click("#menu")
    await page.click(f'#users .item[data-user="{ANN}"]')
    await table.locator(".kb button:disabled", has_text="Pass").wait_for()

    # the answer brings the button back, its text as a toast; the message is as it was
    await call(botapi, "answerCallbackQuery", callback_query_id=query["id"], text="You pass")
    await table.locator(".kb button:enabled", has_text="Pass").wait_for()
    assert await passing.get_attribute("aria-busy") is None
    await page.locator(".toast >> text=You pass").wait_for()
    assert await table.locator(".text").inner_text() == "Ann passes?"
    assert page.errors == []


@needs_chromium
async def test_a_press_answered_late_still_brings_the_button_back(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    page = await page_at(DESKTOP)
    table = page.locator(f'#groupchat .msg[data-id="{ids["table"]}"]')
    banco = table.locator(".kb button", has_text="Banco!")
    await banco.click()
    query = await newest_press(sb)
    # after the page's first 5 s wait it says so, and keeps waiting
    await page.locator(".toast.err >> text=has not answered this press yet").wait_for(timeout=9000)
    assert await banco.is_disabled()
    await call(botapi, "answerCallbackQuery", callback_query_id=query["id"],
               text="Banco is called", show_alert=True)
    await page.locator("#alert >> text=Banco is called").wait_for()
    await table.locator(".kb button:enabled", has_text="Banco!").wait_for()
    assert page.errors == []


@needs_chromium
async def test_an_ephemeral_message_shows_marked_in_its_receivers_view_only(
    page_at: Any, sb: SandboxClient, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    sent = await call(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN,
                      text="Your hole card: K♠", reply_markup={"inline_keyboard": [[
                          {"text": "Reveal", "callback_data": "reveal"}]]})
    page = await page_at(DESKTOP)  # acting as Ann, the first user
    mine = page.locator("#groupchat .msg.ephemeral")
    await mine.wait_for()
    assert await mine.get_attribute("data-id") == f"e{sent['ephemeral_message_id']}"
    assert await mine.locator(".eph").inner_text() == "Only you can see this"
    assert await mine.locator(".text").inner_text() == "Your hole card: K♠"
    assert await mine.locator(".reply").count() == 0  # no reply to it from the page
    assert "ephemeral #1" in await mine.locator(".meta").inner_text()
    border = await mine.evaluate("(el) => getComputedStyle(el).borderTopStyle")
    assert border == "dashed"
    await shot(page, "desktop-ephemeral-ann")

    # her press reaches the bot with the ephemeral message (message_id 0)
    await mine.locator(".kb button", has_text="Reveal").click()
    query = await newest_press(sb)
    assert (query["data"], query["from"]["id"]) == ("reveal", ANN)
    assert (query["message"]["message_id"], query["message"]["ephemeral_message_id"]) == (0, 1)
    await call(botapi, "answerCallbackQuery", callback_query_id=query["id"], text="K♠")
    await page.locator(".toast >> text=K♠").wait_for()

    # Bob's view of the same group has the table and no trace of it
    await page.click(f'#users .item[data-user="{BOB}"]')
    await page.locator(f'#users .item.sel[data-user="{BOB}"]').wait_for()
    await redraw(page)
    await page.locator(f'#groupchat .msg[data-id="{ids["table"]}"]').wait_for()
    assert await page.locator("#groupchat .msg.ephemeral").count() == 0
    assert await page.locator("#groupchat >> text=Your hole card").count() == 0
    assert await page.locator(".toast").count() == 0  # Ann's pop-up went with her
    await shot(page, "desktop-ephemeral-bob")
    assert page.errors == []


# --- the Bot API's ForceReply -------------------------------------------------------------


async def test_force_reply_markup_is_checked_and_not_returned(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    await sb.add_user(ANN, "Ann")
    await sb.send(ANN, ANN, "/start")
    markup = {"force_reply": True, "input_field_placeholder": "x" * 64, "selective": True}
    sent = await call(botapi, "sendMessage", chat_id=ANN, text="How much?", reply_markup=markup)
    # a Message carries only inline keyboards
    assert "reply_markup" not in sent
    stored = (await sb.messages(ANN))[-1]
    assert stored["reply_markup"] == markup

    refused = {
        "force_reply must be True": {"force_reply": False},
        "input_field_placeholder must be 1-64 characters": {
            "force_reply": True, "input_field_placeholder": "x" * 65},
    }
    for reason, bad in refused.items():
        response = await botapi.post("/sendMessage", json={
            "chat_id": ANN, "text": "How much?", "reply_markup": bad})
        assert response.status_code == 400
        assert response.json()["description"] == (
            f"Bad Request: can't parse reply keyboard markup: {reason}"
        )
    empty = await botapi.post("/sendMessage", json={
        "chat_id": ANN, "text": "How much?",
        "reply_markup": {"force_reply": True, "input_field_placeholder": ""}})
    assert empty.json()["description"] == (
        "Bad Request: can't parse reply keyboard markup: "
        "input_field_placeholder must be 1-64 characters"
    )
    # an edit takes an inline keyboard only
    edit = await botapi.post("/editMessageText", json={
        "chat_id": ANN, "message_id": sent["message_id"], "text": "How much now?",
        "reply_markup": {"force_reply": True}})
    assert edit.status_code == 400


# --- the world kept across restarts -----------------------------------------------------------


async def test_the_world_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data" / "sandbox.json"
    first = await start_sandbox("127.0.0.1", 0, path)
    async with SandboxClient(first.url) as sb, httpx.AsyncClient(
        base_url=f"{first.url}/bot{TOKEN}"
    ) as botapi:
        ids = await seed(sb, botapi)
        before = await sb.messages(GROUP)
        updates_before = await sb.updates()
        await sb.press(GROUP, ids["table"], BOB, "banco", wait=0)
    await first.stop()  # saves
    saved = json.loads(path.read_text("utf-8"))
    assert saved["version"] == 1
    assert [u["first_name"] for u in saved["users"]] == ["Ann", "Bob", ODD_NAME]
    assert not list(path.parent.glob(".*.tmp"))

    second = await start_sandbox("127.0.0.1", 0, path)
    try:
        async with SandboxClient(second.url) as sb, httpx.AsyncClient(
            base_url=f"{second.url}/bot{TOKEN}"
        ) as botapi:
            state = await sb.state()
            assert [u["first_name"] for u in state["users"]] == ["Ann", "Bob", ODD_NAME]
            group = next(c for c in state["chats"] if c["id"] == GROUP)
            assert (group["title"], group["members"], group["admins"], group["bot_status"]) == (
                GROUP_TITLE, [ANN, BOB, ODD], [ANN], "member"
            )
            assert await sb.messages(GROUP) == before
            assert next(u for u in state["users"] if u["id"] == ANN)["started"] is True
            # the updates the bot had not fetched are still waiting, the press among them
            pending = await sb.updates()
            assert pending[: len(updates_before)] == updates_before
            assert pending[-1]["callback_query"]["data"] == "banco"
            # ids go on from where they were
            after = await sb.send(GROUP, BOB, "/again")
            assert after["message_id"] == before[-1]["message_id"] + 1
            assert after["update_id"] == pending[-1]["update_id"] + 1
            # the bot can still answer the press and edit the table message
            await call(botapi, "answerCallbackQuery",
                       callback_query_id=pending[-1]["callback_query"]["id"], text="Banco!")
            edited = await call(botapi, "editMessageText", chat_id=GROUP,
                                message_id=ids["table"], text="Coup over")
            assert edited["text"] == "Coup over"
            # the bot may write to Ann in private (she had started it)
            await call(botapi, "sendMessage", chat_id=ANN, text="Still here")
    finally:
        await second.stop()


@needs_chromium
async def test_the_page_shows_the_world_after_a_restart(tmp_path: Path, browser: Any) -> None:
    path = tmp_path / "sandbox.json"
    first = await start_sandbox("127.0.0.1", 0, path)
    async with SandboxClient(first.url) as sb, httpx.AsyncClient(
        base_url=f"{first.url}/bot{TOKEN}"
    ) as botapi:
        ids = await seed(sb, botapi)
    await first.stop()
    second = await start_sandbox("127.0.0.1", 0, path)
    try:
        page = await open_page(browser, second, DESKTOP)
        table = page.locator(f'#groupchat .msg[data-id="{ids["table"]}"]')
        await table.wait_for()
        assert (await table.locator(".text").inner_text()).startswith(TABLE_TEXT_START)
        assert await page.locator("#groupchat .chat-head .title").inner_text() == GROUP_TITLE
        assert await page.locator("#privatechat .msg.bot .text").inner_text() == (
            "Welcome, Ann! Your balance is 1000 chips."
        )
    finally:
        await second.stop()


async def test_saves_are_debounced_atomic_and_off_without_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sandbox.persist as persist

    writes: list[str] = []
    real_write = persist._write_atomically

    def counting_write(path: Path, text: str) -> None:
        writes.append(text)
        real_write(path, text)

    monkeypatch.setattr(persist, "_write_atomically", counting_write)
    path = tmp_path / "sandbox.json"
    handle = await start_sandbox("127.0.0.1", 0, path)
    try:
        async with SandboxClient(handle.url) as sb:
            await sb.add_user(ANN, "Ann")
            await sb.add_chat(GROUP, "T", "group", members=[ANN], admins=[ANN])
            loop = asyncio.get_running_loop()
            start = loop.time()
            for i in range(40):
                await sb.send(GROUP, ANN, f"line {i}")
            busy = loop.time() - start
            await asyncio.sleep(1.2)
            # one save at the first change, then at most one a second
            assert 1 <= len(writes) <= 2 + int(busy)
            on_disk = json.loads(path.read_text("utf-8"))
            texts = [m["text"] for m in dict(on_disk["messages"])[GROUP]]
            assert texts == [f"line {i}" for i in range(40)]
            # reading changes nothing, so nothing more is written
            count = len(writes)
            await sb.messages(GROUP)
            await sb.state()
            await asyncio.sleep(1.1)
            assert len(writes) == count
    finally:
        await handle.stop()
    assert not list(tmp_path.glob(".*.tmp"))

    # without a state path nothing is saved or loaded
    plain = await start_sandbox("127.0.0.1", 0)
    try:
        assert plain.state is None
        async with SandboxClient(plain.url) as sb:
            assert (await sb.state())["users"] == []
    finally:
        await plain.stop()


async def test_an_unreadable_state_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.json"
    path.write_text('{"version": 1, "users": [', "utf-8")
    handle = await start_sandbox("127.0.0.1", 0, path)
    try:
        assert handle.world.users == {}
        assert (tmp_path / "sandbox.json.bad").read_text("utf-8") == '{"version": 1, "users": ['
    finally:
        await handle.stop()
    # the empty world was saved in its place, and loads
    assert json.loads(path.read_text("utf-8"))["users"] == []
    assert StateFile(handle.world, path).load() is True


async def test_a_time_left_entity_counts_down_in_the_readers_terms(
    page_at: Any, botapi: httpx.AsyncClient, ids: dict[str, int]
) -> None:
    due = int(time.time()) + 30
    sent = await call(botapi, "sendMessage", chat_id=GROUP, parse_mode="HTML",
                      text=f'⏳ Ann · <tg-time unix="{due}" format="r">30 s</tg-time>')
    page = await page_at(PHONE)
    clock = page.locator(f'#groupchat .msg[data-id="{sent["message_id"]}"] time.dt')
    await clock.wait_for()
    first = await clock.inner_text()
    found = re.fullmatch(r"in (\d+) sec\.?", first)
    assert found and 25 <= int(found.group(1)) <= 30, first
    await page.wait_for_timeout(2100)
    later = re.fullmatch(r"in (\d+) sec\.?", await clock.inner_text())
    assert later and int(later.group(1)) < int(found.group(1))
    assert await clock.get_attribute("title")  # the local date and time
    await page.screenshot(path=str(SHOTS / "time_left_390.png"))
    assert not page.errors

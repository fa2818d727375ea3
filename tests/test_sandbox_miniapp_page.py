"""A Mini App opened from the sandbox page in headless Chromium, as Telegram's client opens it.

The test serves a tiny app page in-process (aiohttp) that loads the sandbox's stand-in for
telegram-web-app.js and writes what the script gives it into its DOM (the user's name, the
start param, the colour scheme, the --tg-theme-bg-color variable), and sends the raw
initData back to its server, which checks it with the bot's token as the bot's own server
does. The bot side is played through the sandbox's Bot API: a group message with a URL
button to the app's direct link, a private message with a web_app button. A person picks
Bob on the page and presses the button: the panel opens beside the chats (over them on a
phone) with the app in it, the theme toggle re-themes the app, and the app's close() closes
the panel. Screenshots go where tests/test_sandbox_page.py puts its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl

import httpx
import init_data_py
import pytest
from aiohttp import web
from test_sandbox_page import DESKTOP, PHONE, SHOTS, TOKEN, browser, call, needs_chromium

from sandbox.client import SandboxClient
from sandbox.miniapp import THEMES
from sandbox.server import SandboxHandle, start_sandbox

__all__ = ["browser"]  # a fixture shared with the page's tests

ANN, BOB = 1, 2
GROUP = -100
LINK = "https://t.me/banco_bot/table?startapp=-100_abc"

APP_HTML = """<!doctype html>
<html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="%(sdk)s"></script>
<style>
  body { margin: 0; padding: 16px; font: 16px/1.5 system-ui, sans-serif;
         background: var(--tg-theme-bg-color); color: var(--tg-theme-text-color); }
  .hint { color: var(--tg-theme-hint-color); }
  button { background: var(--tg-theme-button-color); color: var(--tg-theme-button-text-color);
           border: 0; border-radius: 8px; padding: 10px 16px; font: inherit; }
</style></head>
<body>
<h1 id="name"></h1>
<p>start_param: <b id="start"></b></p>
<p>scheme: <b id="scheme"></b> <span class="hint">bg <span id="bg"></span></span></p>
<p class="hint">server check: <span id="check">pending</span></p>
<button id="close" type="button">Close</button>
<script>
  const app = Telegram.WebApp;
  function show() {
    document.getElementById("name").textContent = app.initDataUnsafe.user.first_name;
    document.getElementById("start").textContent = app.initDataUnsafe.start_param || "(none)";
    document.getElementById("scheme").textContent = app.colorScheme;
    document.getElementById("bg").textContent =
      getComputedStyle(document.documentElement).getPropertyValue("--tg-theme-bg-color").trim();
  }
  show();
  app.onEvent("themeChanged", show);
  document.getElementById("close").onclick = () => app.close();
  fetch("check", {method: "POST", body: app.initData})
    .then((r) => r.text()).then((t) => { document.getElementById("check").textContent = t; });
  app.ready();
  app.expand();
</script>
</body></html>
"""


@pytest.fixture
async def sandbox() -> AsyncIterator[SandboxHandle]:
    handle = await start_sandbox("127.0.0.1", 0)
    try:
        yield handle
    finally:
        await handle.stop()


@pytest.fixture
async def app_url(sandbox: SandboxHandle) -> AsyncIterator[str]:
    """The tiny Mini App, served on its own port (another origin than the sandbox's page)."""

    async def page(request: web.Request) -> web.Response:
        html = APP_HTML % {"sdk": f"{sandbox.url}/js/telegram-web-app.js"}
        return web.Response(text=html, content_type="text/html")

    async def check(request: web.Request) -> web.Response:
        try:
            data = init_data_py.validate_by_hash(await request.text(), TOKEN)
        except init_data_py.errors.InitDataError as error:
            return web.Response(text=f"refused: {type(error).__name__}")
        user = data.user
        assert user is not None
        return web.Response(text=f"valid: {user.first_name} {user.last_name}")

    app = web.Application()
    app.router.add_get("/app/", page)
    app.router.add_post("/app/check", check)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/app/"
    finally:
        await runner.cleanup()


@pytest.fixture
async def world(sandbox: SandboxHandle, app_url: str) -> AsyncIterator[SandboxClient]:
    """Ann and Bob in a group with the bot, the app registered, and the bot's table message
    with its URL button to the app's direct link."""
    async with SandboxClient(sandbox.url) as sb, httpx.AsyncClient(
        base_url=f"{sandbox.url}/bot{TOKEN}"
    ) as botapi:
        await sb.add_user(ANN, "Ann", "ann", "en")
        await sb.add_user(BOB, "Bob", "bob", "en", last_name="Le Brun")
        await sb.add_chat(GROUP, "Friday game", "supergroup", members=[ANN, BOB], admins=[ANN])
        await sb.add_bot(GROUP, ANN)
        await sb.send(BOB, BOB, "/start")
        await sb.register_miniapp("table", app_url, title="Banco table")
        await call(botapi, "sendMessage", chat_id=GROUP, text="Coup 4: Bob to act",
                   reply_markup={"inline_keyboard": [[{"text": "Open table", "url": LINK}]]})
        await call(botapi, "sendMessage", chat_id=BOB, text="Your seat",
                   reply_markup={"inline_keyboard": [[
                       {"text": "Open my seat", "web_app": {"url": app_url + "?table=-100_abc"}}]]})
        yield sb


async def open_page_as_bob(browser: Any, sandbox: SandboxHandle, viewport: dict[str, int]) -> Any:
    """The sandbox page at a viewport, with Bob picked as the acting user."""
    from playwright.async_api import expect

    context = await browser.new_context(viewport=viewport)
    context.set_default_timeout(5000)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(f"{sandbox.url}/")
    await page.wait_for_selector(f'#users .item[data-user="{BOB}"]', state="attached")
    if viewport["width"] <= 900:  # the users are in the drawer
        await page.click("#menu")
    await page.click(f'#users .item[data-user="{BOB}"]')
    await expect(page.locator(f'#users .item[data-user="{BOB}"]')).to_have_class("item sel")
    return page


async def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"))


async def box(page: Any, selector: str) -> dict[str, float]:
    found = await page.locator(selector).bounding_box()
    assert found is not None, selector
    return dict(found)


@needs_chromium
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_a_groups_url_button_opens_the_app_as_the_acting_user(
    browser: Any, sandbox: SandboxHandle, world: SandboxClient, viewport: dict[str, int]
) -> None:
    from playwright.async_api import expect

    width = viewport["width"]
    page = await open_page_as_bob(browser, sandbox, viewport)
    await expect(page.locator("#miniapp")).to_be_hidden()
    await page.click('#groupchat .kb button:text-is("Open table")')

    panel = page.locator("#miniapp")
    await expect(panel).to_be_visible()
    await expect(panel.locator(".ma-title b")).to_have_text("Banco table")
    await expect(panel.locator(".ma-title span")).to_have_text("@banco_bot · as Bob")
    app = page.frame_locator("#miniapp iframe")
    await expect(app.locator("#name")).to_have_text("Bob")
    await expect(app.locator("#start")).to_have_text("-100_abc")
    await expect(app.locator("#scheme")).to_have_text("light")
    await expect(app.locator("#bg")).to_have_text("#ffffff")
    # the initData the script gives the page is the signed one, decoded exactly once
    await expect(app.locator("#check")).to_have_text("valid: Bob Le Brun")
    await expect(panel.locator(".ma-events li", has_text="web_app_ready")).to_have_count(1)
    await expect(panel.locator(".ma-events li").last).to_have_text("web_app_expand")

    shown = await box(page, "#miniapp")
    chat = await box(page, "#groupchat")
    assert shown["width"] == 390 and shown["height"] >= viewport["height"] - 60
    if width <= 900:  # a phone: the app covers the chat
        assert shown["x"] == 0
        assert shown["y"] <= chat["y"]
        assert shown["y"] + shown["height"] >= chat["y"] + chat["height"]
    else:  # a desktop: beside the chats, at the right
        assert shown["x"] + shown["width"] == width
        assert chat["x"] + chat["width"] <= shown["x"]
        assert await page.is_visible("#groupchat") and await page.is_visible("#privatechat")
    assert await page.evaluate("document.documentElement.scrollWidth") <= width
    await shot(page, f"miniapp-{width}-light")

    await panel.locator(".ma-theme").click()
    await expect(app.locator("#scheme")).to_have_text("dark")
    await expect(app.locator("#bg")).to_have_text("#212121")
    await expect(panel.locator(".ma-theme")).to_have_text("Light")
    background = await panel.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert background == "rgb(33, 33, 33)"
    await shot(page, f"miniapp-{width}-dark")

    # the app's close() closes the panel (web_app_close)
    await app.locator("#close").click()
    await expect(panel).to_be_hidden()
    assert page.errors == []
    await page.context.close()


@needs_chromium
async def test_a_private_web_app_button_opens_the_app_without_a_start_param(
    browser: Any, sandbox: SandboxHandle, world: SandboxClient
) -> None:
    from playwright.async_api import expect

    page = await open_page_as_bob(browser, sandbox, PHONE)
    await page.click('#switch button[data-view="dm"]')
    await page.click('#privatechat .kb button:text-is("Open my seat")')
    app = page.frame_locator("#miniapp iframe")
    await expect(app.locator("#name")).to_have_text("Bob")
    await expect(app.locator("#start")).to_have_text("(none)")
    await expect(app.locator("#check")).to_have_text("valid: Bob Le Brun")
    await expect(page.locator("#miniapp .ma-title b")).to_have_text("Banco table")
    await page.locator("#miniapp .ma-close").click()
    await expect(page.locator("#miniapp")).to_be_hidden()
    assert page.errors == []
    await page.context.close()


PROXY = """window.__posted = [];
window.TelegramWebviewProxy = {postEvent: (type, data) =>
  window.__posted.push([type, JSON.parse(data === undefined ? "null" : data)])};
window.css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();"""


@needs_chromium
async def test_the_stand_in_script_behaves_as_telegrams(
    browser: Any, sandbox: SandboxHandle, world: SandboxClient
) -> None:
    """The app page opened at its launch URL on its own (no iframe): events go out through
    TelegramWebviewProxy as in Telegram's mobile clients, and come in via receiveEvent."""
    opened = await world.open_miniapp(BOB, link=LINK, chat_id=GROUP, theme="dark")
    context = await browser.new_context(viewport=PHONE)
    context.set_default_timeout(5000)
    await context.add_init_script(PROXY)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(opened["url"])
    await page.wait_for_function("document.getElementById('check').textContent !== 'pending'")
    fields = dict(parse_qsl(opened["init_data"]))
    web_app = await page.evaluate("""() => {
      const w = Telegram.WebApp;
      return {initData: w.initData, unsafe: w.initDataUnsafe, version: w.version,
              platform: w.platform, colorScheme: w.colorScheme, isActive: w.isActive,
              at102: w.isVersionAtLeast("10.2"), at11: w.isVersionAtLeast("11"),
              at61: w.isVersionAtLeast("6.1"), bg: css("--tg-theme-bg-color"),
              button: css("--tg-theme-button-color"), scheme: css("--tg-color-scheme"),
              section: css("--tg-theme-section-separator-color"),
              viewport: css("--tg-viewport-height"), top: css("--tg-safe-area-inset-top"),
              themeParams: w.themeParams};
    }""")
    assert web_app == {
        "initData": opened["init_data"],
        "unsafe": {"auth_date": fields["auth_date"], "chat_instance": fields["chat_instance"],
                   "chat_type": "supergroup", "start_param": "-100_abc", "hash": fields["hash"],
                   "user": {"id": BOB, "first_name": "Bob", "last_name": "Le Brun",
                            "username": "bob", "language_code": "en",
                            "allows_write_to_pm": True}},
        "version": "10.2", "platform": "web", "colorScheme": "dark", "isActive": True,
        "at102": True, "at11": False, "at61": True, "bg": "#212121", "button": "#8774e1",
        "scheme": "dark", "section": "#0f0f0f", "viewport": f"{PHONE['height']}px",
        "top": "0px", "themeParams": THEMES["dark"],
    }
    await page.evaluate("""() => {
      const w = Telegram.WebApp;
      window.__seen = [];
      const names = ["activated", "deactivated", "themeChanged", "viewportChanged",
                     "safeAreaChanged"];
      for (const name of names) {
        w.onEvent(name, () => window.__seen.push(name));
      }
      const quiet = () => window.__seen.push("removed handler ran");
      w.onEvent("themeChanged", quiet);
      w.offEvent("themeChanged", quiet);
      Telegram.WebView.receiveEvent("visibility_changed", {is_visible: false});
      window.__inactive = w.isActive;
      Telegram.WebView.receiveEvent("visibility_changed", {is_visible: true});
      Telegram.WebView.receiveEvent("theme_changed",
                                    {theme_params: {bg_color: "#FFFFFF", text_color: "#000000"}});
      Telegram.WebView.receiveEvent("viewport_changed",
                                    {height: 600, is_expanded: true, is_state_stable: true});
      Telegram.WebView.receiveEvent("safe_area_changed", {top: 47, bottom: 34, left: 0, right: 0});
      w.HapticFeedback.impactOccurred("light").notificationOccurred("success").selectionChanged();
      w.enableClosingConfirmation();
      w.setHeaderColor("secondary_bg_color");
      w.MainButton.setText("Bet 50").show();
      w.BackButton.show();
      w.openTelegramLink("https://t.me/banco_bot?start=x");
      w.close();
    }""")
    after = await page.evaluate("""() => {
      return {seen: window.__seen, inactive: window.__inactive,
              scheme: Telegram.WebApp.colorScheme,
              bg: css("--tg-theme-bg-color"), viewport: Telegram.WebApp.viewportStableHeight,
              inset: Telegram.WebApp.safeAreaInset, top: css("--tg-safe-area-inset-top"),
              text: document.getElementById("scheme").textContent};
    }""")
    assert after == {
        "seen": ["deactivated", "activated", "themeChanged", "viewportChanged",
                 "safeAreaChanged"],
        "inactive": False, "scheme": "light", "bg": "#ffffff", "viewport": 600,
        "inset": {"top": 47, "bottom": 34, "left": 0, "right": 0}, "top": "47px",
        "text": "light",
    }
    posted = await page.evaluate("window.__posted")
    assert posted == [
        ["web_app_request_theme", None],
        ["web_app_request_viewport", None],
        ["web_app_request_safe_area", None],
        ["web_app_request_content_safe_area", None],
        ["web_app_ready", None],
        ["web_app_expand", None],
        ["web_app_trigger_haptic_feedback", {"type": "impact", "impact_style": "light"}],
        ["web_app_trigger_haptic_feedback",
         {"type": "notification", "notification_type": "success"}],
        ["web_app_trigger_haptic_feedback", {"type": "selection_change"}],
        ["web_app_setup_closing_behavior", {"need_confirmation": True}],
        ["web_app_set_header_color", {"color_key": "secondary_bg_color"}],
        ["web_app_setup_main_button", {"is_visible": False, "is_active": True, "text": "Bet 50",
                                       "is_progress_visible": False}],
        ["web_app_setup_main_button", {"is_visible": True, "is_active": True, "text": "Bet 50",
                                       "is_progress_visible": False}],
        ["web_app_setup_back_button", {"is_visible": True}],
        ["web_app_open_tg_link", {"path_full": "/banco_bot?start=x"}],
        ["web_app_close", {}],
    ]
    assert errors == []
    await context.close()

"""The Mini App's profile and standings pages in headless Chromium at 390 px, on the real
server over the real host and storage (coups seeded through its API:
tests/profile_seed.py), ``initData`` signed as Telegram signs it and handed to the page by
a stub of Telegram's script.

Ann opens the group's table, taps the standings button on it, reads /top's lines and
switches the period, taps Profile and reads /stats's lines, her title, the empty
achievements and rating, and the chart's points, one per day she played; then goes back
to the table. Bob opens his profile in Russian from his private chat's button. Screenshots
go to $WEBAPP_SHOTS (default: tmp/banco-webapp-profile in the system's temp dir)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from profile_seed import ANN, BOB, CHAT, seed
from test_bot_tables import make_host  # noqa: F401 (a fixture)
from test_webapp_page import THEMES, browser  # noqa: F401 (a fixture)
from test_webapp_server import init_data, link, served  # noqa: F401

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")
PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("WEBAPP_SHOTS")
             or Path(tempfile.gettempdir()) / "banco-webapp-profile")

STUB = """(function () {
  var user = __USER__, theme = __THEME__, scheme = __SCHEME__;
  var root = document.documentElement;
  Object.keys(theme).forEach(function (k) {
    root.style.setProperty('--tg-theme-' + k.replace(/_/g, '-'), theme[k]);
  });
  var handlers = {};
  window.__back = [];
  window.Telegram = { WebApp: {
    initData: __DATA__, initDataUnsafe: { user: user }, version: '8.0',
    platform: 'tdesktop', colorScheme: scheme, themeParams: theme, isActive: true,
    ready: function () {}, expand: function () {}, close: function () {},
    isVersionAtLeast: function () { return true; },
    onEvent: function (name, f) { (handlers[name] = handlers[name] || []).push(f); },
    offEvent: function () {},
    BackButton: { isVisible: false,
      show: function () { this.isVisible = true; }, hide: function () { this.isVisible = false; },
      onClick: function (f) { window.__back.push(f); }, offClick: function () {} },
  } };
}());
"""

TOP_ALL = ["🏆 All time · all games", "1. Ann — +110 (6 coups, 4 won)",
           "2. Cid — -35 (3 coups, 0 won)", "3. Bob — -75 (5 coups, 2 won)",
           "To be ranked, play 3 coups."]
TOP_WEEK = ["🏆 Last 7 days · all games", "1. Ann — +80 (4 coups, 3 won)",
            "2. Bob — -45 (3 coups, 1 won)", "To be ranked, play 3 coups."]
RATING = ["🎯 Poker rating · this chat", "Nobody is ranked yet.", "To be ranked, play 5 hands."]
STATS = ["📊 Ann · all games · all chats", "Played: 7 coups · won 4 · lost 3", "Net: +10",
         "Biggest win: +50 · biggest loss: -100", "Banks held: 3 · longest run: 2",
         "Naturals: 1", "Best hand: two pair, aces and fives"]


async def phone(chromium: Any, user: int, name: str, *, lang: str = "en",
                param: str | None = None, scheme: str = "light") -> Any:
    """A phone's page for ``user``, Telegram's script stubbed with his signed initData
    (opened from the group's link: ``param``), as every page he navigates to gets it."""
    data = init_data(user, param=param, lang=lang)
    stub = (STUB.replace("__USER__", json.dumps({"id": user, "first_name": name,
                                                 "language_code": lang}, ensure_ascii=False))
            .replace("__THEME__", json.dumps(THEMES[scheme]))
            .replace("__SCHEME__", json.dumps(scheme)).replace("__DATA__", json.dumps(data)))
    context = await chromium.new_context(viewport=PHONE, device_scale_factor=2,
                                        color_scheme=scheme, has_touch=True)
    context.set_default_timeout(10_000)
    await context.route("**/sdk.js", lambda route: route.fulfill(
        body=stub, content_type="text/javascript"))
    page = await context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


async def lines(page: Any, selector: str) -> list[str]:
    found: list[str] = await page.locator(selector).all_inner_texts()
    return [t.strip() for t in found]


async def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def fits(page: Any) -> bool:
    """Nothing wider than the phone's screen."""
    return bool(await page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


async def test_standings_and_profile_from_the_table_page(
        served: Any, browser: Any) -> None:  # noqa: F811
    host, _bot, _web, url = served
    await seed(host.storage)
    assert await host.lifecycle.open_table(CHAT, "chemin_de_fer", ANN, "en") is None
    await host.idle()
    page = await phone(browser, ANN, "Ann", param=link(CHAT))
    await page.goto(url)
    await page.wait_for_selector("body[data-version]")
    assert await page.get_attribute("#stats-open", "aria-label") == "Standings"
    assert await fits(page)
    await shot(page, "table-en")

    # the table's standings button: /top of the chat, all time, then the last 7 days
    await page.tap("#stats-open")
    await page.wait_for_selector(f"body[data-board='{CHAT}:all:']")
    assert await lines(page, "#title") == ["Casino Royale"]
    assert await lines(page, "#s-top p") == TOP_ALL
    assert await lines(page, "#s-rating p") == RATING
    assert await lines(page, "#periods button") == ["Today", "Last 7 days", "Last 30 days",
                                                    "All time"]
    assert await page.is_visible("#chat-pick")  # Ann plays in two chats
    await shot(page, "standings-all-en")
    await page.tap("#periods button[data-period='week']")
    await page.wait_for_selector(f"body[data-board='{CHAT}:week:']")
    assert await lines(page, "#s-top p") == TOP_WEEK
    assert await page.get_attribute("#periods button[data-period='week']",
                                    "aria-pressed") == "true"
    await page.select_option("#game", "draw_poker")
    await page.wait_for_selector(f"body[data-board='{CHAT}:week:draw_poker']")
    assert await lines(page, "#s-top p") == ["🏆 Last 7 days · Draw poker (jackpots)",
                                             "Nobody is ranked yet.",
                                             "To be ranked, play 3 coups."]
    assert await fits(page)
    await shot(page, "standings-week-en")

    # her profile: /stats in all her chats, her title, nothing reached or rated yet
    await page.tap("#tab-profile")
    await page.wait_for_selector("body[data-profile='ready']")
    assert await lines(page, "#title") == ["Ann"]
    assert await lines(page, "#p-stats p") == STATS
    assert await lines(page, "#p-games summary") == ["Chemin de fer", "Draw poker (jackpots)"]
    await page.tap("#p-games [data-game='chemin_de_fer'] summary")
    assert await lines(page, "#p-games [data-game='chemin_de_fer'] p") == [
        "Played: 6 coups · won 3 · lost 3", "Net: -30", "Biggest win: +50 · biggest loss: -100",
        "Banks held: 3 · longest run: 2", "Naturals: 1"]
    assert await lines(page, "#p-titles li") == ["🏆 Champion of Casino Royale, October 2026"]
    assert await lines(page, "#p-achievements li") == [
        "🌟 First natural — eight or nine points on the first two cards\n"
        "Chemin de fer · Casino Royale"]
    assert await lines(page, "#p-rating li") == [
        "🎯 Poker rating in «Casino Royale»: 3.4 (1 hand)"]
    assert await lines(page, "#h-chart") == ["NET CHIPS, DAY BY DAY"]
    # the chart: one point a day she played, her net summed up to it
    points = await page.eval_on_selector_all(
        "#chart svg circle", "cs => cs.map(c => Number(c.dataset.net))")
    assert points == [50, -70, 0, 10]
    assert await page.locator("#chart polyline").count() == 1
    heights = await page.eval_on_selector_all(
        "#chart svg circle", "cs => cs.map(c => Number(c.getAttribute('cy')))")
    assert heights[0] < heights[3] < heights[2] < heights[1]  # higher net, higher point
    assert await fits(page)
    await shot(page, "profile-en")

    # back to the table
    await page.tap("#back")
    await page.wait_for_selector("body[data-version]")
    assert page.errors == []


async def test_the_profile_from_the_private_chat_in_russian(
        served: Any, browser: Any) -> None:  # noqa: F811
    host, _bot, _web, url = served
    await seed(host.storage)
    page = await phone(browser, BOB, "Bob", lang="ru", scheme="dark")
    await page.goto(url + "?page=profile")  # the private chat's button
    await page.wait_for_selector("body[data-profile='ready']")
    assert await lines(page, "#tab-profile") == ["Профиль"]
    assert await lines(page, "#p-stats p") == [
        "📊 Bob · все игры · все чаты", "Сыграно: 5 конов · выиграно 2 · проиграно 3",
        "Итог: -75", "Крупнейший выигрыш: +20 · крупнейший проигрыш: -50",
        "Банков: 2 · самая длинная серия: 2", "Лучшая комбинация: пара валетов"]
    assert await lines(page, "#p-titles li") == ["Титулов пока нет."]
    assert await lines(page, "#p-achievements li") == ["Достижений пока нет."]
    points = await page.eval_on_selector_all(
        "#chart svg circle", "cs => cs.map(c => Number(c.dataset.net))")
    assert points == [-50, -30, -80, -75]
    assert not await page.is_visible("#back")  # not opened from a table
    assert await fits(page)
    await shot(page, "profile-ru-dark")
    await page.tap("#tab-standings")
    await page.wait_for_selector(f"body[data-board='{CHAT}:all:']")
    assert await lines(page, "#s-top p") == [
        "🏆 За всё время · все игры", "1. Ann — +110 (6 конов, выиграно 4)",
        "2. Cid — -35 (3 кона, выиграно 0)", "3. Bob — -75 (5 конов, выиграно 2)",
        "Чтобы попасть в рейтинг, сыграйте 3 кона."]
    assert await fits(page)
    await shot(page, "standings-ru-dark")
    assert page.errors == []

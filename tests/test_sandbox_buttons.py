"""Every keyboard the bot draws in a real play of each game, in English and Russian, on the
sandbox page at a phone's 390 px: no button label breaks inside a word.

Each game is played in-process (real storage and commit path, a recording Telegram, shoes
from a seeded generator) for two coups; every table message and private decision that came
with buttons is then posted, text and keyboard as the bot sent them, to the sandbox, whose
page draws a row's buttons equally wide as Telegram does. In headless Chromium every word
of every label must sit on one line of its button (a label may wrap between words) and no
label may overflow its button. The busiest keyboard of each game is saved as a screenshot
(see tests/test_sandbox_page.py for where).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_bot_tables import CHAT, PREFERRED, RecordingBot, composed, press
from test_sandbox_page import CHROMIUM, HAVE_CHROMIUM, PHONE, SHOTS, TOKEN

from games import cards
from sandbox.client import SandboxClient
from sandbox.server import start_sandbox
from storage.sqlite import SqliteStorage

GAMES = ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
# what the players press, first offered first: the default policy and what it leaves out
POLICY = [*PREFERRED, "turn", "join_stake", "play_on", "take_bank", "open", "bet", "raise"]
ANN, BOB, CID = 1, 2, 3
GROUP = -100

# For each button's text node: every word's client rects on one line, and no overflow.
BROKEN = """() => {
  const broken = [];
  for (const button of document.querySelectorAll('#groupchat .kb button')) {
    const node = button.firstChild;
    if (!node) continue;
    const text = node.textContent;
    let at = 0;
    for (const word of text.split(' ')) {
      if (word) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${text} (${word} at ${button.clientWidth} px)`);
      }
      at += word.length + 1;
    }
    if (button.scrollWidth > button.clientWidth) broken.push(`${text} (overflows)`);
  }
  return broken;
}"""


async def keyboards_of(game: str, lang: str, folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every message with buttons a play of two coups of ``game`` sent (the group's table and
    each private decision), as (text, reply_markup); each distinct keyboard once, under the
    narrowest text it came with."""
    seeded = random.Random(f"buttons-{game}")
    real = cards.secure_rng
    cards.secure_rng = lambda: seeded  # type: ignore[assignment]
    bot = RecordingBot()
    sent: list[tuple[str, Any]] = []
    send, edit = bot.send_message, bot.edit_message_text

    async def recorded_send(chat_id: int, text: str, reply_markup: Any = None) -> Any:
        sent.append((text, reply_markup))
        return await send(chat_id, text, reply_markup)

    async def recorded_edit(text: str, chat_id: int, message_id: int,
                            reply_markup: Any = None) -> Any:
        sent.append((text, reply_markup))
        return await edit(text, chat_id, message_id, reply_markup)

    bot.send_message, bot.edit_message_text = recorded_send, recorded_edit  # type: ignore[method-assign]
    storage = SqliteStorage(folder / "banco.sqlite3", starting_grant=1000, daily_bonus=100)
    await storage.open()
    host = composed(storage, bot, lang)
    host.lifecycle.start()
    await host.courier.start()
    try:
        assert await host.lifecycle.open_table(CHAT, game, ANN, lang) is None
        await host.idle()
        for player in (ANN, BOB, CID):
            await press(host, bot, player, ["join"])
        for _ in range(150):
            table = await host.tables.load(CHAT)
            if table.state.coup > 2:
                break
            await press(host, bot, (table.engine.awaiting(table.state) or [ANN])[0], POLICY)
    finally:
        cards.secure_rng = real  # type: ignore[assignment]
        await host.courier.stop(1)
        await host.lifecycle.stop()
        host.deadlines.stop()
        await storage.close()
    kept: dict[tuple[tuple[str, ...], ...], tuple[str, dict[str, Any]]] = {}
    for text, markup in sent:
        if markup is None:
            continue
        data = markup.to_dict()
        labels = tuple(tuple(b["text"] for b in row) for row in data["inline_keyboard"])
        if labels not in kept or width(text) < width(kept[labels][0]):
            kept[labels] = (text, data)
    return list(kept.values())


def width(text: str) -> int:
    """How wide a text draws, roughly: its longest line."""
    return max(len(line) for line in text.splitlines())


def buttons_in(markup: dict[str, Any]) -> tuple[int, int]:
    """How busy a keyboard is: its buttons, then its labels' characters."""
    labels = [b["text"] for row in markup["inline_keyboard"] for b in row]
    return len(labels), sum(map(len, labels))


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="Chromium is not installed")
async def test_no_button_label_breaks_inside_a_word_at_390_px(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright  # a dev dependency: missing is an error

    handle = await start_sandbox("127.0.0.1", 0)
    busiest: dict[str, int] = {}
    try:
        async with SandboxClient(handle.url) as sb, httpx.AsyncClient(
                base_url=f"{handle.url}/bot{TOKEN}") as botapi:
            await sb.add_user(ANN, "Ann", "ann_player", "en")
            await sb.add_chat(GROUP, "Cards", "supergroup", members=[ANN], admins=[ANN])
            await sb.add_bot(GROUP, ANN)
            posted = 0
            for game in GAMES:
                for lang in ("en", "ru"):
                    folder = tmp_path / f"{game}-{lang}"
                    folder.mkdir()
                    found = await keyboards_of(game, lang, folder)
                    most = max(buttons_in(markup) for _, markup in found)
                    for text, markup in found:
                        response = await botapi.post("/sendMessage", json={
                            "chat_id": GROUP, "text": text, "parse_mode": "HTML",
                            "reply_markup": markup})
                        message = response.json()["result"]
                        posted += 1
                        if buttons_in(markup) == most and f"{game}-{lang}" not in busiest:
                            busiest[f"{game}-{lang}"] = message["message_id"]
        async with async_playwright() as pw:
            chromium = await pw.chromium.launch(executable_path=CHROMIUM)
            page = await (await chromium.new_context(viewport=PHONE)).new_page()
            await page.goto(f"{handle.url}/")
            await page.wait_for_function(
                f"document.querySelectorAll('#groupchat .msg .kb').length >= {posted}")
            broken = await page.evaluate(BROKEN)
            SHOTS.mkdir(parents=True, exist_ok=True)
            for name, message_id in busiest.items():
                await page.locator(f'#groupchat .msg[data-id="{message_id}"]').screenshot(
                    path=str(SHOTS / f"buttons-{name}.png"))
            await chromium.close()
    finally:
        await handle.stop()
    assert posted > 100
    assert sorted(set(broken)) == []

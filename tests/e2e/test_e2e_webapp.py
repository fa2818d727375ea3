"""The issue's acceptance test: four browser contexts open the app from the sandbox and play
two coups of each of the six games through the app alone: zero hidden-card leaks in any
frame, chips conserved.

The real bot (``python -m bot``) serves the Mini App on a port of its own, against the
in-process sandbox, which plays Telegram's part: the app is registered with it, Ann opens a
table with ``/newtable`` in the group, and each of the four users (Ann, Bob and Cid, who
play, and Eve, a member of the group who watches) opens the group's **Open table** link
through ``POST /sandbox/miniapp/open``; the URL Telegram's web view would load is opened in
a Chromium context of his own (390×844; Cid's in Telegram's dark theme). From then on the
table is played only by tapping the pages: each player taps Join, Ann Start, and the
awaited players tap their actions (an amount's preset then its confirm button, a choice,
own cards then confirm) until two coups are settled.

Every WebSocket frame each page receives and every answer to its ``POST /app/api/act`` is
recorded, and held against the engine as the oracle: with ``TEST_HOOKS`` the bot writes
every seat's hidden cards at every committed step to ``DATA_DIR/hidden.jsonl``
(bot/ops/hooks.py). No frame nor answer a page got may hold, as a card string (``"Ah"``),
a card another seat held hidden at that frame's version, unless that card is face up on a
seat in the same frame (or in the viewer's own hand: six-deck shoes hold copies). The
shoes are seeded (``tests/e2e/seeded/sitecustomize.py``), so each run deals the same
cards. At the end the wallets and the table's accounts hold every chip ever issued.
Screenshots of the chemin de fer and stud runs go to $WEBAPP_SHOTS (default: a folder
banco-webapp-e2e in the system's temp dir).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, BotProcess, Game, Player, chips
from harness import until as harness_until
from test_e2e_webhook import free_port
from test_webapp_leaks import page_moves

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")

GAMES = ("chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker")
CHAT = -9300
ANN, BOB, CID, EVE = (Player(93001, "Ann"), Player(93002, "Bob"), Player(93003, "Cid"),
                      Player(93004, "Eve"))
PLAYERS = (ANN, BOB, CID)
DARK = CID  # his page opens in Telegram's dark theme
PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("WEBAPP_SHOTS") or Path(tempfile.gettempdir()) / "banco-webapp-e2e")
SHOT_GAMES = ("chemin_de_fer", "stud_poker")
SEEDED = Path(__file__).resolve().with_name("seeded")
TIMEOUT = 20.0  # how long any one thing may take to show on the pages


@dataclass
class AppPage:
    """One user's page in its own browser context, and everything it received."""

    user: Player
    page: Any
    progress: asyncio.Event
    frames: list[dict[str, Any]] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    posts: list[dict[str, Any]] = field(default_factory=list)
    reading: list[asyncio.Future[None]] = field(default_factory=list)

    def record(self) -> None:
        """Keep every frame of the page's socket and every answer to its actions."""
        self.page.on("websocket", self._socket)
        self.page.on("response", self._response)

    def _socket(self, ws: Any) -> None:
        if ws.url.split("?")[0].endswith("/app/ws"):
            ws.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        self.frames.append(json.loads(payload))
        self.progress.set()

    def _response(self, response: Any) -> None:
        if response.request.method == "POST" and response.url.endswith("/app/api/act"):
            self.reading.append(asyncio.ensure_future(self._read(response)))

    async def _read(self, response: Any) -> None:
        self.posts.append(json.loads(response.request.post_data or "{}"))
        self.answers.append(await response.json())
        self.progress.set()

    def snapshots(self) -> list[dict[str, Any]]:
        """Every snapshot the page got: pushed frames, then its actions' answers."""
        return [f for f in self.frames if f.get("type") == "snapshot"] + [
            a["snapshot"] for a in self.answers if a.get("snapshot")]

    @property
    def snap(self) -> dict[str, Any] | None:
        """The newest snapshot it got (the one its script draws)."""
        snaps = self.snapshots()
        return max(snaps, key=lambda s: (s["version"], s["rev"])) if snaps else None

    @property
    def version(self) -> int:
        return -1 if self.snap is None else int(self.snap["version"])

    async def drawn(self) -> bool:
        """Whether the page has drawn its newest snapshot."""
        snap = self.snap
        if snap is None:
            return False
        shown = await self.page.evaluate("document.body.dataset.version || ''")
        return bool(shown == f"{snap['version']}.{snap['rev']}")


async def until(condition: Callable[[], Any], progress: asyncio.Event, what: str,
                timeout: float = TIMEOUT) -> Any:
    """:func:`harness.until`, with this test's time for anything to show on the pages."""
    return await harness_until(condition, progress, what, timeout)


def is_amount(action: dict[str, Any]) -> bool:
    """What the page draws as an amount panel (app.js ``isAmount``)."""
    return action["input"] == "amount" or (
        action["input"] == "choice" and action["min"] is not None
        and action["max"] is not None and bool(action["choices"]))


def pick_move(snap: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], Any] | None:
    """A move a player makes from his page (as tests/test_webapp_leaks.py picks them): one
    of his actions, never a utility (leave, join) nor, in banchok, a decline or retire (he
    would stand up); with an amount from its presets, or the cards to tap."""
    offered = page_moves(snap)
    if not offered:
        return None
    action = rng.choice(offered)
    if is_amount(action):
        lo = action["min"] or 0
        hi = action["max"] if action["max"] is not None else max([lo, *action["presets"]])
        presets = [p for p in action["presets"] if lo <= p <= hi]
        return action, rng.choice(presets) if presets else None
    if action["input"] == "own_cards":
        cards = snap["me"]["cards"]
        limit = len(cards) if action["pick"] is None else action["pick"]
        want = max(action["min"] or 0, 1 if limit else 0)
        return action, list(range(min(want, limit, len(cards))))
    return action, None


async def tap(app: AppPage, action: dict[str, Any], arg: Any) -> dict[str, Any] | None:
    """Tap ``action`` on the page as its player would; the answer to the POST it made, or
    None when the page drew a newer snapshot meanwhile and the action is gone from it."""
    from playwright.async_api import TimeoutError as NotThere

    snap = app.snap
    assert snap is not None
    try:
        return await press(app, action, arg, snap)
    except NotThere:
        newest = app.snap
        assert newest is not None
        if (newest["version"], newest["rev"]) == (snap["version"], snap["rev"]):
            raise  # the page shows what the action was picked from: its button must be there
        return None


async def press(app: AppPage, action: dict[str, Any], arg: Any, snap: dict[str, Any]
                ) -> dict[str, Any]:
    """:func:`tap` on the page drawn from ``snap``."""
    page = app.page
    kind = action["kind"]
    before = len(app.answers)
    cards = snap["me"]["cards"]  # his hand as he taps
    if is_amount(action):
        panel = page.locator(f'#actions .panel.amount[data-kind="{kind}"]')
        if action["choices"]:  # the first way is the one on by default
            label = await panel.locator(".seg").first.inner_text()
            assert label.strip() == plain(action["choices"][0]), (label, action)
        if arg is not None:
            await panel.locator(f'button.preset[data-amount="{arg}"]').click()
        # its confirm button stays in its panel, or (the one amount offered) ends the row
        confirm = panel.locator("button.confirm")
        if not await confirm.count():
            confirm = page.locator("#actions .quick button.confirm")
        await confirm.click()
    elif action["input"] == "choice":
        button = page.locator(f'#actions .panel.choice[data-kind="{kind}"] .choices button').first
        assert (await button.inner_text()).strip() == plain(action["choices"][0]), action
        await button.click()
    elif action["input"] == "own_cards":
        hand = page.locator("#hand button.card")
        for i in arg:
            await hand.nth(i).click()
        await page.locator(f'#actions .panel.pick[data-kind="{kind}"] button.pick-confirm').click()
    else:
        await page.locator(f'#actions button[data-kind="{kind}"]').click()
    await until(lambda: len(app.answers) > before, app.progress, f"{app.user.name}'s {kind}")
    body = app.posts[-1]
    assert body["kind"] == kind, body
    if is_amount(action) and arg is not None:
        assert body["amount"] == arg, body
    if action["input"] == "own_cards":
        labels = [plain(c) for c in action["choices"]] or cards
        assert body["cards"] == sum(1 << labels.index(cards[i]) for i in arg), (body, action)
    return app.answers[-1]


def plain(choice: Any) -> str:
    """A choice's label (the server sends ``{"index", "label"}``)."""
    return str(choice["label"] if isinstance(choice, dict) else choice)


def hidden_by_version(data_dir: Path) -> dict[int, dict[int, list[str]]]:
    """The oracle: every seat's hidden cards at every committed version of the table
    (``hidden.jsonl``, the bot's test hook)."""
    out: dict[int, dict[int, list[str]]] = {}
    path = data_dir / "hidden.jsonl"
    for line in path.read_text().splitlines() if path.exists() else []:
        row = json.loads(line)
        if row["chat"] == CHAT:
            out[row["version"]] = {int(p): cards for p, cards in row["hidden"].items()}
    return out


def leaks(frame: dict[str, Any], viewer: int, hidden: dict[int, dict[int, list[str]]]
          ) -> list[str]:
    """Cards in ``frame`` (a snapshot, or an answer with its snapshot) that another seat held
    hidden at the frame's version and that the frame shows face up on no seat (nor in the
    viewer's own hand: a six-deck shoe holds copies)."""
    snap = frame.get("snapshot", frame)
    held = hidden[snap["version"]]
    shown = {c for s in snap["table"]["seats"] for c in s["face_up"]} | set(held.get(viewer, []))
    text = json.dumps(frame, ensure_ascii=False)
    return [c for player, cards in held.items() if player != viewer for c in cards
            if c not in shown and f'"{c}"' in text]


class Shots:
    """Screenshots of a run, numbered in order."""

    def __init__(self, name: str, on: bool) -> None:
        self.name = name
        self.on = on
        self.n = 0
        self.taken: set[str] = set()
        if on:
            SHOTS.mkdir(parents=True, exist_ok=True)
            for old in SHOTS.glob(f"{name}-*.png"):
                old.unlink()

    async def take(self, app: AppPage, what: str, once: bool = True) -> None:
        if not self.on or (once and (app.user.name, what) in self.taken):
            return
        self.taken.add((app.user.name, what))
        await until(app.drawn, app.progress, f"{app.user.name}'s page drawn")
        self.n += 1
        theme = "dark" if app.user is DARK else "light"
        file = f"{self.name}-{self.n:02d}-{app.user.name.lower()}-{theme}-{what}.png"
        await app.page.screenshot(path=str(SHOTS / file))


async def open_app(sb: Any, browser: Any, user: Player, link: str, progress: asyncio.Event,
                   *, chat_id: int = CHAT, theme: str = "light") -> AppPage:
    """``user`` opens the group's ``link`` (Telegram's web view: a browser context of his
    own, 390×844), his page recording what it gets."""
    opened = await sb.open_miniapp(user.id, link=link, chat_id=chat_id, theme=theme)
    context = await browser.new_context(viewport=PHONE)
    context.set_default_timeout(5000)  # a button drawn is there at once
    app = AppPage(user, await context.new_page(), progress)
    app.record()
    await app.page.goto(opened["url"])
    return app


def app_bot(handle: Any, bot_factory: list[BotProcess], data_dir: Path,
            seed: str | None = None) -> tuple[BotProcess, str]:
    """The real bot, started, serving the Mini App on a port of its own (the app's URL);
    with ``seed``, its shoes dealt from it (tests/e2e/seeded)."""
    port = free_port()
    app_url = f"http://127.0.0.1:{port}/app/"
    seeded = {"SHOE_SEED": seed, "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}"} if seed else {}
    bot = BotProcess(handle.url, data_dir, timeout=120.0, extra={
        "WEBAPP_URL": app_url, "WEBAPP_SHORT_NAME": "table", "WEBAPP_LISTEN": "127.0.0.1",
        "WEBAPP_PORT": str(port), "WEBAPP_SDK_URL": f"{handle.url}/js/telegram-web-app.js",
        **seeded})
    bot_factory.append(bot)
    bot.start()
    return bot, app_url


async def open_link(sb: Any, chat_id: int = CHAT) -> str | None:
    """The group's **Open table** link, once the table message carries it."""
    for m in reversed(await sb.bot_messages(chat_id)):
        for row in (m.get("reply_markup") or {}).get("inline_keyboard", []):
            for button in row:
                if "/table?startapp=" in (button.get("url") or ""):
                    return str(button["url"])
    return None


@pytest.mark.parametrize("name", GAMES)
async def test_two_coups_through_the_app(name: str, sandbox: Any, bot_factory: list[BotProcess],
                                         tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    started = time.monotonic()
    handle, sb = sandbox
    data_dir = tmp_path / "data"
    bot, app_url = app_bot(handle, bot_factory, data_dir, f"app e2e {name}")
    game = Game(sb, bot, CHAT, [*PLAYERS, EVE])
    await game.setup()
    await sb.register_miniapp("table", app_url, token="test-token", title="Banco")
    await game.command(ANN, f"/newtable {name}")

    link = await sb.wait_for(lambda: open_link(sb), timeout=TIMEOUT)
    assert link.startswith("https://t.me/") and "Open table" in json.dumps(
        await sb.bot_messages(CHAT), ensure_ascii=False)
    shots = Shots(name, name in SHOT_GAMES)
    rng = random.Random(f"moves {name}")
    progress = asyncio.Event()
    timing: dict[str, float] = {"setup": time.monotonic() - started}

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            pages: dict[int, AppPage] = {}
            for user in (*PLAYERS, EVE):
                app = await open_app(sb, browser, user, link, progress,
                                     theme="dark" if user is DARK else "light")
                assert app.page.url.startswith(app_url), app.page.url
                pages[user.id] = app
            for app in pages.values():
                await until(app.drawn, progress, f"{app.user.name}'s first snapshot")
                await app.page.locator("#main").wait_for(state="visible")
            assert pages[EVE.id].snap and pages[EVE.id].snap["me"]["seated"] is False
            timing["open"] = time.monotonic() - started - sum(timing.values())

            # everyone sits down from his page
            for player in PLAYERS:
                app = pages[player.id]
                join = next(a for a in app.snap["actions"] if a["kind"] == "join")
                answer = await tap(app, join, None)
                assert answer and answer["ok"] and answer["snapshot"]["me"]["seated"], answer
            await shots.take(pages[ANN.id], "seated")

            # the awaited players act from their pages until two coups are settled
            settled: set[int] = set()
            moves = 0
            stale = 0
            while len(settled) < 2:
                moves += 1
                assert moves <= 200, "two coups did not settle"
                stored = await until(lambda: bot.db_table(CHAT), progress, "the table")
                await until(lambda v=stored[2]: all(a.version >= v for a in pages.values()),
                            progress, f"every page at version {stored[2]}")
                lead = pages[ANN.id].snap
                assert lead is not None
                for app in pages.values():
                    for snap in app.snapshots():
                        if snap["table"]["result"] is not None:
                            settled.add(snap["table"]["result"]["coup"])
                if len(settled) >= 2:
                    break
                if settled and lead["table"]["result"] is not None:
                    for app in pages.values():
                        await shots.take(app, f"result{lead['table']['result']['coup']}")
                awaited = lead["table"]["awaiting"]
                turn = [p for p in PLAYERS if p.id in awaited] or [
                    PLAYERS[(moves + i) % 3] for i in range(3)]
                chosen = None
                for who in turn:
                    app = pages[who.id]
                    await until(app.drawn, progress, f"{who.name}'s page drawn")
                    snap = app.snap
                    assert snap is not None
                    chosen = pick_move(snap, rng)
                    if chosen is not None:
                        break
                assert chosen is not None, json.dumps(lead["table"], ensure_ascii=False)[:3000]
                if awaited:
                    await shots.take(app, "turn")
                    await shots.take(pages[EVE.id], "watching")
                answer = await tap(app, *chosen)
                if answer is None or not answer["ok"]:  # the table moved on: look again
                    stale += 1
                    assert stale <= 10, answer
            timing["play"] = time.monotonic() - started - sum(timing.values())
            final = bot.db_table(CHAT)
            assert final is not None
            await until(lambda: all(a.version >= final[2] for a in pages.values()), progress,
                        "every page at the final version")
            for app in pages.values():
                await until(app.drawn, progress, f"{app.user.name}'s page drawn")
                await shots.take(app, "end")
            # the result banner stands on every page
            for app in pages.values():
                await app.page.locator("#result").wait_for(state="visible")
            for app in pages.values():
                await asyncio.gather(*app.reading)
        finally:
            await browser.close()

    # the oracle saw hidden cards, and no page got one of another seat's
    hidden = hidden_by_version(data_dir)
    assert sum(len(c) for held in hidden.values() for c in held.values()) > 0
    first = min(hidden)
    checked = 0
    seen_hidden = 0
    for viewer, app in pages.items():
        assert not [f for f in app.frames if f.get("type") != "snapshot"], app.frames
        for frame in [*app.frames, *app.answers]:
            snap = frame.get("snapshot", frame)
            if snap["version"] not in hidden:  # before the first step: the table as opened
                assert snap["version"] < first and not snap["me"]["cards"], snap
                continue
            assert leaks(frame, viewer, hidden) == [], (app.user.name, frame)
            checked += 1
            seen_hidden += sum(len(c) for p, c in hidden[snap["version"]].items()
                               if p != viewer)
    assert checked > 50 and seen_hidden > 0
    # chips conserved: the wallets and the table's accounts hold every chip issued
    held, issued = chips(bot)
    assert held == issued and issued > 0, (held, issued)
    total = time.monotonic() - started
    print(f"\nAPP E2E {name}: {sorted(settled)} settled in {moves} moves "
          f"({stale} refused or stale); {sum(len(a.frames) for a in pages.values())} frames and "
          f"{sum(len(a.answers) for a in pages.values())} answers checked ({checked} snapshots, "
          f"{seen_hidden} hidden cards of other seats held against them); "
          + ", ".join(f"{k} {v:.1f} s" for k, v in timing.items()) + f", total {total:.1f} s")


async def test_a_closed_table_leaves_the_page_and_the_next_one_shows_there(
        sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    handle, sb = sandbox
    bot, app_url = app_bot(handle, bot_factory, tmp_path / "data")
    game = Game(sb, bot, CHAT, [ANN, BOB])
    await game.setup()
    await sb.register_miniapp("table", app_url, token="test-token", title="Banco")
    await game.command(ANN, "/newtable chemin_de_fer")

    link = await sb.wait_for(lambda: open_link(sb), timeout=TIMEOUT)
    progress = asyncio.Event()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            app = await open_app(sb, browser, BOB, link, progress)
            await until(app.drawn, progress, "Bob's first snapshot")
            join = next(a for a in app.snap["actions"] if a["kind"] == "join")
            answer = await tap(app, join, None)
            assert answer and answer["ok"], answer
            await until(app.drawn, progress, "Bob seated on his page")
            assert await app.page.locator("#actions button").count() > 0  # Leave, at least

            # Ann closes the table in the group: the page says so, with no live button
            await game.command(ANN, "/closetable")
            fatal = app.page.locator("#fatal")
            await fatal.wait_for(state="visible", timeout=TIMEOUT * 1000)
            assert (await app.page.locator("#fatal-text").inner_text()).strip() == (
                "The table is closed; every chip went back to the wallets.")
            assert await app.page.locator("#actions button, #hand button").count() == 0
            assert not await app.page.locator("#main").is_visible()
            assert bot.db_table(CHAT) is None

            # a new table in the chat shows on the same page, live
            await game.command(ANN, "/newtable baccarat")
            await fatal.wait_for(state="hidden", timeout=TIMEOUT * 1000)
            new = app.frames[-1]  # the table it showed had a newer version: not app.snap
            assert new["type"] == "snapshot" and new["table"]["game"] == "baccarat", new
            assert [f["type"] for f in app.frames].count("closed") == 1
            await app.page.locator("#main").wait_for(state="visible")
            assert await app.page.evaluate("document.body.dataset.version") == (
                f"{new['version']}.{new['rev']}")
            assert (await app.page.locator("#game").text_content() or "").strip() == (
                new["table"]["game_name"])
            await app.page.locator('#actions button[data-kind="join"]').wait_for(
                state="visible")
            assert await app.page.evaluate("window.banco.state.stopped") is False
        finally:
            await browser.close()

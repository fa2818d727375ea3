"""The Mini App page of the live table (bot/gateway/webapp/static/) in headless Chromium.

An in-process aiohttp app serves the page as the real server does (``GET /app/`` with
``{{SDK_URL}}`` replaced, ``/app/static/``), a stub of Telegram's script (its theme from the
page's ``?theme=``, its user's language from ``?lang=``), a fake ``/app/ws`` that sends the
fixture snapshots below (docs/webapp.md) and a fake ``/app/api/act`` that records what the
page posts. The page is checked as a player would see it. Screenshots go to $WEBAPP_SHOTS
(default: tmp/banco-webapp in the system's temp dir) to be looked at.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp import WSMsgType, web

STATIC = Path(__file__).resolve().parent.parent / "bot" / "gateway" / "webapp" / "static"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
SHOTS = Path(os.environ.get("WEBAPP_SHOTS") or Path(tempfile.gettempdir()) / "banco-webapp")
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 700, "height": 900}
SERVER_TIME = 1790000000.25
TABLE_PARAM = "-1001_Xk3v9QpL"

pytestmark = pytest.mark.skipif(not HAVE_CHROMIUM, reason="Chromium is not installed")


# --- the stub of Telegram's script ---------------------------------------------------------


def init_data(user: dict[str, Any]) -> str:
    """initData as Telegram sends it: url-encoded fields, the user as JSON."""
    user_json = json.dumps(user, separators=(",", ":"), ensure_ascii=False)
    return (
        "query_id=AAHdF6IQAAAAAN0XohDhrOrc"
        f"&user={quote(user_json, safe='')}"
        "&auth_date=1790000000"
        "&signature=6fbdaJ2W5Fqk0pbuHYuGqfb-qzLc93CLSWnpFrUl8a6IrX9KUqT2DBw5Br9yvSjQbMrQg6HJ0fYQ"
        "Wl1xVWBxBA"
        "&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2"
    )


USERS = {
    "en": {"id": 12, "first_name": "Bob", "language_code": "en"},
    "ru": {"id": 12, "first_name": "Боря", "language_code": "ru"},
}
INIT_DATA = {lang: init_data(user) for lang, user in USERS.items()}
THEMES = {  # Telegram's own light and night themes
    "light": {
        "bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579",
        "link_color": "#2481cc", "button_color": "#2481cc", "button_text_color": "#ffffff",
        "secondary_bg_color": "#efeff4", "section_bg_color": "#ffffff",
        "accent_text_color": "#2481cc", "destructive_text_color": "#e53935",
        "header_bg_color": "#ffffff", "subtitle_text_color": "#707579",
    },
    "dark": {
        "bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#8b9bab",
        "link_color": "#6ab3f3", "button_color": "#5288c1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c", "section_bg_color": "#17212b",
        "accent_text_color": "#6ab2f2", "destructive_text_color": "#ec3942",
        "header_bg_color": "#17212b", "subtitle_text_color": "#8b9bab",
    },
}

STUB = """(function () {
  var q = new URLSearchParams(location.search);
  var THEMES = __THEMES__, USERS = __USERS__, DATA = __DATA__;
  var scheme = q.get('theme') === 'dark' ? 'dark' : 'light';
  var lang = q.get('lang') === 'ru' ? 'ru' : 'en';
  var theme = THEMES[scheme];
  var root = document.documentElement;
  Object.keys(theme).forEach(function (k) {
    root.style.setProperty('--tg-theme-' + k.replace(/_/g, '-'), theme[k]);
  });
  root.style.setProperty('--tg-color-scheme', scheme);
  var handlers = {};
  var log = { calls: [], haptics: [] };
  window.__tg = {
    log: log,
    fire: function (name) { (handlers[name] || []).slice().forEach(function (f) { f(); }); },
  };
  function noop(name) { return function () { log.calls.push(name); }; }
  window.Telegram = { WebApp: {
    initData: DATA[lang],
    initDataUnsafe: { query_id: 'AAHdF6IQAAAAAN0XohDhrOrc', user: USERS[lang],
                      auth_date: 1790000000, hash: 'c501b71e' },
    version: '8.0', platform: 'tdesktop', colorScheme: scheme, themeParams: theme,
    isActive: true, isExpanded: false,
    ready: noop('ready'),
    expand: function () { log.calls.push('expand'); this.isExpanded = true; },
    close: noop('close'),
    isVersionAtLeast: function () { return true; },
    onEvent: function (name, f) { (handlers[name] = handlers[name] || []).push(f); },
    offEvent: function (name, f) {
      handlers[name] = (handlers[name] || []).filter(function (g) { return g !== f; });
    },
    HapticFeedback: {
      impactOccurred: function (s) { log.haptics.push('impact:' + s); },
      notificationOccurred: function (s) { log.haptics.push('notification:' + s); },
      selectionChanged: function () { log.haptics.push('selection'); },
    },
    BackButton: {
      isVisible: false,
      show: function () { this.isVisible = true; }, hide: function () { this.isVisible = false; },
      onClick: function (f) { window.Telegram.WebApp.onEvent('backButtonClicked', f); },
      offClick: function (f) { window.Telegram.WebApp.offEvent('backButtonClicked', f); },
    },
  } };
}());
"""
STUB_JS = (
    STUB.replace("__THEMES__", json.dumps(THEMES))
    .replace("__USERS__", json.dumps(USERS, ensure_ascii=False))
    .replace("__DATA__", json.dumps(INIT_DATA, ensure_ascii=False))
)


# --- fixtures: snapshots as docs/webapp.md describes them ----------------------------------


def seat(player: int, name: str, stack: int, *, stake: int = 0, up: list[str] | None = None,
         down: int = 0, role: str = "", status: str = "", turn: bool = False,
         me: bool = False) -> dict[str, Any]:
    return {"player": player, "name": name, "stack": stack, "stake": stake,
            "face_up": up or [], "face_down": down, "role": role, "status": status,
            "turn": turn, "me": me}


def spec(kind: str, label: str, input: str = "plain", *, lo: int | None = None,
         hi: int | None = None, presets: list[int] | None = None,
         choices: list[str] | None = None, pick: int | None = None,
         confirm: str | None = None) -> dict[str, Any]:
    # each choice as the server sends it (bot/view/webview.py): its index and its label; a
    # plain action's label worded with its cost, an amount's words around it in `confirm`
    return {"kind": kind, "label": label, "input": input, "min": lo, "max": hi,
            "presets": presets or [],
            "choices": [{"index": i, "label": c} for i, c in enumerate(choices or [])],
            "pick": pick, **({"confirm": confirm} if confirm else {})}


def snapshot(version: int, rev: int, table: dict[str, Any], me: dict[str, Any],
             actions: list[dict[str, Any]], *, lang: str = "en",
             ui: dict[str, str] | None = None) -> dict[str, Any]:
    base = {"chat_id": -1001, "title": "Friday game", "open": True, "bank": 0, "pot": 0,
            "facts": [], "awaiting": [], "deadline": None, "log": [], "result": None}
    return {"type": "snapshot", "version": version, "rev": rev, "server_time": SERVER_TIME,
            "lang": lang, "ui": ui or {}, "table": {**base, **table}, "me": me,
            "decision": version, "actions": actions}


BOB = {"id": 12, "name": "Bob", "seated": True}
LEAVE = spec("leave", "Leave", "utility")

CHEMIN = snapshot(57, 130, {
    "game": "chemin_de_fer", "game_name": "Chemin de fer", "coup": 4, "phase": "staking",
    "bank": 200,
    "seats": [
        seat(11, "Alice", 800, role="Banker"),
        seat(14, "Dan", 300),
        seat(12, "Bob", 450, turn=True, me=True),
        seat(13, "Carol", 1200, stake=50, status="Staked"),
    ],
    "facts": [{"label": "Staked", "text": "50"},
              {"label": "Stakes still allowed", "text": "150"}],
    "awaiting": [12], "deadline": SERVER_TIME + 30,
    "log": ["<b>Coup #4</b>: Alice holds a bank of 200", "Carol stakes 50",
            "Bob, your stake: up to 150"],
}, {**BOB, "cards": [], "facts": [{"label": "You may stake", "text": "up to 150"}]}, [
    spec("stake", "Stake", "amount", lo=1, hi=150, presets=[10, 50, 150],
         confirm="Stake {amount}"),
    spec("banco", "Banco! 200"),
    spec("pass", "Pass"),
    LEAVE,
])

STUD = snapshot(212, 488, {
    "game": "five_card_stud", "game_name": "Five-card stud", "coup": 12,
    "phase": "fourth street", "pot": 140,
    "seats": [
        seat(11, "Alice", 760, stake=20, up=["Kh", "Qh"], down=1),
        seat(12, "Bob", 940, up=["9c", "9d"], down=1, turn=True, me=True),
        seat(13, "Carol", 415, status="Folded"),
        seat(14, "Dan", 1280, stake=20, up=["Ad", "7c"], down=1, role="Dealer"),
        seat(15, "Erin", 230, stake=20, up=["Js", "Tc"], down=1),
        seat(16, "Frank", 600, up=["5h", "2d"], down=1, status="All-in"),
    ],
    "facts": [{"label": "Betting", "text": "pot limit"}, {"label": "Small bet", "text": "20"}],
    "awaiting": [12], "deadline": SERVER_TIME + 25,
    "log": ["<b>Hand #12</b> begins", "Dan bets 20", "Erin calls 20", "Alice calls 20"],
}, {**BOB, "cards": ["Ah"], "facts": [{"label": "Your hand", "text": "Pair of nines"}]}, [
    spec("call", "Call 20", lo=20, hi=20, presets=[20]),
    spec("fold", "Fold"),
    spec("raise", "Raise", "amount", lo=40, hi=200, presets=[40, 120, 200],
         confirm="Raise to {amount}"),
    LEAVE,
])

TWENTY_ONE = snapshot(80, 190, {
    "game": "twenty_one", "game_name": "Twenty-one", "coup": 7, "phase": "drawing",
    "bank": 300,
    "seats": [
        seat(11, "Alice", 900, down=1, role="Banker"),
        seat(12, "Bob", 410, stake=40, down=2, turn=True, me=True),
        seat(13, "Carol", 515, stake=25, down=3, status="Stands"),
        seat(14, "Dan", 260, stake=60, down=2),
        seat(15, "Erin", 95, stake=30, up=["Kc", "9h", "5d"], status="Bust"),
    ],
    "facts": [{"label": "Staked", "text": "155"}],
    "awaiting": [12], "deadline": None,
    "log": ["Coup 7: Alice holds a bank of 300", "Erin busts with 24"],
}, {**BOB, "cards": ["Kd", "7s"], "facts": [{"label": "Your points", "text": "17"}]}, [
    spec("draw", "Card"),
    spec("stand", "Enough"),
    LEAVE,
])

RESULT = snapshot(58, 140, {
    "game": "chemin_de_fer", "game_name": "Chemin de fer", "coup": 4, "phase": "settled",
    "bank": 400,
    "seats": [
        seat(11, "Alice", 900, up=["9h", "Kc"], role="Banker", status="Natural 9"),
        seat(14, "Dan", 300),
        seat(12, "Bob", 400, up=["4s", "3d"], me=True, status="7"),
        seat(13, "Carol", 1150),
    ],
    "log": ["<b>Coup #4</b>: Alice holds a bank of 200", "Carol stakes 50", "Bob stakes 50",
            "Alice shows a natural <b>9</b>", "Coup settled: <i>banker wins</i>"],
    "result": {"coup": 4, "headline": "<b>Banker wins</b>: 9 against 7",
               "hands": ["Bob: 4♠ 3♦, points: 7; banker: 9♥ K♣, points: 9"],
               "nets": [{"name": "Alice", "net": 100}, {"name": "Bob", "net": -50},
                        {"name": "Carol", "net": -50}, {"name": "Dan", "net": 0}],
               "earned": ["🏅 Alice: <b>Banco natural</b> — a natural nine that wins a banco"]},
}, {**BOB, "cards": [], "facts": []}, [LEAVE])

SPECTATOR = snapshot(33, 71, {
    "game": "jackpots", "game_name": "Jackpots", "coup": 3, "phase": "betting", "pot": 80,
    "seats": [seat(20 + i, name, stack, stake=10, down=5, turn=i == 2,
                   role="Dealer" if i == 0 else "")
              for i, (name, stack) in enumerate([
                  ("Alice", 480), ("Boris", 1020), ("Carol", 75), ("Dmitri Karamazov", 640),
                  ("Erin", 300), ("Fyodor", 990), ("Grusha", 150), ("Ivan", 2400)])],
    "awaiting": [22], "deadline": SERVER_TIME + 40,
}, {"id": 99, "name": "Eve", "seated": False, "cards": [], "facts": []},
    [spec("join", "Join", "utility")])

DRAW = snapshot(34, 80, {
    "game": "jackpots", "game_name": "Jackpots", "coup": 3, "phase": "draw", "pot": 120,
    "seats": [seat(11, "Alice", 480, down=5, role="Dealer"),
              seat(12, "Bob", 700, down=5, turn=True, me=True),
              seat(13, "Carol", 75, down=5)],
    "awaiting": [12], "deadline": SERVER_TIME + 20,
}, {**BOB, "cards": ["2c", "7d", "Ks", "Kh", "9s"],
    "facts": [{"label": "Your hand", "text": "Pair of kings"}]}, [
    spec("discard", "Discard", "own_cards", lo=0, hi=3,
         choices=["2c", "7d", "Ks", "Kh", "9s"], pick=3),
    LEAVE,
])

BANCHOK = snapshot(19, 44, {
    "game": "banchok", "game_name": "Banchok", "coup": 2, "phase": "staking", "bank": 100,
    "seats": [seat(11, "Alice", 500, role="Banker"),
              seat(12, "Bob", 260, turn=True, me=True),
              seat(13, "Carol", 310, stake=20, down=1, status="Joining allowed")],
    "awaiting": [12], "deadline": SERVER_TIME + 45,
}, {**BOB, "cards": [], "facts": []}, [
    spec("stake", "Stake", "choice", lo=1, hi=80, presets=[10, 40, 80],
         choices=["Allow joining", "No joining"]),
    LEAVE,
])


def later(snap: dict[str, Any], version: int, rev: int, **table: Any) -> dict[str, Any]:
    """The snapshot at another (version, rev), its table changed as given."""
    out = copy.deepcopy(snap)
    out["version"], out["rev"], out["decision"] = version, rev, version
    out["table"].update(table)
    return out


# --- the fake server -------------------------------------------------------------------------


class FakeTable:
    """The server's side of one table: what the socket sends, what the page sent."""

    def __init__(self) -> None:
        self.snapshot: dict[str, Any] = CHEMIN
        self.error: dict[str, Any] | None = None
        self.frames: list[dict[str, Any]] = []
        self.sockets: list[web.WebSocketResponse] = []
        self.posts: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.gate = asyncio.Event()
        self.gate.set()

    def hellos(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "hello"]

    def resyncs(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "resync"]

    async def ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                self.frames.append(frame)
                if frame.get("type") == "hello" and self.error is not None:
                    await ws.send_json(self.error)
                    await ws.close()
                    break
                await self.gate.wait()
                await ws.send_json(self.snapshot)
        finally:
            self.sockets.remove(ws)
        return ws

    async def act(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.posts.append({"auth": request.headers.get("Authorization"), "body": body})
        answer = self.answers.pop(0) if self.answers else {"ok": True, "text": ""}
        return web.json_response(answer)

    async def push(self, snap: dict[str, Any], *, current: bool = True) -> None:
        """Send a snapshot to every open socket (and make it what hello gets, if current)."""
        if current:
            self.snapshot = snap
        for ws in list(self.sockets):
            await ws.send_json(snap)

    async def drop(self) -> None:
        """Close every socket from the server's side."""
        for ws in list(self.sockets):
            await ws.close()


async def index(request: web.Request) -> web.Response:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    html = html.replace("{{SDK_URL}}", "/test/telegram-web-app.js")
    return web.Response(text=html, content_type="text/html")


async def stub(request: web.Request) -> web.Response:
    return web.Response(text=STUB_JS, content_type="application/javascript")


@pytest.fixture
async def fake() -> AsyncIterator[tuple[FakeTable, str]]:
    table = FakeTable()
    app = web.Application()
    app.router.add_get("/app/", index)
    app.router.add_static("/app/static/", STATIC)
    app.router.add_get("/app/ws", table.ws)
    app.router.add_post("/app/api/act", table.act)
    app.router.add_get("/test/telegram-web-app.js", stub)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield table, f"http://127.0.0.1:{port}"
    finally:
        for ws in list(table.sockets):
            await ws.close()
        await runner.cleanup()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright  # a dev dependency: missing is an error

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        await chromium.close()


@pytest.fixture
def server(fake: tuple[FakeTable, str]) -> FakeTable:
    return fake[0]


@pytest.fixture
def open_page(browser: Any, fake: tuple[FakeTable, str]) -> Callable[..., Any]:
    async def opener(*, theme: str = "light", lang: str = "en", table: str | None = TABLE_PARAM,
                     viewport: dict[str, int] = PHONE, wait: bool = True,
                     before: Callable[[Any], Any] | None = None, touch: bool = False) -> Any:
        context = await browser.new_context(viewport=viewport, device_scale_factor=2,
                                            color_scheme=theme, has_touch=touch)
        context.set_default_timeout(5000)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors
        if before is not None:
            await before(page)
        query = f"?theme={theme}&lang={lang}" + (f"&table={quote(table)}" if table else "")
        await page.goto(f"{fake[1]}/app/{query}")
        if wait:
            await page.wait_for_selector("#main:not([hidden]) .seat")
        return page

    return opener


async def until(cond: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Wait for a condition of the fake server (polled, never a fixed sleep)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def texts(page: Any, selector: str) -> list[str]:
    found: list[str] = await page.locator(selector).all_inner_texts()
    return [t.strip() for t in found]


async def seat_texts(page: Any) -> dict[str, dict[str, str]]:
    """Each seat as a player reads it: name -> its stack, stake, badge, status, cards."""
    seats: dict[str, dict[str, str]] = await page.evaluate("""() => {
      const out = {};
      const txt = (s, sel) => {
        const e = s.querySelector(sel);
        return e ? e.innerText.trim() : '';
      };
      for (const s of document.querySelectorAll('.seat')) {
        out[txt(s, '.name')] = {
          stack: txt(s, '.stack'), stake: txt(s, '.stake'), badge: txt(s, '.badge'),
          status: txt(s, '.status'),
          cards: [...s.querySelectorAll('.card')]
            .map((c) => c.getAttribute('aria-label')).join(', '),
          cls: [...s.classList].filter((c) => ['me', 'awaiting', 'turn'].includes(c)).join(' '),
        };
      }
      return out;
    }""")
    return seats


async def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"))


async def assert_fits(page: Any) -> None:
    """Nothing wider than the screen; every seat's plate, cards, stake and status wholly on
    it, none over another seat's or over the words in the felt's centre."""
    report = await page.evaluate("""() => {
      const w = document.documentElement.clientWidth;
      const parts = (root, sel) => [...root.querySelectorAll(sel)]
        .map((e) => e.getBoundingClientRect()).filter((r) => r.width && r.height);
      const seats = [...document.querySelectorAll('.seat')].map(
        (s) => parts(s, '.plate, .status, .seat-cards .card, .stake'));
      const centre = [...document.querySelectorAll('.center > *')].flatMap((e) => {
        const range = document.createRange();  // the lines of text, not their boxes
        range.selectNodeContents(e);
        return [...range.getClientRects()].filter((r) => r.width && r.height);
      });
      const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
        && a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const out = [];
      if (document.documentElement.scrollWidth > w) out.push('page wider than the screen');
      seats.forEach((rs, i) => {
        if (rs.some((r) => r.left < 0 || r.right > w)) out.push(`seat ${i} cut off`);
        seats.forEach((qs, j) => {
          if (j > i && rs.some((r) => qs.some((q) => hit(r, q)))) {
            out.push(`seats ${i}, ${j} overlap`);
          }
        });
        if (rs.some((r) => centre.some((c) => hit(r, c)))) out.push(`seat ${i} over the centre`);
      });
      return out;
    }""")
    assert report == []


KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


# --- tests --------------------------------------------------------------------------------------


async def test_chemin_de_fer_stake_from_a_preset(open_page: Any, server: FakeTable) -> None:
    """The seats, the centre and the stake panel as Bob sees them; a preset then the
    confirm button posts exactly that stake, with the initData verbatim."""
    from playwright.async_api import expect

    page = await open_page()
    assert server.hellos() == [
        {"type": "hello", "init_data": INIT_DATA["en"], "table": TABLE_PARAM}]
    calls = await page.evaluate("window.__tg.log.calls")
    assert calls[:2] == ["ready", "expand"]

    assert await seat_texts(page) == {
        "Alice": {"stack": "800", "stake": "", "badge": "Banker", "status": "", "cards": "",
                  "cls": ""},
        "Dan": {"stack": "300", "stake": "", "badge": "", "status": "", "cards": "", "cls": ""},
        "Bob": {"stack": "450", "stake": "", "badge": "", "status": "", "cards": "",
                "cls": "me awaiting turn"},
        "Carol": {"stack": "1200", "stake": "50", "badge": "", "status": "Staked", "cards": "",
                  "cls": ""},
    }
    # the viewer at the bottom, the banker across the table
    boxes = {n: await page.locator(".seat", has_text=n).bounding_box()
             for n in ("Alice", "Bob", "Carol", "Dan")}
    assert boxes["Bob"]["y"] > boxes["Carol"]["y"] > boxes["Alice"]["y"]
    assert boxes["Carol"]["x"] < boxes["Bob"]["x"] < boxes["Dan"]["x"]

    await expect(page.locator("#title")).to_have_text("Friday game")
    await expect(page.locator("#game")).to_have_text("Chemin de fer")
    await expect(page.locator("#coup")).to_have_text("Coup #4 · staking")
    assert await texts(page, "#money .m") == ["BANK\n200"]
    assert await texts(page, "#facts li") == ["Staked: 50", "Stakes still allowed: 150"]
    await expect(page.locator("#turnline .who")).to_have_text("Your turn")
    await expect(page.locator("#conn")).to_have_text("Online")
    assert await texts(page, "#mine-facts li") == ["You may stake: up to 150"]
    assert await page.locator("#hand .card").count() == 0

    panel = page.locator(".panel.amount[data-kind=stake]")
    assert await texts(page, ".panel.amount .preset") == ["10", "50", "150"]
    await expect(panel.locator(".range")).to_have_text("1–150")
    await expect(panel.locator(".slider")).to_have_attribute("max", "150")
    assert await texts(page, ".quick .btn.plain") == ["Banco! 200", "Pass"]
    assert await texts(page, ".utility .link") == ["Leave"]

    await panel.locator(".preset[data-amount=\"50\"]").click()
    await expect(panel.locator(".preset.on")).to_have_text("50")
    await expect(panel.locator(".field")).to_have_value("50")
    await expect(page.locator(".quick .confirm")).to_have_text("Stake 50")
    server.answers.append({"ok": True, "text": "Stake accepted"})
    await page.locator(".quick .confirm").click()
    await until(lambda: len(server.posts) == 1, "the stake's POST")
    post = server.posts[0]
    assert post["auth"] == "tma " + INIT_DATA["en"]
    body = post["body"]
    assert KEY.match(body.pop("key"))
    assert body == {"table": TABLE_PARAM, "kind": "stake", "coup": 4, "decision": 57,
                    "amount": 50, "choice": None, "cards": None}
    await expect(page.locator(".toast")).to_have_text("Stake accepted")
    assert "impact:light" in await page.evaluate("window.__tg.log.haptics")

    # the number field is bounded: 999 is the most allowed, a fresh key for a fresh tap
    await panel.locator(".field").fill("999")
    await panel.locator(".field").blur()
    await expect(page.locator(".quick .confirm")).to_have_text("Stake 150")
    await page.locator(".quick .confirm").click()
    await until(lambda: len(server.posts) == 2, "the second POST")
    second = server.posts[1]["body"]
    assert second["amount"] == 150
    assert second["key"] != post["body"].get("key", body.get("key"))
    assert page.errors == []


@pytest.mark.parametrize("touch", [False, True], ids=["click", "tap"])
async def test_a_typed_amount_is_taken_by_one_tap_or_by_enter(
        open_page: Any, server: FakeTable, touch: bool) -> None:
    """Bob types 75 in the amount field and taps *Stake* once, at once (the field still has
    the focus: leaving it is part of that tap): that one tap posts 75. Then, his next
    amount typed, Enter in the field posts it."""
    from playwright.async_api import expect

    page = await open_page(touch=touch)
    panel = page.locator(".panel.amount[data-kind=stake]")
    confirm = page.locator(".quick .confirm")
    field = panel.locator(".field")
    await field.click()
    await field.press("Control+a")
    await page.keyboard.type("75")
    await expect(confirm).to_have_text("Stake 75")
    await shot(page, f"typed-amount-{'tap' if touch else 'click'}")
    server.answers.append({"ok": True, "text": "Stake accepted"})
    if touch:
        await confirm.tap()
    else:
        await confirm.click()
    await until(lambda: len(server.posts) == 1, "the stake's POST from one tap")
    assert server.posts[0]["body"]["amount"] == 75
    await expect(page.locator(".toast")).to_have_text("Stake accepted")
    await shot(page, f"typed-amount-{'tap' if touch else 'click'}-taken")

    # Enter in the field takes what it holds
    server.answers.append({"ok": True, "text": "Stake accepted again"})
    await field.click()
    await field.press("Control+a")
    await page.keyboard.type("120")
    await field.press("Enter")
    await until(lambda: len(server.posts) == 2, "the stake's POST from Enter")
    assert server.posts[1]["body"]["amount"] == 120
    await expect(page.locator(".toast").last).to_have_text("Stake accepted again")
    assert len(server.posts) == 2
    assert page.errors == []


async def test_countdown_follows_the_server_clock(open_page: Any, server: FakeTable) -> None:
    """The device's clock is years off: the countdown still starts at deadline − server_time
    and runs with the page's own clock; no clock, no ring."""
    from playwright.async_api import expect

    async def freeze(page: Any) -> None:
        await page.clock.install(time=978307200000)  # 2001-01-01
        # paused a minute on: the installed clock runs until then, and a busy machine may
        # take more than no time between the two calls (pausing "in the past" is refused)
        await page.clock.pause_at(978307260000)

    page = await open_page(before=freeze)
    await expect(page.locator("#turnline .secs")).to_have_text("30s")
    await expect(page.locator(".yourturn .secs")).to_have_text("30s")
    await expect(page.locator(".seat.turn .ring")).to_be_visible()
    await page.clock.run_for(12_000)
    await expect(page.locator("#turnline .secs")).to_have_text("18s")
    offset = await page.locator(".seat.turn .ring-fg").evaluate("e => e.style.strokeDashoffset")
    assert offset == "40"  # 18 of 30 seconds left: 60 % of the ring

    await server.push(TWENTY_ONE)  # deadline null
    await expect(page.locator("#game")).to_have_text("Twenty-one")
    assert await page.locator("#turnline .secs").count() == 0
    await expect(page.locator(".seat.turn .ring")).to_be_hidden()


async def test_twenty_one_plain_actions(open_page: Any, server: FakeTable) -> None:
    """Big own cards with their names, backs for the others, plain actions that post no
    amount; a refusal shows its text and buzzes, its newer snapshot replaces the table."""
    from playwright.async_api import expect

    server.snapshot = TWENTY_ONE
    page = await open_page()
    names = await page.locator("#hand .card").evaluate_all(
        "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert names == ["King of diamonds", "Seven of spades"]
    assert await texts(page, "#hand .card .idx") == ["K", "7"]
    assert await page.locator("#hand .card.red").count() == 1
    seats = await seat_texts(page)
    assert seats["Erin"]["cards"] == "King of clubs, Nine of hearts, Five of diamonds"
    assert seats["Erin"]["status"] == "Bust"
    assert seats["Carol"]["cards"] == ", ".join(["Face-down card"] * 3)
    assert seats["Bob"]["stake"] == "40"
    assert await texts(page, "#mine-facts li") == ["Your points: 17"]
    assert await texts(page, ".quick .btn.plain") == ["Card", "Enough"]

    refused = later(TWENTY_ONE, 81, 191, awaiting=[14], phase="drawing")
    server.answers.append({"ok": False, "text": "Not your turn: <b>Dan</b> plays now",
                           "snapshot": refused})
    await page.locator(".quick .btn", has_text="Enough").click()
    await until(lambda: len(server.posts) == 1, "the POST")
    body = server.posts[0]["body"]
    assert KEY.match(body.pop("key"))
    assert body == {"table": TABLE_PARAM, "kind": "stand", "coup": 7, "decision": 80,
                    "amount": None, "choice": None, "cards": None}
    await expect(page.locator(".toast.err")).to_have_text("Not your turn: Dan plays now")
    await shot(page, "twenty-one-refused-390-light")
    assert await page.locator(".toast.err b").count() == 1
    await expect(page.locator("#turnline .who")).to_have_text("Waiting for Dan")
    assert await page.locator(".quick .btn.plain").count() == 2  # Dan's turn: the answer said so
    haptics = await page.evaluate("window.__tg.log.haptics")
    assert haptics[-2:] == ["impact:light", "notification:error"]


async def test_stud_call_raise_fold(open_page: Any, server: FakeTable) -> None:
    """Up cards on the seats, the hole card big; Call says its cost; the raise is bounded
    and its presets are offered; Fold posts the fold."""
    from playwright.async_api import expect

    server.snapshot = STUD
    page = await open_page()
    seats = await seat_texts(page)
    assert seats["Dan"] == {"stack": "1280", "stake": "20", "badge": "Dealer", "status": "",
                            "cards": "Ace of diamonds, Seven of clubs, Face-down card", "cls": ""}
    assert seats["Carol"]["status"] == "Folded" and seats["Carol"]["cards"] == ""
    assert seats["Erin"]["cards"] == "Jack of spades, Ten of clubs, Face-down card"
    assert await texts(page, "#money .m") == ["POT\n140"]
    await expect(page.locator("#coup")).to_have_text("Coup #12 · fourth street")
    assert await page.locator("#hand .card").get_attribute("aria-label") == "Ace of hearts"
    # the chat's words and order: "Call 20 / Fold / Raise to 40"
    assert await texts(page, ".quick .btn") == ["Call 20", "Fold", "Raise to 40"]
    assert await texts(page, ".panel.amount .preset") == ["40", "120", "200"]
    await page.locator(".panel.amount .slider").fill("200")
    await expect(page.locator(".panel.amount .field")).to_have_value("200")
    await expect(page.locator(".panel.amount .preset.on")).to_have_text("200")
    await page.locator(".quick .btn", has_text="Fold").click()
    await until(lambda: len(server.posts) == 1, "the fold")
    assert server.posts[0]["body"]["kind"] == "fold"
    assert server.posts[0]["body"]["amount"] is None
    await assert_fits(page)
    assert page.errors == []


async def test_draw_picks_own_cards_as_a_mask(open_page: Any, server: FakeTable) -> None:
    """Tapping his cards selects up to `pick` of them; the confirm sends their bit mask."""
    from playwright.async_api import expect

    server.snapshot = DRAW
    page = await open_page()
    hand = page.locator("#hand button.card")
    assert await hand.count() == 5
    await expect(page.locator(".pick-hint")).to_have_text("Tap your cards to choose up to 3")
    for i in (0, 4, 2, 3):  # the fourth is one too many
        await hand.nth(i).click()
    assert await hand.evaluate_all("cs => cs.map(c => c.getAttribute('aria-pressed'))") == [
        "true", "false", "true", "false", "true"]
    await hand.nth(2).click()  # changed his mind about the king
    await expect(page.locator(".pick-confirm")).to_have_text("Discard2")
    await page.locator(".pick-confirm").click()
    await until(lambda: len(server.posts) == 1, "the discard")
    body = server.posts[0]["body"]
    assert (body["kind"], body["cards"], body["amount"]) == ("discard", 1 + 16, None)


async def test_banchok_stake_taken_one_of_two_ways(open_page: Any, server: FakeTable) -> None:
    """A choice with bounds is an amount taken one of several ways: both go in the POST."""
    from playwright.async_api import expect

    server.snapshot = BANCHOK
    page = await open_page()
    panel = page.locator(".panel.amount[data-kind=stake]")
    assert await texts(page, ".panel.amount .seg") == ["Allow joining", "No joining"]
    await expect(panel.locator(".seg.on")).to_have_text("Allow joining")
    await panel.locator(".seg", has_text="No joining").click()
    await panel.locator(".preset[data-amount='40']").click()
    await expect(page.locator(".quick .confirm")).to_have_text("Stake 40")
    await page.locator(".quick .confirm").click()
    await until(lambda: len(server.posts) == 1, "the stake")
    body = server.posts[0]["body"]
    assert (body["kind"], body["amount"], body["choice"], body["decision"]) == ("stake", 40, 1, 19)


async def test_a_failed_post_is_retried_with_its_key(open_page: Any, server: FakeTable) -> None:
    """The network drops the first try: the second carries the same key, and the buttons
    stay disabled until the answer."""
    from playwright.async_api import expect

    server.snapshot = TWENTY_ONE
    page = await open_page()
    tries: list[dict[str, Any]] = []

    async def flaky(route: Any) -> None:
        tries.append(json.loads(route.request.post_data))
        if len(tries) == 1:
            await route.abort("connectionreset")
        else:
            await route.continue_()

    await page.route("**/app/api/act", flaky)
    server.gate.clear()  # hold the answer's snapshot back: no redraw while we look
    await page.locator(".quick .btn", has_text="Card").click()
    await until(lambda: len(server.posts) == 1, "the retried POST")
    assert len(tries) == 2
    assert tries[0]["key"] == tries[1]["key"] == server.posts[0]["body"]["key"]
    assert tries[0] == tries[1]
    await expect(page.locator(".quick .btn").first).to_be_enabled()
    server.gate.set()


async def test_older_snapshots_are_ignored(open_page: Any, server: FakeTable) -> None:
    from playwright.async_api import expect

    page = await open_page()
    await expect(page.locator("body")).to_have_attribute("data-version", "57.130")
    await server.push(later(CHEMIN, 57, 129, phase="OLD"), current=False)
    await server.push(later(CHEMIN, 56, 999, phase="OLDER"), current=False)
    await server.push(later(CHEMIN, 57, 131, phase="banco?"))
    await expect(page.locator("#coup")).to_have_text("Coup #4 · banco?")
    await server.push(later(CHEMIN, 57, 130, phase="OLD"), current=False)
    await server.push(later(CHEMIN, 58, 1, phase="drawing"))
    await expect(page.locator("#coup")).to_have_text("Coup #4 · drawing")
    await expect(page.locator("body")).to_have_attribute("data-version", "58.1")


async def test_reconnects_and_resyncs(open_page: Any, server: FakeTable) -> None:
    """The server closes the socket: the page says so, comes back with a hello and shows the
    newest table; on `activated` and on becoming visible it asks for a resync."""
    from playwright.async_api import expect

    page = await open_page()
    server.gate.clear()  # the next hello waits: "Reconnecting…" stays to be seen
    server.snapshot = later(CHEMIN, 60, 1, phase="drawing")
    await server.drop()
    await expect(page.locator("#conn")).to_have_text("Reconnecting…")
    await expect(page.locator("#conn")).to_have_attribute("data-state", "reconnecting")
    await until(lambda: len(server.hellos()) == 2, "a second hello")
    server.gate.set()
    await expect(page.locator("#coup")).to_have_text("Coup #4 · drawing")
    await expect(page.locator("#conn")).to_have_text("Online")
    assert server.hellos()[1] == server.hellos()[0]

    await page.evaluate("window.__tg.fire('activated')")
    await until(lambda: len(server.resyncs()) == 1, "a resync on activated")
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    await until(lambda: len(server.resyncs()) == 2, "a resync on visibilitychange")
    assert server.resyncs()[0] == {"type": "resync"}


async def test_error_frame_stops_the_page(open_page: Any, server: FakeTable) -> None:
    """A refusal (not a member) fills the screen and the page does not knock again."""
    from playwright.async_api import expect

    server.error = {"type": "error", "code": "not_member",
                    "text": "This table is for members of <b>Friday game</b> only."}
    page = await open_page(wait=False)
    await expect(page.locator("#fatal")).to_be_visible()
    await expect(page.locator("#fatal-text")).to_have_text(
        "This table is for members of Friday game only.")
    await shot(page, "error-390-light")
    await until(lambda: not server.sockets, "the socket closed")
    state = await page.evaluate("window.banco.state")
    assert (state["stopped"], state["retrying"], state["open"]) == (True, False, False)
    await page.evaluate("window.__tg.fire('activated')")
    state = await page.evaluate("window.banco.state")
    assert (state["retrying"], state["open"]) == (False, False)
    assert len(server.hellos()) == 1


async def test_result_banner_and_log(open_page: Any, server: FakeTable) -> None:
    """The settled coup: headline and every net, signed and coloured; the log drawer."""
    from playwright.async_api import expect

    server.snapshot = RESULT
    page = await open_page()
    await expect(page.locator("#result-headline")).to_have_text("Banker wins: 9 against 7")
    assert await page.locator("#result-headline b").count() == 1
    assert await texts(page, "#nets .net") == ["Alice\n+100", "Bob\n−50", "Carol\n−50", "Dan\n0"]
    colours = await page.locator("#nets .net-value").evaluate_all(
        "vs => vs.map(v => getComputedStyle(v).color)")
    assert colours == ["rgb(31, 138, 60)", "rgb(229, 57, 53)", "rgb(229, 57, 53)",
                       "rgb(112, 117, 121)"]
    assert (await seat_texts(page))["Alice"]["cards"] == "Nine of hearts, King of clubs"
    assert await page.locator("#turnline .who").count() == 0

    await page.locator("#log-open").click()
    sheet = page.locator("#sheet")
    await expect(sheet).to_be_visible()
    await expect(sheet.locator("h2")).to_have_text("Log")
    assert await texts(page, "#log li") == [
        "Coup #4: Alice holds a bank of 200", "Carol stakes 50", "Bob stakes 50",
        "Alice shows a natural 9", "Coup settled: banker wins"]
    assert await page.locator("#log li b").count() == 2
    assert await page.locator("#log li i").count() == 1
    await shot(page, "log-390-light")
    assert await page.evaluate("Telegram.WebApp.BackButton.isVisible") is True
    await page.locator("#log-close").click()
    await expect(sheet).to_be_hidden()
    assert await page.evaluate("Telegram.WebApp.BackButton.isVisible") is False


async def test_spectator_sees_no_hand(open_page: Any, server: FakeTable) -> None:
    from playwright.async_api import expect

    server.snapshot = SPECTATOR
    page = await open_page(theme="dark")
    assert await page.locator(".seat").count() == 8
    assert await page.locator(".seat.me").count() == 0
    assert await page.locator("#hand .card").count() == 0
    await expect(page.locator("#mine-label")).to_have_text("You are watching this table")
    assert await texts(page, ".utility .link") == ["Join"]
    assert await page.locator(".quick, .panel, .yourturn").count() == 0
    await expect(page.locator("#turnline .who")).to_have_text("Waiting for Carol")
    await shot(page, "spectator-390-dark")
    await assert_fits(page)


async def test_russian_words_before_and_after_the_first_snapshot(
        open_page: Any, server: FakeTable) -> None:
    """Before a snapshot the user's language picks the built-in words; then the snapshot's
    ui gives them, and a key it lacks falls back to the built-in Russian."""
    from playwright.async_api import expect

    server.gate.clear()
    server.snapshot = {**CHEMIN, "lang": "ru", "ui": {"log": "Ход игры", "connected": "Онлайн"}}
    page = await open_page(lang="ru", wait=False)
    await until(lambda: len(server.hellos()) == 1, "the hello")
    assert server.hellos()[0]["init_data"] == INIT_DATA["ru"]
    await expect(page.locator("#splash-text")).to_have_text("Подключение…")
    server.gate.set()
    await expect(page.locator("#log-open")).to_have_text("Ход игры")
    await expect(page.locator("#conn")).to_have_text("Онлайн")
    await expect(page.locator("#coup")).to_have_text("Кон №4 · staking")
    await expect(page.locator("#turnline .who")).to_have_text("Ваш ход")
    await expect(page.locator("html")).to_have_attribute("lang", "ru")


async def test_turn_coming_buzzes(open_page: Any, server: FakeTable) -> None:
    from playwright.async_api import expect

    server.snapshot = later(CHEMIN, 56, 1, awaiting=[13])
    page = await open_page()
    await expect(page.locator("#turnline .who")).to_have_text("Waiting for Carol")
    assert "notification:success" not in await page.evaluate("window.__tg.log.haptics")
    await server.push(CHEMIN)
    await expect(page.locator("#turnline .who")).to_have_text("Your turn")
    assert "notification:success" in await page.evaluate("window.__tg.log.haptics")


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_screenshots(open_page: Any, server: FakeTable, theme: str) -> None:
    """The chemin de fer, stud and result tables at 390 × 844 (and stud at 700 px), each
    fitting the screen; the pictures are for a person to look at."""
    from playwright.async_api import expect

    page = await open_page(theme=theme)
    await shot(page, f"chemin-390-{theme}")
    await assert_fits(page)
    await server.push(RESULT)
    await expect(page.locator("#result")).to_be_visible()
    await shot(page, f"result-390-{theme}")
    await assert_fits(page)
    await server.push(STUD)
    await expect(page.locator("#game")).to_have_text("Five-card stud")
    await shot(page, f"stud-390-{theme}")
    await assert_fits(page)
    if theme == "light":
        await page.set_viewport_size(TABLET)
        await shot(page, "stud-700-light")
        await assert_fits(page)
        await page.set_viewport_size(PHONE)
        await server.push(later(DRAW, 300, 1))
        await expect(page.locator("#game")).to_have_text("Jackpots")
        await shot(page, "draw-390-light")
    # the theme's colours reach the page
    bg = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == {"light": "rgb(255, 255, 255)", "dark": "rgb(23, 33, 43)"}[theme]
    assert page.errors == []


NEXT_COUP = snapshot(60, 150, {
    "game": "chemin_de_fer", "game_name": "Chemin de fer", "coup": 5, "phase": "staking",
    "bank": 400,
    "seats": [seat(11, "Alice", 900, role="Banker"), seat(14, "Dan", 300),
              seat(12, "Bob", 400, me=True), seat(13, "Carol", 1150, turn=True, status="to act")],
    "awaiting": [13], "deadline": SERVER_TIME + 85,
    "log": ["Coup 5: bank 400, stakes please"],
    "result": RESULT["table"]["result"],
}, {**BOB, "cards": [], "facts": []}, [LEAVE])


async def test_a_settled_coup_shows_its_hands_under_its_number(
        open_page: Any, server: FakeTable) -> None:
    """The result names its coup and shows the hands as the group's result words them."""
    from playwright.async_api import expect

    server.snapshot = RESULT
    page = await open_page()
    await expect(page.locator("#result-title")).to_have_text("Result · Coup #4")
    assert await page.locator("#result-box").evaluate("d => d.open") is True
    await expect(page.locator("#hands li")).to_have_text(
        ["Bob: 4♠ 3♦, points: 7; banker: 9♥ K♣, points: 9"])
    await expect(page.locator("#hands")).to_be_visible()
    # the achievements its players reached, a line each, as the group's table draws them
    await expect(page.locator("#earned li")).to_have_text(
        ["🏅 Alice: Banco natural — a natural nine that wins a banco"])
    assert await page.locator("#earned li b").count() == 1
    await shot(page, "result-hands-390-light")


async def test_the_next_coups_clock_shows_with_the_last_result(
        open_page: Any, server: FakeTable) -> None:
    """Once the next coup waits for someone, the last result folds to its headline under
    the live table and never hides whose turn it is and his time; the viewer may open it
    again, and it stays open for him."""
    from playwright.async_api import expect

    server.snapshot = RESULT
    page = await open_page()
    await server.push(NEXT_COUP)
    await expect(page.locator("#turnline .who")).to_have_text("Waiting for Carol")
    await expect(page.locator("#turnline .secs")).to_have_text(re.compile(r"^8\ds$"))
    await expect(page.locator("#result-headline")).to_have_text("Banker wins: 9 against 7")
    await expect(page.locator("#result-title")).to_have_text("Result · Coup #4")
    assert await page.locator("#result-box").evaluate("d => d.open") is False
    await expect(page.locator("#hands")).to_be_hidden()
    table = await page.locator("#table-area").bounding_box()
    result = await page.locator("#result").bounding_box()
    actions = await page.locator("#actions").bounding_box()
    assert result["y"] >= actions["y"] + actions["height"] > table["y"] + table["height"]
    await shot(page, "result-folded-390-light")

    await page.locator("#result summary").click()
    await expect(page.locator("#hands li")).to_have_text(
        ["Bob: 4♠ 3♦, points: 7; banker: 9♥ K♣, points: 9"])
    await server.push(later(NEXT_COUP, 61, 151))
    await expect(page.locator("body")).to_have_attribute("data-version", "61.151")
    await expect(page.locator("#hands")).to_be_visible()
    await expect(page.locator("#turnline .who")).to_have_text("Waiting for Carol")


async def test_the_coups_last_lines_show_as_in_the_chat(
        open_page: Any, server: FakeTable) -> None:
    """The last three lines of the coup's log show under the table, as on the group's
    table message: a Leave that keeps the seat till the coup's end says so there."""
    from playwright.async_api import expect

    server.snapshot = later(CHEMIN, 58, 1, log=[
        *CHEMIN["table"]["log"], "<b>Bob</b> will leave after this coup"])
    page = await open_page()
    await expect(page.locator("#recent li")).to_have_text(
        ["Carol stakes 50", "Bob, your stake: up to 150", "Bob will leave after this coup"])


FOUR = snapshot(40, 90, {
    "game": "draw_poker", "game_name": "Jackpots", "coup": 3, "phase": "betting", "pot": 60,
    "seats": [seat(12, "Konstantinos", 940, stake=10, down=5, me=True, role="dealer, opener"),
              seat(21, "Anastasia K.", 480, stake=10, down=5, status="in hand"),
              seat(22, "Wilhelmina S", 1020, stake=20, down=5, turn=True, status="to act",
                   role="dealer, opener"),
              seat(23, "Dmitri Ivanov", 75, down=5, status="plays the hand")],
    "awaiting": [22], "deadline": SERVER_TIME + 40,
}, {**BOB, "cards": ["2c", "7d", "Ks", "Kh", "9s"], "facts": []}, [LEAVE])


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_four_seats_show_whole_names_and_roles_at_390(
        open_page: Any, server: FakeTable, lang: str) -> None:
    """At 390 px, four seats: every name (a dozen letters) and role reads whole."""
    server.snapshot = FOUR if lang == "en" else later(FOUR, 40, 90, seats=[
        {**s, "role": "сдающий, открыл" if s["role"] else ""} for s in FOUR["table"]["seats"]])
    page = await open_page(lang=lang)
    clipped = await page.evaluate("""() => [...document.querySelectorAll(
        '.seat .name, .seat .badge, .seat .status')]
      .filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent)""")
    await shot(page, f"four-seats-390-{lang}")
    assert clipped == []
    await assert_fits(page)

"""Screens agree (issue 32): one table, four players each on a different screen, and a
watcher, all shown the same version of the table the same way.

For each of the six games, through the real bot (``python -m bot``) against the sandbox,
with a seeded shoe (``tests/e2e/seeded/sitecustomize.py``: each run deals the same cards):

* Ann plays from the group only: she never opened a private chat with the bot; she presses
  the group table's buttons (and, where a decision needs her hidden cards, *My cards*);
* Bob plays from his private chat (turn prompts, ``TURN_DMS=1``);
* Cid plays from the group's ephemeral views only (*My cards*, "only you can see this");
* Dee plays in the Mini App page (headless Chromium, signed initData from the sandbox);
* Eve, a member who does not play, watches on the Mini App page.

One coup is played (until it settles), each player acting on his own screen. At every
version the table goes through, each screen is read as its viewer reads it (the group's
table message, Bob's prompt and its keyboard, Cid's view, the pages' DOM) and held against
the truth of that version: the engine's view for that viewer
(``Sight(engine, state).view(viewer)``, from the bot's database), his legal actions with
their amounts, and the host's deadline. Checked: his cards, every seat's up cards, the bank
or pot, the amount to call (a press that costs one known sum), whose turn it is, the
seconds left (within 2 s of the deadline), and, once the coup settles, its result on every
screen: its coup number, who won what with which hand, and the hands' cards.

The group's table message is held against the version it shows (the bot's test hook tells
which), not the newest: its edits are paced by the group's budget and coalesced, and in app
mode it is the coup's card (its line: moves are made in the app or the private chat), which
shows no turn and no clock and is redrawn only when a player without a private chat must see
his turn; a turn it does show must be true at its version. The pages' result, folded under
the next coup, is tapped open and read. Bob's private chat and Cid's view show the result
where his prompt or view was still open when the coup settled (its closing text carries it);
else the group's result, which they see in the group, stands for it.

A screen that does not show a version in time, or shows it otherwise, is a disagreement;
all of them are gathered and the test fails listing each (first occurrence per screen and
fact) with its version, the screen, what it showed and what the truth says.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
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
    decode_action,
    synced_now,
    until,
)
from test_e2e_webapp import CHROMIUM, PHONE, AppPage, is_amount, tap
from test_e2e_webhook import free_port

from bot.view import i18n, render, results
from bot.view.results import last_result
from bot.view.sight import Sight
from games import registry
from games.engine import IllegalAction, Settlement

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed")

GAMES = ("chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker")
CHAT = -9800
ANN, BOB, CID, DEE, EVE = (Player(98001, "Ann"), Player(98002, "Bob"), Player(98003, "Cid"),
                           Player(98004, "Dee"), Player(98005, "Eve"))
PLAYERS = (ANN, BOB, CID, DEE)
SEEDED = Path(__file__).resolve().with_name("seeded")
DECISION = 600.0  # seconds to decide: no deadline falls during the test
SHOW = 8.0  # how long a screen may take to show a version before it counts as behind
SLACK = 2.0  # seconds two screens' clocks may differ by
SETTLED = re.compile(r"(?:coup|hand) #(\d+) settled")


def number_re(key: str) -> re.Pattern[str]:
    """A text's ``key`` ("bank", "pot": "Bank 300") with its number read back."""
    text = i18n.plain(i18n.t("en", key, amount=987654))
    return re.compile(re.escape(text).replace("987654", r"(\d+)"))


BANK, POT = number_re("bank"), number_re("pot")
TO_ACT = i18n.word("en", "to_act", "status")
APP_CARD = i18n.plain(i18n.t("en", "app_card"))  # the line of the group's card in app mode
YOUR_MOVE = i18n.plain(i18n.t("en", "decide_private"))  # his prompt's (his view's) ask


@dataclass
class Truth:
    """What one version of the table is, for every viewer (the engine's views, the legal
    actions and the host's deadline): what a scene of that version will hold."""

    version: int
    sight: Sight
    due: float | None
    result: Settlement | None

    @property
    def names(self) -> dict[int, str]:
        return render.names_of(self.sight.view())

    def cards(self, viewer: int | None) -> list[str]:
        """His cards as his screens show them: his hidden ones, then his up cards (stud's
        *My cards* has both)."""
        view = self.sight.view(viewer)
        mine = list(view.my_cards)
        up = next((s.face_up for s in view.seats if s.player == viewer), ())
        return mine + [c for c in up if c not in mine]

    def up(self) -> dict[str, list[str]]:
        return {s.name: list(s.face_up) for s in self.sight.view().seats}

    def money(self) -> dict[str, int]:
        view = self.sight.view()
        return {"bank": view.bank, "pot": view.pot}

    def awaiting(self) -> list[str]:
        return [self.names[p] for p in self.sight.view().awaiting]

    def turn_words(self) -> set[str]:
        """The seat statuses that say a seat is to play ("to act", banchok's "to stake"):
        what the awaited seats show now, besides the turn's marks."""
        view = self.sight.view()
        return {TO_ACT} | {i18n.word("en", s.status, "status") for s in view.seats
                           if s.player in view.awaiting and s.status}

    def fixed_costs(self, viewer: int) -> dict[str, int]:
        """The viewer's presses that cost one known sum (a call): kind -> amount."""
        if viewer not in self.sight.view().awaiting:
            return {}
        try:
            specs = self.sight.legal(viewer)
        except IllegalAction:  # nothing to press
            return {}
        return {s.kind: s.min for s in specs
                if s.min is not None and s.min == s.max and s.min > 0 and not s.choices}


@dataclass
class Seen:
    """What one screen shows its viewer, read back into the facts a scene holds."""

    text: str
    cards: list[str] | None = None  # his own cards (None: this screen does not show them)
    up: dict[str, list[str]] = field(default_factory=dict)
    money: dict[str, int] = field(default_factory=dict)
    awaiting: list[str] | None = None  # None: no line of whose turn it is
    due: float | None = None  # the deadline it shows (absolute), None: no clock
    costs: dict[str, int] = field(default_factory=dict)  # kind -> amount on its button


@dataclass
class Disagreements:
    """Every disagreement of the run; the first of each (screen, fact) is kept."""

    found: dict[tuple[str, str], str] = field(default_factory=dict)
    checks: dict[str, int] = field(default_factory=dict)  # how many, by screen

    def check(self, version: int, screen: str, what: str, shown: Any, expected: Any,
              text: str) -> None:
        self.checks[screen] = self.checks.get(screen, 0) + 1
        if shown == expected or (screen, what) in self.found:
            return
        self.found[(screen, what)] = (
            f"version {version}, {screen}, {what}: shows {shown!r}, its scene says "
            f"{expected!r}\n    the screen's text: {text!r}")


def seat_lines(text: str, names: dict[int, str]) -> dict[str, str]:
    """Each seat's line of a table text (the group's table, a prompt, a view), by name."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        bare = line.removeprefix("▶ ").strip()
        for name in names.values():
            if re.match(rf"{re.escape(name)}( \(.*?\))? · 💰", bare):
                out[name] = line
    return out


def read_text(text: str, entities: list[dict[str, Any]], truth: Truth, own: bool,
              viewer: int | None = None) -> Seen:
    """A table text as its reader reads it: the header's bank or pot, each seat's up
    cards, whose turn it is (the seats marked ▶ or with a status of a seat to play, the ⏳
    line's names, and, on his own screen, his move asked) with its clock, and (``own``) his
    cards."""
    lines = text.splitlines()
    header = lines[0] if lines else ""
    seen = Seen(text)
    for key, pattern in (("bank", BANK), ("pot", POT)):
        m = pattern.search(header)
        seen.money[key] = int(m.group(1)) if m else 0
    marked = set()
    turn_words = truth.turn_words()
    for name, line in seat_lines(text, truth.names).items():
        seen.up[name] = cards_in(line)
        if line.startswith("▶") or line.rsplit(" · ", 1)[-1] in turn_words:
            marked.add(name)
    turn = next((ln for ln in lines if ln.startswith("⏳")), None)
    if turn is not None:
        who = turn[1:].split(" · ")[0].strip()
        marked.update(n for n in truth.names.values() if re.search(
            rf"(^|, ){re.escape(n)}(,|$| )", who))
        clock = [e for e in entities if e.get("type") == "date_time"]
        if clock:
            seen.due = float(clock[0].get("unix_time", 0))
    if own and viewer is not None and YOUR_MOVE in text:
        marked.add(truth.names[viewer])
    seen.awaiting = [n for n in truth.names.values() if n in marked]
    if own:
        mine = next((ln for ln in lines if ln.startswith(i18n.plain(
            i18n.t("en", "your_cards", cards="\0")).split("\0")[0])), "")
        seen.cards = cards_in(mine)
    return seen


def read_buttons(message: dict[str, Any] | None) -> dict[str, int]:
    """The amounts a keyboard's presses of one fixed sum show: kind -> the number in the
    label of its one button (a kind with several buttons is an amount to choose)."""
    by_kind: dict[str, list[str]] = {}
    for label, data in buttons_of(message):
        a = decode_action(data)
        if a is not None:
            by_kind.setdefault(a[2], []).append(label)
    out = {}
    for kind, labels in by_kind.items():
        numbers = re.findall(r"\d+", labels[0])
        if len(labels) == 1 and numbers:
            out[kind] = int(numbers[-1])
    return out


def buttons_of(message: dict[str, Any] | None) -> list[tuple[str, str | None]]:
    """(label, callback data) of every inline button of a message (or of none)."""
    if not message or not message.get("reply_markup"):
        return []
    return [(b["text"], b.get("callback_data"))
            for row in message["reply_markup"].get("inline_keyboard", []) for b in row]


PAGE_JS = """() => {
  const q = (s, r) => Array.from((r || document).querySelectorAll(s));
  const text = (s) => { const e = document.querySelector(s); return e ? e.innerText : ''; };
  const shown = (s) => { const e = document.querySelector(s); return !!e && !e.hidden
    && e.offsetParent !== null; };
  return {
    version: document.body.dataset.version || '',
    text: document.getElementById('app').innerText,
    seats: q('#seats .seat').map((s) => ({
      name: (s.querySelector('.name') || {}).innerText || '',
      cards: q('.seat-cards .card', s).map((c) => c.dataset.card || ''),
      awaiting: s.classList.contains('awaiting')})),
    bank: text('#money .m-bank .m-value'), pot: text('#money .m-pot .m-value'),
    turn: shown('#turnline') ? text('#turnline') : '',
    secs: q('.secs').filter((e) => e.offsetParent !== null).map((e) => e.innerText),
    hand: q('#hand .card').map((c) => c.dataset.card || ''),
    buttons: q('#actions button').map((b) => ({kind: b.dataset.kind
      || (b.closest('[data-kind]') || {dataset: {}}).dataset.kind || '', text: b.innerText})),
    result: shown('#result') ? text('#result') : null,
  };
}"""


# a player taps the folded result (under the next coup's table) to open it
OPEN_RESULT = """() => { const box = document.getElementById('result-box');
  if (box && !box.open && box.offsetParent !== null) box.querySelector('summary').click(); }"""


def read_page(dom: dict[str, Any], truth: Truth, viewer: int) -> Seen:
    """A page's DOM as its reader reads it."""
    seen = Seen(dom["text"])
    seen.up = {s["name"]: [c for c in s["cards"] if c] for s in dom["seats"]}
    # his cards: those in his hand, then his up cards, which his seat shows
    seen.cards = [c for c in dom["hand"] if c]
    seen.cards += [c for c in seen.up.get(truth.names.get(viewer, ""), [])
                   if c not in seen.cards]
    seen.money = {"bank": int(dom["bank"] or 0), "pot": int(dom["pot"] or 0)}
    if dom["turn"]:  # the line of whose turn it is, and the seats it marks
        seen.awaiting = [s["name"] for s in dom["seats"] if s["awaiting"]]
    secs = [int(m.group(0)) for s in dom["secs"] for m in [re.search(r"\d+", s)] if m]
    if secs:
        seen.due = time.time() + secs[0]
    for b in dom["buttons"]:
        numbers = re.findall(r"\d+", b["text"])
        if b["kind"] and numbers and b["kind"] not in seen.costs:
            seen.costs[b["kind"]] = int(numbers[-1])
    return seen


def compare(found: Disagreements, truth: Truth, screen: str, viewer: int | None,
            seen: Seen) -> None:
    """One screen at one version against its viewer's truth."""
    v = truth.version
    if seen.cards is not None:
        found.check(v, screen, "his cards", seen.cards, truth.cards(viewer), seen.text)
    found.check(v, screen, "up cards", seen.up, truth.up(), seen.text)
    found.check(v, screen, "bank/pot", seen.money, truth.money(), seen.text)
    awaiting = truth.awaiting()
    if APP_CARD in seen.text:  # the group's card in app mode: no turn, no clock, by design;
        # a turn it does show (a player without a private chat) must be true at its version
        found.check(v, screen, "a turn that is not", [n for n in seen.awaiting or []
                                                      if n not in awaiting], [], seen.text)
        return
    found.check(v, screen, "whose turn", seen.awaiting or [], awaiting, seen.text)
    if awaiting and truth.due is not None:
        shown = seen.due is not None and abs(seen.due - truth.due) <= SLACK
        found.check(v, screen, "seconds left", "agrees" if shown else (
            None if seen.due is None else round(seen.due - time.time())),
            "agrees", seen.text)
    if viewer is not None:
        wanted = truth.fixed_costs(viewer)
        found.check(v, screen, "amount to call", {k: seen.costs.get(k) for k in wanted},
                    wanted, seen.text)


def result_facts(result: Settlement, names: dict[int, str]) -> dict[str, str]:
    """What every screen's result must say, each with the pattern that finds it: its coup
    number, who won what with which hand (the headline), and every player's net (his
    name, maybe his role, the signed sum)."""
    facts = {f"coup #{result.coup}": rf"#{result.coup}\b"}
    headline = str(i18n.plain(results.headline("en", result, names)))
    facts[headline] = re.escape(headline)
    for p, n in result.nets.items():
        sign = "+" if n > 0 else "−" if n < 0 else "±"
        facts[f"{names.get(p, p)} {sign}{abs(n)}"] = (
            rf"{re.escape(names.get(p, str(p)))}[^+−±\d]{{0,20}}"
            rf"{re.escape(sign) if n else '±?'}{abs(n)}\b")
    return facts


def one_line(text: str) -> str:
    """A text's lines as one (the page breaks a net's name from its sum)."""
    return text.replace("\n", " ")


def compare_result(found: Disagreements, version: int, screen: str, text: str | None,
                   result: Settlement, names: dict[int, str], cards: list[str]) -> None:
    """A screen's result against the settlement: every fact there, and the hands' cards
    (as the group's settlement shows them)."""
    shown = one_line(text or "")
    facts = result_facts(result, names)
    found.check(version, screen, "result", [f for f, pattern in facts.items()
                                            if re.search(pattern, shown)], list(facts),
                text or "")
    found.check(version, screen, "result's hands", sorted(set(cards_in(shown)) & set(cards)),
                sorted(set(cards)), text or "")


def last_step_cards(bot: BotProcess) -> list[str]:
    """The cards of the public events of the table's last committed step (the bot's test
    hook): the hands a settlement turned up."""
    rows = [json.loads(line) for line in (bot.data_dir / "shown.jsonl").read_text().splitlines()
            if line.strip()]
    return next((r["cards"] for r in reversed(rows) if r.get("chat") == CHAT), [])


class Table:
    """The run: the bot, the group, the pages, and what each player presses where."""

    def __init__(self, game: Game, pages: dict[int, AppPage], progress: asyncio.Event
                 ) -> None:
        self.game = game
        self.sb = game.sb
        self.bot = game.bot
        self.pages = pages
        self.progress = progress
        self.found = Disagreements()
        # what a screen once did not show in time: looked at again without waiting
        self.behind: set[tuple[str, str]] = set()
        self.up_seen: set[str] = set()  # every card face up on a seat during the coup
        self.truths: dict[int, Truth] = {}  # every version looked at, for the group's card
        self.last: Truth | None = None  # the last version looked at before the result
        self.cid_viewed: int | None = None  # the last version Cid's open view was read at

    def truth(self) -> Truth:
        """The stored version, as the engine and the host see it."""
        row = self.bot.db_table(CHAT)
        assert row is not None
        engine = registry.engine(row[0])
        meta = self.bot.db_meta(CHAT)
        return Truth(row[2], Sight(engine, engine.state_type.model_validate_json(row[1])),
                     meta.get("due"), last_result(meta.get("last_result")))

    async def due(self) -> float | None:
        """The host's deadline of the decision: it starts once every awaited player has been
        shown his turn (a prompt, a view, a page delivered), a moment after that screen; a
        second at most is waited for it."""
        deadline = time.monotonic() + 1.0
        while (due := self.bot.db_meta(CHAT).get("due")) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return None if due is None else float(due)

    async def within(self, screen: str, what: Callable[[], Awaitable[Any]], version: int,
                     text: Callable[[], Awaitable[str]], fact: str = "shows the version"
                     ) -> Any:
        """What ``what`` gives once it gives something, within :data:`SHOW` s (what a
        screen once did not show in time is looked for again without waiting); None and a
        disagreement when it does not."""
        deadline = time.monotonic() + (0 if (screen, fact) in self.behind else SHOW)
        while True:
            got = await what()
            if got:
                return got
            if time.monotonic() >= deadline:
                self.behind.add((screen, fact))
                self.found.check(version, screen, fact, "not within "
                                 f"{SHOW:g} s", "shown", await text())
                return None
            await asyncio.sleep(0.05)

    # --- reading the screens ---------------------------------------------------------------

    async def look_at_group(self) -> None:
        """The group's table message as it is now, against the truth of the version it
        shows (the bot's test hook tells which): its edits are paced by the group's budget
        and coalesced, and its card in app mode is not redrawn at every version, so it may
        show an earlier version than the table's, never a wrong one."""
        m = await synced_now(self.game)
        shown = None if m is None else self.bot.shown_version(CHAT, m["message_id"])
        if m is not None and shown in self.truths:
            truth = self.truths[shown]
            compare(self.found, truth, "group table (Ann)", ANN.id, self.group_seen(m, truth))

    async def newest_group_text(self) -> str:
        m = await self.game.table_message() or await self.sb.last_bot_message(CHAT)
        return m["text"] if m else "(no message)"

    async def prompt(self, player: Player, decision: int) -> dict[str, Any] | None:
        """His newest private message with buttons of ``decision``."""
        for m in reversed(await self.sb.bot_messages(player.id)):
            for _, data in buttons_of(m):
                a = decode_action(data)
                if a and data and data.split("|")[1] == str(CHAT) and a[1] == decision:
                    return m
        return None

    async def drawn_at(self, screen: str, find: Callable[[], Awaitable[dict[str, Any] | None]],
                       truth: Truth, player: Player, text: Callable[[], Awaitable[str]]
                       ) -> dict[str, Any] | None:
        """His prompt (his view) of this decision once it shows ``truth``'s version: one
        decision's prompt is edited as the table moves (another's bid), and an edit takes a
        moment to arrive. Its version is known by what it shows: whose turn, the bank or
        pot, the up cards (one that never shows them in time is a disagreement)."""
        async def current() -> dict[str, Any] | None:
            m = await find()
            if m is None:
                return None
            seen = read_text(m["text"], m.get("entities") or [], truth, True, player.id)
            return m if (seen.awaiting or [], seen.money, seen.up) == (
                truth.awaiting(), truth.money(), truth.up()) else None

        return await self.within(screen, current, truth.version, text)

    async def newest_dm(self, player: Player) -> str:
        m = await self.sb.last_bot_message(player.id)
        return m["text"] if m else "(no private message)"

    async def view(self, player: Player, decision: int | None) -> dict[str, Any] | None:
        """His newest ephemeral view (with ``decision``: one carrying its buttons)."""
        for m in reversed(await self.sb.view(CHAT, player.id)):
            if not m.get("ephemeral"):
                continue
            if decision is None or any((a := decode_action(d)) is not None and a[1] == decision
                                       for _, d in buttons_of(m)):
                return m
        return None

    async def open_view(self, player: Player, truth: Truth, decision: int) -> bool:
        """He presses *My cards* on the group's table, unless his view of this decision is
        there already; False when he holds no hidden card yet (the cut, the bank: he decides
        on the group's buttons), or when the group's table offers no *My cards* in time (a
        disagreement)."""
        if await self.view(player, decision) is not None:
            return True
        if not truth.cards(player.id):
            return False

        async def my_cards() -> tuple[int, str] | None:
            message = await self.game.table_message()
            mine = next((d for _, d in buttons_of(message) if d and d.startswith("m|")), None)
            return None if message is None or mine is None else (message["message_id"], mine)

        button = await self.within("group table (Ann)", my_cards, truth.version,
                                   self.newest_group_text, "offers My cards")
        if button is None:
            return False
        await self.sb.press(CHAT, button[0], player.id, button[1], wait=10)
        return True

    async def newest_view(self, player: Player) -> str:
        m = await self.view(player, None)
        return m["text"] if m else "(no view)"

    async def page_at(self, app: AppPage, version: int) -> dict[str, Any] | None:
        """The page's DOM read back once it has drawn ``version``."""
        if app.version < version or not await app.drawn():
            return None
        dom: dict[str, Any] = await app.page.evaluate(PAGE_JS)
        return dom if dom["version"].split(".")[0] == str(version) else None

    async def page_text(self, app: AppPage) -> str:
        return str(await app.page.evaluate("document.getElementById('app').innerText"))

    # --- one version on every screen -------------------------------------------------------

    async def look(self, truth: Truth) -> None:
        """Every screen at ``truth``'s version, against it."""
        v = truth.version
        decision = int(self.bot.db_meta(CHAT).get("decision", 0))
        awaiting = truth.sight.view().awaiting
        self.up_seen.update(c for cards in truth.up().values() for c in cards)
        self.truths[v] = truth
        self.last = truth
        truth.due = await self.due()
        await self.look_at_group()
        if BOB.id in awaiting:
            prompt = await self.drawn_at("Bob's private prompt",
                                         lambda: self.prompt(BOB, decision), truth, BOB,
                                         lambda: self.newest_dm(BOB))
            if prompt is not None:
                truth.due = await self.due()
                seen = read_text(prompt["text"], prompt.get("entities") or [], truth, True,
                                 BOB.id)
                seen.costs = read_buttons(prompt)
                compare(self.found, truth, "Bob's private prompt", BOB.id, seen)
        if CID.id in awaiting and await self.open_view(CID, truth, decision):
            view = await self.drawn_at("Cid's view in the group",
                                       lambda: self.view(CID, decision), truth, CID,
                                       lambda: self.newest_view(CID))
            if view is not None:
                self.cid_viewed = v
                truth.due = await self.due()
                seen = read_text(view["text"], view.get("entities") or [], truth, True, CID.id)
                seen.costs = read_buttons(view)
                compare(self.found, truth, "Cid's view in the group", CID.id, seen)
        for who in (DEE, EVE):
            app = self.pages[who.id]
            screen = f"{who.name}'s page"
            dom = await self.within(screen, lambda app=app: self.page_at(app, v), v,
                                    lambda app=app: self.page_text(app))
            if dom is not None:
                seen = read_page(dom, truth, who.id)
                compare(self.found, truth, screen, who.id if who is DEE else None, seen)

    def group_seen(self, message: dict[str, Any], truth: Truth) -> Seen:
        """The group's table as Ann reads it, with the amounts of her own presses."""
        seen = read_text(message["text"], message.get("entities") or [], truth, False)
        mine = [(label, d) for label, d in buttons_of(message)
                if (a := decode_action(d)) is not None and a[2] in truth.fixed_costs(ANN.id)]
        seen.costs = read_buttons({"reply_markup": {"inline_keyboard": [
            [{"text": label, "callback_data": d} for label, d in mine]]}})
        return seen

    async def look_at_result(self, truth: Truth) -> None:
        """The settled coup's result on every screen."""
        result = truth.result
        assert result is not None
        v = truth.version
        names = {**truth.names, **{p.id: p.name for p in PLAYERS}}

        async def settlement() -> dict[str, Any] | None:
            for m in reversed(await self.sb.bot_messages(CHAT)):
                found = SETTLED.search(m["text"] or "")
                if found and int(found.group(1)) == result.coup:
                    return m
            return None

        group = await self.within("group table (Ann)", settlement, v, self.newest_group_text,
                                  "shows the result")
        # the hands: what the group's result shows of the cards the coup turned up, before
        # or by its last step (not the cards of the log before it, nor of the next coup)
        turned = self.up_seen | set(last_step_cards(self.bot))
        cards = [c for c in cards_in(group["text"]) if c in turned] if group else []
        if group is not None:
            compare_result(self.found, v, "group table (Ann)", group["text"], result,
                           names, cards)

        headline = str(i18n.plain(results.headline("en", result, names)))

        async def told(messages: Callable[[], Awaitable[list[dict[str, Any]]]]
                       ) -> str | None:
            return next((m["text"] for m in reversed(await messages())
                         if headline in one_line(m.get("text") or "")), None)

        # a prompt or a view open when the coup settled closes with its result; one closed
        # before (he had acted) does not, and the group's result is what he sees
        last = self.last.sight.view().awaiting if self.last is not None else ()
        screens: list[tuple[str, Callable[[], Awaitable[str | None]]]] = []
        if BOB.id in last:
            screens.append(("Bob's private chat", lambda: told(
                lambda: self.sb.bot_messages(BOB.id))))
        if CID.id in last and self.last is not None and self.cid_viewed == self.last.version:
            screens.append(("Cid's view in the group", lambda: told(
                lambda: self.sb.view(CHAT, CID.id))))
        for who in (DEE, EVE):
            app = self.pages[who.id]

            async def on_page(app: AppPage = app) -> str | None:
                if not await app.drawn():
                    return None
                await app.page.evaluate(OPEN_RESULT)
                dom = await app.page.evaluate(PAGE_JS)
                return dom["result"] or None

            screens.append((f"{who.name}'s page", on_page))
        texts = {"Bob's private chat": lambda: self.newest_dm(BOB),
                 "Cid's view in the group": lambda: self.newest_view(CID),
                 "Dee's page": lambda: self.page_text(self.pages[DEE.id]),
                 "Eve's page": lambda: self.page_text(self.pages[EVE.id])}
        for screen, shown_now in screens:
            shown = await self.within(screen, shown_now, v, texts[screen], "shows the result")
            if shown is not None:
                compare_result(self.found, v, screen, shown, result, names, cards)

    # --- playing, each on his own screen ---------------------------------------------------

    async def act(self, truth: Truth) -> None:
        """The first awaited player acts on his own screen, as the game's policy prefers."""
        state = truth.sight.state
        policy = POLICIES.get(truth.sight.view().game, {})
        prefer = [*policy.get(state.phase, policy.get("", DEFAULT)), "turn", "start"]
        player = next(p for p in PLAYERS if p.id == truth.sight.view().awaiting[0])
        if player is DEE:
            await self.on_page(prefer)
        elif player is BOB:
            await self.on_prompt(prefer, truth.version)
        elif player is CID:
            await self.in_view(CID, prefer, truth.version)
        else:
            await self.on_group(ANN, prefer, truth.version)

    async def moved(self, version: int) -> None:
        """Until the table has committed past ``version`` (his press made a step)."""
        await self.sb.wait_for(lambda: (self.bot.db_table(CHAT) or ("", "", version))[2]
                               != version, timeout=20)

    async def on_group(self, player: Player, prefer: list[str], version: int) -> None:
        """He presses the group table's button; a decision on his hidden cards (no button
        for it there), on his view."""
        message = await self.game.table_message()
        assert message is not None
        if await self.game._press_first(player, prefer, CHAT, message, "min") is None:
            await self.in_view(player, prefer, version)  # a decision on his hidden cards
            return
        await self.moved(version)

    async def on_prompt(self, prefer: list[str], version: int) -> None:
        """Bob presses on his turn prompt in his private chat."""
        decision = int(self.bot.db_meta(CHAT).get("decision", 0))
        prompt = await self.sb.wait_for(lambda: self.prompt(BOB, decision), timeout=20)
        done = await self.game._press_first(BOB, prefer, BOB.id, prompt, "min")
        assert done is not None, f"Bob could do none of {prefer}: {prompt['text']}"
        await self.moved(version)

    async def in_view(self, player: Player, prefer: list[str], version: int) -> None:
        """He presses *My cards* on the group's table (if his view is not there yet) and
        acts on his view; with no hidden card yet (the cut, the bank), on the group's
        buttons."""
        decision = int(self.bot.db_meta(CHAT).get("decision", 0))
        if not await self.open_view(player, self.truth(), decision):
            message = await self.game.table_message()
            assert message is not None
            assert await self.game._press_first(player, prefer, CHAT, message, "min"), (
                f"{player.name} could do none of {prefer}: {message['text']}")
            await self.moved(version)
            return
        view = await self.sb.wait_for(lambda: self.view(player, decision), timeout=20)
        await self.press_in_view(player, view, prefer)
        await self.moved(version)

    async def press_in_view(self, player: Player, view: dict[str, Any], prefer: list[str]
                            ) -> None:
        """He presses the first preferred action of his view; a choice of his cards turns
        the view into his selection, which he confirms as it is."""
        number = view["ephemeral_message_id"]
        for kind in prefer:
            for label, data in buttons_of(view):
                a = decode_action(data)
                if a is None or a[2] != kind or data is None:
                    continue
                await self.sb.press_ephemeral(CHAT, number, player.id, data, wait=10)
                if a[3] == "?" and label.endswith("…"):  # pick his cards: keep them all
                    picking = await self.sb.wait_for(lambda: self.selection(player, number),
                                                     timeout=10)
                    confirm = next(d for _, d in buttons_of(picking)
                                   if d and d.split("|")[5].startswith("k"))
                    await self.sb.press_ephemeral(CHAT, number, player.id, confirm, wait=10)
                return
        raise AssertionError(f"{player.name} could do none of {prefer}: {view['text']}")

    async def selection(self, player: Player, number: int) -> dict[str, Any] | None:
        """His view ``number`` once it is his selection of cards (its confirm button)."""
        for m in await self.sb.view(CHAT, player.id):
            if m.get("ephemeral_message_id") == number and any(
                    d and d.startswith("a|") and d.split("|")[5].startswith("k")
                    for _, d in buttons_of(m)):
                return m
        return None

    async def on_page(self, prefer: list[str]) -> None:
        """Dee taps, on her page, the first preferred action it offers (the least amount)."""
        app = self.pages[DEE.id]
        snap = app.snap
        assert snap is not None
        offered = {a["kind"]: a for a in snap["actions"] if a["input"] != "utility"}
        kind = next((k for k in prefer if k in offered), None)
        assert kind is not None, f"Dee could do none of {prefer} on her page: {offered}"
        action = offered[kind]
        arg: Any = None
        if is_amount(action):
            lo = action["min"] or 0
            presets = [p for p in action["presets"] if p >= lo]
            arg = min(presets) if presets else None
        elif action["input"] == "own_cards":
            arg = []
        answer = await tap(app, action, arg)
        assert answer is not None and answer["ok"], answer


async def open_link(sb: Any) -> str | None:
    """The group's **Open table** link, once a message of the bot carries it."""
    for m in reversed(await sb.bot_messages(CHAT)):
        for row in (m.get("reply_markup") or {}).get("inline_keyboard", []):
            for button in row:
                if "/table?startapp=" in (button.get("url") or ""):
                    return str(button["url"])
    return None


async def start_pages(sb: Any, browser: Any, link: str, progress: asyncio.Event
                      ) -> dict[int, AppPage]:
    """Dee's and Eve's pages, opened from the group's Open table link."""
    pages = {}
    for user in (DEE, EVE):
        opened = await sb.open_miniapp(user.id, link=link, chat_id=CHAT)
        context = await browser.new_context(viewport=PHONE)
        context.set_default_timeout(5000)
        app = AppPage(user, await context.new_page(), progress)
        app.record()
        await app.page.goto(opened["url"])
        pages[user.id] = app
    for app in pages.values():
        await until(app.drawn, progress, f"{app.user.name}'s first snapshot", 20)
    return pages


@pytest.mark.parametrize("name", GAMES)
async def test_every_screen_shows_every_version_as_its_scene(
        name: str, sandbox: Any, bot_factory: list[BotProcess], tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    started = time.monotonic()
    handle, sb = sandbox
    port = free_port()
    app_url = f"http://127.0.0.1:{port}/app/"
    bot = BotProcess(handle.url, tmp_path / "data", timeout=DECISION, extra={
        "WEBAPP_URL": app_url, "WEBAPP_SHORT_NAME": "table", "WEBAPP_LISTEN": "127.0.0.1",
        "WEBAPP_PORT": str(port), "WEBAPP_SDK_URL": f"{handle.url}/js/telegram-web-app.js",
        "TURN_DMS": "1", "SHOE_SEED": f"screens agree {name}",
        "PYTHONPATH": f"{SEEDED}{os.pathsep}{ROOT}"})
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, CHAT, [*PLAYERS, EVE])
    await game.setup()
    await game.enable_dms([BOB])
    await sb.register_miniapp("table", app_url, token="test-token", title="Banco")
    await game.command(ANN, f"/newtable {name}")
    link = await sb.wait_for(lambda: open_link(sb), timeout=20)
    progress = asyncio.Event()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM)
        try:
            pages = await start_pages(sb, browser, link, progress)
            table = Table(game, pages, progress)
            for p in (ANN, BOB, CID):
                await game.step(p, ["join"])
            join = next(a for a in (pages[DEE.id].snap or {"actions": []})["actions"]
                        if a["kind"] == "join")
            assert (await tap(pages[DEE.id], join, None) or {}).get("ok")
            await game.step(ANN, ["start"])
            before = table.truth().result
            coup = before.coup if before else 0
            versions = []
            for _ in range(80):
                truth = table.truth()
                if truth.result is not None and truth.result.coup > coup:
                    await table.look_at_result(truth)
                    break
                await table.look(truth)
                versions.append(truth.version)
                await table.act(truth)
            else:
                raise AssertionError("the coup did not settle")
        finally:
            await browser.close()
    print(f"\nSCREENS AGREE {name}: versions {versions}, checks {table.found.checks}, "
          f"{len(table.found.found)} disagreements, {time.monotonic() - started:.1f} s")
    assert not table.found.found, "the screens disagree:\n" + "\n".join(
        table.found.found.values())

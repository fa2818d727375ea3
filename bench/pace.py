"""Pace benchmark: human-paced players under Telegram's limits (not a test).

Starts the sandbox with Telegram's flood limits (20 messages a minute per group, 60
per private chat, 429 above them) and the real bot process with its production
settings, opens ``--tables`` groups of ``--players`` players at ``--game`` and lets
them play for ``--seconds``. A player acts like a person: his turn becomes visible
to him when a message reaches him that shows it (a turn prompt with his buttons in
his private chat, or the group's table message naming him on its ⏳ line); 1 to 4
seconds later he presses the button his policy prefers, in that message. Prints one
JSON object per game:

* coups per minute per table;
* press -> next turn visible (ms, p50/p95/p99): from an accepted press to the moment
  the next awaited player's turn reaches him;
* timeouts (the "Time is up" lines of the coups' logs), stale refusals ("out of date"
  pop-ups, "That button was for…"), other refusals;
* group sends + edits per coup, and 429s.

``--compare --baseline REV`` runs the bot at commit REV and this checkout's, game
by game, back to back, and prints both side by side:

    .venv/bin/python bench/pace.py [--game twenty_one] [--tables 4] [--seconds 90]
    .venv/bin/python bench/pace.py --compare --baseline REV [--games twenty_one,stud_poker]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load
from load import (
    DEFAULT,
    GROUP_METHODS,
    POLICIES,
    SETTLED_MARK,
    BotProcess,
    Player,
    SandboxClient,
    baseline_checkout,
    buttons,
    chat_of,
    decode_action,
    percentile,
    print_table,
    run_json,
    start_sandbox,
)

STALE = ("This button is out of date", "That button was for")
TIMED_OUT = "Time is up"
# an accepted press's pop-up when it is still his move (an older bot has no such text)
AGAIN = load.i18n.TEXTS["en"].get("next_yours") or "\0"
DELAY = (1.0, 4.0)


@dataclass
class Figures:
    """What the players measured."""

    visible_ms: list[float] = field(default_factory=list)
    accepted: int = 0
    stale: int = 0
    refused: int = 0
    errors: list[str] = field(default_factory=list)


class Table:
    """One group of human-paced players."""

    def __init__(self, sb: SandboxClient, world: Any, chat_id: int, players: list[Player],
                 game: str, figures: Figures, rng: random.Random) -> None:
        self.sb = sb
        self.world = world
        self.chat_id = chat_id
        self.players = players
        self.by_name = {p.name: p for p in players}
        self.by_id = {p.id: p for p in players}
        self.game = game
        self.figures = figures
        self.rng = rng
        # (player, decision) already visible -> whether his press for it was refused (a new
        # prompt of that decision, its amounts changed, is then looked at again)
        self.seen: dict[tuple[int, int], bool] = {}
        self.last_press: float | None = None  # an accepted press not yet followed
        self.tasks: set[asyncio.Task[None]] = set()
        self.playing = False
        self.last_kind = ""

    # ------------------------------------------------------------ what reaches a player

    def on_call(self, method: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        """Every Bot API call: does it show somebody his turn?"""
        if not self.playing or method not in ("sendMessage", "editMessageText") \
                or not response.get("ok"):
            return
        chat = chat_of({"params": params})
        result = response.get("result")
        message_id = params.get("message_id") or (
            result.get("message_id") if isinstance(result, dict) else None)
        markup = params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        data = [b.get("callback_data", "") for row in (markup or {}).get(
            "inline_keyboard", []) for b in row]
        decisions = {a[1] for d in data if (a := decode_action(d))
                     and d.split("|")[1] == str(self.chat_id)}
        if not decisions or message_id is None:
            return
        decision = max(decisions)
        if chat in self.by_id:
            self.visible(self.by_id[chat], decision, chat, int(message_id))
        elif chat == self.chat_id:
            text = str(params.get("text") or "")
            turn = next((ln for ln in text.splitlines() if ln.startswith("⏳")), "")
            if "<" in turn:  # HTML: the names are plain text inside it
                turn = turn.replace("<b>", "").replace("</b>", "")
            if any(m in turn for m in load.PRIVATE_TURN):
                return  # "in the private chat": his buttons are there, not here
            names = turn[1:].split("—")[0].split(" · ")[0].strip().split(", ") if turn else []
            for name in names:
                if name in self.by_name:
                    self.visible(self.by_name[name], decision, chat, int(message_id))

    def visible(self, player: Player, decision: int, chat: int, message_id: int) -> None:
        """``player`` can see his turn (``decision``) now: he decides in a moment."""
        key = (player.id, decision)
        if key in self.seen and not (self.seen[key] and chat > 0):
            return
        self.seen[key] = False
        if self.last_press is not None:
            self.figures.visible_ms.append((time.monotonic() - self.last_press) * 1000)
            if os.environ.get("PACE_DEBUG") and self.figures.visible_ms[-1] > 1000:
                print("slow", round(self.figures.visible_ms[-1]), "dm" if chat > 0 else "group",
                      self.last_kind, file=sys.stderr)
            self.last_press = None
        task = asyncio.get_running_loop().create_task(
            self.decide(player, decision, chat, message_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------ what he does

    def message(self, chat: int, message_id: int) -> Any:
        for m in self.world.messages.get(chat, []):
            if m.message_id == message_id:
                return m
        return None

    async def decide(self, player: Player, decision: int, chat: int, message_id: int) -> None:
        await asyncio.sleep(self.rng.uniform(*DELAY))
        if not self.playing:
            return
        if chat == player.id:  # he reads the newest prompt of it in his private chat
            message_id = self.newest_prompt(player, decision) or message_id
        message = self.message(chat, message_id)
        # "?" asks for a typed amount, except on a pick among his own cards ("Discard…");
        # "t<n>" is a switch that only draws the keyboard again
        offered = [(t, d) for t, d in buttons(message)
                   if (a := decode_action(d)) and (a[3] != "?" or t.endswith("…"))
                   and a[3][:1] != "t"
                   and a[2] not in ("leave", "join")]
        row = self.phase()
        policy = POLICIES.get(self.game, {})
        # the group's table may lag behind (its refreshes are held back): what the policy
        # prefers in the phase it shows, then any kind it plays in another phase
        prefer = [*policy.get(row, policy.get("", DEFAULT)), *DEFAULT,
                  *(k for kinds in policy.values() for k in kinds)]
        for kind in prefer:
            pick = [(t, d) for t, d in offered if decode_action(d)[2] == kind]  # type: ignore[index]
            if pick:
                await self.press(player, chat, message_id, *pick[0])
                return
        self.seen[(player.id, decision)] = True  # nothing for him here: he looks elsewhere

    def phase(self) -> str:
        """The phase the group's table message names (the policies are by phase)."""
        m = self.table_message()
        return load.phase_word(m).replace(" ", "_") if m is not None else ""

    async def press(self, player: Player, chat: int, message_id: int, label: str,
                    data: str) -> None:
        try:
            answer = await self.sb.press(chat, message_id, player.id, data, wait=10)
        except Exception as exc:  # the button went away under his finger
            self.figures.errors.append(repr(exc)[:120])
            return
        text = str(answer.get("text") or "")
        if text.startswith(STALE):
            self.figures.stale += 1
            if os.environ.get("PACE_DEBUG"):
                print("stale", player.name, label, data, "->", text, file=sys.stderr)
            return
        kind = decode_action(data)[2]  # type: ignore[index]
        if label.endswith("…"):  # a pick among his own cards: confirm it as it is
            keyboard = await self.until(lambda: self.confirm_keyboard(player))
            if keyboard is not None:
                confirm = next(d for _, d in buttons(keyboard)
                               if decode_action(d)[3][:1] == "k")  # type: ignore[index]
                self.last_press = time.monotonic()
                await self.sb.press(player.id, keyboard.message_id, player.id, confirm, wait=10)
                self.figures.accepted += 1
            return
        if text.startswith(load.i18n.action_label("en", kind)):
            self.figures.accepted += 1
            if text.endswith(AGAIN):
                # still his move, and the pop-up told him so at once: he decides again on
                # his newest prompt (a new one where what it offers changed)
                newest = self.newest_prompt(player, None)
                if newest is not None:
                    message = self.message(player.id, newest)
                    decision = max(a[1] for _, d in buttons(message) if (a := decode_action(d)))
                    if (player.id, decision) not in self.seen:  # not already on his mind
                        self.seen[(player.id, decision)] = False
                        await self.decide(player, decision, player.id, newest)
                return
            self.last_press = time.monotonic()
            self.last_kind = f"{kind}: {text}"
        else:
            self.figures.refused += 1
            if os.environ.get("PACE_DEBUG"):
                dms = [[t for t, _ in buttons(m)] for m in self.world.messages.get(player.id, [])
                       if buttons(m)]
                print("refused", player.name, label, "->", text, dms[-3:], file=sys.stderr)
            decision = decode_action(data)[1]  # type: ignore[index]
            self.seen[(player.id, decision)] = True  # he looks again at a newer prompt
            newest = self.newest_prompt(player, decision)
            if newest is not None and (chat, message_id) != (player.id, newest):
                self.seen[(player.id, decision)] = False
                await self.decide(player, decision, player.id, newest)

    def newest_prompt(self, player: Player, decision: int | None) -> int | None:
        """His newest private message with buttons of ``decision`` (None: of any) at this
        table."""
        for m in reversed(self.world.messages.get(player.id, [])):
            if any((a := decode_action(d)) and decision in (None, a[1])
                   and d.split("|")[1] == str(self.chat_id) for _, d in buttons(m)):
                return int(m.message_id)
        return None

    def confirm_keyboard(self, player: Player) -> Any:
        for m in reversed(self.world.messages.get(player.id, [])):
            if any((a := decode_action(d)) and a[3][:1] == "k" for _, d in buttons(m)):
                return m
        return None

    async def until(self, probe: Any, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = probe()
            if value:
                return value
            await asyncio.sleep(0.02)
        return None

    # ------------------------------------------------------------ before the first coup

    def table_message(self) -> Any:
        for m in reversed(self.world.messages.get(self.chat_id, [])):
            if m.from_bot and any(d.startswith("a|") for _, d in buttons(m)):
                return m
        return None

    def button(self, kind: str) -> tuple[Any, str] | None:
        m = self.table_message()
        data = next((d for _, d in buttons(m) if (a := decode_action(d)) and a[2] == kind),
                    None)
        return (m, data) if data else None

    async def seat(self) -> None:
        """Everybody joins; the first player starts (as soon as Start is offered)."""
        for p in [*self.players, None]:
            kind = "join" if p is not None else "start"
            for _ in range(20):  # the message may be redrawn under his finger: again
                found = await self.until(lambda k=kind: self.button(k), timeout=60)
                m, data = found
                if p is None:
                    self.playing = True
                try:
                    await self.sb.press(self.chat_id, m.message_id,
                                        (p or self.players[0]).id, data, wait=10)
                    break
                except load.SandboxError:
                    await asyncio.sleep(0.2)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    handle = await start_sandbox("127.0.0.1", 0)
    sb = SandboxClient(handle.url, timeout=30)
    tmp = tempfile.TemporaryDirectory(prefix="banco-pace-")
    bot = BotProcess(handle.url, Path(tmp.name) / "data", timeout=args.timeout,
                     extra={"GROUP_MESSAGES_PER_MINUTE": "20", "TEST_HOOKS": "0",
                            # production: the bot's defaults (bot/config.py)
                            "GROUP_EDIT_GAP": "8", "GROUP_EDITS_PER_COUP": "3",
                            "GROUP_RESERVE": "3", "TURN_DMS": "1"})
    figures = Figures()
    world = handle.world
    tables: list[Table] = []
    record = world.record

    def watch(method: str, params: dict[str, Any], response: dict[str, Any]) -> Any:
        entry = record(method, params, response)
        for t in tables:
            t.on_call(method, params, response)
        return entry

    world.record = watch
    rng = random.Random(args.seed)
    try:
        await sb.flood(True, group_per_minute=20, private_per_minute=60)
        bot.start()
        for c in range(args.tables):
            chat_id = -2_000_000 - c
            players = [Player(20_000 + c * 100 + j, f"U{20_000 + c * 100 + j}")
                       for j in range(args.players)]
            tables.append(Table(sb, world, chat_id, players, args.game, figures, rng))
        for t in tables:
            for p in t.players:
                await sb.add_user(p.id, p.name, username=p.name.lower(), language_code="en")
            ids = [p.id for p in t.players]
            await sb.add_chat(t.chat_id, f"Pace {t.chat_id}", "supergroup", members=ids,
                              admins=[ids[0]])
            await sb.add_bot(t.chat_id, ids[0])
            for p in t.players:
                await sb.send(p.id, p.id, "/start")
            await sb.send(t.chat_id, ids[0], f"/newtable {args.game}")
        await asyncio.gather(*(t.seat() for t in tables))
        t0 = time.time()
        seq0 = world.log[-1]["seq"] if world.log else 0
        await asyncio.sleep(args.seconds)
        for t in tables:
            t.playing = False
        t1 = time.time()
        log = [e for e in world.log if e["seq"] > seq0 and e["time"] <= t1]
        group = {t.chat_id for t in tables}
        calls = [e for e in log if e["method"] in GROUP_METHODS and e["ok"]
                 and chat_of(e) in group]
        settled = sum(1 for e in calls if any(
            k in line for line in str(e["params"].get("text") or "").splitlines()[:2]
            for k in SETTLED_MARK))
        timeouts = sum(str(m.text or "").count(TIMED_OUT) for t in tables
                       for m in world.messages.get(t.chat_id, []) if m.from_bot)
        if os.environ.get("PACE_DEBUG"):
            for m in world.messages.get(tables[0].chat_id, []):
                print("GROUP", m.message_id, (m.text or "")[:600], file=sys.stderr)
        minutes = (t1 - t0) / 60
        return {
            "game": args.game, "bot_root": str(load.ROOT), "tables": args.tables,
            "players": args.players, "seconds": args.seconds,
            "coups_per_minute_per_table": round(settled / minutes / args.tables, 2),
            "press_to_next_turn_visible_ms": {
                "p50": percentile(figures.visible_ms, 50),
                "p95": percentile(figures.visible_ms, 95),
                "p99": percentile(figures.visible_ms, 99)},
            "timeouts": timeouts,
            "stale_refusals": figures.stale,
            "other_refusals": figures.refused,
            "presses_accepted": figures.accepted,
            "group_sends_edits_per_coup": round(len(calls) / settled, 1) if settled else None,
            "http_429": sum(1 for e in log if e.get("error_code") == 429),
            "driver_errors": figures.errors[:5],
        }
    finally:
        for t in tables:
            t.playing = False
            for task in list(t.tasks):
                task.cancel()
        bot.kill()
        world.record = record
        with contextlib.suppress(Exception):
            await sb.aclose()
        await handle.stop()
        tmp.cleanup()


COLUMNS = ("game", "bot", "coups_per_min", "visible_p50_ms", "visible_p95_ms",
           "visible_p99_ms", "timeouts", "stale", "sends_edits_per_coup", "429s")


def compare(args: argparse.Namespace) -> None:
    old = baseline_checkout(args.baseline)
    rows = []
    for game in args.games.split(","):
        for label, env in ((args.baseline, {"BENCH_ROOT": str(old)}), ("this", {})):
            cmd = [sys.executable, str(Path(__file__).resolve()), "--game", game,
                   "--tables", str(args.tables), "--players", str(args.players),
                   "--seconds", str(args.seconds), "--timeout", str(args.timeout)]
            r = run_json(cmd, env, f"{game} {label}")
            if r is None:
                continue
            v = r["press_to_next_turn_visible_ms"]
            row = {"game": game, "bot": label,
                   "coups_per_min": r["coups_per_minute_per_table"],
                   "visible_p50_ms": v["p50"], "visible_p95_ms": v["p95"],
                   "visible_p99_ms": v["p99"], "timeouts": r["timeouts"],
                   "stale": r["stale_refusals"],
                   "sends_edits_per_coup": r["group_sends_edits_per_coup"],
                   "429s": r["http_429"]}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    print_table(rows, COLUMNS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="twenty_one")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--baseline", default="HEAD~1")
    parser.add_argument("--games", default="twenty_one,stud_poker")
    args = parser.parse_args()
    if args.compare:
        compare(args)
        return
    import uvloop

    print(json.dumps(uvloop.run(run(args)), indent=2))


if __name__ == "__main__":
    main()

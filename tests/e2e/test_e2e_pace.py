"""Play at the pace of the table under Telegram's real group limit.

Six groups, one of each game, four players each, against a sandbox that answers 429
above 20 messages a minute in a group; the bot runs its production pacing (turn
prompts in private chats, table edits held back). Every player acts as soon as his
turn reaches him, in his private chat. Three coups of every game: nobody is timed
out, no press of the decision in front of the presser is refused as stale, no 429,
each coup costs the group at most its budget of sends plus edits, and a /balance asked
in the middle of play is answered within seconds.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from harness import (
    DEFAULT,
    GROUP_METHODS,
    POLICIES,
    SETTLED_MARK,
    BotProcess,
    Game,
    Player,
    decode_action,
)
from harness import _chat as chat_of

from bot.view import i18n
from sandbox.client import SandboxError

GAMES = ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
# group sends + edits per coup (the coup's table message, its edits and its result)
BUDGET = {"chemin_de_fer": 4, "baccarat": 4, "banchok": 4, "twenty_one": 6,
          "draw_poker": 8, "stud_poker": 8}
COUPS = 3
# the production settings (bot/config.py), Telegram's limit included
PACED = {"GROUP_MESSAGES_PER_MINUTE": "20", "GROUP_EDIT_GAP": "8", "GROUP_EDITS_PER_COUP": "3",
         "GROUP_RESERVE": "3", "TURN_DMS": "1"}
BALANCE_WAIT = 3.0  # seconds from /balance to its answer, at most
STALE = ("This button is out of date", "That button was for")
LABEL = {"join": i18n.plain(i18n.t("en", "join_done", amount="")),  # "... with 1000"
         "start": i18n.action_label("en", "start")}


def settles(entry: dict[str, Any]) -> bool:
    """A group call that shows a coup's result."""
    text = str(entry["params"].get("text") or "")
    return any(k in line for line in text.splitlines()[:2] for k in SETTLED_MARK)


class Table:
    """One group whose players act from their private chats."""

    def __init__(self, game: Game, name: str) -> None:
        self.game = game
        self.name = name
        self.acted: set[tuple[int, int, int]] = set()  # (player, message, decision)
        self.answers: list[str] = []

    async def seat_everybody(self) -> float:
        """Everybody joins on the table message; the first player starts. The start's time."""
        g = self.game
        await g.command(g.players[0], f"/newtable {self.name}")
        message = await g.sb.wait_for(g.table_message, timeout=30)
        join = next(d for _, d in g.sb.buttons(message) if (a := decode_action(d)) and
                    a[2] == "join")
        for p in g.players:
            answer = await g.sb.press(g.chat_id, message["message_id"], p.id, join, wait=10)
            assert answer["text"].startswith(LABEL["join"]), answer

        async def start_button() -> tuple[dict[str, Any], str] | None:
            m = await g.table_message()
            data = next((d for _, d in g.sb.buttons(m) if (a := decode_action(d)) and
                         a[2] == "start"), None)
            return (m, data) if m and data else None

        message, data = await g.sb.wait_for(start_button, timeout=30)
        started = time.time()
        answer = await g.sb.press(g.chat_id, message["message_id"], g.players[0].id, data,
                                  wait=10)
        assert answer["text"].startswith(LABEL["start"]), answer
        return started

    async def prompt(self, player: Player) -> tuple[dict[str, Any], int] | None:
        """The newest turn prompt in ``player``'s private chat not acted on yet."""
        for m in reversed(await self.game.sb.bot_messages(player.id)):
            decisions = {a[1] for _, d in self.game.sb.buttons(m) if (a := decode_action(d))
                         and d and d.split("|")[1] == str(self.game.chat_id)}
            if decisions:
                decision = max(decisions)
                if (player.id, m["message_id"], decision) in self.acted:
                    return None
                return m, decision
        return None

    async def play(self) -> None:
        """Each player answers his turn prompt at once, until COUPS coups have settled."""
        g = self.game
        while len(await g.settlements()) < COUPS:
            acted = False
            for p in g.players:
                found = await self.prompt(p)
                if found is None:
                    continue
                message, decision = found
                self.acted.add((p.id, message["message_id"], decision))
                row = g.bot.db_table(g.chat_id)
                phase = json.loads(row[1]).get("phase", "") if row else ""
                policy = POLICIES.get(self.name, {})
                prefer = policy.get(phase, policy.get("", DEFAULT))
                try:
                    done = await g._press_first(p, [*prefer, *DEFAULT], p.id, message, "min")
                except SandboxError as exc:
                    # the bot closed the prompt under his finger (its decision went on in a
                    # newer prompt): he looks again, as Game.step does in the group
                    if exc.status != 400:
                        raise
                    done = None
                if done is not None:
                    self.answers.append(str(done[1].get("text") or ""))
                acted = True
            if not acted:
                await asyncio.sleep(0.05)


def answers_balance(entry: dict[str, Any]) -> bool:
    """The bot's answer to /balance (a command's answer, not the coup's)."""
    return "chips in the wallet" in str(entry["params"].get("text") or "")


async def balance_mid_game(g: Game) -> float:
    """Once the first coup has settled, a player asks /balance in the group: how long
    until the bot's answer is there, or in his private chat (where it goes when the
    group's minute is full)."""
    while not await g.settlements():
        await asyncio.sleep(0.1)
    player = g.players[1]
    asked = time.monotonic()
    await g.command(player, "/balance")
    reply = f"{player.name}: "

    async def answered() -> bool:
        for chat in (g.chat_id, player.id):
            for m in await g.sb.bot_messages(chat):
                if any(line.startswith(reply) and "chips in the wallet" in line
                       for line in (m["text"] or "").splitlines()):
                    return True
        return False

    while not await answered():
        await asyncio.sleep(0.05)
    return time.monotonic() - asked


async def test_three_coups_of_every_game_within_the_group_budget(
        sandbox: Any, bot_factory: Any, tmp_path: Path) -> None:
    handle, sb = sandbox
    await sb.flood(True, group_per_minute=20)
    bot = BotProcess(handle.url, tmp_path / "data", timeout=30, extra=PACED)
    bot_factory.append(bot)
    bot.start()
    tables = []
    for n, name in enumerate(GAMES):
        players = [Player(5000 + 10 * n + i, f"{name[:3].title()}{i}") for i in range(4)]
        game = Game(sb, bot, -4000 - n, players)
        await game.setup()
        await game.enable_dms()
        tables.append(Table(game, name))
    starts = await asyncio.gather(*(t.seat_everybody() for t in tables))
    waits = await asyncio.wait_for(asyncio.gather(
        *(t.play() for t in tables), *(balance_mid_game(t.game) for t in tables)), timeout=400)
    # /balance in the middle of play is answered at once: the budget keeps a reserve
    assert max(w for w in waits if w is not None) <= BALANCE_WAIT, waits

    log = await sb.log()
    assert not [e for e in log if e.get("error_code") == 429], "the bot stayed under the limit"
    for table, started in zip(tables, starts, strict=True):
        g = table.game
        texts = [m["text"] or "" for m in await sb.messages(g.chat_id)]
        assert not [t for t in texts if "⏰" in t], table.name  # no timeout was told
        assert not [a for a in table.answers if a.startswith(STALE)], table.answers
        per_coup, count = [], 0
        for e in log:
            if (e["method"] in GROUP_METHODS and chat_of(e) == g.chat_id and e["ok"]
                    and e["time"] >= started and not answers_balance(e)):
                count += 1
                if settles(e):
                    per_coup.append(count)
                    count = 0
        assert len(per_coup) >= COUPS, (table.name, per_coup)
        assert max(per_coup[:COUPS]) <= BUDGET[table.name], (table.name, per_coup)

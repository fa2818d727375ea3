"""Fuzzing the real bot with over ten thousand malformed updates between real moves.

Two tables are open and played while batches of raw updates arrive: forged button data (other
table, other player, stale, extra fields, absurd amounts, unknown kinds, lone surrogates),
presses without a message, junk commands and texts, messages without a sender, unknown update
types, and presses on a group after the bot was kicked from it. At the end: no traceback in
the bot's log (the autouse fixture), every callback query answered exactly once, no chip
created or lost, the forged presses moved nothing, and a coup still plays to its settlement.
Seeded: a failure replays.
"""

from __future__ import annotations

import contextlib
import random
import time
from pathlib import Path
from typing import Any

from harness import DEFAULT, BotProcess, Game, Player, chips, decode_action, phase_of
from test_e2e_faults import assert_answered_once, open_table, prefer

from bot.gateway.context import clean
from bot.view import i18n
from bot.view.codec import parse_amount
from sandbox.client import SandboxError
from sandbox.state import bot_user

REFUSALS = {i18n.t(lang, key) for lang in ("en", "ru")
            for key in ("stale", "forged", "other_table", "internal_error")}
ROUNDS = 20
PER_ROUND = 520  # 10,400 in all
STRANGER = {"id": 3299, "is_bot": False, "first_name": "Zed", "language_code": "en"}
KINDS = ["stake", "draw", "stand", "pass", "banco", "bid", "cut", "join", "start", "leave"]
UNKNOWN_KINDS = ["zzz", "Stake", "stake ", "__init__", "a" * 24, "", "a|b"]
# arguments no renderer writes (a real kind with one of these is still a forgery)
BAD_ARGS = ["-5", "-0", "9999999999999", "99999999999999999999", "1e9", " 5", "c-1", "c999",
            "s999999", "k999", "k-1", "5|leave|k999", "\ud800", "\udfff\ud800", "x" * 40]


def _a_real_amount(text: str) -> bool:
    """Whether the bot reads ``text`` in a group as "@bot N", an amount (bot.gateway.buttons)."""
    mention = "@banco_bot"
    cleaned = clean(text)
    return mention in cleaned.lower() and parse_amount(
        cleaned.lower().replace(mention, " ")) is not None


class Fuzzer:
    """Builds malformed updates about the live tables (seeded)."""

    def __init__(self, seed: int, games: list[Game]) -> None:
        self.rng = random.Random(seed)
        self.games = games
        self.n = 0
        self.tables: dict[int, dict[str, Any]] = {}  # chat -> current table message
        self.kicked: set[int] = set()

    def _id(self) -> str:
        self.n += 1
        return f"fz{self.n}"

    def _user(self, game: Game) -> dict[str, Any]:
        r = self.rng.random()
        if r < 0.1:
            return STRANGER
        if r < 0.13:
            return {"id": 2**62 + self.rng.randrange(9), "is_bot": False, "first_name": "\ud800"}
        p = self.rng.choice(game.players)
        return {"id": p.id, "is_bot": False, "first_name": p.name, "language_code": "en"}

    def _chat(self, game: Game) -> dict[str, Any]:
        return {"id": game.chat_id, "type": "supergroup", "title": f"Table {game.chat_id}"}

    def _message(self, game: Game) -> dict[str, Any]:
        table = self.tables.get(game.chat_id) or {"message_id": 1, "text": "?"}
        message_id = table["message_id"]
        if self.rng.random() < 0.2:
            message_id = self.rng.choice([1, 2, max(1, message_id - 1), message_id + 50])
        return {"message_id": message_id, "date": int(time.time()), "chat": self._chat(game),
                "from": bot_user(), "text": table.get("text") or "?"}

    def data(self, game: Game) -> str:
        """Callback data none of our renderers could have made for this press."""
        rng = self.rng
        table = self.tables.get(game.chat_id)
        real = [d for _, d in game.sb.buttons(table) if d] if table else []
        action = next((decode_action(d) for d in real if decode_action(d)), None)
        coup, version = (action[0], action[1]) if action else (1, 1)
        other = rng.choice([g.chat_id for g in self.games if g is not game] + [-1, -10**15])
        kind = rng.choice(KINDS + UNKNOWN_KINDS)
        arg = rng.choice(BAD_ARGS) if kind in KINDS else rng.choice(["", "0", "10", *BAD_ARGS])
        chat = game.chat_id
        choices = [
            f"a|{other}|{coup}|{version}|{kind}|{arg}",
            f"a|{chat}|{coup}|{version}|{kind}|{arg}|leave|k999",
            f"a|{chat}|{coup}|{version - rng.randint(1, 3)}|{kind}|{arg}",
            f"a|{chat}|{coup + rng.choice([-1, 1, 10**12])}|{version}|{kind}|{arg}",
            f"a|{chat}|{coup}|{version}|{kind}|{arg}",
            f"a|{chat}|{coup}|{10**15}|{kind}|{arg}",
            f"a|{chat}|\ud800|{version}|{kind}|",
            f"m|{other}",
            f"m|{chat}|x",
            "m|\udfff",
            "\ud83d",
            rng.choice(["", "|", "a", "a|||||", "m|", "m|-0", "n|", "n|../../etc", "l|xx",
                        "l|ru|x", "n|twenty_one|x", "x" * 80, "a|" + "9" * 62]),
            "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randint(1, 30))),
        ]
        if real:
            # a real button of this table, with a field changed or appended
            base = rng.choice(real)
            choices += [base + "|1", base.replace("|", "||", 1), base + "\ud800",
                        base.replace("a|", "a| ", 1)]
        return rng.choice(choices)

    def press(self, game: Game) -> dict[str, Any]:
        """A forged press on this table's messages."""
        query: dict[str, Any] = {"id": self._id(), "from": self._user(game),
                                 "chat_instance": str(game.chat_id), "data": self.data(game)}
        if self.rng.random() < 0.1:
            query["inline_message_id"] = "AAAA" + str(self.n)  # a press without a message
        else:
            query["message"] = self._message(game)
        return {"callback_query": query}

    def stray_press(self, game: Game) -> dict[str, Any]:
        """A real button of this table (not Join) pressed by someone not seated there."""
        table = self.tables.get(game.chat_id)
        real = [d for _, d in game.sb.buttons(table) if d] if table else []
        real = [d for d in real if d.startswith("a|") and decode_action(d)[2] != "join"]
        data = self.rng.choice(real or ["a|1|1|1|x|"])
        return {"callback_query": {"id": self._id(), "from": STRANGER, "data": data,
                                   "chat_instance": "1", "message": self._message(game)}}

    def text(self, game: Game) -> dict[str, Any]:
        """Junk text, a junk command, or a message without a sender."""
        rng = self.rng
        words = ["\ud800", "\udfff", "50", "-1", "99999999999999999999999", "0x10", "½", "NaN",
                 "", "@banco_bot", "twenty_one", "zz", "\u202e", "\x00", "a" * 300]
        command = rng.choice(["/table", "/balance", "/top", "/history", "/rules", "/verify",
                              "/help", "/language", "/newtable", "/newtable@banco_bot",
                              "/table@other_bot", "/start", "/bonus"])
        text = rng.choice([
            " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))),
            command + " " + " ".join(rng.choice(words) for _ in range(rng.randint(1, 3))),
        ])
        private = rng.random() < 0.25
        sender = self._user(game)
        if sender["id"] == game.players[0].id or _a_real_amount(text):
            # the admin could legitimately close the table, and a seated player's
            # "@banco_bot 50" is his real stake when he may stake
            sender = STRANGER
        chat = {"id": sender["id"], "type": "private", "first_name": "X"} if private \
            else self._chat(game)
        table = self.tables.get(game.chat_id)
        message: dict[str, Any] = {
            "message_id": table["message_id"] if table and not private else 1,
            "date": int(time.time()), "chat": chat, "text": text,
        }
        if text.startswith("/"):
            length = len(text.split(" ")[0].encode("utf-16-le")) // 2
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        if rng.random() < 0.15 and not private:
            message["sender_chat"] = self._chat(game)  # an anonymous admin: no "from"
        else:
            message["from"] = sender
        return {rng.choice(["message", "message", "message", "edited_message"]): message}

    def odd(self, game: Game) -> dict[str, Any]:
        """Update types the bot does not know, or knows but for chats it is not in."""
        rng = self.rng
        far = {"id": -10**17 - rng.randrange(99), "type": "supergroup", "title": "\ud800"}
        return rng.choice([
            {"zzz_future_update": {"id": 10**30, "text": "\ud800"}},
            {"message_reaction_v9": {}},
            {"channel_post": {"message_id": 1, "date": int(time.time()),
                              "chat": {"id": -10**12, "type": "channel", "title": "C"},
                              "text": "/table"}},
            {"message": {"message_id": 2**31, "date": int(time.time()), "chat": far,
                         "from": self._user(game), "text": "/table junk",
                         "entities": [{"type": "bot_command", "offset": 0, "length": 6}]}},
            {"my_chat_member": {"chat": far, "from": STRANGER, "date": int(time.time()),
                                "old_chat_member": {"status": "left", "user": bot_user()},
                                "new_chat_member": {"status": "member", "user": bot_user()}}},
        ])

    def batch(self, size: int) -> list[dict[str, Any]]:
        """``size`` updates over every table, mostly presses."""
        out = []
        for _ in range(size):
            game = self.rng.choice(self.games)
            r = self.rng.random()
            if r < 0.55:
                out.append(self.press(game))
            elif r < 0.70:
                out.append(self.stray_press(game))
            elif r < 0.90:
                out.append(self.text(game))
            else:
                out.append(self.odd(game))
        return out


async def advance(game: Game, name: str) -> None:
    """One real move on the table (whoever is awaited), if anyone is. The table message can
    change between reading it and pressing (a deadline passes, the bot catches up on the
    junk before it): the sandbox then refuses the stale button, and the move is read again."""
    for attempt in range(3):
        message = await game.synced()
        awaited = game.awaited(message)
        if not awaited:
            return
        try:
            await game.step(awaited[0], prefer(name, message))
            return
        except SandboxError as exc:
            if "no button with data" not in str(exc) or attempt == 2:
                raise


async def test_ten_thousand_malformed_updates_change_nothing(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60,
                     extra={"GROUP_MESSAGES_PER_MINUTE": "1000000"})
    bot_factory.append(bot)
    bot.start()
    tables = [
        (Game(sb, bot, -3201, [Player(3211, "Ann"), Player(3212, "Bob"), Player(3213, "Cid")]),
         "twenty_one"),
        (Game(sb, bot, -3202, [Player(3221, "Dan"), Player(3222, "Eve"), Player(3223, "Fay")]),
         "chemin_de_fer"),
    ]
    for game, name in tables:
        await open_table(game, name)
    await sb.add_user(STRANGER["id"], STRANGER["first_name"], language_code="en")
    games = [g for g, _ in tables]
    fuzz = Fuzzer(3201, games)
    kicked_game = games[1]
    sent = 0
    started = time.monotonic()
    for round_ in range(ROUNDS):
        if round_ == ROUNDS - 6:
            await sb.remove_bot(kicked_game.chat_id, kicked_game.players[0].id, kicked=True)
            fuzz.kicked.add(kicked_game.chat_id)
        for game in games:
            fuzz.tables[game.chat_id] = await game.table_message() or {}
        before = {g.chat_id: g.bot.db_table(g.chat_id)[2] for g in games}
        await sb.raw_updates(fuzz.batch(PER_ROUND))
        sent += PER_ROUND
        await sb.wait_for(lambda: _drained(sb), timeout=60)
        # fetched is not yet handled: give the last presses their answers (counted at the end)
        with contextlib.suppress(TimeoutError):
            await sb.wait_for(lambda: _none_unanswered(sb), timeout=10)
        # forged presses moved no table
        after = {g.chat_id: g.bot.db_table(g.chat_id)[2] for g in games}
        if after != before:
            accepted = [(a["user_id"], a["data"], a["text"]) for a in await sb.answers()
                        if a["callback_query_id"].startswith("fz") and a["text"] not in REFUSALS
                        and "not seated" not in (a["text"] or "")
                        and a["chat_id"] == next(c for c in after if after[c] != before[c])]
            raise AssertionError(f"round {round_}: a forged update moved a table {before} -> "
                                 f"{after}; presses not refused: {accepted[:10]}")
        for game, name in tables:
            if game.chat_id not in fuzz.kicked:
                await advance(game, name)
    elapsed = time.monotonic() - started
    assert sent >= 10_000

    async def all_answered() -> bool:
        return not [a for a in await sb.answers() if a["answer_calls"] != 1]

    with contextlib.suppress(TimeoutError):
        await sb.wait_for(all_answered, timeout=15)
    assert_answered_once([a for a in await sb.answers() if a["answer_calls"] != 1])
    held, issued = chips(bot)
    assert held == issued, f"chips {held} held, {issued} issued"

    # the bot still plays: a coup of the table it never left goes to its settlement
    game, name = tables[0]
    await game.play_until_settled({}, DEFAULT)
    assert phase_of(await game.synced()) is not None
    print(f"\nfuzz: {sent} raw updates in {elapsed:.1f} s, {fuzz.n} forged presses")


async def test_poison_updates_do_not_stall_the_bot(sandbox, bot_factory, tmp_path: Path) -> None:
    """Updates whose required fields are missing or of the wrong type (Telegram never sends
    them, but one must not stop the polling loop forever): the bot still serves afterwards."""
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -3203, [Player(3231, "Gus"), Player(3232, "Hal")])
    await game.setup()
    await sb.wait_for(lambda: sb.last_bot_message(game.chat_id), timeout=15)  # the welcome
    now = int(time.time())
    chat = {"id": game.chat_id, "type": "supergroup", "title": "T"}
    poison = [
        {"message": {"text": ["not", "a", "string"]}},
        {"message": {"message_id": "x", "date": now, "chat": chat, "text": "/table"}},
        {"message": {"message_id": 1, "date": now, "text": "/table"}},
        {"callback_query": {"id": 5, "data": "a|1|1|1|x|"}},
        {"callback_query": {"id": "p1", "from": "Gus", "chat_instance": "1", "data": "m|1"}},
        {"callback_query": None},
        {"my_chat_member": {"chat": chat}},
        {"edited_message": 42},
        {"message": {"message_id": 1, "date": "yesterday", "chat": chat,
                     "from": {"id": "me"}, "text": "\ud800"}},
    ]
    await sb.raw_updates(poison)
    await sb.wait_for(lambda: _drained(sb), timeout=20)
    sent = await sb.send(game.chat_id, game.players[0].id, "/help")
    assert sent["delivered"]

    async def replied() -> bool:
        return any(m["message_id"] > sent["message_id"]
                   for m in await sb.bot_messages(game.chat_id))

    await sb.wait_for(replied, timeout=15)


async def _none_unanswered(sb) -> bool:
    return all(a["answer_calls"] for a in await sb.answers())


async def _drained(sb) -> bool:
    return not await sb.updates()

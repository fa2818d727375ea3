"""Telegram misbehaving after the fact: settlements exactly once, press answers true.

Real Telegram can post a message (edit it, record a callback answer) and still answer the bot
with a 5xx, or so late that the bot's read timeout fires. The bot cannot tell such a call from
one that failed; these tests prove that whatever it does about it, a player sees every settled
coup's result exactly once, never a lost one, and never a false "something went wrong" for a
press that did move the table. A crash right after the settling press and a kick from the group
mid-coup are the same question asked harder.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from harness import (
    DEFAULT,
    INTERNAL_ERROR,
    POLICIES,
    BotProcess,
    Game,
    Player,
    answered_badly,
    balances,
    chips,
    decode_action,
    phase_of,
    settled_coups,
    synced_now,
)

# past the bot's read timeout (python-telegram-bot's default is 5 s)
SLOW = 6.0


async def open_table(game: Game, name: str) -> None:
    """The group, DMs, /newtable, everybody joins, the first player starts."""
    await game.setup()
    await game.enable_dms()
    await game.command(game.players[0], f"/newtable {name}")
    for p in game.players:
        await game.step(p, ["join"])
    await game.step(game.players[0], ["start"])


def prefer(game_name: str, message: dict[str, Any]) -> list[str]:
    """The harness's play policy for the phase on the table message."""
    policy = POLICIES.get(game_name, {})
    return list(policy.get(phase_of(message), policy.get("", DEFAULT)))


class Injector:
    """Before some presses, arms one fault that lets the next call take effect and then
    answers 502 or too late; seeded, so a failure replays."""

    def __init__(self, seed: int, slow_budget: int) -> None:
        self.rng = random.Random(seed)
        self.slow_budget = slow_budget
        self.armed: list[tuple[str, str]] = []

    async def maybe(self, game: Game) -> None:
        """Arm a fault with probability 0.4."""
        if self.rng.random() >= 0.4:
            return
        method = self.rng.choice(["sendMessage", "editMessageText", "answerCallbackQuery"])
        chat = None if method == "answerCallbackQuery" else game.chat_id
        if self.slow_budget > 0 and self.rng.random() < 0.3:
            self.slow_budget -= 1
            await game.sb.fail(method, delay=SLOW, after=True, chat_id=chat)
            self.armed.append((method, "slow"))
        else:
            await game.sb.fail(method, 502, "Bad Gateway", after=True, chat_id=chat)
            self.armed.append((method, "502"))


async def play_coup(game: Game, name: str, faults: Injector,
                    committed: list[tuple[str, dict[str, Any]]]) -> None:
    """Play one coup to its settlement, a fault armed before some presses; every press that
    moved the table is kept with its answer."""
    before = len(await game.settlements())
    for _ in range(80):
        if len(await game.settlements()) > before:
            return
        message = await game.synced()
        if len(await game.settlements()) > before:
            return
        awaited = game.awaited(message)
        if not awaited:
            await asyncio.sleep(0.1)
            continue
        await faults.maybe(game)
        kind, answer = await game.step(awaited[0], prefer(name, message))
        committed.append((kind, answer))
    raise AssertionError(f"{name}: the coup did not settle")


async def test_settlements_exactly_once_and_true_answers_under_late_and_failed_calls(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60)
    bot_factory.append(bot)
    bot.start()
    tables = [
        (Game(sb, bot, -3101, [Player(311, "Ann"), Player(312, "Bob"), Player(313, "Cid"),
                               Player(314, "Dee")]), "twenty_one"),
        (Game(sb, bot, -3102, [Player(321, "Eve"), Player(322, "Fay"), Player(323, "Gus")]),
         "chemin_de_fer"),
    ]
    for game, name in tables:
        await open_table(game, name)
    faults = Injector(seed=3101, slow_budget=4)
    committed: list[tuple[str, dict[str, Any]]] = []
    played = {game.chat_id: 0 for game, _ in tables}
    for coup in range(2):
        for game, name in tables:
            # the settlement itself posted and answered 502 (first coup) or too late (second)
            if coup == 0:
                await sb.fail("*", 502, "Bad Gateway", after=True, text="settled",
                              chat_id=game.chat_id)
            else:
                await sb.fail("*", delay=SLOW, after=True, text="settled", chat_id=game.chat_id)
            await play_coup(game, name, faults, committed)
            played[game.chat_id] += 1
    assert faults.armed, "the seed armed no fault"

    # let the late answers and whatever the bot does about them run out
    await sb.clear_faults()
    await asyncio.sleep(SLOW + 1)
    for game, _ in tables:
        await game.synced()
        counts = await settled_coups(sb, game.chat_id)
        assert len(counts) == played[game.chat_id], (game.chat_id, counts)
        assert all(n == 1 for n in counts.values()), (
            f"chat {game.chat_id}: settlement shown more than once {counts}")
    false_errors = [(kind, a["text"]) for kind, a in committed if a["text"] in INTERNAL_ERROR]
    assert not false_errors, f"committed presses answered 'something went wrong': {false_errors}"
    assert_answered_once(await answered_badly(sb, retried=True))
    held, issued = chips(bot)
    assert held == issued
    print(f"\nfaults armed: {faults.armed}; presses committed: {len(committed)}")


async def _taken(sb) -> bool:
    return not await sb.faults()


async def play_until_fault_taken(game: Game, name: str) -> None:
    """Play until the armed fault caught its call (the settlement); stop there."""
    sb = game.sb
    for _ in range(80):

        async def next_move() -> Any:
            if await _taken(sb):
                return "taken"
            return await synced_now(game)

        found = await sb.wait_for(next_move, timeout=20)
        if found == "taken":
            return
        awaited = game.awaited(found)
        if not awaited:
            await asyncio.sleep(0.1)
            continue
        await game.step(awaited[0], prefer(name, found))
    raise AssertionError("the settlement was never sent")


async def test_a_crash_right_after_the_settling_press_announces_the_settlement_once(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -3103, [Player(331, "Hal"), Player(332, "Ida"), Player(333, "Jon")])
    await open_table(game, "twenty_one")

    # 1: the settlement's call hangs and never takes effect; the bot dies waiting for it
    # 2: the settlement is posted, its answer never comes back; the bot dies waiting for it
    for kill, after in enumerate((False, True), start=1):
        await sb.fail("*", 502, "Bad Gateway", delay=30, after=after, text="settled",
                      chat_id=game.chat_id)
        await play_until_fault_taken(game, "twenty_one")
        game.bot.kill()
        await sb.clear_faults()
        restarted = BotProcess(handle.url, tmp_path / "data", timeout=60)
        bot_factory.append(restarted)
        restarted.start()
        game.bot = restarted

        async def announced(kill: int = kill) -> dict[int, int] | None:
            counts = await settled_coups(sb, game.chat_id)
            return counts if len(counts) >= kill else None

        try:
            await sb.wait_for(announced, timeout=20)
        except TimeoutError:
            raise AssertionError(f"kill {kill}: the settlement was lost in the crash "
                                 f"{await settled_coups(sb, game.chat_id)}") from None
        await game.synced()
        await asyncio.sleep(1.5)  # a duplicate would come now
        counts = await settled_coups(sb, game.chat_id)
        assert len(counts) == kill and all(n == 1 for n in counts.values()), (kill, counts)

    assert_answered_once(await answered_badly(sb, retried=True))
    held, issued = chips(game.bot)
    assert held == issued


async def test_kicked_mid_coup_the_table_waits_and_resumes_when_added_back(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    timeout = 2.0
    bot = BotProcess(handle.url, tmp_path / "data", timeout=timeout)
    bot_factory.append(bot)
    bot.start()
    game = Game(sb, bot, -3104, [Player(341, "Kim"), Player(342, "Lev"), Player(343, "Mia")])
    await open_table(game, "twenty_one")
    message = await game.synced()
    awaited = game.awaited(message)
    await game.step(awaited[0], prefer("twenty_one", message))
    message = await game.synced()
    assert game.awaited(message), message["text"]

    await sb.remove_bot(game.chat_id, game.players[0].id, kicked=True)
    await sb.wait_for(lambda: _no_updates(sb), timeout=10)
    version = bot.db_table(game.chat_id)[2]
    money = balances(bot)
    # a press on the old table message while the bot is out: answered, nothing moves
    awaited = game.awaited(message)
    data = next(d for _, d in sb.buttons(message) if d and d.startswith("a|"))
    press = await sb.press(game.chat_id, message["message_id"], awaited[0].id, data, wait=5)
    assert press["answered"]
    await asyncio.sleep(timeout * 2.5)  # every deadline of the table would have passed
    assert bot.db_table(game.chat_id)[2] == version, "the table moved while the bot was out"
    assert balances(bot) == money
    assert "Traceback" not in bot.log_text()

    await sb.add_bot(game.chat_id, game.players[0].id)

    async def resumed() -> dict[str, Any] | None:
        return next((m for m in await sb.bot_messages(game.chat_id)
                     if m["text"] == "▶️ The table resumes."), None)

    line = await sb.wait_for(resumed, timeout=10)
    table = await game.synced()
    assert table["message_id"] > line["message_id"], "the table message is posted again"
    await game.play_until_settled({}, DEFAULT)
    counts = await settled_coups(sb, game.chat_id)
    assert counts == {max(counts): 1}
    assert_answered_once(await answered_badly(sb, retried=True))
    held, issued = chips(bot)
    assert held == issued


async def test_a_press_whose_answer_meets_a_502_still_gets_its_pop_up(
    sandbox, bot_factory, tmp_path: Path
) -> None:
    handle, sb = sandbox
    bot = BotProcess(handle.url, tmp_path / "data", timeout=60)
    bot_factory.append(bot)
    bot.start()
    ann, bob, cid = Player(351, "Ann"), Player(352, "Bob"), Player(353, "Cid")
    game = Game(sb, bot, -3105, [ann, bob, cid])
    await game.setup()
    await game.enable_dms()
    await game.command(ann, "/newtable twenty_one")
    message = await game.synced()
    join = next(d for t, d in sb.buttons(message) if d and decode_action(d)
                and decode_action(d)[2] == "join")

    # Ann's answer is refused with a 502 before it arrives; Bob's arrives, then its reply
    # is a 502 (Telegram cannot say which happened); Cid's reply comes too late
    cases = ((ann, {"after": False}), (bob, {"after": True}),
             (cid, {"after": True, "delay": SLOW, "error_code": None}))
    for player, fault in cases:
        await sb.fail("answerCallbackQuery", **{"error_code": 502, "description": "Bad Gateway",
                                                **fault})
        pressed = await sb.press(game.chat_id, message["message_id"], player.id, join, wait=0)
        got = await sb.answer(pressed["callback_query_id"], wait=15)
        assert got["answered"], f"{player.name} got no pop-up"
        assert (got["text"], got["show_alert"]) == ("🪑 You sit down with 1000", False), got

    async def calls() -> list[int] | None:  # Bob's and Cid's answers were sent once more
        got = [a["answer_calls"] for a in await sb.answers()]
        return got if got == [1, 2, 2] else None

    await sb.wait_for(calls, timeout=SLOW + 5)
    assert not await sb.faults()


def assert_answered_once(bad: list[dict[str, Any]]) -> None:
    """Every press answered exactly once: the list of the others is empty."""
    assert not bad, "presses not answered exactly once (button, answer calls, answer): " + str(
        [(a["data"][:1], a["answer_calls"], a["text"]) for a in bad])


async def _no_updates(sb) -> bool:
    return not await sb.updates()

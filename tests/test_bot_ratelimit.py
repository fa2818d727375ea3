"""The bot's own flood control: groups' windows, the overall message cap, callback answers,
and a stop that no held message delays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from telegram import Update
from telegram.error import RetryAfter, TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes, TypeHandler

from bot.app import build_application
from bot.config import Settings
from bot.outbox.ratelimit import OVERALL_PER_SECOND, STOPPING_WAIT, GroupWindowLimiter, Stopping
from bot.workers.shared_ratelimit import SharedAdmission


async def test_a_callback_answer_never_waits_behind_the_overall_message_cap() -> None:
    limiter = GroupWindowLimiter(20, 60.0)
    done: list[str] = []

    async def call(name: str) -> bool:
        done.append(name)
        return True

    async def request(endpoint: str, chat_id: int | None, name: str) -> Any:
        data = {"chat_id": chat_id} if chat_id is not None else {"callback_query_id": "1"}
        return await limiter.process_request(call, (name,), {}, endpoint, data, None)

    # twice the overall cap of direct messages: the second half must wait for the next second
    sends = [asyncio.create_task(request("sendMessage", 1000 + i, f"dm{i}"))
             for i in range(2 * OVERALL_PER_SECOND)]
    await asyncio.sleep(0)
    answer = asyncio.create_task(request("answerCallbackQuery", None, "answer"))
    await answer
    assert "answer" in done
    assert done.index("answer") <= OVERALL_PER_SECOND  # ahead of the queued messages
    await asyncio.gather(*sends)
    assert len(done) == 2 * OVERALL_PER_SECOND + 1


async def test_no_group_window_ever_holds_more_than_its_limit() -> None:
    limiter = GroupWindowLimiter(3, 0.5)
    times: list[float] = []
    loop = asyncio.get_running_loop()

    async def call() -> bool:
        times.append(loop.time())
        return True

    await asyncio.gather(*(limiter.process_request(call, (), {}, "editMessageText",
                                                   {"chat_id": -5}, None) for _ in range(7)))
    assert len(times) == 7
    # any 4 consecutive group messages span at least the window
    assert all(times[i + 3] - times[i] >= 0.5 for i in range(len(times) - 3))


async def test_the_overall_message_cap_can_be_lifted() -> None:
    async def call() -> bool:
        return True

    async def burst(limiter: GroupWindowLimiter) -> float:
        t0 = time.monotonic()
        await asyncio.gather(*(limiter.process_request(call, (), {}, "sendMessage",
                                                       {"chat_id": 1000 + i}, None)
                               for i in range(3 * OVERALL_PER_SECOND)))
        return time.monotonic() - t0

    # capped, three seconds' worth of direct messages take about two seconds more
    assert await burst(GroupWindowLimiter(20, 60.0)) > 1.5
    assert await burst(GroupWindowLimiter(20, 60.0, overall_per_second=0)) < 0.2


async def test_stopping_ends_every_wait_for_a_turn_but_never_a_call_under_way() -> None:
    limiter = GroupWindowLimiter(1, 60.0)
    loop = asyncio.get_running_loop()
    refused, in_call, finish = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def call(name: str) -> bool:
        if name == "busy":  # Telegram asks this one to wait half a minute
            refused.set()
            raise RetryAfter(30)
        if name == "slow":
            in_call.set()
            await finish.wait()
        return True

    async def request(endpoint: str, chat_id: int, name: str) -> str:
        try:
            await limiter.process_request(call, (name,), {}, endpoint, {"chat_id": chat_id}, None)
        except Stopping as exc:
            return str(exc)
        return f"{name} sent"

    assert await request("sendMessage", -5, "first") == "first sent"  # -5's window is full
    slow = asyncio.create_task(request("sendMessage", -6, "slow"))
    await in_call.wait()
    held = [asyncio.create_task(request("sendMessage", -5, "next")),  # the window
            asyncio.create_task(request("editMessageText", -5, "behind")),  # -5's lock
            asyncio.create_task(request("sendMessage", 1001, "busy"))]  # the 429's pause
    await refused.wait()
    started = loop.time()
    limiter.stop()
    assert await asyncio.wait_for(asyncio.gather(*held), 5) == [
        "sendMessage not sent: the bot is stopping",
        "editMessageText not sent: the bot is stopping",
        "sendMessage not sent: the bot is stopping"]
    assert loop.time() - started < STOPPING_WAIT + 0.5
    # made after the stop: one with room goes, one that would wait fails as soon
    assert await request("sendMessage", 1002, "late") == "late sent"
    started = loop.time()
    assert await request("sendMessage", -5, "too late") == (
        "sendMessage not sent: the bot is stopping")
    assert loop.time() - started < STOPPING_WAIT + 0.5
    # the call under way when the stop came was left alone
    assert not slow.done()
    finish.set()
    assert await asyncio.wait_for(slow, 5) == "slow sent"


class FullBudget:
    """The workers' shared count, with no room in any window for the next half minute."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def take(self, group: int, token: int) -> tuple[float, list[float]]:
        self.asked.set()
        return 30.0, []

    async def done(self, group: int, token: int) -> None:
        raise AssertionError("nothing was taken")


async def test_stopping_ends_a_wait_for_the_workers_shared_count() -> None:
    budget = FullBudget()
    limiter = GroupWindowLimiter(20, 60.0, admission=SharedAdmission(budget, 30))

    async def call() -> bool:
        raise AssertionError("no room: never called")

    waiting = asyncio.create_task(limiter.process_request(call, (), {}, "sendMessage",
                                                          {"chat_id": -5}, None))
    await asyncio.wait_for(budget.asked.wait(), 5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    limiter.stop()
    with pytest.raises(Stopping) as stopped:
        await asyncio.wait_for(waiting, 5)
    assert loop.time() - started < STOPPING_WAIT + 0.5
    assert str(stopped.value) == "sendMessage not sent: the bot is stopping"


GROUP_ID = -5
GROUP = {"id": GROUP_ID, "type": "supergroup", "title": "Table"}


@pytest.fixture
async def telegram() -> AsyncIterator[tuple[str, list[str]]]:
    """A Telegram that answers getMe and every sendMessage at once; the texts it got."""
    texts: list[str] = []

    async def method(request: web.Request) -> web.Response:
        name = request.match_info["method"]
        if name == "getMe":
            return web.json_response({"ok": True, "result": {
                "id": 1, "is_bot": True, "first_name": "Banco", "username": "banco_bot"}})
        assert name == "sendMessage", name
        texts.append((await request.json())["text"])
        return web.json_response({"ok": True, "result": {
            "message_id": len(texts), "date": 1_700_000_000, "chat": GROUP,
            "text": texts[-1]}})

    server = web.Application()
    server.router.add_post("/bot{token}/{method}", method)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/bot", texts
    await runner.cleanup()


async def test_the_application_stops_at_once_though_a_handler_waits_for_a_full_group_window(
    telegram: tuple[str, list[str]], tmp_path: Path,
) -> None:
    url, texts = telegram
    # one group message a minute: a handler's second reply waits most of a minute for it
    settings = Settings(_env_file=None, data_dir=tmp_path, group_messages_per_minute=1)
    app = build_application(settings, "1:x", url)
    first_sent = asyncio.Event()
    outcomes: list[str] = []

    async def reply_twice(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        for n in (1, 2):
            try:
                await context.bot.send_message(GROUP_ID, f"reply {n}")
                outcomes.append(f"reply {n} sent")
            except TelegramError as exc:
                outcomes.append(f"reply {n}: {exc}")
            first_sent.set()
        raise ApplicationHandlerStop  # the bot's own handlers need post_init's services

    app.add_handler(TypeHandler(Update, reply_twice), group=-2)  # before every handler
    await app.initialize()  # no post_init: nothing but the bot and its handlers
    await app.start()
    await app.update_queue.put(Update.de_json({"update_id": 1, "message": {
        "message_id": 3, "date": 1_700_000_000, "chat": GROUP, "text": "hello",
        "from": {"id": 7, "is_bot": False, "first_name": "Ann"}}}, app.bot))
    await asyncio.wait_for(first_sent.wait(), 5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    stop = asyncio.create_task(app.stop())  # as SIGTERM: PTB waits for the handler
    try:
        done, _ = await asyncio.wait({stop}, timeout=5)
        took = loop.time() - started
        assert done == {stop}, "the stop waited for the group's window"
        assert took < STOPPING_WAIT + 1.0
        assert outcomes == ["reply 1 sent", "reply 2: sendMessage not sent: the bot is stopping"]
        assert texts == ["reply 1"]
    finally:
        stop.cancel()
        await app.shutdown()


async def test_room_leaves_out_the_messages_already_on_their_way() -> None:
    limiter = GroupWindowLimiter(3, 60.0)
    gate = asyncio.Event()

    async def slow() -> bool:
        await gate.wait()
        return True

    sending = asyncio.create_task(limiter.process_request(
        slow, (), {}, "sendMessage", {"chat_id": -5}, None))
    for _ in range(100):  # until it is on its way
        if limiter.room(-5) < 3:
            break
        await asyncio.sleep(0)
    # not counted by the window yet (it counts what Telegram has answered), but on its way
    assert (limiter.spare(-5), limiter.room(-5)) == (3, 2)
    gate.set()
    assert await sending is True
    assert (limiter.spare(-5), limiter.room(-5)) == (2, 2)


async def test_a_group_window_frees_a_message_once_it_is_a_period_old() -> None:
    limiter = GroupWindowLimiter(3, 2.0)

    async def call() -> bool:
        return True

    for _ in range(2):
        await limiter.process_request(call, (), {}, "sendMessage", {"chat_id": -5}, None)
    assert limiter.spare(-5) == 1
    await asyncio.sleep(2.05)  # both are older than the window's period now
    assert limiter.spare(-5) == 3
    await limiter.process_request(call, (), {}, "sendMessage", {"chat_id": -5}, None)
    assert (limiter.spare(-5), len(limiter.windows.of(-5).times)) == (2, 1)


@pytest.mark.parametrize("counted", [True, False])
async def test_a_message_one_member_sees_counts_in_the_group_window_unless_set_otherwise(
        counted: bool) -> None:
    limiter = GroupWindowLimiter(20, 60.0)
    limiter.ephemeral_in_budget = counted  # EPHEMERAL_IN_GROUP_BUDGET

    async def call() -> bool:
        return True

    await limiter.process_request(call, (), {}, "sendMessage",
                                  {"chat_id": -5, "receiver_user_id": 7, "text": "x"}, None)
    await limiter.process_request(call, (), {}, "editEphemeralMessageText",
                                  {"chat_id": -5, "receiver_user_id": 7,
                                   "ephemeral_message_id": 1, "text": "y"}, None)
    assert limiter.spare(-5) == (18 if counted else 20)
    await limiter.process_request(call, (), {}, "sendMessage", {"chat_id": -5, "text": "z"},
                                  None)  # a message the whole group sees: always counted
    assert limiter.spare(-5) == (17 if counted else 19)

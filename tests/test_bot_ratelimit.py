"""The bot's own flood control: groups' windows, the overall message cap, callback answers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.ratelimit import OVERALL_PER_SECOND, GroupWindowLimiter


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

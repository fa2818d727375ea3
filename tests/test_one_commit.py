"""A press, a timeout and an app action each commit the table once (issue 32, "Presence is
data"): what the channels do after it (the group's table message posted or edited, the next
player's private prompt delivered, his open page showing his turn) appends facts of presence
and starts his clock from them, and writes the table no more.

The real host in-process on a real SQLite file that counts its table writes (every write
of a table's row: a step, a change of its record, an open, a close), with a recording
Telegram; the app's pages are aiohttp WebSocket clients (the pattern of
tests/test_webapp_server.py)."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    RecordingBot,
    hosted_on,
    make_host,
    press,
    private_keyboard,
    seat_three,
)
from test_webapp_server import (  # noqa: F401 (served is a fixture)
    init_data,
    link,
    open_page,
    post,
    seated_coup,
    served,
)

from storage.sqlite import SqliteStorage


def counting(method: str, kind: str) -> Any:
    """``method`` of the real storage, its calls counted as ``kind``."""
    async def write(self: Counted, **kwargs: Any) -> Any:
        self.writes.append(kind)
        return await getattr(SqliteStorage, method)(self, **kwargs)
    return write


class Counted(SqliteStorage):
    """The real SQLite storage, counting its writes of a table's row by kind."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writes: list[str] = []

    commit_step = counting("commit_step", "step")
    update_meta = counting("update_meta", "record")
    create_table = counting("create_table", "open")
    close_table = counting("close_table", "close")


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every host of these tests keeps its tables in a :class:`Counted` storage, and deals
    from the same shoe every run."""
    hosted_on(monkeypatch, Counted)


async def shown_to(host: Any) -> tuple[int, set[tuple[int, str]], float | None]:
    """The decision under way, where its turns were shown (player, channel), and its
    deadline as its clock runs (None: not started)."""
    table = await host.tables.load(CHAT)
    decision = table.meta.decision
    facts = await host.storage.presence(chat_id=CHAT, decision=decision)
    return (decision, {(f.player, f.channel) for f in facts},
            (await host.tables.clock.started(table)).due)


async def anns_stake_is_next(host: Any, bot: RecordingBot) -> None:
    """Twenty-one with Ann, Bob and Cid seated, started and cut: Ann's stake is awaited."""
    await seat_three(host, bot)
    assert await press(host, bot, ANN, ["start"]) == "▶️ Start · now Bob"
    assert await press(host, bot, BOB, ["cut"]) == "✂️ Cut · now Ann"


async def test_a_group_press_that_gives_the_next_player_his_turn_commits_once(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await anns_stake_is_next(host, bot)
    storage: Counted = host.storage
    storage.writes.clear()
    before = time.time()
    assert await press(host, bot, ANN, ["stake"]) == "Stake · now Bob"  # drains the courier
    # Bob's turn reached him: his private prompt with his stakes, and the group's card
    assert {b.kind for b in private_keyboard(bot, BOB)} >= {"stake", "pass"}
    decision, shown, due = await shown_to(host)
    assert shown == {(BOB, "group"), (BOB, "prompt")}
    # his clock runs from then, scheduled, with no commit of its own
    assert due is not None and before + 60 <= due <= time.time() + 60
    assert host.tables.clock.deadlines.pending(CHAT)
    assert storage.writes == ["step"]
    # the table's next commit keeps the clock and the delivered prompt in its record
    assert await press(host, bot, BOB, ["stake"]) == "Stake · now Ann"
    table = await host.tables.load(CHAT)
    assert storage.writes == ["step", "step"] and table.meta.decision != decision


async def test_a_timeout_commits_once(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await anns_stake_is_next(host, bot)
    storage: Counted = host.storage
    decision, shown, due = await shown_to(host)
    assert shown == {(ANN, "group"), (ANN, "prompt")} and due is not None
    storage.writes.clear()
    clock = host.tables.clock
    table = await host.tables.load(CHAT)
    clock.now = lambda: time.time() + 61  # Ann's time has run out
    await clock.on_deadline(CHAT, table.state.version)
    clock.now = time.time
    await host.idle()
    # Ann's stake timed out (she passes); Bob has his turn, his prompt and his clock
    table = await host.tables.load(CHAT)
    assert table.engine.awaiting(table.state) == [BOB] and table.meta.decision != decision
    assert {b.kind for b in private_keyboard(bot, BOB)} >= {"stake", "pass"}
    _, shown, due = await shown_to(host)
    assert shown == {(BOB, "group"), (BOB, "prompt")} and due is not None
    assert storage.writes == ["step"]


async def test_an_app_action_commits_once(served: Any) -> None:  # noqa: F811
    host, bot, _, url = served
    await seated_coup(host, bot)  # chemin de fer, Ann, Bob and Cid seated
    storage: Counted = host.storage
    async with aiohttp.ClientSession() as session:
        pages = {p: await open_page(session, url, init_data(p, param=link()))
                 for p in (ANN, BOB, CID)}
        ann = (await pages[ANN].next())
        for player in (BOB, CID):
            await pages[player].next()
        await host.idle()
        body = {"kind": "start", "coup": ann["table"]["coup"], "decision": ann["decision"],
                "key": "one-commit-0001"}
        storage.writes.clear()
        before = time.time()
        code, answer = await post(session, url, init_data(ANN, param=link()), body)
        assert (code, answer["ok"]) == (200, True), answer
        version = answer["snapshot"]["version"]
        awaited = answer["snapshot"]["table"]["awaiting"]
        assert awaited != []
        # every page follows: each awaited player's page shows him his turn
        for page in pages.values():
            frame = await page.next(lambda f: f.get("version", 0) >= version)
            assert frame["table"]["awaiting"] == awaited
        await host.idle()
        _, shown, due = await shown_to(host)
        assert {(p, "page") for p in awaited} <= shown
        assert due is not None and before + 60 <= due <= time.time() + 60
        assert host.tables.clock.deadlines.pending(CHAT)
        assert storage.writes == ["step"]
        for page in pages.values():
            await page.ws.close()


async def test_a_clock_started_from_the_facts_runs_on_after_a_restart(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await anns_stake_is_next(host, bot)
    _, shown, due = await shown_to(host)
    table = await host.tables.load(CHAT)
    # her clock runs from the facts alone: the record has no deadline yet
    assert shown == {(ANN, "group"), (ANN, "prompt")} and due is not None
    assert table.meta.due is None and table.rec.deadline is None
    await host.courier.stop(1)
    host.tables.clock.deadlines.stop()
    # a restart a moment later (no downtime to give back): the facts are read again
    again = await make_host(bot)
    assert await again.lifecycle.resume_all() == 1
    assert again.tables.clock.deadlines.pending(CHAT)
    assert await again.tables.clock.due(await again.tables.load(CHAT)) == due
    # her prompt, delivered before the restart, is kept open by the next commit
    assert await press(again, bot, ANN, ["stake"]) == "Stake · now Bob"
    assert [m.markup for m in bot.chat(ANN)][-1] is None  # it lost its buttons

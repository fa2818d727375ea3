"""A step's plan (:mod:`bot.table.plan`) is worked out apart from its commit: working it out
writes nothing, and the commit writes the plan, all of it and nothing else."""

from __future__ import annotations

from typing import Any

from test_bot_tables import ANN, BOB, CHAT, CID, NAMES, RecordingBot, make_host  # noqa: F401

from bot.table.plan import Cause, plan
from games.engine import Join, parse_action


async def test_a_steps_plan_writes_nothing_and_its_commit_writes_exactly_the_plan(
        make_host: Any) -> None:  # noqa: F811
    host = await make_host(RecordingBot(), deliver=False)  # what is written stays written
    tables = host.tables
    tables.clock.now = lambda: 1_000_000.0  # the plan's time and the commit's: the same
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    for player in (ANN, BOB, CID):
        table = await tables.load(CHAT)
        await tables.commit(table, table.engine.apply(
            table.state, player, Join(name=NAMES[player], buy_in=1000)), actor=player)
    table = await tables.load(CHAT)
    step = table.engine.apply(table.state, ANN, parse_action(table.engine, {"kind": "start"}))
    before = await host.storage.pending_outbox()
    planned = await plan(tables.clock, tables.languages, table, step,
                         table.meta.model_copy(), (), Cause(actor=ANN, action="start"))
    stored = await host.storage.load_table(chat_id=CHAT)
    assert (stored.version, stored.rev) == (table.state.version, table.rec.rev)
    assert await host.storage.pending_outbox() == before
    # the cutter's turn prompt (the banker drawn for is the shoe's; the group's table
    # message is the courier's)
    cutter = table.engine.awaiting(step.state)
    assert step.state.phase == "cut" and len(cutter) == 1
    assert [(d.kind, d.target, d.payload["turn"]) for d in planned.drafts] == [
        ("dm", cutter[0], step.state.version)]
    meta = await tables.commit(table, step, actor=ANN, action="start")
    written = (await host.storage.pending_outbox())[len(before):]
    assert [(w.kind, w.target, w.payload) for w in written] == [
        (d.kind, d.target, d.payload) for d in planned.drafts]
    assert meta == planned.meta and meta.decision == step.state.version
    committed = await tables.load(CHAT)
    assert (committed.rec.deadline, committed.state) == (planned.deadline, step.state)

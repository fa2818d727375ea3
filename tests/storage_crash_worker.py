"""Drive a storage backend through table steps until killed; used by test_storage_crash.py.

Usage: ``python tests/storage_crash_worker.py STORAGE_URL SEED``, where the URL
is what :func:`storage.factory.open_storage` takes (a SQLite path, or
``postgresql://...?schema=name``). Resumes the table from its last committed
snapshot, prints ``ready``, then commits random steps (buy-ins, stakes,
settlements, cash-outs) as fast as it can. The snapshot carries the table
accounts the worker believes in, so the test can check that snapshot and
balances always committed together.

Every step also writes one outbox draft naming the version it commits, and
between steps the worker "delivers" the oldest pending items the way the bot's
sender does (count the attempt, send, finish), recording the version it
announced as the message id: the test checks that each committed version has
exactly one outbox row, pending or sent, however the kills fell.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys

from storage_backends import BONUS, GRANT, apply_net, random_transfers

from storage.base import OutboxDraft, TableNotFound
from storage.factory import open_storage

CHAT = -42
PLAYERS = [1, 2, 3, 4]


async def main(url: str, seed: int) -> None:
    storage = open_storage(url, starting_grant=GRANT, daily_bonus=BONUS)
    await storage.open()
    try:
        await storage.load_table(chat_id=CHAT)
    except TableNotFound:
        await storage.create_table(chat_id=CHAT, game="crash", settings={},
                                   state_json=json.dumps({"accounts": {}}), version=0)
    rng = random.Random(seed)
    print("ready", flush=True)
    while True:
        if rng.random() < 0.5:
            # Delivered in id order, a few at a time: the backlog stays short but never empty
            # for long, so kills fall before, between and after the sends.
            for item in await storage.pending_outbox(chat_id=CHAT, limit=rng.randint(1, 4)):
                await storage.outbox_attempt(item_id=item.id)
                await storage.finish_outbox(item_id=item.id, message_id=item.payload["version"])
        rec = await storage.load_table(chat_id=CHAT)
        table: dict[str, int] = json.loads(rec.state_json)["accounts"]
        wallets = {p: (await storage.wallet(chat_id=CHAT, user_id=p)).balance for p in PLAYERS}
        transfers = random_transfers(rng, wallets, table)
        accounts = dict(table)
        apply_net(accounts, transfers)
        state = {"accounts": {a: v for a, v in accounts.items() if not a.startswith("wallet:")}}
        version = rec.version + 1
        await storage.commit_step(chat_id=CHAT, expected_version=rec.version,
                                  state_json=json.dumps(state, sort_keys=True),
                                  version=version, transfers=transfers, coup=version,
                                  deadline=None, expected_rev=rec.rev,
                                  outbox=[OutboxDraft(kind="group", target=CHAT,
                                                      payload={"version": version})])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))

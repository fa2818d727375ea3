"""Drive :class:`SqliteStorage` through table steps until killed; used by test_storage_crash.py.

Usage: ``python tests/storage_crash_worker.py DB_PATH SEED``. Resumes the table
from its last committed snapshot, prints ``ready``, then commits random steps
(buy-ins, stakes, settlements, cash-outs) as fast as it can. The snapshot
carries the table accounts the worker believes in, so the test can check that
snapshot and balances always committed together.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys

from storage_backends import BONUS, GRANT, apply_net, random_transfers

from storage.base import TableNotFound
from storage.sqlite import SqliteStorage

CHAT = -42
PLAYERS = [1, 2, 3, 4]


async def main(path: str, seed: int) -> None:
    storage = SqliteStorage(path, starting_grant=GRANT, daily_bonus=BONUS)
    await storage.open()
    try:
        await storage.load_table(chat_id=CHAT)
    except TableNotFound:
        await storage.create_table(chat_id=CHAT, game="crash", settings={},
                                   state_json=json.dumps({"accounts": {}}), version=0)
    rng = random.Random(seed)
    print("ready", flush=True)
    while True:
        rec = await storage.load_table(chat_id=CHAT)
        table: dict[str, int] = json.loads(rec.state_json)["accounts"]
        wallets = {p: (await storage.wallet(chat_id=CHAT, user_id=p)).balance for p in PLAYERS}
        transfers = random_transfers(rng, wallets, table)
        accounts = dict(table)
        apply_net(accounts, transfers)
        state = {"accounts": {a: v for a, v in accounts.items() if not a.startswith("wallet:")}}
        await storage.commit_step(chat_id=CHAT, expected_version=rec.version,
                                  state_json=json.dumps(state, sort_keys=True),
                                  version=rec.version + 1, transfers=transfers,
                                  coup=rec.version + 1, deadline=None)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))

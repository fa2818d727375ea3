"""Put first on a bot process's PYTHONPATH by an e2e test: with ``SHOE_SEED`` set, every
shoe the process shuffles comes from one ``random.Random(SHOE_SEED)`` instead of the
system's secure source (``games.cards.secure_rng``), so the run deals the same cards each
time. With ``STEP_DELAY`` set, each table step waits that many seconds before its commit (a
slow disk): a test that needs steps still uncommitted at some moment gets them. With
``HIGH_CARD`` set, the test-only seventh game (``tests/highcard.py``) is offered beside the
six, as a test registers it. Nothing else changes; without any of them this does nothing."""

import os

if os.environ.get("SHOE_SEED"):
    import random

    from games import cards

    _seeded = random.Random(os.environ["SHOE_SEED"])
    cards.secure_rng = lambda: _seeded

if os.environ.get("STEP_DELAY"):
    import asyncio
    from typing import Any

    from storage.sqlite import SqliteStorage

    _commit_step = SqliteStorage.commit_step

    async def _slow_commit_step(self: SqliteStorage, **kwargs: Any) -> int:
        await asyncio.sleep(float(os.environ["STEP_DELAY"]))
        return await _commit_step(self, **kwargs)

    SqliteStorage.commit_step = _slow_commit_step  # type: ignore[method-assign]

if os.environ.get("HIGH_CARD"):  # the test-only seventh game (tests/highcard.py), offered
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/, for highcard

    import highcard  # type: ignore[import-not-found]

    from games import registry

    registry.register(highcard.ENGINE, "highcard")

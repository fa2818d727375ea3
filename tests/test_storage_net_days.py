"""A player's net day by day (the Mini App's chart) on SQLite and PostgreSQL alike: summed
over the coups of each UTC day, in one chat and game or all, oldest day first; and equal
after a rebuild from the recorded coups."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from profile_seed import ANN, BOB, CHAT, DAN, OTHER, day, seed
from storage_backends import BACKENDS, Backend, backend


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async with backend(request.param, tmp_path) as b:
        await seed(b.storage)
        yield b


async def test_a_players_net_day_by_day_in_his_chats_and_games(db: Backend) -> None:
    storage = db.storage
    ann = [(day(40), 50), (day(10), -120), (day(3), 70), (day(0), 10)]
    assert await storage.net_by_day(user_id=ANN) == ann
    assert await storage.net_by_day(user_id=ANN, chat_id=CHAT) == [
        (day(40), 50), (day(10), -20), (day(3), 70), (day(0), 10)]
    assert await storage.net_by_day(user_id=ANN, game="draw_poker") == [(day(3), 40)]
    assert await storage.net_by_day(user_id=ANN, chat_id=OTHER, game="chemin_de_fer") == [
        (day(10), -100)]
    assert await storage.net_by_day(user_id=BOB, chat_id=OTHER) == []
    assert await storage.net_by_day(user_id=DAN) == [(day(10), 100)]
    assert await storage.rebuild_stats() == 7
    assert await storage.net_by_day(user_id=ANN) == ann

"""Coups of two chats seeded through the real storage API (a table opened, steps that
settle coups committed, the table closed), for the Mini App's profile and standings pages.

The days are counted back from today (UTC), so that /top's periods split them the same way
every run: 40 days ago, 10, 3 and today.

Chat ``CHAT`` ("Casino Royale", chemin de fer then draw poker), Ann, Bob, Cid:

==========  ========================================  ======
day         nets                                      banker
==========  ========================================  ======
today-40    Ann +50 (a natural), Bob -50              Ann
today-10    Ann -20, Bob +20, Cid 0                   Ann
today-3     Ann +30, Bob -10, Cid -20                 Bob
today       Ann -5, Bob +5                            Bob
today       Ann +15, Cid -15                          Ann
today-3     draw poker: Ann +40 (two pair), Bob -40
==========  ========================================  ======

Chat ``OTHER`` ("Back Room", chemin de fer): today-10, Ann -100, Dan +100.
Ann was Casino Royale's champion of October 2026.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from storage.base import SettledCoup, Storage

CHAT, OTHER = -100, -200
ANN, BOB, CID, DAN = 1, 2, 3, 4
NAMES = {ANN: "Ann", BOB: "Bob", CID: "Cid", DAN: "Dan"}
TITLES = {CHAT: "Casino Royale", OTHER: "Back Room"}
OPENED = 1_700_000_000.5


def day(back: int) -> dt.date:
    """The UTC day ``back`` days before today."""
    return dt.datetime.now(dt.UTC).date() - dt.timedelta(days=back)


def at(back: int) -> float:
    """Midnight and a minute (UTC) of the day ``back`` days before today: whatever the
    hour the test runs, a coup of today is settled before now."""
    when = dt.datetime.combine(day(back), dt.time(0, 1), dt.UTC)
    return when.timestamp()


def coup(n: int, back: int, nets: dict[int, int], *, game: str = "chemin_de_fer",
         banker: int | None = None, hands: dict[int, dict[str, Any]] | None = None,
         feats: dict[int, tuple[str, ...]] | None = None) -> SettledCoup:
    return SettledCoup(game=game, coup=n, opened=OPENED, settled_at=at(back), banker=banker,
                       nets=nets, winners=tuple(u for u, v in nets.items() if v > 0),
                       hands=hands or {}, feats=feats or {})


async def played(storage: Storage, chat_id: int, game: str, *coups: SettledCoup) -> None:
    """A table of ``game`` opened in the chat, one step per coup settling it, closed."""
    await storage.create_table(chat_id=chat_id, game=game, settings={}, state_json="{}",
                               version=0)
    for version, settled in enumerate(coups):
        await storage.commit_step(chat_id=chat_id, expected_version=version, state_json="{}",
                                  version=version + 1, transfers=[], coup=settled.coup,
                                  deadline=None, settled=(settled,))
    await storage.close_table(chat_id=chat_id, expected_version=len(coups), transfers=[],
                              coup=coups[-1].coup)


async def seed(storage: Storage) -> None:
    """The coups, wallets, chat names and title above."""
    for chat_id, players in ((CHAT, (ANN, BOB, CID)), (OTHER, (ANN, DAN))):
        await storage.set_chat_title(chat_id=chat_id, title=TITLES[chat_id])
        for player in players:
            await storage.wallet(chat_id=chat_id, user_id=player, name=NAMES[player])
    await played(storage, CHAT, "chemin_de_fer",
                 coup(1, 40, {ANN: 50, BOB: -50}, banker=ANN, feats={ANN: ("natural",)}),
                 coup(2, 10, {ANN: -20, BOB: 20, CID: 0}, banker=ANN),
                 coup(3, 3, {ANN: 30, BOB: -10, CID: -20}, banker=BOB),
                 coup(4, 0, {ANN: -5, BOB: 5}, banker=BOB),
                 coup(5, 0, {ANN: 15, CID: -15}, banker=ANN))
    await played(storage, CHAT, "draw_poker",
                 coup(1, 3, {ANN: 40, BOB: -40}, game="draw_poker",
                      hands={ANN: {"category": "two_pair", "ranks": [12, 3]},
                             BOB: {"category": "pair", "ranks": [9]}}))
    await played(storage, OTHER, "chemin_de_fer", coup(1, 10, {ANN: -100, DAN: 100}))
    await storage.record_season(chat_id=CHAT, kind="month", first_day=dt.date(2026, 10, 1),
                                last_day=dt.date(2026, 10, 31), results={},
                                titles={"champion": ANN}, post=lambda season: [])

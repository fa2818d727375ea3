"""The storage interface the bot relies on; SQLite and PostgreSQL implement it.

Chips are never lost: every table step is one unit of work (the new state
snapshot, checked against the version it was computed from, the ledger rows
of its transfers, the updated balances) that commits whole or not at all.
Accounts follow :mod:`games.engine`: ``wallet:<user>`` is the player's wallet
in the chat; every other account (``stack:<user>``, ``stake:<user>``,
``bank``, ``pot``, ...) is held by the chat's table. The ``house`` account
issues grants and bonuses; it is the only one allowed below zero.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from games.engine import Transfer

HOUSE = "house"


class StorageError(Exception):
    """Base of every error the storage layer raises on purpose."""


class StaleVersion(StorageError):
    """The table changed since the state was loaded; nothing was written."""


class InsufficientFunds(StorageError):
    """A step would take an account below zero; nothing was written."""


class TableNotFound(StorageError):
    """No open table in that chat."""


class TableExists(StorageError):
    """The chat already has an open table."""


class BonusAlreadyClaimed(StorageError):
    """The daily bonus was already claimed today."""


class Wallet(BaseModel):
    """A player's chips in one chat: in the wallet and on the table."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    user_id: int
    name: str = ""
    balance: int
    on_table: int = 0


class TableRecord(BaseModel):
    """A chat's open table as stored: game, settings, engine state, host metadata."""

    model_config = ConfigDict(frozen=True)
    chat_id: int
    game: str
    settings: dict[str, Any] = Field(default_factory=dict)
    state_json: str
    version: int
    deadline: float | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class LedgerEntry(BaseModel):
    """One ledger row: ``delta`` chips on ``account`` in step ``step_id``."""

    model_config = ConfigDict(frozen=True)
    step_id: int
    chat_id: int
    coup: int
    account: str
    delta: int
    reason: str
    game: str = ""
    created_at: float


class Storage(Protocol):
    """What the bot needs from persistence. Every method is atomic."""

    async def open(self) -> None:
        """Connect and apply pending migrations."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...

    async def wallet(self, *, chat_id: int, user_id: int, name: str = "") -> Wallet:
        """The player's wallet, created with the starting grant on first use."""
        ...

    async def claim_daily_bonus(self, *, chat_id: int, user_id: int, today: dt.date) -> Wallet:
        """Credit the daily bonus once per day; raises :class:`BonusAlreadyClaimed`."""
        ...

    async def create_table(self, *, chat_id: int, game: str, settings: dict[str, Any],
                           state_json: str, version: int,
                           meta: dict[str, Any] | None = None) -> TableRecord:
        """Open a table; raises :class:`TableExists`."""
        ...

    async def load_table(self, *, chat_id: int) -> TableRecord:
        """The chat's open table; raises :class:`TableNotFound`."""
        ...

    async def open_tables(self) -> list[TableRecord]:
        """Every open table (resumed at start-up)."""
        ...

    async def commit_step(self, *, chat_id: int, expected_version: int, state_json: str,
                          version: int, transfers: Sequence[Transfer], coup: int,
                          deadline: float | None,
                          meta: dict[str, Any] | None = None) -> int:
        """One table step as one unit of work; returns the step id.

        Raises :class:`StaleVersion` if the stored version is not
        ``expected_version`` and :class:`InsufficientFunds` if an account would
        go negative; in both cases nothing is written. ``meta=None`` keeps the
        stored metadata.
        """
        ...

    async def update_meta(self, *, chat_id: int, meta: dict[str, Any]) -> None:
        """Replace the table's host metadata (message ids, language); no version check."""
        ...

    async def close_table(self, *, chat_id: int, expected_version: int,
                          transfers: Sequence[Transfer], coup: int) -> int:
        """Book the final transfers (every table chip back to wallets) and close the table.

        Refuses (``InsufficientFunds``) unless every table account ends at zero.
        """
        ...

    async def table_accounts(self, *, chat_id: int) -> dict[str, int]:
        """Non-zero balances of the chat's table accounts."""
        ...

    async def leaderboard(self, *, chat_id: int, limit: int = 10) -> list[Wallet]:
        """Richest players of the chat (wallet + on the table), richest first."""
        ...

    async def recent_coups(self, *, chat_id: int, user_id: int,
                           limit: int = 10) -> list[LedgerEntry]:
        """The player's latest ledger rows in the chat, newest first."""
        ...

    async def chat_language(self, *, chat_id: int) -> str | None:
        """The chat's chosen language, if any."""
        ...

    async def set_chat_language(self, *, chat_id: int, language: str) -> None:
        """Remember the chat's language."""
        ...

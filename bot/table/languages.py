"""Each chat's language: chosen with /language, at first the language of whoever spoke first."""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.view import i18n
from storage.base import Storage


class Languages:
    """The chat languages, read from storage and then kept: for good by one process, for
    ``fresh`` seconds when several workers share the database (another may change one)."""

    def __init__(self, storage: Storage, default: str, fresh: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.default = default
        self.known: dict[int, str] = {}
        self.unset: set[int] = set()  # players whose private chat has no language yet
        self.fresh = fresh
        self.clock = clock
        self.since = clock()

    def _expire(self) -> None:
        if self.fresh is not None and self.clock() - self.since >= self.fresh:
            self.known.clear()
            self.unset.clear()
            self.since = self.clock()

    async def of(self, chat_id: int, hint: str | None = None) -> str:
        """The chat's language; the first time, taken from ``hint`` (a language_code)."""
        self._expire()
        if chat_id in self.known:
            return self.known[chat_id]
        lang = await self.storage.chat_language(chat_id=chat_id)
        if lang is None:
            lang = i18n.lang_of(hint, self.default)
            if hint is not None:
                await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.known[chat_id] = lang
        return lang

    async def of_player(self, user_id: int, fallback: str) -> str:
        """The language a player reads his private messages in: his private chat's (set by
        /start or /language there), else ``fallback`` (the table's)."""
        self._expire()
        if user_id in self.known:
            return self.known[user_id]
        if user_id in self.unset:
            return fallback
        lang = await self.storage.chat_language(chat_id=user_id)
        if lang is None:
            self.unset.add(user_id)
            return fallback
        self.known[user_id] = lang
        return lang

    async def choose(self, chat_id: int, lang: str) -> None:
        """/language: remember the chat's choice."""
        await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.known[chat_id] = lang

"""Each chat's language: chosen with /language, at first the language of whoever spoke first."""

from __future__ import annotations

from bot import i18n
from storage.base import Storage


class Languages:
    """The chat languages, read once from storage and then kept."""

    def __init__(self, storage: Storage, default: str) -> None:
        self.storage = storage
        self.default = default
        self.known: dict[int, str] = {}

    async def of(self, chat_id: int, hint: str | None = None) -> str:
        """The chat's language; the first time, taken from ``hint`` (a language_code)."""
        if chat_id in self.known:
            return self.known[chat_id]
        lang = await self.storage.chat_language(chat_id=chat_id)
        if lang is None:
            lang = i18n.lang_of(hint, self.default)
            if hint is not None:
                await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.known[chat_id] = lang
        return lang

    async def choose(self, chat_id: int, lang: str) -> None:
        """/language: remember the chat's choice."""
        await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.known[chat_id] = lang

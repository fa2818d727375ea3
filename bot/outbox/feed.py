"""The feed of committed tables: every commit published once, as data, for the channels.

A commit of any kind (a step, a timeout, a close, a settlement, a resume, an open) is
published once by the table service (:meth:`bot.table.tables.Tables.publish`): the chat
and its version now (0: the table closed). Each channel that is not the courier (the Mini
App's pages, the announcement to the other workers) reads it at its own pace from its own
:class:`Reader`, in its own task: nothing of a channel runs inside a commit, and a channel
never calls back into the table service to learn of one. The courier has its own queue of
the same publications, the :class:`bot.outbox.courier.Doorbell`, which also says whether
the outbox got new items.
"""

from __future__ import annotations

import asyncio


class Reader:
    """One channel's place in the feed: the chats published since it last read."""

    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.news = asyncio.Event()

    async def read(self) -> dict[int, int]:
        """The chats published since the last read, each with its version as last published
        (waits for one when there is none)."""
        await self.news.wait()
        self.news.clear()
        news, self.pending = self.pending, {}
        return news


class Feed:
    """Every chat's committed versions, published once for every reader."""

    def __init__(self) -> None:
        self.readers: list[Reader] = []

    def reader(self) -> Reader:
        """A new reader, which hears every publication from now on."""
        reader = Reader()
        self.readers.append(reader)
        return reader

    def drop(self, reader: Reader) -> None:
        """``reader`` reads no more."""
        if reader in self.readers:
            self.readers.remove(reader)

    def publish(self, chat_id: int, version: int) -> None:
        """The chat's table was committed at ``version`` (0: closed)."""
        for reader in self.readers:
            reader.pending[chat_id] = version
            reader.news.set()

"""The feed of committed tables: every commit published once, as data, for the channels.

A commit of any kind (a step, a timeout, a close, a settlement, a resume, an open) is
published once by the table service (:meth:`bot.table.tables.Tables.publish`): the chat,
its version now (0: the table closed) and the group's table message as it should look then,
drawn from the public scene on its first read (:class:`Published`). The courier keeps the
group's table message up from the chat's newest publication (:meth:`Feed.latest`); each
other channel (the Mini App's pages, the announcement to the other workers) reads the
publications at its own pace from its own :class:`Reader`, in its own task: nothing of a
channel runs inside a commit, and a channel never calls back into the table service to
draw or to learn of one. The courier is rung by its own queue of the same publications,
the :class:`bot.outbox.courier.Doorbell`, which also says whether the outbox got new items.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.view.screens import TableScreen


class Published:
    """A chat's table as published: its ``version`` (0: closed) and the group's table
    message as it should look (None: no table), drawn once, when first read (a burst of
    commits that the courier shows with one edit is drawn once, not once per commit)."""

    def __init__(self, version: int, draw: Callable[[], TableScreen] | None,
                 rev: int | None = None) -> None:
        self.version = version
        self.rev = rev
        """The table row's revision it was published at (None: closed)."""
        self._draw = draw
        self._screen: TableScreen | None = None

    def screen(self) -> TableScreen | None:
        """The group's table message as published (None: the table is closed)."""
        if self._draw is not None:
            self._screen, self._draw = self._draw(), None
        return self._screen


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
    """Every chat's committed versions, published once for every reader, and each chat's
    newest publication."""

    def __init__(self) -> None:
        self.readers: list[Reader] = []
        self.published: dict[int, Published] = {}

    def reader(self) -> Reader:
        """A new reader, which hears every publication from now on."""
        reader = Reader()
        self.readers.append(reader)
        return reader

    def drop(self, reader: Reader) -> None:
        """``reader`` reads no more."""
        if reader in self.readers:
            self.readers.remove(reader)

    def publish(self, chat_id: int, version: int,
                draw: Callable[[], TableScreen] | None = None, *, rev: int | None = None,
                news: bool = True) -> None:
        """The chat's table is now at ``version`` (0: closed) and row revision ``rev``, its
        table message drawn by ``draw``; ``news``: a new commit, which every reader hears
        (else only drawn anew: the same version, asked for by the courier)."""
        self.published[chat_id] = Published(version, draw, rev)
        if not news:
            return
        for reader in self.readers:
            reader.pending[chat_id] = version
            reader.news.set()

    def latest(self, chat_id: int) -> Published | None:
        """The chat's newest publication (None: none heard here, or :meth:`forget` since)."""
        return self.published.get(chat_id)

    def forget(self, chat_id: int) -> None:
        """The chat's publication here may be out of date (another worker committed it)."""
        self.published.pop(chat_id, None)

"""The asks to type an amount: a press of ✏️ asks its presser to type the amount, in the
group (his reply, or "@bot 200") or in his private chat.

An ask is kept with the table (:attr:`bot.table.record.TableMeta.asks`), so that whichever
worker takes his message finds it. It ends with his action or its phase
(:mod:`bot.table.plan`), or once it expires. What he types is applied as a press
(:meth:`bot.table.presses.Presses.typed_amount`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.outbox import payloads
from bot.table import sends
from bot.table.record import Ask, Table, TableMeta
from bot.table.tables import Tables
from bot.view import codec
from bot.view.codec import AskAmount
from bot.view.outcomes import AmountAsked, HostReason, Refused
from bot.view.sight import amount_field
from games.engine import IllegalAction
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)


class Asks:
    """Every table's asks to type an amount: made, shown to their player, found again by
    his next message (:class:`bot.table.presses.Presses` is one)."""

    def __init__(self, tables: Tables, storage: Storage,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.storage = storage
        self.clock = clock

    async def ask_amount(self, table: Table, user_id: int, name: str, ask: AskAmount,
                         private: bool = False, here: bool = False
                         ) -> AmountAsked | Refused:
        """"✏️ amount": the presser is asked to type it, in the group (his reply, or
        "@bot 200", is the amount) or, pressed in his private chat, there (what he types
        there counts). The ask is kept with the table too, so that another worker takes the
        reply."""
        now = self.clock()
        asks = {p: a for p, a in table.meta.asks.items() if a.expires >= now}
        asks[user_id] = Ask(kind=ask.spec.kind, coup=table.state.coup, choice=ask.choice,
                            expires=now + int(self.tables.clock.timeout_of(table.meta)),
                            private=private, here=here)
        try:
            # asks are never drawn: the table message stays as it is
            await self.tables.commit(table, meta=table.meta.model_copy(update={"asks": asks}),
                                     outbox=sends.asks_over(table.chat_id, table.meta.asks,
                                                            asks), redraw=False)
        except StorageError:
            return Refused(HostReason.STALE)
        # a choice is named when it is not the action's plain way
        choice = ask.choice if ask.choice not in ask.spec.choices[:1] else None
        return AmountAsked(player=user_id, name=name, kind=ask.spec.kind, choice=choice,
                           min=ask.spec.min, max=ask.spec.max, private=private, here=here)

    async def ask_shown(self, chat_id: int, user_id: int, message_id: int) -> None:
        """The prompt of his ask was shown to him alone in the group (its ephemeral message
        ``message_id``): kept with the ask, to be deleted once it is over; deleted at once
        if it is over already."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            ask = table.meta.asks.get(user_id)
            try:
                if ask is None or ask.shown is not None or ask.expires < self.clock():
                    await self.tables.commit(table, outbox=[
                        payloads.ephemeral_delete(chat_id, user_id, message_id)], redraw=False)
                    return
                asks = {**table.meta.asks, user_id: ask.model_copy(update={"shown": message_id})}
                await self.tables.commit(table, meta=table.meta.model_copy(
                    update={"asks": asks}), redraw=False)
            except StorageError:  # another worker's step: the prompt stays as shown
                log.info("the prompt of chat %s was not kept", chat_id)

    async def private_ask(self, user_id: int) -> int | None:
        """The table (its chat) that asked this player to type an amount in his private
        chat, if one still does (the newest ask): read from this process's tables, else
        from every open table (another worker took the press)."""
        now = self.clock()

        def newest(metas: list[tuple[int, TableMeta]]) -> int | None:
            asks = [(a.expires, chat) for chat, meta in metas
                    if (a := meta.asks.get(user_id)) is not None and a.private
                    and a.expires >= now]
            return max(asks)[1] if asks else None

        found = newest([(c, t.meta) for c, t in self.tables.tables.items()])
        if found is None:
            found = newest([(r.chat_id, TableMeta.model_validate_json(r.meta_json))
                            for r in await self.storage.open_tables()])
        return found

    def asked(self, chat_id: int, user_id: int) -> bool:
        """Whether the player is still asked for an amount at the chat's table."""
        return self._open_ask(chat_id, user_id) is not None

    def asked_alone(self, chat_id: int, user_id: int) -> bool:
        """Whether the player is still asked for an amount whose prompt was shown to him
        alone in the group (asked from his view there)."""
        ask = self._open_ask(chat_id, user_id)
        return ask is not None and ask.here

    def _open_ask(self, chat_id: int, user_id: int) -> Ask | None:
        table = self.tables.tables.get(chat_id)
        ask = table.meta.asks.get(user_id) if table is not None else None
        return ask if ask is not None and ask.expires >= self.clock() else None

    def only_amount(self, table: Table, user_id: int) -> Ask | None:
        """An ask for the one action with an amount the player may take now, if one."""
        try:
            specs = table.sight.legal(user_id)
        except IllegalAction:
            return None
        kinds = {s.kind for s in specs if amount_field(table.engine, s.kind)
                 and s.kind not in codec.HOST_FILLED and s.min is not None}
        if len(kinds) != 1:
            return None
        return Ask(kind=kinds.pop(), coup=table.state.coup,
                   expires=self.clock() + self.tables.clock.timeout_of(table.meta))

"""Rendering and sending: the table message, direct messages with cards, deep links.

Everything a person sees is drawn here from views (``engine.view``) after a
step is committed: the group's table message from the public view, a
player's direct message from his own. Sending is queued (``bot.outbox``) so
no step waits for Telegram.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.helpers import create_deep_linked_url

from bot import i18n, render
from bot.outbox import ChatOutbox, DirectMessages, NewMessage, Render
from bot.specs import amount_field, collect_buttons, player_buttons, private_step
from bot.timers import Timers
from games import registry
from games.engine import Engine, Event, GameState
from storage.base import Storage, TableNotFound


def deep_link_payload(chat_id: int) -> str:
    """/start payload naming a table: ``t`` + the chat id (``m`` for minus)."""
    return "t" + str(chat_id).replace("-", "m")


def parse_payload(payload: str) -> int | None:
    """The chat id in a deep link payload, or None."""
    if payload.startswith("t") and re.fullmatch(r"m?\d{1,16}", payload[1:]):
        return int(payload[1:].replace("m", "-"))
    return None



class Delivery:
    """Per-chat locks, languages and sending queues; draws and sends tables and DMs."""

    storage: Storage
    bot: Bot
    decision_timeout: float
    default_language: str
    clock: Callable[[], float]
    timers: Timers
    locks: dict[int, asyncio.Lock]
    outboxes: dict[int, ChatOutbox]
    dms: DirectMessages
    languages: dict[int, str]
    bot_username: str

    def lock(self, chat_id: int) -> asyncio.Lock:
        """The one lock of a chat's table."""
        return self.locks.setdefault(chat_id, asyncio.Lock())

    async def language(self, chat_id: int, hint: str | None = None) -> str:
        """The chat's language; the first time, taken from ``hint`` (a language_code)."""
        if chat_id in self.languages:
            return self.languages[chat_id]
        lang = await self.storage.chat_language(chat_id=chat_id)
        if lang is None:
            lang = i18n.lang_of(hint, self.default_language)
            if hint is not None:
                await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.languages[chat_id] = lang
        return lang

    def outbox(self, chat_id: int, message_id: int | None = None) -> ChatOutbox:
        """The chat's sending queue."""
        box = self.outboxes.get(chat_id)
        if box is None or box.closed:
            box = ChatOutbox(self.bot, chat_id, message_id, self._table_posted)
            self.outboxes[chat_id] = box
        return box

    async def _table_posted(self, chat_id: int, message_id: int) -> None:
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return
            await self.storage.update_meta(chat_id=chat_id,
                                           meta={**rec.meta, "message_id": message_id})

    @staticmethod
    def _load(rec_game: str, state_json: str) -> tuple[Engine[Any], GameState]:
        engine = registry.engine(rec_game)
        return engine, engine.state_type.model_validate_json(state_json)

    def _render(self, lang: str, chat_id: int, engine: Engine[Any], state: GameState,
                deadline: float | None, lines: Sequence[str]) -> Render:
        view = engine.view(state, None)
        buttons = collect_buttons(engine, state, view)
        amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
        show_cards = any(s.face_down for s in view.seats)
        private = private_step(engine, state, view.awaiting)
        text = render.table_text(lang, view, deadline if view.awaiting else None, lines,
                                 private)
        markup = render.keyboard(lang, chat_id, view, buttons, amount_kinds, show_cards)
        return Render(text, markup)

    async def refresh(self, chat_id: int, repost: bool = False) -> bool:
        """Redraw the table message from the stored state (start-up, /table, language)."""
        try:
            rec = await self.storage.load_table(chat_id=chat_id)
        except TableNotFound:
            return False
        engine, state = self._load(rec.game, rec.state_json)
        lang = await self.language(chat_id)
        box = self.outbox(chat_id, rec.meta.get("message_id"))
        box.update(self._render(lang, chat_id, engine, state, rec.deadline,
                                rec.meta.get("coup_lines", [])))
        if repost or box.message_id is None:
            box.post(NewMessage(table=True))
        return True

    def decision_keyboard(self, lang: str, chat_id: int, engine: Engine[Any],
                          state: GameState, player: int) -> InlineKeyboardMarkup | None:
        """In a private step, the awaited ``player``'s own actions as buttons for his DM."""
        view = engine.view(state, None)
        if player not in view.awaiting or not private_step(engine, state, view.awaiting):
            return None
        buttons = player_buttons(engine, state, player)
        amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
        return render.keyboard(lang, chat_id, view, buttons, amount_kinds, False)

    def _send_private(self, chat_id: int, lang: str, engine: Engine[Any], state: GameState,
                      events: Sequence[Event], names: dict[int, str]) -> None:
        """Each reader's private events with his cards; in a private step every awaited
        player also gets his decision keyboard (with his cards, or on its own)."""
        readers: list[int] = []
        for e in events:
            for p in e.to or ():
                if p not in readers:
                    readers.append(p)
        awaited = list(engine.view(state, None).awaiting)
        private = private_step(engine, state, awaited)
        for player in [*readers, *(p for p in awaited if private and p not in readers)]:
            mine = [e for e in events if e.to is not None and player in e.to]
            view = engine.view(state, player)
            lines = render.event_lines(lang, mine, names)
            markup = self.decision_keyboard(lang, chat_id, engine, state, player)
            if markup is not None:
                lines.append(i18n.t(lang, "decide_private"))
            text = render.dm_text(lang, view, lines)

            async def blocked(user_id: int, chat_id: int = chat_id) -> None:
                await self._dm_blocked(chat_id, user_id)

            self.dms.send(player, text, blocked, markup)

    async def _dm_blocked(self, chat_id: int, user_id: int) -> None:
        """The bot may not write to ``user_id``: offer the deep link once per table."""
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return
            blocked = list(rec.meta.get("dm_blocked", []))
            if user_id in blocked:
                return
            blocked.append(user_id)
            await self.storage.update_meta(chat_id=chat_id,
                                           meta={**rec.meta, "dm_blocked": blocked})
            names = rec.meta.get("names", {})
        lang = await self.language(chat_id)
        link = create_deep_linked_url(self.bot_username, deep_link_payload(chat_id))
        name = names.get(str(user_id), str(user_id))
        self.outbox(chat_id).post(NewMessage(i18n.t(lang, "dm_blocked", name=name, link=link)))

    async def dm_opened(self, user_id: int, payload: str | None
                        ) -> tuple[str, InlineKeyboardMarkup | None] | None:
        """A player pressed Start in private (maybe from a deep link): his cards, if any, and
        his pending private decision keyboard."""
        chat_id = parse_payload(payload) if payload else None
        if chat_id is None:
            return None
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return None
            blocked = [u for u in rec.meta.get("dm_blocked", []) if u != user_id]
            await self.storage.update_meta(chat_id=chat_id,
                                           meta={**rec.meta, "dm_blocked": blocked})
            engine, state = self._load(rec.game, rec.state_json)
            view = engine.view(state, user_id)
        lang = await self.language(chat_id)
        markup = self.decision_keyboard(lang, chat_id, engine, state, user_id)
        if not view.my_cards and markup is None:
            return None
        lines = [i18n.t(lang, "decide_private")] if markup is not None else []
        return render.dm_text(lang, view, lines), markup

    async def my_cards(self, chat_id: int, user_id: int) -> str:
        """The *My cards* pop-up: the presser's own hidden cards, nobody else's."""
        lang = await self.language(chat_id)
        try:
            rec = await self.storage.load_table(chat_id=chat_id)
        except TableNotFound:
            return i18n.t(lang, "no_table")
        engine, state = self._load(rec.game, rec.state_json)
        return render.cards_popup(lang, engine.view(state, user_id))

    async def shutdown(self) -> None:
        """Flush every outbox (best effort) before the process stops."""
        await asyncio.gather(*(box.close() for box in list(self.outboxes.values())),
                             return_exceptions=True)

"""The table host: one lock per chat; load, ask the engine, commit, and only then send.

Every change to a table goes through ``Steps._commit`` under the chat's
lock: the engine's step (state, transfers, the next deadline) is committed
by ``storage.commit_step`` with the version it was computed from, and only
after that commit are texts rendered and handed to the chat's outbox. A
``StaleVersion`` means someone else's step won: the presser is told his
button is out of date and nothing else happens. The host knows no game: it
drives every engine through the contract in :mod:`games.engine`.

The host is layered by responsibility, each layer a module:
:mod:`bot.delivery` (drawing and sending tables and DMs), :mod:`bot.steps`
(commit-then-send, deadlines), :mod:`bot.presses` (buttons and typed
amounts), and this module (a table's life: open, settings, close, verify,
wallets, resume on start-up).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import time
from collections.abc import Callable
from typing import Any

from telegram import Bot

from bot import i18n, render
from bot.outbox import ChatOutbox, DirectMessages, NewMessage
from bot.presses import Outcome, Presses, Prompt
from bot.steps import owner_of
from bot.timers import Timers
from games import registry
from games.cards import Shoe
from games.engine import GameState, IllegalAction, TableView, Transfer, wallet
from storage.base import (
    HOUSE,
    BonusAlreadyClaimed,
    Storage,
    TableExists,
    TableNotFound,
    Wallet,
)

__all__ = ["Host", "Outcome", "closing_transfers", "find_shoe", "parse_setting"]


def find_shoe(state: GameState) -> Shoe | None:
    """The state's current shoe, found by type so the host needs no per-game code."""
    for name in type(state).model_fields:
        value = getattr(state, name, None)
        if isinstance(value, Shoe):
            return value
    return None


def parse_setting(value: str) -> Any:
    """A typed setting value: int, bool or text."""
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if value.lower() in ("true", "on", "yes"):
        return True
    if value.lower() in ("false", "off", "no"):
        return False
    return value



class Host(Presses):
    """Hosts every chat's table; see the module docstring."""

    def __init__(self, storage: Storage, bot: Bot, *, decision_timeout: float,
                 default_language: str = "en",
                 clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.bot = bot
        self.decision_timeout = decision_timeout
        self.default_language = default_language
        self.clock = clock
        self.timers = Timers(None, self.on_deadline)
        self.locks: dict[int, asyncio.Lock] = {}
        self.outboxes: dict[int, ChatOutbox] = {}
        self.dms = DirectMessages(bot)
        self.prompts: dict[tuple[int, int], Prompt] = {}
        self.languages: dict[int, str] = {}
        self.bot_username = "banco_bot"

    async def set_language(self, chat_id: int, lang: str) -> None:
        """Choose the chat's language (/language) and redraw its table."""
        await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.languages[chat_id] = lang
        await self.refresh(chat_id)

    # ----------------------------------------------------------- tables

    async def open_table(self, chat_id: int, game: str, user_id: int,
                         language_code: str | None,
                         settings: dict[str, Any] | None = None) -> str | None:
        """Open a table of ``game``; returns a refusal text or None."""
        lang = await self.language(chat_id, language_code)
        if game not in registry.GAMES:
            return i18n.t(lang, "unknown_game", games=", ".join(registry.GAMES))
        try:
            engine = registry.engine(game)
        except (ImportError, AttributeError):
            return i18n.t(lang, "unknown_game", games=", ".join(registry.GAMES))
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
                return i18n.t(lang, "table_exists", game=i18n.game_name(lang, rec.game))
            except TableNotFound:
                pass
            try:
                state = engine.new_table(dict(settings or {}))
            except (ValueError, TypeError, IllegalAction) as exc:
                return i18n.t(lang, "settings_bad", error=type(exc).__name__)
            meta = {"opener": user_id, "timeout": self.decision_timeout, "coup_lines": [],
                    "msg_coup": state.coup}
            try:
                await self.storage.create_table(chat_id=chat_id, game=game,
                                                settings=dict(settings or {}),
                                                state_json=state.model_dump_json(),
                                                version=state.version, meta=meta)
            except TableExists:
                return i18n.t(lang, "table_exists", game=i18n.game_name(lang, game))
            box = self.outbox(chat_id)
            box.update(self._render(lang, chat_id, engine, state, None, []))
            box.post(NewMessage(table=True))
        return None

    async def resume_all(self) -> int:
        """At start-up: reschedule every open table's deadline and re-render its message."""
        records = await self.storage.open_tables()
        for rec in records:
            _, state = self._load(rec.game, rec.state_json)
            self.timers.schedule(rec.chat_id, state.version, rec.deadline)
            await self.refresh(rec.chat_id)
        return len(records)

    # ----------------------------------------------------------- admin

    async def settings(self, chat_id: int, key: str | None, value: str | None) -> str:
        """/settings: show, or change one setting (timeout any time, game settings when empty)."""
        lang = await self.language(chat_id)
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return i18n.t(lang, "no_table")
            current = {**rec.settings, **rec.meta.get("settings", {}),
                       "timeout": rec.meta.get("timeout", self.decision_timeout)}
            if key is None or value is None:
                lines = "\n".join(f"{k} = {v}" for k, v in current.items())
                return i18n.t(lang, "settings_show", lines=lines)
            parsed = parse_setting(value)
            engine, state = self._load(rec.game, rec.state_json)
            if key == "timeout":
                if not isinstance(parsed, int) or not 5 <= parsed <= 3600:
                    return i18n.t(lang, "settings_bad", error="5..3600")
                await self.storage.update_meta(chat_id=chat_id,
                                               meta={**rec.meta, "timeout": parsed})
                return i18n.t(lang, "settings_set", key=key, value=parsed)
            if engine.view(state, None).seats:
                return i18n.t(lang, "settings_seated")
            new_settings = {**rec.settings, **rec.meta.get("settings", {}), key: parsed}
            try:
                fresh = engine.new_table(new_settings)
            except (ValueError, TypeError, IllegalAction) as exc:
                return i18n.t(lang, "settings_bad", error=str(exc).splitlines()[0][:200])
            fresh = fresh.model_copy(update={"version": state.version + 1})
            await self.storage.commit_step(
                chat_id=chat_id, expected_version=state.version,
                state_json=fresh.model_dump_json(), version=fresh.version, transfers=[],
                coup=fresh.coup, deadline=None,
                meta={**rec.meta, "settings": {**rec.meta.get("settings", {}), key: parsed}})
            box = self.outbox(chat_id, rec.meta.get("message_id"))
            box.update(self._render(lang, chat_id, engine, fresh, None, []))
            return i18n.t(lang, "settings_set", key=key, value=parsed)

    async def close_table(self, chat_id: int) -> str:
        """/closetable: every table chip back to a wallet, the shoe revealed, the table closed."""
        lang = await self.language(chat_id)
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return i18n.t(lang, "no_table")
            engine, state = self._load(rec.game, rec.state_json)
            balances = await self.storage.table_accounts(chat_id=chat_id)
            view = engine.view(state, None)
            transfers = closing_transfers(balances, rec.meta.get("contrib", {}), view)
            await self.storage.close_table(chat_id=chat_id, expected_version=state.version,
                                           transfers=transfers, coup=state.coup)
            self.timers.cancel(chat_id)
            shoe = find_shoe(state)
        text = i18n.t(lang, "table_closed")
        if shoe is not None:
            r = shoe.reveal()
            text += "\n\n" + i18n.t(lang, "verify_revealed", commitment=r["commitment"],
                                    salt=r["salt"], cut=r["cut"],
                                    order=" ".join(shoe.order))
        box = self.outbox(chat_id)
        box.render = None
        box.dirty = False
        box.post(NewMessage(render.clip(text)))
        await box.close()
        self.outboxes.pop(chat_id, None)
        return ""

    async def verify(self, chat_id: int) -> str:
        """/verify: the current commitment and the last revealed shoe, with how to check."""
        lang = await self.language(chat_id)
        try:
            rec = await self.storage.load_table(chat_id=chat_id)
        except TableNotFound:
            return i18n.t(lang, "no_table")
        engine, state = self._load(rec.game, rec.state_json)
        info = engine.view(state, None).info
        parts = []
        commitment = info.get("commitment")
        parts.append(i18n.t(lang, "verify_current", commitment=commitment) if commitment
                     else i18n.t(lang, "verify_none"))
        revealed = rec.meta.get("revealed")
        if revealed:
            parts.append(i18n.t(lang, "verify_revealed", commitment=revealed.get("commitment"),
                                salt=revealed.get("salt"), cut=revealed.get("cut"),
                                order=" ".join(revealed.get("order", []))))
        parts.append(i18n.t(lang, "verify_how"))
        return render.clip("\n\n".join(parts))

    # ----------------------------------------------------------- wallets

    async def balance(self, chat_id: int, user_id: int, name: str) -> Wallet:
        """The player's wallet in the chat."""
        return await self.storage.wallet(chat_id=chat_id, user_id=user_id, name=name)

    async def bonus(self, chat_id: int, user_id: int, name: str, amount: int) -> str:
        """/bonus once a day."""
        lang = await self.language(chat_id)
        await self.storage.wallet(chat_id=chat_id, user_id=user_id, name=name)
        try:
            w = await self.storage.claim_daily_bonus(chat_id=chat_id, user_id=user_id,
                                                     today=dt.datetime.now(dt.UTC).date())
        except BonusAlreadyClaimed:
            return i18n.t(lang, "bonus_taken")
        return i18n.t(lang, "bonus_ok", amount=amount, balance=w.balance)


def closing_transfers(balances: dict[str, int], contrib: dict[str, dict[str, int]],
                      view: TableView) -> list[Transfer]:
    """Transfers that empty every table account into wallets (/closetable).

    Decision: a player's own accounts (stack, stake) go back to him; a shared
    account (bank, pot) first refunds what each player put into it during the
    unsettled coup (the coup is void), and the rest goes to the banker, or,
    without a banker, is shared equally by the seats in seat order.
    """
    out: list[Transfer] = []
    seats = [s.player for s in view.seats]
    bankers = [s.player for s in view.seats if "bank" in s.role.lower()]
    for account, balance in sorted(balances.items()):
        if balance <= 0:
            continue
        owner = owner_of(account)
        if owner is not None:
            out.append(Transfer(src=account, dst=wallet(owner), amount=balance,
                                reason="table_closed"))
            continue
        left = balance
        refunds = {int(p): c for p, c in contrib.get(account, {}).items() if c > 0}
        total = sum(refunds.values())
        for player, paid in refunds.items():
            share = paid if total <= balance else paid * balance // total
            share = min(share, left)
            if share > 0:
                out.append(Transfer(src=account, dst=wallet(player), amount=share,
                                    reason="table_closed"))
                left -= share
        if left <= 0:
            continue
        heirs = bankers[:1] or seats or list(refunds)
        if not heirs:
            out.append(Transfer(src=account, dst=HOUSE, amount=left, reason="table_closed"))
            continue
        each, odd = divmod(left, len(heirs))
        for i, player in enumerate(heirs):
            amount = each + (odd if i == 0 else 0)
            if amount > 0:
                out.append(Transfer(src=account, dst=wallet(player), amount=amount,
                                    reason="table_closed"))
    return out

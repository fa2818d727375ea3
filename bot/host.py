"""The table host: one lock per chat; load, ask the engine, commit, and only then send.

Every change to a table goes through :meth:`Host._commit` under the chat's
lock: the engine's step (state, transfers, the next deadline) is committed
by ``storage.commit_step`` with the version it was computed from, and only
after that commit are texts rendered and handed to the chat's outbox. A
``StaleVersion`` means someone else's step won: the presser is told his
button is out of date and nothing else happens. The host knows no game: it
drives every engine through the contract in :mod:`games.engine`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from telegram import Bot, InlineKeyboardMarkup
from telegram.helpers import create_deep_linked_url

from bot import i18n, render
from bot.callbacks import ActionButton
from bot.outbox import ChatOutbox, DirectMessages, NewMessage, Render
from bot.timers import Timers
from games import registry
from games.cards import Shoe
from games.engine import (
    ActionSpec,
    Engine,
    Event,
    GameState,
    IllegalAction,
    Join,
    Reason,
    Step,
    TableView,
    Transfer,
    parse_action,
    visible_events,
    wallet,
)
from storage.base import (
    HOUSE,
    BonusAlreadyClaimed,
    InsufficientFunds,
    StaleVersion,
    Storage,
    TableExists,
    TableNotFound,
    Wallet,
)

log = logging.getLogger(__name__)

# A player id nobody has: legal_actions for it tells whether a newcomer may join.
OUTSIDER = 0
MAX_COUP_LINES = 60
MAX_AMOUNT = 10**12
SETTLED = ("coup_settled", "hand_settled")
_OWNED = re.compile(r"^[a-z_]+:(-?\d+)$")


@dataclass
class Prompt:
    """A player pressed "type an amount" and may now reply with a number."""

    kind: str
    coup: int
    expires: float


@dataclass
class Outcome:
    """What to tell the presser (a pop-up) after a button press."""

    text: str
    alert: bool = False
    keyboard: InlineKeyboardMarkup | None = None


def is_settlement(event: Event) -> bool:
    """Events that close a coup (a new group message)."""
    return event.kind in SETTLED or event.kind.endswith("_settled")


def owner_of(account: str) -> int | None:
    """The player an account like ``stack:42`` belongs to; None for shared ones (bank, pot)."""
    m = _OWNED.match(account)
    return int(m.group(1)) if m else None


def amount_field(engine: Engine[Any], kind: str) -> str | None:
    """The int field an amount button fills (``amount``, ``stake``...), if the action has one."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return None
    for name, info in cls.model_fields.items():
        if name != "kind" and (info.annotation is int or int in get_args(info.annotation)):
            return name
    return None


def choice_field(engine: Engine[Any], kind: str) -> str | None:
    """The field a choice button fills (the first non-int field), if any."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return None
    for name, info in cls.model_fields.items():
        if name != "kind" and not (info.annotation is int or int in get_args(info.annotation)):
            return name
    return None


def choice_data(engine: Engine[Any], kind: str, choice: str) -> dict[str, Any]:
    """Action fields for a choice: a bool field named after it is set, else the choice field
    takes the value (a list field gets the split choice); unmatched choices keep defaults."""
    cls = engine.action_types.get(kind)
    if cls is None:
        return {}
    info = cls.model_fields.get(choice)
    if info is not None and info.annotation is bool:
        return {choice: True}
    for name, f in cls.model_fields.items():
        if name == "kind" or f.annotation is bool or f.annotation is int \
                or int in get_args(f.annotation):
            continue
        text = str(f.annotation)
        if "list" in text or "tuple" in text:
            return {name: choice.replace(",", " ").split()}
        return {name: choice}
    return {}


def collect_buttons(engine: Engine[Any], state: GameState, view: TableView) -> render.Buttons:
    """Union of every seated player's legal actions, and Join for newcomers."""
    buttons = render.Buttons()
    for player in [*view.awaiting, *(s.player for s in view.seats), OUTSIDER]:
        try:
            buttons.add(engine.legal_actions(state, player))
        except IllegalAction:
            continue
    return buttons


def union_choices(specs: Sequence[ActionSpec]) -> list[str]:
    """Choices of one kind across players, in first-seen order (what the buttons index)."""
    seen: list[str] = []
    for spec in specs:
        for c in spec.choices:
            if c not in seen:
                seen.append(c)
    return seen


def find_shoe(state: GameState) -> Shoe | None:
    """The state's current shoe, found by type so the host needs no per-game code."""
    for name in type(state).model_fields:
        value = getattr(state, name, None)
        if isinstance(value, Shoe):
            return value
    return None


def deep_link_payload(chat_id: int) -> str:
    """/start payload naming a table: ``t`` + the chat id (``m`` for minus)."""
    return "t" + str(chat_id).replace("-", "m")


def parse_payload(payload: str) -> int | None:
    """The chat id in a deep link payload, or None."""
    if payload.startswith("t") and re.fullmatch(r"m?\d{1,16}", payload[1:]):
        return int(payload[1:].replace("m", "-"))
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


class Host:
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

    # ----------------------------------------------------------- basics

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

    async def set_language(self, chat_id: int, lang: str) -> None:
        """Choose the chat's language (/language) and redraw its table."""
        await self.storage.set_chat_language(chat_id=chat_id, language=lang)
        self.languages[chat_id] = lang
        await self.refresh(chat_id)

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

    def _render(self, lang: str, chat_id: int, engine: Engine[Any], state: GameState,
                deadline: float | None, lines: Sequence[str]) -> Render:
        view = engine.view(state, None)
        buttons = collect_buttons(engine, state, view)
        amount_kinds = {k for k in buttons.kinds if amount_field(engine, k)}
        show_cards = any(s.face_down for s in view.seats)
        text = render.table_text(lang, view, deadline if view.awaiting else None, lines)
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

    async def resume_all(self) -> int:
        """At start-up: reschedule every open table's deadline and re-render its message."""
        records = await self.storage.open_tables()
        for rec in records:
            _, state = self._load(rec.game, rec.state_json)
            self.timers.schedule(rec.chat_id, state.version, rec.deadline)
            await self.refresh(rec.chat_id)
        return len(records)

    # ----------------------------------------------------------- steps

    def _deadline(self, engine: Engine[Any], old: GameState, new: GameState,
                  old_deadline: float | None, timeout: float) -> float | None:
        """A fresh deadline whenever the awaited set changes, except when some of several
        simultaneously awaited players have answered (the others keep their clock)."""
        now_waiting = set(engine.awaiting(new))
        if not now_waiting:
            return None
        before = set(engine.awaiting(old))
        if (old_deadline is not None and new.coup == old.coup and new.phase == old.phase
                and now_waiting < before):
            return old_deadline
        return self.clock() + timeout

    async def _commit(self, chat_id: int, rec_meta: dict[str, Any], rec_deadline: float | None,
                      engine: Engine[Any], state: GameState, step: Step[Any],
                      timed_out: Sequence[int] = ()) -> None:
        """Commit ``step`` (raises StaleVersion/InsufficientFunds), then render and send."""
        new = step.state
        lang = await self.language(chat_id)
        meta = dict(rec_meta)
        old_view = engine.view(state, None)
        view = engine.view(new, None)
        names = {**render.names_of(old_view), **render.names_of(view),
                 **{int(k): v for k, v in meta.get("names", {}).items()}}
        names.update(render.names_of(view))
        meta["names"] = {str(k): v for k, v in names.items()}
        public_events = visible_events(step.events, None)

        lines: list[str] = list(meta.get("coup_lines", []))
        settled: list[str] | None = None
        settled_coup = state.coup
        if timed_out:
            who = ", ".join(names.get(p, str(p)) for p in timed_out)
            lines.append(i18n.t(lang, "timed_out", names=who))
        contrib: dict[str, dict[str, int]] = {
            a: dict(v) for a, v in meta.get("contrib", {}).items()}
        self._track_contributions(contrib, step.transfers)
        announcements: list[str] = []
        for event in public_events:
            lines.append(i18n.event_text(lang, event, names))
            if event.kind == "shoe_revealed":
                meta["revealed"] = dict(event.data)
            if event.kind == "stood_up":
                player = event.data.get("player")
                announcements.append(i18n.t(lang, "stood_up",
                                            name=names.get(player, str(player))
                                            if isinstance(player, int) else str(player)))
            if is_settlement(event):
                settled, lines = lines, []
                settled_coup = new.coup if new.coup == state.coup else state.coup
                contrib = {}
        if new.coup != state.coup and settled is None and new.coup > 0:
            # a new coup began without a settlement event (void coup, stand-off)
            lines = lines[-4:]
        meta["coup_lines"] = lines[-MAX_COUP_LINES:]
        meta["contrib"] = contrib
        timeout = float(meta.get("timeout", self.decision_timeout))
        deadline = self._deadline(engine, state, new, rec_deadline, timeout)
        new_table_message = settled is not None or (new.coup != meta.get("msg_coup"))
        if new_table_message:
            meta["msg_coup"] = new.coup

        await self.storage.commit_step(chat_id=chat_id, expected_version=state.version,
                                       state_json=new.model_dump_json(), version=new.version,
                                       transfers=step.transfers, coup=new.coup,
                                       deadline=deadline, meta=meta)
        # committed: from here on nothing can lose the step
        self.timers.schedule(chat_id, new.version, deadline)
        box = self.outbox(chat_id, meta.get("message_id"))
        if settled is not None:
            box.post(NewMessage(render.settlement_text(lang, view, settled_coup, settled)))
        for text in announcements:
            box.post(NewMessage(text))
        box.update(self._render(lang, chat_id, engine, new, deadline, meta["coup_lines"]))
        if new_table_message and view.seats:
            box.post(NewMessage(table=True))
        self._send_private(chat_id, lang, engine, new, step.events, names)

    @staticmethod
    def _track_contributions(contrib: dict[str, dict[str, int]],
                             transfers: Sequence[Transfer]) -> None:
        """What each player put into shared accounts (bank, pot) this coup: /closetable
        refunds it, so closing mid-coup voids the coup instead of guessing its result."""
        for t in transfers:
            src, dst = owner_of(t.src), owner_of(t.dst)
            if src is not None and dst is None:
                acc = contrib.setdefault(t.dst, {})
                acc[str(src)] = acc.get(str(src), 0) + t.amount
            elif src is None and dst is not None:
                acc = contrib.setdefault(t.src, {})
                acc[str(dst)] = acc.get(str(dst), 0) - t.amount

    def _send_private(self, chat_id: int, lang: str, engine: Engine[Any], state: GameState,
                      events: Sequence[Event], names: dict[int, str]) -> None:
        readers: list[int] = []
        for e in events:
            for p in e.to or ():
                if p not in readers:
                    readers.append(p)
        for player in readers:
            mine = [e for e in events if e.to is not None and player in e.to]
            view = engine.view(state, player)
            text = render.dm_text(lang, view, render.event_lines(lang, mine, names))

            async def blocked(user_id: int, chat_id: int = chat_id) -> None:
                await self._dm_blocked(chat_id, user_id)

            self.dms.send(player, text, blocked)

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

    async def dm_opened(self, user_id: int, payload: str | None) -> str | None:
        """A player pressed Start in private (maybe from a deep link): his cards, if any."""
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
        if not view.my_cards:
            return None
        return render.dm_text(lang, view, [])

    # ----------------------------------------------------------- presses

    async def press(self, chat_id: int, user_id: int, name: str,
                    button: ActionButton) -> Outcome:
        """A table button: validate table/coup/version, build the action, apply, commit."""
        lang = await self.language(chat_id)
        if button.chat_id != chat_id:
            return Outcome(i18n.t(lang, "other_table"))
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return Outcome(i18n.t(lang, "no_table"))
            engine, state = self._load(rec.game, rec.state_json)
            if button.coup != state.coup or button.version != state.version:
                return Outcome(i18n.t(lang, "stale"))
            try:
                specs = [s for s in engine.legal_actions(state, user_id)
                         if s.kind == button.kind]
            except IllegalAction as exc:
                return Outcome(i18n.reason_text(lang, exc.reason))
            if specs and any(i18n.is_card(c) for c in specs[0].choices) and (
                    button.ask or button.select is not None or button.confirm is not None):
                return await self._private_choice(chat_id, rec.meta, rec.deadline, engine,
                                                  state, user_id, button, specs[0], lang)
            if button.ask:
                if not specs:
                    return Outcome(self._why_not(engine, state, user_id, button.kind, lang))
                spec = specs[0]
                self.prompts[(chat_id, user_id)] = Prompt(
                    button.kind, state.coup, self.clock() + float(
                        rec.meta.get("timeout", self.decision_timeout)))
                seconds = int(rec.meta.get("timeout", self.decision_timeout))
                if spec.min is not None and spec.max is not None:
                    return Outcome(i18n.t(lang, "ask_amount", min=spec.min, max=spec.max,
                                          seconds=seconds), alert=True)
                return Outcome(i18n.t(lang, "ask_amount_any", seconds=seconds), alert=True)
            data: dict[str, Any] = {"kind": button.kind}
            if button.kind == "join":
                w = await self.storage.wallet(chat_id=chat_id, user_id=user_id, name=name)
                if w.balance <= 0:
                    return Outcome(i18n.t(lang, "wallet_low"), alert=True)
                action: Any = Join(name=name[:64] or str(user_id), buy_in=w.balance)
            else:
                if button.kind == "cut":
                    # RULES.md §0 "Cut": a fresh secure random offset from the press
                    data["offset"] = secrets.randbelow(1 << 30)
                elif button.choice is not None:
                    buttons = collect_buttons(engine, state, engine.view(state, None))
                    choices = union_choices(buttons.kinds.get(button.kind, []))
                    if button.choice >= len(choices):
                        return Outcome(i18n.t(lang, "forged"))
                    data.update(choice_data(engine, button.kind, choices[button.choice]))
                    field = amount_field(engine, button.kind)
                    if button.amount is not None and field is not None:
                        data[field] = button.amount
                elif button.amount is not None:
                    field = amount_field(engine, button.kind)
                    if field is None:
                        return Outcome(i18n.t(lang, "forged"))
                    data[field] = button.amount
                try:
                    action = parse_action(engine, data)
                except IllegalAction as exc:
                    return Outcome(i18n.reason_text(lang, exc.reason))
            return await self._apply(chat_id, rec.meta, rec.deadline, engine, state,
                                     user_id, action, lang)

    async def _private_choice(self, chat_id: int, meta: dict[str, Any],
                              deadline: float | None, engine: Engine[Any], state: GameState,
                              user_id: int, button: ActionButton, spec: ActionSpec,
                              lang: str) -> Outcome:
        """Choices among the presser's own cards: a keyboard in his private chat only."""
        choices = list(spec.choices)
        if button.confirm is None:
            mask = button.select or 0
            if mask >> len(choices):
                return Outcome(i18n.t(lang, "forged"))
            markup = render.selection_keyboard(lang, chat_id, state.coup, state.version,
                                               button.kind, choices, mask, spec.max)
            if button.select is not None:
                return Outcome("", keyboard=markup)
            text = i18n.t(lang, "pick_private", label=i18n.action_label(lang, button.kind))

            async def blocked(uid: int, chat_id: int = chat_id) -> None:
                await self._dm_blocked(chat_id, uid)

            self.dms.send(user_id, text, blocked, markup)
            return Outcome(i18n.t(lang, "see_private"), alert=True)
        mask = button.confirm
        if mask >> len(choices):
            return Outcome(i18n.t(lang, "forged"))
        picked = [c for i, c in enumerate(choices) if mask >> i & 1]
        field = choice_field(engine, button.kind)
        if field is None:
            return Outcome(i18n.t(lang, "forged"))
        try:
            action = parse_action(engine, {"kind": button.kind, field: picked})
        except IllegalAction as exc:
            return Outcome(i18n.reason_text(lang, exc.reason))
        return await self._apply(chat_id, meta, deadline, engine, state, user_id, action, lang)

    @staticmethod
    def _choice_value(engine: Engine[Any], kind: str, field: str, choice: str) -> Any:
        cls = engine.action_types[kind]
        annotation = str(cls.model_fields[field].annotation)
        if "list" in annotation or "tuple" in annotation:
            return [x for x in choice.replace(",", " ").split()]
        return choice

    def _why_not(self, engine: Engine[Any], state: GameState, user_id: int, kind: str,
                 lang: str) -> str:
        view = engine.view(state, None)
        if all(s.player != user_id for s in view.seats) and kind != "join":
            return i18n.reason_text(lang, Reason.NOT_SEATED)
        if view.awaiting and user_id not in view.awaiting:
            return i18n.reason_text(lang, Reason.NOT_YOUR_TURN)
        return i18n.reason_text(lang, Reason.WRONG_PHASE)

    async def _apply(self, chat_id: int, meta: dict[str, Any], deadline: float | None,
                     engine: Engine[Any], state: GameState, user_id: int, action: Any,
                     lang: str) -> Outcome:
        try:
            step = engine.apply(state, user_id, action)
        except IllegalAction as exc:
            return Outcome(i18n.reason_text(lang, exc.reason))
        try:
            await self._commit(chat_id, meta, deadline, engine, state, step)
        except StaleVersion:
            return Outcome(i18n.t(lang, "stale"))
        except InsufficientFunds:
            return Outcome(i18n.reason_text(lang, Reason.INSUFFICIENT_CHIPS))
        self.prompts.pop((chat_id, user_id), None)
        return Outcome(i18n.action_label(lang, action.kind))

    async def typed_amount(self, chat_id: int, user_id: int, name: str, text: str) -> str | None:
        """A group message from a player asked for an amount; a reply text or None."""
        prompt = self.prompts.get((chat_id, user_id))
        if prompt is None:
            return None
        if prompt.expires < self.clock():
            self.prompts.pop((chat_id, user_id), None)
            return None
        lang = await self.language(chat_id)
        raw = text.strip().replace(" ", "").replace("_", "")
        if not re.fullmatch(r"[+-]?\d{1,30}", raw):
            return i18n.t(lang, "amount_not_number", name=name)
        amount = int(raw)
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                self.prompts.pop((chat_id, user_id), None)
                return None
            engine, state = self._load(rec.game, rec.state_json)
            specs = [s for s in engine.legal_actions(state, user_id) if s.kind == prompt.kind]
            if state.coup != prompt.coup or not specs:
                self.prompts.pop((chat_id, user_id), None)
                return i18n.reason_text(lang, Reason.WRONG_PHASE)
            lo = min((s.min for s in specs if s.min is not None), default=1)
            hi = max((s.max for s in specs if s.max is not None), default=MAX_AMOUNT)
            if amount < lo or amount > hi:
                return i18n.t(lang, "amount_bounds", name=name, min=lo, max=hi)
            field = amount_field(engine, prompt.kind)
            if field is None:
                self.prompts.pop((chat_id, user_id), None)
                return None
            action = parse_action(engine, {"kind": prompt.kind, field: amount})
            outcome = await self._apply(chat_id, rec.meta, rec.deadline, engine, state,
                                        user_id, action, lang)
            if (chat_id, user_id) in self.prompts:
                return f"{name}: {outcome.text}"
            return None

    async def my_cards(self, chat_id: int, user_id: int) -> str:
        """The *My cards* pop-up: the presser's own hidden cards, nobody else's."""
        lang = await self.language(chat_id)
        try:
            rec = await self.storage.load_table(chat_id=chat_id)
        except TableNotFound:
            return i18n.t(lang, "no_table")
        engine, state = self._load(rec.game, rec.state_json)
        return render.cards_popup(lang, engine.view(state, user_id))

    # ----------------------------------------------------------- deadlines

    async def on_deadline(self, chat_id: int, version: int) -> None:
        """The deadline of step ``version`` passed: apply the engine's safe defaults."""
        async with self.lock(chat_id):
            try:
                rec = await self.storage.load_table(chat_id=chat_id)
            except TableNotFound:
                return
            engine, state = self._load(rec.game, rec.state_json)
            if state.version != version or rec.deadline is None:
                return
            if rec.deadline > self.clock() + 0.05:
                self.timers.schedule(chat_id, version, rec.deadline)
                return
            awaited = engine.awaiting(state)
            if not awaited:
                return
            step = engine.timeout(state)
            try:
                await self._commit(chat_id, rec.meta, rec.deadline, engine, state, step,
                                   timed_out=awaited)
            except (StaleVersion, InsufficientFunds):
                log.warning("timeout step of chat %s not committed", chat_id)

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

    async def shutdown(self) -> None:
        """Flush every outbox (best effort) before the process stops."""
        await asyncio.gather(*(box.close() for box in list(self.outboxes.values())),
                             return_exceptions=True)


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

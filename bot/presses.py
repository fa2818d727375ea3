"""Button presses and typed amounts: validate table/coup/version, build the action, apply.

A press names its table, coup and step (``bot.callbacks``); anything stale,
repeated or forged gets a short pop-up and changes nothing. Amounts come from
the button or, after "type an amount", from the presser's next group message.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup

from bot import i18n, render
from bot.callbacks import ActionButton
from bot.specs import (
    amount_field,
    choice_data,
    choice_field,
    collect_buttons,
    player_buttons,
    union_choices,
)
from bot.steps import Steps
from games.engine import (
    ActionSpec,
    Engine,
    GameState,
    IllegalAction,
    Join,
    Reason,
    parse_action,
)
from storage.base import InsufficientFunds, StaleVersion, TableNotFound

MAX_AMOUNT = 10**12


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



class Presses(Steps):
    """What players do: buttons in the group or in private, and amounts they type."""

    prompts: dict[tuple[int, int], Prompt]

    async def press(self, chat_id: int, user_id: int, name: str,
                    button: ActionButton, private: bool = False) -> Outcome:
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
                    # docs/rules.md §0 "Cut": a fresh secure random offset from the press
                    data["offset"] = secrets.randbelow(1 << 30)
                elif button.choice is not None:
                    # a private keyboard indexes the presser's own choices, the group's
                    # the union of everybody's (what each keyboard was drawn from)
                    buttons = (player_buttons(engine, state, user_id) if private
                               else collect_buttons(engine, state, engine.view(state, None)))
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

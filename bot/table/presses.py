"""What players do: buttons in the group or in private, amounts they type, their own cards.

A press names its table, coup and step (:mod:`bot.view.codec`) and is decoded
strictly (:mod:`bot.view.codec`); anything stale, repeated or forged gets a short
pop-up and changes nothing. An accepted press is committed through
:meth:`bot.table.tables.Tables.commit`, and only a committed step is answered as done.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from bot.table import sends
from bot.table.languages import Languages
from bot.table.record import Ask, Table, TableMeta
from bot.table.tables import Tables
from bot.view import codec, i18n, render, screens
from bot.view.codec import Act, ActionButton, AskAmount, Forged, NotOffered, PickCards
from bot.view.render import Keyboard
from bot.view.sight import amount_field, choice_data, union_choices
from games.engine import Action, Chips, IllegalAction, Join, Reason, Step, parse_action
from storage.base import InsufficientFunds, StaleVersion, Storage, StorageError, TableNotFound

MAX_DONE = 32
"""Updates that made a step kept per table (:attr:`bot.table.record.TableMeta.done`): far more
than can be in flight again when a worker dies."""


@dataclass
class Outcome:
    """What to tell the presser (a pop-up) after a button press; ``committed`` when his
    press changed the table, so a failed answer is repeated with the same true text."""

    text: str
    alert: bool = False
    keyboard: Keyboard | None = None
    dm: tuple[int, str, Keyboard] | None = None
    prompt: tuple[str, str] | None = None
    """A ForceReply prompt to post for the presser: its text and the input field's
    placeholder (the amounts it takes); in the group, or in his private chat where he
    pressed (``prompt_private``)."""
    prompt_private: bool = False
    committed: bool = False
    refusal: str = ""
    """Why the press changed nothing (a refusal), for the metrics; empty otherwise."""


class Presses:
    """Buttons and typed amounts, turned into committed steps or refusals."""

    def __init__(self, tables: Tables, storage: Storage, languages: Languages,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.storage = storage
        self.languages = languages
        self.clock = clock

    async def lang_of(self, chat_id: int, user_id: int, language: str | None) -> str:
        """The language of a player's pop-ups and private texts: his private chat's, else
        the one Telegram reports for him (``language``), else the group's."""
        group = await self.languages.of(chat_id)
        return await self.languages.of_player(user_id, i18n.lang_of(language, group))

    async def press(self, chat_id: int, user_id: int, name: str,
                    button: ActionButton, private: bool = False, key: str = "",
                    language: str | None = None) -> Outcome:
        """A table button: validate table/coup/version, decode strictly, apply, commit.
        ``key``: the press's callback query id; a press the table already took (delivered
        again) is answered as done, and not applied again. The answer is in the presser's
        language (:meth:`lang_of`, ``language``: his Telegram language)."""
        lang = await self.lang_of(chat_id, user_id, language)
        if button.chat_id != chat_id:
            return Outcome(i18n.t(lang, "other_table"), refusal="other_table")
        async with self.tables.lock(chat_id):
            try:
                table = await self.tables.load(chat_id)
            except TableNotFound:
                return Outcome(i18n.t(lang, "no_table"), refusal="no_table")
            if key and key in table.meta.done:
                return Outcome(self._next(chat_id, user_id, table.meta.done[key], lang),
                               committed=True)
            if table.meta.paused:
                return Outcome(i18n.t(lang, "table_paused"), refusal="table_paused")
            state = table.state
            # a button answers a decision: good while that decision is still the presser's
            if button.coup != state.coup:
                why = i18n.t(lang, "stale_coup", coup=button.coup, now=state.coup) if (
                    button.coup and state.coup) else i18n.t(lang, "stale")
                return Outcome(self._now(table, user_id, lang, why), refusal="stale_coup")
            if button.version > table.meta.decision:  # no button of ours carries a later one
                return Outcome(i18n.t(lang, "forged"), refusal="forged")
            if user_id in table.sight.view().awaiting and button.version != table.meta.decision:
                return Outcome(self._now(table, user_id, lang, i18n.t(lang, "stale_turn")),
                               refusal="stale_turn")
            try:
                specs = [s for s in table.sight.legal(user_id) if s.kind == button.kind]
            except IllegalAction as exc:
                return Outcome(i18n.reason_text(lang, exc.reason), refusal=exc.reason)
            if not specs:
                if button.kind not in table.engine.action_types:
                    return Outcome(i18n.t(lang, "forged"), refusal="forged")
                return self._refusal(table, user_id, button, lang)
            try:
                decoded = codec.decode_press(table.sight, user_id, button, specs[0], private)
            except NotOffered:
                return Outcome(self._now(table, user_id, lang, i18n.t(lang, "stale")),
                               refusal="stale_amount")
            except Forged:
                return Outcome(i18n.t(lang, "forged"), refusal="forged")
            if isinstance(decoded, AskAmount):
                return await self._ask(table, user_id, name, decoded, lang,
                                       await self.languages.of(chat_id), private)
            if isinstance(decoded, PickCards):
                return self._pick(table, user_id, button.kind, decoded, lang, private)
            action = await self._action(table, user_id, name, decoded, lang)
            if isinstance(action, Outcome):
                return action
            return await self._apply(table, user_id, action, lang, key)

    async def _action(self, table: Table, user_id: int, name: str, decoded: Act,
                      lang: str) -> Action | Outcome:
        data = dict(decoded.data)
        if data["kind"] == "join":
            w = await self.storage.wallet(chat_id=table.chat_id, user_id=user_id, name=name)
            if w.balance <= 0:
                return Outcome(i18n.t(lang, "wallet_low"), alert=True, refusal="wallet_low")
            return Join(name=seat_name(name, user_id), buy_in=w.balance)
        # docs/rules.md §0.4: a cut's depth is the cutter's own (a preset or a typed amount,
        # like any amount); the host never draws it
        try:
            return parse_action(table.engine, data)
        except IllegalAction as exc:
            return Outcome(i18n.reason_text(lang, exc.reason), refusal=exc.reason)

    async def _ask(self, table: Table, user_id: int, name: str, ask: AskAmount,
                   lang: str, group_lang: str, private: bool = False) -> Outcome:
        """"✏️ amount": a pop-up (in the presser's ``lang``), and a ForceReply prompt in the
        group (in its ``group_lang``) addressed to the presser (his reply, or "@bot 200", is
        the amount); pressed in his private chat, the prompt is there, in his language, and
        what he types there counts. The ask is kept with the table too, so that another
        worker takes the reply."""
        now = self.clock()
        asks = {p: a for p, a in table.meta.asks.items() if a.expires >= now}
        asks[user_id] = Ask(kind=ask.spec.kind, coup=table.state.coup, choice=ask.choice,
                            expires=now + int(self.tables.clock.timeout_of(table.meta)),
                            private=private)
        try:
            # asks are never drawn: the table message stays as it is
            await self.tables.commit(table, meta=table.meta.model_copy(update={"asks": asks}),
                                     redraw=False)
        except StorageError:
            return Outcome(i18n.t(lang, "stale"), refusal="stale")
        lo, hi = ask.spec.min, ask.spec.max
        span = f"{lo}–{hi}" if lo is not None and hi is not None else ""
        who = Markup('<a href="tg://user?id={}">{}</a>').format(user_id, name)
        # the prompt's words: the group's in the group, his own in his private chat
        words = lang if private else group_lang
        label = i18n.action_label(words, ask.spec.kind)
        if ask.choice is not None and ask.choice not in ask.spec.choices[:1]:
            label = f"{label} ({i18n.choice_label(words, ask.choice)})"  # not its plain way
        prompt = (i18n.t(lang, "ask_prompt_private", range=span, label=label) if private
                  else i18n.t(group_lang, "ask_prompt", who=who, range=span, label=label),
                  span)
        if span:
            return Outcome(i18n.t(lang, "ask_amount", min=lo, max=hi), prompt=prompt,
                           prompt_private=private)
        return Outcome(i18n.t(lang, "ask_amount_any"), prompt=prompt, prompt_private=private)

    def _pick(self, table: Table, user_id: int, kind: str, pick: PickCards,
              lang: str, private: bool) -> Outcome:
        """Choices among the presser's own cards: a keyboard in his private chat only (the
        pressed private message itself turns into it)."""
        state = table.state
        markup = render.selection_keyboard(lang, table.chat_id, state.coup, table.meta.decision,
                                           kind, list(pick.spec.choices), pick.mask or 0,
                                           pick.spec.max)
        if pick.mask is not None or private:
            return Outcome("", keyboard=markup)
        text = i18n.t(lang, "pick_private", label=i18n.action_label(lang, kind))
        return Outcome(i18n.t(lang, "see_private"), alert=True, dm=(user_id, text, markup))

    def _now(self, table: Table, user_id: int, lang: str, why: str) -> str:
        """A refusal of a stale press, with what is current: the presser's own move (his
        actions as his buttons name them) or whom the table waits for."""
        view = table.sight.view()
        if user_id in view.awaiting:
            keyboard = screens.decision_keyboard(lang, table.chat_id, table.sight, user_id,
                                                 table.meta.decision, prompted=True)
            if keyboard is None or not keyboard.inline_keyboard:
                return why
            labels = ", ".join(b.text for row in keyboard.inline_keyboard for b in row)
            return f"{why} {i18n.t(lang, 'now_yours', labels=labels)}"
        names = render.names_of(view)
        if view.awaiting:
            who = ", ".join(names.get(p, str(p)) for p in view.awaiting)
            return f"{why} {i18n.t(lang, 'now_waiting', names=who)}"
        return why

    def _refusal(self, table: Table, user_id: int, button: ActionButton, lang: str) -> Outcome:
        """Why a press of an action the presser may not take now is refused: the engine says
        best, given the action as the button states it."""
        field = amount_field(table.engine, button.kind)
        data: dict[str, object] = {"kind": button.kind}
        if button.amount is not None and field is not None:
            data[field] = button.amount
        if button.kind != "join" and not (
                button.ask or button.choice is not None or button.select is not None
                or button.confirm is not None):
            try:
                table.engine.apply(table.state, user_id, parse_action(table.engine, data))
            except IllegalAction as exc:
                return Outcome(i18n.reason_text(lang, exc.reason), refusal=exc.reason)
        reason = self._why_not(table, user_id, button.kind)
        return Outcome(i18n.reason_text(lang, reason), refusal=reason)

    def _why_not(self, table: Table, user_id: int, kind: str) -> Reason:
        view = table.sight.view()
        if all(s.player != user_id for s in view.seats) and kind != "join":
            return Reason.NOT_SEATED
        if view.awaiting and user_id not in view.awaiting:
            return Reason.NOT_YOUR_TURN
        return Reason.WRONG_PHASE

    async def _apply(self, table: Table, user_id: int, action: Action, lang: str,
                     key: str = "") -> Outcome:
        try:
            step = table.engine.apply(table.state, user_id, action)
        except IllegalAction as exc:
            return Outcome(i18n.reason_text(lang, exc.reason), refusal=exc.reason)
        label = done_label(lang, user_id, action, step)
        meta = table.meta
        if key:  # kept with the step: the update delivered again is answered the same
            kept = list(meta.done.items())[-(MAX_DONE - 1):]
            meta = meta.model_copy(update={"done": {**dict(kept), key: label}})
        try:
            await self.tables.commit(table, step, meta=meta, actor=user_id,
                                     decided=action.kind not in render.UTILITIES,
                                     action=action.kind)
        except StaleVersion:
            return Outcome(i18n.t(lang, "stale"), refusal="stale")
        except TableNotFound:  # closed meanwhile (python -m bot.admin close)
            return Outcome(i18n.t(lang, "no_table"), refusal="no_table")
        except InsufficientFunds:
            return Outcome(i18n.reason_text(lang, Reason.INSUFFICIENT_CHIPS),
                           refusal=Reason.INSUFFICIENT_CHIPS)
        return Outcome(self._next(table.chat_id, user_id, label, lang), committed=True)

    def _next(self, chat_id: int, user_id: int, done: str, lang: str) -> str:
        """An accepted press's pop-up: what was done, and whose move it is now (a pop-up
        costs the group nothing, so the presser learns it at once)."""
        table = self.tables.tables.get(chat_id)
        if table is None:
            return done
        awaited = table.sight.view().awaiting
        if user_id in awaited:
            return f"{done} · {i18n.t(lang, 'next_yours')}"
        if awaited:
            names = render.names_of(table.sight.view())
            who = ", ".join(names.get(p, str(p)) for p in awaited)
            return f"{done} · {i18n.t(lang, 'next_waiting', names=who)}"
        return done

    async def send_pick(self, outcome: Outcome, chat_id: int) -> None:
        """Queue the private selection keyboard an outcome carries (after the answer)."""
        if outcome.dm is None:
            return
        user_id, text, markup = outcome.dm
        async with self.tables.lock(chat_id):
            try:
                table = await self.tables.load(chat_id)
            except TableNotFound:
                return
            await self.tables.commit(table, outbox=[sends.dm_message(user_id, text, markup)])

    async def typed_amount(self, chat_id: int, user_id: int, name: str, text: str,
                           mentioned: bool = False, key: str = "", private: bool = False,
                           language: str | None = None) -> str | None:
        """A group message from a player asked for an amount (his reply to the prompt, or
        "@bot 200"); a reply text or None. "@bot 200" without a prompt is the amount of the
        one amount action he may take now, if there is exactly one. ``key``: the message's,
        so that a message delivered again is not applied twice. ``private``: typed in his
        private chat, for an ask made there (answered in his ``language``). A wrong amount
        leaves the ask open: his next message may be the right one."""
        try:
            asked = await self.tables.load(chat_id)
        except TableNotFound:
            return None
        if key and key in asked.meta.done:
            return None
        # the player's ask, kept with the table (any worker may have taken the press)
        prompt = asked.meta.asks.get(user_id)
        if prompt is not None and prompt.private != private:
            prompt = None  # asked in the other chat: answered there
        if prompt is None and mentioned:
            prompt = self._only_amount(asked, user_id)
            if prompt is None:
                lang = await self.languages.of(chat_id)
                return i18n.t(lang, "amount_which", name=name, bot=self.tables.bot_username)
        if prompt is None or prompt.expires < self.clock():
            return None
        lang = (await self.lang_of(chat_id, user_id, language) if private
                else await self.languages.of(chat_id))
        amount = codec.parse_amount(text)
        if amount is None:
            return i18n.t(lang, "amount_not_number", name=name)
        async with self.tables.lock(chat_id):
            try:
                table = await self.tables.load(chat_id)
            except TableNotFound:
                return None
            try:
                specs = [s for s in table.sight.legal(user_id) if s.kind == prompt.kind]
            except IllegalAction:
                specs = []
            if table.state.coup != prompt.coup or not specs or table.meta.paused:
                return i18n.reason_text(lang, Reason.WRONG_PHASE)
            lo, hi = codec.amount_bounds(specs)
            if amount < lo or amount > hi:
                return i18n.t(lang, "amount_bounds", name=name, min=lo, max=hi)
            try:
                decoded = codec.decode_press(table.sight, user_id, ActionButton(
                    chat_id, table.state.coup, table.meta.decision, prompt.kind, amount=amount),
                    specs[0], False, typed=True)
                if prompt.choice is not None and isinstance(decoded, Act):
                    # the amount goes with the choice whose ✏️ he pressed, if still offered
                    if prompt.choice not in union_choices(specs):
                        raise Forged("that choice is no longer offered")
                    decoded = Act({**decoded.data, **choice_data(
                        table.engine, prompt.kind, prompt.choice)})
                action = await self._action(table, user_id, name, decoded, lang) if isinstance(
                    decoded, Act) else Outcome(i18n.t(lang, "forged"), refusal="forged")
            except Forged:
                action = Outcome(i18n.t(lang, "forged"), refusal="forged")
            if isinstance(action, Outcome):
                return i18n.t(lang, "named", name=name, text=action.text)
            if key and key in table.meta.done:
                return None
            outcome = await self._apply(table, user_id, action, lang, key)
            if not outcome.committed:
                return i18n.t(lang, "named", name=name, text=outcome.text)
            return None

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
        table = self.tables.tables.get(chat_id)
        ask = table.meta.asks.get(user_id) if table is not None else None
        return ask is not None and ask.expires >= self.clock()

    def _only_amount(self, table: Table, user_id: int) -> Ask | None:
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

    async def my_cards(self, chat_id: int, user_id: int, language: str | None = None) -> str:
        """The *My cards* pop-up: the presser's own hidden cards, nobody else's, in his
        language."""
        lang = await self.lang_of(chat_id, user_id, language)
        try:
            table = await self.tables.load(chat_id)
        except TableNotFound:
            return i18n.t(lang, "no_table")
        return render.cards_popup(lang, table.sight.view(user_id))

    async def dm_opened(self, user_id: int, payload: str | None
                        ) -> tuple[str, Keyboard | None] | None:
        """A player pressed Start in private (maybe from a deep link): his cards, if any, and
        his pending private decision keyboard."""
        chat_id = screens.parse_payload(payload) if payload else None
        if chat_id is None:
            return None
        async with self.tables.lock(chat_id):
            try:
                table = await self.tables.load(chat_id)
            except TableNotFound:
                return None
            if user_id in table.meta.dm_blocked:
                blocked = [u for u in table.meta.dm_blocked if u != user_id]
                await self.tables.commit(
                    table, meta=table.meta.model_copy(update={"dm_blocked": blocked}))
        lang = await self.languages.of(chat_id)
        view = table.sight.view(user_id)
        markup = screens.decision_keyboard(lang, chat_id, table.sight, user_id,
                                           table.meta.decision,
                                           self.tables.clock.turn_dm_of(table.meta))
        if not view.my_cards and markup is None:
            return None
        lines = [i18n.t(lang, "decide_private")] if markup is not None else []
        return render.dm_text(lang, view, lines), markup


def done_label(lang: str, user_id: int, action: Action, step: Step[Any]) -> str:
    """What an accepted press's pop-up says was done: the action's label; for *Join*, the
    chips he sits down with (his buy-in as the table took it), since that is what Join
    spends, and a pop-up that said "Join" again read like a button still to press."""
    if isinstance(action, Join):
        joined = next((e.data.get("stack") for e in step.events if e.player == user_id
                       and isinstance(e.data.get("stack"), Chips)), None)
        amount = joined.n if isinstance(joined, Chips) else action.buy_in
        return i18n.plain(i18n.t(lang, "join_done", amount=amount))
    return i18n.action_label(lang, action.kind)


def seat_name(name: str, user_id: int) -> str:
    """The name a player sits down with: his Telegram name with its runs of white space made
    one space, at most 64 characters; his id where nothing of it would show (empty, blanks,
    invisible format characters), so that no text names him with nothing."""
    name = " ".join(name.split())[:64]
    visible = any(unicodedata.category(c)[0] not in "CZ" for c in name)
    return name if visible else str(user_id)

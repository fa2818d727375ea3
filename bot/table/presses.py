"""What players do: buttons in the group or in private, amounts they type, their own cards.

A press names its table, coup and step (:mod:`bot.view.codec`) and is decoded
strictly (:mod:`bot.view.codec`); anything stale, repeated or forged is refused and
changes nothing. An accepted press is committed through
:meth:`bot.table.tables.Tables.commit`, and only a committed step is answered as done.
What became of a press is returned as data (:mod:`bot.view.outcomes`), worded by the view
(:mod:`bot.view.answers`) where the gateway answers it. The asks to type an amount that a
press of ✏️ makes are :mod:`bot.table.asks`; the amount typed is taken here.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from bot.outbox import payloads
from bot.outbox.reports import VIEW
from bot.table import sends
from bot.table.asks import Asks
from bot.table.languages import Languages
from bot.table.record import OpenEphemeral, Table
from bot.table.tables import Tables
from bot.view import answers, codec, i18n, keyboards, render, screens
from bot.view.codec import Act, ActionButton, AskAmount, Forged, NotOffered, PickCards, Switch
from bot.view.keyboards import Keyboard
from bot.view.outcomes import (
    Accepted,
    Cards,
    DmOpened,
    Done,
    HostReason,
    NotANumber,
    Options,
    Outcome,
    OutOfBounds,
    PickHere,
    PickInPrivate,
    Refused,
    Repeated,
    Selection,
    Switched,
    Typed,
    Waiting,
    WhichAmount,
    YourMove,
)
from bot.view.sight import amount_field, choice_data, union_choices
from games.engine import (
    Action,
    Chips,
    IllegalAction,
    Join,
    Reason,
    Step,
    TableView,
    parse_action,
)
from storage.base import InsufficientFunds, StaleVersion, Storage, StorageError, TableNotFound

log = logging.getLogger(__name__)

MAX_DONE = 32
"""Updates that made a step kept per table (:attr:`bot.table.record.TableMeta.done`): far more
than can be in flight again when a worker dies."""


class Presses(Asks):
    """Buttons and typed amounts, turned into committed steps or refusals."""

    def __init__(self, tables: Tables, storage: Storage, languages: Languages,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(tables, storage, clock)
        self.languages = languages

    async def lang_of(self, chat_id: int, user_id: int, language: str | None) -> str:
        """The language of a player's pop-ups and private texts: his private chat's, else
        the one Telegram reports for him (``language``), else the group's."""
        group = await self.languages.of(chat_id)
        return await self.languages.of_player(user_id, i18n.lang_of(language, group))

    async def press(self, chat_id: int, user_id: int, name: str,
                    button: ActionButton, private: bool = False, key: str = "",
                    language: str | None = None, typed: bool = False,
                    here: bool = False) -> Outcome:
        """A table button: validate table/coup/version, decode strictly, apply, commit.
        ``key``: the press's callback query id; a press the table already took (delivered
        again) is answered as done, and not applied again. The label kept with the step for
        that is in the presser's language (:meth:`lang_of`, ``language``: his Telegram
        language), as his answer is. ``typed``: the amount was typed (the Mini App's
        field), any the engine takes, not only a preset. ``here``: pressed on his private
        view shown to him alone in the group (``private`` too: his own keyboard); an amount
        is asked of him there, and written in the group."""
        if button.chat_id != chat_id:
            return Refused(HostReason.OTHER_TABLE)
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return Refused(HostReason.NO_TABLE)
            if key and key in table.meta.done:
                return Repeated(table.meta.done[key], self._next(chat_id, user_id))
            if table.meta.paused:
                return Refused(HostReason.TABLE_PAUSED)
            state = table.state
            # a button answers a decision: good while that decision is still the presser's
            if button.coup != state.coup:
                return Refused(HostReason.STALE_COUP, self._now(table, user_id),
                               pressed=button.coup, coup=state.coup, game=table.game)
            if button.version > table.meta.decision:  # no button of ours carries a later one
                return Refused(HostReason.FORGED)
            if user_id in table.sight.view().awaiting and button.version != table.meta.decision:
                return Refused(HostReason.STALE_TURN, self._now(table, user_id))
            try:
                specs = [s for s in table.sight.legal(user_id) if s.kind == button.kind]
            except IllegalAction as exc:
                return Refused(exc.reason)
            if not specs:
                if button.kind not in table.engine.action_types:
                    return Refused(HostReason.FORGED)
                return self._refusal(table, user_id, button)
            try:
                decoded = codec.decode_press(table.sight, user_id, button, specs[0], private,
                                             typed)
            except NotOffered:
                return Refused(HostReason.STALE_AMOUNT, self._now(table, user_id))
            except Forged:
                return Refused(HostReason.FORGED)
            if isinstance(decoded, AskAmount):
                return await self.ask_amount(table, user_id, name, decoded,
                                             private and not here, here)
            if isinstance(decoded, PickCards):
                return self._pick(table, user_id, button.kind, decoded, private)
            if isinstance(decoded, Switch):
                return self._switch(table, user_id, decoded, private, here)
            action = await self._action(table, user_id, name, decoded)
            if isinstance(action, Refused):
                return action
            return await self._apply(table, user_id, action,
                                     await self.lang_of(chat_id, user_id, language), key)

    async def _action(self, table: Table, user_id: int, name: str,
                      decoded: Act) -> Action | Refused:
        data = dict(decoded.data)
        if data["kind"] == "join":
            w = await self.storage.wallet(chat_id=table.chat_id, user_id=user_id, name=name)
            if w.balance <= 0:
                return Refused(HostReason.WALLET_LOW)
            return Join(name=seat_name(name, user_id), buy_in=w.balance)
        # docs/rules.md §0.4: a cut's depth is the cutter's own (a preset or a typed amount,
        # like any amount); the host never draws it
        try:
            return parse_action(table.engine, data)
        except IllegalAction as exc:
            return Refused(exc.reason)

    def _pick(self, table: Table, user_id: int, kind: str, pick: PickCards,
              private: bool) -> PickHere | PickInPrivate:
        """Choices among the presser's own cards: a keyboard in his private chat only (the
        pressed private message itself turns into it), or in his view shown to him alone in
        the group (its Mini App button is taken off there, as from every group keyboard, by
        :meth:`bot.view.keyboards.Keyboard.in_group`)."""
        app = self.tables.clock.app_url(table.chat_id) or ""
        selection = Selection(table.chat_id, table.state.coup, table.meta.decision, kind,
                              tuple(pick.spec.choices), pick.mask or 0, pick.spec.max, app)
        if pick.mask is not None or private:
            return PickHere(selection)
        return PickInPrivate(user_id, selection)

    def _switch(self, table: Table, user: int, switch: Switch, private: bool,
                here: bool) -> Switched:
        """The pressed keyboard drawn again the other way (only it holds the way: no commit):
        his own (with the app's button in his private chat), or the group's table message."""
        clock, chat, meta = self.tables.clock, table.chat_id, table.meta
        drawn = Options(chat, table.sight, user, meta.decision), switch.way, switch.choice
        if private:
            return Switched(*drawn, page="" if here else clock.app_url(chat) or "")
        return Switched(*drawn, group=True, app=clock.in_app(meta),
                        open_url=clock.links.group_url(chat) if clock.links else None,
                        prompted=clock.told_elsewhere(chat, meta, table.sight))

    def _now(self, table: Table, user_id: int) -> Options | Waiting | None:
        """What is current, for the refusal of a stale press: the presser's own move (his
        options) or whom the table waits for."""
        view = table.sight.view()
        if user_id in view.awaiting:
            return Options(table.chat_id, table.sight, user_id, table.meta.decision)
        return waiting(view) if view.awaiting else None

    def _refusal(self, table: Table, user_id: int, button: ActionButton) -> Refused:
        """Why a press of an action the presser may not take now is refused: the engine says
        best, given the action as the button states it."""
        field = amount_field(table.engine, button.kind)
        data: dict[str, object] = {"kind": button.kind}
        if button.amount is not None and field is not None:
            data[field] = button.amount
        if button.kind != "join" and not (
                button.ask or button.choice is not None or button.select is not None
                or button.confirm is not None or button.switch is not None):
            try:
                table.engine.apply(table.state, user_id, parse_action(table.engine, data))
            except IllegalAction as exc:
                return Refused(exc.reason)
        return Refused(self._why_not(table, user_id, button.kind))

    def _why_not(self, table: Table, user_id: int, kind: str) -> Reason:
        view = table.sight.view()
        if all(s.player != user_id for s in view.seats) and kind != "join":
            return Reason.NOT_SEATED
        if view.awaiting and user_id not in view.awaiting:
            return Reason.NOT_YOUR_TURN
        return Reason.WRONG_PHASE

    async def _apply(self, table: Table, user_id: int, action: Action, lang: str,
                     key: str = "") -> Accepted | Refused:
        """Apply and commit the presser's action. With ``key``, the step keeps what it did
        in the words of his answer (in ``lang``), for that update delivered again."""
        try:
            step = table.engine.apply(table.state, user_id, action)
        except IllegalAction as exc:
            return Refused(exc.reason)
        done = what_was_done(user_id, action, step)
        meta = table.meta
        if key:  # kept with the step: the update delivered again is answered the same
            kept = list(meta.done.items())[-(MAX_DONE - 1):]
            meta = meta.model_copy(update={
                "done": {**dict(kept), key: answers.done_label(lang, done)}})
        try:
            await self.tables.commit(table, step, meta=meta, actor=user_id,
                                     decided=action.kind not in keyboards.UTILITIES,
                                     action=action.kind)
        except StaleVersion:
            return Refused(HostReason.STALE)
        except TableNotFound:  # closed meanwhile (python -m bot.admin close)
            return Refused(HostReason.NO_TABLE)
        except InsufficientFunds:
            return Refused(Reason.INSUFFICIENT_CHIPS)
        return Accepted(done, self._next(table.chat_id, user_id))

    def _next(self, chat_id: int, user_id: int) -> YourMove | Waiting | None:
        """Whose move it is now, for an accepted press's answer (a pop-up costs the group
        nothing, so the presser learns it at once)."""
        table = self.tables.tables.get(chat_id)
        if table is None:
            return None
        view = table.sight.view()
        if user_id in view.awaiting:
            return YourMove()
        return waiting(view) if view.awaiting else None

    async def send_pick(self, chat_id: int, user_id: int, text: str, markup: Keyboard
                        ) -> None:
        """Queue the private selection keyboard a press opened (after the answer)."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            await self.tables.commit(table, outbox=[payloads.dm_message(user_id, text, markup)])

    async def typed_amount(self, chat_id: int, user_id: int, name: str, text: str,
                           mentioned: bool = False, key: str = "", private: bool = False,
                           language: str | None = None) -> Typed | None:
        """A group message from a player asked for an amount (his reply to the prompt, or
        "@bot 200"); what to reply when it was not taken, or None. "@bot 200" without a
        prompt is the amount of the one amount action he may take now, if there is exactly
        one. ``key``: the message's, so that a message delivered again is not applied twice.
        ``private``: typed in his private chat, for an ask made there (his language:
        ``language``, his Telegram one). A wrong amount leaves the ask open: his next
        message may be the right one."""
        asked = await self.tables.find(chat_id)
        if asked is None:
            return None
        if key and key in asked.meta.done:
            return None
        # the player's ask, kept with the table (any worker may have taken the press)
        prompt = asked.meta.asks.get(user_id)
        if prompt is not None and prompt.private != private:
            prompt = None  # asked in the other chat: answered there
        if prompt is None and mentioned:
            prompt = self.only_amount(asked, user_id)
            if prompt is None:
                return WhichAmount(name, self.tables.bot_username)
        if prompt is None or prompt.expires < self.clock():
            return None
        # the words of the label kept with the step: those of his reply
        lang = (await self.lang_of(chat_id, user_id, language) if private
                else await self.languages.of(chat_id))
        amount = codec.parse_amount(text)
        if amount is None:
            return NotANumber(name)
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return None
            try:
                specs = [s for s in table.sight.legal(user_id) if s.kind == prompt.kind]
            except IllegalAction:
                specs = []
            if table.state.coup != prompt.coup or not specs or table.meta.paused:
                return Refused(Reason.WRONG_PHASE)
            lo, hi = codec.amount_bounds(specs)
            if amount < lo or amount > hi:
                return OutOfBounds(name, lo, hi)
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
                action = await self._action(table, user_id, name, decoded) if isinstance(
                    decoded, Act) else Refused(HostReason.FORGED)
            except Forged:
                action = Refused(HostReason.FORGED)
            if isinstance(action, Refused):
                return dataclasses.replace(action, name=name)
            if key and key in table.meta.done:
                return None
            outcome = await self._apply(table, user_id, action, lang, key)
            if isinstance(outcome, Refused):
                return dataclasses.replace(outcome, name=name)
            return None

    async def show_private(self, chat_id: int, user_id: int,
                           send: Callable[[str, str, Keyboard | None], Awaitable[int | None]]
                           ) -> bool:
        """Show the player his private view in the group, to him alone (``send(lang, text,
        keyboard)`` sends it as an ephemeral message: its id, or None when it did not go):
        the table from his seat as his turn prompt draws it, with his decision keyboard
        while he is awaited (:func:`bot.view.screens.ephemeral_view`), in the language of
        his private texts (:meth:`bot.table.languages.Languages.of_player`). One with a
        keyboard is kept with the table, edited as his decision changes and disarmed once
        it is gone. Whether it went; False also when he has nothing private to see."""
        table = await self.tables.find(chat_id)
        if table is None:
            return False
        decision = table.meta.decision
        lang = await self.lang_of(chat_id, user_id, None)
        drawn = (await self._moment(table)).view(lang, chat_id, user_id)
        if drawn is None:
            return False
        message_id = await send(lang, drawn.text, drawn.markup)
        if message_id is None:
            return False
        if drawn.markup is not None:
            await self.ephemeral_shown(chat_id, user_id, message_id, decision, drawn.digest)
        return True

    async def ephemeral_shown(self, chat_id: int, user_id: int, message_id: int,
                              decision: int, digest: str | None = None) -> None:
        """A view with the player's keyboard for ``decision`` was shown to him alone in the
        group (its ephemeral message ``message_id``; ``digest``: what it shows, None for his
        selection of cards, which stands for his decision's view). It is kept with the table
        while the decision is open, brought up to date if it shows something else now, and
        disarmed at once if its decision is gone. A view he had before is deleted: one of
        his decision at a time."""
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return
            meta, now = table.meta, await self._moment(table)
            lang = await self.lang_of(chat_id, user_id, None)
            before = meta.ephemerals.get(user_id)
            drafts = [payloads.ephemeral_delete(chat_id, user_id, before.message_id)] if (
                before is not None and before.message_id != message_id) else []
            if digest is None and decision == meta.decision:
                # his selection of cards, its decision still open: it stands for its view
                view = now.view(lang, chat_id, user_id)
                digest = view.digest if view is not None else None
            # as a step would find it: brought up to date where it shows something else
            # now, disarmed if its decision is gone
            kept, edits = sends.ephemeral_drafts(
                {user_id: lang}, chat_id, now, now,
                {user_id: OpenEphemeral(message_id=message_id, decision=decision,
                                        digest=digest or "")},
                lambda _: i18n.t(lang, "prompt_over"))
            drafts += edits
            ephemerals = {**{p: e for p, e in meta.ephemerals.items() if p != user_id}, **kept}
            try:
                await self.tables.commit(table, meta=meta.model_copy(
                    update={"ephemerals": ephemerals}), outbox=drafts, redraw=False)
            except StorageError:  # another worker's step: the view stays as it was shown
                log.info("the view of chat %s was not kept", chat_id)
                return
        if kept:  # it shows him his turn: a fact of presence, as a delivered prompt is
            await self.tables.clock.turn_seen(chat_id, decision, [user_id], VIEW)

    async def _moment(self, table: Table) -> sends.Moment:
        """The table's moment as a private screen draws it: its clock as the facts of
        presence say (started or not yet), not only as last committed."""
        clock = self.tables.clock
        return sends.Moment.of(table, clock.drawn_due(await clock.started(table)))

    async def my_cards(self, chat_id: int, user_id: int) -> Cards:
        """*My cards*: the presser's own view (his hidden cards, nobody else's)."""
        table = await self.tables.find(chat_id)
        if table is None:
            return Cards(None)
        return Cards(table.sight.view(user_id))

    async def dm_opened(self, user_id: int, payload: str | None) -> DmOpened | None:
        """A player pressed Start in private (maybe from a deep link): the table it names,
        whose private messages he may get again, for his cards and his pending decision."""
        chat_id = screens.parse_payload(payload) if payload else None
        if chat_id is None:
            return None
        async with self.tables.locked(chat_id) as table:
            if table is None:
                return None
            if user_id in table.meta.dm_blocked:
                blocked = [u for u in table.meta.dm_blocked if u != user_id]
                await self.tables.commit(
                    table, meta=table.meta.model_copy(update={"dm_blocked": blocked}))
        return DmOpened(chat_id, table.sight, user_id, table.meta.decision,
                        self.tables.clock.prompts_in_private(table.meta),
                        self.tables.clock.app_url(chat_id) or "")


def what_was_done(user_id: int, action: Action, step: Step[Any]) -> Done:
    """What an accepted press did: the action's kind; for *Join*, the chips he sits down
    with (his buy-in as the table took it), which his answer names."""
    if isinstance(action, Join):
        joined = next((e.data.get("stack") for e in step.events if e.player == user_id
                       and isinstance(e.data.get("stack"), Chips)), None)
        return Done(action.kind, joined.n if isinstance(joined, Chips) else action.buy_in)
    return Done(action.kind)


def waiting(view: TableView) -> Waiting:
    """The players the table waits for, by their seat names."""
    names = render.names_of(view)
    return Waiting(tuple(names.get(p, str(p)) for p in view.awaiting))


def seat_name(name: str, user_id: int) -> str:
    """The name a player sits down with: his Telegram name with its runs of white space made
    one space, at most 64 characters; his id where nothing of it would show (empty, blanks,
    invisible format characters), so that no text names him with nothing."""
    name = " ".join(name.split())[:64]
    visible = any(unicodedata.category(c)[0] not in "CZ" for c in name)
    return name if visible else str(user_id)

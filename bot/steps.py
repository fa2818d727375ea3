"""Committing a step: the engine's result, its ledger rows and the next deadline in one
transaction, and only then the texts (DESIGN.md, "Nothing is sent to Telegram before
that commit"). Deadlines come back here when they pass.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from bot import i18n, render
from bot.delivery import Delivery
from bot.outbox import NewMessage
from games.engine import Engine, Event, GameState, Step, Transfer, visible_events
from storage.base import InsufficientFunds, StaleVersion, TableNotFound

log = logging.getLogger(__name__)

MAX_COUP_LINES = 60
# How many cards of recent public events the table remembers (meta "shown"): enough for
# any coup of any game, small enough to rewrite with every step.
MAX_SHOWN = 200
SETTLED = ("coup_settled", "hand_settled")
_OWNED = re.compile(r"^[a-z_]+:(-?\d+)$")
CARD = re.compile(r"[2-9TJQKA][cdhs]")


def raw_cards(value: Any) -> list[str]:
    """Card strings (``"Th"``) anywhere in plain event data."""
    if isinstance(value, str):
        return [value] if CARD.fullmatch(value) else []
    if isinstance(value, list | tuple):
        return [c for v in value for c in raw_cards(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in raw_cards(v)]
    return []


def is_settlement(event: Event) -> bool:
    """Events that close a coup (a new group message)."""
    return event.kind in SETTLED or event.kind.endswith("_settled")


def owner_of(account: str) -> int | None:
    """The player an account like ``stack:42`` belongs to; None for shared ones (bank, pot)."""
    m = _OWNED.match(account)
    return int(m.group(1)) if m else None



class Steps(Delivery):
    """Commit-then-send for every step, and the deadlines that apply safe defaults."""

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
        # the cards the engine made public, as it gave them (not as rendered): the e2e
        # transcript check holds every group text against this list
        shown = [c for e in public_events if e.kind != "shoe_revealed"
                 for c in raw_cards(e.data)]
        if shown:
            meta["shown"] = [*meta.get("shown", []), *shown][-MAX_SHOWN:]
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

"""Achievements announced once: before a step that settles a coup is planned, storage is
asked which achievements its players reach with it (:meth:`storage.base.Storage.
achievements_due`, under the chat's lock, before the step records them); the plan keeps them
with the coup's result in the table record (every screen that shows the result shows them
under it: :attr:`bot.view.scene.Scene.earned`), and each player is told in private, in his
language.

The host knows no achievement by name: a game declares them
(:func:`games.registry.achievements_of`) and words them; a step of a game that declares
none, or that settles nothing, asks storage nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.outbox.payloads import DirectMessage
from bot.table.languages import Languages
from bot.table.plan import Plan, settled_coups
from bot.table.record import Table, TableMeta
from bot.view import achievements
from games import registry
from games.engine import Settlement, Step
from storage.base import Earned, Storage


async def due(storage: Storage, table: Table, step: Step[Any], meta: TableMeta,
              now: float) -> list[Earned]:
    """The achievements the coups ``step`` settles on ``table`` earn their players (none
    asked for unless it settles one of a game that declares some)."""
    if not any(isinstance(e, Settlement) for e in step.events) \
            or not registry.achievements_of(table.game):
        return []
    return await storage.achievements_due(
        chat_id=table.chat_id, settled=settled_coups(table.game, meta.opened, now, step.events))


def pairs(earned: list[Earned]) -> list[tuple[int, str]]:
    """Who reached which achievement, in the order reached, as the record keeps them."""
    return [(e.user_id, e.key) for e in earned]


async def told(storage: Storage, languages: Languages, table: Table, earned: list[Earned],
               planned: Plan) -> Plan:
    """``planned`` with a private message to each player of ``earned``, in his language,
    saying what he reached (but to those the bot cannot write to)."""
    if not earned:
        return planned
    chat_id = table.chat_id
    lang = await languages.of(chat_id)
    chat = await storage.chat_title(chat_id=chat_id)
    blocked = set(planned.meta.dm_blocked)
    drafts = [DirectMessage(text=achievements.earned_dm(
        await languages.of_player(e.user_id, lang), e.game, e.key, chat)).draft(e.user_id)
        for e in earned if e.user_id not in blocked]
    return dataclasses.replace(planned, drafts=[*planned.drafts, *drafts])

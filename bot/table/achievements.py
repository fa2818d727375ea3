"""Achievements announced once: the step that settles a coup asks storage which ones its
players reach with it (:meth:`storage.base.Storage.achievements_due`, under the chat's lock,
before the step records them), keeps them with the coup's result in the table record (the
group's table message, the app's result and a player's view in the group show them under
it: :attr:`bot.view.scene.Scene.earned`) and tells each player in private, in his language.

The host knows no achievement by name: a game declares them
(:func:`games.registry.achievements_of`) and words them; a step of a game that declares
none, or that settles nothing, asks storage nothing.
"""

from __future__ import annotations

import dataclasses

from bot.outbox.payloads import DirectMessage
from bot.table.languages import Languages
from bot.table.plan import Plan
from bot.table.record import Table
from bot.view import achievements, results
from games import registry
from storage.base import Storage


async def announced(storage: Storage, languages: Languages, table: Table, planned: Plan
                    ) -> Plan:
    """``planned`` (the plan of a step of ``table``), with the achievements its settled coups
    earn kept in its record's last result, and a private message to each player who earned
    one (but those the bot cannot write to)."""
    if not planned.settled or not registry.achievements_of(table.game):
        return planned
    chat_id, meta = table.chat_id, planned.meta
    earned = await storage.achievements_due(chat_id=chat_id, settled=planned.settled)
    if not earned:
        return planned
    if meta.last_result is not None:
        meta.last_result = results.with_earned(meta.last_result,
                                               [(e.user_id, e.key) for e in earned])
    lang = await languages.of(chat_id)
    chat = await storage.chat_title(chat_id=chat_id)
    blocked = set(meta.dm_blocked)
    drafts = [DirectMessage(text=achievements.earned_dm(
        await languages.of_player(e.user_id, lang), e.game, e.key, chat)).draft(e.user_id)
        for e in earned if e.user_id not in blocked]
    return dataclasses.replace(planned, drafts=[*planned.drafts, *drafts])

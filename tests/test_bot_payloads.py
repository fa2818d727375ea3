"""The outbox's payloads, typed: each kind's model reads the rows the database already holds,
the drafts write them as they were written before the models, and a row that is not its
kind's is refused by name (never by its values: a DM holds hidden cards), logged and dropped
by the courier while the rest of the chat's outbox goes out."""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    CHAT,
    RecordingBot,
    make_host,
    seat_three,
)

from bot.outbox import payloads
from bot.outbox.kinds import CLOSE, DM, DM_EDIT, EPHEMERAL, GROUP, SETTLE, TABLE
from bot.outbox.payloads import (
    BadPayload,
    Closing,
    CoupResult,
    DirectMessage,
    EphemeralChange,
    GroupPost,
    PromptEdit,
    TablePost,
)
from bot.view.keyboards import Keyboard
from bot.view.screens import Prompt
from storage.base import OutboxDraft, OutboxItem

KEYS = {"inline_keyboard": [[{"text": "Hit", "callback_data": "a:1"}]]}

# Rows as the database holds them, written by the constructors before the models (the
# payload column's JSON, loaded), each with the model it must read as.
ROWS: list[tuple[str, dict[str, Any], object]] = [
    (GROUP, {"text": "Ann sits down", "markup": None}, GroupPost(text="Ann sits down")),
    (GROUP, {"text": "Pick a game", "markup": KEYS}, GroupPost(text="Pick a game", markup=KEYS)),
    (DM, {"text": "Your cards: 9♥ K♠", "markup": None}, DirectMessage(text="Your cards: 9♥ K♠")),
    (DM, {"turn": 7, "version": 9, "digest": "d1", "text": "Your turn", "markup": KEYS},
     DirectMessage(text="Your turn", markup=KEYS, turn=7, version=9, digest="d1")),
    # a turn prompt drafted before its payload carried the version it was drawn at
    (DM, {"turn": 7, "digest": "d1", "text": "Your turn", "markup": KEYS},
     DirectMessage(text="Your turn", markup=KEYS, turn=7, digest="d1")),
    (DM_EDIT, {"message_id": 41, "text": "Your turn", "markup": None, "digest": "d2"},
     PromptEdit(message_id=41, text="Your turn", digest="d2")),
    (EPHEMERAL, {"receiver": ANN, "message_id": 5, "text": "Your view", "markup": KEYS},
     EphemeralChange(receiver=ANN, message_id=5, text="Your view", markup=KEYS)),
    (EPHEMERAL, {"receiver": ANN, "message_id": 5, "delete": True},
     EphemeralChange(receiver=ANN, message_id=5, delete=True)),
    (SETTLE, {"text": "Coup #3: Bob wins 20"}, CoupResult(text="Coup #3: Bob wins 20")),
    (CLOSE, {"text": "Table closed", "markup": KEYS}, Closing(text="Table closed", markup=KEYS)),
    # a closing text drafted before it carried a keyboard of its own
    (CLOSE, {"text": "Table closed"}, Closing(text="Table closed")),
    (TABLE, {}, TablePost()),
    (TABLE, {"asked": True}, TablePost(asked=True)),
]


def row(kind: str, payload: dict[str, Any]) -> OutboxItem:
    return OutboxItem(id=1, chat_id=CHAT, kind=kind, target=CHAT, payload=payload,
                      created_at=0.0)


@pytest.mark.parametrize(("kind", "payload", "model"), ROWS)
def test_a_row_written_before_the_models_reads_as_its_kinds_model(
        kind: str, payload: dict[str, Any], model: object) -> None:
    assert payloads.read(row(kind, payload)) == model


def test_the_drafts_write_the_rows_as_they_were_written_before() -> None:
    keys = Keyboard(())
    turn = Prompt(text="Your turn", markup=keys, digest="d1")
    drafts = [payloads.group_message(CHAT, "Ann sits down"),
              payloads.dm_message(ANN, "Your cards: 9♥ K♠"),
              payloads.turn_prompt(ANN, 7, 9, turn),
              payloads.prompt_edit(ANN, 41, turn),
              payloads.ephemeral_edit(CHAT, ANN, 5, turn),
              payloads.ephemeral_delete(CHAT, ANN, 5),
              payloads.settlement(CHAT, "Coup #3: Bob wins 20"),
              payloads.table_post(CHAT),
              payloads.table_post(CHAT, asked=True)]
    empty = {"inline_keyboard": []}
    assert [(d.kind, d.target, d.payload) for d in drafts] == [
        (GROUP, CHAT, {"text": "Ann sits down", "markup": None}),
        (DM, ANN, {"text": "Your cards: 9♥ K♠", "markup": None}),
        (DM, ANN, {"turn": 7, "version": 9, "digest": "d1", "text": "Your turn",
                   "markup": empty}),
        (DM_EDIT, ANN, {"message_id": 41, "text": "Your turn", "markup": empty,
                        "digest": "d1"}),
        (EPHEMERAL, CHAT, {"receiver": ANN, "message_id": 5, "text": "Your turn",
                           "markup": empty}),
        (EPHEMERAL, CHAT, {"receiver": ANN, "message_id": 5, "delete": True}),
        (SETTLE, CHAT, {"text": "Coup #3: Bob wins 20"}),
        (TABLE, CHAT, {}),
        (TABLE, CHAT, {"asked": True})]
    closing = payloads.closing(CHAT, "Table closed", 3, 12)
    assert (closing.kind, set(closing.payload)) == (CLOSE, {"text", "markup"})
    assert payloads.read(closing) == Closing(text="Table closed",
                                             markup=closing.payload["markup"])


@pytest.mark.parametrize(("kind", "payload", "refusal"), [
    (DM, {"turn": 7, "cards": "9♥ K♠"}, "an outbox item of kind 'dm': text: missing"),
    (GROUP, {"text": 5, "markup": None}, "an outbox item of kind 'group': text: string_type"),
    (DM_EDIT, {"message_id": "41", "text": "9♥ K♠"},
     "an outbox item of kind 'dm_edit': message_id: int_type"),
    (EPHEMERAL, {"receiver": ANN, "text": "9♥ K♠", "delete": "yes"},
     "an outbox item of kind 'ephemeral': message_id: missing, delete: bool_type"),
    ("retire", {"message_ids": [3]}, "an outbox item of unknown kind 'retire'"),
])
def test_a_payload_not_of_its_kind_is_refused_by_name_not_by_its_values(
        kind: str, payload: dict[str, Any], refusal: str) -> None:
    with pytest.raises(BadPayload) as refused:
        payloads.read(row(kind, payload))
    assert str(refused.value) == refusal
    # nor would its traceback, logged, show the hidden cards (pydantic's error quotes them)
    assert "9♥" not in "".join(traceback.format_exception(refused.value))


def test_a_payload_read_as_another_kind_is_refused() -> None:
    with pytest.raises(BadPayload) as refused:
        PromptEdit.of(payloads.dm_message(ANN, "hi"))
    assert str(refused.value) == "an outbox item of kind 'dm', not 'dm_edit'"


async def test_the_courier_logs_and_drops_a_row_not_of_its_kind_and_sends_the_rest(
        make_host: Any, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await host.idle()
    group, dms = len(bot.chat(CHAT)), len(bot.chat(ANN))
    table = await host.tables.load(CHAT)
    caplog.set_level(logging.ERROR, logger="bot.outbox.courier")
    await host.tables.commit(table, redraw=False, outbox=[
        OutboxDraft(kind=DM, target=ANN, payload={"turn": 7, "cards": "9♥ K♠"}),
        OutboxDraft(kind=GROUP, target=CHAT, payload={"text": 5, "markup": None}),
        OutboxDraft(kind="retire", target=CHAT, payload={"message_ids": [3]}),
        payloads.group_message(CHAT, "After the bad rows"),
        payloads.dm_message(ANN, "A good DM")])
    await host.idle()
    assert [m.text for m in bot.chat(CHAT)[group:]] == ["After the bad rows"]
    assert [m.text for m in bot.chat(ANN)[dms:]] == ["A good DM"]
    assert [re.sub(r"item \d+", "item N", r.getMessage()) for r in caplog.records] == [
        "chat -100: outbox item N dropped: an outbox item of kind 'dm': text: missing",
        "chat -100: outbox item N dropped: an outbox item of kind 'group': text: string_type",
        "chat -100: outbox item N dropped: an outbox item of unknown kind 'retire'"]
    assert all(r.exc_info is None for r in caplog.records)
    assert await host.storage.pending_outbox(chat_id=CHAT) == []

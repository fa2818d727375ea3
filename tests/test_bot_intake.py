"""Reading getUpdates batches: each update on its own, a press's message cut to its id and chat."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from telegram import Bot, Update
from telegram.ext import Defaults, ExtBot

from bot.gateway.intake import screened

GROUP = {"id": -5, "type": "supergroup", "title": "Table"}
ANN = {"id": 7, "is_bot": False, "first_name": "Ann"}


def press(update_id: int, data: str) -> dict[str, Any]:
    keyboard = {"inline_keyboard": [[{"text": f"Stake {v}", "callback_data": f"a|{v}"}
                                     for v in range(8)] for _ in range(4)]}
    return {"update_id": update_id, "callback_query": {
        "id": f"q{update_id}", "from": ANN, "chat_instance": "ci", "data": data,
        "message": {"message_id": 41, "date": 1_700_000_000, "chat": GROUP,
                    "from": {"id": 1, "is_bot": True, "first_name": "Banco"},
                    "text": "Chemin de fer, coup #3\nAnn 100", "reply_markup": keyboard}}}


def test_a_batch_is_read_update_by_update_and_a_press_keeps_what_the_bot_reads() -> None:
    bot = Bot("1:x")
    broken = {"update_id": 11, "message": {"message_id": 1, "date": 1, "text": "/start"}}
    out = screened([press(10, "a|1"), broken, {"no": "id"}, press(12, "a|2")], bot)
    assert [u.update_id for u in out] == [10, 11, 12]
    first, bare, last = out
    query = first.callback_query
    assert query is not None and query.message is not None
    assert (query.data, query.from_user.id, query.message.chat.id, query.message.message_id) == (
        "a|1", 7, -5, 41)
    assert query.message.chat.type == "supergroup"
    # the bot's own text and keyboard are not read back
    assert getattr(query.message, "text", None) is None
    assert getattr(query.message, "reply_markup", None) is None
    # the message without its chat cannot be read: a bare update nobody acts on
    assert bare.message is None and bare.callback_query is None
    assert last.callback_query is not None and last.callback_query.data == "a|2"


def test_an_ephemeral_message_is_read_not_screened_out() -> None:
    """Bot API 10.2: a press on a message only its receiver sees (``message_id`` 0, its
    ``ephemeral_message_id`` naming it) and a user's reply to one (itself ephemeral) are read
    like any other, the ephemeral id kept."""
    bot = Bot("1:x")
    pressed = press(20, "a|3")
    message = pressed["callback_query"]["message"]
    message.update({"message_id": 0, "ephemeral_message_id": 4, "receiver_user": ANN})
    reply = {"update_id": 21, "message": {
        "message_id": 0, "ephemeral_message_id": 5, "date": 1_700_000_001, "chat": GROUP,
        "from": ANN, "text": "25", "receiver_user": {"id": 1, "is_bot": True,
                                                     "first_name": "Banco"}}}
    first, second = screened([pressed, reply], bot)
    query = first.callback_query
    assert query is not None and query.message is not None
    assert (query.data, query.message.chat.id, query.message.message_id) == ("a|3", -5, 0)
    assert query.message.api_kwargs["ephemeral_message_id"] == 4
    assert second.message is not None
    assert (second.message.text, second.message.message_id, second.message.from_user.id) == (
        "25", 0, 7)
    assert second.message.api_kwargs["ephemeral_message_id"] == 5


def test_a_press_reads_as_ptb_reads_it_with_its_message_cut() -> None:
    """What the bot builds of a press itself (its update, query and message) is what PTB's
    reading makes of the press with its message cut to its id, date and chat, whatever the
    press holds and whatever zone the bot's dates are in."""
    plain = press(30, "a|4")
    ephemeral = press(31, "a|5")
    ephemeral["callback_query"]["message"].update(message_id=0, ephemeral_message_id=9)
    zero = press(32, "a|6")
    zero["callback_query"]["message"]["date"] = 0  # (PTB's mark of an inaccessible message)
    unknown = {**press(33, "a|7"), "something_new": {"x": 1}}
    moscow = ExtBot("1:x", defaults=Defaults(tzinfo=ZoneInfo("Europe/Moscow")))
    for bot in (Bot("1:x"), moscow):
        items = [plain, ephemeral, zero, unknown]
        for item, update in zip(items, screened(items, bot), strict=True):
            message = item["callback_query"]["message"]
            cut = {k: message[k] for k in ("message_id", "date", "chat", "ephemeral_message_id")
                   if k in message}
            expected = Update.de_json({**item, "callback_query": {
                **item["callback_query"], "message": cut}}, bot)
            assert update.to_dict() == expected.to_dict()
            assert update.api_kwargs == expected.api_kwargs
            query, read = update.callback_query, expected.callback_query
            assert query is not None and read is not None
            assert query.message is not None and read.message is not None
            assert query.message.date == read.message.date
            assert query.message.api_kwargs == read.message.api_kwargs
            assert query.message.chat.to_dict() == read.message.chat.to_dict()
            for made in (update, query, query.message, query.message.chat, query.from_user):
                assert made.get_bot() is bot
    assert moscow_date(screened([plain], moscow)[0]) == "2023-11-15 01:13:20+03:00"
    # a pressed message without its date cannot be read (PTB fails on it): a bare update
    undated = press(34, "a|8")
    del undated["callback_query"]["message"]["date"]
    (bare,) = screened([undated], moscow)
    assert (bare.update_id, bare.callback_query) == (34, None)


def moscow_date(update: Update) -> str:
    assert update.callback_query is not None and update.callback_query.message is not None
    return str(update.callback_query.message.date)

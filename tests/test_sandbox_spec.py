"""Spec validation and markup parsing of the sandbox, without a server."""

from __future__ import annotations

import pytest

from sandbox.formatting import auto_entities, parse_html, parse_markdown_v2, utf16_len
from sandbox.spec import ApiError, find_method, load_spec, minimal_result, types, validate_call

KEYBOARD = '{"inline_keyboard": [[{"text": "Banco", "callback_data": "t1:banco"}]]}'


def test_form_strings_are_coerced_to_spec_types() -> None:
    name, params = validate_call(
        "sendmessage",
        {"chat_id": "-100", "text": "hi", "disable_notification": "true", "reply_markup": KEYBOARD},
    )
    assert name == "sendMessage"
    assert params == {
        "chat_id": -100,
        "text": "hi",
        "disable_notification": True,
        "reply_markup": {"inline_keyboard": [[{"text": "Banco", "callback_data": "t1:banco"}]]},
    }
    assert validate_call("sendMessage", {"chat_id": "@ann", "text": "x"})[1]["chat_id"] == "@ann"


def test_nested_objects_need_their_required_fields() -> None:
    no_text = '{"inline_keyboard": [[{"callback_data": "x"}]]}'
    with pytest.raises(ApiError) as refused:
        validate_call("sendMessage", {"chat_id": 1, "text": "x", "reply_markup": no_text})
    assert (refused.value.code, refused.value.description) == (
        400,
        "Bad Request: can't parse parameter 'reply_markup': expected InlineKeyboardMarkup or "
        "ReplyKeyboardMarkup or ReplyKeyboardRemove or ForceReply",
    )


def test_abstract_types_match_one_subtype_by_its_discriminator() -> None:
    ok = validate_call(
        "setMyCommands", {"commands": [], "scope": {"type": "chat", "chat_id": "-5"}}
    )
    assert ok[1]["scope"] == {"type": "chat", "chat_id": -5}
    with pytest.raises(ApiError):
        validate_call("setMyCommands", {"commands": [], "scope": {"type": "chat"}})
    with pytest.raises(ApiError):
        validate_call("setMyCommands", {"commands": [], "scope": {"type": "planet"}})


def test_unknown_methods_and_parameters() -> None:
    with pytest.raises(ApiError) as missing:
        validate_call("sendTelegram", {})
    assert (missing.value.code, missing.value.description) == (404, "Not Found")
    with pytest.raises(ApiError) as extra:
        validate_call("getMe", {"verbose": "1"})
    assert extra.value.description == "Bad Request: unknown parameter 'verbose' for method getMe"


def test_minimal_results_follow_the_return_type() -> None:
    assert minimal_result("setMyName") is True
    assert minimal_result("getMyName") == {"name": ""}


def test_html_entities_use_utf16_offsets() -> None:
    text, entities = parse_html(
        "🂡 <b>Ace &lt;1&gt;</b> <a href='https://x.org/?a=1&amp;b=2'>link</a>"
    )
    assert text == "🂡 Ace <1> link"
    assert entities == [
        {"type": "bold", "offset": 3, "length": 7},
        {"type": "text_link", "offset": 11, "length": 4, "url": "https://x.org/?a=1&b=2"},
    ]
    assert utf16_len("🂡") == 2


def test_html_pre_with_language_is_one_entity() -> None:
    text, entities = parse_html('<pre><code class="language-python">x = 1</code></pre>')
    assert (text, entities) == (
        "x = 1",
        [{"type": "pre", "offset": 0, "length": 5, "language": "python"}],
    )


def test_markdown_v2_entities_and_errors() -> None:
    text, entities = parse_markdown_v2(r"__Bank__ ||hidden|| [rules](https://x.org/r) `a\`b`")
    assert text == "Bank hidden rules a`b"
    assert [(e["type"], e["offset"], e["length"]) for e in entities] == [
        ("underline", 0, 4),
        ("spoiler", 5, 6),
        ("text_link", 12, 5),
        ("code", 18, 3),
    ]
    with pytest.raises(ApiError) as unclosed:
        parse_markdown_v2("*bold")
    assert unclosed.value.description == (
        "Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 0"
    )


def test_commands_urls_and_mentions_are_detected_in_plain_text() -> None:
    found = auto_entities("/join@banco_bot 50 see https://t.me/banco_bot?start=x @banco_bot")
    assert [(e["type"], e["offset"], e["length"]) for e in found] == [
        ("bot_command", 0, 15),
        ("url", 23, 30),
        ("mention", 54, 10),
    ]


EPHEMERAL_EDITS = (
    "editEphemeralMessageText",
    "editEphemeralMessageReplyMarkup",
    "editEphemeralMessageCaption",
    "editEphemeralMessageMedia",
    "deleteEphemeralMessage",
)
ADDRESS = {"chat_id": "-100", "receiver_user_id": "7", "ephemeral_message_id": "1"}


def test_the_spec_is_bot_api_10_2() -> None:
    spec = load_spec()
    assert spec["version"] == "Bot API 10.2"
    assert "PaulSonOfLars/telegram-bot-api-spec" in spec["source"]
    assert "aiogram" in spec["source"]
    # the edits answer True, as Telegram documents (not the Message, unlike editMessageText)
    for method in EPHEMERAL_EDITS:
        assert find_method(method)["returns"] == ["Boolean"]
        assert minimal_result(method) is True
    message = {f["name"]: f for f in types()["Message"]["fields"]}
    assert message["receiver_user"]["types"] == ["User"]
    assert message["ephemeral_message_id"]["types"] == ["Integer"]
    command = {f["name"]: f for f in types()["BotCommand"]["fields"]}
    assert command["is_ephemeral"]["required"] is False
    assert "Community" in types() and "InputRichBlockParagraph" in types()


def test_ephemeral_methods_take_their_address_and_refuse_unknown_parameters() -> None:
    for method in EPHEMERAL_EDITS:
        name, params = validate_call(method.lower(), {**ADDRESS, "text": "x"}
                                     if method == "editEphemeralMessageText" else
                                     {**ADDRESS, "media": {"type": "photo", "media": "x"}}
                                     if method == "editEphemeralMessageMedia" else ADDRESS)
        assert name == method
        assert (params["chat_id"], params["receiver_user_id"], params["ephemeral_message_id"]) == (
            -100, 7, 1)
        with pytest.raises(ApiError) as extra:
            validate_call(method, {**ADDRESS, "message_id": "1"})
        assert extra.value.description == (
            f"Bad Request: unknown parameter 'message_id' for method {method}"
        )


def test_ephemeral_methods_need_every_part_of_the_address() -> None:
    texts = {
        "chat_id": "Bad Request: chat_id is empty",
        "receiver_user_id": "Bad Request: parameter 'receiver_user_id' is required for method "
                            "deleteEphemeralMessage",
        "ephemeral_message_id": "Bad Request: parameter 'ephemeral_message_id' is required for "
                                "method deleteEphemeralMessage",
    }
    for missing, text in texts.items():
        params = {k: v for k, v in ADDRESS.items() if k != missing}
        with pytest.raises(ApiError) as refused:
            validate_call("deleteEphemeralMessage", params)
        assert (refused.value.code, refused.value.description) == (400, text)
    with pytest.raises(ApiError) as no_text:
        validate_call("editEphemeralMessageText", ADDRESS)
    assert no_text.value.description == "Bad Request: message text is empty"
    with pytest.raises(ApiError) as not_int:
        validate_call("editEphemeralMessageText", {**ADDRESS, "text": "x",
                                                   "ephemeral_message_id": "first"})
    assert not_int.value.description == (
        "Bad Request: can't parse parameter 'ephemeral_message_id': expected Integer"
    )


def test_send_methods_take_a_receiver_and_a_query_and_replies_an_ephemeral_id() -> None:
    for method in ("sendMessage", "sendPhoto", "sendSticker"):
        fields = {f["name"]: f for f in find_method(method)["fields"]}
        assert fields["receiver_user_id"]["types"] == ["Integer"]
        assert fields["callback_query_id"]["types"] == ["String"]
    _, params = validate_call("sendMessage", {
        "chat_id": "-100", "text": "x", "receiver_user_id": "7", "callback_query_id": 42,
        "reply_parameters": '{"ephemeral_message_id": 3}',
    })
    assert params == {"chat_id": -100, "text": "x", "receiver_user_id": 7,
                      "callback_query_id": "42", "reply_parameters": {"ephemeral_message_id": 3}}

"""The sandbox's fake Bot API, driven by a real python-telegram-bot `Bot`.

Every Telegram error is checked as PTB reports it (PTB strips "Bad Request: "
and capitalizes the rest), so a bot that handles these errors against the
sandbox handles them against Telegram.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from telegram import Bot as PtbBot
from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)
from telegram.error import (
    BadRequest,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.request import HTTPXRequest

from sandbox.client import SandboxClient, SandboxError
from sandbox.server import SandboxHandle, start_sandbox

ANN, BOB = 1, 2
GROUP = -100
TOKEN = "123456:TEST"


@pytest.fixture
async def sandbox() -> AsyncIterator[SandboxHandle]:
    handle = await start_sandbox("127.0.0.1", 0)
    yield handle
    await handle.stop()


@pytest.fixture
async def sb(sandbox: SandboxHandle) -> AsyncIterator[SandboxClient]:
    client = SandboxClient(sandbox.url)
    await client.add_user(ANN, "Ann", "ann", "en")
    await client.add_user(BOB, "Bob", "bob", "ru")
    await client.add_chat(GROUP, "Table", "supergroup", members=[ANN, BOB], admins=[ANN])
    yield client
    await client.aclose()


@pytest.fixture
async def bot(sandbox: SandboxHandle) -> AsyncIterator[PtbBot]:
    ptb = PtbBot(
        TOKEN,
        base_url=sandbox.bot_api_url,
        request=local_request(),
        get_updates_request=local_request(),
    )
    async with ptb:
        yield ptb


@pytest.fixture
async def raw(sandbox: SandboxHandle) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/bot{TOKEN}", verify=False) as client:
        yield client


def exact(message: str) -> str:
    """A pytest.raises pattern for exactly this message."""
    return f"^{re.escape(message)}$"


def starts(message: str) -> str:
    """A pytest.raises pattern for a message starting with this."""
    return f"^{re.escape(message)}"


def local_request(read_timeout: float = 3.0) -> HTTPXRequest:
    # verify=False skips loading the CA bundle: plain HTTP to 127.0.0.1 needs none.
    return HTTPXRequest(read_timeout=read_timeout, httpx_kwargs={"verify": False})


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d.upper(), callback_data=d) for d in data]])


async def started(sb: SandboxClient, user_id: int) -> None:
    await sb.send(user_id, user_id, "/start")


# --- identity and validation -----------------------------------------------------


async def test_get_me_is_the_banco_bot(bot: PtbBot) -> None:
    me = await bot.get_me()
    assert (me.id, me.is_bot, me.first_name, me.username) == (100000, True, "Banco", "banco_bot")
    assert me.can_join_groups is True


async def test_a_bad_token_is_unauthorized(sandbox: SandboxHandle) -> None:
    with pytest.raises(InvalidToken, match=exact("Unauthorized")):
        await PtbBot("bad", base_url=sandbox.bot_api_url, request=local_request()).get_me()


async def test_an_unknown_method_is_404(raw: httpx.AsyncClient) -> None:
    response = await raw.post("/sendPigeon", json={"chat_id": 1})
    assert response.status_code == 404
    assert response.json() == {"ok": False, "error_code": 404, "description": "Not Found"}


async def test_an_unknown_parameter_is_400(
    raw: httpx.AsyncClient, bot: PtbBot, sb: SandboxClient
) -> None:
    response = await raw.post("/sendMessage", data={"chat_id": "1", "text": "x", "colour": "red"})
    assert response.status_code == 400
    assert response.json()["description"] == (
        "Bad Request: unknown parameter 'colour' for method sendMessage"
    )
    await started(sb, ANN)
    with pytest.raises(BadRequest, match=exact("Unknown parameter 'foo' for method sendmessage")):
        await bot.send_message(ANN, "hi", api_kwargs={"foo": 1})


async def test_missing_required_parameters_are_400(raw: httpx.AsyncClient) -> None:
    no_chat = await raw.post("/sendMessage", json={"text": "hi"})
    assert (no_chat.status_code, no_chat.json()["description"]) == (
        400,
        "Bad Request: chat_id is empty",
    )
    no_text = await raw.post("/sendMessage", json={"chat_id": ANN})
    assert no_text.json()["description"] == "Bad Request: message text is empty"
    no_action = await raw.post("/sendChatAction", json={"chat_id": ANN})
    assert no_action.json()["description"] == (
        "Bad Request: parameter 'action' is required for method sendChatAction"
    )


async def test_parameter_types_are_checked(raw: httpx.AsyncClient) -> None:
    bad_int = await raw.post(
        "/editMessageText", data={"chat_id": "1", "message_id": "x", "text": "y"}
    )
    assert bad_int.json()["description"] == (
        "Bad Request: can't parse parameter 'message_id': expected Integer"
    )
    bad_bool = await raw.post(
        "/sendMessage", json={"chat_id": 1, "text": "x", "disable_notification": "maybe"}
    )
    assert bad_bool.json()["description"] == (
        "Bad Request: can't parse parameter 'disable_notification': expected Boolean"
    )
    bad_markup = await raw.post(
        "/sendMessage", json={"chat_id": 1, "text": "x", "reply_markup": {"inline_keyboard": 5}}
    )
    assert bad_markup.status_code == 400
    assert "reply_markup" in bad_markup.json()["description"]


async def test_query_string_form_and_json_bodies_are_all_accepted(
    raw: httpx.AsyncClient, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    markup = '{"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}'
    by_query = await raw.get("/sendMessage", params={"chat_id": ANN, "text": "q"})
    by_form = await raw.post(
        "/sendMessage", data={"chat_id": str(ANN), "text": "f", "reply_markup": markup}
    )
    by_json = await raw.post("/sendMessage", json={"chat_id": ANN, "text": "j"})
    by_multipart = await raw.post(
        "/sendMessage", files={"chat_id": (None, str(ANN)), "text": (None, "m")}
    )
    assert [r.json()["ok"] for r in (by_query, by_form, by_json, by_multipart)] == [True] * 4
    texts = [(m["text"], SandboxClient.buttons(m)) for m in await sb.bot_messages(ANN)]
    assert texts == [("q", []), ("f", [("A", "a")]), ("j", []), ("m", [])]


# --- sending --------------------------------------------------------------------------


async def test_dm_before_start_is_forbidden_and_after_start_is_delivered(
    bot: PtbBot, sb: SandboxClient
) -> None:
    with pytest.raises(
        Forbidden, match=exact("Forbidden: bot can't initiate conversation with a user")
    ):
        await bot.send_message(BOB, "your cards")
    await sb.send(BOB, BOB, "/start join_-100")
    sent = await bot.send_message(BOB, "your cards")
    assert (sent.chat.id, sent.chat.type, sent.from_user.id, sent.text) == (
        BOB,
        "private",
        100000,
        "your cards",
    )
    chat = await sb.messages(BOB)
    assert [(m["from_id"], m["text"]) for m in chat] == [
        (BOB, "/start join_-100"),
        (100000, "your cards"),
    ]


async def test_a_blocked_user_gets_forbidden_until_he_unblocks(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    await sb.block(ANN, True)
    with pytest.raises(Forbidden, match=exact("Forbidden: bot was blocked by the user")):
        await bot.send_message(ANN, "hello")
    await sb.block(ANN, False)
    assert (await bot.send_message(ANN, "hello")).text == "hello"
    kinds = [
        u["my_chat_member"]["new_chat_member"]["status"]
        for u in await sb.updates()
        if "my_chat_member" in u
    ]
    assert kinds == ["kicked", "member"]


async def test_a_group_without_the_bot_is_forbidden_and_unknown_chats_not_found(
    bot: PtbBot, sb: SandboxClient
) -> None:
    with pytest.raises(
        Forbidden, match=exact("Forbidden: bot is not a member of the supergroup chat")
    ):
        await bot.send_message(GROUP, "hi")
    with pytest.raises(BadRequest, match=exact("Chat not found")):
        await bot.send_message(-999, "hi")
    await sb.add_bot(GROUP, ANN)
    assert (await bot.send_message(GROUP, "hi")).chat.title == "Table"


async def test_text_limit_is_4096_characters_after_markup(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    assert len((await bot.send_message(ANN, "x" * 4096)).text) == 4096
    # Tags do not count: 4096 characters of text inside <b> is still fine.
    assert (
        len((await bot.send_message(ANN, f"<b>{'y' * 4096}</b>", parse_mode="HTML")).text) == 4096
    )
    with pytest.raises(BadRequest, match=exact("Message is too long")):
        await bot.send_message(ANN, "x" * 4097)
    with pytest.raises(BadRequest, match=exact("Message text is empty")):
        await bot.send_message(ANN, "   ")


async def test_callback_data_limit_is_64_bytes(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    await bot.send_message(ANN, "ok", reply_markup=keyboard("d" * 64))
    with pytest.raises(BadRequest, match=exact("Button_data_invalid")):
        await bot.send_message(ANN, "too long", reply_markup=keyboard("d" * 65))
    # 64 bytes, not characters: 33 two-byte letters are 66 bytes.
    with pytest.raises(BadRequest, match=exact("Button_data_invalid")):
        await bot.send_message(ANN, "too long", reply_markup=keyboard("ж" * 33))


async def test_html_is_parsed_into_entities_and_bad_markup_refused(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "<b>Bank</b> 100 &amp; <i>♠A</i>", parse_mode="HTML")
    assert sent.text == "Bank 100 & ♠A"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [
        ("bold", 0, 4),
        ("italic", 11, 2),
    ]
    with pytest.raises(
        BadRequest, match=starts('Can\'t parse entities: unsupported start tag "x"')
    ):
        await bot.send_message(ANN, "<x>hi</x>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=starts("Can't parse entities: can't find end tag")):
        await bot.send_message(ANN, "<b>hi", parse_mode="HTML")


async def test_commands_are_found_as_whole_tokens_outside_code_links_and_urls(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(
        ANN,
        "Check with /verify, chips: <b>/balance@banco_bot</b>. /top_10\n"
        "Not: <code>/notme</code> <a href=\"https://example.org/rules\">/rules</a> "
        "https://example.org/a-/help and/or &lt;/code&gt; /x&gt; /é",
        parse_mode="HTML",
    )
    commands = [sent.text[e.offset : e.offset + e.length] for e in sent.entities
                if e.type == "bot_command"]
    assert commands == ["/verify", "/balance@banco_bot", "/top_10"]
    urls = [sent.text[e.offset : e.offset + e.length] for e in sent.entities if e.type == "url"]
    assert urls == ["https://example.org/a-/help"]
    # a person's text: the same rules
    await sb.send(ANN, ANN, "I say </code> & <i>hi</i>, then /help")
    mine = (await sb.messages(ANN))[-1]
    assert [(e["type"], e["offset"], e["length"]) for e in mine["entities"]] == [
        ("bot_command", 32, 5)
    ]


async def test_markdown_v2_requires_escaping(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, r"*Bank* 1\.5 \(x\)", parse_mode="MarkdownV2")
    assert sent.text == "Bank 1.5 (x)"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [("bold", 0, 4)]
    with pytest.raises(BadRequest, match=starts("Can't parse entities: character '.' is reserved")):
        await bot.send_message(ANN, "Bank 1.5", parse_mode="MarkdownV2")


# --- editing and deleting -----------------------------------------------------------


async def test_editing_to_the_same_content_is_not_modified(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "Bank 100", reply_markup=keyboard("stake"))
    with pytest.raises(
        BadRequest, match=starts("Message is not modified: specified new message content")
    ):
        await bot.edit_message_text(
            "Bank 100", ANN, sent.message_id, reply_markup=keyboard("stake")
        )
    with pytest.raises(BadRequest, match=starts("Message is not modified")):
        await bot.edit_message_reply_markup(ANN, sent.message_id, reply_markup=keyboard("stake"))
    edited = await bot.edit_message_text(
        "Bank 90", ANN, sent.message_id, reply_markup=keyboard("stake")
    )
    assert edited.edit_date is not None and edited.text == "Bank 90"


async def test_edit_without_markup_removes_the_keyboard_and_is_recorded(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "Bank 100", reply_markup=keyboard("a", "b"))
    await bot.edit_message_text("Bank 80", ANN, sent.message_id)
    await bot.edit_message_reply_markup(ANN, sent.message_id, reply_markup=keyboard("c"))
    message = await sb.last_bot_message(ANN)
    assert message is not None
    assert (message["text"], SandboxClient.buttons(message)) == ("Bank 80", [("C", "c")])
    assert [(e["text"], SandboxClient.buttons(e)) for e in message["edits"]] == [
        ("Bank 80", []),
        ("Bank 80", [("C", "c")]),
    ]


async def test_edit_and_delete_of_missing_messages(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    with pytest.raises(BadRequest, match=exact("Message to edit not found")):
        await bot.edit_message_text("x", ANN, 999)
    sent = await bot.send_message(ANN, "bye")
    assert await bot.delete_message(ANN, sent.message_id) is True
    with pytest.raises(BadRequest, match=exact("Message to delete not found")):
        await bot.delete_message(ANN, sent.message_id)
    assert [m["deleted"] for m in await sb.messages(ANN)] == [False, True]


# --- callback queries ----------------------------------------------------------------


async def poll_one(bot: PtbBot, offset: int | None = None) -> Any:
    """Long-poll until one update arrives; confirm it; return it."""
    while True:
        updates = await bot.get_updates(offset=offset, timeout=2)
        if updates:
            await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
            return updates[-1]


async def test_a_press_waits_for_and_reports_the_answer(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.add_bot(GROUP, ANN)
    sent = await bot.send_message(GROUP, "Stake?", reply_markup=keyboard("s10", "s20"))
    await bot.get_updates(offset=(await bot.get_updates())[-1].update_id + 1)

    async def answer() -> Any:
        update = await poll_one(bot)
        await update.callback_query.answer("Staked 20", show_alert=True)
        return update.callback_query

    task = asyncio.create_task(answer())
    result = await sb.press(GROUP, sent.message_id, BOB, "s20")
    query = await task
    assert (query.data, query.from_user.id, query.message.message_id) == (
        "s20",
        BOB,
        sent.message_id,
    )
    assert {k: result[k] for k in ("answered", "text", "show_alert")} == {
        "answered": True,
        "text": "Staked 20",
        "show_alert": True,
    }
    assert result["callback_query_id"] == query.id
    assert [(a["data"], a["text"]) for a in await sb.answers()] == [("s20", "Staked 20")]


async def test_an_unanswered_press_reports_answered_false(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x"))
    result = await sb.press(ANN, sent.message_id, ANN, "x", wait=0.1)
    assert (result["answered"], result["text"], result["show_alert"]) == (False, None, False)


async def test_a_press_can_be_waited_for_after_the_press_call_gave_up(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x"))
    pressed = await sb.press(ANN, sent.message_id, ANN, "x", wait=0)
    query_id = pressed["callback_query_id"]
    # not answered yet: a short wait reports just that
    assert (await sb.answer(query_id, wait=0.05))["answered"] is False
    # a longer wait returns as soon as the bot answers, with the answer
    waiting = asyncio.create_task(sb.answer(query_id, wait=30))
    assert await bot.answer_callback_query(query_id, "Late", show_alert=True)
    result = await asyncio.wait_for(waiting, 5)  # not the 30 s
    fields = ("callback_query_id", "data", "answered", "text", "show_alert")
    assert {k: result[k] for k in fields} == {
        "callback_query_id": query_id, "data": "x", "answered": True, "text": "Late",
        "show_alert": True,
    }
    # an answered press answers at once; an unknown one is not found
    assert (await sb.answer(query_id, wait=30))["text"] == "Late"
    with pytest.raises(SandboxError) as unknown:
        await sb.answer("12345")
    assert unknown.value.status == 404


async def test_pressing_data_not_on_the_keyboard_needs_forge(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x"))
    with pytest.raises(SandboxError) as refused:
        await sb.press(ANN, sent.message_id, ANN, "forged", wait=0)
    assert refused.value.status == 400
    forged = await sb.press(ANN, sent.message_id, ANN, "forged", forge=True, wait=0)
    pending = [u["callback_query"]["data"] for u in await sb.updates() if "callback_query" in u]
    assert (forged["answered"], pending) == (False, ["forged"])


async def test_answer_limits_and_single_answer(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x"))
    first = await sb.press(ANN, sent.message_id, ANN, "x", wait=0)
    with pytest.raises(BadRequest, match=exact("Message_too_long")):
        await bot.answer_callback_query(first["callback_query_id"], "a" * 201, show_alert=True)
    assert await bot.answer_callback_query(first["callback_query_id"], "a" * 200, show_alert=True)
    with pytest.raises(
        BadRequest,
        match=exact("Query is too old and response timeout expired or query id is invalid"),
    ):
        await bot.answer_callback_query(first["callback_query_id"], "again")
    with pytest.raises(BadRequest, match=starts("Query is too old")):
        await bot.answer_callback_query("12345")


# --- updates ---------------------------------------------------------------------------


async def test_get_updates_offset_confirms_and_negative_offset_keeps_the_tail(
    bot: PtbBot, sb: SandboxClient
) -> None:
    ids = [(await sb.send(ANN, ANN, f"/m{i}"))["update_id"] for i in range(4)]
    assert [u.update_id for u in await bot.get_updates()] == ids
    # Not confirmed yet: the same updates come again.
    assert [u.update_id for u in await bot.get_updates(limit=2)] == ids[:2]
    assert [u.update_id for u in await bot.get_updates(offset=ids[1])] == ids[1:]
    assert [u.message.text for u in await bot.get_updates()] == ["/m1", "/m2", "/m3"]
    assert [u.update_id for u in await bot.get_updates(offset=-1)] == ids[3:]
    assert await bot.get_updates(offset=ids[3] + 1) == ()
    assert await sb.updates() == []


async def test_long_polling_returns_as_soon_as_an_update_arrives(
    bot: PtbBot, sb: SandboxClient
) -> None:
    poll = asyncio.create_task(bot.get_updates(timeout=20, read_timeout=25))
    await asyncio.sleep(0.05)
    sent = await sb.send(ANN, ANN, "/start")
    updates = await asyncio.wait_for(poll, 10)
    assert [(u.update_id, u.message.text) for u in updates] == [(sent["update_id"], "/start")]
    entity = updates[0].message.entities[0]
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 6)


async def test_allowed_updates_filters_and_is_remembered(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x"))
    await sb.press(ANN, sent.message_id, ANN, "x", wait=0)
    await sb.send(ANN, ANN, "/help")
    only_presses = await bot.get_updates(allowed_updates=["callback_query"])
    assert [u.callback_query.data for u in only_presses] == ["x"]
    await sb.send(ANN, ANN, "/again")
    assert [u.callback_query.data for u in await bot.get_updates()] == ["x"]


async def test_a_second_poller_ends_the_first_with_conflict(
    bot: PtbBot, sandbox: SandboxHandle, raw: httpx.AsyncClient
) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=10, read_timeout=15))
    while sandbox.world.poller is None:  # the first request is waiting on the server
        await asyncio.sleep(0.01)
    # PTB has one connection for getUpdates, so the second poller is another client.
    second = await raw.post("/getUpdates", json={"timeout": 0})
    with pytest.raises(Conflict, match=starts("Conflict: terminated by other getUpdates request")):
        await first
    assert second.json() == {"ok": True, "result": []}


async def test_add_bot_sends_my_chat_member_and_new_chat_members(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await sb.add_bot(GROUP, ANN)
    member, joined = await bot.get_updates()
    assert member.my_chat_member is not None
    assert (
        member.my_chat_member.chat.id,
        member.my_chat_member.from_user.id,
        member.my_chat_member.old_chat_member.status,
        member.my_chat_member.new_chat_member.status,
        member.my_chat_member.new_chat_member.user.id,
    ) == (GROUP, ANN, "left", "member", 100000)
    assert [u.id for u in joined.message.new_chat_members] == [100000]
    assert joined.message.from_user.id == ANN


async def test_group_privacy_delivers_commands_and_mentions_only(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await sb.add_bot(GROUP, ANN)
    await bot.get_updates(offset=(await bot.get_updates())[-1].update_id + 1)
    chatter = await sb.send(GROUP, BOB, "good luck all")
    command = await sb.send(GROUP, BOB, "/banco@banco_bot 50")
    other = await sb.send(GROUP, BOB, "/banco@other_bot")
    mention = await sb.send(GROUP, BOB, "hey @banco_bot")
    assert [r["delivered"] for r in (chatter, command, other, mention)] == [
        False,
        True,
        False,
        True,
    ]
    updates = await bot.get_updates()
    assert [u.message.text for u in updates] == ["/banco@banco_bot 50", "hey @banco_bot"]
    entity = updates[0].message.entities[0]
    assert (entity.type, entity.length) == ("bot_command", len("/banco@banco_bot"))
    assert len(await sb.messages(GROUP)) == 5  # service message + 4, delivered or not


async def test_group_privacy_delivers_replies_to_the_bot(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.add_bot(GROUP, ANN)
    await bot.get_updates(offset=(await bot.get_updates())[-1].update_id + 1)
    prompt = await bot.send_message(GROUP, "How much?")
    answer = await sb.send(GROUP, BOB, "25", reply_to=prompt.message_id)
    user_note = await sb.send(GROUP, ANN, "hi")
    aside = await sb.send(GROUP, BOB, "not for the bot", reply_to=user_note["message_id"])
    assert [answer["delivered"], aside["delivered"]] == [True, False]
    updates = await bot.get_updates()
    assert [u.message.text for u in updates] == ["25"]
    assert updates[0].message.reply_to_message.message_id == prompt.message_id


# --- fault injection --------------------------------------------------------------------


async def test_fault_429_then_success(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    await sb.fail("sendMessage", 429, retry_after=7, count=2)
    for _ in range(2):
        with pytest.raises(RetryAfter, match=exact("Flood control exceeded. Retry in 7 seconds")):
            await bot.send_message(ANN, "hi")
    assert (await bot.send_message(ANN, "hi")).text == "hi"
    errors = [
        (e["error_code"], e["description"]) for e in await sb.log("sendMessage") if not e["ok"]
    ]
    assert errors == [(429, "Too Many Requests: retry after 7")] * 2


async def test_faults_by_chat_and_custom_errors(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    await started(sb, BOB)
    await sb.fail("sendMessage", 403, "Forbidden: user is deactivated", chat_id=BOB)
    await sb.fail("editMessageText", 500, count=1)
    assert (await bot.send_message(ANN, "to ann")).text == "to ann"
    with pytest.raises(Forbidden, match=exact("Forbidden: user is deactivated")):
        await bot.send_message(BOB, "to bob")
    sent = await bot.send_message(BOB, "to bob")
    with pytest.raises(NetworkError, match=exact("Internal Server Error")):
        await bot.edit_message_text("x", BOB, sent.message_id)
    assert (await bot.edit_message_text("x", BOB, sent.message_id)).text == "x"


async def test_a_delay_fault_times_out_the_client_but_the_call_still_happens(
    sandbox: SandboxHandle, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    await sb.fail("sendMessage", delay=1.0)
    impatient = PtbBot(TOKEN, base_url=sandbox.bot_api_url, request=local_request(0.2))
    async with impatient:
        with pytest.raises(TimedOut):
            await impatient.send_message(ANN, "slow")
    message = await sb.wait_for(lambda: sb.last_bot_message(ANN), timeout=5)
    assert message["text"] == "slow"


# --- commands, chats, members --------------------------------------------------------


async def test_commands_are_stored_per_scope_and_language(bot: PtbBot, sb: SandboxClient) -> None:
    await bot.set_my_commands([BotCommand("play", "Play"), BotCommand("odds", "Odds")])
    await bot.set_my_commands([BotCommand("play", "Играть")], language_code="ru")
    await bot.set_my_commands([BotCommand("banco", "Banco!")], scope=BotCommandScopeChat(GROUP))
    ru = await bot.get_my_commands(language_code="ru")
    assert [(c.command, c.description) for c in ru] == [("play", "Играть")]
    assert await bot.get_my_commands(scope=BotCommandScopeAllGroupChats()) == ()
    stored = {(c["scope"]["type"], c["language_code"]): c["commands"] for c in await sb.commands()}
    assert stored[("default", "")] == [
        {"command": "play", "description": "Play"},
        {"command": "odds", "description": "Odds"},
    ]
    assert stored[("chat", "")] == [{"command": "banco", "description": "Banco!"}]
    await bot.delete_my_commands(language_code="ru")
    assert ("default", "ru") not in {
        (c["scope"]["type"], c["language_code"]) for c in await sb.commands()
    }
    with pytest.raises(BadRequest, match=exact("Bot_command_invalid")):
        await bot.set_my_commands([BotCommand("Play", "Play")])


async def test_chat_members_and_admins(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.add_bot(GROUP, ANN)
    assert (await bot.get_chat_member(GROUP, ANN)).status == "creator"
    assert (await bot.get_chat_member(GROUP, BOB)).status == "member"
    assert (await bot.get_chat_member(GROUP, 100000)).status == "member"
    assert [m.user.id for m in await bot.get_chat_administrators(GROUP)] == [ANN]
    chat = await bot.get_chat(GROUP)
    assert (chat.id, chat.type, chat.title) == (GROUP, "supergroup", "Table")
    with pytest.raises(BadRequest, match=exact("User not found")):
        await bot.get_chat_member(GROUP, 777)
    # A non-admin bot cannot pin in a supergroup; an admin bot can.
    sent = await bot.send_message(GROUP, "table")
    with pytest.raises(BadRequest, match=starts("Not enough rights to manage pinned messages")):
        await bot.pin_chat_message(GROUP, sent.message_id)
    await sb.add_bot(GROUP, ANN, admin=True)
    assert await bot.pin_chat_message(GROUP, sent.message_id)
    assert (await sb.last_bot_message(GROUP) or {})["pinned"] is True


async def test_other_methods_answer_plausibly_after_validation(
    bot: PtbBot, sb: SandboxClient, raw: httpx.AsyncClient
) -> None:
    await started(sb, ANN)
    assert await bot.send_chat_action(ANN, "typing") is True
    assert await bot.set_my_description("Card games") is True
    dice = await bot.send_dice(ANN)
    assert dice.chat.id == ANN
    bad = await raw.post("/setMyDescription", json={"description": "x", "nonsense": 1})
    assert bad.status_code == 400


async def test_the_log_records_every_call_with_its_outcome(bot: PtbBot, sb: SandboxClient) -> None:
    with pytest.raises(Forbidden):
        await bot.send_message(ANN, "hi")
    await started(sb, ANN)
    await bot.send_message(ANN, "hi")
    entries = await sb.log(exclude="getMe")
    assert [(e["method"], e["ok"], e.get("error_code")) for e in entries] == [
        ("sendMessage", False, 403),
        ("sendMessage", True, None),
    ]
    assert entries[1]["params"] == {"chat_id": ANN, "text": "hi"}
    assert entries[1]["result"]["text"] == "hi"


async def test_reset_forgets_everything(bot: PtbBot, sb: SandboxClient) -> None:
    await started(sb, ANN)
    await bot.send_message(ANN, "hi")
    await sb.fail("sendMessage", 500, count=5)
    await sb.reset()
    state = await sb.state()
    assert (state["users"], state["chats"], state["pending_updates"], state["calls"]) == (
        [],
        [],
        0,
        0,
    )
    await sb.add_user(ANN, "Ann")
    with pytest.raises(Forbidden):  # not started any more, and no 500 left
        await bot.send_message(ANN, "hi")


async def test_the_page_is_served(sandbox: SandboxHandle) -> None:
    async with httpx.AsyncClient(verify=False) as client:
        response = await client.get(sandbox.url + "/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "/sandbox/press" in response.text


async def test_optional_flood_control_limits_a_group(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.add_bot(GROUP, ANN)
    await started(sb, ANN)
    await sb.flood(group_per_minute=2)
    first = await bot.send_message(GROUP, "one")
    await bot.edit_message_text("one!", GROUP, first.message_id)
    with pytest.raises(RetryAfter):
        await bot.send_message(GROUP, "three")
    assert (await bot.send_message(ANN, "private is separate")).chat.id == ANN
    await sb.flood(False)
    assert (await bot.send_message(GROUP, "three")).text == "three"
    limited = [e for e in await sb.log("sendMessage") if not e["ok"]]
    assert [e["error_code"] for e in limited] == [429]
    assert limited[0]["description"].startswith("Too Many Requests: retry after ")


# --- faults that take effect, raw updates, kicked bot, answer counts ------------------


async def test_an_after_fault_posts_edits_and_answers_then_reports_the_error(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    await sb.fail("sendMessage", 502, after=True)
    with pytest.raises(NetworkError, match=exact("Bad Gateway")):
        await bot.send_message(ANN, "posted anyway", reply_markup=keyboard("x"))
    posted = await sb.last_bot_message(ANN)
    assert posted is not None and posted["text"] == "posted anyway"
    entry = (await sb.log("sendMessage"))[-1]
    assert (entry["ok"], entry["result"]["message_id"], entry["late_answer"]) == (
        True, posted["message_id"], {"delay": 0.0, "error_code": 502})

    await sb.fail("editMessageText", 500, after=True)
    with pytest.raises(NetworkError, match=exact("Internal Server Error")):
        await bot.edit_message_text("edited anyway", ANN, posted["message_id"])
    assert (await sb.last_bot_message(ANN))["text"] == "edited anyway"

    press = await sb.press(ANN, posted["message_id"], ANN, "x", forge=True, wait=0)
    await sb.fail("answerCallbackQuery", 502, after=True)
    with pytest.raises(NetworkError, match=exact("Bad Gateway")):
        await bot.answer_callback_query(press["callback_query_id"], "first")
    with pytest.raises(BadRequest, match=starts("Query is too old")):
        await bot.answer_callback_query(press["callback_query_id"], "retry")
    (answer,) = await sb.answers()
    assert (answer["answered"], answer["text"], answer["answer_calls"]) == (True, "first", 2)


async def test_an_after_delay_times_out_the_client_with_the_message_already_posted(
    sandbox: SandboxHandle, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    await sb.fail("sendMessage", delay=1.0, after=True)
    impatient = PtbBot(TOKEN, base_url=sandbox.bot_api_url, request=local_request(0.2))
    async with impatient:
        with pytest.raises(TimedOut):
            await impatient.send_message(ANN, "slow answer")
    # posted before the delay began, not after it
    assert (await sb.last_bot_message(ANN))["text"] == "slow answer"
    assert (await sb.log("sendMessage"))[-1]["late_answer"] == {"delay": 1.0, "error_code": None}
    # a fault that needs no effect first still refuses before anything happens
    await sb.fail("sendMessage", 502)
    with pytest.raises(NetworkError):
        await impatient.send_message(ANN, "never")
    assert (await sb.last_bot_message(ANN))["text"] == "slow answer"


async def test_raw_updates_reach_the_poller_verbatim_whatever_their_shape(
    bot: PtbBot, sb: SandboxClient, raw: httpx.AsyncClient
) -> None:
    await raw.post("/getUpdates", json={"allowed_updates": ["message"], "timeout": 0})
    surrogate_query = {
        "id": "q1",
        "from": {"id": ANN, "is_bot": False, "first_name": "Ann"},
        "chat_instance": "1",
        "data": "a|\ud800|1",
    }
    ids = await sb.raw_updates([
        {"callback_query": surrogate_query},
        {"update_id": 999, "future_kind": {"x": 10**30}},
        {"message": {"text": ["not", "a", "string"]}},
    ])
    assert ids == [1, 2, 3]
    response = await raw.post("/getUpdates", json={"timeout": 0})
    result = response.json()["result"]
    assert result == [
        {"update_id": 1, "callback_query": surrogate_query},
        {"update_id": 2, "future_kind": {"x": 10**30}},
        {"update_id": 3, "message": {"text": ["not", "a", "string"]}},
    ]
    # the raw callback query can be answered (once) and is counted
    assert await bot.answer_callback_query("q1", "ok")
    answer = next(a for a in await sb.answers() if a["callback_query_id"] == "q1")
    assert (answer["answered"], answer["answer_calls"], answer["user_id"]) == (True, 1, ANN)


async def test_a_lone_surrogate_in_a_call_is_not_utf8(
    raw: httpx.AsyncClient, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    response = await raw.post(
        "/sendMessage",
        content=b'{"chat_id": 1, "text": "bad \\ud800 text"}',
        headers={"Content-Type": "application/json"},
    )
    assert (response.status_code, response.json()["description"]) == (
        400, "Bad Request: strings must be encoded in UTF-8")
    assert await sb.bot_messages(ANN) == []


async def test_a_kicked_bot_is_forbidden_until_it_is_added_again(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await sb.add_bot(GROUP, ANN)
    sent = await bot.send_message(GROUP, "table")
    updates = await bot.get_updates()
    await sb.remove_bot(GROUP, ANN, kicked=True)
    (kicked,) = await bot.get_updates(offset=updates[-1].update_id + 1)
    change = kicked.my_chat_member
    assert (change.chat.id, change.old_chat_member.status, change.new_chat_member.status) == (
        GROUP, "member", "kicked")
    forbidden = exact("Forbidden: bot was kicked from the supergroup chat")
    with pytest.raises(Forbidden, match=forbidden):
        await bot.send_message(GROUP, "still here?")
    with pytest.raises(Forbidden, match=forbidden):
        await bot.edit_message_text("edited?", GROUP, sent.message_id)
    assert (await sb.send(GROUP, ANN, "/table"))["delivered"] is False

    await sb.add_bot(GROUP, ANN)
    back, _joined = await bot.get_updates(offset=kicked.update_id + 1)
    assert (back.my_chat_member.old_chat_member.status,
            back.my_chat_member.new_chat_member.status) == ("kicked", "member")
    assert (await bot.edit_message_text("edited", GROUP, sent.message_id)).text == "edited"


async def test_a_bot_that_merely_left_is_not_a_member(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.add_bot(GROUP, ANN)
    sent = await bot.send_message(GROUP, "table")
    await sb.remove_bot(GROUP, ANN)
    with pytest.raises(
        Forbidden, match=exact("Forbidden: bot is not a member of the supergroup chat")
    ):
        await bot.edit_message_text("edited?", GROUP, sent.message_id)


async def test_every_answer_call_is_counted_and_only_the_first_is_accepted(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    sent = await bot.send_message(ANN, "?", reply_markup=keyboard("x", "y"))
    first = await sb.press(ANN, sent.message_id, ANN, "x", wait=0)
    second = await sb.press(ANN, sent.message_id, ANN, "y", wait=0)
    assert await bot.answer_callback_query(first["callback_query_id"], "one")
    for _ in range(2):
        with pytest.raises(BadRequest, match=starts("Query is too old")):
            await bot.answer_callback_query(first["callback_query_id"], "again")
    counts = {a["data"]: (a["answer_calls"], a["text"]) for a in await sb.answers()}
    assert counts == {"x": (3, "one"), "y": (0, None)}
    assert second["answered"] is False


async def test_a_fault_can_target_one_text_and_faults_can_be_cleared(
    bot: PtbBot, sb: SandboxClient
) -> None:
    await started(sb, ANN)
    await sb.fail("*", 502, text="settled", count=1)
    await sb.fail("sendMessage", 500, count=5)
    await sb.clear_faults()
    await sb.fail("*", 502, text="settled", count=1)
    assert (await bot.send_message(ANN, "table")).text == "table"
    assert [f["text"] for f in await sb.faults()] == ["settled"]
    with pytest.raises(NetworkError, match=exact("Bad Gateway")):
        await bot.send_message(ANN, "coup #1 settled")
    assert await sb.faults() == []
    assert [m["text"] for m in await sb.bot_messages(ANN)] == ["table"]


# --- the webhook ---------------------------------------------------------------------

SECRET = "s3cret_Token-1"


class Receiver:
    """A local webhook endpoint: records each POST (its secret header and JSON body) and
    answers 200, but for a message whose text is in ``refuse``: the statuses listed there
    first, in turn."""

    def __init__(self, refuse: dict[str, list[int]] | None = None) -> None:
        self.got: list[tuple[str | None, dict[str, Any]]] = []
        self.refuse = refuse or {}
        self.runner: web.AppRunner | None = None

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.got.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), body))
        statuses = self.refuse.get(body.get("message", {}).get("text"), [])
        return web.Response(status=statuses.pop(0) if statuses else 200)

    async def start(self, port: int = 0) -> str:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        return f"http://127.0.0.1:{self.runner.addresses[0][1]}/hook"

    def texts(self) -> list[str]:
        return [body["message"]["text"] for _, body in self.got]

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


@pytest.fixture
async def receivers() -> AsyncIterator[list[Receiver]]:
    """Receivers a test starts; stopped at its end."""
    made: list[Receiver] = []
    yield made
    for receiver in made:
        await receiver.stop()


async def until(check: Any, timeout: float = 5.0) -> None:
    """Wait until ``check()`` is true."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_set_get_and_delete_webhook(bot: PtbBot, sb: SandboxClient) -> None:
    await sb.send(ANN, ANN, "/start")
    assert await bot.set_webhook("https://example.invalid/hook", secret_token=SECRET,
                                 max_connections=5, allowed_updates=["message"])
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.max_connections, info.allowed_updates,
            info.has_custom_certificate) == ("https://example.invalid/hook", 1, 5,
                                             ("message",), False)
    assert (await sb.webhook())["secret_token"] == SECRET
    assert await bot.delete_webhook()
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.max_connections) == ("", 1, None)
    # back to polling: the update is still there
    assert [u.message.text for u in await bot.get_updates()] == ["/start"]


async def test_set_webhook_refuses_a_bad_secret_or_url_and_drops_on_request(
    bot: PtbBot, sb: SandboxClient
) -> None:
    with pytest.raises(BadRequest, match=exact("Secret token contains unallowed characters")):
        await bot.set_webhook("https://example.invalid/hook", secret_token="no spaces")
    with pytest.raises(BadRequest, match=exact("Secret token contains unallowed characters")):
        await bot.set_webhook("https://example.invalid/hook", secret_token="x" * 257)
    with pytest.raises(BadRequest,
                       match=exact("Bad webhook: an https url must be provided for webhook")):
        await bot.set_webhook("ftp://example.invalid/hook")
    assert (await bot.get_webhook_info()).url == ""
    await sb.send(ANN, ANN, "/start")
    await bot.set_webhook("https://example.invalid/hook", drop_pending_updates=True)
    assert (await bot.get_webhook_info()).pending_update_count == 0
    # an empty url removes the webhook, as deleteWebhook
    await bot.set_webhook("")
    assert (await bot.get_webhook_info()).url == ""


async def test_get_updates_is_a_conflict_while_a_webhook_is_set(
    bot: PtbBot, sb: SandboxClient, sandbox: SandboxHandle
) -> None:
    conflict = ("Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first")
    waiting = asyncio.create_task(bot.get_updates(timeout=10, read_timeout=15))
    while sandbox.world.poller is None:
        await asyncio.sleep(0.01)
    async with PtbBot(TOKEN, base_url=sandbox.bot_api_url, request=local_request()) as other:
        await other.set_webhook("https://example.invalid/hook")
    with pytest.raises(Conflict, match=exact(conflict)):
        await asyncio.wait_for(waiting, 5)
    with pytest.raises(Conflict, match=exact(conflict)):
        await bot.get_updates()


async def test_updates_are_posted_with_the_secret_header(
    bot: PtbBot, sb: SandboxClient, receivers: list[Receiver]
) -> None:
    receiver = Receiver()
    receivers.append(receiver)
    url = await receiver.start()
    await bot.set_webhook(url, secret_token=SECRET)
    sent = await sb.send(ANN, ANN, "/start")
    await until(lambda: receiver.got)
    secret, body = receiver.got[0]
    assert secret == SECRET
    assert (body["update_id"], body["message"]["text"], body["message"]["chat"]["id"]) == (
        sent["update_id"], "/start", ANN)
    info = await bot.get_webhook_info()
    assert (info.pending_update_count, info.last_error_message) == (0, None)
    state = await sb.webhook()
    assert [(a["update_id"], a["url"], a["status"], a["error"]) for a in state["attempts"]] == [
        (sent["update_id"], url, 200, None)]


async def test_a_failed_delivery_is_retried_in_order_until_it_succeeds(
    bot: PtbBot, sb: SandboxClient, receivers: list[Receiver]
) -> None:
    receiver = Receiver(refuse={"/one": [500, 500]})
    receivers.append(receiver)
    await bot.set_webhook(await receiver.start(), secret_token=SECRET)
    await sb.send(ANN, ANN, "/one")
    await sb.send(ANN, ANN, "/two")
    await sb.send(BOB, BOB, "/three")  # another chat
    await until(lambda: len(receiver.got) == 5)
    # Ann's first update twice refused, then delivered, and only then her second;
    # Bob's chat is not held up by hers
    group = [t for t in receiver.texts() if t != "/three"]
    assert group == ["/one", "/one", "/one", "/two"]
    assert receiver.texts().index("/three") < 3
    assert {secret for secret, _ in receiver.got} == {SECRET}
    info = await bot.get_webhook_info()
    assert info.pending_update_count == 0
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"
    assert info.last_error_date is not None


async def test_a_refused_connection_keeps_the_update_until_the_receiver_is_up(
    bot: PtbBot, sb: SandboxClient, receivers: list[Receiver]
) -> None:
    with socket.socket() as probe:  # a port nobody listens on (for now)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    await bot.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token=SECRET)
    sent = await sb.send(ANN, ANN, "/start")
    info = None
    for _ in range(500):
        info = await bot.get_webhook_info()
        if info.last_error_message:
            break
        await asyncio.sleep(0.01)
    assert info is not None
    assert (info.last_error_message, info.pending_update_count) == ("Connection refused", 1)
    receiver = Receiver()
    receivers.append(receiver)
    await receiver.start(port)
    await until(lambda: receiver.got)
    assert [(s, b["update_id"]) for s, b in receiver.got] == [(SECRET, sent["update_id"])]
    assert (await bot.get_webhook_info()).pending_update_count == 0


async def test_spread_delivers_each_update_once_to_one_of_several_receivers(
    bot: PtbBot, sb: SandboxClient, sandbox: SandboxHandle, receivers: list[Receiver]
) -> None:
    receivers.extend(Receiver() for _ in range(3))
    urls = [await r.start() for r in receivers]
    assert (await sb.webhook_spread(urls))["spread"] == urls
    sandbox.delivery.random.seed(7)
    await bot.set_webhook("https://lb.invalid/telegram", secret_token=SECRET)
    ids = [(await sb.send(ANN, ANN, f"/m{i}"))["update_id"] for i in range(30)]
    await until(lambda: sum(len(r.got) for r in receivers) == 30)
    got = sorted(b["update_id"] for r in receivers for _, b in r.got)
    assert got == ids
    assert all(r.got for r in receivers), [len(r.got) for r in receivers]
    assert {s for r in receivers for s, _ in r.got} == {SECRET}
    attempts = (await sb.webhook())["attempts"]
    assert {a["url"] for a in attempts} == set(urls)
    assert [a["update_id"] for a in attempts] == ids  # one chat: in order
    with pytest.raises(SandboxError, match="spread must be a list of http"):
        await sb.webhook_spread(["lb.invalid"])
    assert (await sb.webhook_spread([]))["spread"] == []


async def test_the_webhook_is_kept_across_a_restart_of_the_sandbox(
    tmp_path: Path, receivers: list[Receiver]
) -> None:
    receiver = Receiver()
    receivers.append(receiver)
    url = await receiver.start()
    path = tmp_path / "sandbox.json"
    first = await start_sandbox("127.0.0.1", 0, path)
    async with PtbBot(TOKEN, base_url=first.bot_api_url, request=local_request()) as ptb:
        await ptb.set_webhook(url, secret_token=SECRET, max_connections=7)
    await first.stop()
    second = await start_sandbox("127.0.0.1", 0, path)
    try:
        async with SandboxClient(second.url) as client:
            await client.add_user(ANN, "Ann")
            await client.send(ANN, ANN, "/start")
            await until(lambda: receiver.got)
            assert receiver.got[0][0] == SECRET
            state = await client.webhook()
            assert (state["url"], state["secret_token"]) == (url, SECRET)
        async with PtbBot(TOKEN, base_url=second.bot_api_url, request=local_request()) as ptb:
            assert (await ptb.get_webhook_info()).max_connections == 7
    finally:
        await second.stop()

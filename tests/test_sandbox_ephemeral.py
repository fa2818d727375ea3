"""Bot API 10.2's ephemeral messages in the sandbox: sent to one member of a group
(receiver_user_id), shown in his view only, edited and deleted by their ephemeral_message_id,
pressed by him alone, never kept, and not delivered to a user who is offline."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sandbox.client import SandboxClient, SandboxError
from sandbox.server import SandboxHandle, start_sandbox

ANN, BOB, EVE = 1, 2, 3
GROUP = -100
TOKEN = "123456:TEST"
KEYBOARD = {"inline_keyboard": [[{"text": "Show my cards", "callback_data": "cards"}]]}
ANN_USER = {"id": ANN, "is_bot": False, "first_name": "Ann", "username": "ann",
            "language_code": "en"}
BOT_USER = {"id": 100000, "is_bot": True, "first_name": "Banco", "username": "banco_bot",
            "can_join_groups": True, "can_read_all_group_messages": False,
            "supports_inline_queries": False, "can_connect_to_business": False,
            "has_main_web_app": False}
GROUP_CHAT = {"id": GROUP, "type": "supergroup", "title": "Table"}
QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"


@pytest.fixture
async def sandbox() -> AsyncIterator[SandboxHandle]:
    """A sandbox in memory with the world below in it."""
    handle = await start_sandbox("127.0.0.1", 0)
    try:
        async with SandboxClient(handle.url) as client:
            await world(client)
        yield handle
    finally:
        await handle.stop()


@pytest.fixture
async def botapi(sandbox: SandboxHandle) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/bot{TOKEN}") as client:
        yield client


@pytest.fixture
async def sb(sandbox: SandboxHandle) -> AsyncIterator[SandboxClient]:
    async with SandboxClient(sandbox.url) as client:
        yield client


async def world(sb: SandboxClient) -> None:
    """Ann and Bob in a supergroup with the bot; Eve is not in it."""
    await sb.add_user(ANN, "Ann", "ann", "en")
    await sb.add_user(BOB, "Bob", "bob", "en")
    await sb.add_user(EVE, "Eve", "eve", "en")
    await sb.add_chat(GROUP, "Table", "supergroup", members=[ANN, BOB], admins=[ANN])
    await sb.add_bot(GROUP, ANN)
    await sb.send(ANN, ANN, "/start")


async def call(botapi: httpx.AsyncClient, method: str, **params: Any) -> Any:
    response = await botapi.post(f"/{method}", json=params)
    body = response.json()
    assert body["ok"], body
    return body["result"]


async def refused(botapi: httpx.AsyncClient, method: str, **params: Any) -> str:
    """The description of a call the sandbox answers with 400."""
    response = await botapi.post(f"/{method}", json=params)
    assert response.status_code == 400, response.json()
    description: str = response.json()["description"]
    return description


async def whisper(botapi: httpx.AsyncClient, text: str = "Your cards: K♠ 9♥", **more: Any) -> Any:
    return await call(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN, text=text,
                      **more)


def address(number: int, receiver: int = ANN) -> dict[str, int]:
    return {"chat_id": GROUP, "receiver_user_id": receiver, "ephemeral_message_id": number}


async def test_an_ephemeral_message_is_answered_with_message_id_0_and_its_own_number(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    first = await whisper(botapi, "<b>Your cards:</b> K♠ 9♥", parse_mode="HTML",
                          reply_markup=KEYBOARD)
    date = first.pop("date")
    assert first == {
        "message_id": 0,
        "from": BOT_USER,
        "chat": GROUP_CHAT,
        "receiver_user": ANN_USER,
        "ephemeral_message_id": 1,
        "text": "Your cards: K♠ 9♥",
        "entities": [{"type": "bold", "offset": 0, "length": 11}],
        "reply_markup": KEYBOARD,
    }
    assert isinstance(date, int)
    second = await call(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=BOB, text="Hi")
    assert (second["message_id"], second["ephemeral_message_id"]) == (0, 2)
    # the chat's own message ids go on as if nothing was sent
    plain = await call(botapi, "sendMessage", chat_id=GROUP, text="Coup 1")
    before = [m["message_id"] for m in await sb.messages(GROUP)]
    assert plain["message_id"] == before[-1] and 0 not in before


async def test_ephemeral_messages_are_edited_and_deleted_by_receiver_and_number(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    await whisper(botapi, reply_markup=KEYBOARD)
    # as Telegram, an edit answers True (not the Message)
    assert await call(botapi, "editEphemeralMessageText", **address(1),
                      text="Your cards: K♠ 8♥", reply_markup=KEYBOARD) is True
    [shown] = [m for m in await sb.view(GROUP, ANN) if m.get("ephemeral")]
    assert (shown["ephemeral_message_id"], shown["text"], shown["reply_markup"]) == (
        1, "Your cards: K♠ 8♥", KEYBOARD)
    assert await refused(botapi, "editEphemeralMessageText", **address(1),
                         text="Your cards: K♠ 8♥", reply_markup=KEYBOARD) == (
        "Bad Request: message is not modified: specified new message content and reply markup "
        "are exactly the same as a current content and reply markup of the message"
    )
    assert await call(botapi, "editEphemeralMessageReplyMarkup", **address(1)) is True
    assert await refused(botapi, "editEphemeralMessageReplyMarkup", **address(1)) == (
        "Bad Request: message is not modified: specified new message content and reply markup "
        "are exactly the same as a current content and reply markup of the message"
    )
    [shown] = [m for m in await sb.view(GROUP, ANN) if m.get("ephemeral")]
    assert (shown["text"], shown["reply_markup"], len(shown["edits"])) == (
        "Your cards: K♠ 8♥", None, 2)

    # another receiver's or an unknown number is no message of his
    for wrong in (address(1, BOB), address(7)):
        assert await refused(botapi, "editEphemeralMessageText", **wrong, text="x") == (
            "Bad Request: message to edit not found")
        assert await refused(botapi, "editEphemeralMessageReplyMarkup", **wrong) == (
            "Bad Request: message to edit not found")
        assert await refused(botapi, "deleteEphemeralMessage", **wrong) == (
            "Bad Request: message to delete not found")
    assert await call(botapi, "deleteEphemeralMessage", **address(1)) is True
    assert [m for m in await sb.view(GROUP, ANN) if m.get("ephemeral")] == []
    assert await refused(botapi, "deleteEphemeralMessage", **address(1)) == (
        "Bad Request: message to delete not found")
    assert await refused(botapi, "editEphemeralMessageText", **address(1), text="x") == (
        "Bad Request: message to edit not found")


async def test_a_receiver_is_for_groups_only_and_must_be_a_member(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    groups_only = "Bad Request: receiver_user_id can be used only in groups and supergroups"
    assert await refused(botapi, "sendMessage", chat_id=ANN, receiver_user_id=ANN,
                         text="x") == groups_only
    assert await refused(botapi, "sendPhoto", chat_id=ANN, receiver_user_id=ANN,
                         photo="x") == groups_only
    assert await refused(botapi, "deleteEphemeralMessage", chat_id=ANN, receiver_user_id=ANN,
                         ephemeral_message_id=1) == groups_only
    for stranger in (EVE, 999):
        assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=stranger,
                             text="x") == "Bad Request: receiver user not found"
    assert await sb.ephemeral_messages(GROUP) == []


async def test_a_callback_query_id_must_be_a_press_by_the_receiver_in_that_chat(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    table = await call(botapi, "sendMessage", chat_id=GROUP, text="Table", reply_markup=KEYBOARD)
    bobs = await sb.press(GROUP, table["message_id"], BOB, "cards", wait=0)
    anns = await sb.press(GROUP, table["message_id"], ANN, "cards", wait=0)
    for bad in ("4611686018427387904", bobs["callback_query_id"]):
        assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN,
                             text="x", callback_query_id=bad) == QUERY_INVALID
    sent = await whisper(botapi, callback_query_id=anns["callback_query_id"])
    assert sent["ephemeral_message_id"] == 1
    # a press in Ann's private chat is not a press in the group
    await call(botapi, "sendMessage", chat_id=ANN, text="Menu", reply_markup=KEYBOARD)
    private = await sb.press(ANN, (await sb.last_bot_message(ANN) or {})["message_id"], ANN,
                             "cards", wait=0)
    assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN, text="x",
                         callback_query_id=private["callback_query_id"]) == QUERY_INVALID


async def test_only_the_receiver_sees_it_in_his_view_of_the_group(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    await call(botapi, "sendMessage", chat_id=GROUP, text="Coup 1")
    await whisper(botapi)
    await sb.send(GROUP, BOB, "/banco")
    shared = await sb.messages(GROUP)
    assert [m["text"] for m in shared][-2:] == ["Coup 1", "/banco"]
    assert not any(m.get("ephemeral") for m in shared)
    assert await sb.view(GROUP, BOB) == shared
    anns = await sb.view(GROUP, ANN)
    assert [m["text"] for m in anns][-3:] == ["Coup 1", "Your cards: K♠ 9♥", "/banco"]
    mine = anns[-2]
    assert {k: mine[k] for k in ("message_id", "from_bot", "ephemeral", "ephemeral_message_id",
                                 "receiver_id", "delivered", "deleted")} == {
        "message_id": 0, "from_bot": True, "ephemeral": True, "ephemeral_message_id": 1,
        "receiver_id": ANN, "delivered": True, "deleted": False}
    assert await sb.ephemeral_messages(GROUP) == [mine]
    with pytest.raises(SandboxError) as unknown:
        await sb.view(GROUP, 999)
    assert (unknown.value.status, unknown.value.message) == (404, "user 999 not found")


async def test_ephemeral_messages_are_not_kept_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.json"
    first = await start_sandbox("127.0.0.1", 0, path)
    async with SandboxClient(first.url) as sb, httpx.AsyncClient(
        base_url=f"{first.url}/bot{TOKEN}"
    ) as botapi:
        await world(sb)
        await whisper(botapi)
        await call(botapi, "sendMessage", chat_id=GROUP, text="Coup 1")
        shared = await sb.messages(GROUP)
        assert len(await sb.view(GROUP, ANN)) == len(shared) + 1
    saved = first.world.snapshot()
    assert "Your cards" not in str(saved)
    await first.stop()
    second = await start_sandbox("127.0.0.1", 0, path)
    try:
        async with SandboxClient(second.url) as sb, httpx.AsyncClient(
            base_url=f"{second.url}/bot{TOKEN}"
        ) as botapi:
            assert await sb.view(GROUP, ANN) == shared
            assert await sb.ephemeral_messages(GROUP) == []
            assert await refused(botapi, "deleteEphemeralMessage", **address(1)) == (
                "Bad Request: message to delete not found")
    finally:
        await second.stop()
    # and in memory: restore() of a snapshot has none either
    second.world.restore(saved)
    assert second.world.ephemeral == {}


async def test_the_receiver_presses_a_button_of_his_ephemeral_message(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    sent = await whisper(botapi, reply_markup=KEYBOARD)
    for other in (BOB, EVE):
        with pytest.raises(SandboxError) as hidden:
            await sb.press_ephemeral(GROUP, 1, other, "cards", wait=0)
        assert (hidden.value.status, hidden.value.message) == (
            404, f"user {other} has no ephemeral message 1 in chat {GROUP}")
    with pytest.raises(SandboxError) as no_button:
        await sb.press_ephemeral(GROUP, 1, ANN, "fold", wait=0)
    assert no_button.value.status == 400
    pressed = await sb.press_ephemeral(GROUP, 1, ANN, "cards", wait=0)
    assert (pressed["message_id"], pressed["ephemeral_message_id"], pressed["user_id"]) == (
        0, 1, ANN)
    [update] = [u for u in await sb.updates() if u["update_id"] == pressed["update_id"]]
    query = update["callback_query"]
    assert (query["id"], query["data"], query["from"]) == (
        pressed["callback_query_id"], "cards", ANN_USER)
    assert query["message"] == sent
    # the bot answers it, and may answer with another ephemeral message for the presser
    assert await call(botapi, "answerCallbackQuery",
                      callback_query_id=query["id"], text="Cards shown") is True
    follow = await whisper(botapi, "K♠ 9♥: 4", callback_query_id=query["id"])
    assert follow["ephemeral_message_id"] == 2
    answer = await sb.answer(query["id"])
    assert (answer["answered"], answer["text"], answer["ephemeral_message_id"]) == (
        True, "Cards shown", 1)


async def test_a_reply_to_an_ephemeral_message_is_ephemeral_and_within_15_seconds(
    sandbox: SandboxHandle, sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    await whisper(botapi)
    reply = await whisper(botapi, "Sure?", reply_parameters={"ephemeral_message_id": 1})
    assert reply["reply_to_message"]["ephemeral_message_id"] == 1
    assert reply["reply_to_message"]["message_id"] == 0
    assert [m.get("reply_to_ephemeral_message_id") for m in await sb.view(GROUP, ANN)][-1] == 1
    not_found = "Bad Request: message to be replied not found"
    # not as an ordinary message, nor to another receiver's
    assert await refused(botapi, "sendMessage", chat_id=GROUP, text="x",
                         reply_parameters={"ephemeral_message_id": 1}) == not_found
    assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=BOB, text="x",
                         reply_parameters={"ephemeral_message_id": 1}) == not_found
    # after 15 s it is too late
    [first] = [m for m in sandbox.world.ephemeral[GROUP] if m.ephemeral_message_id == 1]
    first.date -= 16
    assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN, text="x",
                         reply_parameters={"ephemeral_message_id": 1}) == not_found
    late = await whisper(botapi, "x", reply_parameters={"ephemeral_message_id": 1,
                                                         "allow_sending_without_reply": True})
    assert "reply_to_message" not in late


async def test_an_offline_receiver_never_gets_it_though_the_bot_is_told_ok(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    user = await sb.set_offline(ANN)
    assert (user["id"], user["offline"]) == (ANN, True)
    sent = await whisper(botapi, reply_markup=KEYBOARD)
    assert (sent["message_id"], sent["ephemeral_message_id"]) == (0, 1)
    assert not any(m.get("ephemeral") for m in await sb.view(GROUP, ANN))
    [kept] = await sb.ephemeral_messages(GROUP)
    assert (kept["ephemeral_message_id"], kept["receiver_id"], kept["delivered"]) == (1, ANN, False)
    with pytest.raises(SandboxError) as unseen:
        await sb.press_ephemeral(GROUP, 1, ANN, "cards", wait=0)
    assert unseen.value.status == 404
    # back online: what was missed stays missed, new ones arrive
    assert (await sb.set_offline(ANN, False))["offline"] is False
    await whisper(botapi, "Your turn")
    assert [m["text"] for m in await sb.view(GROUP, ANN) if m.get("ephemeral")] == ["Your turn"]
    assert [m["delivered"] for m in await sb.ephemeral_messages(GROUP)] == [False, True]


async def test_other_send_methods_take_a_receiver_too(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    photo = await call(botapi, "sendPhoto", chat_id=GROUP, receiver_user_id=ANN, photo="x",
                       caption="Your hand")
    assert (photo["message_id"], photo["ephemeral_message_id"], photo["receiver_user"]) == (
        0, 1, ANN_USER)
    assert [m["text"] for m in await sb.view(GROUP, ANN) if m.get("ephemeral")] == [
        "[sendPhoto] Your hand"]
    assert await call(botapi, "editEphemeralMessageCaption", **address(1), caption="Hand") is True
    assert await refused(botapi, "editEphemeralMessageCaption", **address(2), caption="x") == (
        "Bad Request: message to edit not found")


async def test_commands_keep_is_ephemeral(sb: SandboxClient, botapi: httpx.AsyncClient) -> None:
    commands = [{"command": "hand", "description": "Your cards", "is_ephemeral": True},
                {"command": "rules", "description": "The rules"}]
    assert await call(botapi, "setMyCommands", commands=commands) is True
    assert await call(botapi, "getMyCommands") == commands


async def test_a_web_app_button_is_refused_in_a_message_one_member_sees(
    sb: SandboxClient, botapi: httpx.AsyncClient
) -> None:
    """As in any group message: a ``web_app`` button works in a private chat only, so an
    ephemeral message refuses it, sent or edited (text or keyboard), and stays as it was."""
    app = {"inline_keyboard": [*KEYBOARD["inline_keyboard"],
                               [{"text": "🃏 Open table", "web_app": {"url": "https://a.example/"}}]]}
    invalid = "Bad Request: BUTTON_TYPE_INVALID"
    assert await refused(botapi, "sendMessage", chat_id=GROUP, receiver_user_id=ANN,
                         text="Your cards", reply_markup=app) == invalid
    await whisper(botapi, reply_markup=KEYBOARD)
    assert await refused(botapi, "editEphemeralMessageReplyMarkup", **address(1),
                         reply_markup=app) == invalid
    assert await refused(botapi, "editEphemeralMessageText", **address(1), text="Pick",
                         reply_markup=app) == invalid
    [shown] = [m for m in await sb.view(GROUP, ANN) if m.get("ephemeral")]
    assert (shown["text"], shown["reply_markup"]) == ("Your cards: K♠ 9♥", KEYBOARD)
    # the same keyboard in Ann's private chat is taken
    assert (await call(botapi, "sendMessage", chat_id=ANN, text="Pick",
                       reply_markup=app))["reply_markup"] == app

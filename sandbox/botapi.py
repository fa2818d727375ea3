"""The Bot API methods the sandbox really implements, over a `World`.

Each method takes typed parameters (already checked against the spec) and
returns the `result` or raises ApiError with Telegram's own description.
Methods not listed in METHODS answer a minimal plausible result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from sandbox import spec
from sandbox.formatting import auto_entities, render, utf16_len
from sandbox.spec import ApiError, bad_request
from sandbox.state import (
    BOT_ID,
    BOT_USERNAME,
    DEFAULT_EXCLUDED_UPDATES,
    Chat,
    Message,
    World,
    bot_user,
    now,
)

MAX_TEXT = 4096  # characters (UTF-16 units) after entity parsing
MAX_CALLBACK_DATA = 64  # bytes
MAX_ANSWER_TEXT = 200  # characters

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"
# Bot API 10.2's ephemeral messages (receiver_user_id)
RECEIVER_IN_GROUPS_ONLY = "receiver_user_id can be used only in groups and supergroups"
RECEIVER_NOT_FOUND = "receiver user not found"
EPHEMERAL_REPLY_SECONDS = 15  # a reply to an ephemeral message comes within this, or not at all
GROUP_TYPES = ("group", "supergroup")
CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)

Method = Callable[[World, dict[str, Any]], Awaitable[Any]]
METHODS: dict[str, Method] = {}


def method(name: str) -> Callable[[Method], Method]:
    """Register a real implementation of a Bot API method."""

    def register(func: Method) -> Method:
        METHODS[name] = func
        return func

    return register


async def call(world: World, name: str, params: dict[str, Any]) -> Any:
    """Run one validated Bot API call."""
    check_flood(world, name, params)
    impl = METHODS.get(name)
    if impl is not None:
        return await impl(world, params)
    returns = (spec.find_method(name) or {}).get("returns", ["Boolean"])
    if returns == ["Message"] and "chat_id" in params:
        return _send_other(world, name, params)
    return spec.minimal_result(name)


# --- helpers -------------------------------------------------------------------


def find_chat(world: World, chat_id: Any) -> Chat:
    """The chat for an id or @username, or 400 "chat not found"."""
    if isinstance(chat_id, str):
        name = chat_id.removeprefix("@").lower()
        for chat in world.chats.values():
            if chat.user and (chat.user.username or "").lower() == name:
                return chat
        raise bad_request("chat not found")
    found = world.chats.get(chat_id)
    if found is None:
        raise bad_request("chat not found")
    return found


FLOODED_METHODS = frozenset(
    {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDice"}
)


def check_flood(world: World, name: str, params: dict[str, Any]) -> None:
    """429 with retry_after when the optional flood limits are on and exceeded."""
    if not world.flood or name not in FLOODED_METHODS or "chat_id" not in params:
        return
    chat = world.chats.get(params["chat_id"]) if isinstance(params["chat_id"], int) else None
    if chat is None:
        return
    wait = world.flood_wait(chat)
    if wait is not None:
        raise ApiError(429, f"Too Many Requests: retry after {wait}", retry_after=wait)


def check_can_write(chat: Chat) -> None:
    """Telegram's 403s: a user who never started or blocked the bot, a group without it."""
    if chat.type == "private":
        assert chat.user is not None
        if chat.user.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if not chat.user.started:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return
    if chat.bot_status == "kicked":
        raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
    if chat.bot_status == "left":
        raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")


MAX_PLACEHOLDER = 64  # characters of ForceReply's input_field_placeholder


def check_force_reply(markup: dict[str, Any]) -> dict[str, Any]:
    """ForceReply: ``force_reply`` true, an optional 1-64 character placeholder, an optional
    ``selective``. (Telegram's server quietly sends a message without markup for a false
    ``force_reply``; the sandbox refuses it, since the bot then never gets its reply.)"""
    if markup["force_reply"] is not True:
        raise bad_request("can't parse reply keyboard markup: force_reply must be True")
    placeholder = markup.get("input_field_placeholder")
    if placeholder is not None and not 1 <= utf16_len(placeholder) <= MAX_PLACEHOLDER:
        raise bad_request(
            "can't parse reply keyboard markup: input_field_placeholder must be 1-64 characters"
        )
    return markup


def check_markup(markup: dict[str, Any] | None, chat: Chat) -> dict[str, Any] | None:
    """Refuse inline keyboards Telegram refuses: callback data over 64 bytes, no action, a
    ``web_app`` button outside a private chat; and ForceReply markups outside its rules.
    (A ``web_app`` URL may be plain http here, for an app served locally.)"""
    if markup is not None and "force_reply" in markup:
        return check_force_reply(markup)
    if markup is None or "inline_keyboard" not in markup:
        return markup
    actions = [
        "url",
        "callback_data",
        "web_app",
        "login_url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "switch_inline_query_chosen_chat",
        "copy_text",
        "callback_game",
        "pay",
    ]
    for row in markup["inline_keyboard"]:
        for button in row:
            if not any(key in button for key in actions):
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            data = button.get("callback_data")
            if data is not None and not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA:
                raise bad_request("BUTTON_DATA_INVALID")
            if not button.get("text"):
                raise bad_request("BUTTON_TEXT_INVALID")
            if "web_app" in button and chat.type != "private":
                raise bad_request("BUTTON_TYPE_INVALID")
    return markup


def message_text(params: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """Parse text with its parse_mode or entities; enforce empty and 4096 limits."""
    raw = params.get("text", "")
    if "entities" in params:
        text, entities = raw, params["entities"]
    else:
        text, entities = render(raw, params.get("parse_mode"))
        detected = auto_entities(text, entities)
        entities = sorted([*entities, *detected], key=lambda e: (e["offset"], -e["length"]))
    if not text.strip():
        raise bad_request("message text is empty")
    if utf16_len(text) > MAX_TEXT:
        raise bad_request("message is too long")
    return text, entities


def bot_message(world: World, params: dict[str, Any], verb: str) -> tuple[Chat, Message]:
    """The bot's own message addressed by chat_id + message_id (edit or delete)."""
    if "inline_message_id" in params:
        raise bad_request("MESSAGE_ID_INVALID")
    if "chat_id" not in params:
        raise bad_request("chat_id is empty")
    if "message_id" not in params:
        raise bad_request("message identifier is not specified")
    chat = find_chat(world, params["chat_id"])
    if chat.type != "private":
        check_can_write(chat)  # a kicked bot can no longer edit or delete there either
    message = world.find_message(chat.id, params["message_id"])
    if message is None:
        raise bad_request(f"message to {verb} not found")
    return chat, message


def ephemeral_receiver(world: World, chat: Chat, params: dict[str, Any]) -> int | None:
    """The checked receiver_user_id of a send (None: an ordinary message), and the checked
    callback_query_id: a press the sandbox issued in this chat, by the receiver."""
    receiver: int | None = params.get("receiver_user_id")
    if receiver is not None:
        if chat.type not in GROUP_TYPES:
            raise bad_request(RECEIVER_IN_GROUPS_ONLY)
        if receiver not in world.users or receiver not in chat.members:
            raise bad_request(RECEIVER_NOT_FOUND)
    if "callback_query_id" in params:
        query = world.callbacks.get(params["callback_query_id"])
        if query is None or query.chat_id != chat.id or (
            receiver is not None and query.user_id != receiver
        ):
            raise bad_request(QUERY_INVALID)
    return receiver


def replied_message(
    world: World, chat: Chat, reply: dict[str, Any], receiver: int | None
) -> Message | None:
    """The message reply_parameters name: an ordinary one by message_id, or (ephemeral_message_id)
    one of the receiver's ephemeral messages, only from an ephemeral reply within 15 s."""
    if "ephemeral_message_id" in reply:
        original = None
        if receiver is not None:
            found = world.find_ephemeral(chat.id, receiver, reply["ephemeral_message_id"])
            if found is not None and now() - found.date <= EPHEMERAL_REPLY_SECONDS:
                original = found
    else:
        original = world.find_message(chat.id, reply.get("message_id", 0))
    if original is None and not reply.get("allow_sending_without_reply"):
        raise bad_request("message to be replied not found")
    return original


def ephemeral_message(world: World, params: dict[str, Any], verb: str) -> tuple[Chat, Message]:
    """The bot's ephemeral message addressed by chat_id + receiver_user_id +
    ephemeral_message_id (edit or delete)."""
    chat = find_chat(world, params["chat_id"])
    if chat.type not in GROUP_TYPES:
        raise bad_request(RECEIVER_IN_GROUPS_ONLY)
    check_can_write(chat)
    message = world.find_ephemeral(
        chat.id, params["receiver_user_id"], params["ephemeral_message_id"]
    )
    if message is None:
        raise bad_request(f"message to {verb} not found")
    return chat, message


# --- updates and webhook ------------------------------------------------------


@method("getMe")
async def get_me(world: World, params: dict[str, Any]) -> Any:
    """The bot user."""
    return bot_user()


@method("logOut")
async def log_out(world: World, params: dict[str, Any]) -> Any:
    """Accepted; the sandbox has no cloud server to log out of."""
    return True


@method("close")
async def close(world: World, params: dict[str, Any]) -> Any:
    """Accepted."""
    return True


SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")


@method("setWebhook")
async def set_webhook(world: World, params: dict[str, Any]) -> Any:
    """Turn on delivery by HTTP POST to ``url`` (sandbox/webhook.py); an empty url turns
    it off. Unlike Telegram, plain http and any port are accepted (local receivers)."""
    url = params["url"]
    if not url:
        return await delete_webhook(world, params)
    if not url.startswith(("https://", "http://")) or len(url) > 2048:
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    secret = params.get("secret_token")
    if secret is not None and not SECRET_TOKEN.fullmatch(secret):
        raise bad_request("secret token contains unallowed characters")
    connections = params.get("max_connections", 40)
    if not 1 <= connections <= 100:
        raise bad_request("bad webhook: max_connections must be between 1 and 100")
    if "allowed_updates" in params:
        world.allowed_updates = list(params["allowed_updates"])
    previous = world.webhook
    world.webhook = {"url": url, "max_connections": connections}
    if secret is not None:
        world.webhook["secret_token"] = secret
    for kept in ("last_error_date", "last_error_message"):
        if kept in previous and previous.get("url") == url:
            world.webhook[kept] = previous[kept]
    if params.get("drop_pending_updates"):
        world.updates.clear()
    world.wake()  # a waiting getUpdates ends with 409; delivery starts
    return True


@method("deleteWebhook")
async def delete_webhook(world: World, params: dict[str, Any]) -> Any:
    """Forget the webhook (deliveries under way finish); drop_pending_updates empties
    the queue."""
    world.webhook = {"url": ""}
    if params.get("drop_pending_updates"):
        world.updates.clear()
    world.wake()
    return True


@method("getWebhookInfo")
async def get_webhook_info(world: World, params: dict[str, Any]) -> Any:
    """Webhook URL, the number of updates waiting, the last delivery error."""
    hook = world.webhook
    info: dict[str, Any] = {
        "url": hook.get("url", ""),
        "has_custom_certificate": False,
        "pending_update_count": len(world.updates),
    }
    if hook.get("url"):
        info["max_connections"] = hook.get("max_connections", 40)
        for key in ("last_error_date", "last_error_message"):
            if key in hook:
                info[key] = hook[key]
        if world.allowed_updates:
            info["allowed_updates"] = list(world.allowed_updates)
    return info


def allowed(world: World, update: dict[str, Any]) -> bool:
    """Whether the bot gets this update under its allowed_updates."""
    if update["update_id"] in world.raw_update_ids:
        return True  # injected verbatim to test the bot, whatever it asked for
    kind = next(key for key in update if key != "update_id")
    if world.allowed_updates:
        return kind in world.allowed_updates
    return kind not in DEFAULT_EXCLUDED_UPDATES


@method("getUpdates")
async def get_updates(world: World, params: dict[str, Any]) -> Any:
    """Long polling: updates below `offset` are confirmed and forgotten."""
    if world.on_poll is not None:
        world.on_poll(params.get("offset"))
    if world.webhook.get("url"):
        raise ApiError(409, WEBHOOK_CONFLICT)
    if "allowed_updates" in params:
        world.allowed_updates = list(params["allowed_updates"])
    offset = params.get("offset")
    if offset is not None:
        if offset < 0:
            world.updates = world.updates[offset:]
        else:
            world.updates = [u for u in world.updates if u["update_id"] >= offset]
    limit = min(max(params.get("limit", 100), 1), 100)
    timeout = max(params.get("timeout", 0), 0)
    # Only one getUpdates may wait at a time; a newer one ends the older with 409.
    if world.poller is not None and not world.poller.done():
        world.poller.set_result(None)
        world.changed.set()
    mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    world.poller = mine
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if mine.done() and world.poller is not mine:
            raise ApiError(409, CONFLICT)
        if world.webhook.get("url"):  # set while this call waited
            if world.poller is mine:
                world.poller = None
            raise ApiError(409, WEBHOOK_CONFLICT)
        world.updates = [u for u in world.updates if allowed(world, u)]
        ready = world.updates[:limit]
        remaining = deadline - loop.time()
        if ready or remaining <= 0:
            if world.poller is mine:
                world.poller = None
            return ready
        world.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(world.changed.wait(), remaining)


# --- messages -------------------------------------------------------------------


@method("sendMessage")
async def send_message(world: World, params: dict[str, Any]) -> Any:
    """Store the bot's message in the chat and return it as Telegram shapes it."""
    chat = find_chat(world, params["chat_id"])
    text, entities = message_text(params)
    markup = check_markup(params.get("reply_markup"), chat)
    check_can_write(chat)
    receiver = ephemeral_receiver(world, chat, params)
    extra: dict[str, Any] = {}
    reply = params.get("reply_parameters")
    if reply:
        original = replied_message(world, chat, reply, receiver)
        if original is not None:
            extra["reply_to_message"] = world.replied_json(original)
    if "link_preview_options" in params:
        extra["link_preview_options"] = params["link_preview_options"]
    message = world.new_message(chat.id, BOT_ID, text, entities, markup, extra, receiver)
    return world.message_json(message)


def _send_other(world: World, name: str, params: dict[str, Any]) -> Any:
    """sendPhoto, sendDice...: a placeholder message so the chat shows something was sent."""
    chat = find_chat(world, params["chat_id"])
    check_can_write(chat)
    markup = check_markup(params.get("reply_markup"), chat)
    receiver = ephemeral_receiver(world, chat, params)
    caption = params.get("caption")
    text = f"[{name}] {caption}" if caption else f"[{name}]"
    message = world.new_message(chat.id, BOT_ID, text, [], markup, receiver_id=receiver)
    return world.message_json(message)


def _record_edit(message: Message, date: int) -> None:
    message.edit_date = date
    message.edits.append({"text": message.text, "reply_markup": message.reply_markup, "date": date})


@method("editMessageText")
async def edit_message_text(world: World, params: dict[str, Any]) -> Any:
    """Edit the bot's message text; without reply_markup the inline keyboard goes away."""
    chat, message = bot_message(world, params, "edit")
    return _edit_text(world, chat, message, params)


def _edit_text(world: World, chat: Chat, message: Message, params: dict[str, Any]) -> Any:
    text, entities = message_text(params)
    markup = check_markup(params.get("reply_markup"), chat)
    if not message.from_bot:
        raise bad_request("message can't be edited")
    if text == message.text and entities == message.entities and markup == message.reply_markup:
        raise bad_request(NOT_MODIFIED)
    message.text, message.entities, message.reply_markup = text, entities, markup
    _record_edit(message, now())
    return world.message_json(message)


@method("editMessageReplyMarkup")
async def edit_message_reply_markup(world: World, params: dict[str, Any]) -> Any:
    """Replace (or, without reply_markup, remove) the inline keyboard."""
    chat, message = bot_message(world, params, "edit")
    return _edit_markup(world, chat, message, params)


@method("editEphemeralMessageText")
@method("editEphemeralMessageReplyMarkup")
async def edit_ephemeral_message(world: World, params: dict[str, Any]) -> Any:
    """editMessageText (it has ``text``) or editMessageReplyMarkup for an ephemeral message;
    Telegram answers True, not the Message."""
    chat, message = ephemeral_message(world, params, "edit")
    (_edit_text if "text" in params else _edit_markup)(world, chat, message, params)
    return True


@method("editEphemeralMessageCaption")
@method("editEphemeralMessageMedia")
async def edit_ephemeral_message_media(world: World, params: dict[str, Any]) -> Any:
    """Checked like the others and answered True; the message stays as it is (the sandbox
    keeps no media or captions to change)."""
    ephemeral_message(world, params, "edit")
    return True


@method("deleteEphemeralMessage")
async def delete_ephemeral_message(world: World, params: dict[str, Any]) -> Any:
    """Gone from its receiver's view (an ephemeral message leaves no deleted trace)."""
    chat, message = ephemeral_message(world, params, "delete")
    world.ephemeral[chat.id].remove(message)
    return True


def _edit_markup(world: World, chat: Chat, message: Message, params: dict[str, Any]) -> Any:
    markup = check_markup(params.get("reply_markup"), chat)
    if markup is not None and not markup.get("inline_keyboard"):
        markup = None  # an empty keyboard is no keyboard, as in Telegram
    if not message.from_bot:
        raise bad_request("message can't be edited")
    if markup == message.reply_markup:
        raise bad_request(NOT_MODIFIED)
    message.reply_markup = markup
    _record_edit(message, now())
    return world.message_json(message)


@method("deleteMessage")
async def delete_message(world: World, params: dict[str, Any]) -> Any:
    """Mark a message deleted (kept in the control view with deleted=true)."""
    chat, message = bot_message(world, params, "delete")
    if not message.from_bot and chat.type != "private" and chat.bot_status != "administrator":
        raise bad_request("message can't be deleted")
    message.deleted = True
    return True


@method("deleteMessages")
async def delete_messages(world: World, params: dict[str, Any]) -> Any:
    """Delete several messages; missing ones are skipped, as Telegram does."""
    chat = find_chat(world, params["chat_id"])
    for message_id in params["message_ids"]:
        message = world.find_message(chat.id, message_id)
        if message is not None and (message.from_bot or chat.type == "private"):
            message.deleted = True
    return True


@method("answerCallbackQuery")
async def answer_callback_query(world: World, params: dict[str, Any]) -> Any:
    """Record the answer for the press that caused it; each query is answered once."""
    query = world.callbacks.get(params["callback_query_id"])
    if query is not None:
        query.answer_calls += 1
    if query is None or query.answer is not None:
        raise bad_request(QUERY_INVALID)
    text = params.get("text")
    if text is not None and len(text) > MAX_ANSWER_TEXT:
        raise bad_request("MESSAGE_TOO_LONG")
    query.answer = {
        "text": text,
        "show_alert": bool(params.get("show_alert", False)),
        "url": params.get("url"),
        "cache_time": params.get("cache_time", 0),
    }
    query.answered.set()
    return True


# --- commands -------------------------------------------------------------------


def _scope_key(params: dict[str, Any]) -> tuple[str, str]:
    scope = params.get("scope") or {"type": "default"}
    if "chat_id" in scope:
        scope = {**scope, "chat_id": scope["chat_id"]}
    return json.dumps(scope, sort_keys=True), params.get("language_code", "")


@method("setMyCommands")
async def set_my_commands(world: World, params: dict[str, Any]) -> Any:
    """Store the command list for a scope and language."""
    commands = params["commands"]
    if len(commands) > 100:
        raise bad_request("too many commands")
    for item in commands:
        command = item["command"]
        if not 1 <= len(command) <= 32 or not all(
            c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in command
        ):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(item["description"]) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
    language = params.get("language_code", "")
    if language and len(language) != 2:
        raise bad_request("LANG_CODE_INVALID")
    key = _scope_key(params)
    if commands:
        world.commands[key] = [
            {k: c[k] for k in ("command", "description", "is_ephemeral") if k in c}
            for c in commands
        ]
    else:
        world.commands.pop(key, None)
    return True


@method("getMyCommands")
async def get_my_commands(world: World, params: dict[str, Any]) -> Any:
    """The list stored for exactly this scope and language."""
    return world.commands.get(_scope_key(params), [])


@method("deleteMyCommands")
async def delete_my_commands(world: World, params: dict[str, Any]) -> Any:
    """Forget the list for this scope and language."""
    world.commands.pop(_scope_key(params), None)
    return True


# --- chats ----------------------------------------------------------------------


@method("getChat")
async def get_chat(world: World, params: dict[str, Any]) -> Any:
    """ChatFullInfo with the required fields of Bot API 10.1."""
    chat = find_chat(world, params["chat_id"])
    if chat.type != "private" and chat.bot_status in ("left", "kicked"):
        raise bad_request("chat not found")
    return {
        **chat.as_telegram(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": spec.minimal_value("AcceptedGiftTypes"),
    }


@method("getChatMember")
async def get_chat_member(world: World, params: dict[str, Any]) -> Any:
    """A member's status: first admin is the creator, then admins, members, left."""
    chat = find_chat(world, params["chat_id"])
    user_id = params["user_id"]
    if user_id != BOT_ID and user_id not in world.users:
        raise bad_request("user not found")
    return world.chat_member_json(world.member_status(chat, user_id), user_id)


@method("getChatAdministrators")
async def get_chat_administrators(world: World, params: dict[str, Any]) -> Any:
    """The chat's admins (and the bot if it is one)."""
    chat = find_chat(world, params["chat_id"])
    if chat.type == "private":
        raise bad_request("there are no administrators in the private chat")
    out = [world.chat_member_json(world.member_status(chat, uid), uid) for uid in chat.admins]
    if chat.bot_status == "administrator":
        out.append(world.chat_member_json("administrator", BOT_ID))
    return out


@method("getChatMemberCount")
async def get_chat_member_count(world: World, params: dict[str, Any]) -> Any:
    """Members plus the bot if present."""
    chat = find_chat(world, params["chat_id"])
    if chat.type == "private":
        return 2
    return len(chat.members) + (chat.bot_status in ("member", "administrator"))


@method("leaveChat")
async def leave_chat(world: World, params: dict[str, Any]) -> Any:
    """The bot leaves a group."""
    chat = find_chat(world, params["chat_id"])
    check_can_write(chat)
    chat.bot_status = "left"
    return True


_ACTIONS = {
    "typing",
    "upload_photo",
    "record_video",
    "upload_video",
    "record_voice",
    "upload_voice",
    "upload_document",
    "choose_sticker",
    "find_location",
    "record_video_note",
    "upload_video_note",
}


@method("sendChatAction")
async def send_chat_action(world: World, params: dict[str, Any]) -> Any:
    """Accepted for a known action in a chat the bot may write to."""
    chat = find_chat(world, params["chat_id"])
    if params["action"] not in _ACTIONS:
        raise bad_request("wrong parameter action in request")
    check_can_write(chat)
    return True


def _check_pin_rights(chat: Chat) -> None:
    check_can_write(chat)
    if chat.type == "supergroup" and chat.bot_status != "administrator":
        raise bad_request("not enough rights to manage pinned messages in the chat")


@method("pinChatMessage")
async def pin_chat_message(world: World, params: dict[str, Any]) -> Any:
    """Pin a message (supergroups need the bot to be an admin)."""
    chat = find_chat(world, params["chat_id"])
    _check_pin_rights(chat)
    message = world.find_message(chat.id, params["message_id"])
    if message is None:
        raise bad_request("message to pin not found")
    message.pinned = True
    return True


@method("unpinChatMessage")
async def unpin_chat_message(world: World, params: dict[str, Any]) -> Any:
    """Unpin one message (the most recent pinned one without message_id)."""
    chat = find_chat(world, params["chat_id"])
    _check_pin_rights(chat)
    pinned = [m for m in world.messages.get(chat.id, []) if m.pinned and not m.deleted]
    if "message_id" in params:
        pinned = [m for m in pinned if m.message_id == params["message_id"]]
        if not pinned:
            raise bad_request("message to unpin not found")
    if pinned:
        pinned[-1].pinned = False
    return True


@method("unpinAllChatMessages")
async def unpin_all_chat_messages(world: World, params: dict[str, Any]) -> Any:
    """Unpin everything in a chat."""
    chat = find_chat(world, params["chat_id"])
    _check_pin_rights(chat)
    for message in world.messages.get(chat.id, []):
        message.pinned = False
    return True


def is_for_bot(text: str, entities: list[dict[str, Any]]) -> bool:
    """Privacy mode: a group message reaches the bot if it is a command for it or mentions it."""
    encoded = text.encode("utf-16-le")
    for entity in entities:
        start, length = entity["offset"] * 2, entity["length"] * 2
        word = encoded[start : start + length].decode("utf-16-le")
        if entity["type"] == "bot_command" and (
            "@" not in word or word.lower().endswith("@" + BOT_USERNAME)
        ):
            return True
        if entity["type"] == "mention" and word.lower() == "@" + BOT_USERNAME:
            return True
    return False

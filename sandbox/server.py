"""The sandbox HTTP server: the fake Bot API, the control API and the web page.

    /bot<token>/<method>   the Bot API, as python-telegram-bot calls it
    /sandbox/...           JSON control API for tests and the page
    /                      the web page (page.html)
    /js/telegram-web-app.js  the stand-in for Telegram's Mini App script (sandbox/static/)

`start_sandbox(host, port, state_path)` runs it inside the current event loop; with a
state path the world is loaded from that JSON file and saved back to it (sandbox/persist.py).
While the bot has a webhook set, updates are POSTed to it (sandbox/webhook.py) instead
of waiting for getUpdates.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from sandbox import botapi
from sandbox.botapi import MAX_CALLBACK_DATA
from sandbox.formatting import auto_entities
from sandbox.miniapp import (
    SHORT_NAME,
    THEMES,
    OpenError,
    launch_url,
    new_query_id,
    parse_direct_link,
    sign,
)
from sandbox.persist import StateFile
from sandbox.spec import ApiError, validate_call
from sandbox.state import (
    BOT_ID,
    BOT_USERNAME,
    INVALID_TOKENS,
    CallbackQuery,
    Fault,
    MiniApp,
    World,
)
from sandbox.webhook import Delivery

log = logging.getLogger(__name__)

WORLD_KEY = web.AppKey("world", World)
STATE_KEY = web.AppKey("state", StateFile)
DELIVERY_KEY = web.AppKey("delivery", Delivery)

_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


# --- the Bot API side ------------------------------------------------------------


async def _read_params(request: web.Request) -> dict[str, Any]:
    """Query string + body (JSON, urlencoded or multipart) as one dict."""
    params: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        ctype = request.content_type
        if ctype == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise ApiError(400, "Bad Request: can't parse JSON body") from None
            if not isinstance(body, dict):
                raise ApiError(400, "Bad Request: JSON body must be an object")
            params.update(body)
        elif ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    params[key] = f"<file {value.filename}>"
                else:
                    params[key] = value
    return params


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


async def bot_api(request: web.Request) -> web.Response:
    """One Bot API call: auth, spec validation, injected faults, then the method."""
    world = request.app[WORLD_KEY]
    token = request.match_info["token"]
    name = request.match_info["method"]
    params: dict[str, Any] = {}
    took_effect = False
    try:
        params = await _read_params(request)
        if not token or token in INVALID_TOKENS:
            raise ApiError(401, "Unauthorized")
        world.bot_token = token  # what a Mini App's initData is signed with
        if _has_lone_surrogate(params):
            raise ApiError(400, "Bad Request: strings must be encoded in UTF-8")
        name, params = validate_call(name, params)
        fault = world.take_fault(name, params)
        if fault is not None and not fault.after:
            await _misbehave(fault)
        result = await botapi.call(world, name, params)
        if fault is not None and fault.after:
            # it took effect; log that now, since the caller may have given up by the answer
            effect = world.record(name, _json_safe(params), {"ok": True, "result": result})
            effect["late_answer"] = {"delay": fault.delay, "error_code": fault.error_code}
            took_effect = True
            await _misbehave(fault)
        payload: dict[str, Any] = {"ok": True, "result": result}
        status = 200
    except ApiError as error:
        payload = error.payload()
        status = error.code
    if not took_effect:
        world.record(name, _json_safe(params), payload)
    return web.json_response(payload, status=status)


async def _misbehave(fault: Fault) -> None:
    """Wait the fault's delay, then raise its error if it has one."""
    if fault.delay:
        await asyncio.sleep(fault.delay)
    if fault.error_code is not None:
        description = fault.description or _default_description(fault)
        raise ApiError(fault.error_code, description, fault.retry_after)


def _has_lone_surrogate(value: Any) -> bool:
    """A string that is not valid Unicode (a lone UTF-16 surrogate from a JSON escape)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _default_description(fault: Fault) -> str:
    if fault.error_code == 429:
        return f"Too Many Requests: retry after {fault.retry_after or 1}"
    return _DEFAULT_DESCRIPTIONS.get(fault.error_code or 500, "Error")


# --- the control API -------------------------------------------------------------


class ControlError(Exception):
    """A refused control call: 400 or 404 with a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@web.middleware
async def control_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """Turn ControlError and malformed JSON into JSON error answers."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except (ControlError, OpenError) as error:
        return web.json_response({"error": error.message}, status=error.status)
    except (KeyError, TypeError, ValueError) as error:
        if not request.path.startswith("/sandbox/"):
            raise
        return web.json_response({"error": f"bad request: {error!r}"}, status=400)


async def _body(request: web.Request) -> dict[str, Any]:
    if not request.can_read_body:
        return {}
    body = await request.json()
    if not isinstance(body, dict):
        raise ControlError(400, "JSON object expected")
    return body


def _user(world: World, user_id: Any) -> Any:
    user = world.users.get(int(user_id))
    if user is None:
        raise ControlError(404, f"user {user_id} not found")
    return user


def _chat(world: World, chat_id: Any) -> Any:
    chat = world.chats.get(int(chat_id))
    if chat is None:
        raise ControlError(404, f"chat {chat_id} not found")
    return chat


async def reset(request: web.Request) -> web.Response:
    """POST /sandbox/reset: forget everything."""
    world = request.app[WORLD_KEY]
    for query in world.callbacks.values():
        query.answered.set()  # release presses still waiting
    world.reset()
    return web.json_response({"ok": True})


async def add_user(request: web.Request) -> web.Response:
    """POST /sandbox/users {id, first_name, username?, language_code?, last_name?}."""
    body = await _body(request)
    user_id = int(body["id"])
    if user_id <= 0 or user_id == BOT_ID:
        raise ControlError(400, "a user id must be positive and not the bot's")
    user = request.app[WORLD_KEY].add_user(
        user_id, str(body["first_name"]), body.get("username"), body.get("language_code"),
        body.get("last_name") or None,
    )
    return web.json_response(user.as_control())


async def list_users(request: web.Request) -> web.Response:
    """GET /sandbox/users."""
    world = request.app[WORLD_KEY]
    return web.json_response([u.as_control() for u in world.users.values()])


async def add_chat(request: web.Request) -> web.Response:
    """POST /sandbox/chats {id (<0), title, type, members, admins}."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    chat_id = int(body["id"])
    chat_type = body.get("type", "group")
    if chat_id >= 0 or chat_type not in ("group", "supergroup"):
        raise ControlError(400, "a group needs a negative id and type group or supergroup")
    members = [int(x) for x in body.get("members", [])]
    admins = [int(x) for x in body.get("admins", [])]
    for user_id in (*members, *admins):
        _user(world, user_id)
    chat = world.add_chat(chat_id, str(body.get("title", chat_id)), chat_type, members, admins)
    return web.json_response(chat.as_control())


async def list_chats(request: web.Request) -> web.Response:
    """GET /sandbox/chats."""
    world = request.app[WORLD_KEY]
    return web.json_response([c.as_control() for c in world.chats.values()])


async def add_bot(request: web.Request) -> web.Response:
    """POST /sandbox/add_bot {chat_id, by_user, admin?}: my_chat_member + new_chat_members."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    chat = _chat(world, body["chat_id"])
    user = _user(world, body["by_user"])
    if chat.type == "private":
        raise ControlError(400, "the bot is added to groups only")
    if user.id not in chat.members:
        chat.members.append(user.id)
    old = chat.bot_status
    chat.bot_status = "administrator" if body.get("admin") else "member"
    first = world.member_update(chat, user.id, old, chat.bot_status)
    message = world.new_message(
        chat.id, user.id, None, extra={"new_chat_members": [world.sender(BOT_ID)]}
    )
    second = world.queue_update("message", world.message_json(message))
    return web.json_response(
        {"chat": chat.as_control(), "update_ids": [first, second], "message_id": message.message_id}
    )


async def remove_bot(request: web.Request) -> web.Response:
    """POST /sandbox/remove_bot {chat_id, by_user, kicked?}: the bot is removed from a group
    (``kicked``: banned, as removing a member of a supergroup does; else it merely left)."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    chat = _chat(world, body["chat_id"])
    user = _user(world, body["by_user"])
    old = chat.bot_status
    chat.bot_status = "kicked" if body.get("kicked") else "left"
    update_id = world.member_update(chat, user.id, old, chat.bot_status)
    return web.json_response({"chat": chat.as_control(), "update_ids": [update_id]})


async def send(request: web.Request) -> web.Response:
    """POST /sandbox/send {chat_id, user_id, text}: a user writes; the bot gets an update."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    chat = _chat(world, body["chat_id"])
    user = _user(world, body["user_id"])
    text = str(body["text"])
    if not text.strip():
        raise ControlError(400, "empty text")
    if chat.type == "private":
        if chat.id != user.id:
            raise ControlError(400, "a private chat's id is its user's id")
        if user.blocked:
            # Writing to a blocked bot (its "Restart" button) unblocks it.
            user.blocked = False
            world.member_update(chat, user.id, "kicked", "member")
        if text.split()[0].split("@")[0] == "/start":
            user.started = True
    elif user.id not in chat.members:
        chat.members.append(user.id)
    delivered = chat.type == "private" or chat.bot_status in ("member", "administrator")
    extra: dict[str, Any] = {}
    replied = None
    if body.get("reply_to") is not None:
        replied = world.find_message(chat.id, int(body["reply_to"]))
        if replied is None:
            raise ControlError(400, "the message replied to does not exist")
        extra["reply_to_message"] = world.replied_json(replied)
    message = world.new_message(chat.id, user.id, text, auto_entities(text), extra=extra)
    reason = None
    if delivered and chat.type != "private" and chat.bot_status != "administrator":
        # Privacy mode: in groups a non-admin bot sees only commands, mentions
        # and replies to its own messages.
        delivered = botapi.is_for_bot(text, message.entities) or (
            replied is not None and replied.from_id == BOT_ID
        )
        reason = None if delivered else "privacy mode: not a command or mention for the bot"
    elif not delivered:
        reason = "the bot is not a member of this chat"
    update_id = None
    if delivered:
        update_id = world.queue_update("message", world.message_json(message))
    return web.json_response(
        {
            "message_id": message.message_id,
            "update_id": update_id,
            "delivered": delivered,
            "reason": reason,
        }
    )


def _keyboard_data(markup: dict[str, Any] | None) -> list[str]:
    if not markup:
        return []
    return [
        b["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for b in row
        if "callback_data" in b
    ]


def _pressed_message(world: World, chat: Any, user: Any, body: dict[str, Any]) -> Any:
    """The message a press is on: ``message_id``, or ``ephemeral_message_id`` for one of the
    bot's ephemeral messages, which only its receiver sees (and so can press)."""
    if body.get("ephemeral_message_id") is not None:
        number = int(body["ephemeral_message_id"])
        message = world.find_ephemeral(chat.id, user.id, number)
        if message is None or not message.delivered:
            raise ControlError(404, f"user {user.id} has no ephemeral message {number} in "
                                    f"chat {chat.id}")
        return message
    message = world.find_message(chat.id, int(body["message_id"]))
    if message is None:
        raise ControlError(404, f"message {body['message_id']} not found in chat {chat.id}")
    return message


async def press(request: web.Request) -> web.Response:
    """POST /sandbox/press {chat_id, message_id | ephemeral_message_id, user_id, data, wait?,
    forge?}."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    chat = _chat(world, body["chat_id"])
    user = _user(world, body["user_id"])
    data = str(body["data"])
    forge = bool(body.get("forge", False))
    wait = float(body.get("wait", 5.0))
    message = _pressed_message(world, chat, user, body)
    if not forge:
        if not message.from_bot:
            raise ControlError(400, "only the bot's messages have buttons")
        if data not in _keyboard_data(message.reply_markup):
            raise ControlError(400, f"no button with data {data!r} on that message")
        if chat.type != "private" and user.id not in chat.members:
            raise ControlError(400, f"user {user.id} is not in chat {chat.id}")
    if len(data.encode()) > MAX_CALLBACK_DATA:
        raise ControlError(400, "callback data longer than 64 bytes cannot exist")
    query_id = str(4_611_686_018_427_387_904 + next(world.callback_ids) * 7919 + chat.id % 1000)
    query = CallbackQuery(
        id=query_id,
        chat_id=chat.id,
        message_id=message.message_id,
        user_id=user.id,
        data=data,
        forged=forge,
        date=asyncio.get_running_loop().time(),
        ephemeral_message_id=message.ephemeral_message_id,
    )
    world.callbacks[query_id] = query
    update_id = world.queue_update(
        "callback_query",
        {
            "id": query_id,
            "from": user.as_telegram(),
            "message": world.message_json(message),
            "chat_instance": str(abs(chat.id) * 31 + 7),
            "data": data,
        },
    )
    if wait > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(query.answered.wait(), wait)
    result = query.as_control()
    result["update_id"] = update_id
    return web.json_response(result)


async def raw_updates(request: web.Request) -> web.Response:
    """POST /sandbox/raw_updates {updates: [object, ...]}: queue update bodies verbatim (each
    gets the next update_id), whatever their shape, for fuzzing the bot."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    items = body["updates"]
    if not isinstance(items, list) or not all(isinstance(u, dict) for u in items):
        raise ControlError(400, "updates must be a list of JSON objects")
    return web.json_response({"update_ids": [world.queue_raw_update(u) for u in items]})


async def block(request: web.Request) -> web.Response:
    """POST /sandbox/block {user_id, blocked}: the user blocks or unblocks the bot."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    user = _user(world, body["user_id"])
    blocked = bool(body.get("blocked", True))
    if blocked != user.blocked:
        user.blocked = blocked
        old, new = ("member", "kicked") if blocked else ("kicked", "member")
        world.member_update(world.chats[user.id], user.id, old, new)
    return web.json_response(user.as_control())


async def offline(request: web.Request) -> web.Response:
    """POST /sandbox/offline {user_id, offline}: the user goes offline (or back online); the
    ephemeral messages sent to him meanwhile are never delivered (the bot is not told)."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    user = _user(world, body["user_id"])
    user.offline = bool(body.get("offline", True))
    return web.json_response(user.as_control())


async def fail(request: web.Request) -> web.Response:
    """POST /sandbox/fail {method, error_code?, description?, retry_after?, count, chat_id?,
    delay?, after?, text?}: with ``after`` the call takes effect before the delay and the
    error; with ``text`` only calls whose text contains it match."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    error_code = body.get("error_code")
    delay = float(body.get("delay") or 0)
    if error_code is None and not delay:
        raise ControlError(400, "a fault needs an error_code, a delay, or both")
    if delay < 0:
        raise ControlError(400, "a delay cannot be negative")
    fault = Fault(
        method=str(body["method"]),
        count=int(body.get("count", 1)),
        error_code=int(error_code) if error_code is not None else None,
        description=body.get("description"),
        retry_after=int(body["retry_after"]) if body.get("retry_after") is not None else None,
        chat_id=body.get("chat_id"),
        delay=delay,
        after=bool(body.get("after", False)),
        text=str(body["text"]) if body.get("text") is not None else None,
    )
    if fault.error_code == 429 and fault.retry_after is None:
        fault.retry_after = 1
    world.faults.append(fault)
    return web.json_response(fault.as_control())


async def flood(request: web.Request) -> web.Response:
    """POST /sandbox/flood {enabled, group_per_minute=20, private_per_minute=60}: flood limits."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    if body.get("enabled", True):
        world.flood = {
            "group_per_minute": int(body.get("group_per_minute", 20)),
            "private_per_minute": int(body.get("private_per_minute", 60)),
        }
    else:
        world.flood = {}
    world.sent_times.clear()
    return web.json_response({"enabled": bool(world.flood), **world.flood})


async def faults(request: web.Request) -> web.Response:
    """GET /sandbox/faults: faults with calls left."""
    world = request.app[WORLD_KEY]
    return web.json_response([f.as_control() for f in world.faults if f.count > 0])


async def clear_faults(request: web.Request) -> web.Response:
    """DELETE /sandbox/faults: forget every injected fault (calls already waiting go on)."""
    request.app[WORLD_KEY].faults.clear()
    return web.json_response({"ok": True})


async def messages(request: web.Request) -> web.Response:
    """GET /sandbox/chats/{chat_id}/messages?viewer=: the whole chat, deleted ones flagged;
    with ``viewer`` (a user id) as he sees it: with the ephemeral messages delivered to him
    (``ephemeral`` true), which nobody else's view nor the shared history shows."""
    world = request.app[WORLD_KEY]
    chat = _chat(world, request.match_info["chat_id"])
    raw = request.query.get("viewer")
    viewer = _user(world, raw).id if raw is not None else None
    return web.json_response([m.as_control() for m in world.view(chat.id, viewer)])


async def ephemeral(request: web.Request) -> web.Response:
    """GET /sandbox/chats/{chat_id}/ephemeral: every ephemeral message the bot has in the chat,
    for any receiver, those not delivered (``delivered`` false) included."""
    world = request.app[WORLD_KEY]
    chat = _chat(world, request.match_info["chat_id"])
    return web.json_response([m.as_control() for m in world.ephemeral.get(chat.id, [])])


async def call_log(request: web.Request) -> web.Response:
    """GET /sandbox/log?method=&exclude=&since=: the Bot API call log."""
    world = request.app[WORLD_KEY]
    entries = world.log
    if "method" in request.query:
        entries = [e for e in entries if e["method"] == request.query["method"]]
    if "exclude" in request.query:
        excluded = set(request.query["exclude"].split(","))
        entries = [e for e in entries if e["method"] not in excluded]
    if "since" in request.query:
        since = int(request.query["since"])
        entries = [e for e in entries if e["seq"] > since]
    return web.json_response(entries)


async def answers(request: web.Request) -> web.Response:
    """GET /sandbox/answers: every press and its answer."""
    world = request.app[WORLD_KEY]
    return web.json_response([q.as_control() for q in world.callbacks.values()])


async def answer(request: web.Request) -> web.Response:
    """GET /sandbox/answers/{callback_query_id}?wait=: one press and its answer, waiting up
    to `wait` s (at most 60) for the bot to answer it. The page keeps a pressed button
    spinning until this says answered."""
    world = request.app[WORLD_KEY]
    query_id = request.match_info["callback_query_id"]
    query = world.callbacks.get(query_id)
    if query is None:
        raise ControlError(404, f"callback query {query_id} not found")
    wait = min(max(float(request.query.get("wait", 0)), 0.0), 60.0)
    if wait > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(query.answered.wait(), wait)
    return web.json_response(query.as_control())


async def commands(request: web.Request) -> web.Response:
    """GET /sandbox/commands: each setMyCommands scope and language with its list."""
    world = request.app[WORLD_KEY]
    return web.json_response(
        [
            {"scope": json.loads(scope), "language_code": language, "commands": items}
            for (scope, language), items in world.commands.items()
        ]
    )


async def updates(request: web.Request) -> web.Response:
    """GET /sandbox/updates: updates not yet confirmed by the bot."""
    return web.json_response(request.app[WORLD_KEY].updates)


async def webhook(request: web.Request) -> web.Response:
    """GET /sandbox/webhook: the webhook, the spread, pending updates, recent attempts."""
    return web.json_response(request.app[DELIVERY_KEY].state())


async def webhook_spread(request: web.Request) -> web.Response:
    """POST /sandbox/webhook {spread: [url, ...]}: deliver each update to one of these URLs
    chosen at random (a load balancer in front of workers); an empty list: to the URL the
    bot set."""
    delivery = request.app[DELIVERY_KEY]
    urls = (await _body(request))["spread"]
    if not isinstance(urls, list) or not all(
            isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls):
        raise ControlError(400, "spread must be a list of http(s) URLs")
    delivery.spread = list(urls)
    return web.json_response(delivery.state())


# --- Mini Apps (sandbox/miniapp.py) ------------------------------------------------------


async def register_miniapp(request: web.Request) -> web.Response:
    """POST /sandbox/miniapp {short_name, url, title?, token?}: @BotFather's /newapp (or its
    edit): the bot's app of that short name opens that URL. ``token`` signs initData until
    the bot has called the Bot API (whose token is used from then on)."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    short_name, url = str(body["short_name"]), str(body["url"])
    if not SHORT_NAME.fullmatch(short_name):
        raise ControlError(400, "short_name must be 3-30 characters of A-Z, a-z, 0-9 and _")
    if not url.startswith(("https://", "http://")):
        raise ControlError(400, "url must be an http(s) URL")
    token = body.get("token")
    if token is not None and (not isinstance(token, str) or not token):
        raise ControlError(400, "token must be a bot token (a non-empty string)")
    app = world.register_miniapp(MiniApp(short_name, url, str(body.get("title") or ""), token))
    return web.json_response(app.as_control())


async def list_miniapps(request: web.Request) -> web.Response:
    """GET /sandbox/miniapp: the bot's apps."""
    world = request.app[WORLD_KEY]
    return web.json_response([a.as_control() for a in world.miniapps.values()])


NO_TOKEN = (
    "no bot token to sign initData with: the bot has not called the Bot API yet and the app "
    "was registered without one (POST /sandbox/miniapp {..., \"token\": ...})"
)


async def open_miniapp(request: web.Request) -> web.Response:
    """POST /sandbox/miniapp/open {user_id, link | url, chat_id?, theme?}: a user opens an app,
    from a direct link (``link``, e.g. a group's URL button, with ``chat_id`` the chat it is
    in) or from a ``web_app`` button (``url``, private chats only). Answers {url, init_data,
    app}: the URL Telegram's web view would load and the signed initData in it."""
    world = request.app[WORLD_KEY]
    body = await _body(request)
    user = _user(world, body["user_id"])
    theme = body.get("theme") or "light"
    if theme not in THEMES:
        raise ControlError(400, "theme must be light or dark")
    link, url = body.get("link"), body.get("url")
    if (link is None) == (url is None):
        raise ControlError(400, "give either link (a direct link t.me/<bot>/<app>?startapp=) "
                                "or url (a web_app button's)")
    chat = _chat(world, body["chat_id"]) if body.get("chat_id") is not None else None
    if chat is not None and chat.type == "private" and chat.id != user.id:
        raise ControlError(400, f"user {user.id} is not in the private chat {chat.id}")
    if chat is not None and chat.type != "private" and user.id not in chat.members:
        raise ControlError(400, f"user {user.id} is not in chat {chat.id}")
    if link is not None:
        direct = parse_direct_link(str(link))
        if direct.bot.lower() != BOT_USERNAME.lower():
            raise ControlError(404, f"the link is to @{direct.bot}'s app, not to this bot's "
                                    f"(@{BOT_USERNAME})")
        app = world.miniapps.get(direct.short_name)
        if app is None:
            raise ControlError(404, f"@{BOT_USERNAME} has no Mini App {direct.short_name!r} "
                                    "(register it: POST /sandbox/miniapp)")
        token = world.signing_token(app)
        if token is None:
            raise ControlError(409, NO_TOKEN)
        init_data = sign(user, token, start_param=direct.start_param, chat=chat)
        address = launch_url(app.url, init_data, theme, direct.start_param)
    else:
        if chat is not None and chat.type != "private":
            raise ControlError(400, "a web_app button is in private chats only (Telegram "
                                    "refuses one in a group: BUTTON_TYPE_INVALID)")
        url = str(url)
        if not url.startswith(("https://", "http://")):
            raise ControlError(400, "url must be an http(s) URL")
        app = next((a for a in world.miniapps.values() if url.startswith(a.url)), None)
        token = world.signing_token(app)
        if token is None:
            raise ControlError(409, NO_TOKEN)
        init_data = sign(user, token, query_id=new_query_id())
        address = launch_url(url, init_data, theme)
    return web.json_response({
        "url": address,
        "init_data": init_data,
        "theme_params": THEMES[theme],
        "app": app.as_control() if app is not None else None,
    })


async def miniapp_themes(request: web.Request) -> web.Response:
    """GET /sandbox/miniapp/themes: Telegram's default light and dark themeParams (the page's
    Mini App panel sends the other one in theme_changed when its toggle is pressed)."""
    return web.json_response(THEMES)


async def webapp_script(request: web.Request) -> web.Response:
    """GET /js/telegram-web-app.js: the sandbox's stand-in for Telegram's script."""
    text = resources.files("sandbox").joinpath("static/telegram-web-app.js").read_text("utf-8")
    return web.Response(text=text, content_type="application/javascript",
                        headers={"Cache-Control": "no-cache"})


async def overview(request: web.Request) -> web.Response:
    """GET /sandbox/state: bot, users and chats, for the page."""
    world = request.app[WORLD_KEY]
    return web.json_response(
        {
            "bot": world.sender(BOT_ID),
            "users": [u.as_control() for u in world.users.values()],
            "chats": [c.as_control() for c in world.chats.values()],
            "miniapps": [a.as_control() for a in world.miniapps.values()],
            "pending_updates": len(world.updates),
            "calls": len(world.log),
        }
    )


async def page(request: web.Request) -> web.Response:
    """GET /: the sandbox web page."""
    html = resources.files("sandbox").joinpath("page.html").read_text("utf-8")
    return web.Response(text=html, content_type="text/html")


async def _touch_state(request: web.Request, response: web.StreamResponse) -> None:
    """After any request that may change the world (Bot API calls, control POSTs and
    DELETEs), schedule a save of the state file."""
    if request.method in ("GET", "HEAD") and not request.path.startswith("/bot"):
        return
    request.app[STATE_KEY].touch()


def make_app(world: World | None = None, state: StateFile | None = None,
             delivery: Delivery | None = None) -> web.Application:
    """The aiohttp application with all routes; with `state`, changes are saved to it. The
    webhook delivery runs from the app's startup to its cleanup."""
    app = web.Application(middlewares=[control_errors], client_max_size=64 * 1024 * 1024)
    app[WORLD_KEY] = world = world or World()
    app[DELIVERY_KEY] = delivery = delivery or Delivery(world)

    async def deliver(_: web.Application) -> AsyncIterator[None]:
        await delivery.start()
        yield
        await delivery.stop()

    app.cleanup_ctx.append(deliver)
    if state is not None:
        app[STATE_KEY] = state
        app.on_response_prepare.append(_touch_state)
        delivery.on_change = state.touch  # a delivered update leaves the saved queue
    app.router.add_get("/", page)
    app.router.add_get("/js/telegram-web-app.js", webapp_script)
    app.router.add_route("*", "/bot{token}/{method}", bot_api)
    app.router.add_post("/sandbox/reset", reset)
    app.router.add_post("/sandbox/users", add_user)
    app.router.add_get("/sandbox/users", list_users)
    app.router.add_post("/sandbox/chats", add_chat)
    app.router.add_get("/sandbox/chats", list_chats)
    app.router.add_get("/sandbox/chats/{chat_id}/messages", messages)
    app.router.add_get("/sandbox/chats/{chat_id}/ephemeral", ephemeral)
    app.router.add_post("/sandbox/add_bot", add_bot)
    app.router.add_post("/sandbox/remove_bot", remove_bot)
    app.router.add_post("/sandbox/send", send)
    app.router.add_post("/sandbox/press", press)
    app.router.add_post("/sandbox/raw_updates", raw_updates)
    app.router.add_post("/sandbox/block", block)
    app.router.add_post("/sandbox/offline", offline)
    app.router.add_post("/sandbox/fail", fail)
    app.router.add_get("/sandbox/faults", faults)
    app.router.add_delete("/sandbox/faults", clear_faults)
    app.router.add_post("/sandbox/flood", flood)
    app.router.add_get("/sandbox/log", call_log)
    app.router.add_get("/sandbox/answers", answers)
    app.router.add_get("/sandbox/answers/{callback_query_id}", answer)
    app.router.add_get("/sandbox/commands", commands)
    app.router.add_get("/sandbox/updates", updates)
    app.router.add_get("/sandbox/state", overview)
    app.router.add_get("/sandbox/webhook", webhook)
    app.router.add_post("/sandbox/webhook", webhook_spread)
    app.router.add_post("/sandbox/miniapp", register_miniapp)
    app.router.add_get("/sandbox/miniapp", list_miniapps)
    app.router.add_post("/sandbox/miniapp/open", open_miniapp)
    app.router.add_get("/sandbox/miniapp/themes", miniapp_themes)
    return app


@dataclass
class SandboxHandle:
    """A running sandbox: its base URL (no trailing slash), its world, and stop()."""

    url: str
    world: World
    runner: web.AppRunner
    state: StateFile | None = None

    @property
    def delivery(self) -> Delivery:
        """The webhook delivery (its ``spread`` may be set directly)."""
        return self.runner.app[DELIVERY_KEY]

    @property
    def bot_api_url(self) -> str:
        """What to give python-telegram-bot as base_url (it appends token/method)."""
        return f"{self.url}/bot"

    async def save(self) -> None:
        """Write the state file now (nothing without one)."""
        if self.state is not None:
            await self.state.flush()

    async def stop(self) -> None:
        """Close the server and every open request, then save the state file."""
        for query in self.world.callbacks.values():
            query.answered.set()
        if self.world.poller is not None and not self.world.poller.done():
            self.world.poller.set_result(None)
        self.world.changed.set()
        await self.runner.cleanup()
        await self.save()


async def start_sandbox(
    host: str = "127.0.0.1", port: int = 8081, state_path: Path | None = None, *,
    webhook_spread: Sequence[str] = (),
) -> SandboxHandle:
    """Start the sandbox in the running event loop; port 0 picks a free port.

    With `state_path` the world is loaded from that file if it exists and saved to it
    after changes (at most once a second) and at stop(); without, it lives in memory only.
    With `webhook_spread`, while a webhook is set each update goes to one of these URLs
    chosen at random (sandbox/webhook.py).
    """
    world = World()
    state = None
    if state_path is not None:
        state = StateFile(world, Path(state_path))
        state.load()
    delivery = Delivery(world, spread=webhook_spread)
    runner = web.AppRunner(make_app(world, state, delivery), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1]
    url = f"http://{host}:{bound}"
    log.info("sandbox listening on %s", url)
    return SandboxHandle(url=url, world=world, runner=runner, state=state)

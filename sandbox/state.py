"""The sandbox world: users, chats, messages, the update queue, faults and the call log.

Everything lives in memory in one `World`; the HTTP layer (server.py) and
the Bot API methods (botapi.py) only read and change it. All access happens
on the one event loop, so no locks are needed, only events to wake waiters.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from sandbox.formatting import auto_entities

BOT_ID = 100000
BOT_USERNAME = "banco_bot"
BOT_FIRST_NAME = "Banco"
INVALID_TOKENS = frozenset({"bad", "invalid"})

# Update types a bot gets when allowed_updates is empty or never set.
DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


def now() -> int:
    """Unix time in seconds, as Telegram dates are."""
    return int(time.time())


def bot_user() -> dict[str, Any]:
    """The bot as a Telegram User (the shape getMe returns)."""
    return {
        "id": BOT_ID,
        "is_bot": True,
        "first_name": BOT_FIRST_NAME,
        "username": BOT_USERNAME,
        "can_join_groups": True,
        "can_read_all_group_messages": False,
        "supports_inline_queries": False,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


@dataclass
class User:
    """A person in the sandbox; `started` = pressed /start in private, `blocked` the bot."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    started: bool = False
    blocked: bool = False
    last_name: str | None = None
    # offline: ephemeral messages sent to him are not delivered (Telegram does not promise them)
    offline: bool = False

    def as_telegram(self) -> dict[str, Any]:
        """The Telegram User object."""
        out: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            out["last_name"] = self.last_name
        if self.username:
            out["username"] = self.username
        if self.language_code:
            out["language_code"] = self.language_code
        return out

    def as_control(self) -> dict[str, Any]:
        """The control API shape (Telegram fields plus sandbox flags)."""
        return {
            **self.as_telegram(),
            "started": self.started,
            "blocked": self.blocked,
            "offline": self.offline,
        }


@dataclass
class Chat:
    """A private chat (id == user id) or a group; `bot_status` is the bot's membership."""

    id: int
    type: str
    title: str | None = None
    members: list[int] = field(default_factory=list)
    admins: list[int] = field(default_factory=list)
    bot_status: str = "left"
    user: User | None = None  # the other side of a private chat

    def as_telegram(self) -> dict[str, Any]:
        """The Telegram Chat object."""
        if self.type == "private" and self.user is not None:
            out: dict[str, Any] = {
                "id": self.id,
                "type": "private",
                "first_name": self.user.first_name,
            }
            if self.user.username:
                out["username"] = self.user.username
            return out
        return {"id": self.id, "type": self.type, "title": self.title or str(self.id)}

    def as_control(self) -> dict[str, Any]:
        """The control API shape."""
        return {
            **self.as_telegram(),
            "members": list(self.members),
            "admins": list(self.admins),
            "bot_status": self.bot_status,
        }


@dataclass
class Message:
    """One message in a chat, with its edit history."""

    chat_id: int
    message_id: int
    from_id: int
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # new_chat_members, reply_to...
    edits: list[dict[str, Any]] = field(default_factory=list)
    edit_date: int | None = None
    deleted: bool = False
    pinned: bool = False
    # an ephemeral message (Bot API 10.2): shown to its receiver only, message_id 0; kept in
    # World.ephemeral, never in the chat's history nor in a snapshot
    receiver_id: int | None = None
    ephemeral_message_id: int = 0
    after_id: int = 0  # the chat's newest message id when it was sent (its place in a view)
    delivered: bool = True  # False: its receiver was offline, he never sees it

    @property
    def from_bot(self) -> bool:
        """Whether the bot sent it."""
        return self.from_id == BOT_ID

    def as_control(self) -> dict[str, Any]:
        """The control API shape of GET /sandbox/chats/{id}/messages."""
        out = {
            "message_id": self.message_id,
            "from_id": self.from_id,
            "from_bot": self.from_bot,
            "text": self.text,
            "entities": copy.deepcopy(self.entities),
            "reply_markup": copy.deepcopy(self.reply_markup),
            "date": self.date,
            "edits": copy.deepcopy(self.edits),
            "deleted": self.deleted,
            "pinned": self.pinned,
        }
        if self.receiver_id is not None:
            out.update(
                ephemeral=True,
                ephemeral_message_id=self.ephemeral_message_id,
                receiver_id=self.receiver_id,
                delivered=self.delivered,
            )
        replied = self.extra.get("reply_to_message")
        if replied is not None:
            out["reply_to_message_id"] = replied["message_id"]
            if replied.get("ephemeral_message_id"):
                out["reply_to_ephemeral_message_id"] = replied["ephemeral_message_id"]
        if "new_chat_members" in self.extra:
            out["new_chat_members"] = [m["id"] for m in self.extra["new_chat_members"]]
        return out


@dataclass
class MiniApp:
    """One Mini App made with @BotFather's /newapp (sandbox/miniapp.py): its short name, URL,
    title, and optionally the bot token given with it (used to sign initData while the bot
    has not called the Bot API yet)."""

    short_name: str
    url: str
    title: str = ""
    token: str | None = None

    def as_control(self) -> dict[str, Any]:
        """The control API shape (the token is only said to be there)."""
        return {
            "short_name": self.short_name,
            "url": self.url,
            "title": self.title or self.short_name,
            "link": f"https://t.me/{BOT_USERNAME}/{self.short_name}",
            "has_token": self.token is not None,
        }


@dataclass
class Fault:
    """An injected failure for the next `count` calls of `method` (or "*")."""

    method: str
    count: int
    error_code: int | None = None
    description: str | None = None
    retry_after: int | None = None
    chat_id: int | str | None = None
    delay: float = 0.0
    # the call takes effect first and only then is answered late and/or with the error, as
    # when Telegram posts a message but the answer times out or comes back as a 5xx
    after: bool = False
    # only calls whose text holds this (one particular message, e.g. a settlement)
    text: str | None = None

    def matches(self, method: str, params: dict[str, Any]) -> bool:
        """Whether this fault applies to a call."""
        if self.count <= 0:
            return False
        if self.method not in ("*", method) and self.method.lower() != method.lower():
            return False
        if self.text is not None and self.text not in str(params.get("text") or ""):
            return False
        return self.chat_id is None or str(params.get("chat_id")) == str(self.chat_id)

    def as_control(self) -> dict[str, Any]:
        """The control API shape."""
        return {
            "method": self.method,
            "count": self.count,
            "error_code": self.error_code,
            "description": self.description,
            "retry_after": self.retry_after,
            "chat_id": self.chat_id,
            "delay": self.delay,
            "after": self.after,
            "text": self.text,
        }


@dataclass
class CallbackQuery:
    """A button press and, once the bot answers, its answer."""

    id: str
    chat_id: int
    message_id: int
    user_id: int
    data: str
    forged: bool
    date: float
    ephemeral_message_id: int = 0  # a press on an ephemeral message (message_id is then 0)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    answer: dict[str, Any] | None = None
    # answerCallbackQuery calls for this query, the refused second ones included
    answer_calls: int = 0

    def as_control(self) -> dict[str, Any]:
        """The control API shape of one callback answer."""
        answer = self.answer or {}
        return {
            "callback_query_id": self.id,
            "chat_id": self.chat_id,
            "message_id": self.message_id,
            "user_id": self.user_id,
            "data": self.data,
            "forged": self.forged,
            "answered": self.answer is not None,
            "answer_calls": self.answer_calls,
            **({"ephemeral_message_id": self.ephemeral_message_id}
               if self.ephemeral_message_id else {}),
            "text": answer.get("text"),
            "show_alert": bool(answer.get("show_alert", False)),
            "url": answer.get("url"),
        }


class Counter:
    """Hands out 1, 2, 3...; unlike itertools.count its next value can be read and set,
    so ids keep increasing across a save and a reload."""

    def __init__(self, start: int = 1) -> None:
        self.next = start

    def __iter__(self) -> Counter:
        return self

    def __next__(self) -> int:
        value = self.next
        self.next += 1
        return value


# The version of World.snapshot()'s shape; restore() refuses others.
SNAPSHOT_VERSION = 1


def _plain(obj: Any, skip: str) -> dict[str, Any]:
    """A dataclass's fields as a dict (copied), leaving out one that is not data."""
    return {f.name: copy.deepcopy(getattr(obj, f.name)) for f in fields(obj) if f.name != skip}


def _int_or_zero(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class World:
    """All sandbox state. `reset()` returns it to empty."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()  # wakes long-polling getUpdates
        self.outbound = asyncio.Event()  # wakes the webhook delivery (sandbox/webhook.py)
        # The bot's own setup, which reset() keeps (as it keeps the bot's name): its Mini
        # Apps by short name (BotFather's /newapp), and the token of its latest Bot API call.
        self.miniapps: dict[str, MiniApp] = {}
        self.bot_token: str | None = None
        self.reset()

    def reset(self) -> None:
        """Forget everything but the bot's own setup: users, chats, messages, updates, log,
        faults, commands."""
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.messages: dict[int, list[Message]] = {}
        self.next_message_id: dict[int, int] = {}
        # ephemeral messages per chat and each chat's next ephemeral_message_id (not saved)
        self.ephemeral: dict[int, list[Message]] = {}
        self.next_ephemeral_id: dict[int, int] = {}
        self.updates: list[dict[str, Any]] = []
        self.update_ids = Counter()
        # updates injected verbatim (fuzzing): delivered whatever allowed_updates says
        self.raw_update_ids: set[int] = set()
        self.allowed_updates: list[str] = []
        self.callbacks: dict[str, CallbackQuery] = {}
        self.callback_ids = Counter()
        self.faults: list[Fault] = []
        self.log: list[dict[str, Any]] = []
        self.log_ids = Counter()
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.webhook: dict[str, Any] = {"url": ""}
        self.poller: asyncio.Future[None] | None = None
        # An in-process test's hook: called with each getUpdates' offset as the call arrives,
        # before anything else (the updates below it are then confirmed), e.g. to freeze
        # the bot at the moment it confirmed updates it had not yet handled.
        self.on_poll: Callable[[int | None], None] | None = None
        # Optional flood control (off by default): max messages per chat per minute.
        self.flood: dict[str, int] = {}
        self.sent_times: dict[int, list[float]] = {}
        self.wake()

    def wake(self) -> None:
        """New updates or a new webhook setting: wake the poller and the delivery."""
        self.changed.set()
        self.outbound.set()

    # --- people and chats -------------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = None,
        last_name: str | None = None,
    ) -> User:
        """Create (or update) a user and his private chat with the bot."""
        user = self.users.get(user_id)
        if user is None:
            user = User(user_id, first_name, username, language_code, last_name=last_name)
            self.users[user_id] = user
        else:
            user.first_name, user.username = first_name, username
            user.language_code, user.last_name = language_code, last_name
        self.chats[user_id] = Chat(
            id=user_id, type="private", user=user, members=[user_id], bot_status="member"
        )
        self.messages.setdefault(user_id, [])
        return user

    def add_chat(
        self,
        chat_id: int,
        title: str,
        chat_type: str,
        members: list[int],
        admins: list[int],
    ) -> Chat:
        """Create (or replace) a group; admins are members too."""
        everyone = list(dict.fromkeys([*members, *admins]))
        previous = self.chats.get(chat_id)
        chat = Chat(
            id=chat_id,
            type=chat_type,
            title=title,
            members=everyone,
            admins=list(dict.fromkeys(admins)),
            bot_status=previous.bot_status if previous else "left",
        )
        self.chats[chat_id] = chat
        self.messages.setdefault(chat_id, [])
        return chat

    # --- messages ------------------------------------------------------------

    def new_message(
        self,
        chat_id: int,
        from_id: int,
        text: str | None,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        receiver_id: int | None = None,
    ) -> Message:
        """Store a message with the chat's next message id; with ``receiver_id``, the bot's
        ephemeral message for that user instead: message_id 0, the chat's next
        ephemeral_message_id, kept apart (self.ephemeral), never delivered to him if he is
        offline."""
        message_id = self.next_message_id.get(chat_id, 1)
        message = Message(
            chat_id=chat_id,
            message_id=message_id,
            from_id=from_id,
            date=now(),
            text=text,
            entities=entities or [],
            reply_markup=reply_markup,
            extra=extra or {},
        )
        if receiver_id is None:
            self.next_message_id[chat_id] = message_id + 1
            self.messages.setdefault(chat_id, []).append(message)
            return message
        number = self.next_ephemeral_id.get(chat_id, 1)
        self.next_ephemeral_id[chat_id] = number + 1
        message.message_id, message.after_id = 0, message_id - 1
        message.receiver_id, message.ephemeral_message_id = receiver_id, number
        message.delivered = not self.users[receiver_id].offline
        self.ephemeral.setdefault(chat_id, []).append(message)
        return message

    def find_ephemeral(
        self, chat_id: int, receiver_id: int, ephemeral_message_id: int
    ) -> Message | None:
        """The bot's ephemeral message of that id for that receiver in a chat."""
        for message in self.ephemeral.get(chat_id, []):
            if (message.receiver_id, message.ephemeral_message_id) == (
                receiver_id, ephemeral_message_id
            ):
                return message
        return None

    def view(self, chat_id: int, viewer: int | None) -> list[Message]:
        """A chat as one user sees it: its messages with, in their places, the ephemeral
        ones delivered to him; without a viewer, the history everyone shares."""
        shared = self.messages.get(chat_id, [])
        mine = [
            m for m in self.ephemeral.get(chat_id, [])
            if viewer is not None and m.receiver_id == viewer and m.delivered
        ]
        if not mine:
            return list(shared)
        return sorted(
            [*shared, *mine],
            key=lambda m: (m.after_id, 1, m.ephemeral_message_id)
            if m.receiver_id is not None else (m.message_id, 0, 0),
        )

    def find_message(self, chat_id: int, message_id: int) -> Message | None:
        """A message that exists and is not deleted."""
        for message in self.messages.get(chat_id, []):
            if message.message_id == message_id and not message.deleted:
                return message
        return None

    def sender(self, user_id: int) -> dict[str, Any]:
        """The Telegram User object of a sender (the bot or a person)."""
        if user_id == BOT_ID:
            return bot_user()
        return self.users[user_id].as_telegram()

    def message_json(self, message: Message) -> dict[str, Any]:
        """The Telegram Message object."""
        out: dict[str, Any] = {
            "message_id": message.message_id,
            "from": self.sender(message.from_id),
            "chat": self.chats[message.chat_id].as_telegram(),
            "date": message.date,
        }
        if message.receiver_id is not None:
            out["receiver_user"] = self.sender(message.receiver_id)
            out["ephemeral_message_id"] = message.ephemeral_message_id
        if message.text is not None:
            out["text"] = message.text
        if message.entities:
            out["entities"] = copy.deepcopy(message.entities)
        if message.reply_markup is not None and "inline_keyboard" in message.reply_markup:
            # a Message carries only an inline keyboard: a ForceReply or reply keyboard
            # shapes the recipients' input field and is never sent back
            out["reply_markup"] = copy.deepcopy(message.reply_markup)
        if message.edit_date is not None:
            out["edit_date"] = message.edit_date
        out.update(copy.deepcopy(message.extra))
        return out

    def replied_json(self, message: Message) -> dict[str, Any]:
        """A message as the reply_to_message of another: Telegram nests no further reply."""
        out = self.message_json(message)
        out.pop("reply_to_message", None)
        return out

    # --- updates --------------------------------------------------------------

    def queue_update(self, kind: str, payload: dict[str, Any]) -> int:
        """Append an update for getUpdates and wake a waiting poller."""
        update_id = next(self.update_ids)
        self.updates.append({"update_id": update_id, kind: payload})
        self.wake()
        return update_id

    def queue_raw_update(self, payload: dict[str, Any]) -> int:
        """Append an arbitrary update body (any keys, any values) under a fresh update_id.

        A callback query in it with a string ``id`` is registered like a press, so its
        answers are recorded and counted.
        """
        update_id = next(self.update_ids)
        body = {k: v for k, v in payload.items() if k != "update_id"}
        query = body.get("callback_query")
        if isinstance(query, dict) and isinstance(query.get("id"), str):
            message = query.get("message")
            chat = message.get("chat") if isinstance(message, dict) else None
            sender = query.get("from")
            self.callbacks.setdefault(query["id"], CallbackQuery(
                id=query["id"],
                chat_id=_int_or_zero(chat.get("id") if isinstance(chat, dict) else None),
                message_id=_int_or_zero(message.get("message_id")
                                        if isinstance(message, dict) else None),
                user_id=_int_or_zero(sender.get("id") if isinstance(sender, dict) else None),
                data=str(query.get("data")),
                forged=True,
                date=time.monotonic(),
            ))
        self.updates.append({"update_id": update_id, **body})
        self.raw_update_ids.add(update_id)
        self.wake()
        return update_id

    def user_message(self, chat_id: int, user_id: int, text: str) -> tuple[Message, int]:
        """A user writes in a chat: store the message and queue its update."""
        message = self.new_message(chat_id, user_id, text, auto_entities(text))
        update_id = self.queue_update("message", self.message_json(message))
        return message, update_id

    def member_update(
        self, chat: Chat, by_user: int, old: str, new: str, kind: str = "my_chat_member"
    ) -> int:
        """Queue a my_chat_member update for the bot's own status change."""
        return self.queue_update(
            kind,
            {
                "chat": chat.as_telegram(),
                "from": self.sender(by_user),
                "date": now(),
                "old_chat_member": self.chat_member_json(old, BOT_ID),
                "new_chat_member": self.chat_member_json(new, BOT_ID),
            },
        )

    def chat_member_json(self, status: str, user_id: int) -> dict[str, Any]:
        """A ChatMember object of the given status (all required fields present)."""
        user = self.sender(user_id)
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            rights = [
                "can_manage_chat",
                "can_delete_messages",
                "can_manage_video_chats",
                "can_restrict_members",
                "can_promote_members",
                "can_change_info",
                "can_invite_users",
                "can_post_stories",
                "can_edit_stories",
                "can_delete_stories",
                "can_pin_messages",
            ]
            return {
                "status": "administrator",
                "user": user,
                "can_be_edited": False,
                "is_anonymous": False,
                **{right: True for right in rights},
            }
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        return {"status": status, "user": user}

    def member_status(self, chat: Chat, user_id: int) -> str:
        """A user's (or the bot's) status in a chat."""
        if user_id == BOT_ID:
            return chat.bot_status
        if chat.type == "private":
            return "member" if user_id == chat.id else "left"
        if chat.admins and chat.admins[0] == user_id:
            return "creator"
        if user_id in chat.admins:
            return "administrator"
        return "member" if user_id in chat.members else "left"

    def flood_wait(self, chat: Chat) -> int | None:
        """Seconds to wait if sending now would break the enabled flood limits, else None.

        Telegram allows about 20 messages a minute in a group and about one a
        second in a private chat; edits count too.
        """
        if not self.flood:
            return None
        limit = self.flood["group_per_minute" if chat.type != "private" else "private_per_minute"]
        moment = time.monotonic()
        recent = [t for t in self.sent_times.get(chat.id, []) if moment - t < 60]
        self.sent_times[chat.id] = recent
        if len(recent) >= limit:
            return max(1, int(60 - (moment - recent[0])) + 1)
        recent.append(moment)
        return None

    # --- faults and log ----------------------------------------------------------

    def take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        """The first fault matching a call, with its count decremented."""
        for fault in self.faults:
            if fault.matches(method, params):
                fault.count -= 1
                return fault
        return None

    def record(
        self, method: str, params: dict[str, Any], response: dict[str, Any]
    ) -> dict[str, Any]:
        """Append one Bot API call to the log; returns its entry."""
        entry: dict[str, Any] = {
            "seq": next(self.log_ids),
            "time": time.time(),
            "method": method,
            "params": params,
            "ok": response.get("ok", False),
        }
        if response.get("ok"):
            entry["result"] = response.get("result")
        else:
            entry["error_code"] = response.get("error_code")
            entry["description"] = response.get("description")
        self.log.append(entry)
        return entry

    # --- the bot's Mini Apps -----------------------------------------------------

    def register_miniapp(self, app: MiniApp) -> MiniApp:
        """Add an app, or replace the one of the same short name."""
        self.miniapps[app.short_name] = app
        return app

    def signing_token(self, app: MiniApp | None = None) -> str | None:
        """The token initData is signed with: the bot's, as seen in its Bot API calls; until
        there is one, the token given with the app."""
        if self.bot_token is not None:
            return self.bot_token
        return app.token if app is not None else None

    # --- saving and loading ------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """What a restart keeps, as JSON-ready data.

        Kept: users, chats, messages (with edits; ephemeral messages are not kept, as
        Telegram keeps them in no history), each chat's next message id, the updates
        the bot has not confirmed yet (Telegram keeps them for the bot too), the next
        update id, presses and their answers, the next press and log numbers, commands,
        the webhook and allowed_updates, the bot's Mini Apps. Not kept: the call log itself,
        injected faults, flood limits and their clock, the bot's waiting getUpdates, and the
        token seen in its calls (its next call tells it again).
        """
        return {
            "version": SNAPSHOT_VERSION,
            "users": [asdict(u) for u in self.users.values()],
            "chats": [_plain(c, skip="user") for c in self.chats.values()],
            "messages": [
                [chat_id, [asdict(m) for m in items]] for chat_id, items in self.messages.items()
            ],
            "next_message_id": [[chat_id, n] for chat_id, n in self.next_message_id.items()],
            "updates": copy.deepcopy(self.updates),
            "next_update_id": self.update_ids.next,
            "raw_update_ids": sorted(self.raw_update_ids),
            "allowed_updates": list(self.allowed_updates),
            "callbacks": [_plain(q, skip="answered") for q in self.callbacks.values()],
            "next_callback_id": self.callback_ids.next,
            "next_log_seq": self.log_ids.next,
            "commands": [
                {"scope": json.loads(scope), "language_code": language, "commands": items}
                for (scope, language), items in self.commands.items()
            ],
            "webhook": dict(self.webhook),
            "miniapps": [asdict(a) for a in self.miniapps.values()],
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Replace everything with a snapshot() (raises ValueError for another version)."""
        if data.get("version") != SNAPSHOT_VERSION:
            raise ValueError(f"unknown sandbox state version {data.get('version')!r}")
        self.reset()
        for raw in data["users"]:
            user = User(**raw)
            self.users[user.id] = user
        for raw in data["chats"]:
            chat = Chat(**raw)
            if chat.type == "private":
                chat.user = self.users.get(chat.id)
            self.chats[chat.id] = chat
        for chat_id, items in data["messages"]:
            self.messages[int(chat_id)] = [Message(**m) for m in items]
        self.next_message_id = {int(k): int(v) for k, v in data["next_message_id"]}
        self.updates = list(data["updates"])
        self.update_ids = Counter(int(data["next_update_id"]))
        self.raw_update_ids = {int(x) for x in data["raw_update_ids"]}
        self.allowed_updates = list(data["allowed_updates"])
        for raw in data["callbacks"]:
            query = CallbackQuery(**raw)
            if query.answer is not None:
                query.answered.set()
            self.callbacks[query.id] = query
        self.callback_ids = Counter(int(data["next_callback_id"]))
        self.log_ids = Counter(int(data["next_log_seq"]))
        self.commands = {
            (json.dumps(c["scope"], sort_keys=True), c["language_code"]): c["commands"]
            for c in data["commands"]
        }
        self.webhook = dict(data["webhook"])
        # (a file saved before Mini Apps existed has none)
        self.miniapps = {a.short_name: a for a in (MiniApp(**raw)
                                                   for raw in data.get("miniapps", []))}

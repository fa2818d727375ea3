"""Who opened the page, and what he may see: ``initData`` checked, the table its link
names, his seat or his membership of the group.

``initData`` is trusted only after its HMAC check with the bot's token, over the raw string
exactly as the page received it (:func:`init_data_py.validate_by_hash`: strict parsing, a
repeated key refused, constant-time comparison, ``auth_date`` no older than
``WEBAPP_MAX_AGE`` and no more than a minute ahead). Identity is the validated ``user``
alone; the table is the one the link names (``start_param``, or the page's ``table`` when
opened from a private chat's ``web_app`` button), and either only says which link was
opened: a seated player sees his seat's view, a member of the group the public view, anyone
else nothing. ``initData`` is never logged.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum

import init_data_py
from init_data_py import errors

MEMBER_FRESH = 300.0
"""How long a member's answer from getChatMember is taken as true (seconds)."""

MEMBERS = ("creator", "administrator", "member")

AHEAD = 60.0
"""How far in the future an ``auth_date`` may be (seconds): a clock's drift, no more. A
date further ahead would keep signed data fresh past ``WEBAPP_MAX_AGE``."""


class Why(StrEnum):
    """Why a page is refused (the ``code`` of its error frame)."""

    AUTH = "auth"
    NOT_MEMBER = "not_member"
    NO_TABLE = "no_table"


class Refusal(Exception):
    """The page may not see the table; ``why`` says why."""

    def __init__(self, why: Why) -> None:
        super().__init__(why.value)
        self.why = why


@dataclass(frozen=True)
class Opener:
    """The validated user who opened the page, and the link he opened."""

    user_id: int
    name: str
    language: str | None
    start_param: str | None


def opener(init_data: str, bot_token: str, max_age: float) -> Opener:
    """The user of a raw ``initData``; :class:`Refusal` (``auth``) for anything Telegram did
    not sign for this bot within ``max_age`` seconds (and no more than :data:`AHEAD` in the
    future), or without a user."""
    try:
        data = init_data_py.validate_by_hash(init_data, bot_token, expires_in=max_age)
    except (errors.InitDataPyError, ValueError) as exc:
        raise Refusal(Why.AUTH) from exc
    if data.auth_date > time.time() + AHEAD:
        raise Refusal(Why.AUTH)
    user = data.user
    if user is None or not user.id:
        raise Refusal(Why.AUTH)
    name = " ".join(p for p in (user.first_name, user.last_name) if p) or str(user.id)
    return Opener(user.id, name, user.language_code, data.start_param)


def claimed_language(init_data: str) -> str | None:
    """The language an unvalidated ``initData`` claims, for wording its refusal only."""
    try:
        user = init_data_py.parse(init_data).user
    except errors.InitDataPyError:
        return None
    return user.language_code if user is not None else None


Status = Callable[[int, int], Awaitable[tuple[str, bool]]]
"""getChatMember: a user's status in a chat and, when restricted, whether he is a member."""


class Members:
    """Whether a user is a member of a group, asked of Telegram and kept a few minutes."""

    def __init__(self, status: Status, now: Callable[[], float] = time.monotonic,
                 fresh: float = MEMBER_FRESH) -> None:
        self.status = status
        self.now = now
        self.fresh = fresh
        self.known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def member(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` belongs to the group ``chat_id`` (False when Telegram says
        no, or cannot say)."""
        key = (chat_id, user_id)
        known = self.known.get(key)
        if known is not None and known[1] > self.now():
            return known[0]
        try:
            status, is_member = await self.status(chat_id, user_id)
        except Exception:
            return False
        answer = status in MEMBERS or (status == "restricted" and is_member)
        if len(self.known) > 10_000:
            self.known.clear()
        self.known[key] = (answer, self.now() + self.fresh)
        return answer

"""What an outbox item carries, by kind: one model each, and the drafts made of them.

Storage keeps an item's payload as JSON it does not read (:class:`storage.base.OutboxDraft`);
here it gets its type. A draft is written from its kind's model (:meth:`Payload.draft`), and
an item read back is parsed once, by its kind, into that model (:func:`read`): the courier
reads typed fields, never a string key. The JSON is the one the rows in the database already
hold (:meth:`Payload.draft` writes only the fields a constructor sets), so a row written
before these models parses into its model as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.outbox.kinds import CLOSE, DM, DM_EDIT, EPHEMERAL, GROUP, SETTLE, TABLE
from bot.view import render
from bot.view.codec import ActionButton, encode
from bot.view.keyboards import Keyboard
from bot.view.screens import Prompt, markup_json
from storage.base import OutboxDraft, OutboxItem

Markup = dict[str, Any]
"""A keyboard as the Bot API's ``reply_markup`` JSON (:func:`bot.view.screens.markup_json`)."""


class BadPayload(ValueError):
    """An outbox item whose payload is not its kind's (of a kind this bot no longer has, a
    field missing or of another type). Its text names the kind and the faulty fields, never
    their values: a DM's payload holds a player's hidden cards."""


class Payload(BaseModel):
    """What an item of one outbox kind carries. Fields a row lacks take their defaults (an
    item drafted before the field existed); keys it has beyond them are left unread."""

    model_config = ConfigDict(frozen=True, strict=True)
    kind: ClassVar[str]

    def draft(self, target: int) -> OutboxDraft:
        """The outbox draft sending this to chat ``target``: only the fields set, as the
        rows of the database hold them."""
        return OutboxDraft(kind=self.kind, target=target,
                           payload=self.model_dump(mode="json", exclude_unset=True))

    @classmethod
    def of(cls, item: OutboxDraft | OutboxItem) -> Self:
        """``item``'s payload, which must be of this kind (else :class:`BadPayload`)."""
        if item.kind != cls.kind:
            raise BadPayload(f"an outbox item of kind {item.kind!r}, not {cls.kind!r}")
        try:
            return cls.model_validate(item.payload)
        except ValidationError as exc:
            faults = ", ".join(f"{'.'.join(map(str, e['loc'])) or '(payload)'}: {e['type']}"
                               for e in exc.errors())
            raise BadPayload(f"an outbox item of kind {cls.kind!r}: {faults}") from None


class GroupPost(Payload):
    """A new group message (:data:`bot.outbox.kinds.GROUP`)."""

    kind: ClassVar[str] = GROUP
    text: str
    markup: Markup | None = None


class DirectMessage(Payload):
    """A direct message to a player (:data:`bot.outbox.kinds.DM`); with ``turn``, his turn
    prompt, whose delivery starts his clock."""

    kind: ClassVar[str] = DM
    text: str
    markup: Markup | None = None
    turn: int | None = None
    """The decision it prompts (the table's version where none is numbered)."""
    version: int | None = None
    """The table's version it was drawn at (:attr:`bot.outbox.kinds.SeenPrompt.version`)."""
    digest: str = ""
    """What it shows (:attr:`bot.view.screens.Prompt.digest`)."""


class PromptEdit(Payload):
    """A player's delivered turn prompt, edited (:data:`bot.outbox.kinds.DM_EDIT`)."""

    kind: ClassVar[str] = DM_EDIT
    message_id: int
    text: str
    markup: Markup | None = None
    digest: str = ""
    """What it shows now (:attr:`bot.view.screens.Prompt.digest`)."""


class EphemeralChange(Payload):
    """A private view shown in the group to one player, edited or deleted
    (:data:`bot.outbox.kinds.EPHEMERAL`)."""

    kind: ClassVar[str] = EPHEMERAL
    receiver: int
    message_id: int
    """Its ephemeral message id."""
    text: str = ""
    markup: Markup | None = None
    delete: bool = False


class CoupResult(Payload):
    """A coup's result, into which the live table message is edited
    (:data:`bot.outbox.kinds.SETTLE`)."""

    kind: ClassVar[str] = SETTLE
    text: str


class Closing(Payload):
    """A closed table's closing text (:data:`bot.outbox.kinds.CLOSE`), with the keyboard by
    which a post whose answer was lost is found (None in an item drafted before it had one)."""

    kind: ClassVar[str] = CLOSE
    text: str
    markup: Markup | None = None


class TablePost(Payload):
    """The table message posted anew (:data:`bot.outbox.kinds.TABLE`), drawn when sent."""

    kind: ClassVar[str] = TABLE
    asked: bool = False
    """A player asked for it (/table): posted even where the live message shows the table."""


PRIVATE = (DirectMessage, PromptEdit)
"""What goes to private chats: its own way, outside the group's budget."""
MODELS: dict[str, type[Payload]] = {m.kind: m for m in (
    GroupPost, DirectMessage, PromptEdit, EphemeralChange, CoupResult, Closing, TablePost)}


def read(item: OutboxItem | OutboxDraft) -> Payload:
    """``item``'s payload parsed by its kind into that kind's model; :class:`BadPayload` for
    a kind without one or a payload that is not its kind's."""
    model = MODELS.get(item.kind)
    if model is None:
        raise BadPayload(f"an outbox item of unknown kind {item.kind!r}")
    return model.of(item)


def group_message(chat_id: int, text: str, markup: Keyboard | None = None) -> OutboxDraft:
    """A new group message for the outbox."""
    return GroupPost(text=render.clip(text), markup=markup_json(markup)).draft(chat_id)


def dm_message(user_id: int, text: str, markup: Keyboard | None = None) -> OutboxDraft:
    """A direct message for the outbox."""
    return DirectMessage(text=render.clip(text), markup=markup_json(markup)).draft(user_id)


def turn_prompt(player: int, turn: int, version: int, shown: Prompt) -> OutboxDraft:
    """A player's turn prompt ``shown`` for his decision ``turn``, drawn at the table's
    ``version``."""
    return DirectMessage(turn=turn, version=version, digest=shown.digest, text=shown.text,
                         markup=markup_json(shown.markup)).draft(player)


def prompt_edit(player: int, message_id: int, turn: Prompt) -> OutboxDraft:
    """Edit a player's delivered turn prompt into ``turn`` (its digest goes with it)."""
    return PromptEdit(message_id=message_id, text=turn.text, markup=markup_json(turn.markup),
                      digest=turn.digest).draft(player)


def ephemeral_edit(chat_id: int, player: int, message_id: int, shown: Prompt
                   ) -> OutboxDraft:
    """Edit the private view shown to ``player`` alone in the group (its ephemeral message
    ``message_id``) into ``shown``."""
    return EphemeralChange(receiver=player, message_id=message_id,
                           text=render.clip(shown.text),
                           markup=markup_json(shown.markup)).draft(chat_id)


def ephemeral_delete(chat_id: int, player: int, message_id: int) -> OutboxDraft:
    """Delete the private view shown to ``player`` alone in the group (one that another
    view of the same decision replaced)."""
    return EphemeralChange(receiver=player, message_id=message_id, delete=True).draft(chat_id)


def settlement(chat_id: int, text: str) -> OutboxDraft:
    """A coup's result for the outbox: the live table message becomes it."""
    return CoupResult(text=render.clip(text)).draft(chat_id)


def closing(chat_id: int, text: str, coup: int, version: int) -> OutboxDraft:
    """A closed table's closing text for the outbox: a new message at the bottom of the chat
    (whoever closed the table looks there), and the table message retires. It is posted
    with a keyboard of its own (the closed table's ``coup`` and ``version`` on a button a
    press of which finds no table): the courier tells by it the post an attempt whose
    answer was lost made, and takes the keyboard away once the post is known
    (:meth:`bot.outbox.table_message.TableMessage.close`)."""
    tag = encode(ActionButton(chat_id, coup, version, "closed"))
    return Closing(text=render.clip(text), markup={
        "inline_keyboard": [[{"text": "🔒", "callback_data": tag}]]}).draft(chat_id)


def table_post(chat_id: int, asked: bool = False) -> OutboxDraft:
    """Post the table message anew (at the bottom of the chat). ``asked``: a player asked for
    it (/table), so it is posted even where the live message already shows the table."""
    return (TablePost(asked=True) if asked else TablePost()).draft(chat_id)

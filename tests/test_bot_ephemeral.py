"""Messages one member of a group sees (Bot API 10.2), as the bot checks Telegram's answers:
a Bot API server that does not know ``receiver_user_id`` posts the message for everyone, so
the first message a process sends is a probe holding nothing private, and a message seen by
the whole group is deleted at once and ends their use."""

from __future__ import annotations

from typing import Any

from bot.gateway.ephemeral import Ephemeral
from bot.view.render import Button, Keyboard

CHAT, FAY = -77, 7
SECRET = "Your cards: <b>A♠ K♥</b>"
KEYBOARD = Keyboard.of([[Button("Stand", "a|-77|1|5|stand|")]])


class Server:
    """Telegram's answers to the raw calls: ``ephemeral`` as 10.2 does, or not (an older
    server that ignores ``receiver_user_id`` and posts for everyone)."""

    def __init__(self, ephemeral: bool) -> None:
        self.ephemeral = ephemeral
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.number = 0

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any]) -> Any:
        self.calls.append((method, api_kwargs))
        if method != "sendMessage":
            return True
        self.number += 1
        if not self.ephemeral:
            return {"message_id": 40 + self.number, "chat": {"id": CHAT, "type": "supergroup"},
                    "text": api_kwargs["text"]}
        return {"message_id": 0, "ephemeral_message_id": self.number,
                "receiver_user": {"id": api_kwargs["receiver_user_id"], "first_name": "Fay"},
                "chat": {"id": CHAT, "type": "supergroup"}, "text": api_kwargs["text"]}


async def test_the_first_view_is_a_probe_then_the_view_and_then_views_go_at_once() -> None:
    server = Server(ephemeral=True)
    eph = Ephemeral(server)  # type: ignore[arg-type]
    assert await eph.send(CHAT, FAY, "en", SECRET, KEYBOARD, "q1") == 1
    assert [(m, k.get("text")) for m, k in server.calls] == [
        ("sendMessage", "🂠 Only you see this message."),
        ("editEphemeralMessageText", SECRET)]
    assert server.calls[0][1]["receiver_user_id"] == FAY
    assert server.calls[0][1]["callback_query_id"] == "q1"
    assert server.calls[1][1]["reply_markup"] == KEYBOARD.as_json()
    assert await eph.send(CHAT, FAY, "en", SECRET, KEYBOARD, "q2") == 2
    assert [(m, k.get("text")) for m, k in server.calls[2:]] == [("sendMessage", SECRET)]


async def test_a_server_that_posts_for_everyone_never_gets_a_card_and_ends_the_views() -> None:
    server = Server(ephemeral=False)
    eph = Ephemeral(server)  # type: ignore[arg-type]
    assert await eph.send(CHAT, FAY, "ru", SECRET, KEYBOARD, "q1") is None
    # the probe went public: it holds nothing private, and it is deleted at once
    assert server.calls == [
        ("sendMessage", {"chat_id": CHAT, "receiver_user_id": FAY, "callback_query_id": "q1",
                         "text": "🂠 Это сообщение видите только вы.", "parse_mode": "HTML"}),
        ("deleteMessage", {"chat_id": CHAT, "message_id": 41})]
    assert not eph.enabled
    assert await eph.send(CHAT, FAY, "en", SECRET, KEYBOARD, "q2") is None
    assert len(server.calls) == 2  # nothing more is sent: the pop-up and the DM remain

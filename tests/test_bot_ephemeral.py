"""Messages one member of a group sees (Bot API 10.2), as the bot checks Telegram's answers:
a Bot API server that does not know ``receiver_user_id`` posts the message for everyone, so
the first message a process sends is a probe holding nothing private, and a message seen by
the whole group is deleted at once and ends their use."""

from __future__ import annotations

from typing import Any

from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    NAMES,
    PREFERRED,
    Host,
    RecordingBot,
    make_host,
    press,
    seat_three,
    worded,
)
from test_bot_tables import CHAT as TABLE_CHAT

from bot.gateway.ephemeral import Ephemeral
from bot.view.codec import ActionButton, decode
from bot.view.render import Button, Keyboard
from games.cards import pretty_all

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


async def test_a_view_in_the_group_carries_no_web_app_button() -> None:
    """Telegram refuses a ``web_app`` button in any group message (BUTTON_TYPE_INVALID): a
    private keyboard with the app's button under it (a selection of cards) goes to his view
    in the group without that button, sent or edited; its other rows stay as they were."""
    server = Server(ephemeral=True)
    eph = Ephemeral(server)  # type: ignore[arg-type]
    app = KEYBOARD.with_row([Button("🃏 Open table", web_app="https://app.example/?table=x")])
    assert await eph.send(CHAT, FAY, "en", SECRET, app, "q1") == 1
    assert await eph.send(CHAT, FAY, "en", SECRET, app, "q2") == 2
    assert await eph.edit(CHAT, FAY, 2, None, app)
    assert await eph.edit(CHAT, FAY, 2, SECRET, app)
    markups = [k["reply_markup"] for _, k in server.calls if k.get("reply_markup")]
    assert markups == [KEYBOARD.as_json()] * 4


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


async def awaited_privately(host: Host, bot: RecordingBot) -> int:
    """Twenty-one played by the default policy until a player is to buy or stand (a decision
    that is his alone): him."""
    await seat_three(host, bot)
    for _ in range(40):
        table = await host.tables.load(TABLE_CHAT)
        awaited = table.engine.awaiting(table.state)
        if awaited and table.sight.private:
            return awaited[0]
        await press(host, bot, awaited[0] if awaited else ANN, PREFERRED)
    raise AssertionError("nobody was asked to buy or stand")


async def shown_to(host: Host, player: int) -> tuple[str, Keyboard | None]:
    """*My cards* pressed by ``player``: his view, as the gateway sends it (id 5)."""
    sent: list[tuple[str, Keyboard | None]] = []

    async def send(lang: str, text: str, keyboard: Keyboard | None) -> int:
        assert lang == "en"
        sent.append((text, keyboard))
        return 5

    assert await host.presses.show_private(TABLE_CHAT, player, send)
    [view] = sent
    return view


def his_lines(table: Any, player: int) -> str:
    view = table.sight.view(player)
    return (f"<b>Twenty-one · coup #{view.coup}</b>\n"
            f"Your cards: <b>{pretty_all(list(view.my_cards))}</b>\n"
            f"Your total: {view.my_facts['total'].n}")


async def test_his_view_holds_his_decision_and_loses_it_once_he_stands(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    player = await awaited_privately(host, bot)
    table = await host.tables.load(TABLE_CHAT)
    text, keyboard = await shown_to(host, player)
    assert text == his_lines(table, player) + "\nYour move at the table — choose here:"
    assert keyboard is not None
    kinds = [b.kind for b in (decode(k.callback_data) for row in keyboard.inline_keyboard
                              for k in row) if isinstance(b, ActionButton)]
    assert kinds[-2:] == ["stand", "leave"] and set(kinds[:-2]) <= {"buy"}
    kept = (await host.tables.load(TABLE_CHAT)).meta.ephemerals[player]
    assert (kept.message_id, kept.decision) == (5, table.meta.decision)
    # he stands from it (his own keyboard, pressed where he alone sees it)
    stand = next(b for row in keyboard.inline_keyboard for k in row
                 if isinstance(b := decode(k.callback_data), ActionButton) and b.kind == "stand")
    outcome = await host.presses.press(TABLE_CHAT, player, NAMES[player], stand, True,
                                       here=True)
    assert worded(outcome).text.startswith("Stand")
    await host.idle()
    assert bot.ephemeral == [("editEphemeralMessageText", {
        "chat_id": TABLE_CHAT, "receiver_user_id": player, "ephemeral_message_id": 5,
        "text": his_lines(table, player) + f"\n✅ {NAMES[player]} stands",
        "parse_mode": "HTML"})]
    assert (await host.tables.load(TABLE_CHAT)).meta.ephemerals == {}


async def test_closing_the_table_disarms_his_view(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    player = await awaited_privately(host, bot)
    table = await host.tables.load(TABLE_CHAT)
    await shown_to(host, player)
    assert await host.lifecycle.close_table(TABLE_CHAT) is None
    await host.idle()
    assert [(m, k["ephemeral_message_id"], k["text"]) for m, k in bot.ephemeral] == [
        ("editEphemeralMessageText", 5, his_lines(table, player) + "\n🚪 The table is closed.")]

"""Messages one member of a group sees (Bot API 10.2), as the bot checks Telegram's answers:
a Bot API server that does not know ``receiver_user_id`` posts the message for everyone, so
the first message a process sends is a probe holding nothing private, and a message seen by
the whole group is deleted at once and ends their use."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from test_bot_prompts import seeded_three
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CID,
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
from bot.view.keyboards import Button, Keyboard
from games import cards
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
    """His own lines at the foot of his view: his cards and his total."""
    view = table.sight.view(player)
    return (f"Your cards: <b>{pretty_all(list(view.my_cards))}</b>\n"
            f"Your total: {view.my_facts['total'].n}")


def table_head(table: Any) -> str:
    """The first line of the table as the group's message shows it: the bank too."""
    view = table.sight.view()
    return f"<b>Twenty-one · coup #{view.coup}</b> · <i>drawing</i> · bank {view.bank}\n"


async def test_his_view_holds_his_decision_and_loses_it_once_he_stands(
        make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    player = await awaited_privately(host, bot)
    table = await host.tables.load(TABLE_CHAT)
    text, keyboard = await shown_to(host, player)
    assert text.startswith(table_head(table))
    assert f"\n⏳ {NAMES[player]} · deciding privately · <tg-time unix=" in text
    assert text.endswith(
        "\n" + his_lines(table, player) + "\nYour move at the table — choose here:")
    assert keyboard is not None
    kinds = [b.kind for b in (decode(k.callback_data) for row in keyboard.inline_keyboard
                              for k in row) if isinstance(b, ActionButton)]
    assert kinds[-2:] == ["stand", "leave"] and set(kinds[:-2]) <= {"buy"}
    kept = (await host.tables.load(TABLE_CHAT)).meta.ephemerals[player]
    assert (kept.message_id, kept.decision) == (5, table.meta.decision)
    # where his turn shows is recorded with the table: his view too
    facts = await host.storage.presence(chat_id=TABLE_CHAT, decision=table.meta.decision)
    assert [(f.player, f.channel) for f in facts if f.channel == "view"] == [(player, "view")]
    # he stands from it (his own keyboard, pressed where he alone sees it)
    stand = next(b for row in keyboard.inline_keyboard for k in row
                 if isinstance(b := decode(k.callback_data), ActionButton) and b.kind == "stand")
    outcome = await host.presses.press(TABLE_CHAT, player, NAMES[player], stand, True,
                                       here=True)
    assert worded(outcome).text.startswith("Stand")
    await host.idle()
    # the table as it was when he stood (no clock: his decision is gone), and what he did
    [(method, edit)] = bot.ephemeral
    assert method == "editEphemeralMessageText" and "reply_markup" not in edit
    assert {k: edit[k] for k in ("chat_id", "receiver_user_id", "ephemeral_message_id")} == {
        "chat_id": TABLE_CHAT, "receiver_user_id": player, "ephemeral_message_id": 5}
    assert edit["text"].startswith(table_head(table))
    assert f"\n⏳ {NAMES[player]} · deciding privately\n" in edit["text"]
    assert edit["text"].endswith(
        "\n" + his_lines(table, player) + f"\n✅ {NAMES[player]} stands")
    assert (await host.tables.load(TABLE_CHAT)).meta.ephemerals == {}


async def test_closing_the_table_disarms_his_view(make_host: Any) -> None:  # noqa: F811
    bot = RecordingBot()
    host = await make_host(bot)
    player = await awaited_privately(host, bot)
    table = await host.tables.load(TABLE_CHAT)
    await shown_to(host, player)
    assert await host.lifecycle.close_table(TABLE_CHAT) is None
    await host.idle()
    [(method, edit)] = bot.ephemeral
    assert (method, edit["ephemeral_message_id"]) == ("editEphemeralMessageText", 5)
    assert edit["text"].startswith(table_head(table))
    assert edit["text"].endswith("\n" + his_lines(table, player) + "\n🚪 The table is closed.")


GAMES = ["chemin_de_fer", "baccarat", "banchok", "twenty_one", "draw_poker", "stud_poker"]
CLOCK = re.compile(r'<tg-time unix="(\d+)" format="r">(\d+) s</tg-time>')


def clocked(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with its time left drawn as ⏱, and each time left it drew (its end, its
    seconds): two drawings of one moment a moment apart differ there alone."""
    return CLOCK.sub("⏱", text), [(int(u), int(n)) for u, n in CLOCK.findall(text)]


def labels(markup: Any) -> list[list[tuple[str, str | None]]]:
    """A keyboard's buttons as the player reads and presses them."""
    return [[(b.text, b.callback_data) for b in row] for row in markup.inline_keyboard]


async def at_a_decision(make_host: Any, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                        game: str) -> tuple[Host, RecordingBot, int]:
    """A seeded table of ``game`` (Ann, Bob and Cid seated, each with his private chat)
    played until a player holding hidden cards decides at a table with a bank or a pot
    (in poker: with a bet to call): the host, its Telegram and him."""
    seeded = random.Random(f"ephemeral {game}")
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(TABLE_CHAT, game, ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        await press(host, bot, player, ["join"])
    for _ in range(80):
        table = await host.tables.load(TABLE_CHAT)
        awaited = table.engine.awaiting(table.state)
        if awaited:
            view = table.sight.view(awaited[0])
            kinds = {s.kind for s in table.sight.legal(awaited[0])}
            if view.my_cards and (view.pot or view.bank) and (
                    "call" in kinds or not game.endswith("poker")):
                return host, bot, awaited[0]
        await press(host, bot, awaited[0] if awaited else ANN, ["bet", "open", *PREFERRED])
    raise AssertionError(f"no decision with cards and chips at {game}")


STUD = """<b>Five-card stud · hand #1</b> · <i>betting</i> · pot 2
▶ <b>Ann</b> (dealer) · 💰1000 · 4♥ 🂠 · to act
Bob · 💰1000 · 4♠ 🂠 · in hand
Cid · 💰998 · stake 2 · J♥ 🂠 · in hand
⏳ Ann · ⏱
· Cid gets J♥
· Ann gets 4♥
· Cid bets 2
<blockquote expandable>Bob, Cid, Ann each get a card face down
Bob gets 4♠</blockquote>
🔒 shoe committed · /verify
Your cards: <b>6♣</b> · face up: <b>4♥</b>
Your hand: six high
Your move at the table — choose here:"""
TWENTY_ONE = """<b>Twenty-one · coup #1</b> · <i>drawing</i> · bank 1000
▶ <b>Ann</b> (punter) · 💰999 · stake 1 · 🂠🂠 · to act
Bob (punter) · 💰999 · stake 1 · 🂠🂠
Cid (banker) · 💰1000 · 🂠🂠
⏳ Ann · deciding privately · ⏱
· Ann stakes 1
· Bob stakes 1
· Cards are dealt
<blockquote expandable>Cid holds the bank
🔒 New shoe shuffled and committed
Bob cuts the shoe
Coup 1 begins</blockquote>
🔒 shoe committed · /verify
Your cards: <b>6♦ 3♥</b>
Your total: 9
Your move at the table — choose here:"""


@pytest.mark.parametrize("game", GAMES)
async def test_his_view_in_the_group_tells_him_what_his_turn_prompt_tells_him(
        game: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A player who decides from *My cards* in the group reads what one who decides in his
    private chat reads at the same moment: the bank or the pot, every up card (his own
    too), his cards, whose turn and his time left, and the amount to call on its button.
    (It once showed his hidden cards and his keyboard alone.)"""
    host, bot, player = await at_a_decision(make_host, monkeypatch, game)
    table = await host.tables.load(TABLE_CHAT)
    prompt = [m for m in bot.chat(player) if m.markup is not None][-1]
    text, keyboard = await shown_to(host, player)
    shown, clocks = clocked(text)
    prompted, prompt_clocks = clocked(prompt.text)
    assert shown == prompted
    assert keyboard is not None and labels(keyboard) == labels(prompt.markup)
    # the facts themselves, from the table as stored
    due = await host.tables.clock.due(table)
    assert due is not None and [u for u, _ in clocks] == [int(due)]
    assert [u for u, _ in prompt_clocks] in ([int(due)], [int(due) - 1])
    assert 58 <= clocks[0][1] <= 60
    public, mine = table.sight.view(), table.sight.view(player)
    head = shown.splitlines()[0]
    assert (f" · bank {public.bank}" in head) == bool(public.bank)
    assert (f" · pot {public.pot}" in head) == bool(public.pot)
    for seat in public.seats:
        line = next(x for x in shown.splitlines() if seat.name in x and "💰" in x)
        if seat.face_up:
            assert pretty_all(list(seat.face_up)) in line, line
    assert f"\nYour cards: <b>{pretty_all(list(mine.my_cards))}</b>" in shown
    assert f"\n⏳ {NAMES[player]} · " in shown
    if game.endswith("poker"):
        to_call = max(s.stake for s in public.seats) - next(
            s.stake for s in public.seats if s.player == player)
        assert f"Call {to_call}" in [t for row in labels(keyboard) for t, _ in row]
    assert shown == {"stud_poker": STUD, "twenty_one": TWENTY_ONE}.get(game, shown)


async def test_my_cards_in_stud_names_his_up_cards_too(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """*My cards* in stud: his pop-up names his whole hand, the hole card and his up card
    (it once named the hole card alone, "Your cards: 6♣")."""
    host, _, player = await at_a_decision(make_host, monkeypatch, "stud_poker")
    outcome = await host.presses.my_cards(TABLE_CHAT, player)
    assert worded(outcome).text == "Your cards: 6♣ · face up: 4♥\nYour hand: six high"


async def test_his_view_closed_by_the_settlement_shows_the_coups_result(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The banker stands last from his view in the group: the step settles the coup, and his
    view, closed, ends with its result as the group's result words it (the same coup as
    the prompts' test: its seeded shoe, its presses)."""
    host, bot = await seeded_three(make_host, monkeypatch, "prompts")
    await press(host, bot, ANN, ["start"])
    for _ in range(40):
        table = await host.tables.load(TABLE_CHAT)
        awaited = table.engine.awaiting(table.state)
        if awaited == [ANN] and table.sight.private:
            break
        await press(host, bot, awaited[0], PREFERRED)
    else:
        raise AssertionError("the banker was never to buy or stand")
    _, keyboard = await shown_to(host, ANN)
    assert keyboard is not None
    stand = next(b for row in keyboard.inline_keyboard for k in row
                 if isinstance(b := decode(k.callback_data), ActionButton) and b.kind == "stand")
    outcome = await host.presses.press(TABLE_CHAT, ANN, NAMES[ANN], stand, True, here=True)
    assert outcome.committed, worded(outcome).text
    await host.idle()
    [(method, edit)] = [(m, e) for m, e in bot.ephemeral if e.get("receiver_user_id") == ANN]
    assert method == "editEphemeralMessageText" and "reply_markup" not in edit
    assert edit["text"].split("\n✅ Ann stands\n\n")[1] == (
        "🏆 <b>Cid wins 1 with 18 points</b>\n"
        "Twenty-one · coup #1 settled\n"
        "Cid +1 · Bob ±0 · Ann (banker) −1\n"
        "<blockquote expandable>Hands: Bob: 10♦ 5♦ (15 points); Cid: 8♠ 10♥ (18 points); "
        "Ann: 10♣ 5♥ (15 points)</blockquote>")

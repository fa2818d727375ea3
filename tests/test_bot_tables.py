"""The commit path and the outbox, in-process: real SQLite storage, a recording fake Bot.

Tables, Presses and the Courier are the bot's own collaborators, built by the
composition root (:mod:`bot.compose`) as ``post_init`` has them built; only Telegram is
replaced, by :class:`RecordingBot`, which keeps every message as a group member would see
it and can fail the way Telegram does (a refusal, or an answer lost after the call took
effect).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup
from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, TimedOut

from bot import compose
from bot.table.record import Ask, OpenEphemeral, TableMeta
from bot.view import answers, i18n
from bot.view.answers import Answer
from bot.view.applink import AppLinks
from bot.view.codec import ActionButton, decode
from bot.view.outcomes import Outcome, Typed
from games import cards
from games.verify.check import compact
from storage.base import StaleVersion
from storage.sqlite import SqliteStorage

CHAT = -100
ANN, BOB, CID = 1, 2, 3
NAMES = {ANN: "Ann", BOB: "Bob", CID: "Cid"}
# what a player presses, first available first (the e2e tests' default policy)
PREFERRED = ["start", "cut", "stake", "bid", "name_bank", "stand", "check", "call",
             "draw", "pass", "continue", "accept", "post_bank", "buy"]


@dataclass
class Sent:
    """A message as the chat shows it now."""

    chat_id: int
    message_id: int
    text: str
    markup: InlineKeyboardMarkup | None
    edits: int = 0


@dataclass
class RecordingBot:
    """Telegram for the courier: send and edit messages, with scripted failures."""

    messages: dict[int, Sent] = field(default_factory=dict)
    next_id: int = 1
    calls: list[str] = field(default_factory=list)
    kicked: set[int] = field(default_factory=set)
    # method -> how many of its next calls (to the group) take effect and then time out
    lose_answers: dict[str, int] = field(default_factory=dict)
    id: int = 1000
    admin_in: set[int] = field(default_factory=set)  # chats where the bot may pin
    pinned: list[int] = field(default_factory=list)
    # while set and not yet released, every message and edit waits (a slow Telegram)
    slow: asyncio.Event | None = None
    # the edits and deletions of messages one member of the group sees (Bot API 10.2)
    ephemeral: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def _lost(self, method: str, chat_id: int) -> None:
        if chat_id == CHAT and self.lose_answers.get(method, 0) > 0:
            self.lose_answers[method] -= 1
            raise TimedOut("Timed out")

    async def send_message(self, chat_id: int, text: str,
                           reply_markup: InlineKeyboardMarkup | None = None) -> Any:
        self.calls.append(f"send {chat_id}")
        if self.slow is not None:
            await self.slow.wait()
        if chat_id in self.kicked:
            raise Forbidden("Forbidden: bot was kicked from the group chat")
        msg = Sent(chat_id, self.next_id, text, reply_markup)
        self.messages[self.next_id] = msg
        self.next_id += 1
        self._lost("send_message", chat_id)
        return msg

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                reply_markup: InlineKeyboardMarkup | None = None) -> Any:
        self.calls.append(f"edit {chat_id}")
        if self.slow is not None:
            await self.slow.wait()
        if chat_id in self.kicked:
            raise Forbidden("Forbidden: bot was kicked from the group chat")
        msg = self.messages.get(message_id)
        if msg is None or msg.chat_id != chat_id:
            raise BadRequest("Message to edit not found")
        if (msg.text, msg.markup) == (text, reply_markup):
            raise BadRequest("Message is not modified: specified new message content and "
                             "reply markup are exactly the same")
        msg.text, msg.markup, msg.edits = text, reply_markup, msg.edits + 1
        self._lost("edit_message_text", chat_id)
        return msg

    async def edit_message_reply_markup(self, chat_id: int, message_id: int,
                                        reply_markup: InlineKeyboardMarkup | None = None
                                        ) -> Any:
        msg = self.messages.get(message_id)
        if msg is None or msg.chat_id != chat_id:
            raise BadRequest("Message to edit not found")
        if msg.markup == reply_markup:
            self._lost("edit_message_reply_markup", chat_id)
            raise BadRequest("Message is not modified: specified new message content and "
                             "reply markup are exactly the same")
        msg.markup = reply_markup
        self._lost("edit_message_reply_markup", chat_id)
        return msg

    async def do_api_request(self, method: str, api_kwargs: dict[str, Any]) -> Any:
        """The courier's raw calls, answered as Telegram's JSON would be."""
        kw = dict(api_kwargs)
        if isinstance(kw.get("reply_markup"), str):  # the Bot API takes a JSON string
            kw["reply_markup"] = InlineKeyboardMarkup.de_json(json.loads(kw["reply_markup"]),
                                                              None)
        if method == "sendMessage":
            msg = await self.send_message(kw["chat_id"], kw["text"], kw.get("reply_markup"))
            return {"message_id": msg.message_id}
        if method == "editMessageText":
            await self.edit_message_text(kw["text"], kw["chat_id"], kw["message_id"],
                                         kw.get("reply_markup"))
            return True
        if method == "editMessageReplyMarkup":
            await self.edit_message_reply_markup(kw["chat_id"], kw["message_id"],
                                                 kw.get("reply_markup"))
            return True
        if method in ("editEphemeralMessageText", "deleteEphemeralMessage"):
            self.ephemeral.append((method, kw))
            return True
        if method == "getChatMember":
            self.calls.append(f"getChatMember {kw['chat_id']}")
            return ({"status": "administrator", "can_pin_messages": True}
                    if kw["chat_id"] in self.admin_in else {"status": "member"})
        if method == "pinChatMessage":
            assert kw["disable_notification"] is True
            self.pinned.append(kw["message_id"])
            return True
        raise AssertionError(f"unexpected call {method}")

    def chat(self, chat_id: int) -> list[Sent]:
        """The chat's messages from the bot, oldest first."""
        return [m for m in self.messages.values() if m.chat_id == chat_id]


@dataclass
class Host(compose.Host):
    """The collaborators of one bot process, as the composition root builds them."""

    storage: SqliteStorage

    async def idle(self) -> None:
        """Wait until the courier has sent everything."""
        for _ in range(400):
            await asyncio.sleep(0.01)
            busy = any(chat.sending() for chat in self.courier.chats.values())
            if not busy and self.courier.doorbell.queue.empty() and self.reports.idle() and not (
                    await self.storage.pending_outbox()):
                return
        raise AssertionError("the outbox did not drain")


def composed(storage: Any, bot: Any, lang: str = "en", links: AppLinks | None = None,
             shared: Any = None, decision_timeout: float = 60) -> Host:
    """The host ``post_init`` builds (:mod:`bot.compose`), on ``storage`` and the fake
    ``bot``; its courier not started."""
    service = compose.service(storage, language=lang, decision_timeout=decision_timeout,
                              bot_username="banco_bot", links=links, shared=shared)
    return Host(**vars(compose.host(service, bot, shared=shared)))


@pytest.fixture
async def make_host(tmp_path: Path) -> AsyncIterator[Any]:
    opened: list[Host] = []

    async def make(bot: RecordingBot, *, deliver: bool = True) -> Host:
        storage = SqliteStorage(tmp_path / "banco.sqlite3", starting_grant=1000, daily_bonus=100)
        await storage.open()
        host = composed(storage, bot)
        if deliver:
            host.lifecycle.start()
            await host.courier.start()
        opened.append(host)
        return host

    yield make
    for host in opened:
        await host.courier.stop(1)
        await host.lifecycle.stop()
        host.deadlines.stop()
        await host.storage.close()


def hosted_on(monkeypatch: pytest.MonkeyPatch, storage: type[SqliteStorage]) -> None:
    """Every host a test makes keeps its tables in ``storage`` (the real SQLite storage, or
    one that counts what it is asked), and deals from the same shoe every run."""
    monkeypatch.setattr(f"{__name__}.SqliteStorage", storage)
    seeded = random.Random("one commit")
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)


def worded(outcome: Outcome, lang: str = "en", group: str | None = None) -> Answer:
    """A press's outcome as the presser reads it, in ``lang`` (an amount's prompt in the
    group in ``group``'s language, by default the same): what the gateway answers."""
    return answers.answer(outcome, lang, group or lang)


def typed_reply(got: Typed | None, lang: str = "en") -> str | None:
    """What a typed amount got, as the gateway replies it in ``lang`` (None: no reply)."""
    return None if got is None else answers.typed_answer(got, lang)


def table_message(bot: RecordingBot) -> Sent:
    """The live table message: the newest message of the group with buttons."""
    return [m for m in bot.chat(CHAT) if m.markup is not None][-1]


def buttons(msg: Sent) -> list[ActionButton]:
    out = []
    for row in msg.markup.inline_keyboard if msg.markup else ():
        for b in row:
            decoded = decode(b.callback_data)
            if isinstance(decoded, ActionButton):
                out.append(decoded)
    return out


def private_keyboard(bot: RecordingBot, player: int) -> list[ActionButton]:
    """The buttons of the newest DM to ``player`` that has any (a private decision)."""
    with_keys = [m for m in bot.chat(player) if m.markup is not None]
    return buttons(with_keys[-1]) if with_keys else []


async def press(host: Host, bot: RecordingBot, player: int, kinds: list[str]) -> str:
    """``player`` presses the first button of ``kinds``: on the live table message, or, for
    a decision that is his alone, on the keyboard the bot sent to his private chat."""
    table = await host.tables.load(CHAT)
    current = (table.state.coup, table.state.version)
    offered = [(b, False) for b in buttons(table_message(bot))]
    offered += [(b, True) for b in private_keyboard(bot, player)
                if (b.coup, b.version) == current]
    for kind in kinds:
        for button, private in offered:
            if button.kind == kind and not button.ask and button.switch is None:
                outcome = await host.presses.press(CHAT, player, NAMES[player], button,
                                                   private)
                await host.idle()
                return worded(outcome, await host.presses.lang_of(CHAT, player, None)).text
    raise AssertionError(f"none of {kinds} offered: {[b.kind for b, _ in offered]}")


async def seat_three(host: Host, bot: RecordingBot) -> None:
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB, CID):
        assert await press(host, bot, player, ["join"]) == "🪑 You sit down with 1000"


async def play_until_settled(host: Host, bot: RecordingBot, coups: int = 1) -> None:
    """Everybody presses by the default policy until ``coups`` more coups have settled."""
    table = await host.tables.load(CHAT)
    target = table.state.coup + coups
    trace = []
    for _ in range(300):
        table = await host.tables.load(CHAT)
        if table.state.coup >= target and table.state.phase != "idle":
            return
        awaited = table.engine.awaiting(table.state) or [ANN]
        answer = await press(host, bot, awaited[0], PREFERRED)
        trace.append((table.state.coup, table.state.phase, awaited[0], answer))
    raise AssertionError(f"the coups did not settle: {trace[-8:]}")


def results(bot: RecordingBot) -> list[str]:
    """Every coup result the group shows (a settlement's title line), in message order."""
    return [line for m in bot.chat(CHAT) for line in m.text.splitlines()[:2]
            if line.endswith(" settled")]


async def test_a_step_commits_with_what_it_must_send_and_the_courier_sends_it(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    table = await host.tables.load(CHAT)
    assert [s.name for s in table.engine.view(table.state, None).seats] == ["Ann", "Bob", "Cid"]
    assert table.meta.names == {ANN: "Ann", BOB: "Bob", CID: "Cid"}
    # one table message, edited as players sat down; nothing left in the outbox
    live = table_message(bot)
    assert [m.message_id for m in bot.chat(CHAT)] == [live.message_id]
    assert live.edits == 3 and "\nCid (punter) · 💰1000\n" in live.text
    assert await host.storage.pending_outbox() == []


async def test_locked_gives_the_committed_table_under_the_chats_lock_and_none_without_one(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    async with host.tables.locked(CHAT) as table:
        assert table is None  # no table in the chat yet
    await seat_three(host, bot)
    seen: list[str] = []

    async def second() -> None:
        async with host.tables.locked(CHAT) as table:
            assert table is not None
            seen.append(f"second reads rev {table.rec.rev}")

    async with host.tables.locked(CHAT) as table:
        assert table is not None and table.meta.names == {p: NAMES[p] for p in (ANN, BOB, CID)}
        rev = table.rec.rev
        waiting = asyncio.create_task(second())
        await asyncio.sleep(0.05)
        assert seen == []  # the lock is held: the second waits
        await host.tables.commit(table, redraw=False)
        seen.append("first committed")
    await waiting
    assert seen == ["first committed", f"second reads rev {rev + 1}"]


async def test_a_kill_between_commit_and_send_loses_nothing(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await press(host, bot, ANN, ["start"])
    sent_before = len(bot.calls)
    # a process that commits but dies before sending: its courier never runs
    dead = await make_host(bot, deliver=False)
    table = await dead.tables.load(CHAT)
    awaited = table.engine.awaiting(table.state)[0]
    offered = [b for b in buttons(table_message(bot)) if b.kind in PREFERRED[1:] and not b.ask]
    pending_before = len(await dead.storage.pending_outbox())
    for button in offered:
        outcome = await dead.presses.press(CHAT, awaited, NAMES[awaited], button)
        if outcome.committed:
            break
    assert outcome.committed
    assert len(bot.calls) == sent_before  # nothing was sent
    pending = await dead.storage.pending_outbox()
    assert len(pending) >= pending_before
    # the restarted process delivers every pending item, once, and the table message shows
    # the committed step (its buttons carry the stored version)
    await dead.courier.stop(0)
    restarted = await make_host(bot)
    await restarted.idle()
    assert await restarted.storage.pending_outbox() == []
    assert len(bot.calls) - sent_before >= len(pending)
    stored = await restarted.tables.load(CHAT)
    assert {b.version for b in buttons(table_message(bot))} == {stored.state.version}
    assert stored.state.version == table.state.version + 1


async def test_a_result_lost_in_transit_is_shown_exactly_once(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    # every edit takes effect but its answer is lost: the courier repeats it; Telegram
    # answers "not modified", and the result shows once
    bot.lose_answers["edit_message_text"] = 1000
    bot.lose_answers["send_message"] = 0
    await play_until_settled(host, bot, coups=2)
    shown = results(bot)
    assert len(shown) == len(set(shown)) >= 1, shown


async def test_a_table_post_whose_answer_was_lost_leaves_one_live_keyboard(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await play_until_settled(host, bot)
    # the next table post reaches the chat but its answer is lost: the courier posts again,
    # and the twin between the known ids loses its buttons
    first_new = bot.next_id
    bot.lose_answers["send_message"] = 1
    await play_until_settled(host, bot)
    assert bot.lose_answers["send_message"] == 0
    posted = [m for m in bot.chat(CHAT) if m.message_id >= first_new]
    twins = [m for m in posted if m.text == posted[0].text]
    assert len(posted) >= 2 and len(twins) >= 1
    live = [m.message_id for m in posted if m.markup is not None]
    assert live == [table_message(bot).message_id]


async def test_settings_go_through_the_versioned_commit(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en")
    before = await host.tables.load(CHAT)
    assert await host.lifecycle.settings(CHAT, "timeout", "30") == (
        "This table: timeout = 30 seconds. For this chat's next tables too: "
        "/settings default timeout 30")
    after = await host.tables.load(CHAT)
    assert (after.meta.timeout, after.rec.rev) == (30, before.rec.rev + 1)
    # a record computed from the older revision is refused and changes nothing
    with pytest.raises(StaleVersion):
        await host.tables.commit(before, meta=TableMeta(opener=BOB))
    assert (await host.tables.load(CHAT)).meta.opener == ANN
    assert await host.lifecycle.settings(CHAT, "timeout", "9") == (
        "Cannot set that: timeout takes 10 to 3600 seconds")
    # turn prompts in private chats: on by default, off per table
    assert "turn_dm = on" in await host.lifecycle.settings(CHAT, None, None)
    assert await host.lifecycle.settings(CHAT, "turn_dm", "off") == (
        "This table: turn_dm = off. For this chat's next tables too: "
        "/settings default turn_dm off")
    assert (await host.tables.load(CHAT)).meta.turn_dm is False
    assert await host.lifecycle.settings(CHAT, "turn_dm", "maybe") == "Cannot set that: on | off"


async def test_an_unknown_setting_is_named_as_such_even_while_players_are_seated(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    # the setting does not exist: that, and the ones there are, not "nobody is seated"
    assert await host.lifecycle.settings(CHAT, "foo", "1") == (
        "There is no setting foo. A Twenty-one table's settings: timeout, turn_dm, idle_close, "
        "min_stake, decks.")
    # a game's real setting, with players seated, still waits for an empty table
    assert await host.lifecycle.settings(CHAT, "min_stake", "5") == (
        "Game settings change only while nobody is seated.")


async def test_a_forged_press_with_extra_arguments_changes_nothing(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    table = await host.tables.load(CHAT)
    s = table.state
    for forged in (ActionButton(CHAT, s.coup, s.version, "leave", confirm=999),
                   ActionButton(CHAT, s.coup, s.version, "leave", amount=5),
                   ActionButton(CHAT, s.coup, s.version, "start", choice=0),
                   ActionButton(CHAT, s.coup, s.version, "start", select=1)):
        outcome = await host.presses.press(CHAT, ANN, "Ann", forged)
        assert (worded(outcome).text, outcome.committed) == ("This button is not valid.", False)
    assert (await host.tables.load(CHAT)).rec.rev == table.rec.rev


async def test_a_kicked_bot_pauses_the_table_and_resumes_it_when_added_back(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    bot.kicked.add(CHAT)
    await press(host, bot, ANN, ["start"])
    await asyncio.sleep(0.05)
    table = await host.tables.load(CHAT)
    assert table.meta.paused
    assert not host.tables.clock.deadlines.pending(CHAT)
    outcome = await host.presses.press(CHAT, ANN, "Ann", ActionButton(
        CHAT, table.state.coup, table.state.version, "leave"))
    assert worded(outcome).text == "The table is paused: the bot cannot write in this chat."
    # added back: the table resumes with a line and a new table message
    bot.kicked.discard(CHAT)
    host.courier.regained(CHAT)
    await host.lifecycle.group_back(CHAT)
    await host.idle()
    texts = [m.text for m in bot.chat(CHAT)]
    assert "▶️ The table resumes." in texts
    assert not (await host.tables.load(CHAT)).meta.paused
    # the awaited cutter's clock runs again, a whole decision time from the resume
    resumed = await host.tables.load(CHAT)
    assert len(resumed.engine.awaiting(resumed.state)) == 1
    assert host.tables.clock.deadlines.pending(CHAT)
    assert resumed.meta.grace_until is not None
    due = await host.tables.clock.due(resumed)
    assert due is not None and due >= resumed.meta.grace_until


def test_meta_is_plain_json() -> None:
    meta = TableMeta(opener=5, names={5: "Ann"}, dm_blocked=[5],
                     asks={5: Ask(kind="stake", coup=2, expires=10.5)}, done={"q7": "Stake"})
    assert json.loads(meta.stored()) == {
        "opener": 5, "timeout": None, "settings": {}, "names": {"5": "Ann"}, "coup_log": [],
        "msg_coup": 0, "revealed": None, "proofs": {}, "dm_blocked": [5], "hinted": {},
        "paused": False,
        "grace_until": None, "decision": 0, "due": None, "turn_dm": None,
        "idle_close": None, "idle": 0,
        "asks": {"5": {"kind": "stake", "coup": 2, "expires": 10.5, "private": False,
                       "choice": None, "shown": None, "here": False}},
        "last_result": None, "prompts": {}, "on_page": {}, "opened": 0.0,
        "done": {"q7": "Stake"}}
    assert TableMeta.model_validate_json(meta.stored()) == meta
    # the coup log, joined from its entries' JSON, reads back as it was, again and again
    log = [{"kind": "stake_placed", "data": {"amount": {"t": "chips", "n": 5}}},
           {"kind": "coup_started", "data": {}, "timed_out": True}]
    logged = meta.model_copy(update={"coup_log": log})
    for _ in range(2):
        assert json.loads(logged.stored())["coup_log"] == log
        assert TableMeta.model_validate_json(logged.stored()) == logged
    # the last revealed shoe, spliced in as its JSON, reads back as it was, again and again
    shoe = {"decks": 1, "order": ["Ah", "2c"], "salt": "ab", "cut": 1, "burned": []}
    revealed = meta.model_copy(update={"revealed": shoe})
    for _ in range(2):
        assert json.loads(revealed.stored())["revealed"] == shoe
        assert TableMeta.model_validate_json(revealed.stored()) == revealed
    # a table that chose its screen keeps it
    assert json.loads(meta.model_copy(update={"screen": "app"}).stored())["screen"] == "app"
    # a view shown in the group to one player is kept while there is one
    shown = meta.model_copy(update={"ephemerals": {5: OpenEphemeral(
        message_id=3, decision=7, digest="ab")}})
    assert json.loads(shown.stored())["ephemerals"] == {
        "5": {"message_id": 3, "decision": 7, "digest": "ab"}}
    assert TableMeta.model_validate_json(shown.stored()) == shown


async def test_one_live_table_pinned_where_the_bot_may_pin(make_host: Any) -> None:
    bot = RecordingBot(admin_in={CHAT})
    host = await make_host(bot)
    await seat_three(host, bot)
    first = table_message(bot)
    assert await host.lifecycle.repost(CHAT)
    await host.idle()
    second = table_message(bot)
    live = [m for m in bot.chat(CHAT) if m.markup is not None]
    assert live == [second] and second.message_id != first.message_id
    assert first.text == "<b>Twenty-one</b> · waiting for players ⬇️"
    assert bot.pinned == [first.message_id, second.message_id]
    assert bot.calls.count(f"getChatMember {CHAT}") == 1


async def test_no_pinning_without_the_right_and_one_question_only(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    for _ in range(3):
        assert await host.lifecycle.repost(CHAT)
        await host.idle()
    assert bot.pinned == []
    assert bot.calls.count(f"getChatMember {CHAT}") == 1
    assert len([m for m in bot.chat(CHAT) if m.markup is not None]) == 1


async def test_history_books_each_coup_under_its_own_number(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await play_until_settled(host, bot, coups=2)
    settled = [m.text for m in bot.messages.values() if " settled" in m.text]
    shown: dict[tuple[int, int], int] = {}  # (coup, player) -> net the result showed
    for text in settled:
        coup = int(re.search(r"coup #(\d+) settled", text).group(1))  # type: ignore[union-attr]
        for name, sign, amount in re.findall(r"(Ann|Bob|Cid)(?: \(banker\))? ([+−±])(\d+)",
                                             text.splitlines()[2]):
            player = next(p for p, n in NAMES.items() if n == name)
            shown[(coup, player)] = -int(amount) if sign == "−" else int(amount)
    for player in NAMES:
        entries = await host.storage.recent_coups(chat_id=CHAT, user_id=player, limit=200)
        booked: dict[int, int] = {}
        for e in entries:
            if e.game:
                booked[e.coup] = booked.get(e.coup, 0) + e.delta
        assert {c: n for c, n in booked.items() if n} == {
            c: n for (c, p), n in shown.items() if p == player and n}


async def test_each_player_reads_his_private_messages_in_his_own_language(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await host.tables.languages.choose(BOB, "ru")  # Bob chose Russian in his private chat
    assert await host.lifecycle.open_table(CHAT, "twenty_one", ANN, "en") is None
    await host.idle()
    # his pop-ups are his too: Russian in an English group
    assert [await press(host, bot, p, ["join"]) for p in (ANN, BOB, CID)] == [
        "🪑 You sit down with 1000", "🪑 Вы садитесь за стол с 1000",
        "🪑 You sit down with 1000"]
    await play_until_settled(host, bot, coups=2)
    await host.idle()
    bob = [m.text for m in bot.chat(BOB)]
    ann = [m.text for m in bot.chat(ANN)]
    assert bob and all(t.startswith(("<b>Очко · кон №", "<b>Очко</b>")) for t in bob), bob
    assert ann and all(t.startswith(("<b>Twenty-one · coup #", "<b>Twenty-one</b>"))
                       for t in ann), ann
    assert "<b>Очко · кон №0" not in "".join(bob)
    assert any("Ваши карты: <b>" in t for t in bob), bob
    assert all("\n" in t for t in bob + ann), (bob, ann)  # no DM is its title alone


async def test_a_turn_clock_starts_when_the_turn_reaches_the_player(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    bot.slow = asyncio.Event()  # Telegram is slow from now on
    table = await host.tables.load(CHAT)
    start = next(b for b in buttons(table_message(bot)) if b.kind == "start")
    outcome = await host.presses.press(CHAT, ANN, "Ann", start)
    assert outcome.committed
    await asyncio.sleep(0.1)
    table = await host.tables.load(CHAT)
    [cutter] = table.engine.awaiting(table.state)
    # neither the cutter's prompt nor the group's table has reached anybody: no clock runs
    assert table.meta.due is None and not host.tables.clock.deadlines.pending(CHAT)
    assert table.meta.decision == table.state.version
    before = time.time()
    bot.slow.set()
    await host.idle()
    table = await host.tables.load(CHAT)
    # the clock runs from the facts of presence (no commit): the table's next commit keeps it
    due = (await host.tables.clock.started(table)).due
    assert table.meta.due is None and due is not None and before + 60 <= due <= time.time() + 60
    assert host.tables.clock.deadlines.pending(CHAT)
    prompt = [m for m in bot.chat(cutter) if m.markup is not None][-1]
    assert prompt.text.endswith("Your move at the table — choose here:")  # his prompt too
    assert {b.kind for b in buttons(prompt)} >= {"cut"}
    assert {b.version for b in buttons(prompt)} == {table.meta.decision}


async def test_a_button_stays_good_while_its_decision_is_the_pressers(make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    await seat_three(host, bot)
    await press(host, bot, ANN, ["start"])
    table = await host.tables.load(CHAT)
    await press(host, bot, table.engine.awaiting(table.state)[0], ["cut"])
    table = await host.tables.load(CHAT)  # the punters stake
    awaited = table.engine.awaiting(table.state)
    first = awaited[0]
    stake = next(b for b in private_keyboard(bot, first) if b.kind == "stake" and not b.ask)
    # a bystander's step (Dan sits down) does not make the punter's button stale
    dan = await host.presses.press(CHAT, 4, "Dan", next(
        b for b in buttons(table_message(bot)) if b.kind == "join"))
    assert dan.committed
    outcome = await host.presses.press(CHAT, first, NAMES[first], stake, True)
    assert outcome.committed, worded(outcome).text
    # pressed again, that decision is gone: refused, saying what is current
    again = await host.presses.press(CHAT, first, NAMES[first], stake, True)
    table = await host.tables.load(CHAT)
    assert not again.committed
    now = table.engine.awaiting(table.state)
    if first in now:
        assert worded(again).text.startswith(
            "That button was for an earlier turn. Your move now: ")
    else:
        assert i18n.plain(worded(again).text) == "It is not your turn."


async def test_a_revealed_shoe_is_kept_once_with_the_table_and_its_line_still_shows(
        make_host: Any) -> None:
    bot = RecordingBot()
    host = await make_host(bot)
    assert await host.lifecycle.open_table(CHAT, "stud_poker", ANN, "en") is None
    await host.idle()
    for player in (ANN, BOB):
        await press(host, bot, player, ["join"])
    await play_until_settled(host, bot, coups=2)
    table = await host.tables.load(CHAT)
    revealed = table.meta.revealed
    assert revealed is not None and revealed["record"]["size"] == 52 \
        and len(revealed["record"]["shown"]) >= 10 and revealed["shown"] >= 10
    # the next hand's log opens with the shoe's line; its proof is not copied into it
    stored = (await host.storage.load_table(chat_id=CHAT)).meta
    assert stored["coup_log"][0] == {"kind": "shoe_revealed", "data": {}}
    assert stored["revealed"] == revealed
    assert "Shoe finished; /verify proves its cards" in table_message(bot).text
    assert str(Markup("<pre>{}</pre>").format(compact(revealed["record"]))) \
        in await host.lifecycle.verify(CHAT)

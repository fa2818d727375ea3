"""The all-chats board through the host: a chat listed by its admin with /settings default
global (a member refused), a player's /privacy by text and by its buttons (another's press
and forged data change nothing), and /top global over a seeded game's chat listed beside a
chat that is not, in English and Russian, the hidden players masked."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Update
from test_bot_commands import HandlerBot
from test_bot_history import played
from test_bot_standings import send
from test_bot_tables import ANN, BOB, CHAT, CID, NAMES, make_host

from bot import compose
from bot.gateway import board as commands
from bot.gateway import commands as chat_commands
from bot.gateway.context import BotData
from bot.table import table_settings
from bot.view.board import masked
from bot.view.codec import PrivacyButton, decode_privacy, encode_privacy
from storage.base import SettledCoup

__all__ = ["make_host"]  # fixtures

UNLISTED = -500
HOW_EN = ("A chat's admins list it with /settings default global on; "
          "/privacy shows your name there or hides it.")
HOW_RU = ("Администраторы чата включают его в рейтинг: /settings default global on; "
          "/privacy — показывать там ваше имя или скрывать.")


@dataclass
class PressBot(HandlerBot):
    """:class:`HandlerBot` that takes presses' answers and edits of the message pressed."""

    answers: list[dict[str, Any]] = field(default_factory=list)
    edits: list[tuple[str, list[list[tuple[str, str]]]]] = field(default_factory=list)

    async def do_api_request(self, method: str, params: dict[str, Any], **_: Any) -> bool:
        assert method == "answerCallbackQuery"
        self.answers.append(params)
        return True

    async def edit_message_text(self, text: str, reply_markup: Any = None, **_: Any) -> Any:
        self.edits.append((text, buttons(reply_markup)))
        return True


def buttons(markup: Any) -> list[list[tuple[str, str]]]:
    return [[(b.text, b.callback_data) for b in row] for row in markup.inline_keyboard]


async def press(host: Any, tg: PressBot, data: str, user: int, *, chat: int = CHAT,
                language: str = "en") -> tuple[str, bool]:
    """``user`` presses a button with ``data`` on a message of the bot in ``chat``; the
    pop-up's text, and whether it must be closed by hand."""
    chat_json = ({"id": chat, "type": "private", "first_name": NAMES[chat]} if chat > 0
                 else {"id": chat, "type": "supergroup", "title": "Table"})
    update = Update.de_json({"update_id": 2, "callback_query": {
        "id": "q1", "chat_instance": "ci", "data": data,
        "from": {"id": user, "is_bot": False, "first_name": NAMES[user],
                 "language_code": language},
        "message": {"message_id": 1001, "date": 0, "chat": chat_json, "text": "picker",
                    "from": {"id": 999, "is_bot": True, "first_name": "Banco"}}}},
        tg)  # type: ignore[arg-type]
    context = SimpleNamespace(args=[], bot=tg, bot_data=BotData(
        services=compose.services(host, daily_bonus=100)))
    before = len(tg.answers)
    await commands.on_privacy_press(update, context)
    assert len(tg.answers) == before + 1  # every press answered, once
    said = tg.answers[-1]
    return said["text"], said["show_alert"]


def picker(lang: str, user: int) -> list[list[tuple[str, str]]]:
    show, hide = {"en": ("👁 Show my name", "🙈 Hide my name"),
                  "ru": ("👁 Показывать имя", "🙈 Скрывать имя")}[lang]
    return [[(show, f"p|{user}|1"), (hide, f"p|{user}|0")]]


def test_privacy_buttons_round_trip_and_anything_else_is_malformed() -> None:
    for button in (PrivacyButton(ANN, True), PrivacyButton(10**15, False)):
        assert decode_privacy(encode_privacy(button)) == button
    assert encode_privacy(PrivacyButton(7, True)) == "p|7|1"
    for data in (None, "", "p|7|2", "p|7", "p|-7|1", "p|7|1|x", "p|x|0", "l|en", "p|7|1 "):
        with pytest.raises(ValueError):
            decode_privacy(data)


def test_a_hidden_name_is_its_first_letter_and_dots() -> None:
    assert [masked(n) for n in ("Ann", "ann lee", " Боб", "", "🃏 Joker")] == [
        "A•••", "A•••", "Б•••", "•••", "🃏•••"]


async def test_the_chat_is_listed_by_its_admins_with_settings_default_global(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "chemin_de_fer",
                           "standings-chemin_de_fer", 1)
    tg = HandlerBot()
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global on",
                      BOB) == ["Only chat administrators can do that."]
    assert await host.storage.chat_settings(chat_id=CHAT) == {}
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global on",
                      ANN) == ["This chat is listed on the all-chats board."]
    assert await host.storage.chat_settings(chat_id=CHAT) == {"global": True}
    assert "This chat's next tables: global = on" in await table_settings.change(
        host.tables, CHAT, None, None)
    assert await table_settings.set_default(host.tables, CHAT, "global", "maybe") == (
        "Cannot set that: global: on | off")
    assert await table_settings.set_default(host.tables, CHAT, "global", "off") == (
        "This chat is not listed on the all-chats board.")
    assert await host.storage.chat_settings(chat_id=CHAT) == {}
    await host.lifecycle.set_language(CHAT, "ru")
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global on",
                      BOB) == ["Это могут только администраторы чата."]
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global on",
                      ANN) == ["Этот чат участвует в общем рейтинге всех чатов."]
    assert await table_settings.set_default(host.tables, CHAT, "global", None) == (
        "Этот чат не участвует в общем рейтинге всех чатов.")
    assert await host.storage.chat_settings(chat_id=CHAT) == {}


async def test_privacy_is_shown_and_set_by_its_buttons_and_by_text(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "chemin_de_fer",
                           "standings-chemin_de_fer", 1)
    tg = PressBot()
    assert await send(host, tg, commands.cmd_privacy, "/privacy", ANN) == [
        "🌍 On the all-chats board your name is hidden: <b>A•••</b>."]
    assert buttons(tg.said[-1].markup) == picker("en", ANN)
    # his own picker's button: his choice, a pop-up, the picker says it
    assert await press(host, tg, "p|1|1", ANN) == (
        "Your name now shows on the all-chats board.", False)
    assert await host.storage.player_public(user_id=ANN)
    assert tg.edits[-1] == ("🌍 On the all-chats board your name shows: <b>Ann</b>.",
                            picker("en", ANN))
    # Bob presses Ann's picker: nothing changes for either of them
    assert await press(host, tg, "p|1|0", BOB) == (
        "These buttons are someone else's: send /privacy for yours.", True)
    assert await host.storage.player_public(user_id=ANN)
    assert not await host.storage.player_public(user_id=BOB)
    # forged data: refused, nothing changed, nothing edited
    edits = len(tg.edits)
    for data in ("p|1|2", "p|1|0|x", "p|one|0", "p|"):
        assert await press(host, tg, data, ANN) == ("This button is not valid.", True)
    assert await host.storage.player_public(user_id=ANN)
    assert len(tg.edits) == edits
    assert await press(host, tg, "p|1|0", ANN) == (
        "Your name is now hidden on the all-chats board.", False)
    assert not await host.storage.player_public(user_id=ANN)
    # by text, in his private chat
    assert await send(host, tg, commands.cmd_privacy, "/privacy public", CID, private=True) == [
        "Your name now shows on the all-chats board."]
    assert await send(host, tg, commands.cmd_privacy, "/privacy", CID, private=True) == [
        "🌍 On the all-chats board your name shows: <b>Cid</b>."]
    assert await send(host, tg, commands.cmd_privacy, "/privacy maybe", CID) == [
        "Try: /privacy, /privacy public or /privacy hidden."]
    assert await host.storage.player_public(user_id=CID)
    # in Russian
    await host.lifecycle.set_language(CHAT, "ru")
    assert await send(host, tg, commands.cmd_privacy, "/privacy hidden", CID) == [
        "Теперь ваше имя скрыто в общем рейтинге."]
    assert await send(host, tg, commands.cmd_privacy, "/privacy", BOB) == [
        "🌍 В общем рейтинге всех чатов ваше имя скрыто: <b>B•••</b>."]
    assert buttons(tg.said[-1].markup) == picker("ru", BOB)
    assert await press(host, tg, "p|2|1", BOB, language="ru") == (
        "Теперь ваше имя видно в общем рейтинге.", False)
    assert tg.edits[-1] == ("🌍 В общем рейтинге всех чатов ваше имя видно: <b>Bob</b>.",
                            picker("ru", BOB))
    assert await press(host, tg, "p|1|1", BOB, language="ru") == (
        "Эти кнопки чужие: отправьте /privacy, чтобы выбрать за себя.", True)
    assert await press(host, tg, "p|2|7", BOB, language="ru") == (
        "Эта кнопка недействительна.", True)
    assert [await host.storage.player_public(user_id=u) for u in (ANN, BOB, CID)] == [
        False, True, False]


async def unlisted_chat_played(host: Any) -> None:
    """Three coups in another chat, never listed, that would top the board if they counted."""
    await host.storage.create_table(chat_id=UNLISTED, game="chemin_de_fer", settings={},
                                    state_json="{}", version=0)
    for n in range(1, 4):
        coup = SettledCoup(game="chemin_de_fer", coup=n, opened=1.0, settled_at=1.7e9 + n,
                           banker=BOB, nets={BOB: 900, ANN: -900}, winners=(BOB,))
        await host.storage.commit_step(chat_id=UNLISTED, expected_version=n - 1,
                                       state_json="{}", version=n, transfers=[], coup=n,
                                       deadline=None, settled=[coup])


async def test_top_global_ranks_the_listed_chats_alone_and_masks_the_hidden(
        make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await played(make_host, monkeypatch, "chemin_de_fer",
                           "standings-chemin_de_fer", 4)
    await unlisted_chat_played(host)
    tg = HandlerBot()
    nobody = ("🌍 <b>All chats</b> · all time · all games\nNobody is ranked yet.\n"
              f"To be ranked, play 3 coups.\n{HOW_EN}")
    assert await send(host, tg, commands.cmd_top, "/top global", ANN) == [nobody]
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global on",
                      ANN) == ["This chat is listed on the all-chats board."]
    await host.storage.set_player_public(user_id=CID, public=True)
    board_en = ("🌍 <b>All chats</b> · {period} · {game}\n1. Cid — +4 (4 coups, 3 won)\n"
                "2. A••• — -2 (3 coups, 0 won)\n3. B••• — -2 (3 coups, 0 won)\n"
                f"To be ranked, play 3 coups.\n{HOW_EN}")
    assert await send(host, tg, commands.cmd_top, "/top global", BOB) == [
        board_en.format(period="all time", game="all games")]
    # anywhere: in a private chat too, a period and a game either way round
    assert await send(host, tg, commands.cmd_top, "/top global chemin de fer week", BOB,
                      private=True) == [
        board_en.format(period="last 7 days", game="Chemin de fer")]
    assert await send(host, tg, commands.cmd_top, "/top global today", CID) == [
        board_en.format(period="today", game="all games")]
    assert await send(host, tg, commands.cmd_top, "/top global baccarat", CID) == [
        nobody.replace("all games", "Baccarat")]
    assert await send(host, tg, commands.cmd_top, "/top global chips", CID) == [
        "Try: /top global [today|week|month|all] [game]."]
    # the chat's own /top is as it was
    assert (await send(host, tg, commands.cmd_top, "/top", CID))[0].startswith(
        "🏆 <b>All time</b> · all games\n1. Cid — +4 (4 coups, 3 won)")
    await host.storage.set_player_public(user_id=ANN, public=True)
    await host.lifecycle.set_language(CHAT, "ru")
    assert await send(host, tg, commands.cmd_top, "/top global month", BOB) == [
        "🌍 <b>Все чаты</b> · последние 30 дней · все игры\n"
        "1. Cid — +4 (4 кона, выиграно 3)\n2. Ann — -2 (3 кона, выиграно 0)\n"
        f"3. B••• — -2 (3 кона, выиграно 0)\nЧтобы попасть в рейтинг, сыграйте 3 кона.\n{HOW_RU}"]
    assert await send(host, tg, commands.cmd_top, "/top global всё", BOB) == [
        "Так: /top global [today|week|month|all] [игра]."]
    # unlisted again: off the board
    assert await send(host, tg, chat_commands.cmd_settings, "/settings default global off",
                      ANN) == ["Этот чат не участвует в общем рейтинге всех чатов."]
    assert (await send(host, tg, commands.cmd_top, "/top global", BOB))[0].split("\n")[1] == (
        "В рейтинге пока никого.")

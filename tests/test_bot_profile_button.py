"""The private chat's *My profile* button: a ``web_app`` button to the Mini App's profile
page under /stats and /start answered in private, in the reader's language; never in a
group (Telegram refuses a ``web_app`` button there), nor without the app configured."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from telegram import Update
from test_bot_commands import HandlerBot
from test_bot_tables import ANN, CHAT, NAMES, Host, RecordingBot, make_host

from bot import compose
from bot.config import Settings
from bot.gateway import commands, standings
from bot.gateway.context import BotData

__all__ = ["make_host"]  # a fixture

APP = "https://banco.example/app/"


Answer = tuple[str, list[list[dict[str, Any]]] | None]


async def sent(host: Host, handler: Any, text: str, *, private: bool, app: bool = True,
               lang: str = "en") -> list[Answer]:
    """Ann sends ``text`` in her private chat (or the group): each answer's text and its
    inline keyboard as the Bot API gets it."""
    tg = HandlerBot()
    chat = ({"id": ANN, "type": "private", "first_name": NAMES[ANN]} if private
            else {"id": CHAT, "type": "supergroup", "title": "Table"})
    update = Update.de_json({"update_id": 1, "message": {
        "message_id": 50, "date": 0, "text": text, "chat": chat,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        "from": {"id": ANN, "is_bot": False, "first_name": NAMES[ANN],
                 "language_code": lang}}},
        tg)  # type: ignore[arg-type]
    settings = Settings(_env_file=None, bot_token="1:T", webapp_url=APP if app else "",
                        webapp_short_name="table" if app else "")
    context = SimpleNamespace(args=text.split()[1:], bot=tg, bot_data=BotData(
        settings=settings, services=compose.services(host, daily_bonus=100)))
    await handler(update, context)
    return [(s.text, None if s.markup is None else s.markup.to_dict()["inline_keyboard"])
            for s in tg.said]


PROFILE = [[{"text": "📊 My profile", "web_app": {"url": APP + "?page=profile"}}]]


async def test_stats_and_start_in_private_carry_the_profile_button(make_host: Any) -> None:
    host = await make_host(RecordingBot())
    [(text, keyboard)] = await sent(host, standings.cmd_stats, "/stats", private=True)
    assert text == "📊 <b>Ann</b> · all games · all chats\nNo settled coups yet."
    assert keyboard == PROFILE
    [(text, keyboard)] = await sent(host, commands.cmd_start, "/start", private=True)
    assert text.startswith("Hello! I will send you your hidden cards here.")
    assert keyboard == PROFILE
    # in a group: no web_app button (Telegram would refuse the message)
    [(_, keyboard)] = await sent(host, standings.cmd_stats, "/stats", private=False)
    assert keyboard is None
    [(_, keyboard)] = await sent(host, commands.cmd_start, "/start", private=False)
    assert keyboard is None
    # without the Mini App configured, no button
    [(_, keyboard)] = await sent(host, standings.cmd_stats, "/stats", private=True, app=False)
    assert keyboard is None


async def test_the_button_speaks_russian_to_a_russian_reader(make_host: Any) -> None:
    host = await make_host(RecordingBot())
    [(text, keyboard)] = await sent(host, commands.cmd_start, "/start", private=True,
                                    lang="ru")
    assert text.startswith("Привет! Сюда я буду присылать ваши закрытые карты.")
    assert keyboard == [[{"text": "📊 Мой профиль", "web_app": {"url": APP + "?page=profile"}}]]
    [(text, keyboard)] = await sent(host, standings.cmd_stats, "/stats", private=True,
                                    lang="ru")
    assert text == "📊 <b>Ann</b> · все игры · все чаты\nСыгранных конов пока нет."
    assert keyboard == [[{"text": "📊 Мой профиль", "web_app": {"url": APP + "?page=profile"}}]]

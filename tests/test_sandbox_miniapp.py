"""The sandbox plays Telegram's part for the Mini App: BotFather's /newapp
(POST /sandbox/miniapp), a user opening an app from a group's direct link or a private
chat's web_app button (POST /sandbox/miniapp/open: the URL Telegram's web view would load,
with initData signed by the bot's token), and the Bot API refusing a web_app button in a
group as Telegram does. The bot side is a real python-telegram-bot `Bot`; initData is
checked with init-data-py, the validator the bot's own server uses.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import init_data_py
import pytest
from init_data_py.errors import HashInvalidError
from telegram import Bot as PtbBot
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest
from test_sandbox_server import local_request

from bot.__main__ import SANDBOX_TOKEN, local_webapp, start_sandbox_thread
from bot.config import Settings
from sandbox.client import SandboxClient, SandboxError
from sandbox.miniapp import THEMES
from sandbox.server import SandboxHandle, start_sandbox

ANN, BOB = 1, 2
GROUP, SMALL = -100, -7
TOKEN = "123456:TEST"
APP_URL = "http://127.0.0.1:8088/app/"
LINK = "https://t.me/banco_bot/table?startapp=-100_abc"
BOB_JSON = ('{"id":2,"first_name":"Bob","last_name":"Brown","username":"bob",'
            '"language_code":"ru","allows_write_to_pm":true}')
LAUNCH_KEYS = ["tgWebAppData", "tgWebAppVersion", "tgWebAppPlatform", "tgWebAppThemeParams"]


@pytest.fixture
async def sandbox() -> AsyncIterator[SandboxHandle]:
    handle = await start_sandbox("127.0.0.1", 0)
    yield handle
    await handle.stop()


@pytest.fixture
async def sb(sandbox: SandboxHandle) -> AsyncIterator[SandboxClient]:
    async with SandboxClient(sandbox.url) as client:
        await client.add_user(ANN, "Ann", "ann", "en")
        await client.add_user(BOB, "Bob", "bob", "ru", last_name="Brown")
        await client.add_chat(GROUP, "Table", "supergroup", members=[ANN, BOB], admins=[ANN])
        await client.add_chat(SMALL, "Small", "group", members=[ANN, BOB], admins=[ANN])
        await client.add_bot(GROUP, ANN)
        await client.add_bot(SMALL, ANN)
        await client.send(BOB, BOB, "/start")
        yield client


@pytest.fixture
async def bot(sandbox: SandboxHandle) -> AsyncIterator[PtbBot]:
    ptb = PtbBot(TOKEN, base_url=sandbox.bot_api_url, request=local_request(),
                 get_updates_request=local_request())
    async with ptb:  # its getMe is the call the sandbox learns the token from
        yield ptb


def pairs(init_data: str) -> dict[str, str]:
    return dict(parse_qsl(init_data, keep_blank_values=True, strict_parsing=True))


def launch(url: str) -> tuple[str, dict[str, str]]:
    """A launch URL's address (without the fragment) and its fragment's parameters."""
    address, _, fragment = url.partition("#")
    return address, pairs(fragment)


# --- registering --------------------------------------------------------------------------


async def test_newapp_registers_replaces_and_lists(sb: SandboxClient) -> None:
    assert await sb.miniapps() == []
    made = await sb.register_miniapp("table", "http://127.0.0.1:9999/old/")
    assert made == {"short_name": "table", "url": "http://127.0.0.1:9999/old/",
                    "title": "table", "link": "https://t.me/banco_bot/table",
                    "has_token": False}
    await sb.register_miniapp("table", APP_URL, TOKEN, title="Banco table")
    await sb.register_miniapp("other", "https://example.org/x/")
    assert await sb.miniapps() == [
        {"short_name": "table", "url": APP_URL, "title": "Banco table",
         "link": "https://t.me/banco_bot/table", "has_token": True},
        {"short_name": "other", "url": "https://example.org/x/", "title": "other",
         "link": "https://t.me/banco_bot/other", "has_token": False},
    ]
    assert (await sb.state())["miniapps"] == await sb.miniapps()  # what the page reads
    for short_name, url, error in (
        ("ab", APP_URL, "short_name must be 3-30 characters of A-Z, a-z, 0-9 and _"),
        ("my-app", APP_URL, "short_name must be 3-30 characters of A-Z, a-z, 0-9 and _"),
        ("table", "ftp://x/", "url must be an http(s) URL"),
    ):
        with pytest.raises(SandboxError) as refused:
            await sb.register_miniapp(short_name, url)
        assert (refused.value.status, refused.value.message) == (400, error)


async def test_apps_outlive_a_reset_and_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.json"
    first = await start_sandbox("127.0.0.1", 0, path)
    async with SandboxClient(first.url) as sb:
        await sb.register_miniapp("table", APP_URL, TOKEN, title="Banco table")
        await sb.reset()  # the world's people go; the bot's BotFather setup stays
        assert [a["short_name"] for a in await sb.miniapps()] == ["table"]
    await first.stop()
    second = await start_sandbox("127.0.0.1", 0, path)
    try:
        async with SandboxClient(second.url) as sb:
            assert await sb.miniapps() == [
                {"short_name": "table", "url": APP_URL, "title": "Banco table",
                 "link": "https://t.me/banco_bot/table", "has_token": True}]
            await sb.add_user(BOB, "Bob")
            opened = await sb.open_miniapp(BOB, link=LINK)  # the saved token signs
            init_data_py.validate_by_hash(opened["init_data"], TOKEN)
    finally:
        await second.stop()


# --- opening --------------------------------------------------------------------------------


async def test_a_direct_link_in_a_group_opens_the_app_with_the_groups_context(
    sb: SandboxClient, bot: PtbBot
) -> None:
    await sb.register_miniapp("table", APP_URL)  # no token: the bot's calls gave it
    sent = await bot.send_message(GROUP, "Table", reply_markup=InlineKeyboardMarkup(
        [[InlineKeyboardButton("🃏 Open table", url=LINK)]]))
    assert sent.reply_markup is not None
    link = sent.reply_markup.inline_keyboard[0][0].url
    assert link == LINK
    before = int(time.time())
    opened = await sb.open_miniapp(BOB, link=link, chat_id=GROUP)

    init_data = opened["init_data"]
    checked = init_data_py.validate_by_hash(init_data, TOKEN)
    fields = pairs(init_data)
    assert sorted(fields) == ["auth_date", "chat_instance", "chat_type", "hash",
                              "start_param", "user"]
    assert fields["user"] == BOB_JSON
    assert fields["start_param"] == "-100_abc"
    assert fields["chat_type"] == "supergroup"
    assert before <= int(fields["auth_date"]) <= int(time.time())
    assert checked.user is not None and checked.user.first_name == "Bob"
    instance = fields["chat_instance"]
    assert instance.isdigit() and instance not in (str(GROUP), str(-GROUP))

    address, launch_params = launch(opened["url"])
    assert address == APP_URL + "?tgWebAppStartParam=-100_abc"
    assert list(launch_params) == LAUNCH_KEYS
    assert launch_params["tgWebAppData"] == init_data  # decoded once, it is the raw initData
    assert launch_params["tgWebAppVersion"] == "10.2"
    assert launch_params["tgWebAppPlatform"] == "web"
    assert json.loads(launch_params["tgWebAppThemeParams"]) == THEMES["light"]
    assert THEMES["light"]["bg_color"] == "#ffffff"
    assert opened["theme_params"] == THEMES["light"]
    assert opened["app"]["short_name"] == "table"

    # the same chat gives the same chat_instance; another chat another; a plain group says so
    again = pairs((await sb.open_miniapp(ANN, link=link, chat_id=GROUP))["init_data"])
    assert again["chat_instance"] == instance
    small = pairs((await sb.open_miniapp(BOB, link=link, chat_id=SMALL))["init_data"])
    assert small["chat_type"] == "group"
    assert small["chat_instance"] not in (instance, str(SMALL))


async def test_a_web_app_button_in_a_private_chat_gives_a_query_id_and_no_start_param(
    sb: SandboxClient, bot: PtbBot
) -> None:
    url = APP_URL + "?table=-100_abc"
    sent = await bot.send_message(BOB, "Your seat", reply_markup=InlineKeyboardMarkup(
        [[InlineKeyboardButton("🃏 Open table", web_app=WebAppInfo(url))]]))
    assert sent.reply_markup is not None
    web_app = sent.reply_markup.inline_keyboard[0][0].web_app
    assert web_app is not None and web_app.url == url
    opened = await sb.open_miniapp(BOB, url=url, theme="dark")

    init_data = opened["init_data"]
    init_data_py.validate_by_hash(init_data, TOKEN)
    fields = pairs(init_data)
    assert sorted(fields) == ["auth_date", "hash", "query_id", "user"]
    assert fields["user"] == BOB_JSON
    assert len(fields["query_id"]) == 24
    address, launch_params = launch(opened["url"])
    assert address == url
    assert list(launch_params) == LAUNCH_KEYS
    assert launch_params["tgWebAppData"] == init_data
    assert json.loads(launch_params["tgWebAppThemeParams"]) == THEMES["dark"]
    assert THEMES["dark"]["bg_color"] == "#212121"
    assert opened["app"] is None  # a web_app button's URL need not be a registered app
    # each press is a new query
    assert pairs((await sb.open_miniapp(BOB, url=url))["init_data"])["query_id"] != (
        fields["query_id"])


async def test_the_token_is_the_bots_once_it_has_called(
    sb: SandboxClient, sandbox: SandboxHandle
) -> None:
    await sb.register_miniapp("table", APP_URL, "999:GIVEN")
    opened = await sb.open_miniapp(BOB, link=LINK, chat_id=GROUP)
    init_data_py.validate_by_hash(opened["init_data"], "999:GIVEN")
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/bot{TOKEN}") as raw:
        assert (await raw.post("/getMe")).json()["ok"]
    opened = await sb.open_miniapp(BOB, link=LINK, chat_id=GROUP)
    init_data_py.validate_by_hash(opened["init_data"], TOKEN)
    with pytest.raises(HashInvalidError):
        init_data_py.validate_by_hash(opened["init_data"], "999:GIVEN")


async def test_refusals_say_why(sb: SandboxClient) -> None:
    await sb.register_miniapp("table", APP_URL)
    cases = [
        # no Bot API call yet and no token given
        ({"link": LINK, "chat_id": GROUP}, 409,
         "no bot token to sign initData with: the bot has not called the Bot API yet and the "
         'app was registered without one (POST /sandbox/miniapp {..., "token": ...})'),
        ({"url": APP_URL}, 409,
         "no bot token to sign initData with: the bot has not called the Bot API yet and the "
         'app was registered without one (POST /sandbox/miniapp {..., "token": ...})'),
    ]
    for kwargs, status, error in cases:
        with pytest.raises(SandboxError) as refused:
            await sb.open_miniapp(BOB, **kwargs)  # type: ignore[arg-type]
        assert (refused.value.status, refused.value.message) == (status, error)

    await sb.register_miniapp("table", APP_URL, TOKEN)
    cases = [
        ({"link": "https://t.me/banco_bot/nope?startapp=x", "chat_id": GROUP}, 404,
         "@banco_bot has no Mini App 'nope' (register it: POST /sandbox/miniapp)"),
        ({"link": "https://t.me/other_bot/table?startapp=x", "chat_id": GROUP}, 404,
         "the link is to @other_bot's app, not to this bot's (@banco_bot)"),
        ({"link": "https://example.org/table", "chat_id": GROUP}, 400,
         "not a direct link to a Mini App (https://t.me/<bot>/<app>?startapp=...): "
         "'https://example.org/table'"),
        ({"link": "https://t.me/banco_bot/table?startapp=a%20b"}, 400,
         "startapp must be 1-512 characters of A-Z, a-z, 0-9, _ and -"),
        ({"url": APP_URL, "chat_id": GROUP}, 400,
         "a web_app button is in private chats only (Telegram refuses one in a group: "
         "BUTTON_TYPE_INVALID)"),
        ({"url": APP_URL, "chat_id": ANN}, 400, "user 2 is not in the private chat 1"),
        ({}, 400, "give either link (a direct link t.me/<bot>/<app>?startapp=) or url "
                  "(a web_app button's)"),
        ({"link": LINK, "theme": "sepia"}, 400, "theme must be light or dark"),
        ({"link": LINK, "chat_id": -555}, 404, "chat -555 not found"),
    ]
    for kwargs, status, error in cases:
        with pytest.raises(SandboxError) as refused:
            await sb.open_miniapp(BOB, **kwargs)  # type: ignore[arg-type]
        assert (refused.value.status, refused.value.message) == (status, error)
    await sb.add_chat(-9, "Elsewhere", "supergroup", members=[ANN], admins=[ANN])
    with pytest.raises(SandboxError) as refused:
        await sb.open_miniapp(BOB, link=LINK, chat_id=-9)
    assert (refused.value.status, refused.value.message) == (400, "user 2 is not in chat -9")
    with pytest.raises(SandboxError) as refused:
        await sb.open_miniapp(77, link=LINK)
    assert (refused.value.status, refused.value.message) == (404, "user 77 not found")


# --- the Bot API's buttons --------------------------------------------------------------------


async def test_a_web_app_button_is_refused_in_groups_and_taken_in_private(
    sb: SandboxClient, bot: PtbBot, sandbox: SandboxHandle
) -> None:
    web_app = InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo(APP_URL))]])
    link = InlineKeyboardMarkup([[InlineKeyboardButton("Open", url=LINK)]])
    for chat_id in (GROUP, SMALL):
        with pytest.raises(BadRequest, match=r"^Button_type_invalid$"):
            await bot.send_message(chat_id, "Table", reply_markup=web_app)
        table = await bot.send_message(chat_id, "Table", reply_markup=link)
        with pytest.raises(BadRequest, match=r"^Button_type_invalid$"):
            await bot.edit_message_reply_markup(chat_id, table.message_id, reply_markup=web_app)
        with pytest.raises(BadRequest, match=r"^Button_type_invalid$"):
            await bot.edit_message_text("Table!", chat_id, table.message_id, reply_markup=web_app)
    async with httpx.AsyncClient(base_url=f"{sandbox.url}/bot{TOKEN}") as raw:
        answer = await raw.post("/sendMessage", json={
            "chat_id": GROUP, "text": "Table",
            "reply_markup": {"inline_keyboard": [[{"text": "Open", "web_app": {"url": APP_URL}}]]},
        })
    assert (answer.status_code, answer.json()) == (400, {
        "ok": False, "error_code": 400, "description": "Bad Request: BUTTON_TYPE_INVALID"})

    mine = await bot.send_message(BOB, "Your seat", reply_markup=web_app)
    assert mine.reply_markup == web_app
    both = InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo(APP_URL)),
                                  InlineKeyboardButton("Link", url=LINK)]])
    await bot.edit_message_reply_markup(BOB, mine.message_id, reply_markup=both)
    stored = await sb.last_bot_message(BOB)
    assert stored is not None and stored["reply_markup"] == {"inline_keyboard": [[
        {"text": "Open", "web_app": {"url": APP_URL}}, {"text": "Link", "url": LINK}]]}
    group = await sb.bot_messages(GROUP)
    assert [m["reply_markup"] for m in group] == [
        {"inline_keyboard": [[{"text": "Open", "url": LINK}]]}]


async def test_the_fake_script_is_served(sandbox: SandboxHandle) -> None:
    async with httpx.AsyncClient(base_url=sandbox.url) as http:
        answer = await http.get("/js/telegram-web-app.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/javascript")
    assert "stand-in for Telegram's telegram-web-app.js" in answer.text
    assert urlsplit(sandbox.url).scheme == "http"


# --- `python -m bot` without a token ----------------------------------------------------------


def local_settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name in ("WEBAPP_URL", "WEBAPP_SHORT_NAME", "WEBAPP_LISTEN", "WEBAPP_PORT",
                 "WEBAPP_SDK_URL", "SANDBOX_HOST", "SANDBOX_PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings(_env_file=None)  # type: ignore[call-arg]


def test_a_local_run_serves_the_app_next_to_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = local_webapp(local_settings(monkeypatch), "http://127.0.0.1:8081")
    assert (settings.webapp_url, settings.webapp_short_name, settings.webapp_sdk_url,
            settings.webapp_listen, settings.webapp_on) == (
        "http://127.0.0.1:8088/app/", "table", "http://127.0.0.1:8081/js/telegram-web-app.js",
        "127.0.0.1", True)
    # in a container the sandbox listens everywhere, and so does the app; a browser on the
    # machine reaches both at 127.0.0.1
    settings = local_webapp(local_settings(monkeypatch, SANDBOX_HOST="0.0.0.0",
                                           WEBAPP_PORT="9000"), "http://0.0.0.0:8081")
    assert (settings.webapp_url, settings.webapp_sdk_url, settings.webapp_listen) == (
        "http://127.0.0.1:9000/app/", "http://127.0.0.1:8081/js/telegram-web-app.js", "0.0.0.0")
    settings = local_webapp(local_settings(monkeypatch, SANDBOX_HOST="0.0.0.0",
                                           WEBAPP_LISTEN="127.0.0.1"), "http://0.0.0.0:8081")
    assert settings.webapp_listen == "127.0.0.1"
    # an app set up by hand is left as it is
    mine = local_settings(monkeypatch, WEBAPP_URL="https://example.org/app/",
                          WEBAPP_SHORT_NAME="mytable")
    assert local_webapp(mine, "http://127.0.0.1:8081") == mine


def test_a_local_run_registers_the_app_with_the_sandbox(tmp_path: Path) -> None:
    url = start_sandbox_thread("127.0.0.1", 0, tmp_path / "sandbox.json", {
        "short_name": "table", "url": APP_URL, "title": "Banco table", "token": SANDBOX_TOKEN})
    with httpx.Client(base_url=url) as http:
        assert http.get("/sandbox/miniapp").json() == [
            {"short_name": "table", "url": APP_URL, "title": "Banco table",
             "link": "https://t.me/banco_bot/table", "has_token": True}]
        assert http.post("/sandbox/users", json={"id": BOB, "first_name": "Bob"}).is_success
        opened = http.post("/sandbox/miniapp/open", json={"user_id": BOB, "link": LINK}).json()
    init_data_py.validate_by_hash(opened["init_data"], SANDBOX_TOKEN)

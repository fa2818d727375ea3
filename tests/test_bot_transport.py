"""The aiohttp request class under PTB's Bot, the lean raw calls and the answers to presses,
against a real local HTTP server.

Each test starts an aiohttp web server on 127.0.0.1 that answers like the Bot API
(or misbehaves like it can), and talks to it through ``telegram.Bot`` with
``AiohttpRequest``: what the bot sees is PTB's own exceptions and objects.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from prometheus_client import REGISTRY
from telegram import Bot, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, User
from telegram.error import (
    BadRequest,
    EndPointNotFound,
    Forbidden,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import ExtBot

from bot.gateway import buttons
from bot.gateway.transport import AiohttpRequest, LeanBot, api_request, encoded, updates_request
from bot.ops import metrics
from bot.outbox.ratelimit import GroupWindowLimiter, retry_seconds

TOKEN = "123:abc"
ME = {"id": 123, "is_bot": True, "first_name": "Banco", "username": "banco_bot"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Server:
    """A fake Bot API: ``routes[method]`` answers; records every call and its connection."""

    def __init__(self) -> None:
        self.routes: dict[str, Handler] = {"getMe": self.ok(ME)}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.bodies: list[bytes] = []
        self.peers: list[tuple[str, int]] = []
        self.transports: list[asyncio.BaseTransport] = []
        self.url = ""

    @staticmethod
    def ok(result: Any) -> Handler:
        async def answer(request: web.Request) -> web.StreamResponse:
            return web.json_response({"ok": True, "result": result})
        return answer

    @staticmethod
    def refusing(code: int, description: str, **parameters: Any) -> Handler:
        """Answers every call with this error (and these ``parameters``)."""
        async def answer(request: web.Request) -> web.StreamResponse:
            return web.json_response(refusal(code, description, **parameters), status=code)
        return answer

    async def handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        if request.content_type == "application/json":
            self.bodies.append(await request.read())
            self.calls.append((method, await request.json()))
        else:
            self.calls.append((method, dict(await request.post())))
        self.peers.append(request.transport.get_extra_info("peername"))  # type: ignore[union-attr]
        if request.transport not in self.transports:
            self.transports.append(request.transport)  # type: ignore[arg-type]
        return await self.routes[method](request)


def refusal(code: int, description: str, **parameters: Any) -> dict[str, Any]:
    """The Bot API's body of an error."""
    return {"ok": False, "error_code": code, "description": description,
            **({"parameters": parameters} if parameters else {})}


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", srv.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    srv.url = f"http://127.0.0.1:{port}/bot"
    yield srv
    await runner.cleanup()


def make_bot(url: str, **timeouts: float) -> Bot:
    return Bot(TOKEN, base_url=url, request=AiohttpRequest(**timeouts),
               get_updates_request=AiohttpRequest(connection_pool_size=1))


async def test_a_call_returns_what_the_api_answered(server: Server) -> None:
    async with make_bot(server.url) as bot:
        server.routes["sendMessage"] = server.ok(
            {"message_id": 7, "date": 0, "chat": {"id": -5, "type": "group", "title": "T"},
             "text": "hello"})
        message = await bot.send_message(-5, "hello",
                                         reply_markup={"inline_keyboard": [[{
                                             "text": "A", "callback_data": "a|1"}]]})
    assert message.message_id == 7 and message.text == "hello"
    assert bot.username == "banco_bot"
    # the parameters of PTB's default request class: each value JSON-encoded
    assert server.calls[-1] == ("sendMessage", {
        "chat_id": "-5", "text": "hello",
        "reply_markup": '{"inline_keyboard": [[{"text": "A", "callback_data": "a|1"}]]}'})


async def test_an_answer_slower_than_the_read_timeout_is_timed_out_on_time(
        server: Server) -> None:
    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(3)
        return web.json_response({"ok": True, "result": True})

    server.routes["answerCallbackQuery"] = slow
    async with make_bot(server.url, read_timeout=0.4) as bot:
        t0 = time.monotonic()
        with pytest.raises(TimedOut) as caught:
            await bot.answer_callback_query("1")
        waited = time.monotonic() - t0
        assert 0.4 <= waited < 1.0
        assert caught.value.message == "Timed out"
    # a per-call read timeout overrides the default: 0.1 s against a default of 5 s (the
    # answer takes 3 s), so the call ends long before either would, however busy the machine
    async with make_bot(server.url, read_timeout=5.0) as bot:
        t0 = time.monotonic()
        with pytest.raises(TimedOut):
            await bot.answer_callback_query("1", read_timeout=0.1)
        assert 0.1 <= time.monotonic() - t0 < 2.0


async def test_a_refused_connection_is_a_network_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # nothing listens on the port any more
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as caught:
            await request.post(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe")
        assert not isinstance(caught.value, TimedOut)
        assert "aiohttp.ClientConnectorError" in caught.value.message
    finally:
        await request.shutdown()


async def test_a_429_is_retry_after_and_a_403_is_forbidden(server: Server) -> None:
    server.routes["editMessageText"] = server.refusing(
        429, "Too Many Requests: retry after 3", retry_after=3)
    server.routes["sendMessage"] = server.refusing(403, "Forbidden: bot was blocked by the user")
    async with make_bot(server.url) as bot:
        with pytest.raises(RetryAfter) as retry:
            await bot.edit_message_text("x", chat_id=-5, message_id=1)
        wait = retry.value.retry_after  # an int, or a timedelta with PTB_TIMEDELTA set
        assert (wait if isinstance(wait, int) else wait.total_seconds()) == 3
        with pytest.raises(Forbidden) as forbidden:
            await bot.send_message(42, "your cards")
        assert forbidden.value.message == "Forbidden: bot was blocked by the user"


async def test_a_file_goes_up_as_multipart(server: Server) -> None:
    received: dict[str, Any] = {}

    async def document(request: web.Request) -> web.StreamResponse:
        form = await request.post()
        field = form["document"]
        assert isinstance(field, web.FileField)
        received.update(name=field.filename, type=field.content_type, body=field.file.read(),
                        chat=form["chat_id"], caption=form["caption"])
        return web.json_response({"ok": True, "result": {
            "message_id": 3, "date": 0, "chat": {"id": 42, "type": "private"},
            "document": {"file_id": "f", "file_unique_id": "u", "file_name": field.filename}}})

    server.routes["sendDocument"] = document
    async with make_bot(server.url) as bot:
        message = await bot.send_document(42, b"shoe,order\n" * 1000, filename="shoe.csv",
                                          caption="The shoe")
    assert message.document is not None and message.document.file_name == "shoe.csv"
    assert received == {"name": "shoe.csv", "type": "text/csv",
                        "body": b"shoe,order\n" * 1000, "chat": "42", "caption": "The shoe"}


async def test_many_calls_share_one_connection(server: Server) -> None:
    async with make_bot(server.url) as bot:
        for _ in range(20):
            await bot.get_me()
    assert len(server.peers) == 21  # initialize's getMe too
    assert len(set(server.peers)) == 1


async def test_a_call_finding_every_connection_busy_times_out_unsent(server: Server) -> None:
    release = asyncio.Event()

    async def held(request: web.Request) -> web.StreamResponse:
        await release.wait()
        return web.json_response({"ok": True, "result": True})

    server.routes["answerCallbackQuery"] = held
    request = AiohttpRequest(connection_pool_size=1, pool_timeout=0.2)
    async with Bot(TOKEN, base_url=server.url, request=request) as bot:
        first = asyncio.create_task(bot.answer_callback_query("1"))
        await asyncio.sleep(0.1)
        calls = len(server.calls)
        with pytest.raises(TimedOut) as caught:
            await bot.answer_callback_query("2")
        assert caught.value.message.startswith("Pool timeout")
        assert len(server.calls) == calls  # the second was never sent
        release.set()
        assert await first is True


async def test_a_body_the_peer_does_not_read_hits_the_write_timeout() -> None:
    # a server that accepts and never reads: the upload fills the socket buffers and stalls
    connections: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)

    mute = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = mute.sockets[0].getsockname()[1]
    try:
        bot = Bot(TOKEN, base_url=f"http://127.0.0.1:{port}/bot",
                  request=AiohttpRequest(media_write_timeout=0.5))
        await bot.request.initialize()  # no getMe: the server never answers
        try:
            t0 = time.monotonic()
            with pytest.raises(TimedOut):
                await bot.send_document(42, b"\0" * (64 << 20), filename="big.bin")
            assert 0.5 <= time.monotonic() - t0 < 2.0
        finally:
            await bot.request.shutdown()
    finally:
        for writer in connections:
            writer.close()
        mute.close()
        await mute.wait_closed()


async def test_shutdown_closes_the_session_and_its_connection(server: Server) -> None:
    bot = make_bot(server.url)
    await bot.initialize()
    await bot.get_me()
    request = bot.request
    assert isinstance(request, AiohttpRequest) and request.session is not None
    await bot.shutdown()
    assert request.session is None
    # as with PTB's HTTPXRequest: a RuntimeError inside, a NetworkError out of post()
    with pytest.raises(NetworkError, match="AiohttpRequest is not initialized"):
        await request.post(f"{server.url}{TOKEN}/getMe")
    # the server sees its end of the kept-alive connection close
    for _ in range(50):
        if all(t.is_closing() for t in server.transports):
            break
        await asyncio.sleep(0.02)
    assert server.transports and all(t.is_closing() for t in server.transports)
    # and the request class opens again, as PTB's does after a restart
    await bot.initialize()
    assert (await bot.get_me()).username == "banco_bot"
    await bot.shutdown()


async def test_the_transport_setting_picks_the_request_class() -> None:
    assert isinstance(api_request("aiohttp"), AiohttpRequest)
    assert type(api_request("httpx")).__name__ == "HTTPXRequest"
    assert updates_request("aiohttp").read_timeout == 5.0
    with pytest.raises(ValueError, match="TRANSPORT"):
        api_request("urllib")


def bots(url: str, max_retries: int = 0) -> tuple[LeanBot, ExtBot[Any]]:
    """The lean bot and PTB's own, each with a rate limiter of 20 messages per group."""
    made = tuple(kind(TOKEN, base_url=url, request=AiohttpRequest(),
                      get_updates_request=AiohttpRequest(connection_pool_size=1),
                      rate_limiter=GroupWindowLimiter(20, max_retries=max_retries))
                 for kind in (LeanBot, ExtBot))
    return made  # type: ignore[return-value]


MESSAGE = {"message_id": 7, "date": 0, "chat": {"id": -5, "type": "group", "title": "T"},
           "text": "Stake — 10 ♠"}


async def test_a_raw_call_sends_what_ptb_sends_and_returns_the_plain_answer(
        server: Server) -> None:
    server.routes["sendMessage"] = server.ok(MESSAGE)
    lean, ptb = bots(server.url)
    params = {"chat_id": -5, "text": "Stake — 10 ♠", "parse_mode": "HTML",
              "reply_markup": '{"inline_keyboard":[]}', "disable_notification": True,
              "message_thread_id": None}
    async with lean, ptb:
        assert await lean.do_api_request("sendMessage", params) == MESSAGE
        assert await ptb.do_api_request("sendMessage", params) == MESSAGE
        # the same bytes: each value a string (a number or a flag as its JSON), ASCII JSON
        assert server.bodies[-2] == server.bodies[-1] == (
            b'{"chat_id": "-5", "text": "Stake \\u2014 10 \\u2660", "parse_mode": "HTML", '
            b'"reply_markup": "{\\"inline_keyboard\\":[]}", "disable_notification": "true"}')
        # through the rate limiter: the group's window holds it
        assert isinstance(lean.rate_limiter, GroupWindowLimiter)
        assert lean.rate_limiter.spare(-5) == 19
        # a press's answer: the bare true, never a group's message
        server.routes["answerCallbackQuery"] = server.ok(True)
        assert await lean.do_api_request("answerCallbackQuery", {
            "callback_query_id": "q1", "text": "Done", "show_alert": False}) is True
        assert server.bodies[-1] == (
            b'{"callback_query_id": "q1", "text": "Done", "show_alert": "false"}')
        assert lean.rate_limiter.spare(-5) == 19


async def test_a_raw_call_is_refused_as_ptb_refuses_it(server: Server) -> None:
    server.routes.update(
        editMessageText=server.refusing(400, "Bad Request: message is not modified"),
        sendMessage=server.refusing(429, "Too Many Requests: retry after 3", retry_after=3),
        sendNothing=server.refusing(404, "Not Found"))
    lean, ptb = bots(server.url)
    async with lean, ptb:
        for bot in (lean, ptb):
            with pytest.raises(BadRequest) as bad:
                await bot.do_api_request("editMessageText",
                                         {"chat_id": -5, "message_id": 1, "text": "x"})
            assert bad.value.message == "Message is not modified"  # (PTB's wording of it)
            with pytest.raises(RetryAfter) as retry:
                await bot.do_api_request("sendMessage", {"chat_id": -5, "text": "x"})
            assert retry_seconds(retry.value) == 3.0
            with pytest.raises(EndPointNotFound) as missing:
                await bot.do_api_request("sendNothing", {"chat_id": -5})
            assert missing.value.message == "Endpoint 'sendNothing' not found in Bot API"
        assert server.calls[-3:] == server.calls[-6:-3]


async def test_a_value_ptb_must_convert_goes_ptb_s_own_way(server: Server) -> None:
    server.routes["sendMessage"] = server.ok(MESSAGE)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="a|1")]])
    params = {"chat_id": -5, "text": "x", "reply_markup": keyboard}
    assert encoded(params) is None
    lean, ptb = bots(server.url)
    async with lean, ptb:
        assert await lean.do_api_request("sendMessage", params) == MESSAGE
        assert await ptb.do_api_request("sendMessage", params) == MESSAGE
    assert server.bodies[-2] == server.bodies[-1]
    assert server.calls[-1] == ("sendMessage", {
        "chat_id": "-5", "text": "x",
        "reply_markup": '{"inline_keyboard": [[{"callback_data": "a|1", "text": "A"}]]}'})


def test_plain_values_are_encoded_as_ptb_encodes_them() -> None:
    assert encoded({"a": 1, "b": None, "c": "é", "d": 1.5, "e": False, "f": ""}) == (
        b'{"a": "1", "c": "\\u00e9", "d": "1.5", "e": "false", "f": ""}')
    assert encoded({}) == b"{}"
    for value in ([1], {"k": 1}, (1,), b"x"):
        assert encoded({"a": 1, "b": value}) is None


def pressed(bot: Bot, query_id: str = "q1") -> CallbackQuery:
    """A press the bot got."""
    query = CallbackQuery(query_id, User(1, "Ann", False), chat_instance="c")
    query.set_bot(bot)
    return query


def answers_sent() -> float:
    value = REGISTRY.get_sample_value("banco_messages_total", {"kind": metrics.ANSWER})
    return value or 0.0


async def test_a_press_is_answered_by_the_raw_call_and_counted(server: Server) -> None:
    server.routes["answerCallbackQuery"] = server.ok(True)
    lean, _ = bots(server.url)
    before = answers_sent()
    async with lean:
        assert await buttons.answer(pressed(lean), "<b>Done</b> ✓", alert=True) is True
    assert server.bodies[-1] == (
        b'{"callback_query_id": "q1", "text": "Done \\u2713", "show_alert": "true"}')
    assert answers_sent() == before + 1


async def test_an_answer_of_unknown_fate_is_sent_again_and_a_refused_one_is_not(
        server: Server) -> None:
    replies = [web.json_response(refusal(502, "Bad Gateway"), status=502),
               web.json_response({"ok": True, "result": True}),
               web.json_response(refusal(400, "Bad Request: query is too old"), status=400)]

    async def answer(request: web.Request) -> web.StreamResponse:
        return replies.pop(0)

    server.routes["answerCallbackQuery"] = answer
    lean, _ = bots(server.url)
    before = answers_sent()
    async with lean:
        t0 = time.monotonic()
        assert await buttons.answer(pressed(lean), "Done") is True
        assert time.monotonic() - t0 >= buttons.ANSWER_BACKOFF  # the pause before the retry
        assert await buttons.answer(pressed(lean, "q2"), "Done") is False
    assert [body["callback_query_id"] for method, body in server.calls
            if method == "answerCallbackQuery"] == ["q1", "q1", "q2"]
    assert answers_sent() == before + 1


async def test_an_answer_waits_no_longer_than_its_read_timeout(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(3)
        return web.json_response({"ok": True, "result": True})

    server.routes["answerCallbackQuery"] = slow
    # 0.2 s to read, and no time left for another try (8 s and 5 s in production)
    monkeypatch.setattr(buttons, "ANSWER_READ", 0.2)
    monkeypatch.setattr(buttons, "ANSWER_WITHIN", 0.6)
    lean, _ = bots(server.url)
    async with lean:
        t0 = time.monotonic()
        assert await buttons.answer(pressed(lean), "Done") is False
        assert 0.2 <= time.monotonic() - t0 < 2.0
    assert [method for method, _ in server.calls].count("answerCallbackQuery") == 1


async def test_ptb_s_own_methods_go_the_lean_way_with_the_same_body_and_answer(
        server: Server) -> None:
    server.routes["sendMessage"] = server.ok(MESSAGE)
    lean, ptb = bots(server.url)
    async with lean, ptb:
        sent = [await bot.send_message(-5, "Stake — 10 ♠", parse_mode="HTML",
                                       disable_notification=True) for bot in (lean, ptb)]
    assert sent[0] == sent[1] and sent[0].to_dict() == sent[1].to_dict()
    assert sent[0].text == "Stake — 10 ♠" and sent[0].get_bot() is lean
    assert server.bodies[-2] == server.bodies[-1] == (
        b'{"chat_id": "-5", "text": "Stake \\u2014 10 \\u2660", "disable_notification": "true", '
        b'"parse_mode": "HTML"}')


async def test_a_call_s_own_retries_reach_the_rate_limiter_not_the_api(server: Server) -> None:
    server.routes["sendMessage"] = server.refusing(
        429, "Too Many Requests: retry after 1", retry_after=1)
    lean, _ = bots(server.url)  # (its limiter retries no 429 by default)
    async with lean:
        with pytest.raises(RetryAfter):
            await lean.send_message(-5, "x", rate_limit_args=1)
    # tried twice (the call's one retry), and the retries never sent as a parameter
    assert server.calls == [("getMe", {}), ("sendMessage", {"chat_id": "-5", "text": "x"}),
                            ("sendMessage", {"chat_id": "-5", "text": "x"})]

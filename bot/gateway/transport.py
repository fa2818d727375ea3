"""The HTTP client under python-telegram-bot: aiohttp by default, PTB's httpx on request.

PTB's default ``HTTPXRequest`` costs most of the bot's CPU per button press: httpx and
h11 are pure Python per byte of header, httpcore scans its whole pool (256 connections by
default) on every request, and it retries ``import sniffio`` (absent) on every call to
learn the async library. aiohttp parses HTTP in C and keeps idle connections in a
per-host deque. ``AiohttpRequest`` plugs it in through PTB's own extension point
(``telegram.request.BaseRequest``) with the contract ``HTTPXRequest`` keeps:

* every timeout is honoured per call, ``DEFAULT_NONE`` meaning this instance's default:
  pool (waiting for a free connection), connect, write (sending the request body) and
  read (silence while waiting for or reading the answer);
* a timeout raises ``TimedOut``, any other transport failure ``NetworkError``, and the
  status code and body are returned as they are, so PTB's ``BaseRequest.post`` still
  raises ``RetryAfter``, ``Forbidden``, ``BadRequest``... from them;
* the parameters are ``HTTPXRequest``'s (each value JSON-encoded, as the Bot API wants
  it), sent as one JSON object rather than a form: ``urlencode`` quoting every
  character of a long table text in Python cost more than the rest of the request;
  ``json.dumps`` does it in C. With files: a multipart form, as ``HTTPXRequest`` sends.

``TRANSPORT=httpx`` keeps PTB's default ``HTTPXRequest`` (the bench compares the two).

:class:`LeanBot` makes the calls whose parameters are plain values (the courier's, the
answers to presses, getUpdates) without PTB's per-parameter encoding: they are encoded
once into the body PTB would have sent, then posted under the same rate limiter and read
with the same errors.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any, cast

import aiohttp
from aiohttp import payload
from telegram import TelegramObject
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import EndPointNotFound, InvalidToken, NetworkError, TimedOut
from telegram.ext import ExtBot
from telegram.request import BaseRequest, HTTPXRequest, RequestData

TRANSPORTS = ("aiohttp", "httpx")
POOL_TIMEOUT_MESSAGE = ("Pool timeout: All connections in the connection pool are occupied. "
                        "Request was *not* sent to Telegram. Consider adjusting the connection "
                        "pool size or the pool timeout.")
JSON = "application/json"
# A body this small goes to the transport's buffer at once (its high-water mark is 64 KiB):
# writing it cannot stall, so it needs no write deadline (the read timeout follows it).
SOCKET_BUFFERED = 64 * 1024


class _WriteDeadline(payload.Payload):
    """A request body that must be sent within ``seconds``.

    aiohttp has connect and read timeouts but none for writing the body (its read timer
    starts once the body is out); wrapping the body is the one place a write can be
    bounded without touching aiohttp's internals. A timeout here surfaces from the
    request as ``TimeoutError``.
    """

    def __init__(self, inner: payload.Payload, seconds: float) -> None:
        super().__init__(inner, headers=inner.headers)
        self._inner = inner
        self._seconds = seconds
        self._size = inner.size
        self._autoclose = inner.autoclose

    async def write(self, writer: Any) -> None:
        """Write the whole body, within the deadline."""
        async with asyncio.timeout(self._seconds):
            await self._inner.write(writer)

    async def write_with_length(self, writer: Any, content_length: int | None) -> None:
        """Write at most ``content_length`` bytes of the body, within the deadline."""
        async with asyncio.timeout(self._seconds):
            await self._inner.write_with_length(writer, content_length)

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        """The body as text (aiohttp calls this only for debugging output)."""
        return self._inner.decode(encoding, errors)

    async def as_bytes(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        """The body as bytes."""
        return await self._inner.as_bytes(encoding, errors)

    async def close(self) -> None:
        """Release the wrapped body (an open upload file)."""
        await self._inner.close()


class AiohttpRequest(BaseRequest):
    """``BaseRequest`` on one ``aiohttp.ClientSession``; the session opens in ``initialize``.

    ``connection_pool_size`` connections at most; a call that finds them all busy waits
    ``pool_timeout`` for one, then raises ``TimedOut`` without sending anything, as
    ``HTTPXRequest`` does. Defaults are ``HTTPXRequest``'s.
    """

    __slots__ = ("_connect_timeout", "_media_write_timeout", "_pool", "_pool_timeout",
                 "_read_timeout", "_session", "_size", "_timeouts", "_write_timeout")

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        if connection_pool_size < 1:
            raise ValueError("connection_pool_size must be at least 1")
        self._size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        # our own pool limit (the connector is unlimited) so that waiting for a connection
        # has its own timeout, apart from connecting
        self._pool = asyncio.Semaphore(connection_pool_size)
        # one ClientTimeout per (connect, read) pair in use: a handful, built once each
        self._timeouts: dict[tuple[float | None, float | None], aiohttp.ClientTimeout] = {}

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout in seconds (PTB adds a long poll's duration to it)."""
        return self._read_timeout

    @property
    def session(self) -> aiohttp.ClientSession | None:
        """The open session, None before ``initialize`` and after ``shutdown``."""
        return self._session if self._session is not None and not self._session.closed else None

    async def initialize(self) -> None:
        """Open the session (again, after a shutdown)."""
        if self.session is not None:
            return
        connector = aiohttp.TCPConnector(
            limit=0,  # the semaphore limits
            # timers fire when due: aiohttp would round timeouts of 5 s and more up to the
            # next whole second, which stretches a 5-s read timeout to up to 6 s
            timeout_ceil_threshold=float("inf"),
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": self.USER_AGENT},
            cookie_jar=aiohttp.DummyCookieJar(),  # the Bot API sets none
            timeout=aiohttp.ClientTimeout(total=None),
            raise_for_status=False,  # PTB turns the status code into the right error
        )

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _timeout(self, connect: float | None, read: float | None) -> aiohttp.ClientTimeout:
        key = (connect, read)
        timeout = self._timeouts.get(key)
        if timeout is None:
            if len(self._timeouts) > 64:
                self._timeouts.clear()
            timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=connect,
                                            sock_read=read, ceil_threshold=float("inf"))
            self._timeouts[key] = timeout
        return timeout

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Send one request; (status code, body). See ``BaseRequest.do_request``."""
        session = self.session
        if session is None:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data is not None else None
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = (self._connect_timeout if isinstance(connect_timeout, DefaultValue)
                   else connect_timeout)
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        write = write_timeout
        if isinstance(write, DefaultValue):
            write = self._media_write_timeout if files else self._write_timeout

        body: payload.Payload | None = None
        if request_data is not None:
            if files:
                form = aiohttp.FormData(request_data.json_parameters)
                for name, (filename, content, mimetype) in files.items():
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                body = form()
            else:
                body = payload.BytesPayload(request_data.json_payload, content_type=JSON)
            if write is not None and (body.size is None or body.size > SOCKET_BUFFERED):
                body = _WriteDeadline(body, write)

        if self._pool.locked():
            try:
                async with asyncio.timeout(pool):
                    await self._pool.acquire()
            except TimeoutError as exc:
                raise TimedOut(POOL_TIMEOUT_MESSAGE) from exc
        else:
            await self._pool.acquire()  # a free slot: returns without suspending
        try:
            async with session.request(method, url, data=body,
                                       timeout=self._timeout(connect, read)) as response:
                return response.status, await response.read()
        except TimeoutError as exc:
            # connect (ConnectionTimeoutError), read (SocketTimeoutError) or our write
            # deadline; like HTTPXRequest, the plain "Timed out"
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{exc.__class__.__name__}: {exc}") from exc
        finally:
            self._pool.release()


class Encoded:
    """A request's parameters as the JSON body already encoded: what :class:`AiohttpRequest`
    reads of a ``RequestData`` without files (``RequestData`` encodes it parameter by
    parameter at every call)."""

    __slots__ = ("json_payload",)
    multipart_data = None

    def __init__(self, json_payload: bytes) -> None:
        self.json_payload = json_payload


PLAIN = (int, float, bool)
"""The types of a parameter value, besides ``str``, that PTB sends as its ``json.dumps``."""


def encoded(params: JSONDict) -> bytes | None:
    """The JSON body PTB's ``RequestData`` makes of these parameters (None values left out,
    a string as it is, any other value as its JSON text, then the whole as one ASCII JSON
    object); None if a value is not a plain one (a PTB object, a file, a date, a list...),
    which PTB itself must convert."""
    out: dict[str, str] = {}
    for key, value in params.items():
        kind = type(value)
        if kind is int:  # (its JSON text, without the encoder's call)
            out[key] = int.__repr__(value)
        elif isinstance(value, str):
            out[key] = value
        elif kind in PLAIN:
            out[key] = json.dumps(value)
        elif value is not None:
            return None
    return json.dumps(out).encode()


class LeanBot(ExtBot[Any]):
    """PTB's bot, whose calls with plain parameters skip PTB's per-parameter encoding.

    Every call whose parameters are plain values (:func:`encoded`) sends the very body
    PTB's own would, through the same rate limiter (getUpdates, as in PTB, outside it) and
    :meth:`BaseRequest.post` (so the same errors), without making and encoding a
    ``RequestParameter`` per value; any other goes PTB's own way. ``do_api_request`` with no
    ``return_type`` (the courier's calls, the answers to presses) also skips the layers
    between it and the post: the method-name checks, the warning that names PTB's own
    method and the merging of its parameters, which plain values do not need.
    """

    async def _do_post(
        self,
        endpoint: str,
        data: JSONDict,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
    ) -> Any:
        """``ExtBot._do_post``: the call, under the rate limiter but for getUpdates; its
        body encoded at once where the parameters are plain."""
        rate_limit_args = self._extract_rl_kwargs(data)
        if not self.rate_limiter and rate_limit_args is not None:
            raise ValueError(
                "`rate_limit_args` can only be used if a `ExtBot.rate_limiter` is set.")
        request = self._request[0] if endpoint == "getUpdates" else self._request[1]
        body = encoded(data) if isinstance(request, AiohttpRequest) else None
        callback: Callable[..., Coroutine[Any, Any, Any]]
        if body is None:  # PTB's own encoding: Bot._do_post, under the limiter below
            callback = super(ExtBot, self)._do_post
            args: tuple[Any, ...] = (endpoint, data)
            kwargs: dict[str, Any] = {
                "read_timeout": read_timeout, "write_timeout": write_timeout,
                "connect_timeout": connect_timeout, "pool_timeout": pool_timeout}
        else:
            callback = request.post
            args = (f"{self.base_url}/{endpoint}", cast(RequestData, Encoded(body)),
                    read_timeout, write_timeout, connect_timeout, pool_timeout)
            kwargs = {}
        if endpoint == "getUpdates" or not self.rate_limiter:
            return await callback(*args, **kwargs)
        return await self.rate_limiter.process_request(
            callback=callback, args=args, kwargs=kwargs, endpoint=endpoint, data=data,
            rate_limit_args=rate_limit_args)

    async def do_api_request(
        self,
        endpoint: str,
        api_kwargs: JSONDict | None = None,
        return_type: type[TelegramObject] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        rate_limit_args: Any = None,
    ) -> Any:
        """See ``telegram.Bot.do_api_request``: the same call, and the same answer."""
        if (return_type is not None or rate_limit_args is not None or self.defaults is not None
                or "_" in endpoint):
            return await super().do_api_request(
                endpoint, api_kwargs, return_type, read_timeout=read_timeout,
                write_timeout=write_timeout, connect_timeout=connect_timeout,
                pool_timeout=pool_timeout, rate_limit_args=rate_limit_args)
        try:
            return await self._do_post(
                endpoint, {k: v for k, v in (api_kwargs or {}).items() if v is not None},
                read_timeout=read_timeout, write_timeout=write_timeout,
                connect_timeout=connect_timeout, pool_timeout=pool_timeout)
        except InvalidToken as exc:  # as PTB's: a 404 is an unknown method once the token works
            if self._bot_initialized:
                raise EndPointNotFound(f"Endpoint '{endpoint}' not found in Bot API") from exc
            raise InvalidToken(
                "Either the bot token was rejected by Telegram or the endpoint "
                f"'{endpoint}' does not exist.") from exc


def api_request(transport: str = "aiohttp") -> BaseRequest:
    """The request object for every Bot API call but getUpdates.

    ``httpx`` is exactly PTB's default (``ApplicationBuilder`` without ``.request``).
    """
    if transport == "httpx":
        return HTTPXRequest(connection_pool_size=256)
    if transport == "aiohttp":
        return AiohttpRequest(connection_pool_size=256)
    raise ValueError(f"TRANSPORT must be one of {', '.join(TRANSPORTS)}, not {transport!r}")


def updates_request(transport: str = "aiohttp") -> BaseRequest:
    """The request object for getUpdates: one connection (one long poll at a time).

    Its read timeout is the default 5 s; PTB adds the long poll's own duration to it on
    every getUpdates call, so a quiet poll never times out.
    """
    if transport == "httpx":
        return HTTPXRequest(connection_pool_size=1)
    if transport == "aiohttp":
        return AiohttpRequest(connection_pool_size=1)
    raise ValueError(f"TRANSPORT must be one of {', '.join(TRANSPORTS)}, not {transport!r}")

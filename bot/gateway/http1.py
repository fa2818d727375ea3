"""Kept-alive HTTP/1.1 connections for the Bot API's JSON calls (:class:`Http1Pool`).

aiohttp's client spent about four fifths of a Bot API call's CPU in the bot process (its
request and response objects, header multidicts, URL objects, timers and traces: some
0.28 ms a call against 0.06 ms for the same exchange here, measured against the sandbox).
A Bot API call is one small POST and one small answer, so this client does only that: it
writes the request line, a handful of headers and the body in one write, and reads the
status, the headers it needs (length, chunking, keep-alive, compression) and the body.

Each connection carries one exchange at a time and goes back to its host's idle list once
its answer was read in full; an idle connection older than :data:`KEEPALIVE` seconds is
closed rather than reused (as aiohttp's connector does: a server may close it meanwhile).
A connection whose exchange did not end cleanly (a timeout, a cancelled caller, bytes
nobody asked for) is closed, never reused.

Timeouts, each None for none: ``connect`` (resolving, connecting and the TLS handshake),
``write`` (until a body that filled the socket's buffer is sent; smaller ones go at once)
and ``read`` (silence while waiting for or reading the answer). Either raises
``TimeoutError``; a lost or refused connection ``OSError``; an answer that is not HTTP
:class:`Malformed`.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections import deque
from typing import NamedTuple, cast
from urllib.parse import urlsplit

KEEPALIVE = 15.0
"""Seconds an idle connection is kept for reuse (aiohttp's default)."""
MAX_HEAD = 64 * 1024
"""Bytes an answer's status line and headers may take."""
UNSET = -1
"""No Content-Length: the body is chunked, or ends when the connection does."""


class Malformed(ValueError):
    """The server's answer is not an HTTP/1.x answer this client can read."""


class Target(NamedTuple):
    """Where a URL's requests go, and the start of each request's head."""

    secure: bool
    host: str
    port: int
    head: bytes
    """``POST <path> HTTP/1.1`` and the fixed headers, up to the Content-Length value."""


class Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: one exchange at a time, its answer parsed as it arrives."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.reusable = True
        """False once the connection cannot carry another exchange."""
        self.idle_since = 0.0
        self.answer: asyncio.Future[tuple[int, bytes]] | None = None
        self.buffer = bytearray()
        self.status = 0
        self.length = UNSET
        self.chunked = False
        self.keep = True
        self.encoding = ""
        self.head_read = False
        self.body = bytearray()
        self.heard = 0.0
        """Event-loop time the last bytes arrived (the read timeout counts silence)."""
        self.timer: asyncio.TimerHandle | None = None
        self.paused = False
        self.drained: asyncio.Future[None] | None = None

    # --- asyncio.Protocol -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Connected."""
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is no subclass of it)

    def data_received(self, data: bytes) -> None:
        """Bytes of the answer (any other bytes make the connection unusable)."""
        self.heard = self.loop.time()
        if self.answer is None or self.answer.done():
            self.close()
            return
        self.buffer += data
        try:
            self._parse()
        except Malformed as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        """The server ended its side: an answer delimited by the end is complete."""
        self.reusable = False
        self._ended(None)
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone: an exchange under way ends with it."""
        self.reusable = False
        self._ended(exc)
        if self.drained is not None and not self.drained.done():
            self.drained.set_exception(ConnectionResetError("connection lost while writing"))

    def pause_writing(self) -> None:
        """The socket's buffer is full."""
        self.paused = True

    def resume_writing(self) -> None:
        """It drained."""
        self.paused = False
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    # --- one exchange -----------------------------------------------------------------

    async def exchange(self, request: bytes, write: float | None, read: float | None
                       ) -> tuple[int, bytes]:
        """Send one request; its answer (status, body). The connection is closed unless
        the exchange ended cleanly."""
        assert self.transport is not None
        answer: asyncio.Future[tuple[int, bytes]] = self.loop.create_future()
        self.answer = answer
        self.buffer.clear()
        self.body.clear()
        self.head_read = False
        done = False
        try:
            self.transport.write(request)
            if self.paused:
                self.drained = self.loop.create_future()
                async with asyncio.timeout(write):
                    await self.drained
            if read is not None:
                self.heard = self.loop.time()
                self.timer = self.loop.call_at(self.heard + read, self._silence, read)
            result = await answer
            done = True
            return result
        finally:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.answer = self.drained = None
            if not done:
                self.close()

    def close(self) -> None:
        """Close the connection (it is not reused)."""
        self.reusable = False
        if self.transport is not None:
            self.transport.close()

    def _silence(self, read: float) -> None:
        """The read timer: no bytes for ``read`` seconds ends the exchange."""
        self.timer = None
        if self.answer is None or self.answer.done():
            return
        due = self.heard + read
        if self.loop.time() < due:  # bytes came meanwhile: wait from the last of them
            self.timer = self.loop.call_at(due, self._silence, read)
            return
        self._fail(TimeoutError())

    def _fail(self, exc: BaseException) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(exc)
        self.close()

    def _ended(self, exc: Exception | None) -> None:
        """The server's side ended: the answer is complete if it runs to the end."""
        if self.answer is None or self.answer.done():
            return
        if self.head_read and self.length == UNSET and not self.chunked:
            self.body += self.buffer
            self.buffer.clear()
            self._complete()
            return
        self._fail(exc or ConnectionResetError("the server closed the connection"))

    def _parse(self) -> None:
        """Read what the buffer holds of the answer; complete it once all is there."""
        while not self.head_read:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    raise Malformed("answer head too long")
                return
            self._head(bytes(self.buffer[:end]))
            del self.buffer[:end + 4]
        if self.chunked:
            self._chunks()
        elif self.length != UNSET and len(self.buffer) >= self.length:
            if len(self.buffer) > self.length:  # more than the answer: not to be trusted
                self.reusable = False
            self.body += self.buffer[:self.length]
            self.buffer.clear()
            self._complete()

    def _head(self, head: bytes) -> None:
        """The status line and headers."""
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise Malformed(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        status = int(code)
        if 100 <= status < 200:  # an interim answer: the real one follows
            return
        length, chunked, connection, encoding = UNSET, False, "", ""
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                if not value.strip().isdigit():
                    raise Malformed(f"bad Content-Length: {value[:40]!r}")
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif name == "connection":
                connection = value.strip().lower()
            elif name == "content-encoding":
                encoding = value.strip().lower()
        if status in (204, 304):
            length, chunked = 0, False
        self.status, self.length, self.chunked, self.encoding = status, length, chunked, encoding
        self.keep = (version == "HTTP/1.1" and "close" not in connection) or (
            version == "HTTP/1.0" and "keep-alive" in connection)
        self.keep = self.keep and (chunked or length != UNSET)
        self.head_read = True

    def _chunks(self) -> None:
        """Chunked body: take whole chunks; complete after the last (empty) one."""
        while True:
            line_end = self.buffer.find(b"\r\n")
            if line_end < 0:
                return
            size_text = bytes(self.buffer[:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise Malformed(f"bad chunk size: {size_text[:20]!r}") from None
            if size == 0:  # the last chunk, then trailers (ignored) and an empty line
                after = line_end + 2
                if len(self.buffer) < after + 2:
                    return
                if self.buffer[after:after + 2] == b"\r\n":
                    end = after + 2
                else:
                    end = self.buffer.find(b"\r\n\r\n", after)
                    if end < 0:
                        return
                    end += 4
                if len(self.buffer) > end:  # more than the answer: not to be trusted
                    self.reusable = False
                self.buffer.clear()
                self._complete()
                return
            start = line_end + 2
            if len(self.buffer) < start + size + 2:
                return
            self.body += self.buffer[start:start + size]
            del self.buffer[:start + size + 2]

    def _complete(self) -> None:
        """The whole answer is in: its body (decompressed, if the server compressed it
        unasked) to the caller."""
        body = bytes(self.body)
        self.body.clear()
        if self.encoding in ("gzip", "deflate"):
            try:
                body = zlib.decompress(body, 16 + zlib.MAX_WBITS if self.encoding == "gzip"
                                       else zlib.MAX_WBITS)
            except zlib.error:
                self._fail(Malformed(f"bad {self.encoding} body"))
                return
        if not self.keep:
            self.reusable = False
        assert self.answer is not None
        self.answer.set_result((self.status, body))
        if not self.reusable:
            self.close()


class Http1Pool:
    """Kept-alive connections per host, for POST requests with a body already encoded."""

    def __init__(self, user_agent: str, keepalive: float = KEEPALIVE) -> None:
        self.user_agent = user_agent
        self.keepalive = keepalive
        self.idle: dict[tuple[bool, str, int], deque[Connection]] = {}
        self.open: set[Connection] = set()
        self.targets: dict[str, Target] = {}
        self._tls: ssl.SSLContext | None = None

    def target(self, url: str) -> Target:
        """Where ``url``'s requests go (read once per URL)."""
        target = self.targets.get(url)
        if target is None:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"not an http(s) URL: {url!r}")
            secure = parts.scheme == "https"
            port = parts.port or (443 if secure else 80)
            host = parts.hostname
            shown = f"[{host}]" if ":" in host else host
            if parts.port is not None:
                shown = f"{shown}:{port}"
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            head = (f"POST {path} HTTP/1.1\r\nHost: {shown}\r\n"
                    f"User-Agent: {self.user_agent}\r\nAccept: */*\r\n").encode("latin-1")
            target = Target(secure, host, port, head)
            if len(self.targets) > 256:
                self.targets.clear()
            self.targets[url] = target
        return target

    async def post(self, url: str, body: bytes, content_type: str, *, connect: float | None,
                   write: float | None, read: float | None) -> tuple[int, bytes]:
        """POST ``body`` to ``url``; the answer's status and body."""
        target = self.target(url)
        request = b"".join((target.head, b"Content-Type: ", content_type.encode("latin-1"),
                            b"\r\nContent-Length: ", str(len(body)).encode(), b"\r\n\r\n",
                            body))
        conn = self._idle(target)
        if conn is None:
            conn = await self._connect(target, connect)
        try:
            return await conn.exchange(request, write, read)
        finally:
            self._release(target, conn)

    def _idle(self, target: Target) -> Connection | None:
        """The most recently used idle connection to the target still fit for reuse."""
        idle = self.idle.get((target.secure, target.host, target.port))
        now = asyncio.get_running_loop().time()
        while idle:
            conn = idle.pop()
            if conn.reusable and now - conn.idle_since < self.keepalive:
                return conn
            self._drop(conn)
        return None

    async def _connect(self, target: Target, timeout: float | None) -> Connection:
        loop = asyncio.get_running_loop()
        tls = self._context() if target.secure else None
        async with asyncio.timeout(timeout):
            _, conn = await loop.create_connection(
                lambda: Connection(loop), target.host, target.port, ssl=tls,
                server_hostname=target.host if tls else None)
        self.open.add(conn)
        return conn

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls

    def _release(self, target: Target, conn: Connection) -> None:
        """After an exchange: back to the idle list, or closed. Idle connections too old
        to reuse are closed from the oldest on."""
        if not conn.reusable:
            self._drop(conn)
            return
        now = asyncio.get_running_loop().time()
        conn.idle_since = now
        idle = self.idle.setdefault((target.secure, target.host, target.port), deque())
        while idle and (not idle[0].reusable or now - idle[0].idle_since >= self.keepalive):
            self._drop(idle.popleft())
        idle.append(conn)

    def _drop(self, conn: Connection) -> None:
        conn.close()
        self.open.discard(conn)

    async def close(self) -> None:
        """Close every connection, idle or not."""
        for conn in list(self.open):
            conn.close()
        self.open.clear()
        self.idle.clear()
        await asyncio.sleep(0)  # let the transports close

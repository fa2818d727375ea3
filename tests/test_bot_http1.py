"""The lean HTTP/1.1 client of the Bot API calls (bot/gateway/http1.py), byte by byte.

Each test runs a plain asyncio server on 127.0.0.1 that reads each request whole and
answers it with the bytes the test scripts (an answer in pieces, chunked, compressed,
closing, silent or broken), recording every request with the connection it came on.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from bot.gateway.http1 import Http1Pool, Malformed

Script = Callable[[asyncio.StreamWriter], Awaitable[None]]


def says(*pieces: bytes, pause: float = 0.0) -> Script:
    """An answer written in these pieces, ``pause`` seconds apart."""
    async def answer(writer: asyncio.StreamWriter) -> None:
        for i, piece in enumerate(pieces):
            if i and pause:
                await asyncio.sleep(pause)
            writer.write(piece)
            await writer.drain()
    return answer


def ok(body: bytes, *headers: str) -> bytes:
    """A 200 answer with its Content-Length."""
    head = "".join(f"{h}\r\n" for h in headers)
    return (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{head}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def closes(writer: asyncio.StreamWriter) -> None:
    """No answer: the connection is closed."""
    writer.close()


async def silent(writer: asyncio.StreamWriter) -> None:
    """No answer for a long while."""
    await asyncio.sleep(5)


@dataclass
class Server:
    """Answers the requests with ``scripts`` in order, whatever connection they come on."""

    scripts: list[Script] = field(default_factory=list)
    requests: list[tuple[int, bytes]] = field(default_factory=list)
    """(connection number, the request's bytes) of every request read."""
    connections: int = 0
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot1:x/sendMessage"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                self.requests.append((number, head + await reader.readexactly(length)))
                await self.scripts.pop(0)(writer)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    listening = await asyncio.start_server(srv.serve, "127.0.0.1", 0)
    srv.port = listening.sockets[0].getsockname()[1]
    yield srv
    listening.close()


async def post(pool: Http1Pool, server: Server, body: bytes = b"{}", read: float | None = 5.0
               ) -> tuple[int, bytes]:
    return await pool.post(server.url, body, "application/json", connect=5.0, write=5.0,
                           read=read)


async def test_a_request_is_one_exact_write_and_its_connection_is_kept(server: Server) -> None:
    server.scripts = [says(ok(b'{"ok":true,"result":1}')), says(ok(b'{"ok":true}'))]
    pool = Http1Pool("UA/1")
    assert await post(pool, server, b'{"chat_id": "-5"}') == (200, b'{"ok":true,"result":1}')
    assert await post(pool, server) == (200, b'{"ok":true}')
    await pool.close()
    assert server.requests == [
        (1, b"POST /bot1:x/sendMessage HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: UA/1\r\n"
            b"Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n"
            b'{"chat_id": "-5"}' % server.port),
        (1, b"POST /bot1:x/sendMessage HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: UA/1\r\n"
            b"Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            % server.port)]


async def test_an_answer_is_read_whatever_pieces_it_comes_in(server: Server) -> None:
    whole = b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b'{"ok":true,"result":"\xc3\xa9"}')
    server.scripts = [says(*(whole[i:i + 1] for i in range(len(whole)))),
                      says(b"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r", b"\nabc")]
    pool = Http1Pool("UA/1")
    assert await post(pool, server) == (200, b'{"ok":true,"result":"\xc3\xa9"}')
    assert await post(pool, server) == (404, b"abc")
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 1]


async def test_chunked_and_compressed_answers_are_read_whole(server: Server) -> None:
    packed = gzip.compress(b'{"ok":true,"result":[1,2,3]}')
    server.scripts = [
        says(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
             b"5;name=x\r\n{\"ok\"\r\n", b"7\r\n:false}\r\n0\r\nX-Trailer: 1\r\n\r\n"),
        says(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ntrue\r\n0\r\n\r\n"),
        says(ok(packed, "Content-Encoding: gzip"))]
    pool = Http1Pool("UA/1")
    assert await post(pool, server) == (200, b'{"ok":false}')
    assert await post(pool, server) == (200, b"true")
    assert await post(pool, server) == (200, b'{"ok":true,"result":[1,2,3]}')
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 1, 1]


async def test_a_connection_the_server_ends_is_not_reused(server: Server) -> None:
    async def to_the_end(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")  # no length: until closed
        writer.close()

    server.scripts = [says(ok(b"1", "Connection: close")), to_the_end, closes,
                      says(ok(b"4") + b"HTTP/1.1 200 OK\r\n"),  # more than one answer
                      says(ok(b"5"))]
    pool = Http1Pool("UA/1")
    assert await post(pool, server) == (200, b"1")
    assert await post(pool, server) == (200, b"until the end")
    with pytest.raises(ConnectionResetError):
        await post(pool, server)
    assert await post(pool, server) == (200, b"4")
    assert await post(pool, server) == (200, b"5")
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 2, 3, 4, 5]


async def test_an_idle_connection_too_old_is_not_reused(server: Server) -> None:
    server.scripts = [says(ok(b"1")), says(ok(b"2")), says(ok(b"3"))]
    pool = Http1Pool("UA/1", keepalive=0.2)
    assert await post(pool, server) == (200, b"1")
    assert await post(pool, server) == (200, b"2")
    await asyncio.sleep(0.3)
    assert await post(pool, server) == (200, b"3")
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 1, 2]


async def test_the_read_timeout_counts_silence_not_the_whole_answer(server: Server) -> None:
    slow = ok(b'{"ok":true}')
    server.scripts = [says(*(slow[i:i + 8] for i in range(0, len(slow), 8)), pause=0.1),
                      silent]
    pool = Http1Pool("UA/1")
    t0 = time.monotonic()
    # about 1 s in pieces 0.1 s apart, under a read timeout of 0.5 s
    assert await post(pool, server, read=0.5) == (200, b'{"ok":true}')
    assert time.monotonic() - t0 >= 0.8
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        await post(pool, server, read=0.3)
    assert 0.3 <= time.monotonic() - t0 < 2.0
    assert pool.open == set()  # the timed-out connection is closed, not kept
    await pool.close()


async def test_a_cancelled_call_closes_its_connection(server: Server) -> None:
    server.scripts = [silent, says(ok(b"2"))]
    pool = Http1Pool("UA/1")
    call = asyncio.create_task(post(pool, server))
    await asyncio.sleep(0.2)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await post(pool, server) == (200, b"2")
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 2]


async def test_what_is_not_http_is_malformed(server: Server) -> None:
    server.scripts = [says(b"SSH-2.0-OpenSSH\r\n\r\n"),
                      says(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"),
                      says(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
                      says(ok(b"not gzip", "Content-Encoding: gzip"))]
    pool = Http1Pool("UA/1")
    for _ in range(4):
        with pytest.raises(Malformed):
            await post(pool, server)
    await pool.close()
    assert [number for number, _ in server.requests] == [1, 2, 3, 4]


async def test_a_refused_connection_is_an_os_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pool = Http1Pool("UA/1")
    with pytest.raises(ConnectionRefusedError):
        await pool.post(f"http://127.0.0.1:{port}/x", b"{}", "application/json", connect=1.0,
                        write=1.0, read=1.0)


async def test_close_ends_every_connection(server: Server) -> None:
    server.scripts = [says(ok(b"1")), says(ok(b"2"))]
    pool = Http1Pool("UA/1")
    await asyncio.gather(post(pool, server), post(pool, server))
    assert len(pool.open) == 2
    transports = [conn.transport for conn in pool.open]
    await pool.close()
    assert pool.open == set() and all(t is not None and t.is_closing() for t in transports)


def test_a_url_is_read_once_into_its_target() -> None:
    pool = Http1Pool("UA/1")
    target = pool.target("https://api.telegram.org/bot1:x/getMe")
    assert target == (True, "api.telegram.org", 443,
                      b"POST /bot1:x/getMe HTTP/1.1\r\nHost: api.telegram.org\r\n"
                      b"User-Agent: UA/1\r\nAccept: */*\r\n")
    assert pool.target("https://api.telegram.org/bot1:x/getMe") is target
    assert pool.target("http://[::1]:8081/bot1:x/getMe?a=1")[1:3] == ("::1", 8081)
    assert b"Host: [::1]:8081\r\n" in pool.target("http://[::1]:8081/bot1:x/getMe?a=1").head
    with pytest.raises(ValueError):
        pool.target("ftp://example.org/")

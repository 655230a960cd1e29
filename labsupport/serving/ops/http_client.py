"""The load generator's HTTP/1.1 client (``HttpClient``): a keep-alive pool with one
``asyncio.Protocol`` per connection, so a request is one write and one future (no stream
reader, no task, no ``wait_for``); on 2 shared cores the client must cost less CPU per
request than the server it measures. Loopback URLs only; responses with
``Content-Length`` or ``Transfer-Encoding: chunked`` (Ray Serve's proxy streams)."""
from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from ..net import check_loopback


class HttpClient:
    """A lean HTTP/1.1 client with a keep-alive pool, one ``asyncio.Protocol`` per
    connection: a request is one write and one future (no stream reader, no task, no
    ``wait_for``), so on 2 cores the client costs less CPU per request than the server it
    is testing."""

    def __init__(self, url: str, timeout_s: float = 30.0):
        parts = urlsplit(check_loopback(url))
        self.host, self.port = parts.hostname, parts.port or 80
        self.timeout_s = timeout_s
        self._idle: list[_Conn] = []  # may hold connections the server closed since

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        """``(status, body)``; a stale pooled connection is retried once on a fresh one."""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                f"\r\n").encode()
        for attempt in (0, 1):
            conn = self._pooled() if attempt == 0 else None
            fresh = conn is None
            if fresh:
                conn = await self._connect()
            try:
                return await self._exchange(conn, head + body)
            except ConnectionError:  # _Stale included: the server had closed it
                conn.transport.close()
                if fresh:
                    raise ConnectionError(f"connection to {self.host}:{self.port} lost")
            except BaseException:
                conn.transport.close()
                raise
        raise AssertionError("unreachable")

    def _pooled(self) -> "_Conn | None":
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and not conn.buf:  # bytes nobody asked for: not reusable
                return conn
            conn.transport.close()
        return None

    async def _connect(self) -> "_Conn":
        loop = asyncio.get_running_loop()
        _, conn = await asyncio.wait_for(
            loop.create_connection(_Conn, self.host, self.port), self.timeout_s)
        return conn

    async def _exchange(self, conn: "_Conn", data: bytes) -> tuple[int, bytes]:
        loop = asyncio.get_running_loop()
        fut = conn.waiter = loop.create_future()
        conn.transport.write(data)
        timer = loop.call_later(self.timeout_s, _expire, fut)
        try:
            status, body, close = await fut
        finally:
            timer.cancel()
        if close:
            conn.transport.close()
        else:
            self._idle.append(conn)
        return status, body

    async def aclose(self) -> None:
        while self._idle:
            self._idle.pop().transport.close()


def _expire(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError("no answer in time"))


class _Conn(asyncio.Protocol):
    """One keep-alive connection: buffers what arrives and hands each complete response
    to the future of the request waiting on it."""

    def __init__(self):
        self.transport = None
        self.buf = bytearray()
        self.waiter: asyncio.Future | None = None
        self.closed = False

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        w = self.waiter
        if w is None or w.done():
            return
        try:
            done = parse_response(self.buf)
        except ValueError as exc:
            w.set_exception(exc)
            return
        if done is not None:
            self.waiter = None
            w.set_result(done)

    def connection_lost(self, exc) -> None:
        self.closed = True
        w = self.waiter
        if w is not None and not w.done():
            w.set_exception(_Stale() if not self.buf else
                            ConnectionError("connection closed in the middle of a response"))


def parse_response(buf: bytearray) -> tuple[int, bytes, bool] | None:
    """The first complete HTTP/1.1 response in ``buf`` as ``(status, body, close)``,
    removed from ``buf``; None while it is incomplete. The body is ``Content-Length``
    bytes or ``Transfer-Encoding: chunked`` (e.g. Ray Serve's proxy streams every
    response)."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split(None, 2)[1])
    except (IndexError, ValueError):
        raise ValueError(f"not an HTTP status line: {lines[0][:80]!r}") from None
    length, close, chunked = 0, False, False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "connection" and value == "close":
            close = True
        elif name == "transfer-encoding" and value == "chunked":
            chunked = True
    if chunked:
        got = _dechunk(buf, end + 4)
        if got is None:
            return None
        body, used = got
    else:
        used = end + 4 + length
        if len(buf) < used:
            return None
        body = bytes(buf[end + 4:used])
    del buf[:used]
    return status, body, close


def _dechunk(buf: bytearray, pos: int) -> tuple[bytes, int] | None:
    """A chunked body from ``buf[pos:]``: hex size line, data, CRLF; size 0 ends it
    (then trailers up to an empty line). ``(body, end)`` or None while incomplete."""
    parts = []
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
        pos = eol + 2
        if size == 0:
            if buf[pos:pos + 2] == b"\r\n":
                return b"".join(parts), pos + 2
            trailers = buf.find(b"\r\n\r\n", pos)
            return None if trailers < 0 else (b"".join(parts), trailers + 4)
        if len(buf) < pos + size + 2:
            return None
        parts.append(bytes(buf[pos:pos + size]))
        pos += size + 2


class _Stale(ConnectionError):
    """The server had closed a pooled keep-alive connection."""

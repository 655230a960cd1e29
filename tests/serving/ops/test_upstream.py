"""The router's replica connections: keep-alive reuse, a stale connection retried once,
an unreachable replica reported, and answers the router cannot read refused."""
from __future__ import annotations

import asyncio

import pytest

from labsupport.serving.ops.upstream import Upstream, UpstreamError


async def _server(answer: bytes, close_after: bool):
    """A loopback server answering every request with ``answer``; ``close_after`` closes
    the connection after each answer without saying so (a keep-alive timeout)."""
    seen = {"connections": 0, "requests": 0}

    async def handle(reader, writer):
        seen["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                n = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                             if line.lower().startswith(b"content-length")))
                await reader.readexactly(n)
                seen["requests"] += 1
                writer.write(answer)
                await writer.drain()
                if close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    return srv, f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}", seen


OK = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"ok\": 1.0}"


def test_connections_are_reused():
    async def go():
        srv, url, seen = await _server(OK, close_after=False)
        up = Upstream(url)
        replies = [await up.request("POST", "/embed", b"{}", "application/json") for _ in range(5)]
        await up.close()
        srv.close()
        return replies, seen
    replies, seen = asyncio.run(go())
    assert [r.json() for r in replies] == [{"ok": 1.0}] * 5
    assert seen == {"connections": 1, "requests": 5}


def test_a_connection_closed_while_idle_is_retried_on_a_fresh_one():
    async def go():
        srv, url, seen = await _server(OK, close_after=True)
        up = Upstream(url)
        first = await up.request("GET", "/healthz")
        await asyncio.sleep(0.05)  # the server has closed the idle connection by now
        second = await up.request("GET", "/healthz")
        await up.close()
        srv.close()
        return first, second, seen
    first, second, seen = asyncio.run(go())
    assert first.status_code == second.status_code == 200
    assert seen == {"connections": 2, "requests": 2}


def test_an_unreachable_replica_and_an_unreadable_answer_raise_upstream_error():
    async def go():
        srv, url, _ = await _server(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
                                    close_after=False)
        with pytest.raises(UpstreamError, match="Content-Length"):
            await Upstream(url).request("GET", "/healthz")
        srv.close()
        await srv.wait_closed()
        with pytest.raises(UpstreamError, match="cannot connect"):
            await Upstream(url).request("GET", "/healthz")
    asyncio.run(go())
    with pytest.raises(ValueError, match="base_url must look like"):
        Upstream("127.0.0.1:80")

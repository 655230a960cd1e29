"""Loopback-only networking shared by the service, its clients and the launcher: the URL
check, a ready-to-listen socket and the ``/config`` client."""
from __future__ import annotations

import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

HOST = "127.0.0.1"  # loopback only: the lab never exposes a port to the network


def check_loopback(url: str) -> str:
    """Return ``url`` (without trailing /) if its host is loopback, else raise ValueError."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"url must look like http://127.0.0.1:PORT, got {url!r}")
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise ValueError(f"url host must be loopback (127.0.0.1, ::1 or localhost); got "
                         f"{host!r}: the lab never sends traffic off this machine")
    return url.rstrip("/")


def free_socket(port: int = 0) -> socket.socket:
    """A listening-ready TCP socket on 127.0.0.1 (``port=0``: a free port)."""
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets whose
    # proto says TCP; without it every keep-alive response stalls ~40 ms (Nagle + delayed ACK)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((HOST, port))
    return sock


def get_config(url: str, client: Any = None) -> dict:
    """The live knobs of a running service (``GET /config``)."""
    import httpx
    r = (client or httpx).get(check_loopback(url) + "/config", timeout=10)
    r.raise_for_status()
    return r.json()


def post_config(url: str, knobs: dict, client: Any = None) -> dict:
    """``POST /config``; returns the new config, or raises ``ValueError`` with the
    service's message when it refuses (a bad knob names itself and its range)."""
    import httpx
    r = (client or httpx).post(check_loopback(url) + "/config", json=knobs, timeout=10)
    if r.status_code != 200:
        try:
            msg = r.json().get("error", r.text)
        except ValueError:
            msg = r.text
        raise ValueError(msg if isinstance(msg, str) else str(msg))
    return r.json()

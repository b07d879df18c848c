"""Fault test: raw sockets open WatchGame event streams on the HTTP port and never read them."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import redis

from faults.conftest import StartServers
from faults.ledger import Ledger, async_stub, audit, create_game, play

SOCKETS = 110
CAP = 20
IDLE_S = 3
RECEIVE_BUFFER = 2048
"""Bytes of each socket's kernel receive buffer: the server's writes pile up on its side."""


@contextmanager
def _raw_watches(port: int, name: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` TCP connections that each ask for the game's event stream, then never read
    (until the caller reads their status lines at the end)."""
    with ExitStack() as stack:
        sockets = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            sock.connect(("127.0.0.1", port))
            sock.sendall(
                f"GET /v1/{name}:watch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            sockets.append(sock)
        yield sockets


def _statuses(sockets: list[socket.socket]) -> list[int]:
    """The HTTP status each raw socket was answered with (read only now)."""
    statuses = []
    for sock in sockets:
        sock.settimeout(10)
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(64)
            if not chunk:
                break
            head += chunk
        statuses.append(int(head.split(b" ", 2)[1]))
    return statuses


def _watch_status(http: httpx.Client, name: str) -> int:
    """The status of a new event stream of ``name`` from the same address (200 or 429)."""
    with http.stream("GET", f"/v1/{name}:watch") as response:
        return response.status_code


async def _until_admitted(http: httpx.Client, name: str, within_s: float) -> int:
    """Poll until a new stream of ``name`` is admitted; return the last status."""
    loop = asyncio.get_running_loop()
    until = loop.time() + within_s
    status = _watch_status(http, name)
    while status != 200 and loop.time() < until:
        await asyncio.sleep(0.5)
        status = _watch_status(http, name)
    return status


async def test_sockets_that_never_read_are_capped_then_released(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """110 raw sockets that never read hold at most SCOPA_WATCH_PER_CLIENT streams while a
    player on the same replica finishes a game with 0 errors; the streams end when the game
    does, and streams of a quiet game end after SCOPA_WATCH_IDLE_S, unread all the same."""
    (server,) = start_servers(1, SCOPA_WATCH_PER_CLIENT=str(CAP), SCOPA_WATCH_IDLE_S=str(IDLE_S))
    channel, stub = async_stub(server.target)
    played = await create_game(stub, seed=7, target=11)
    quiet = await create_game(stub, seed=8)
    with httpx.Client(base_url=server.http_url, timeout=30) as http:
        with _raw_watches(server.http_port, played.name, SOCKETS) as sockets:
            await asyncio.sleep(1.0)
            assert _watch_status(http, played.name) == 429, "the raw sockets were not counted"
            ledger = Ledger()
            deadline = asyncio.get_running_loop().time() + 120
            finished = await play([stub], played, ledger, deadline, random.Random(7))
            assert finished, "the game did not finish in time"
            assert ledger.failures == [], ledger.failures[:5]
            assert audit(admin, played, ledger) > 0
            status = await _until_admitted(http, played.name, 2 * IDLE_S + 10)
            assert status == 200, "streams of a finished game stayed open on unread sockets"
            statuses = _statuses(sockets)
        assert sorted(statuses) == [200] * CAP + [429] * (SOCKETS - CAP)
        with _raw_watches(server.http_port, quiet.name, CAP):
            await asyncio.sleep(1.0)
            assert _watch_status(http, quiet.name) == 429, "the raw sockets were not counted"
            status = await _until_admitted(http, quiet.name, 2 * IDLE_S + 10)
            assert status == 200, "quiet streams on unread sockets outlived SCOPA_WATCH_IDLE_S"
    await channel.close()

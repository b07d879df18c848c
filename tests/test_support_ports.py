"""The test helpers' start on a free port (tests/support/ports.py): a port taken between its
pick and the server's bind costs another pick, not the test."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from support import ports
from support.nginx import running_nginx
from support.ports import ATTEMPTS, PortTaken, on_free_port
from support.redis_server import free_port
from support.redis_tls import running_redis_tls


@pytest.fixture
def taken() -> Iterator[int]:
    """A port another process holds: bound and listening (it accepts connections)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


@pytest.fixture
def taken_first(taken: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """The helpers' next free port is ``taken`` (as if another process took it in between)."""
    picks = iter([taken])
    monkeypatch.setattr(ports, "free_port", lambda: next(picks, None) or free_port())
    return taken


def test_a_start_refused_its_port_gets_another() -> None:
    tried: list[int] = []

    def start(port: int) -> int:
        tried.append(port)
        if len(tried) < 3:
            raise PortTaken(f"port {port} taken")
        return port

    assert on_free_port(start) == tried[-1]
    assert len(tried) == 3


def test_a_start_refused_every_time_fails_after_the_attempts() -> None:
    tried: list[int] = []

    def start(port: int) -> int:
        tried.append(port)
        raise PortTaken(f"port {port} taken")

    with pytest.raises(PortTaken):
        on_free_port(start)
    assert len(tried) == ATTEMPTS


def test_redis_with_tls_starts_on_another_port_when_its_pick_is_taken(taken_first: int) -> None:
    with running_redis_tls() as server:
        assert server.port != taken_first
        assert server.process.poll() is None


def test_nginx_starts_on_another_port_when_its_pick_is_taken(taken_first: int) -> None:
    """A port that accepts connections is not proof nginx bound it: it must say so itself."""
    with running_nginx([free_port()]) as nginx:
        assert nginx.grpc_port != taken_first
        assert nginx.process.poll() is None
        assert "Address already in use" not in nginx.error_log()

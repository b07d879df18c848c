"""Tests of scopa.transport._http_server: the HTTP port's socket and embedded uvicorn server."""

from __future__ import annotations

import asyncio
import socket

from scopa.transport._http_server import _bind, _CoalescingTransport


class _Recording(asyncio.Transport):
    """A transport that records each write (one write = one socket send)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.closed = self.aborted = False
        self.reading = True
        self.selector_updates = 0

    def pause_reading(self) -> None:
        if self.reading:
            self.reading, self.selector_updates = False, self.selector_updates + 1

    def resume_reading(self) -> None:
        if not self.reading:
            self.reading, self.selector_updates = True, self.selector_updates + 1

    def is_reading(self) -> bool:
        return self.reading

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 0


async def _accepted_nodelay(host: str) -> int:
    """TCP_NODELAY of a connection accepted on a socket from `_bind(host, 0)`."""
    sock = _bind(host, 0)
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[int] = loop.create_future()

    class _Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    server = await loop.create_server(_Probe, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        nodelay = await asyncio.wait_for(accepted, timeout=10)
        writer.close()
        return nodelay
    finally:
        server.close()
        await server.wait_closed()


def test_accepted_connections_disable_nagle() -> None:
    """Accepted HTTP connections have TCP_NODELAY, so a response never waits for a delayed ACK."""
    assert asyncio.run(_accepted_nodelay("127.0.0.1")) != 0


def test_bind_picks_a_free_port_on_port_zero() -> None:
    """Port 0 binds a free port, reported by the socket."""
    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.getsockname()[1] > 0
    finally:
        sock.close()


async def _coalesced_writes() -> tuple[list[bytes], int, list[bytes], list[bytes]]:
    inner = _Recording()
    transport = _CoalescingTransport(inner)
    transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
    transport.writelines([b"{}", b""])
    queued = transport.get_write_buffer_size()
    sent_before_step = list(inner.sent)
    await asyncio.sleep(0)
    one_step = list(inner.sent)
    transport.write(b"more")
    transport.close()
    return one_step, queued, sent_before_step, inner.sent[len(one_step) :]


def test_writes_of_one_loop_step_go_out_in_one_send() -> None:
    """A response's head and body written in one step are one send; close sends what is queued."""
    one_step, queued, before, at_close = asyncio.run(_coalesced_writes())
    assert before == [] and queued == len(b"HTTP/1.1 200 OK\r\n\r\n{}")
    assert one_step == [b"HTTP/1.1 200 OK\r\n\r\n{}"]
    assert at_close == [b"more"]


async def _aborted() -> tuple[list[bytes], bool]:
    inner = _Recording()
    transport = _CoalescingTransport(inner)
    transport.write(b"dropped")
    transport.abort()
    await asyncio.sleep(0)
    return inner.sent, inner.aborted


def test_abort_drops_what_is_queued() -> None:
    """abort() closes at once without sending the queued bytes."""
    assert asyncio.run(_aborted()) == ([], True)


async def _pauses() -> list[tuple[bool, bool, int]]:
    inner = _Recording()
    transport = _CoalescingTransport(inner)
    seen = []
    transport.pause_reading()
    transport.resume_reading()  # in the same step: the socket is never paused
    await asyncio.sleep(0)
    seen.append((transport.is_reading(), inner.reading, inner.selector_updates))
    transport.pause_reading()
    seen.append((transport.is_reading(), inner.reading, inner.selector_updates))
    await asyncio.sleep(0)  # a step later, still wanted: paused for real
    seen.append((transport.is_reading(), inner.reading, inner.selector_updates))
    transport.resume_reading()
    seen.append((transport.is_reading(), inner.reading, inner.selector_updates))
    return seen


def test_a_pause_resumed_within_the_step_never_reaches_the_socket() -> None:
    """pause_reading takes effect a loop step later unless resume_reading came first; a pause
    still wanted then stops the reads until resumed."""
    assert asyncio.run(_pauses()) == [
        (True, True, 0),
        (False, True, 0),
        (False, False, 1),
        (True, True, 2),
    ]

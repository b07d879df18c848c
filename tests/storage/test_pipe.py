"""Tests of scopa.storage._pipe: one Redis connection shared by concurrent calls, in order."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import hiredis
import pytest
from redis.asyncio import Connection, Redis
from redis.exceptions import (  # type: ignore[attr-defined]  # the stubs predate OutOfMemoryError
    NoScriptError,
    OutOfMemoryError,
    ResponseError,
)
from support.redis_server import (
    RedisServer,
    restart_redis_server,
)

from scopa.storage._pipe import Lost, Pipe, SharedPipe, Stalled, reply_error

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _pack(*args: str | bytes | int) -> bytes:
    packed: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]
    return packed


def _connection(server: RedisServer) -> Connection:
    return Connection(host=server.host, port=server.port, socket_timeout=5.0)


async def test_each_caller_gets_its_own_reply_and_one_loop_step_is_one_write(
    own_server: list[RedisServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[bytes] = []
    real_flush: Any = Pipe._flush

    def counting_flush(self: Pipe) -> None:
        writes.append(b"".join(self._out))
        real_flush(self)

    monkeypatch.setattr(Pipe, "_flush", counting_flush)
    pipe = await Pipe.open(_connection(own_server[0]), 5.0)
    try:
        big = b"v" * (3 << 20)  # several reads of the socket for one reply
        assert await pipe.call(_pack("SET", "big", big)) == b"OK"
        writes.clear()
        calls = [pipe.call(_pack("ECHO", f"call-{i}")) for i in range(200)]
        calls.insert(100, pipe.call(_pack("GET", "big")))
        replies = await asyncio.gather(*calls)
        expected: list[bytes] = [f"call-{i}".encode() for i in range(200)]
        expected.insert(100, big)
        assert replies == expected
        assert len(writes) == 1
    finally:
        pipe.close()


async def test_a_cancelled_caller_s_reply_is_read_and_dropped(
    own_server: list[RedisServer],
) -> None:
    pipe = await Pipe.open(_connection(own_server[0]), 5.0)
    try:
        first = pipe.call(_pack("ECHO", "first"))
        second = pipe.call(_pack("ECHO", "second"))
        first.cancel()
        assert await second == b"second"
        assert await pipe.call(_pack("ECHO", "third")) == b"third"
        assert pipe.usable
    finally:
        pipe.close()


async def test_an_error_reply_is_a_value_and_redis_py_s_exception_on_demand(
    own_server: list[RedisServer],
) -> None:
    pipe = await Pipe.open(_connection(own_server[0]), 5.0)
    try:
        missing = await pipe.call(_pack("EVALSHA", "0" * 40, 0))
        wrong = await pipe.call(_pack("INCR", "no", "such", "arity"))
        assert isinstance(missing, hiredis.ReplyError) and isinstance(wrong, hiredis.ReplyError)
        assert isinstance(reply_error(missing), NoScriptError)
        assert type(reply_error(wrong)) is ResponseError and "wrong number" in str(wrong)
        oom = reply_error(hiredis.ReplyError("OOM command not allowed"))
        assert isinstance(oom, OutOfMemoryError)
        assert await pipe.call(_pack("PING")) == b"PONG" and pipe.usable
    finally:
        pipe.close()


async def test_a_stalled_redis_fails_every_call_in_flight_after_the_timeout(
    own_server: list[RedisServer],
) -> None:
    pipe = await Pipe.open(_connection(own_server[0]), 0.3)
    os.kill(own_server[0].process.pid, signal.SIGSTOP)
    try:
        began = asyncio.get_running_loop().time()
        calls = [pipe.call(_pack("ECHO", str(i))) for i in range(3)]
        results = await asyncio.gather(*calls, return_exceptions=True)
        waited = asyncio.get_running_loop().time() - began
    finally:
        os.kill(own_server[0].process.pid, signal.SIGCONT)
    assert all(isinstance(r, Stalled) for r in results), results
    assert 0.25 < waited < 3
    assert not pipe.usable
    with pytest.raises(Stalled):
        pipe.call(_pack("PING"))


async def test_a_closed_connection_fails_calls_in_flight_and_the_shared_pipe_reopens(
    own_server: list[RedisServer],
) -> None:
    url = own_server[0].url
    shared = SharedPipe(lambda: _connection(own_server[0]), 5.0)
    admin: Redis[bytes] = Redis.from_url(url)
    try:
        assert await shared.call(_pack("CLIENT", "SETNAME", "piped")) == b"OK"
        held = asyncio.ensure_future(shared.call(_pack("BLPOP", "nothing", 0)))
        await asyncio.sleep(0.1)
        killer: Any = admin  # execute_command is untyped in the stubs
        await killer.execute_command("CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal")
        with pytest.raises(Lost):
            await held
        assert await shared.call(_pack("CLIENT", "GETNAME")) is None  # a new connection
        own_server[0] = restart_redis_server(own_server[0])
        await asyncio.sleep(0.2)  # the loop reads the closed connection's end of stream
        assert await shared.call(_pack("ECHO", "again")) == b"again"
    finally:
        shared.drop()
        await admin.connection_pool.disconnect()


async def test_concurrent_callers_without_a_pipe_wait_for_one_opening(
    own_server: list[RedisServer],
) -> None:
    opened: list[Connection] = []

    def new_connection() -> Connection:
        opened.append(_connection(own_server[0]))
        return opened[-1]

    shared = SharedPipe(new_connection, 5.0)
    try:
        replies = await asyncio.gather(*(shared.call(_pack("ECHO", str(i))) for i in range(50)))
        assert replies == [str(i).encode() for i in range(50)]
        assert len(opened) == 1
    finally:
        shared.drop()


async def test_unreadable_bytes_fail_the_pipe_as_lost() -> None:
    async def answer_nonsense(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"?this is not RESP\r\n")
        await writer.drain()
        await reader.read(100)
        writer.close()

    nonsense = await asyncio.start_server(answer_nonsense, "127.0.0.1", 0)
    port = nonsense.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    _, pipe = await loop.create_connection(lambda: Pipe(5.0), "127.0.0.1", port)
    try:
        with pytest.raises(Lost, match="unreadable reply"):
            await pipe.call(_pack("PING"))
        assert not pipe.usable
    finally:
        pipe.close()
        nonsense.close()
        await nonsense.wait_closed()

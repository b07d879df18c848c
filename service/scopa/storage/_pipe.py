"""Auto-pipelining: one Redis connection shared by every concurrent call of a store.

A call's command is queued; the commands queued in one event-loop step go out in one write,
and Redis answers in order, so each reply is handed to the oldest caller still waiting. There
is no pool to take a connection from and give it back to, no task or timer per call and no
health-check PING: the connection's reads are an :class:`asyncio.Protocol`'s callbacks
parsed by hiredis, and one timer watches the oldest call's deadline.

The connection is opened by redis-py (the pool's connection class and arguments: AUTH, SELECT,
TLS, a Sentinel's master discovery), then its transport is handed to the pipe.

Failures after a command was queued fail every call in flight, and the connection with them:
:class:`Stalled` when the oldest call waited longer than the timeout (Redis may have run the
commands), :class:`Lost` when the connection closed or the replies made no sense. Error
replies are returned as values (``hiredis.ReplyError``); :func:`reply_error` turns one into
redis-py's exception.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import Any, cast

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["Lost", "Pipe", "SharedPipe", "Stalled", "reply_error"]


class Lost(RedisConnectionError):
    """The connection closed (or answered nonsense) before this call's reply came."""


class Stalled(RedisTimeoutError):
    """A call in flight waited longer than the timeout; the connection was dropped."""


def reply_error(reply: hiredis.ReplyError) -> Exception:
    """redis-py's exception for an error reply (``NOSCRIPT`` → NoScriptError, ``OOM`` →
    OutOfMemoryError, ...), as its own parser makes it."""
    parse: Any = BaseParser.parse_error  # untyped in redis-py
    error: Exception = parse(str(reply))
    return error


class Pipe(asyncio.Protocol):
    """One connection: commands written in order, replies handed out in order."""

    def __init__(self, timeout: float | None, connection: AbstractConnection | None = None) -> None:
        """``timeout``: the longest a call waits for its reply (None: no limit); ``connection``:
        the redis-py connection whose transport this is, told when the pipe closes it."""
        self._connection = connection
        self._timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._parser = hiredis.Reader()
        self._waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self._out: list[bytes] = []
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._failure: Exception | None = None

    @classmethod
    async def open(cls, connection: AbstractConnection, timeout: float | None) -> Pipe:
        """Connect ``connection`` (redis-py's handshake), then take over its transport."""
        await connection.connect()
        writer: Any = getattr(connection, "_writer", None)
        if writer is None:  # pragma: no cover - connect() either sets it or raises
            raise RedisConnectionError("the connection has no transport")
        pipe = cls(timeout, connection)
        transport: asyncio.Transport = writer.transport
        transport.set_protocol(pipe)
        pipe.connection_made(transport)
        return pipe

    @property
    def usable(self) -> bool:
        """Whether calls may still be queued (the connection has not failed or closed)."""
        return self._failure is None

    def call(self, command: bytes) -> asyncio.Future[Any]:
        """Queue one packed command; the future gets its reply (an error reply as a value) or
        :class:`Stalled` / :class:`Lost`. Only while :attr:`usable`."""
        if self._failure is not None:
            raise self._failure
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(command)
        future = self._loop.create_future()
        if self._timeout is None:
            self._waiting.append((future, 0.0))
            return future
        deadline = self._loop.time() + self._timeout
        self._waiting.append((future, deadline))
        if self._timer is None:
            self._timer = self._loop.call_at(deadline, self._check_deadline)
        return future

    def close(self) -> None:
        """Close the connection; calls in flight fail with :class:`Lost`."""
        self._fail(Lost("the store closed its Redis connection"))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        parser.feed(data)
        try:
            while (reply := parser.gets()) is not False:
                future = self._waiting.popleft()[0]
                if not future.done():  # a cancelled caller's reply is read and dropped
                    future.set_result(reply)
        except (hiredis.ProtocolError, IndexError) as exc:
            self._fail(Lost(f"unreadable reply from Redis: {exc!r}"))

    def eof_received(self) -> bool:
        return False  # the transport closes; connection_lost fails what is in flight

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(Lost(f"Redis closed the connection: {exc or 'end of stream'}"))

    def _flush(self) -> None:
        if self._out and self._transport is not None and self._failure is None:
            self._transport.write(b"".join(self._out))
        self._out.clear()

    def _check_deadline(self) -> None:
        self._timer = None
        if not self._waiting or self._failure is not None:
            return
        deadline = self._waiting[0][1]
        if deadline <= self._loop.time():
            self._fail(Stalled(f"no reply from Redis within {self._timeout} s"))
        else:
            self._timer = self._loop.call_at(deadline, self._check_deadline)

    def _fail(self, failure: Exception) -> None:
        if self._failure is None:
            self._failure = failure
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._out.clear()
        while self._waiting:
            future = self._waiting.popleft()[0]
            if not future.done():
                future.set_exception(type(failure)(*failure.args))
        if self._transport is not None:
            transport, self._transport = self._transport, None
            transport.abort()
        if self._connection is not None:
            # redis-py must not close the stream again (its protocol is no longer the stream's).
            connection: Any = self._connection
            connection._writer = None
            connection._reader = None


class SharedPipe:
    """A store's pipe: opened on first use, and again on the first call after it failed.

    Concurrent callers that find no usable pipe wait for one opening, not one each.
    """

    def __init__(self, new_connection: Callable[[], AbstractConnection], timeout: float | None):
        self._new_connection = new_connection
        self._timeout = timeout
        self._pipe: Pipe | None = None
        self._opening = asyncio.Lock()

    async def call(self, command: bytes) -> Any:
        """Send one packed command and return its reply (an error reply as a value).

        Raises redis-py's ConnectionError or TimeoutError when no connection could be opened
        (nothing was sent), :class:`Lost` or :class:`Stalled` once it was."""
        pipe = self._pipe
        if pipe is None or not pipe.usable:
            pipe = await self._open()
        return await pipe.call(command)

    def drop(self) -> None:
        """Close the pipe (e.g. its server was demoted); the next call opens another."""
        if self._pipe is not None:
            self._pipe.close()

    async def _open(self) -> Pipe:
        async with self._opening:
            pipe = self._pipe
            if pipe is None or not pipe.usable:
                pipe = self._pipe = await Pipe.open(self._new_connection(), self._timeout)
            return pipe

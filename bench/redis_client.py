"""The Redis client's CPU per store call: the store's path against a bare pipeline, in process.

Measures what issue 26 names as the next lever of a call's cost. A real redis-server (started on
a free port), 64 games created through ``RedisStore``; then, alternating per round, the same
read (GetState's ``load_with_presence``: one EVALSHA of ``lua/presence.lua``) through:

- ``store``: ``RedisStore.load_with_presence`` as the server calls it (the store's
  auto-pipelined connection, ``scopa.storage._pipe``, with its timeouts, reconnection and
  error mapping, and the client span);
- ``pipelined``: the bare floor of auto-pipelining, not used by the server: one connection, an
  ``asyncio.Protocol`` with hiredis' reader, the commands queued in one loop step written with
  one send, each reply handed to its caller's future in order. No timeouts, reconnection,
  error mapping or span: what the store's layers cost above it.

Run from the repository root::

    .venv/bin/python bench/redis_client.py [--conc 1 8 64] [--calls 3840] [--rounds 3]

Output: one ``client=store|pipelined conc=<n> round=<i> cpu_us_per_call=<x>`` line per run
(this process's CPU, kernel included, over the calls), then per concurrency
``summary conc=<n> store_us=<median> pipelined_us=<median> pipelined_vs_store=<x>``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

import hiredis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.redis_server import start_redis_server  # noqa: E402

from scopa.storage import RedisStore  # noqa: E402
from scopa.storage._keys import game_key  # noqa: E402
from scopa.storage._presence import presence_keys  # noqa: E402

_GAMES = 64


class _Pipe(asyncio.Protocol):
    """One connection; the commands of a loop step go out in one write, replies in order."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader()
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._out: list[bytes] = []
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            future = self._waiting.popleft()
            if not future.done():
                future.set_result(reply)

    def call(self, packed: bytes) -> asyncio.Future[Any]:
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(packed)
        future = self._loop.create_future()
        self._waiting.append(future)
        return future

    def _flush(self) -> None:
        assert self._transport is not None
        self._transport.write(b"".join(self._out))
        self._out.clear()


async def _cpu_per_call(
    call: Callable[[str], Awaitable[Any]], ids: list[str], conc: int, calls: int
) -> float:
    per_task = max(1, calls // conc)

    async def worker(game_id: str) -> None:
        for _ in range(per_task):
            await call(game_id)

    started = time.process_time()
    await asyncio.gather(*(worker(ids[i % len(ids)]) for i in range(conc)))
    return (time.process_time() - started) / (per_task * conc) * 1e6


async def _run(
    url: str, host: str, port: int, concs: Sequence[int], calls: int, rounds: int
) -> list[str]:
    store = RedisStore.from_url(url)
    ids = [f"bench{i:017d}" for i in range(_GAMES)]
    for game_id in ids:
        await store.create(game_id, b"s" * 400, b"m" * 300, [b"e"], 600)
    await store.load_with_presence(ids[0])  # loads the script
    sha = store._presence_script.sha
    _, pipe = await asyncio.get_running_loop().create_connection(_Pipe, host, port)

    async def pipelined(game_id: str) -> Any:
        keys = [*presence_keys(game_id), game_key(game_id)]
        args = ("EVALSHA", sha, len(keys), *keys, "load", "state", "meta", "version")
        reply = await pipe.call(hiredis.pack_command(cast(Any, args)))  # its stub: a 1-tuple
        if not isinstance(reply, list) or reply[0][0] is None:
            raise RuntimeError(f"unexpected reply {reply!r}")
        return reply

    clients: dict[str, Callable[[str], Awaitable[Any]]] = {
        "store": store.load_with_presence,
        "pipelined": pipelined,
    }
    lines, figures = [], collections.defaultdict(list)
    for conc in concs:
        for call in clients.values():  # warm-up
            await _cpu_per_call(call, ids, conc, min(calls, 200))
        for round_index in range(rounds):
            order = list(clients) if round_index % 2 == 0 else list(reversed(clients))
            for name in order:
                figure = await _cpu_per_call(clients[name], ids, conc, calls)
                figures[(name, conc)].append(figure)
                lines.append(
                    f"client={name} conc={conc} round={round_index} cpu_us_per_call={figure:.1f}"
                )
    for conc in concs:
        ours = statistics.median(figures[("store", conc)])
        piped = statistics.median(figures[("pipelined", conc)])
        lines.append(
            f"summary conc={conc} store_us={ours:.1f} pipelined_us={piped:.1f}"
            f" pipelined_vs_store={piped / ours:.3f}"
        )
    await store.close()
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conc", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--calls", type=int, default=3840, help="calls per run")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if min(args.conc) <= 0 or args.calls <= 0 or args.rounds <= 0:
        parser.error("--conc, --calls and --rounds must be positive")
    server = start_redis_server()
    try:
        lines = asyncio.run(
            _run(server.url, server.host, server.port, args.conc, args.calls, args.rounds)
        )
    finally:
        server.process.terminate()
        server.process.wait(10)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

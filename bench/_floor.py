"""The floor of the service benchmark: a bare grpc.aio unary call doing one HMGET and one Lua CAS.

Run as a child process by ``bench/service.py``::

    python bench/_floor.py --port P --redis-url redis://127.0.0.1:R/0 \
        --state-bytes N --response-bytes M

No interceptors, no tracing, no logging, no protobuf: the request is ``<key index>:<padding>``
bytes, the handler reads the key's hash (HMGET state meta version), writes a new state of
``--state-bytes`` with a compare-and-set script on the version, and answers ``--response-bytes``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any, cast

import grpc
import grpc.aio
from redis.asyncio import Redis, RedisCluster

__all__ = ["CAS_SCRIPT", "METHOD", "SERVICE", "encode_request", "floor_key", "main"]

SERVICE = "bench.Floor"
METHOD = f"/{SERVICE}/Call"
CAS_SCRIPT = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then
  return {2, current}
end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', ARGV[3])
return {0, ARGV[3]}
"""


def floor_key(index: int) -> str:
    """The hash the floor call with key index ``index`` reads and writes."""
    return f"floor:{{{index}}}:g"


def encode_request(index: int, size: int) -> bytes:
    """A request for key ``index``, padded to ``size`` bytes (roughly a PlayCard request)."""
    head = f"{index}:".encode()
    return head + b"p" * max(0, size - len(head))


class _Handler:
    """One HMGET and one EVALSHA per call, like PlayCard's load and commit."""

    def __init__(self, client: Redis[bytes], state_bytes: int, response_bytes: int) -> None:
        self._client = client
        self._cas = client.register_script(CAS_SCRIPT)
        self._state = b"s" * state_bytes
        self._response = b"r" * response_bytes

    async def call(self, request: bytes, context: Any) -> bytes:
        key = floor_key(int(request.split(b":", 1)[0]))
        _state, _meta, version = await self._client.hmget(key, ["state", "meta", "version"])
        if version is None:
            raise KeyError(key)
        result = await self._cas(keys=[key], args=[version, self._state, int(version) + 1])
        if int(result[0]) != 0:
            raise RuntimeError(f"floor CAS conflict on {key}")
        return self._response


def _client(redis_url: str) -> Redis[bytes]:
    """A client of ``redis_url``; for ``redis+cluster://`` one that routes by key."""
    if redis_url.startswith("redis+cluster://"):
        seed = redis_url.removeprefix("redis+cluster://").split(",", 1)[0]
        cluster: Any = RedisCluster.from_url(f"redis://{seed}", decode_responses=False)
        return cast("Redis[bytes]", cluster)  # the same commands, routed by key
    return Redis.from_url(redis_url, decode_responses=False)


async def _serve(port: int, redis_url: str, state_bytes: int, response_bytes: int) -> None:
    client = _client(redis_url)
    handler = _Handler(client, state_bytes, response_bytes)
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE, {"Call": grpc.unary_unary_rpc_method_handler(handler.call)}
            ),
        )
    )
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise OSError(f"could not bind 127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(1.0)
    await cast(Any, client).aclose()


def main() -> None:
    """Serve the floor method until SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--state-bytes", type=int, default=256)
    parser.add_argument("--response-bytes", type=int, default=512)
    args = parser.parse_args()
    asyncio.run(_serve(args.port, args.redis_url, args.state_bytes, args.response_bytes))


if __name__ == "__main__":
    main()

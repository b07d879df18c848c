"""The floors of the service benchmark: one HMGET and one Lua CAS behind a bare endpoint.

Run as a child process by ``bench/service.py``::

    python bench/_floor.py --stack grpc|rest|connect --port P \
        --redis-url redis://127.0.0.1:R/0 --state-bytes N --response-bytes M

``--stack grpc``: a bare grpc.aio unary call (no interceptors, no protobuf; the request is
``<key index>:<padding>`` bytes). ``--stack rest``: a bare ASGI endpoint on uvicorn (POST, the same
bytes in, a JSON body out). ``--stack connect``: a bare connectrpc unary method on uvicorn taking
and returning a ``google.protobuf.BytesValue`` in Connect JSON. No tracing, no logging. The handler
reads the key's hash (HMGET state meta version), writes a new state of ``--state-bytes`` with a
compare-and-set script on the version, and answers ``--response-bytes``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any, cast

import grpc
import grpc.aio
import uvicorn
from connectrpc.compat import google_protobuf_codecs
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.wrappers_pb2 import BytesValue
from redis.asyncio import Redis, RedisCluster

__all__ = ["CAS_SCRIPT", "CONNECT_PATH", "METHOD", "SERVICE", "encode_request", "floor_key", "main"]

SERVICE = "bench.Floor"
METHOD = f"/{SERVICE}/Call"
CONNECT_PATH = METHOD
"""The Connect floor's path (the REST floor answers any POST path)."""
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

    async def asgi(self, scope: Any, receive: Any, send: Any) -> None:
        """The REST floor: read the body, do the call, answer JSON."""
        if scope["type"] != "http":
            return
        if scope["path"] != "/floor":  # e.g. the benchmark's readiness probe, GET /
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        payload = b'{"r":"' + await self.call(body, None) + b'"}'
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(payload)),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    async def connect(self, request: BytesValue, ctx: Any) -> BytesValue:
        """The Connect floor's method."""
        return BytesValue(value=await self.call(request.value, None))


def _connect_app(handler: _Handler) -> Any:
    method = MethodInfo(
        name="Call",
        service_name=SERVICE,
        input=BytesValue,
        output=BytesValue,
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.UNARY,
    )

    class _App(ConnectASGIApplication[_Handler]):
        @property
        def path(self) -> str:
            return f"/{SERVICE}"

    return _App(
        service=handler,
        endpoints=lambda h: {METHOD: Endpoint.unary(method=method, function=h.connect)},
        codecs=google_protobuf_codecs(),
    )


async def _serve_asgi(app: Any, port: int) -> None:
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_config=None,
                            access_log=False, interface="asgi3", proxy_headers=False)  # fmt: skip
    server = uvicorn.Server(config)
    await server.serve()


def _client(redis_url: str) -> Redis[bytes]:
    """A client of ``redis_url``; for ``redis+cluster://`` one that routes by key."""
    if redis_url.startswith("redis+cluster://"):
        seed = redis_url.removeprefix("redis+cluster://").split(",", 1)[0]
        cluster: Any = RedisCluster.from_url(f"redis://{seed}", decode_responses=False)
        return cast("Redis[bytes]", cluster)  # the same commands, routed by key
    return Redis.from_url(redis_url, decode_responses=False)


async def _serve(
    stack: str, port: int, redis_url: str, state_bytes: int, response_bytes: int
) -> None:
    client = _client(redis_url)
    handler = _Handler(client, state_bytes, response_bytes)
    if isinstance(client, RedisCluster):
        # Open the cluster client's connections before uvicorn serves: under uvicorn, redis-py
        # 8.1's cluster client sometimes loses a connection it is still setting up (writer None).
        await asyncio.gather(*(client.ping(target_nodes=RedisCluster.ALL_NODES) for _ in range(64)))
    if stack != "grpc":
        app = handler.asgi if stack == "rest" else _connect_app(handler)
        await _serve_asgi(app, port)  # uvicorn stops on SIGTERM itself
        await client.connection_pool.disconnect()
        return
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
    parser.add_argument("--stack", choices=("grpc", "rest", "connect"), default="grpc")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--state-bytes", type=int, default=256)
    parser.add_argument("--response-bytes", type=int, default=512)
    args = parser.parse_args()
    asyncio.run(
        _serve(args.stack, args.port, args.redis_url, args.state_bytes, args.response_bytes)
    )


if __name__ == "__main__":
    main()

"""HTTP clients for the service benchmark: the RPCs the workers call, over REST or Connect JSON.

:class:`HttpStub` has the async ``CreateGame`` / ``PlayCard`` methods of the gRPC stub that
``service_players`` calls, so the same workers drive the HTTP port: ``rest`` posts the proto3 JSON
to the ``google.api.http`` routes, ``connect`` posts it to ``/scopa.v1.GameService/<Method>``
(Connect unary, ``application/json``). Responses are parsed back into messages (client CPU).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from typing import Any, TypeVar

import _floor
import httpx
from google.protobuf import json_format
from google.protobuf.message import Message

from scopa_client.v1 import scopa_pb2 as pb

__all__ = ["HttpStub", "floor_http_worker"]

_M = TypeVar("_M", bound=Message)
_SERVICE = "/scopa.v1.GameService"


class HttpStub:
    """The stub subset the benchmark workers use, over ``rest`` or ``connect`` JSON."""

    def __init__(self, client: httpx.AsyncClient, protocol: str) -> None:
        if protocol not in ("rest", "connect"):
            raise ValueError(protocol)
        self._client = client
        self._protocol = protocol

    async def _post(
        self, path: str, body: dict[str, Any], metadata: Sequence[tuple[str, str]], out: _M
    ) -> _M:
        headers = dict(metadata)
        response = await self._client.post(path, json=body, headers=headers)
        if response.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {response.status_code} {response.text[:200]}")
        json_format.Parse(response.content, out, ignore_unknown_fields=True)
        return out

    async def CreateGame(  # noqa: N802  (the gRPC stub's name)
        self, request: pb.CreateGameRequest, metadata: Sequence[tuple[str, str]] = ()
    ) -> pb.CreateGameResponse:
        """CreateGame."""
        body = json_format.MessageToDict(request)
        path = "/v1/games" if self._protocol == "rest" else f"{_SERVICE}/CreateGame"
        return await self._post(path, body, metadata, pb.CreateGameResponse())

    async def PlayCard(  # noqa: N802
        self, request: pb.PlayCardRequest, metadata: Sequence[tuple[str, str]] = ()
    ) -> pb.PlayCardResponse:
        """PlayCard."""
        body = json_format.MessageToDict(request)
        if self._protocol == "rest":
            path = f"/v1/{body.pop('name')}:playCard"
        else:
            path = f"{_SERVICE}/PlayCard"
        return await self._post(path, body, metadata, pb.PlayCardResponse())


async def floor_http_worker(
    client: httpx.AsyncClient,
    protocol: str,
    rec: Any,
    index: int,
    request_bytes: int,
    deadline: float,
) -> None:
    """The REST or Connect floor's call in a loop, on this worker's own key."""
    payload = _floor.encode_request(index, request_bytes)
    body = {"value": base64.b64encode(payload).decode()}

    async def call() -> httpx.Response:
        if protocol == "connect":
            response = await client.post(_floor.CONNECT_PATH, json=body)
        else:
            response = await client.post("/floor", content=payload)
        response.raise_for_status()
        return response

    while time.monotonic() < deadline:
        await rec.call("floor", call())

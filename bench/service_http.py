"""HTTP clients for the service benchmark: the RPCs the workers call, over REST or Connect JSON.

:class:`HttpStub` has the async ``CreateGame`` / ``GetState`` / ``PlayCard`` methods of the gRPC
stub that ``service_players`` calls, so the same workers drive the HTTP port: ``rest`` sends the
proto3 JSON to the ``google.api.http`` routes, ``connect`` posts it to
``/scopa.v1.GameService/<Method>`` (Connect unary, ``application/json``). Requests go through
pyqwest (connectrpc's Rust HTTP client); messages are converted with the server's own proto3 JSON
fast path, as cheap for the client as the gRPC stub's C parser is (json_format cost the client
about 1 ms per call, and the client shares the two cores with the server it measures).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Sequence
from typing import Any, Final, TypeVar

import _floor
import pyqwest
from google.protobuf.message import Message

from scopa.transport._rest_json import from_json_dict, to_json_dict
from scopa_client.v1 import scopa_pb2 as pb

__all__ = ["Http", "HttpStub", "floor_http_worker", "floor_request"]

_M = TypeVar("_M", bound=Message)
_SERVICE = "/scopa.v1.GameService"
_JSON = ("content-type", "application/json")


class Http:
    """A keep-alive HTTP/1.1 client of one base URL."""

    def __init__(self, base_url: str, conc: int) -> None:
        self._base = base_url
        transport = pyqwest.HTTPTransport(enable_otel=False, pool_max_idle_per_host=conc)
        self._client = pyqwest.Client(transport)

    async def post(
        self, path: str, content: bytes, headers: Sequence[tuple[str, str]] = ()
    ) -> bytes:
        """POST ``content``; the response body (an error unless 200)."""
        response = await self._client.post(self._base + path, [_JSON, *headers], content)
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status} {response.content[:200]!r}")
        return response.content

    async def get(self, path: str) -> int:
        """GET, returning the status (a readiness probe)."""
        return (await self._client.get(self._base + path)).status

    async def fetch(self, path: str, headers: Sequence[tuple[str, str]] = ()) -> bytes:
        """GET; the response body (an error unless 200)."""
        response = await self._client.get(self._base + path, list(headers))
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status} {response.content[:200]!r}")
        return response.content

    async def aclose(self) -> None:
        """Nothing to close (connections are pooled by the transport)."""


class HttpStub:
    """The stub subset the benchmark workers use, over ``rest`` or ``connect`` JSON."""

    def __init__(self, http: Http, protocol: str) -> None:
        if protocol not in ("rest", "connect"):
            raise ValueError(protocol)
        self._http = http
        self._protocol = protocol

    async def _post(
        self,
        path: str,
        body: dict[str, Any],
        metadata: Sequence[tuple[str, str]],
        out: type[_M],
        view_only: bool = False,
    ) -> _M:
        raw = await self._http.post(path, _dumps(body), metadata)
        return _view_only(raw, out) if view_only else _message(raw, out)

    async def CreateGame(  # noqa: N802  (the gRPC stub's name)
        self, request: pb.CreateGameRequest, metadata: Sequence[tuple[str, str]] = ()
    ) -> pb.CreateGameResponse:
        """CreateGame."""
        body = to_json_dict(request)
        path = "/v1/games" if self._protocol == "rest" else f"{_SERVICE}/CreateGame"
        return await self._post(path, body, metadata, pb.CreateGameResponse)

    async def GetState(  # noqa: N802
        self, request: pb.GetStateRequest, metadata: Sequence[tuple[str, str]] = ()
    ) -> pb.GetStateResponse:
        """GetState: REST's ``GET /v1/{name}``, Connect's POST."""
        if self._protocol == "connect":
            body = to_json_dict(request)
            return await self._post(
                f"{_SERVICE}/GetState", body, metadata, pb.GetStateResponse, view_only=True
            )
        raw = await self._http.fetch(f"/v1/{request.name}", metadata)
        return _view_only(raw, pb.GetStateResponse)

    async def PlayCard(  # noqa: N802
        self, request: pb.PlayCardRequest, metadata: Sequence[tuple[str, str]] = ()
    ) -> pb.PlayCardResponse:
        """PlayCard."""
        body = to_json_dict(request)
        if self._protocol == "rest":
            path = f"/v1/{body.pop('name')}:playCard"
        else:
            path = f"{_SERVICE}/PlayCard"
        return await self._post(path, body, metadata, pb.PlayCardResponse, view_only=True)


_VIEW_READ: Final = ("version", "status", "turn", "hand")
"""The fields of a PlayCard or GetState response's view that the bench's workers read."""


def _message(raw: bytes, out: type[_M]) -> _M:
    return from_json_dict(json.loads(raw), out, ignore_unknown_fields=True)


def _view_only(raw: bytes, out: type[_M]) -> _M:
    """A response holding only the view fields the workers read (:data:`_VIEW_READ`).

    The whole body is parsed as JSON, but turning all of a ~4 KB view into a message in Python
    cost the client ~1.5 ms a call, more than the server's CPU, so the server sat idle between
    REST and Connect calls (client-bound, with none of the batching a loaded server does).
    """
    view = json.loads(raw)["view"]
    kept = {name: view[name] for name in _VIEW_READ if name in view}
    return from_json_dict({"view": kept}, out, ignore_unknown_fields=True)


def _dumps(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def floor_request(protocol: str, index: int, request_bytes: int) -> tuple[str, bytes]:
    """The REST or Connect floor's path and request body for key ``index``."""
    payload = _floor.encode_request(index, request_bytes)
    # A BytesValue in Connect JSON is its base64 string.
    content = _dumps(base64.b64encode(payload).decode()) if protocol == "connect" else payload
    return (_floor.CONNECT_PATH if protocol == "connect" else "/floor"), content


async def floor_http_worker(
    http: Http,
    protocol: str,
    rec: Any,
    index: int,
    request_bytes: int,
    deadline: float,
) -> None:
    """The REST or Connect floor's call in a loop, on this worker's own key."""
    path, content = floor_request(protocol, index, request_bytes)
    while time.monotonic() < deadline:
        await rec.call("floor", http.post(path, content))

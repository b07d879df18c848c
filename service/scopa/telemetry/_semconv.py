"""Attribute names and values of the OpenTelemetry semantic conventions the service emits.

One place for the names, so gRPC, Connect and REST calls and the Redis store describe
themselves alike (conventions as of semantic-conventions 1.44+: RPC ``rpc.system.name``,
``rpc.method`` and ``rpc.status_code``; HTTP and database attributes as stabilised). Each
attribute has one type everywhere: status codes of RPCs are strings (``"OK"``), of HTTP
responses integers (``200``), on spans and metrics alike.
"""

from __future__ import annotations

__all__ = [
    "DB_NAMESPACE",
    "DB_OPERATION_NAME",
    "DB_SYSTEM_NAME",
    "DURATION_BUCKETS_S",
    "ERROR_TYPE",
    "HTTP_REQUEST_METHOD",
    "HTTP_RESPONSE_STATUS_CODE",
    "HTTP_ROUTE",
    "NETWORK_PEER_ADDRESS",
    "NETWORK_PEER_PORT",
    "RPC_METHOD",
    "RPC_STATUS_CODE",
    "RPC_SYSTEM_NAME",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "URL_PATH",
    "URL_SCHEME",
    "http_error_type",
    "peer_attributes",
]

RPC_SYSTEM_NAME = "rpc.system.name"
RPC_METHOD = "rpc.method"
RPC_STATUS_CODE = "rpc.status_code"
ERROR_TYPE = "error.type"
NETWORK_PEER_ADDRESS = "network.peer.address"
NETWORK_PEER_PORT = "network.peer.port"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"
HTTP_REQUEST_METHOD = "http.request.method"
HTTP_RESPONSE_STATUS_CODE = "http.response.status_code"
HTTP_ROUTE = "http.route"
URL_PATH = "url.path"
URL_SCHEME = "url.scheme"
DB_SYSTEM_NAME = "db.system.name"
DB_OPERATION_NAME = "db.operation.name"
DB_NAMESPACE = "db.namespace"

DURATION_BUCKETS_S: tuple[float, ...] = (
    0.0001, 0.00025, 0.0005, 0.00075,
    0.001, 0.0025, 0.005, 0.0075,
    0.01, 0.025, 0.05, 0.075,
    0.1, 0.25, 0.5, 0.75,
    1.0, 2.5, 5.0, 7.5, 10.0,
)  # fmt: skip
"""Histogram bucket bounds of every duration metric, in seconds: 0.1 ms to 10 s."""


def peer_attributes(peer: str) -> dict[str, str | int]:
    """``network.peer.*`` of a gRPC peer string (``ipv4:127.0.0.1:5000``, ``ipv6:[::1]:5000``)."""
    kind, _, address = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return {}
    host, _, port = address.rpartition(":")
    attributes: dict[str, str | int] = {NETWORK_PEER_ADDRESS: host.strip("[]")}
    if port.isdigit():
        attributes[NETWORK_PEER_PORT] = int(port)
    return attributes


def http_error_type(status_code: int) -> str | None:
    """``error.type`` of an HTTP server response: the code for 5xx, none otherwise."""
    return str(status_code) if status_code >= 500 else None

"""CORS on the HTTP port: preflights, allowed and refused origins, exposed headers."""

from __future__ import annotations

import httpx

from web.conftest import ALLOWED_ORIGIN
from web.helpers import check_error

_PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, connect-protocol-version",
}


def test_preflight_from_an_allowed_origin_is_answered(client: httpx.Client) -> None:
    """OPTIONS from an allowed origin gets 204 with the origin, methods and Connect headers."""
    response = client.options(
        "/scopa.v1.GameService/PlayCard", headers={"Origin": ALLOWED_ORIGIN, **_PREFLIGHT}
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = {h.strip() for h in response.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "connect-protocol-version", "x-grpc-web"} <= allowed


def test_preflight_from_another_origin_is_refused(client: httpx.Client) -> None:
    """OPTIONS from an origin not configured is 403 ORIGIN_NOT_ALLOWED without CORS headers."""
    response = client.options("/v1/games", headers={"Origin": "https://evil.example", **_PREFLIGHT})
    check_error(response, 403, "ORIGIN_NOT_ALLOWED")
    assert "access-control-allow-origin" not in response.headers


def test_responses_to_an_allowed_origin_expose_grpc_and_etag_headers(client: httpx.Client) -> None:
    """An allowed origin's response names it and exposes ETag and the gRPC-Web status headers."""
    response = client.get("/v1/rulesets", headers={"Origin": ALLOWED_ORIGIN})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    exposed = {h.strip() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"etag", "grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed
    other = client.get("/v1/rulesets", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers

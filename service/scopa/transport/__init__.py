"""Transports: gRPC, Connect/gRPC-Web and REST only convert their framing and call the core."""

from ._calls import GameCalls, UnaryCall
from ._convert import token_from_metadata
from ._grpc import GameServicer
from ._http import (
    ALLOW_HEADERS,
    EXPOSE_HEADERS,
    MAX_BODY_BYTES,
    CorsMiddleware,
    Probes,
    build_http_app,
    openapi_document,
)
from ._http_guard import HttpGuard
from ._http_server import HttpServer
from ._http_telemetry import ASGIApp, TelemetryMiddleware
from ._rest_rules import PathTemplate, Route, bind_request, routes_of
from ._webui import StaticFile, WebUi, load_web_ui

__all__ = [
    "ALLOW_HEADERS",
    "EXPOSE_HEADERS",
    "MAX_BODY_BYTES",
    "ASGIApp",
    "CorsMiddleware",
    "GameCalls",
    "GameServicer",
    "HttpGuard",
    "HttpServer",
    "PathTemplate",
    "Probes",
    "Route",
    "StaticFile",
    "TelemetryMiddleware",
    "UnaryCall",
    "WebUi",
    "bind_request",
    "build_http_app",
    "load_web_ui",
    "openapi_document",
    "routes_of",
    "token_from_metadata",
]

"""Transports: gRPC, Connect/gRPC-Web and REST only convert their framing and call the core.

The names here are what the server's wiring uses; tests of a module import it directly.
"""

from ._calls import GameCalls
from ._grpc import GameServicer, add_game_service
from ._http import build_http_app
from ._http_guard import HttpGuard
from ._http_server import HttpServer
from ._http_telemetry import ASGIApp
from ._session import SessionSlots
from ._websocket import SessionLimits
from ._webui import WebSignIn, load_web_ui

__all__ = [
    "ASGIApp",
    "GameCalls",
    "GameServicer",
    "HttpGuard",
    "HttpServer",
    "SessionLimits",
    "SessionSlots",
    "WebSignIn",
    "add_game_service",
    "build_http_app",
    "load_web_ui",
]

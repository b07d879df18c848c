"""Transports: the gRPC servicer (and later the REST gateway) only convert and call the core."""

from ._convert import token_from_metadata
from ._grpc import GameServicer

__all__ = ["GameServicer", "token_from_metadata"]

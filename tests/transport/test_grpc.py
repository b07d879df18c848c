"""Tests of scopa.transport._grpc's registration (its servicer is exercised end to end by the
integration tests, through the generated clients)."""

from __future__ import annotations

from typing import Any

import grpc

from scopa.transport import GameServicer, add_game_service
from scopa_client.v1 import scopa_pb2 as pb


class _Server:
    """A server that records the handlers registration hands it."""

    def __init__(self) -> None:
        self.handlers: list[grpc.GenericRpcHandler] = []
        self.registered: dict[str, dict[str, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: tuple[grpc.GenericRpcHandler, ...]) -> None:
        self.handlers.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.registered[service] = handlers


class _Details(grpc.HandlerCallDetails):  # type: ignore[misc]  # the stubs type it Any
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


def test_the_game_service_is_one_generic_handler_serving_every_method() -> None:
    """The generic handler alone serves every method (the server drops the registered ones,
    which are the same handlers), and no other."""
    server = _Server()
    servicer: Any = GameServicer.__new__(GameServicer)  # the handlers only hold its methods
    add_game_service(servicer, server)
    assert len(server.handlers) == 1
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    for method in service.methods:
        details = _Details(f"/{service.full_name}/{method.name}")
        assert server.handlers[0].service(details) is not None, method.name
    assert server.handlers[0].service(_Details(f"/{service.full_name}/Nope")) is None
    assert set(server.registered[service.full_name]) == {m.name for m in service.methods}

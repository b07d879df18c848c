"""Fixtures of the integration suite: two real server replicas on one throwaway Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, running_replicas

from integration.helpers import stub_pair
from scopa_client.v1 import scopa_pb2_grpc


@pytest.fixture(scope="session")
def replicas(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two server processes (stacked decks allowed) sharing the session's redis-server."""
    with running_replicas(redis_server.url) as pair:
        yield pair


@pytest.fixture(scope="session")
def server(replicas: tuple[ServerProcess, ServerProcess]) -> ServerProcess:
    """The first replica."""
    return replicas[0]


@pytest.fixture(scope="session")
def stubs(
    replicas: tuple[ServerProcess, ServerProcess],
) -> Iterator[tuple[scopa_pb2_grpc.GameServiceStub, scopa_pb2_grpc.GameServiceStub]]:
    """One blocking stub per replica."""
    with stub_pair([r.target for r in replicas]) as pair:
        yield pair


@pytest.fixture(scope="session")
def stub(
    stubs: tuple[scopa_pb2_grpc.GameServiceStub, scopa_pb2_grpc.GameServiceStub],
) -> scopa_pb2_grpc.GameServiceStub:
    """A blocking stub on the first replica."""
    return stubs[0]

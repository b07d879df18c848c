"""Rate limits by subject: signed-in callers from one address each have their own budget.

A real server process on the session's redis-server (the limits counted in Redis), with the
OpenID Connect provider of :mod:`support.oidc` and a CreateGame limit of 2 per minute; every
caller is on 127.0.0.1.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator

import grpc
import pytest
from integration.helpers import expect_error
from support.oidc import AUDIENCE, OidcProvider, new_key, require_provider
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from scopa_client import connect
from scopa_client.v1 import scopa_pb2 as pb

ALICE = f"subject-alice-{uuid.uuid4().hex[:8]}"
BOB = f"subject-bob-{uuid.uuid4().hex[:8]}"
REQUEST = pb.CreateGameRequest(preset="scopa", seats=[pb.SeatSpec(), pb.SeatSpec(open=True)])


@pytest.fixture(scope="module")
def provider() -> Iterator[OidcProvider]:
    require_provider()
    started = OidcProvider({ALICE: 300, BOB: 300}, [new_key("key-1")[1]])
    started.start()
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, provider: OidcProvider) -> Iterator[ServerProcess]:
    env = {
        "SCOPA_OIDC_ISSUER": provider.issuer,
        "SCOPA_OIDC_AUDIENCE": AUDIENCE,
        "SCOPA_RATE_LIMIT_CREATE_GAME": "2/minute",
    }
    process = start_server(redis_server.url, env=env)
    try:
        yield process
    finally:
        stop_server(process)


def _rest_create(server: ServerProcess, token: str) -> int:
    request = urllib.request.Request(
        f"{server.http_url}/v1/games",
        data=json.dumps({"preset": "scopa", "seats": [{}, {"open": True}]}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_each_subject_and_the_address_have_their_own_budget(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Alice spends her two creates (one over gRPC, one over REST) and is limited on both
    ports; Bob, from the same address, still has his two, and so has the address itself for
    anonymous calls, whatever the signed-in players spent."""
    alice = connect(server.target, token_provider=lambda: provider.token(ALICE), retry=False)
    bob = connect(server.target, token_provider=lambda: provider.token(BOB), retry=False)
    anonymous = connect(server.target, retry=False)
    alice.CreateGame(REQUEST, timeout=10)
    assert _rest_create(server, provider.token(ALICE)) == 200
    expect_error(
        lambda: alice.CreateGame(REQUEST, timeout=10),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
    )
    assert _rest_create(server, provider.token(ALICE)) == 429
    bob.CreateGame(REQUEST, timeout=10)
    bob.CreateGame(REQUEST, timeout=10)
    expect_error(
        lambda: bob.CreateGame(REQUEST, timeout=10),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
    )
    anonymous.CreateGame(REQUEST, timeout=10)
    anonymous.CreateGame(REQUEST, timeout=10)
    expect_error(
        lambda: anonymous.CreateGame(REQUEST, timeout=10),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
    )
    assert ALICE not in server.log_text() and BOB not in server.log_text()

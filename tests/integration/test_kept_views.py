"""GetState's kept views against two real replicas on one redis-server: a replica that keeps
every reader's view of a game (REST and gRPC, read twice) sees a move committed by the other
replica on its very next read."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx
import pytest
from support.server_process import ServerProcess

from integration.helpers import Stub, auth, create, move_request, rid, tokens_of, view
from scopa_client.v1 import scopa_pb2 as pb


@pytest.fixture
def rest(replicas: tuple[ServerProcess, ServerProcess]) -> Iterator[httpx.Client]:
    """An HTTP client of the first replica."""
    with httpx.Client(base_url=replicas[0].http_url, timeout=10) as client:
        yield client


def _rest_view(rest: httpx.Client, name: str, token: str | None) -> tuple[int, str, int]:
    """The REST view's version, ETag and hand size."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    reply = rest.get(f"/v1/{name}", headers=headers)
    assert reply.status_code == 200, reply.text
    shown = reply.json()["view"]
    return int(shown["version"]), reply.headers["etag"], len(shown.get("hand", []))


def test_a_move_on_the_other_replica_is_read_at_once(
    stubs: tuple[Stub, Stub], rest: httpx.Client
) -> None:
    """Each reader (both seats, a spectator) reads the game twice on replica one, over REST
    and gRPC, so replica one keeps every view; a move committed on replica two is then read
    on replica one at once, by every reader, with its new version, ETag and hands."""
    one, two = stubs
    created = create(one, target=None)
    name, tokens = created.name, tokens_of(created)
    readers: list[str | None] = [tokens[0], tokens[1], None]
    rng = random.Random(7)
    for _ in range(6):
        before = {r: _rest_view(rest, name, r) for r in readers}
        assert {r: _rest_view(rest, name, r) for r in readers} == before  # kept: the same
        grpc_before = {r: view(one, name, r) for r in readers}
        assert {r: view(one, name, r) for r in readers} == grpc_before
        version = before[None][0]
        mover = grpc_before[None].turn
        move = rng.choice(list(grpc_before[tokens[mover]].legal_moves))
        played: pb.PlayCardResponse = two.PlayCard(
            move_request(name, move, rid()), metadata=auth(tokens[mover]), timeout=10
        )
        assert played.view.version == version + 1
        for reader in readers:
            now, etag, hand = _rest_view(rest, name, reader)
            who = "a spectator" if reader is None else f"seat {readers.index(reader)}"
            assert (now, etag) == (version + 1, f'"v{version + 1}"'), who
            was = before[reader][2]  # a new deal: from one card (the mover's) or none
            if reader is None:
                assert hand == 0
            elif reader == tokens[mover]:
                assert hand == was - 1 or was == 1
            else:
                assert was in (hand, 0)
            assert view(one, name, reader).version == version + 1

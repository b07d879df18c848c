"""Retried request_ids: the first response again, byte for byte, and no second move."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from support.server_process import ServerProcess

from integration.aio_helpers import aio_stub
from integration.helpers import (
    PENDING_KINDS,
    Stub,
    auth,
    create,
    expect_error,
    move_request,
    pending,
    rid,
    settled,
    tokens_of,
    view,
)
from scopa_client.v1 import scopa_pb2 as pb


def _play_first_move(stub: Stub, created: pb.CreateGameResponse, request_id: str) -> bytes:
    tokens = tokens_of(created)
    turn = created.view.turn
    move = view(stub, created.name, tokens[turn]).legal_moves[0]
    response: pb.PlayCardResponse = stub.PlayCard(
        move_request(created.name, move, request_id), metadata=auth(tokens[turn]), timeout=10
    )
    return response.SerializeToString(deterministic=True)


def _retry(stub: Stub, created: pb.CreateGameResponse, request_id: str) -> bytes:
    """The same request again (the card is re-read from the first legal move of v1)."""
    tokens = tokens_of(created)
    move = created.view.legal_moves[0]
    response: pb.PlayCardResponse = stub.PlayCard(
        move_request(created.name, move, request_id), metadata=auth(tokens[0]), timeout=10
    )
    return response.SerializeToString(deterministic=True)


def test_retried_play_returns_the_first_response(stubs: tuple[Stub, Stub]) -> None:
    """A PlayCard retried on either replica returns identical bytes and plays only once."""
    created = create(stubs[0], "scopa", 2, target=11)
    request_id = rid()
    first = _play_first_move(stubs[0], created, request_id)
    assert _retry(stubs[0], created, request_id) == first
    assert _retry(stubs[1], created, request_id) == first
    assert view(stubs[1], created.name).version == created.view.version + 1


def test_retry_after_later_moves_still_returns_the_first_response(
    stubs: tuple[Stub, Stub],
) -> None:
    """A retry that arrives after the opponent moved returns the original bytes, no new move."""
    created = create(stubs[0], "scopa", 2, target=11)
    tokens = tokens_of(created)
    request_id = rid()
    first = _play_first_move(stubs[0], created, request_id)
    reply = view(stubs[1], created.name, tokens[1]).legal_moves[0]
    stubs[1].PlayCard(move_request(created.name, reply, rid()), metadata=auth(tokens[1]))
    assert _retry(stubs[1], created, request_id) == first
    assert view(stubs[0], created.name).version == created.view.version + 2


async def test_concurrent_duplicates_both_get_the_first_response(
    replicas: tuple[ServerProcess, ServerProcess], stub: Stub
) -> None:
    """The same request fired twice at once on two replicas is played once."""
    created = create(stub, "scopa", 2, target=11)
    token = tokens_of(created)[0]
    request = move_request(created.name, created.view.legal_moves[0], rid())
    async with aio_stub(replicas[0].target) as one, aio_stub(replicas[1].target) as two:
        results = await asyncio.gather(
            one.PlayCard(request, metadata=auth(token), timeout=10),
            two.PlayCard(request, metadata=auth(token), timeout=10),
            return_exceptions=True,
        )
    # The commit script checks the request_id before the version, so the copy that loses the
    # race is answered with the winner's stored response, never ABORTED.
    assert all(isinstance(r, pb.PlayCardResponse) for r in results), results
    answers = [r for r in results if isinstance(r, pb.PlayCardResponse)]
    assert len({a.SerializeToString(deterministic=True) for a in answers}) == 1
    assert view(stub, created.name).version == created.view.version + 1


def test_retried_create_returns_the_same_game_and_credentials(stubs: tuple[Stub, Stub]) -> None:
    """A CreateGame retried with its request_id returns the same game, tokens and invites."""
    request_id = rid()
    first = create(stubs[0], "scopa4", 4, open_seats=[3], request_id=request_id)
    again = create(stubs[1], "scopa4", 4, open_seats=[3], request_id=request_id)
    assert again.name == first.name
    assert list(again.credentials) == list(first.credentials)
    assert list(again.invites) == list(first.invites)
    assert again.view == first.view
    other = create(stubs[0], "scopa4", 4, open_seats=[3], request_id=rid())
    assert other.name != first.name


def test_a_create_request_id_cannot_be_reused_for_another_request(stub: Stub) -> None:
    """Reusing a create request_id with other seats is INVALID_ARGUMENT, never open-seat tokens."""
    request_id = rid()
    first = create(stub, "scopa", 2, open_seats=[1], request_id=request_id)
    assert list(tokens_of(first)) == [0]
    expect_error(
        lambda: create(stub, "scopa", 2, request_id=request_id),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
        field="request_id",
    )
    expect_error(
        lambda: create(stub, "scopa", 2, target=7, open_seats=[1], request_id=request_id),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
        field="request_id",
    )


def test_a_play_request_id_reused_to_resign_is_refused(stubs: tuple[Stub, Stub]) -> None:
    """A PlayCard's request_id sent with ResignGame is REQUEST_ID_REUSED, and nobody resigned."""
    created = create(stubs[0])
    request_id = rid()
    _play_first_move(stubs[0], created, request_id)
    expect_error(
        lambda: stubs[1].ResignGame(
            pb.ResignGameRequest(name=created.name, request_id=request_id),
            metadata=auth(tokens_of(created)[0]),
            timeout=10,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
        field="request_id",
    )
    assert view(stubs[0], created.name).status == pb.GAME_STATUS_ACTIVE


@pytest.mark.parametrize("kind", PENDING_KINDS)
def test_a_retried_variant_action_returns_the_first_response(
    stubs: tuple[Stub, Stub], kind: str
) -> None:
    """A fidasse claim answer or a fattoria farm raise retried with its request_id on either
    replica returns the first response's bytes and is applied once."""
    game = pending(stubs[0], kind, target=11)
    request = pb.TakeActionRequest(name=game.name, action=game.action, request_id=rid())
    metadata = auth(game.tokens[game.seat])
    first: pb.TakeActionResponse = stubs[0].TakeAction(request, metadata=metadata, timeout=10)
    assert settled(kind, first.events), first.events
    after = view(stubs[1], game.name).version
    assert after > game.version
    for stub in (stubs[0], stubs[1], stubs[0]):
        again: pb.TakeActionResponse = stub.TakeAction(request, metadata=metadata, timeout=10)
        assert again.SerializeToString(deterministic=True) == first.SerializeToString(
            deterministic=True
        )
    assert view(stubs[1], game.name).version == after

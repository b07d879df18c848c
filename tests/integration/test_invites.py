"""The invite flow: open seats, invite codes, joining, and the joiner's token."""

from __future__ import annotations

import grpc

from integration.helpers import Stub, auth, create, expect_error, rid, tokens_of, view
from scopa_client.v1 import scopa_pb2 as pb


def _join(stub: Stub, name: str, code: str, request_id: str = "") -> pb.JoinGameResponse:
    request = pb.JoinGameRequest(
        name=name, invite_code=code, display_name="Joiner", request_id=request_id
    )
    response: pb.JoinGameResponse = stub.JoinGame(request, timeout=10)
    return response


def test_invite_flow_from_waiting_to_active(stubs: tuple[Stub, Stub]) -> None:
    """Open seats get invite codes; play waits for them; bad and reused codes are refused."""
    first, second = stubs
    created = create(first, "scopa", 2, open_seats=[1])
    name = created.name
    assert [c.seat for c in created.credentials] == [0]
    assert [i.seat for i in created.invites] == [1] and created.invites[0].invite_code
    assert created.view.status == pb.GAME_STATUS_WAITING_FOR_PLAYERS
    assert not created.view.legal_moves and not created.view.HasField("turn")
    assert created.view.seats[1].open
    token0 = tokens_of(created)[0]
    hand = view(first, name, token0).hand
    play = pb.PlayCardRequest(name=name, card=hand[0], request_id=rid())
    expect_error(
        lambda: first.PlayCard(play, metadata=auth(token0), timeout=10),
        grpc.StatusCode.FAILED_PRECONDITION,
        "WAITING_FOR_PLAYERS",
    )
    before = view(first, name).version
    expect_error(
        lambda: _join(second, name, "not-the-code"),
        grpc.StatusCode.PERMISSION_DENIED,
        "INVITE_INVALID",
    )
    assert view(first, name).version == before

    code = created.invites[0].invite_code
    joined = _join(second, name, code, rid())
    assert joined.seat == 1 and joined.token
    assert joined.view.status == pb.GAME_STATUS_ACTIVE
    assert joined.view.seat == 1 and len(joined.view.hand) == 3
    assert joined.view.seats[1].display_name == "Joiner" and not joined.view.seats[1].open
    assert joined.view.version == before + 1
    assert [e.seat_joined.seat for e in joined.view.last_events] == [1]
    expect_error(
        lambda: _join(first, name, code, rid()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "SEAT_TAKEN",
    )

    as_joiner = view(first, name, joined.token)
    assert as_joiner.seat == 1 and list(as_joiner.hand) == list(joined.view.hand)
    state = view(second, name, token0)
    assert state.status == pb.GAME_STATUS_ACTIVE and state.turn == 0 and state.legal_moves
    move = state.legal_moves[0]
    played: pb.PlayCardResponse = second.PlayCard(
        pb.PlayCardRequest(name=name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)),
        metadata=auth(token0),
        timeout=10,
    )
    assert played.view.turn == 1
    reply = view(first, name, joined.token)
    assert reply.legal_moves
    answer = reply.legal_moves[0]
    response: pb.PlayCardResponse = first.PlayCard(
        pb.PlayCardRequest(
            name=name, card=answer.card, capture=pb.CaptureChoice(cards=answer.capture)
        ),
        metadata=auth(joined.token),
        timeout=10,
    )
    assert response.view.version == played.view.version + 1
    assert response.view.seat == 1


def test_join_retry_with_same_request_id_returns_same_token(stub: Stub) -> None:
    """Retrying a JoinGame with its request_id returns the same seat and token."""
    created = create(stub, "scopa", 2, open_seats=[1])
    code = created.invites[0].invite_code
    request_id = rid()
    first = _join(stub, created.name, code, request_id)
    again = _join(stub, created.name, code, request_id)
    assert (again.seat, again.token) == (first.seat, first.token)
    assert view(stub, created.name).version == first.view.version

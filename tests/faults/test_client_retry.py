"""Fault tests of the Python client's default retries against a paused Redis."""

from __future__ import annotations

import os
import signal
import threading

import grpc
import pytest
import redis
from support.redis_server import RedisServer

from faults.conftest import StartServers
from faults.ledger import deck_pb, decks, logged_plays
from scopa import rules
from scopa_client import bearer_metadata, connect, error_info
from scopa_client._retry import with_request_id
from scopa_client.v1 import scopa_pb2 as pb


def _pause(server: RedisServer, seconds: float) -> threading.Timer:
    os.kill(server.process.pid, signal.SIGSTOP)
    timer = threading.Timer(seconds, os.kill, (server.process.pid, signal.SIGCONT))
    timer.start()
    return timer


def _game(stub: object) -> tuple[str, str, pb.LegalMove]:
    created: pb.CreateGameResponse = stub.CreateGame(  # type: ignore[attr-defined]
        pb.CreateGameRequest(
            preset="scopa",
            seats=[pb.SeatSpec(), pb.SeatSpec()],
            stacked_decks=[deck_pb(d) for d in decks(5)],
        ),
        timeout=20,
    )
    token = created.credentials[0].token
    view = stub.GetState(  # type: ignore[attr-defined]
        pb.GetStateRequest(name=created.name), metadata=bearer_metadata(token), timeout=20
    ).view
    return created.name, token, view.legal_moves[0]


def _play(stub: object, name: str, token: str, move: pb.LegalMove) -> pb.PlayCardResponse:
    return stub.PlayCard(  # type: ignore[attr-defined,no-any-return]
        pb.PlayCardRequest(name=name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)),
        metadata=bearer_metadata(token),
        timeout=30,
    )


def test_default_client_rides_out_a_redis_pause(
    start_servers: StartServers, own_redis: list[RedisServer], admin: redis.Redis[bytes]
) -> None:
    """A PlayCard without request_id during a 2 s pause succeeds once, by retrying."""
    (server,) = start_servers(1)
    stub = connect(server.target)
    name, token, move = _game(stub)
    stub.GetState(pb.GetStateRequest(name=name), timeout=20)
    timer = _pause(own_redis[0], 2.0)
    try:
        response = _play(stub, name, token, move)
    finally:
        timer.join()
    assert response.events[0].version == 2
    plays = [e for _, e in logged_plays(admin, name) if isinstance(e, rules.CardPlayed)]
    assert len(plays) == 1


def test_client_without_retry_reports_the_unknown_outcome(
    start_servers: StartServers, own_redis: list[RedisServer]
) -> None:
    """With retry=False the same pause surfaces as UNAVAILABLE with an ErrorInfo reason."""
    (server,) = start_servers(1)
    stub = connect(server.target, retry=False)
    name, token, move = _game(stub)
    timer = _pause(own_redis[0], 2.0)
    try:
        with pytest.raises(grpc.RpcError) as caught:
            _play(stub, name, token, move)
    finally:
        timer.join()
    error = caught.value
    assert isinstance(error, grpc.Call) and error.code() == grpc.StatusCode.UNAVAILABLE
    info = error_info(error)
    assert info is not None and info.reason in {"OUTCOME_UNKNOWN", "STORAGE_UNAVAILABLE"}


def test_only_mutating_requests_without_request_id_get_one() -> None:
    """A missing request_id is filled for PlayCard, kept when given, never added to GetState."""
    method = "/scopa.v1.GameService/PlayCard"
    filled = with_request_id(method, pb.PlayCardRequest(name="games/x"))
    assert len(filled.request_id) == 32 and filled.name == "games/x"
    given = pb.PlayCardRequest(request_id="mine")
    assert with_request_id(method, given) is given
    read = pb.GetStateRequest(name="games/x")
    assert with_request_id("/scopa.v1.GameService/GetState", read) is read

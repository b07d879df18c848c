"""Hostile field values through the generated client on a real server: clear errors, no echo."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import grpc
import pytest
from integration.helpers import auth, create, int_option, tokens_of
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from faults.input_helpers import assert_clean_log, reason_of
from scopa_client import error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub
HUGE = 8000


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One server process on the session's Redis."""
    process = start_server(redis_server.url)
    try:
        yield process
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def stub(server: ServerProcess) -> Iterator[Stub]:
    """A blocking stub on the server."""
    with grpc.insecure_channel(server.target) as channel:
        yield scopa_pb2_grpc.GameServiceStub(channel)


def fails(call: Callable[[], Any]) -> grpc.RpcError:
    """The error ``call`` raises (it must raise one)."""
    with pytest.raises(grpc.RpcError) as err:
        call()
    return err.value


def seats(*names: str) -> list[pb.SeatSpec]:
    """Seat specs held by the creator."""
    return [pb.SeatSpec(display_name=name) for name in names]


def test_always_void_deals_are_refused_up_front(stub: Stub, server: ServerProcess) -> None:
    """Options whose deals are nearly always void are INVALID_OPTION naming options.table_cards."""
    cases = [
        {"table_cards": 38, "hand_size": 1},
        {"table_cards": 36, "hand_size": 1, "kings_redeal": 0},
    ]
    for case in cases:
        options = {k: int_option(v) for k, v in case.items()}
        if "kings_redeal" in case:
            options["aces_on_table"] = pb.OptionValue(string_value="return")
        request = pb.CreateGameRequest(preset="scopa", options=options, seats=seats("a", "b"))
        error = fails(partial(stub.CreateGame, request, timeout=10))
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error
        assert reason_of(error) == "INVALID_OPTION"
        info = error_info(error)
        assert info is not None and info.metadata["field"] == "options.table_cards"
    assert_clean_log(server)


def test_huge_client_strings_are_not_echoed_whole(stub: Stub, server: ServerProcess) -> None:
    """An 8 KB preset, option name or etag gets its own error with a short message."""
    game = create(stub)
    token = tokens_of(game)[0]
    view = stub.GetState(pb.GetStateRequest(name=game.name), metadata=auth(token), timeout=10)
    move = view.view.legal_moves[0]
    calls: list[tuple[Callable[[], Any], grpc.StatusCode, str]] = [
        (
            lambda: stub.CreateGame(
                pb.CreateGameRequest(preset="p" * HUGE, seats=seats("a", "b")), timeout=10
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_OPTION",
        ),
        (
            lambda: stub.CreateGame(
                pb.CreateGameRequest(preset="é" * HUGE, seats=seats("a", "b")), timeout=10
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_OPTION",
        ),
        (
            lambda: stub.CreateGame(
                pb.CreateGameRequest(
                    preset="scopa", options={"o" * HUGE: int_option(1)}, seats=seats("a", "b")
                ),
                timeout=10,
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_OPTION",
        ),
        (
            lambda: stub.PlayCard(
                pb.PlayCardRequest(
                    name=game.name,
                    card=move.card,
                    capture=pb.CaptureChoice(cards=move.capture),
                    etag="e" * HUGE,
                ),
                metadata=auth(token),
                timeout=10,
            ),
            grpc.StatusCode.ABORTED,
            "STALE_ETAG",
        ),
        (
            lambda: stub.GetState(pb.GetStateRequest(name="games/" + "g" * HUGE), timeout=10),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        ),
    ]
    for call, code, reason in calls:
        error = fails(call)
        assert error.code() is code, error
        assert reason_of(error) == reason
        assert len((error.details() or "").encode()) <= 400
        info = error_info(error)
        assert info is not None
        assert all(len(v.encode()) <= 128 for v in info.metadata.values()), info
    assert_clean_log(server)


def test_fields_are_matched_whole(stub: Stub) -> None:
    """A trailing newline makes request_id and name INVALID_ARGUMENT, not accepted or missing."""
    game = create(stub)
    bad_id = pb.CreateGameRequest(preset="scopa", seats=seats("a", "b"), request_id="x\n")
    error = fails(lambda: stub.CreateGame(bad_id, timeout=10))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    error = fails(lambda: stub.GetState(pb.GetStateRequest(name=game.name + "\n"), timeout=10))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error
    assert reason_of(error) == "INVALID_ARGUMENT"


def test_tokens_have_one_encoding(stub: Stub) -> None:
    """A genuine token rewritten with seat "00" or '=' padding is UNAUTHENTICATED."""
    game = create(stub)
    token = tokens_of(game)[0]
    game_id, _, nonce, mac = token.split(".")
    request = pb.GetStateRequest(name=game.name)
    for variant in (f"{game_id}.00.{nonce}.{mac}", f"{game_id}.0.{nonce}.{mac}="):
        error = fails(partial(stub.GetState, request, metadata=auth(variant), timeout=10))
        assert error.code() is grpc.StatusCode.UNAUTHENTICATED, variant


def test_display_names_and_preset_are_checked(stub: Stub) -> None:
    """NUL, ANSI escapes and bidi overrides in a name, or an empty preset, are INVALID_ARGUMENT."""
    for name in ("a\x00b", "\x1b[2Jwiped", "abc\u202egnp.exe"):
        request = pb.CreateGameRequest(preset="scopa", seats=seats("ann", name))
        error = fails(partial(stub.CreateGame, request, timeout=10))
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, name
        info = error_info(error)
        assert info is not None and info.metadata["field"] == "seats[1].display_name"
    error = fails(lambda: stub.CreateGame(pb.CreateGameRequest(seats=seats("a", "b")), timeout=10))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(error)
    assert info is not None and info.metadata["field"] == "preset"

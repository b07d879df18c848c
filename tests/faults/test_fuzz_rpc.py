"""Hypothesis fuzzing of every RPC's request fields through the generated client, real server.

Whatever a client sends, the answer is OK or an error with a google.rpc.ErrorInfo in domain
scopa.dev; never INTERNAL or UNKNOWN. Examples are bounded so the module runs in seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from integration.helpers import create, tokens_of
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from faults.input_helpers import assert_clean_log
from scopa.rules import PRESETS, list_options
from scopa_client import error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub
FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SERVER_FAULTS = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One server process (stacked decks allowed) on the session's Redis."""
    process = start_server(redis_server.url)
    try:
        yield process
    finally:
        stop_server(process)
    assert_clean_log(process)


@pytest.fixture(scope="module")
def stub(server: ServerProcess) -> Iterator[Stub]:
    """A blocking stub on the server."""
    with grpc.insecure_channel(server.target) as channel:
        yield scopa_pb2_grpc.GameServiceStub(channel)


@pytest.fixture(scope="module")
def game(stub: Stub) -> tuple[str, str]:
    """A game in progress and seat 0's token."""
    created = create(stub, target=None)
    return created.name, tokens_of(created)[0]


def answered(call: Callable[[], Any]) -> None:
    """Run one call: OK, or an error that is not a server fault and carries ErrorInfo."""
    try:
        call()
    except grpc.RpcError as exc:
        assert exc.code() not in SERVER_FAULTS, (exc.code(), exc.details())
        info = error_info(exc)
        assert info is not None and info.domain == "scopa.dev", (exc.code(), exc.details())


# --- strategies -------------------------------------------------------------------------

INT32 = st.integers(-(2**31), 2**31 - 1)
OPTION_NAMES = st.sampled_from([o.name for o in list_options()]) | st.text(max_size=20)
TEXT = st.text(max_size=80)
HEADER_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80)

option_values = st.one_of(
    st.builds(pb.OptionValue, bool_value=st.booleans()),
    st.builds(pb.OptionValue, int_value=INT32),
    st.builds(pb.OptionValue, string_value=TEXT | st.sampled_from(["return", "keep", "split"])),
    st.just(pb.OptionValue()),
)
cards = st.builds(pb.Card, suit=st.integers(-2, 6), rank=INT32 | st.integers(0, 11))
decks = st.builds(pb.Deck, cards=st.lists(cards, max_size=42))
seat_specs = st.builds(pb.SeatSpec, display_name=TEXT, open=st.booleans())
game_names = st.one_of(
    TEXT,
    st.builds(lambda s: "games/" + s, TEXT),
    st.builds(lambda s: f"games/{s}\n", st.text(alphabet="abcXYZ019_-", max_size=30)),
)


def metadata_for(token: str | None) -> tuple[tuple[str, str], ...]:
    """Authorization metadata for a (possibly junk) token, or none."""
    return () if token is None else (("authorization", f"Bearer {token}"),)


def tokens(real: str) -> st.SearchStrategy[str | None]:
    """No token, junk, the real one, or the real one slightly altered."""
    return st.one_of(
        st.none(),
        HEADER_TEXT,
        st.just(real),
        st.builds(lambda cut: real[:cut], st.integers(0, len(real))),
        st.builds(lambda extra: real + extra, st.sampled_from(["=", "==", ".", "0", "A"])),
    )


# --- one test per RPC ---------------------------------------------------------------------


@FUZZ
@given(
    preset=st.sampled_from(sorted(PRESETS)) | TEXT,
    options=st.dictionaries(OPTION_NAMES, option_values, max_size=5),
    seats=st.lists(seat_specs, max_size=7),
    first_dealer=st.none() | INT32,
    stacked=st.lists(decks, max_size=2),
    request_id=TEXT,
)
def test_create_game(
    stub: Stub,
    preset: str,
    options: dict[str, pb.OptionValue],
    seats: list[pb.SeatSpec],
    first_dealer: int | None,
    stacked: list[pb.Deck],
    request_id: str,
) -> None:
    """Any CreateGame request is answered without a server fault."""
    request = pb.CreateGameRequest(
        preset=preset,
        options=options,
        seats=seats,
        stacked_decks=stacked,
        request_id=request_id,
    )
    if first_dealer is not None:
        request.first_dealer = first_dealer
    answered(lambda: stub.CreateGame(request, timeout=10))


@FUZZ
@given(data=st.data(), name=game_names)
def test_get_state(stub: Stub, game: tuple[str, str], data: st.DataObject, name: str) -> None:
    """Any GetState name and token is answered without a server fault."""
    real_name, real_token = game
    name = data.draw(st.just(real_name) | st.just(name))
    token = data.draw(tokens(real_token))
    request = pb.GetStateRequest(name=name)
    answered(lambda: stub.GetState(request, metadata=metadata_for(token), timeout=10))


@FUZZ
@given(
    data=st.data(),
    card=cards,
    capture=st.none() | st.lists(cards, max_size=5),
    etag=TEXT,
    request_id=TEXT,
)
def test_play_card(
    stub: Stub,
    game: tuple[str, str],
    data: st.DataObject,
    card: pb.Card,
    capture: list[pb.Card] | None,
    etag: str,
    request_id: str,
) -> None:
    """Any PlayCard fields are answered without a server fault."""
    real_name, real_token = game
    name = data.draw(st.just(real_name) | game_names)
    token = data.draw(tokens(real_token))
    request = pb.PlayCardRequest(name=name, card=card, etag=etag, request_id=request_id)
    if capture is not None:
        request.capture.CopyFrom(pb.CaptureChoice(cards=capture))
    answered(lambda: stub.PlayCard(request, metadata=metadata_for(token), timeout=10))


@FUZZ
@given(data=st.data(), invite=TEXT, display_name=TEXT, request_id=TEXT)
def test_join_game(
    stub: Stub,
    data: st.DataObject,
    invite: str,
    display_name: str,
    request_id: str,
) -> None:
    """Any JoinGame fields (on a game with an open seat) are answered without a server fault."""
    created = create(stub, open_seats=[1])
    real_invite = created.invites[0].invite_code
    name = data.draw(st.just(created.name) | game_names)
    code = data.draw(st.just(real_invite) | st.just(invite) | st.just(real_invite + invite))
    request = pb.JoinGameRequest(
        name=name, invite_code=code, display_name=display_name, request_id=request_id
    )
    answered(lambda: stub.JoinGame(request, timeout=10))


@FUZZ
@given(data=st.data(), from_version=INT32)
def test_watch_game(
    stub: Stub, game: tuple[str, str], data: st.DataObject, from_version: int
) -> None:
    """Any WatchGame request's first answer is a message or an error without a server fault."""
    real_name, real_token = game
    name = data.draw(st.just(real_name) | game_names)
    token = data.draw(tokens(real_token))
    version = data.draw(st.just(from_version) | st.integers(-2, 5))

    def first_message() -> None:
        call = stub.WatchGame(
            pb.WatchGameRequest(name=name, from_version=version),
            metadata=metadata_for(token),
            timeout=10,
        )
        try:
            next(call)
        finally:
            call.cancel()

    answered(first_message)


@FUZZ
@given(data=st.data(), request_id=TEXT)
def test_resign_game(stub: Stub, data: st.DataObject, request_id: str) -> None:
    """Any ResignGame fields are answered without a server fault."""
    created = create(stub)
    name = data.draw(st.just(created.name) | game_names)
    token = data.draw(tokens(tokens_of(created)[0]))
    request = pb.ResignGameRequest(name=name, request_id=request_id)
    answered(lambda: stub.ResignGame(request, metadata=metadata_for(token), timeout=10))


def test_list_rulesets(stub: Stub) -> None:
    """ListRulesets (no fields) answers with every preset."""
    response = stub.ListRulesets(pb.ListRulesetsRequest(), timeout=10)
    assert {r.id for r in response.rulesets} == set(PRESETS)

"""Out-of-range claim answers and farm builds over gRPC, REST and Connect: INVALID_ARGUMENT."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from google.protobuf import json_format
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from integration.helpers import (
    ALL_CARDS,
    FARM_DEAL,
    auth,
    card,
    create,
    stacked_deck,
    tokens_of,
    view,
)
from support.server_process import ServerProcess

from scopa_client import ERROR_DOMAIN, error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc
from scopa_client.v1.scopa_connect import GameServiceClientSync
from web.helpers import bearer, check_error

TRANSPORTS = ["grpc", "rest", "connect-json", "connect-binary"]
Stub = scopa_pb2_grpc.GameServiceStub


@pytest.fixture(scope="module")
def stub(http_server: ServerProcess) -> Iterator[Stub]:
    """A blocking gRPC stub on the HTTP suite's server."""
    with grpc.insecure_channel(http_server.target) as channel:
        yield scopa_pb2_grpc.GameServiceStub(channel)


class Sender:
    """TakeAction over one transport, its refusals read as (code name, reason, metadata)."""

    def __init__(self, transport: str, server: ServerProcess, stub: Stub) -> None:
        self.transport = transport
        self.server = server
        self.stub = stub

    def take(self, name: str, token: str, action: pb.Action) -> tuple[str, str, dict[str, str]]:
        """Send ``action``; return ("OK", "", {}) or the refusal's code, reason and metadata."""
        request = pb.TakeActionRequest(name=name, action=action, request_id=uuid.uuid4().hex)
        if self.transport == "grpc":
            try:
                self.stub.TakeAction(request, metadata=auth(token), timeout=10)
            except grpc.RpcError as exc:
                info = error_info(exc)
                assert info is not None and info.domain == ERROR_DOMAIN, exc
                return exc.code().name, info.reason, dict(info.metadata)
            return "OK", "", {}
        if self.transport == "rest":
            body = json_format.MessageToDict(request)
            del body["name"]
            with httpx.Client(base_url=self.server.http_url, timeout=30) as client:
                response = client.post(f"/v1/{name}:takeAction", json=body, headers=bearer(token))
            if response.status_code == 200:
                return "OK", "", {}
            error: dict[str, Any] = check_error(response, 400, "INVALID_ARGUMENT")
            assert error["status"] == "INVALID_ARGUMENT", error
            detail = error["details"][0]
            return error["status"], detail["reason"], dict(detail["metadata"])
        json = self.transport == "connect-json"
        codec = google_protobuf_json_codec() if json else google_protobuf_binary_codec()
        with GameServiceClientSync(self.server.http_url, codec=codec) as connect:
            try:
                connect.take_action(request, headers=bearer(token))
            except ConnectError as exc:
                (detail,) = exc.details
                assert detail.type_name == "google.rpc.ErrorInfo"
                info = error_details_pb2.ErrorInfo.FromString(detail.message_bytes)
                assert info.domain == ERROR_DOMAIN
                code = "INVALID_ARGUMENT" if exc.code is Code.INVALID_ARGUMENT else str(exc.code)
                return code, info.reason, dict(info.metadata)
        return "OK", "", {}


@pytest.fixture(params=TRANSPORTS)
def sender(request: pytest.FixtureRequest, http_server: ServerProcess, stub: Stub) -> Sender:
    """A Sender for each transport in turn."""
    return Sender(request.param, http_server, stub)


def test_an_answer_out_of_range_is_invalid_argument_and_changes_nothing(
    sender: Sender, stub: Stub
) -> None:
    """A claim answer of 99 or unset, while a fidasse claim awaits it, is INVALID_ARGUMENT naming
    action.answer_claim.answer, the game's version and etag stay, and a real answer then goes."""
    created = create(stub, "fidasse", 2, target=11)
    name, tokens = created.name, tokens_of(created)
    mine = view(stub, name, tokens[created.view.turn])
    (claim, *_) = [a for a in mine.legal_actions if a.HasField("claim_sweep")]
    stub.TakeAction(
        pb.TakeActionRequest(name=name, action=claim), metadata=auth(tokens[mine.seat]), timeout=10
    )
    answering = view(stub, name, tokens[1 - mine.seat])
    assert answering.phase.kind == pb.PHASE_ANSWER_CLAIM and answering.turn == answering.seat
    for answer in (99, pb.CLAIM_ANSWER_UNSPECIFIED):
        bad = pb.Action(answer_claim=pb.AnswerClaimAction(answer=answer))  # type: ignore[arg-type]
        refusal = sender.take(name, tokens[answering.seat], bad)
        assert refusal == (
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
            {"field": "action.answer_claim.answer"},
        ), answer
        assert view(stub, name, tokens[answering.seat]) == answering
    trust = pb.Action(answer_claim=pb.AnswerClaimAction(answer=pb.CLAIM_ANSWER_TRUST))
    assert sender.take(name, tokens[answering.seat], trust)[0] == "OK"
    assert view(stub, name, tokens[answering.seat]).version > answering.version


def test_a_build_out_of_range_is_invalid_argument_and_changes_nothing(
    sender: Sender, stub: Stub
) -> None:
    """A fattoria build worth 0 or 2^31-1, or onto 10 or all 40 cards, is INVALID_ARGUMENT naming
    the field (not a refusal echoing the list), the game's version and etag stay, and the
    seat's legal build then goes."""
    created = create(stub, "fattoria", 2, target=11, decks=[stacked_deck(FARM_DEAL)])
    name, token = created.name, tokens_of(created)[0]
    before = view(stub, name, token)
    (build,) = [a.build for a in before.legal_actions if a.HasField("build")]
    assert (build.value, len(build.onto)) == (7, 1)
    every = [card(s, r) for s, r in ALL_CARDS]
    cases = [
        ("action.build.value", pb.BuildAction(card=build.card, onto=build.onto, value=0)),
        ("action.build.value", pb.BuildAction(card=build.card, onto=build.onto, value=2**31 - 1)),
        ("action.build.onto", pb.BuildAction(card=build.card, onto=every[:10], value=10)),
        ("action.build.onto", pb.BuildAction(card=build.card, onto=every, value=7)),
    ]
    for field, bad in cases:
        refusal = sender.take(name, token, pb.Action(build=bad))
        assert refusal == ("INVALID_ARGUMENT", "INVALID_ARGUMENT", {"field": field}), bad
        assert view(stub, name, token) == before
    assert sender.take(name, token, pb.Action(build=build))[0] == "OK"
    assert view(stub, name, token).farms

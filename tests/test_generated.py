"""Tests for the generated scopa.v1 code, tools/generate.py and the scopa_client helpers."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import grpc
from google.protobuf import json_format

import scopa_client
from scopa_client.v1 import scopa_pb2, scopa_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
GENERATE = ROOT / "tools" / "generate.py"


def _load_generate() -> ModuleType:
    """Import tools/generate.py as a module."""
    spec = importlib.util.spec_from_file_location("scopa_generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _card(suit: scopa_pb2.Suit.ValueType, rank: int) -> scopa_pb2.Card:
    """Build a card."""
    return scopa_pb2.Card(suit=suit, rank=rank)


def test_committed_generated_code_is_current() -> None:
    """`generate.py --check` passes on the committed generated code."""
    result = subprocess.run(
        [sys.executable, str(GENERATE), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_reports_stale_and_missing_files(tmp_path: Path) -> None:
    """The staleness report names an edited file and a missing file."""
    generate = _load_generate()
    fresh = tmp_path / "fresh"
    generate.generate_into(fresh)
    committed = tmp_path / "committed"
    shutil.copytree(fresh, committed)
    assert generate._stale_report(fresh, committed) == []
    (committed / "scopa_pb2.pyi").write_text("# edited\n")
    (committed / "scopa_pb2_grpc.py").unlink()
    report = "\n".join(generate._stale_report(fresh, committed))
    assert "differs:" in report and "scopa_pb2.pyi" in report
    assert "missing:" in report and "scopa_pb2_grpc.py" in report


def test_import_rewrite_keeps_method_paths() -> None:
    """Module imports move to scopa_client.v1 while gRPC method paths stay scopa.v1."""
    generate = _load_generate()
    source = (
        "from scopa.v1 import scopa_pb2 as x\n"
        "import scopa.v1.scopa_pb2\n"
        "'/scopa.v1.GameService/PlayCard'\n"
    )
    assert generate._rewrite_imports(source) == (
        "from scopa_client.v1 import scopa_pb2 as x\n"
        "import scopa_client.v1.scopa_pb2\n"
        "'/scopa.v1.GameService/PlayCard'\n"
    )


def test_generated_modules_live_under_scopa_client() -> None:
    """The generated modules are scopa_client.v1.* and describe package scopa.v1."""
    assert scopa_pb2.__name__ == "scopa_client.v1.scopa_pb2"
    assert scopa_pb2.DESCRIPTOR.package == "scopa.v1"
    assert scopa_pb2.GameView.__module__ == "scopa_client.v1.scopa_pb2"


def test_service_has_the_public_rpcs() -> None:
    """GameService exposes exactly the agreed RPCs; WatchGame streams its responses, Session
    is the one bidirectional stream."""
    service = scopa_pb2.DESCRIPTOR.services_by_name["GameService"]
    methods = {m.name: m for m in service.methods}
    assert set(methods) == {
        "CreateGame",
        "GetState",
        "PlayCard",
        "TakeAction",
        "JoinGame",
        "WatchGame",
        "ListGames",
        "ListRulesets",
        "GetGameRecord",
        "ResignGame",
        "RematchGame",
        "Session",
        "ListMyGames",
    }
    streaming = {name for name, m in methods.items() if m.server_streaming}
    assert streaming == {"WatchGame", "Session"}
    assert {name for name, m in methods.items() if m.client_streaming} == {"Session"}
    assert hasattr(scopa_pb2_grpc, "GameServiceStub")
    assert hasattr(scopa_pb2_grpc, "add_GameServiceServicer_to_server")


def test_suit_numbers_are_engine_suit_plus_one() -> None:
    """Suit values are coppe 1, denari 2, bastoni 3, spade 4, with 0 unspecified."""
    assert scopa_pb2.Suit.items() == [
        ("SUIT_UNSPECIFIED", 0),
        ("SUIT_COPPE", 1),
        ("SUIT_DENARI", 2),
        ("SUIT_BASTONI", 3),
        ("SUIT_SPADE", 4),
    ]


def test_game_view_round_trips_binary_and_json() -> None:
    """A populated GameView survives binary and JSON round trips unchanged."""
    settebello = _card(scopa_pb2.SUIT_DENARI, 7)
    view = scopa_pb2.GameView(
        name="games/abc",
        preset="scopa",
        version=12,
        etag="v12",
        status=scopa_pb2.GAME_STATUS_ACTIVE,
        seat=0,
        hand=[settebello],
        table=[_card(scopa_pb2.SUIT_COPPE, 3), _card(scopa_pb2.SUIT_SPADE, 4)],
        turn=0,
        legal_moves=[
            scopa_pb2.LegalMove(
                card=settebello,
                capture=[_card(scopa_pb2.SUIT_COPPE, 3), _card(scopa_pb2.SUIT_SPADE, 4)],
            )
        ],
        last_events=[
            scopa_pb2.Event(
                version=12,
                card_played=scopa_pb2.CardPlayed(seat=1, card=_card(scopa_pb2.SUIT_SPADE, 4)),
            )
        ],
        options={"target": scopa_pb2.OptionValue(int_value=11)},
    )
    parsed = scopa_pb2.GameView.FromString(view.SerializeToString())
    assert parsed == view
    assert parsed.HasField("seat") and parsed.HasField("turn")
    assert parsed.last_events[0].WhichOneof("kind") == "card_played"
    from_json = json_format.Parse(json_format.MessageToJson(view), scopa_pb2.GameView())
    assert from_json == view


def test_unset_and_empty_capture_choice_differ() -> None:
    """An unset capture (infer) and an empty capture (lay the card) are distinguishable."""
    infer = scopa_pb2.PlayCardRequest(name="games/a", card=_card(scopa_pb2.SUIT_COPPE, 1))
    lay = scopa_pb2.PlayCardRequest(
        name="games/a", card=_card(scopa_pb2.SUIT_COPPE, 1), capture=scopa_pb2.CaptureChoice()
    )
    assert not scopa_pb2.PlayCardRequest.FromString(infer.SerializeToString()).HasField("capture")
    assert scopa_pb2.PlayCardRequest.FromString(lay.SerializeToString()).HasField("capture")


def test_bearer_metadata_formats_the_authorization_header() -> None:
    """bearer_metadata yields one `authorization: Bearer <token>` pair."""
    assert scopa_client.bearer_metadata("t0k") == (("authorization", "Bearer t0k"),)


class _FailedCall:
    """A stand-in failed call carrying trailing metadata, as grpc.RpcError does."""

    def __init__(self, trailers: tuple[tuple[str, str | bytes], ...]) -> None:
        """Store the trailers."""
        self._trailers = trailers

    def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        """Return the trailers."""
        return self._trailers


def test_error_info_round_trips_through_status_trailer() -> None:
    """rich_status packs an ErrorInfo that error_info recovers from the status trailer."""
    status = scopa_client.rich_status(
        grpc.StatusCode.FAILED_PRECONDITION.value[0],
        scopa_client.Reason.NOT_YOUR_TURN,
        "seat 1 is to play",
        {"turn": "1"},
    )
    call = _FailedCall(
        (("other", "x"), (scopa_client.STATUS_DETAILS_KEY, status.SerializeToString()))
    )
    info = scopa_client.error_info(call)
    assert info is not None
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "NOT_YOUR_TURN",
        "scopa.dev",
        {"turn": "1"},
    )
    assert scopa_client.error_info(_FailedCall((("other", "x"),))) is None

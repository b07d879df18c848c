"""Tests of bench/service_http.py's answers: the view fields the workers read, nothing more."""

from __future__ import annotations

import json
import sys

from support.python import ROOT, load_tool

from scopa_client.v1 import scopa_pb2 as pb

sys.path.append(str(ROOT / "bench"))  # its sibling modules (_floor, ...), after the rest
service_http = load_tool("bench/service_http.py")


def _answer() -> bytes:
    view = {
        "version": 7,
        "status": "GAME_STATUS_ACTIVE",
        "turn": 1,
        "hand": [{"rank": 3, "suit": "SUIT_COPPE"}, {"rank": 10, "suit": "SUIT_SPADE"}],
        "table": [{"rank": 1, "suit": "SUIT_DENARI"}],
        "stockSize": 24,
        "options": {"target_score": "11"},
    }
    return json.dumps({"view": view, "events": [{"version": 7}]}).encode()


def test_an_answer_keeps_only_the_view_fields_read() -> None:
    response = service_http._view_only(_answer(), pb.PlayCardResponse)
    view = response.view
    assert (view.version, view.status, view.turn) == (7, pb.GAME_STATUS_ACTIVE, 1)
    assert [(c.rank, c.suit) for c in view.hand] == [(3, pb.SUIT_COPPE), (10, pb.SUIT_SPADE)]
    assert not view.table and not view.stock_size and not response.events


def test_a_whole_message_when_asked() -> None:
    response = service_http._message(_answer(), pb.PlayCardResponse)
    assert len(response.view.table) == 1 and response.view.stock_size == 24

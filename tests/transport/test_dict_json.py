"""Tests of scopa.transport._dict_json: JSON written from constructor arguments equals the JSON
``_rest_json.dumps`` writes of the message built from them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf.message import Message

from scopa.transport._dict_json import Rendered, dict_text, element_text
from scopa.transport._rest_json import dumps
from scopa_client.v1 import scopa_pb2 as pb

_CASES: list[tuple[type[Message], dict[str, Any]]] = [
    (pb.GameView, {}),
    # scalars at their zero go with the defaults, in declaration order; the rest by number
    (pb.GameView, {"seat": 0, "version": 7, "name": "games/x", "public": False, "etag": ""}),
    (pb.GameView, {"public": True, "stock_size": 3, "dealer": 1, "turn_timeout_s": 30}),
    # enums by number and by name, zero and not
    (pb.GameView, {"status": pb.GAME_STATUS_ACTIVE, "finish_reason": 0}),
    (pb.GameView, {"status": "GAME_STATUS_FINISHED", "finish_reason": "FINISH_REASON_UNSPECIFIED"}),
    # proto3 optional: written when given, even at its zero; None is not given
    (pb.GameView, {"turn": 0, "spectator_count": None}),
    (pb.GameView, {"turn": None, "spectator_count": 0}),
    # repeated scalars and messages (dicts and messages alike), empty or not
    (pb.GameView, {"winners": [1, 0], "hand": [], "table": [{"suit": 1, "rank": 7}]}),
    (pb.GameView, {"hand": [pb.Card(suit=pb.SUIT_SPADE, rank=1), {"suit": "SUIT_COPPE"}]}),
    (
        pb.GameView,
        {
            "seats": [
                {"seat": 0, "display_name": "ann", "open": False, "bot": "", "timeouts": 0},
                {"seat": 1, "display_name": "bob", "open": True, "timeouts": 2, "out": True},
            ],
            "sides": [{"side": 1, "seats": [1, 3], "score": 0}],
        },
    ),
    # singular messages: an empty dict is a message with its defaults; a well-known type
    (pb.GameView, {"phase": {}, "create_time": {"seconds": 1_700_000_000, "nanos": 5_000_000}}),
    (pb.GameView, {"phase": pb.TurnPhase(kind=pb.PHASE_PLAY), "turn_deadline": {"seconds": 0}}),
    (pb.GameView, {"phase": {"kind": 2, "claim": {"seat": 1, "answering_seats": [0]}}}),
    # a map of messages (an option's value is a oneof: its member is written even at zero)
    (pb.GameView, {"options": {"target_score": {"int_value": 0}}}),
    (pb.CreateGameRequest, {"options": {"x": pb.OptionValue(string_value="")}, "preset": "p"}),
    # oneofs: a member at its zero is written
    (pb.Action, {"play_card": {"card": {"suit": 2, "rank": 10}}}),
    (pb.OptionValue, {"int_value": 0}),
    (pb.OptionValue, {"bool_value": False}),
    # a response holding a view and events
    (
        pb.PlayCardResponse,
        {
            "view": {"version": 3, "last_events": [pb.Event(version=3)]},
            "events": [pb.Event(version=3), {"version": 4}],
        },
    ),
]


@pytest.mark.parametrize(("message", "values"), _CASES)
def test_the_text_is_the_built_message_s(message: type[Message], values: dict[str, Any]) -> None:
    assert dict_text(message.DESCRIPTOR, values) == dumps(message(**values)).decode()


def test_a_rendered_value_is_written_as_it_is_in_its_field_s_place() -> None:
    rendered = Rendered('"written"')
    built = dumps(pb.GameView(preset="written", version=2)).decode()
    assert dict_text(pb.GameView.DESCRIPTOR, {"preset": rendered, "version": 2}) == built
    text = dict_text(pb.GameView.DESCRIPTOR, {"etag": Rendered('"v9"'), "name": "games/g"})
    assert text.startswith('{"name":"games/g","etag":"v9",')


def test_a_map_s_members_are_the_built_map_s() -> None:
    """A map's members in its dict's order (a built map's order follows upb's hash table, which
    changes from process to process: the JSON is the same object)."""
    values: dict[str, Any] = {
        "options": {"a": {"int_value": 3}, "b": {"bool_value": False}, "c": {}}
    }
    text = dict_text(pb.GameView.DESCRIPTOR, values)
    assert text.startswith('{"options":{"a":{"intValue":3},"b":{"boolValue":false},"c":{}},')
    assert json.loads(text) == json.loads(dumps(pb.GameView(**values)))


def test_the_elements_of_a_list_join_into_the_list_s_text() -> None:
    """Each element's text, joined as a list, is the text of the field holding them all."""
    moves: list[dict[str, Any]] = [
        {"card": {"suit": pb.SUIT_COPPE, "rank": 7}},
        {"card": {"suit": pb.SUIT_SPADE, "rank": 3}, "capture": [{"suit": 2, "rank": 3}]},
    ]
    parts = [element_text(pb.GameView.DESCRIPTOR, "legal_moves", m) for m in moves]
    built = dict_text(pb.GameView.DESCRIPTOR, {"legal_moves": moves})
    assert built.startswith('{"legalMoves":[' + ",".join(parts) + "],")
    assert parts[0] == '{"card":{"suit":"SUIT_COPPE","rank":7,"copy":0},"capture":[]}'


def test_a_field_the_message_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="no_such_field"):
        dict_text(pb.GameView.DESCRIPTOR, {"no_such_field": 1})

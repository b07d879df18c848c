"""Tests of scopa.transport._rest_json: the fast proto3 JSON mapping equals json_format's."""

from __future__ import annotations

import asyncio
import json
import math
import random

import pytest
from google.protobuf import json_format, struct_pb2, wrappers_pb2
from google.protobuf.message import Message

from scopa.app import CoreSettings, GameCore, TokenAuthority
from scopa.storage import open_store
from scopa.transport import GameCalls, _rest_json
from scopa.transport._rest_json import FastJsonCodec, dumps, from_json_dict, to_json_dict
from scopa_client.v1 import scopa_pb2 as pb


def _reference(message: Message) -> object:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


async def _played(
    preset: str, players: int, *, options_tail: bool = False
) -> tuple[GameCalls, pb.CreateGameResponse, list[tuple[Message, bytes]]]:
    """A whole game over GameCalls: its calls, the CreateGame response, and every GetState and
    PlayCard response (one seat's view per move) with the tail its method left for it."""
    calls = GameCalls(
        GameCore(open_store(None), TokenAuthority(b"k" * 32), CoreSettings()),
        options_tail=options_tail,
    )
    created = await calls.create_game(
        pb.CreateGameRequest(
            preset=preset,
            seats=[pb.SeatSpec(display_name=f"p{i}") for i in range(players)],
            options={"target_score": pb.OptionValue(int_value=1)},
        ),
        None,
    )
    tokens = {c.seat: c.token for c in created.credentials}
    found: list[tuple[Message, bytes]] = []
    view, rng = created.view, random.Random(players)
    while view.status != pb.GAME_STATUS_FINISHED:
        own = await calls.get_state(pb.GetStateRequest(name=created.name), tokens[view.turn])
        found.append((own, calls.take_tail()))
        move = rng.choice(list(own.view.legal_moves))
        request = pb.PlayCardRequest(
            name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
        )
        played = await calls.play_card(request, tokens[view.turn])
        found.append((played, calls.take_tail()))
        view = played.view
    return calls, created, found


async def _game_messages(preset: str, players: int) -> list[Message]:
    """Every response of a whole game (one seat's view per move) and the rulesets."""
    calls, created, found = await _played(preset, players)
    rulesets = await calls.list_rulesets(pb.ListRulesetsRequest(), None)
    return [rulesets, created, *(message for message, _ in found)]


@pytest.mark.parametrize(("preset", "players"), [("scopa", 2), ("scopone", 4), ("scopa3", 3)])
def test_every_response_of_a_game_maps_like_json_format(preset: str, players: int) -> None:
    """Each response of whole games converts exactly as json_format (defaults included) does."""
    messages = asyncio.run(_game_messages(preset, players))
    assert len(messages) > 20
    for message in messages:
        assert to_json_dict(message) == _reference(message), type(message).__name__
        assert json.loads(dumps(message)) == _reference(message), type(message).__name__
        assert dumps(message).isascii()


def test_scalar_kinds_presence_and_special_values() -> None:
    """Unset optional fields are absent, zero scalars present, enums by name or number."""
    view = pb.GameView(name="games/x", status=pb.GAME_STATUS_ACTIVE)
    assert to_json_dict(view) == _reference(view)
    assert "seat" not in to_json_dict(view) and to_json_dict(view)["stockSize"] == 0
    view.seat = 0
    assert to_json_dict(view)["seat"] == 0
    line = pb.ScoreLine(name="x", values=[1.5, math.inf, -math.inf])
    assert to_json_dict(line) == _reference(line)
    assert to_json_dict(pb.Card(suit=99, rank=1))["suit"] == 99  # type: ignore[arg-type]


def test_dumps_writes_what_json_dumps_of_the_dict_would() -> None:
    """dumps() equals json.dumps(to_json_dict()) on special values, non-ASCII text, maps,
    64-bit integers, unknown enum numbers and many cards (each card's text kept once)."""
    messages: list[Message] = [
        pb.GameView(name="games/x", status=pb.GAME_STATUS_ACTIVE),
        pb.GameView(name="games/x", seat=0, version=2**31 - 1, turn=1),
        pb.ScoreLine(name="caff\u00e8 \U0001f0cf", values=[1.5, math.inf, -math.inf, math.nan]),
        pb.SeatInfo(display_name='\u00e8"\\\n</script>'),
        pb.Card(suit=99, rank=1),  # type: ignore[arg-type]
        pb.CreateGameRequest(options={"target_score": pb.OptionValue(int_value=11)}),
        wrappers_pb2.BytesValue(value=b"\x00\x01"),
    ]
    cards = [pb.Card(suit=s, rank=r) for s in range(1, 5) for r in range(1, 11)]  # type: ignore[arg-type]
    messages += [pb.LegalMove(card=c, capture=cards[:3]) for c in cards]
    messages += [pb.LegalMove(card=c) for c in cards]  # a second time: from the kept texts
    for message in messages:
        expected = json.dumps(to_json_dict(message), separators=(",", ":"))
        assert json.loads(dumps(message)) == json.loads(expected), message
        assert len(dumps(message)) == len(expected.encode())
        assert dumps(message).isascii()


def test_well_known_types_are_left_to_json_format() -> None:
    """google.protobuf messages keep their special JSON forms, alone or as a field (a view's
    timestamp is a string)."""
    for message in (wrappers_pb2.BytesValue(value=b"\x00\x01"), struct_pb2.Value(number_value=2)):
        assert _rest_json._json_value(message) == _reference(message)
    view = pb.GameView(name="games/x")
    view.create_time.FromSeconds(1_700_000_000)
    mapped = to_json_dict(view)
    assert mapped == _reference(view) and mapped["createTime"] == "2023-11-14T22:13:20Z"


def test_codec_round_trips_connect_json() -> None:
    """The Connect codec writes compact JSON that json_format reads back to the same message."""
    request = pb.PlayCardRequest(name="games/g", card=pb.Card(suit=pb.SUIT_SPADE, rank=7))
    encoded = FastJsonCodec[pb.PlayCardRequest]().encode(request)
    assert encoded == dumps(request) and b" " not in encoded
    assert json.loads(encoded) == _reference(request)
    assert FastJsonCodec[pb.PlayCardRequest]().decode(encoded, pb.PlayCardRequest) == request


def _parsed_by_json_format(
    data: object, message_class: type[Message], ignore: bool
) -> Message | str:
    message = message_class()
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=ignore)  # type: ignore[arg-type]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return message


def _parsed_fast(data: object, message_class: type[Message], ignore: bool) -> Message | str:
    try:
        return from_json_dict(data, message_class, ignore_unknown_fields=ignore)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


_CARD = {"suit": "SUIT_SPADE", "rank": 7}
_PARSE_CASES: list[tuple[type[Message], object]] = [
    (pb.PlayCardRequest, {"name": "games/g", "card": _CARD, "capture": {"cards": [_CARD]}}),
    (pb.PlayCardRequest, {"card": _CARD, "capture": {}, "requestId": "r", "etag": "e"}),
    (pb.PlayCardRequest, {"request_id": "r"}),  # the proto name is accepted too
    (pb.PlayCardRequest, {"requestId": "r", "request_id": "s"}),  # both names
    (pb.PlayCardRequest, {"name": None}),  # null clears
    (pb.PlayCardRequest, {"card": None}),
    (pb.PlayCardRequest, {"nme": "games/g"}),  # unknown field
    (pb.PlayCardRequest, {"[ext]": 1}),
    (pb.PlayCardRequest, {"name": 5}),
    (pb.PlayCardRequest, {"name": "\ud800"}),  # an unpaired surrogate
    (pb.PlayCardRequest, {"name": "gämes/ü"}),
    (pb.PlayCardRequest, {"card": {"suit": 2, "rank": 7}}),  # enum by number
    (pb.PlayCardRequest, {"card": {"suit": "SUIT_NONE_SUCH"}}),
    (pb.PlayCardRequest, {"card": {"rank": "7"}}),  # an integer as a string
    (pb.PlayCardRequest, {"card": {"rank": 7.0}}),
    (pb.PlayCardRequest, {"card": {"rank": 7.5}}),
    (pb.PlayCardRequest, {"card": {"rank": True}}),
    (pb.PlayCardRequest, {"card": {"rank": 2**40}}),  # out of int32's range
    (pb.PlayCardRequest, {"card": []}),
    (pb.PlayCardRequest, {"capture": {"cards": {}}}),
    (pb.PlayCardRequest, {"capture": {"cards": [None]}}),
    (pb.PlayCardRequest, []),
    (pb.PlayCardRequest, None),
    (pb.Action, {"playCard": {"card": _CARD}}),
    (pb.Action, {"playCard": {"card": _CARD}, "declare": {"name": "x"}}),  # two of one oneof
    (pb.Action, {"playCard": None, "declare": {"name": "x"}}),
    (pb.Action, {"build": {"card": _CARD, "onto": [_CARD], "value": 7}}),  # a farm (fattoria)
    (pb.Action, {"build": {"card": _CARD, "onto": _CARD, "value": "7"}}),
    (pb.SeatSpec, {"displayName": "p", "open": True, "bot": "greedy"}),
    (pb.SeatSpec, {"open": "true"}),
    (pb.SeatSpec, {"open": 1}),
    (pb.ScoreLine, {"name": "x", "points": [1, 2], "values": [1.5, "NaN", "Infinity"]}),
    (pb.ScoreLine, {"points": [1, "2"]}),
    (pb.ScoreLine, {"points": [1, 2**40]}),
    (pb.ScoreLine, {"points": 1}),
    (pb.HandResult, {"lines": [{"name": "a", "points": [1]}], "totals": [3]}),
    (pb.ScoreLine, {"values": [1, 2.5, -0.0, 2**60, True, "1.5"]}),
    (pb.ScoreLine, {"values": [float("nan")]}),
    (pb.ScoreLine, {"values": [1e308 * 10]}),
    (pb.GameView, {"name": "games/g", "seat": 0, "options": {"x": {"intValue": 3}}}),
    (pb.CreateGameRequest, {"preset": "scopa", "options": {"x": {"boolValue": True}}}),
    (pb.CreateGameRequest, {"options": {"x": {"intValue": 1, "boolValue": True}}}),
    (pb.CreateGameRequest, {"options": {"x": None}}),
    (pb.CreateGameRequest, {"options": {"x": {}}}),
    (pb.CreateGameRequest, {"options": []}),
    (wrappers_pb2.StringValue, "s"),
]


@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize(("message_class", "data"), _PARSE_CASES)
def test_from_json_dict_parses_and_fails_as_json_format(
    message_class: type[Message], data: object, ignore: bool
) -> None:
    """Each input parses to json_format's message, or fails with json_format's message."""
    expected = _parsed_by_json_format(data, message_class, ignore)
    got = _parsed_fast(data, message_class, ignore)
    assert got == expected
    if isinstance(got, Message):
        assert isinstance(expected, Message)
        assert got.SerializeToString() == expected.SerializeToString()  # presence too


def test_from_json_dict_sets_empty_messages_and_nests_to_json_formats_depth() -> None:
    """An empty object still sets its field; nesting json_format refuses is refused."""
    parsed = from_json_dict({"capture": {}}, pb.PlayCardRequest)
    assert parsed.HasField("capture") and not parsed.capture.cards
    deep: dict[str, object] = {}
    node = deep
    for _ in range(120):  # HandResult.lines is not recursive: build a recursive-type input
        node["a"] = node = {}
    assert isinstance(_parsed_fast(deep, struct_pb2.Struct, False), str) is isinstance(
        _parsed_by_json_format(deep, struct_pb2.Struct, False), str
    )


def test_every_message_of_a_game_parses_back_like_json_format() -> None:
    """Each response of a whole game, as JSON with either field spelling, parses the same."""
    for message in asyncio.run(_game_messages("scopa", 2)):
        for spelling in (False, True):
            data = json_format.MessageToDict(message, preserving_proto_field_name=spelling)
            parsed = from_json_dict(data, type(message))
            assert parsed == _parsed_by_json_format(data, type(message), False) == message


def test_codec_decodes_as_json_format_parse_does() -> None:
    """Connect JSON: duplicate keys, a byte order mark and bad JSON fail as json_format's do;
    unknown fields are skipped."""
    codec = FastJsonCodec[pb.PlayCardRequest]()
    good = b'{"name":"games/g","card":{"suit":"SUIT_SPADE","rank":7},"future":1}'
    assert codec.decode(good, pb.PlayCardRequest) == json_format.Parse(
        good, pb.PlayCardRequest(), ignore_unknown_fields=True
    )
    bom = "\ufeff{}".encode()
    for bad in (b'{"name":"a","name":"b"}', b'{"name":', b'{"card":{"rank":"x"}}', bom):
        with pytest.raises(json_format.ParseError) as fast:
            codec.decode(bad, pb.PlayCardRequest)
        with pytest.raises(json_format.ParseError) as reference:
            json_format.Parse(bad, pb.PlayCardRequest(), ignore_unknown_fields=True)
        assert str(fast.value) == str(reference.value)


def test_dumps_keeps_a_bounded_number_of_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nested texts are kept per type up to a bound (then dropped) and never mixed up."""
    monkeypatch.setattr(_rest_json, "_TEXTS_KEPT", 5)
    seats = [pb.SeatInfo(seat=i, display_name=f"p{i}", hand_size=i % 4) for i in range(12)]
    for _ in range(2):
        for seat in seats:
            view = pb.GameView(seats=[seat])
            assert json.loads(dumps(view)) == _reference(view)
    plan = _rest_json._text_plan(pb.SeatInfo.DESCRIPTOR)
    assert plan is not None and 0 < len(plan.texts) <= 5


@pytest.mark.parametrize(("preset", "players"), [("scopa", 2), ("scopone", 4)])
def test_dumps_with_a_tail_writes_the_complete_response(preset: str, players: int) -> None:
    """dumps(message, tail) is byte for byte dumps() of the message its bytes and the tail
    parse to: each view's options map and deck size in their place (twice: kept texts too)."""
    _, _, responses = asyncio.run(_played(preset, players, options_tail=True))
    assert len(responses) > 20 and all(tail for _, tail in responses)
    for _ in range(2):
        for message, tail in responses:
            whole = type(message).FromString(message.SerializeToString() + tail)
            assert len(whole.view.options) > 30 and whole.view.deck_size == 40  # type: ignore[attr-defined]
            assert dumps(message, tail) == dumps(whole)
            assert json.loads(dumps(message, tail)) == _reference(whole)


def test_a_tail_that_sets_what_the_message_sets_is_merged_as_the_parser_would() -> None:
    """Scalars the tail sets again, lists it extends and a oneof member it replaces come out
    as parsing the bytes and the tail does (not as the texts side by side)."""
    card, other = pb.Card(suit=pb.SUIT_SPADE, rank=7), pb.Card(suit=pb.SUIT_COPPE, rank=1)
    cases: list[tuple[Message, Message]] = [
        (pb.GameView(name="games/x", deck_size=40), pb.GameView(deck_size=52)),
        (pb.GameView(table=[card]), pb.GameView(table=[other])),
        (pb.GetStateResponse(view=pb.GameView(table=[card])), pb.GetStateResponse(
            view=pb.GameView(table=[other], version=3))),
        (pb.Action(play_card=pb.PlayCardAction(card=card)),
         pb.Action(claim_sweep=pb.ClaimSweepAction(card=other))),
        (pb.GameView(name="games/x"), pb.GameView(options={"x": pb.OptionValue(int_value=1)})),
    ]  # fmt: skip
    for message, tail in cases:
        data = tail.SerializeToString()
        whole = type(message).FromString(message.SerializeToString() + data)
        assert dumps(message, data) == dumps(whole), (message, tail)

"""Tests of scopa.transport._rest_rules: HttpRule path templates, routes and request binding."""

from __future__ import annotations

import pytest

from scopa.app import InvalidArgument
from scopa.transport._rest_rules import PathTemplate, Route, bind_request, routes_of
from scopa_client.v1 import scopa_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["GameService"]


def _route(method: str) -> Route:
    (route,) = [r for r in routes_of(SERVICE) if r.method.name == method]
    return route


def test_routes_come_from_every_annotated_method() -> None:
    """Each method's google.api.http option becomes one route with its verb and body."""
    found = {(r.http_method, r.template.text, r.body) for r in routes_of(SERVICE)}
    assert found == {
        ("POST", "/v1/games", "*"),
        ("GET", "/v1/games", ""),
        ("GET", "/v1/{name=games/*}", ""),
        ("POST", "/v1/{name=games/*}:playCard", "*"),
        ("POST", "/v1/{name=games/*}:takeAction", "*"),
        ("POST", "/v1/{name=games/*}:join", "*"),
        ("GET", "/v1/{name=games/*}:watch", ""),
        ("GET", "/v1/rulesets", ""),
        ("GET", "/v1/{name=games/*}/record", ""),
        ("POST", "/v1/{name=games/*}:resign", "*"),
        ("POST", "/v1/{name=games/*}:rematch", "*"),
        ("GET", "/v1/me/games", ""),
    }


@pytest.mark.parametrize(
    ("template", "path", "expected"),
    [
        ("/v1/{name=games/*}", "/v1/games/abc", {"name": "games/abc"}),
        ("/v1/{name=games/*}", "/v1/games/a%2Fb", {"name": "games/a/b"}),
        ("/v1/{name=games/*}", "/v1/games/abc/def", None),
        ("/v1/{name=games/*}", "/v1/games/abc:watch", None),
        ("/v1/{name=games/*}:watch", "/v1/games/abc:watch", {"name": "games/abc"}),
        ("/v1/{name=games/*}:watch", "/v1/games/abc", None),
        ("/v1/{book}", "/v1/x", {"book": "x"}),
        (
            "/v1/{name=shelves/*/books/**}",
            "/v1/shelves/1/books/a/b",
            {"name": "shelves/1/books/a/b"},
        ),
        ("/v1/{a.b=x/*}/{c}", "/v1/x/1/2", {"a.b": "x/1", "c": "2"}),
        ("/v1/rulesets", "/v1/rulesets", {}),
        ("/v1/rulesets", "/v1/rulesetsx", None),
    ],
)
def test_path_templates_match_segments_and_verbs(
    template: str, path: str, expected: dict[str, str] | None
) -> None:
    """`*` is a segment, `**` the rest, `{f}` is `{f=*}`, a verb must match; values unquoted."""
    assert PathTemplate.parse(template).match(path) == expected


def test_a_template_must_start_with_a_slash() -> None:
    """A template without the leading slash is refused when routes are built."""
    with pytest.raises(ValueError, match="start with"):
        PathTemplate.parse("v1/games")


def test_body_star_maps_the_whole_body_and_the_path() -> None:
    """body "*": the JSON body fills the request, the path variable its name field."""
    route = _route("PlayCard")
    body = b'{"card": {"suit": "SUIT_SPADE", "rank": 3}, "requestId": "r1"}'
    request = bind_request(route, {"name": "games/g"}, [], body)
    assert request == pb.PlayCardRequest(
        name="games/g", card=pb.Card(suit=pb.SUIT_SPADE, rank=3), request_id="r1"
    )


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_a_body_is_read_in_the_encodings_json_loads_detects(codec: str) -> None:
    """A body in UTF-8 with a byte order mark, UTF-16 or UTF-32 binds as json.loads reads it."""
    text = '{"card": {"suit": "SUIT_SPADE", "rank": 3}, "requestId": "r\u00e8"}'
    request = bind_request(_route("PlayCard"), {"name": "games/g"}, [], text.encode(codec))
    assert request == pb.PlayCardRequest(
        name="games/g", card=pb.Card(suit=pb.SUIT_SPADE, rank=3), request_id="r\u00e8"
    )


@pytest.mark.parametrize(
    ("query", "body", "field"),
    [
        ([("etag", "x")], b"{}", "etag"),  # body "*" leaves nothing to the query
        ([], b'{"bogus": 1}', "bogus"),  # unknown field, named by its path
        ([], b'{"card": {"suit": "SUIT_SPADE", "rnak": 3}}', "card.rnak"),
        ([], b'{"capture": {"cards": [{}, {"sute": 1}]}}', "capture.cards[1].sute"),
        ([], b'{"card": {"rank": "three"}}', "card.rank"),  # a wrong value, named by its path
        ([], b'{"name": "games/other"}', "name"),  # differs from the path
        ([], b"[1,", "body"),  # not JSON
        ([], b"[" * 5000 + b"]" * 5000, "body"),  # nested past json's recursion limit
        ([], b"null", "body"),  # JSON, but not an object
        ([], b"true", "body"),
        ([], b"1.5", "body"),
        ([], b'"games/g"', "body"),
        ([], b"[]", "body"),
        ([], b"[{}]", "body"),
        ([], b'{"requestId": "a", "requestId": "b"}', "body"),  # a name given twice
        ([], b'{"card": {"rank": 3, "rank": 4}}', "body"),
    ],
)
def test_body_star_refuses_query_unknown_fields_and_conflicts(
    query: list[tuple[str, str]], body: bytes, field: str
) -> None:
    """With body "*", query parameters, unknown fields and a conflicting name are refused."""
    with pytest.raises(InvalidArgument) as info:
        bind_request(_route("PlayCard"), {"name": "games/g"}, query, body)
    assert info.value.field == field


def test_a_misspelt_field_is_named_in_our_words() -> None:
    """Which field, where, and the names the message has: no json_format wording."""
    body = b'{"card": {"suit": "SUIT_SPADE", "rank": 3, "bogus": 1}}'
    with pytest.raises(InvalidArgument) as info:
        bind_request(_route("PlayCard"), {"name": "games/g"}, [], body)
    assert info.value.message == (
        "body: card.bogus is not a field of Card (its fields: suit, rank, copy)"
    )
    assert "Available Fields" not in info.value.message


def test_without_a_body_the_remaining_fields_come_from_the_query() -> None:
    """A GET binds path variables and query parameters by JSON or proto name."""
    route = _route("WatchGame")
    by_json = bind_request(route, {"name": "games/g"}, [("fromVersion", "7")], b"")
    by_proto = bind_request(route, {"name": "games/g"}, [("from_version", "7")], b"")
    assert by_json == by_proto == pb.WatchGameRequest(name="games/g", from_version=7)


@pytest.mark.parametrize(
    ("query", "body", "field"),
    [
        ([("nope", "1")], b"", "nope"),
        ([("access_token", "t")], b"", "access_token"),
        ([("name", "games/x")], b"", "name"),  # bound by the path
        ([("fromVersion", "1"), ("fromVersion", "2")], b"", "fromVersion"),  # not repeated
        ([("fromVersion", "x")], b"", "from_version"),  # not a number: named by proto name
        ([], b'{"fromVersion": 1}', "body"),  # the method takes no body
    ],
)
def test_without_a_body_unknown_repeated_or_bound_parameters_are_refused(
    query: list[tuple[str, str]], body: bytes, field: str
) -> None:
    """Unknown, path-bound or doubled query parameters and any body are INVALID_ARGUMENT."""
    with pytest.raises(InvalidArgument) as info:
        bind_request(_route("WatchGame"), {"name": "games/g"}, query, body)
    assert info.value.field == field


def test_a_body_field_takes_the_body_and_leaves_the_rest_to_the_query() -> None:
    """body "card": the JSON body is the card; other scalar fields come from the query."""
    play = _route("PlayCard")
    route = Route("POST", PathTemplate.parse("/v1/{name=games/*}:play"), play.method, "card", "")
    request = bind_request(
        route, {"name": "games/g"}, [("etag", "v3")], b'{"suit": "SUIT_COPPE", "rank": 1}'
    )
    assert request == pb.PlayCardRequest(
        name="games/g", card=pb.Card(suit=pb.SUIT_COPPE, rank=1), etag="v3"
    )
    with pytest.raises(InvalidArgument) as info:
        bind_request(route, {"name": "games/g"}, [("card.rank", "2")], b"{}")
    assert info.value.field == "card.rank"  # bound by the body


def test_message_fields_cannot_be_query_parameters_but_their_leaves_can() -> None:
    """A query parameter naming a message is refused; a dotted path to a scalar is bound."""
    play = _route("PlayCard")
    route = Route("GET", PathTemplate.parse("/v1/{name=games/*}:peek"), play.method, "", "")
    with pytest.raises(InvalidArgument):
        bind_request(route, {"name": "games/g"}, [("card", "x")], b"")
    request = bind_request(
        route, {"name": "games/g"}, [("card.rank", "4"), ("card.suit", "SUIT_SPADE")], b""
    )
    assert request == pb.PlayCardRequest(name="games/g", card=pb.Card(suit=pb.SUIT_SPADE, rank=4))

"""Tests of tools/openapi.py: the OpenAPI document built from the proto's HTTP annotations."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from openapi_spec_validator import validate

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "service" / "scopa" / "transport" / "openapi.json"
sys.path.insert(0, str(ROOT / "tools"))  # tools/openapi.py imports tools/openapi_errors.py


def _load(name: str) -> ModuleType:
    """Import a tools/ script as a module."""
    spec = importlib.util.spec_from_file_location(
        f"scopa_tools_{name}", ROOT / "tools" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The committed document (make test checks it equals a fresh generation)."""
    loaded: dict[str, Any] = json.loads(COMMITTED.read_text())
    return loaded


@pytest.mark.parametrize(
    ("template", "path", "params"),
    [
        ("/v1/{name=games/*}:playCard", "/v1/games/{game}:playCard", [("game", "name")]),
        (
            "/v1/{name=publishers/*/books/*}",
            "/v1/publishers/{publisher}/books/{book}",
            [("publisher", "name"), ("book", "name")],
        ),
        ("/v1/{book}", "/v1/{book}", [("book", "book")]),
        ("/v1/rulesets", "/v1/rulesets", []),
    ],
)
def test_path_variables_become_one_parameter_per_wildcard(
    template: str, path: str, params: list[tuple[str, str]]
) -> None:
    """A variable's literal segments stay in the path; each wildcard is a path parameter."""
    assert _load("openapi")._openapi_path(template) == (path, params)


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    """openapi-spec-validator accepts the document."""
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_annotated_route_is_an_operation(document: dict[str, Any]) -> None:
    """Each google.api.http rule is an operation with the method's name and the error default."""
    operations = {
        op["operationId"]: (verb, path)
        for path, item in document["paths"].items()
        for verb, op in item.items()
    }
    assert operations == {
        "CreateGame": ("post", "/v1/games"),
        "GetState": ("get", "/v1/games/{game}"),
        "PlayCard": ("post", "/v1/games/{game}:playCard"),
        "TakeAction": ("post", "/v1/games/{game}:takeAction"),
        "JoinGame": ("post", "/v1/games/{game}:join"),
        "WatchGame": ("get", "/v1/games/{game}:watch"),
        "ListGames": ("get", "/v1/games"),
        "ListRulesets": ("get", "/v1/rulesets"),
        "ResignGame": ("post", "/v1/games/{game}:resign"),
        "GetGameRecord": ("get", "/v1/games/{game}/record"),
        "RematchGame": ("post", "/v1/games/{game}:rematch"),
        "ListMyGames": ("get", "/v1/me/games"),
        "Healthz": ("get", "/healthz"),
        "Readyz": ("get", "/readyz"),
    }
    for path, item in document["paths"].items():
        for op in item.values():
            if path.startswith("/v1/"):
                ref = op["responses"]["default"]["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/ErrorResponse"


def test_bodies_leave_out_path_fields_and_refuse_unknown_ones(document: dict[str, Any]) -> None:
    """body "*": the body schema has the request's fields but the path-bound name, and no others."""
    play = document["paths"]["/v1/games/{game}:playCard"]["post"]
    schema = play["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == {"card", "capture", "etag", "requestId"}
    assert schema["additionalProperties"] is False and schema["required"] == ["card"]
    watch = document["paths"]["/v1/games/{game}:watch"]["get"]
    query = [p["name"] for p in watch["parameters"] if p["in"] == "query"]
    assert query == ["fromVersion", "followRematch"]
    assert "text/event-stream" in watch["responses"]["200"]["content"]


def test_json_mapping_of_types(document: dict[str, Any]) -> None:
    """Enums are their names, int32 versions are integers, output-only fields are read-only."""
    schemas = document["components"]["schemas"]
    assert schemas["scopa.v1.Suit"]["enum"][1] == "SUIT_COPPE"
    version = schemas["scopa.v1.GameView"]["properties"]["version"]
    assert version["allOf"] if "allOf" in version else version["type"] == "integer"
    assert version.get("readOnly") is True
    options = schemas["scopa.v1.GameView"]["properties"]["options"]
    assert options["type"] == "object" and "additionalProperties" in options


def test_fields_the_server_always_sends_are_required(document: dict[str, Any]) -> None:
    """Output messages require every field without presence and the REQUIRED ones; a field with
    presence (optional, oneof, message) is required only when REQUIRED; request messages only
    require REQUIRED fields."""
    schemas = document["components"]["schemas"]
    view = set(schemas["scopa.v1.GameView"]["required"])
    assert {"name", "etag", "status", "seats", "sides", "legalMoves", "winners"} <= view
    assert not {"seat", "turn", "turnDeadline", "phase"} & view  # unset when there is none
    assert schemas["scopa.v1.LegalMove"]["required"] == ["card", "capture"]
    created = schemas["scopa.v1.CreateGameResponse"]["required"]
    assert created == ["name", "credentials", "invites", "view", "spectatorToken"]
    assert schemas["scopa.v1.GetStateResponse"]["required"] == ["view"]
    assert schemas["scopa.v1.Card"]["required"] == ["suit", "rank"]  # also a request's card
    assert "required" not in schemas["scopa.v1.SeatSpec"]  # a request message


def test_security_follows_each_method_token_option(document: dict[str, Any]) -> None:
    """A token is needed, taken optionally (the document's own security) or not taken."""
    assert document["security"] == [{}, {"bearer": []}]
    security = {
        op["operationId"]: op.get("security", "inherited")
        for item in document["paths"].values()
        for op in item.values()
    }
    assert security == {
        "CreateGame": [],
        "ListGames": [],
        "ListRulesets": [],
        "GetState": "inherited",
        "WatchGame": "inherited",
        "JoinGame": "inherited",
        "GetGameRecord": "inherited",
        "PlayCard": [{"bearer": []}],
        "TakeAction": [{"bearer": []}],
        "ResignGame": [{"bearer": []}],
        "RematchGame": [{"bearer": []}],
        "ListMyGames": [{"bearer": []}],
        "Healthz": [],
        "Readyz": [],
    }


def test_the_bearer_names_the_three_tokens_it_takes(document: dict[str, Any]) -> None:
    """The bearer scheme's description names a seat token, an identity token and a spectator
    token."""
    description = document["components"]["securitySchemes"]["bearer"]["description"]
    for token in ("seat token", "OpenID Connect access token", "spectator token"):
        assert token in description


def test_oneofs_are_one_of_objects_each_requiring_its_member(document: dict[str, Any]) -> None:
    """Event, Action and OptionValue: a oneOf of objects, each with its member required."""
    schemas = document["components"]["schemas"]
    for message, count in (("Event", 14), ("Action", 6), ("OptionValue", 3)):
        branches = schemas[f"scopa.v1.{message}"]["oneOf"]
        assert len(branches) == count
        for ref in branches:
            branch = schemas[ref["$ref"].rsplit("/", 1)[-1]]
            members = set(branch["properties"]) - {"version"}
            assert len(members) == 1 and members <= set(branch["required"])
            assert branch["additionalProperties"] is False
    played = schemas["scopa.v1.Event.kind.cardPlayed"]
    assert played["required"] == ["version", "cardPlayed"]
    watch = document["paths"]["/v1/games/{game}:watch"]["get"]["responses"]["200"]
    stream = watch["content"]["text/event-stream"]["schema"]
    assert stream["contentSchema"] == {"$ref": "#/components/schemas/scopa.v1.WatchGameResponse"}


def test_documented_responses_servers_and_ids(document: dict[str, Any]) -> None:
    """304, 412, 429 (with Retry-After) and each call's 4xx; a server; the id's real pattern."""
    assert document["servers"][0]["url"] == "/"
    paths = document["paths"]
    get = paths["/v1/games/{game}"]["get"]
    assert {"200", "304", "400", "401", "403", "404", "409", "412", "429", "503"} <= set(
        get["responses"]
    )
    assert "If-None-Match" in [p["name"] for p in get["parameters"]]
    play = paths["/v1/games/{game}:playCard"]["post"]["responses"]
    assert "STALE_ETAG" in play["412"]["description"]
    assert "CARD_NOT_IN_HAND" in play["400"]["description"]
    create = paths["/v1/games"]["post"]["responses"]
    assert "RATE_LIMITED" in create["429"]["description"]
    assert "Retry-After" in create["429"]["headers"]
    assert "304" not in paths["/v1/games/{game}:playCard"]["post"]["responses"]
    game = get["parameters"][0]
    assert game["schema"]["pattern"] == "^[A-Za-z0-9_-]{1,64}$"
    assert "without" in game["description"] and "games/{game}" in game["description"]


def test_request_enums_name_their_refused_zero(document: dict[str, Any]) -> None:
    """A REQUIRED enum field says its *_UNSPECIFIED value is refused (and excludes it)."""
    suit = document["components"]["schemas"]["scopa.v1.Card"]["properties"]["suit"]
    assert suit["not"] == {"const": "SUIT_UNSPECIFIED"}
    assert "SUIT_UNSPECIFIED" in suit["description"]


def test_documented_errors_reads_code_and_reason_lines() -> None:
    """`- CODE / REASON:` lines, wherever they are in a comment."""
    errors = _load("openapi_errors").documented_errors(
        "Errors:\n- ABORTED / STALE_ETAG: stale.\nNot - A / B: here.\n- NOT_FOUND / X: gone."
    )
    assert errors == [("ABORTED", "STALE_ETAG"), ("NOT_FOUND", "X")]


def _walk(node: object) -> Iterator[dict[str, Any]]:
    """Every object of a JSON document, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_no_all_of_wraps_a_lone_schema_where_nothing_sits_beside_it() -> None:
    """An ``allOf`` of one schema only carries a description or a flag beside a $ref; alone
    (as a query parameter's schema, whose description is the parameter's) Redocly's
    no-illogical-composition-keywords refuses it."""
    document = json.loads(COMMITTED.read_text())
    lone = [n for n in _walk(document) if list(n) == ["allOf"] and len(n["allOf"]) == 1]
    assert lone == []

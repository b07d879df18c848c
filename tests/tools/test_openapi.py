"""Tests of tools/openapi.py: the OpenAPI document built from the proto's HTTP annotations."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from openapi_spec_validator import validate

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "service" / "scopa" / "transport" / "openapi.json"


def _load(name: str) -> ModuleType:
    """Import a tools/ script as a module."""
    spec = importlib.util.spec_from_file_location(
        f"scopa_tools_{name}", ROOT / "tools" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
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
        "Healthz": ("get", "/healthz"),
        "Readyz": ("get", "/readyz"),
    }
    for path, item in document["paths"].items():
        for op in item.values():
            if path.startswith("/v1/"):
                ref = op["responses"]["default"]["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/Error"


def test_bodies_leave_out_path_fields_and_refuse_unknown_ones(document: dict[str, Any]) -> None:
    """body "*": the body schema has the request's fields but the path-bound name, and no others."""
    play = document["paths"]["/v1/games/{game}:playCard"]["post"]
    schema = play["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == {"card", "capture", "etag", "requestId"}
    assert schema["additionalProperties"] is False and schema["required"] == ["card"]
    watch = document["paths"]["/v1/games/{game}:watch"]["get"]
    assert [p["name"] for p in watch["parameters"] if p["in"] == "query"] == ["fromVersion"]
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

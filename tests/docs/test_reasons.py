"""Tests that error reasons agree across the server, the proto comments and the client."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from scopa.rules import PRESETS, Options
from scopa.rules._scoring import scoring_rules
from scopa.server import ERROR_CODES, map_exception
from scopa_client import Reason

ROOT = Path(__file__).resolve().parents[2]
PROTO = (ROOT / "proto" / "scopa" / "v1" / "scopa.proto").read_text()
DOCUMENTED = set(re.findall(r"// - ([A-Z_]+) / ([A-Z_]+)", PROTO))


def _server_pairs() -> set[tuple[str, str]]:
    pairs = set()
    for exc_type in ERROR_CODES:
        if not exc_type.__module__.startswith("scopa."):
            continue  # other tests register throwaway classes
        mapped = map_exception(_instance(exc_type))
        pairs.add((mapped.code.name, mapped.reason))
    return pairs


def _instance(exc_type: type[BaseException]) -> BaseException:
    """An instance of ``exc_type`` with "x" for each required positional parameter (one for a
    class that keeps the built-in ``Exception.__init__``)."""
    try:
        parameters = inspect.signature(exc_type).parameters.values()
    except ValueError:
        return exc_type("x")
    required = [
        p
        for p in parameters
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return exc_type(*["x"] * max(1, len(required)))


def test_every_server_error_is_documented_in_the_proto() -> None:
    """Each (status, reason) the server can return is documented on some RPC."""
    # AppError is never raised itself (a bare RulesError is INTERNAL). INVALID_SEAT is the
    # engine's guard against a seat number out of range, which the service never passes
    # (seats come from verified tokens).
    engine_only = {"APP_ERROR", "INVALID_SEAT"}
    undocumented = {pair for pair in _server_pairs() if pair[1] not in engine_only} - DOCUMENTED
    assert not undocumented


def test_every_documented_reason_is_in_the_client() -> None:
    """The client's Reason enum names every reason the proto documents, and no other."""
    assert {reason for _, reason in DOCUMENTED} == {r.value for r in Reason}


def test_proto_names_every_score_line() -> None:
    """The ScoreLine comment in the proto names every scoring category the engine can emit."""
    everything = Options(
        settanta=True,
        re_bello=True,
        rosmarino=True,
        two_of_spade=True,
        napola_denari=True,
        napola_spade=True,
        picula=True,
        bagher=True,
        spade_points=2,
    )
    variants = [p.options() for p in PRESETS.values()] + [everything]
    names = {rule.name for options in variants for rule in scoring_rules(options)}
    comment = PROTO[PROTO.index("// One scoring category") : PROTO.index("message ScoreLine")]
    assert names and all(f'"{name}"' in comment for name in names), names

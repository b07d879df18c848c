"""Tests of scopa.app._records: request fingerprints and the responses kept for retries."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from scopa import rules
from scopa.app import CreateGameCommand, InvalidArgument, RequestIdReused, SeatSpec
from scopa.app._eventlog import encode_log, encode_response
from scopa.app._records import (
    canonical,
    create_digest,
    fingerprint,
    frame_response,
    replay,
    replayed_seat,
)


def test_a_fingerprint_tells_the_rpc_and_every_argument_apart() -> None:
    prints = {
        fingerprint("TakeAction", "a", "v1"),
        fingerprint("TakeAction", "a", "v2"),
        fingerprint("TakeAction", "a,v1"),
        fingerprint("ResignGame", "a", "v1"),
    }
    assert len(prints) == 4
    assert fingerprint("ResignGame") == fingerprint("ResignGame")
    assert len(fingerprint("ResignGame")) == 16


@pytest.mark.parametrize(
    "arguments",
    [
        ("TakeAction", '["move", 12, [3, 7]]', "v12"),
        ("TakeAction", "".join(map(chr, range(128))), 'quote " back \\ slash /'),
        ("ResignGame", "caffè", "☃ \u2028 \U0001f600", "\x00\x1f\x7f"),
    ],
)
def test_a_fingerprint_is_the_digest_of_the_compact_ascii_json(arguments: tuple[str, ...]) -> None:
    """The digest of one request never changes from release to release (a retry may reach
    another): sha256 of the arguments' compact JSON, non-ASCII text escaped, as json writes it."""
    text = json.dumps(list(arguments), separators=(",", ":"))
    assert fingerprint(*arguments) == hashlib.sha256(text.encode()).digest()[:16]


def test_an_action_is_canonical_whatever_its_capture_order() -> None:
    assert canonical(rules.Move(3, (1, 2))) == canonical(rules.Move(3, (2, 1)))
    assert canonical(rules.Move(3, (1, 2))) != canonical(rules.Move(3, (1,)))
    assert canonical(rules.Move(3, None)) != canonical(rules.Move(3, ()))


def test_a_create_digest_covers_the_whole_request() -> None:
    base = CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    others = [
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("")]),
        CreateGameCommand("scopa", {"players": 2}, base.seats),
        CreateGameCommand("scopone", {}, base.seats),
        CreateGameCommand("scopa", {}, base.seats, public=True),
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", bot="greedy")]),
    ]
    digests = {create_digest(c) for c in others}
    assert create_digest(base) not in digests and len(digests) == len(others)
    assert create_digest(base) == create_digest(CreateGameCommand("scopa", {}, list(base.seats)))


def kept(seat: int = 1, version: int = 5) -> tuple[bytes, bytes, rules.MatchState]:
    """A kept response of ``seat`` at ``version``, its fingerprint and the state it had."""
    state, events = rules.new_match(rules.make_ruleset("scopa", {}), rng=random.Random(3))
    request = fingerprint("TakeAction", "x")
    return frame_response(request, seat, version, encode_log(events)), request, state


def test_a_retry_gets_the_first_response_with_the_state_kept_beside_it() -> None:
    cached, request, state = kept()
    version, replayed, events = replay(1, cached, rules.dump_state(state), request)
    assert version == 5 and replayed == state and events
    assert replayed_seat(cached, request) == 1


def test_a_kept_response_answers_only_its_own_request_and_seat() -> None:
    cached, request, state = kept()
    with pytest.raises(RequestIdReused):
        replay(1, cached, rules.dump_state(state), fingerprint("TakeAction", "y"))
    with pytest.raises(RequestIdReused):
        replayed_seat(cached, fingerprint("ResignGame"))
    with pytest.raises(InvalidArgument, match="another seat"):
        replay(0, cached, rules.dump_state(state), request)


def test_a_response_without_a_fingerprint_replays_unchecked_and_needs_a_state() -> None:
    _, _, state = kept()
    old = encode_response(1, 5, encode_log([]))
    assert replayed_seat(old, fingerprint("anything")) == 1
    assert replay(1, old, rules.dump_state(state), fingerprint("x"))[0] == 5
    with pytest.raises(rules.InvalidState):
        replay(1, old, None, fingerprint("x"))

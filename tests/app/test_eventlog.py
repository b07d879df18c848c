"""Tests of scopa.app._eventlog: log entries and cached responses, of this and earlier formats."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import orjson
import pytest

from scopa import rules
from scopa.app._eventlog import (
    _LOG_DICT,
    AppEvent,
    SeatJoined,
    TurnTimedOut,
    decode_log,
    decode_response,
    encode_log,
    encode_response,
    entry_records,
    log_records,
)


def test_version_1_log_entries_and_cached_response_decode() -> None:
    """Log entries and a cached response stored by format 1 (tests/app/blobs) decode."""

    blobs = Path(__file__).with_name("blobs")
    state, events = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(4))
    assert decode_log((blobs / "log_engine.v1.bin").read_bytes()) == events
    assert decode_log((blobs / "log_joined.v1.bin").read_bytes()) == [SeatJoined(1, "Bea")]
    seat, version, state_blob, logged = decode_response((blobs / "response.v1.bin").read_bytes())
    assert (seat, version, logged) == (0, 3, events)
    assert state_blob is not None and rules.load_state(state_blob) == state


def test_a_log_entry_keeps_joins_and_engine_events_in_order() -> None:
    """A batch mixing a join with engine events comes back whole and in order (format 1 lost
    the engine events), in the keyed, versioned entry format."""

    _, dealt = rules.new_match(rules.make_ruleset("bazzica"), rng=random.Random(4))
    declared = rules.Declared(0, "accusa", (0, 10, 20), 7)
    batch = [SeatJoined(1, "Bea"), *dealt, declared, SeatJoined(0, "Ann")]
    entry = encode_log(batch)
    assert entry[:1] == b"B"
    assert decode_log(entry) == batch


def test_keyed_zlib_log_entries_still_decode() -> None:
    """Log entries of the keyed zlib format ``A`` (tests/app/blobs) decode as before."""

    blobs = Path(__file__).with_name("blobs")
    _, events = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(4))
    entry = (blobs / "log_engine.v2.bin").read_bytes()
    assert entry[:1] == b"A"
    assert decode_log(entry) == events
    assert decode_log((blobs / "log_joined.v2.bin").read_bytes()) == [SeatJoined(1, "Bea")]


def test_a_compact_log_entry_is_a_fraction_of_the_zlib_one() -> None:
    """A one-move entry (``B``: deflate with the preset dictionary) is under 30 bytes."""

    played = rules.CardPlayed(0, 12, (2,), True, False, ())
    assert len(encode_log([played])) < 30


def test_log_entries_are_the_bytes_of_a_fresh_default_compressor() -> None:
    """The primed, small compressor writes each entry of whole matches byte for byte as a new
    default one (window 32 KB, memLevel 8) with the dictionary did, and each reads back; so
    does an entry larger than its window."""

    rng = random.Random(7)
    batches: list[list[rules.Event]] = []
    for preset in ("scopa", "cirulla", "scopone"):
        state, dealt = rules.new_match(rules.make_ruleset(preset), rng=rng)
        batches.append(list(dealt))
        while not state.finished:
            move = rng.choice(rules.legal_moves(state))
            state, events = rules.apply_move(state, state.turn, move, rng)
            batches.append(list(events))
    long = [SeatJoined(seat % 4, f"player {seat} " + "x" * 40) for seat in range(120)]
    for batch in batches:
        entry = encode_log(batch)
        body = zlib.decompressobj(-zlib.MAX_WBITS, zdict=_LOG_DICT).decompress(entry[1:])
        fresh = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=_LOG_DICT)
        assert entry == b"B" + fresh.compress(body) + fresh.flush()
        assert decode_log(entry) == batch
    entry = encode_log(long)
    assert len(entry) > 100
    assert decode_log(entry) == long


@pytest.mark.parametrize("entry", [b"B", b"B\x00garbage", b"A\x78\x9c"])
def test_a_corrupt_log_entry_is_invalid_state(entry: bytes) -> None:
    """A truncated or corrupt entry raises InvalidState, not a zlib error."""

    with pytest.raises(rules.InvalidState):
        decode_log(entry)


def test_a_cached_response_is_stored_keyed_versioned_and_without_the_state() -> None:
    """A cached response is written in the keyed format 2 without the state (the store keeps
    it) and reads back whole."""

    _, events = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(4))
    blob = encode_response(1, 9, encode_log(events))
    assert blob[0] == 2
    assert decode_response(blob) == (1, 9, None, events)


def test_a_cached_response_with_its_state_still_decodes() -> None:
    """A format-2 response that carries its state (tests/app/blobs) decodes with it."""

    state, events = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(4))
    blob = (Path(__file__).with_name("blobs") / "response.v2.bin").read_bytes()
    seat, version, state_blob, logged = decode_response(blob)
    assert (seat, version, logged) == (1, 9, events)
    assert state_blob is not None and rules.load_state(state_blob) == state


def test_format_3_log_entry_of_every_kind_decodes() -> None:
    """A log entry written by the build before format 4 (tests/app/blobs), holding a join, a
    timeout and one engine event of every kind, decodes whole and in order."""

    blobs = Path(__file__).parents[1] / "rules" / "blobs"
    events = rules.load_events((blobs / "events_every_kind.v3.bin").read_bytes())
    entry = (Path(__file__).with_name("blobs") / "log_every_kind.v3.bin").read_bytes()
    want = [SeatJoined(1, "Bea"), TurnTimedOut(0, 1, False, "greedy"), *events]
    assert decode_log(entry) == want


def test_a_log_entry_of_a_newer_format_is_format_too_new() -> None:
    """An entry whose records are of a format above FORMAT_VERSION, or whose prefix this
    release does not know (a newer release's), is FORMAT_TOO_NEW, not a corrupt entry."""
    import zlib  # noqa: PLC0415

    entry = encode_log([SeatJoined(1, "Bea")])
    inflate = zlib.decompressobj(-zlib.MAX_WBITS, zdict=_LOG_DICT)
    body = (inflate.decompress(entry[1:]) + inflate.flush()).decode()
    newer = body.replace(f'"v":{rules.FORMAT_VERSION}', f'"v":{rules.FORMAT_VERSION + 1}')
    assert newer != body
    with pytest.raises(rules.FormatTooNew):
        decode_log(b"A" + zlib.compress(newer.encode()))
    with pytest.raises(rules.FormatTooNew):
        decode_log(b"C" + entry[1:])


def test_entry_records_are_those_a_fresh_encoding_writes() -> None:
    """The records of a stored entry, read as stored (this format) or decoded and written again
    (format 1, the zlib format), equal those of the events encoded now."""
    blobs = Path(__file__).with_name("blobs")
    _, dealt = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(4))
    batch = [SeatJoined(1, "Bea"), *dealt, TurnTimedOut(0, 1, False, "greedy")]
    assert entry_records(encode_log(batch)) == json.loads(json.dumps(log_records(batch)))
    expected = json.loads(json.dumps(log_records(dealt)))
    assert any(r["t"] == "cards_dealt" and r["cards"] for r in expected)
    for name in ("log_engine.v1.bin", "log_engine.v2.bin"):  # as JSON: tuples are lists
        records = entry_records((blobs / name).read_bytes())
        assert json.loads(json.dumps(records)) == expected
    with pytest.raises(rules.InvalidState):
        entry_records(b"B" + b"not deflate")


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_a_log_entry_decodes_to_the_events_it_was_encoded_from(preset: str) -> None:
    """A commit keeps its events as what its log entry decodes to (``Games.logs``), so the
    watches of the game read them without decoding: every event of every preset must come
    back equal."""
    rng = random.Random(5)
    ruleset = rules.make_ruleset(preset)
    state, events = rules.new_match(ruleset, rng=rng)
    for _ in range(120):
        assert decode_log(encode_log(events)) == list(events)
        actions = list(rules.legal_actions(state)) if not state.finished else []
        if not actions:
            break
        state, events = rules.apply_action(state, state.turn, rng.choice(actions), rng)


@pytest.mark.parametrize("preset", sorted(rules.PRESETS))
def test_a_log_entrys_json_is_its_records_as_orjson_writes_them(preset: str) -> None:
    """An entry's JSON is written from each engine event's kept text: byte for byte the JSON of
    its records (``log_records``) as orjson writes the whole body, joins and timeouts among
    them, and again for events whose texts were kept by an earlier entry."""
    rng = random.Random(6)
    state, events = rules.new_match(rules.make_ruleset(preset), rng=rng)
    for _ in range(80):
        batch: list[AppEvent] = [SeatJoined(0, "Ann"), *events, TurnTimedOut(1, 2, False, "")]
        for _twice in range(2):
            entry = encode_log(batch)
            body = zlib.decompressobj(-zlib.MAX_WBITS, zdict=_LOG_DICT).decompress(entry[1:])
            assert body == orjson.dumps({"v": rules.FORMAT_VERSION, "e": log_records(batch)})
        actions = list(rules.legal_actions(state)) if not state.finished else []
        if not actions:
            break
        state, events = rules.apply_action(state, state.turn, rng.choice(actions), rng)

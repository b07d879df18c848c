"""Tests of serialisation (scopa.rules._serial): lossless, compact, versioned, corruption-safe."""

from __future__ import annotations

import dataclasses
import json
import random
import zlib
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any, get_args

import pytest
from rules_helpers import cards, play_out, random_move
from support.blobs import with_rules

from scopa.rules import (
    FORMAT_VERSION,
    PRESETS,
    BonusScored,
    ByIdentity,
    CardPlayed,
    ClaimAnswered,
    ClaimOutcome,
    Declared,
    Event,
    Farm,
    FormatTooNew,
    GameUnplayable,
    HandResult,
    HandScored,
    InvalidOption,
    InvalidState,
    MatchState,
    PendingClaim,
    SweepClaimed,
    _serial,
    apply_move,
    dump_events,
    dump_state,
    event_records,
    events_from_records,
    load_events,
    load_state,
    make_ruleset,
    new_match,
    read_varint,
    resign,
)
from scopa.rules._compress import compress, decompress


def _payload(blob: bytes) -> Any:
    """The JSON payload of a stored blob of any format."""
    return json.loads(_raw(blob))


def _raw(blob: bytes) -> bytes:
    """The uncompressed payload of a stored blob of any format."""
    return decompress(blob[1:], blob[0])


def _blob(raw: bytes) -> bytes:
    """``raw`` stored as the current format stores a payload."""
    return bytes([FORMAT_VERSION]) + compress(raw, FORMAT_VERSION)


@pytest.mark.parametrize("preset", ["scopa", "spazzino", "scopone", "scopa_napola"])
def test_state_and_events_round_trip_through_a_whole_game(preset: str) -> None:
    """Every state and event batch of a full game loads back equal to what was dumped."""
    rng = random.Random(21)
    state, events = new_match(make_ruleset(preset, {"kings_redeal": 3}), rng=rng)
    assert load_events(dump_events(events)) == events
    while not state.finished:
        assert load_state(dump_state(state)) == state
        state, events = apply_move(state, state.turn, random_move(state, rng), rng)
        assert load_events(dump_events(events)) == events
    assert load_state(dump_state(state)) == state


def _dumped_whole(state: MatchState) -> bytes:
    """The state's JSON with its history encoded together with the rest, in one go, by the
    standard library's encoder (so the texts are also the bytes json wrote before orjson)."""
    history = [_serial._event_out(event) for event in state.history]
    text = json.JSONEncoder(separators=(",", ":")).encode(_serial._state_record(state, history))
    return text.encode()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_s_state_texts_are_the_bytes_json_wrote(preset: str) -> None:
    """The state's JSON (orjson, with kept history texts) is byte for byte what the standard
    library's encoder writes, for the states of a hand of every preset (its option values,
    special cards, farms and claims included)."""
    rng = random.Random(13)
    state, _ = new_match(make_ruleset(preset, {"hand_limit": 1}), rng=rng)
    for _ in range(120):
        assert _raw(dump_state(state)) == _dumped_whole(state)
        if state.finished:
            break
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)


@pytest.mark.parametrize("kept", [4096, pytest.param(3, marks=pytest.mark.interpreted_only)])
def test_state_texts_from_kept_history_texts_are_the_same_bytes(
    kept: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state's JSON written from the kept texts of its history events and hand results (and
    the kept first part, its results) is byte for byte the JSON encoded in one go, also when
    the kept texts are dropped mid-hand (a small bound)."""
    if kept != 4096:  # not the module's own bound: compiled code reads its (Final) binding
        monkeypatch.setattr(_serial, "_HISTORY_TEXTS", ByIdentity(kept))
        monkeypatch.setattr(_serial, "_RESULT_TEXTS", ByIdentity(kept))
        monkeypatch.setattr(_serial, "_RESULT_FRAMES", ByIdentity(kept))
    rng = random.Random(8)
    state, _ = new_match(make_ruleset("scopone", {"target_score": 11}), rng=rng)
    blobs = with_results = 0
    while not state.finished:
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
        assert _raw(dump_state(state)) == _dumped_whole(state)
        blobs += bool(state.history)
        with_results += len(state.results) > 1
    assert blobs > 30 and with_results > 30
    assert 0 < len(_serial._HISTORY_TEXTS) <= kept
    assert 0 < len(_serial._RESULT_TEXTS) <= kept


def test_overrides_and_resignation_survive_a_round_trip() -> None:
    """A ruleset's overrides and a resigned game's finish reason are kept."""
    rules = make_ruleset("spazzino", {"target_score": 31, "mazzo_ties": "unassigned"})
    state, _ = new_match(rules, rng=random.Random(2))
    over, events = resign(state, 1)
    loaded = load_state(dump_state(over))
    assert loaded == over and loaded.ruleset == rules
    assert load_events(dump_events(events)) == events


def test_a_stored_game_with_an_option_that_does_nothing_still_loads() -> None:
    """A game created before an option needing another was refused loads and plays on."""
    with pytest.raises(InvalidOption):
        make_ruleset("scopa", {"dealer_bonus_low": True})
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(4))
    payload = _payload(dump_state(state))
    payload["overrides"] = {"dealer_bonus_low": True}
    blob = _blob(json.dumps(payload).encode())
    loaded = load_state(blob)
    assert loaded.ruleset.options.dealer_bonus_low
    assert load_state(dump_state(loaded)).ruleset == loaded.ruleset


def test_live_two_player_state_is_small() -> None:
    """A live 2-player state serialises to at most 2 KiB (the store's budget)."""
    state, _ = new_match(make_ruleset("spatola"), rng=random.Random(3))
    state, _ = play_out(state, random.Random(4), stop_after_hand=True)
    assert len(dump_state(state)) <= 2048


def test_blob_starts_with_the_format_version() -> None:
    """The first byte is FORMAT_VERSION so old blobs can be recognised."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(1))
    assert dump_state(state)[0] == FORMAT_VERSION


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"\x00garbage",
        bytes([FORMAT_VERSION]) + b"not zlib",
        b"\x01x\x9c\x03\x00",
        b"\x01" + zlib.compress(b"[1, 2]"),
        bytes([FORMAT_VERSION]) + zlib.compress(b"{}"),
        bytes([FORMAT_VERSION]) + zlib.compress(b"[{}]"),
        _blob(b"{}"),
        _blob(b"[{}]"),
        _blob(b"not json"),
        bytes([FORMAT_VERSION - 1]) + _blob(b"{}")[1:],
    ],
)
def test_corrupt_or_unknown_blobs_raise_invalid_state(blob: bytes) -> None:
    """Unreadable or unknown-version state raises INVALID_STATE, never a bare exception."""
    with pytest.raises(InvalidState) as err:
        load_state(blob)
    assert err.value.reason == "INVALID_STATE"
    with pytest.raises(InvalidState):
        load_events(blob)


@pytest.mark.parametrize("version", [FORMAT_VERSION + 1, 255])
def test_a_newer_format_raises_format_too_new(version: int) -> None:
    """A blob of a format above FORMAT_VERSION (a newer release's) is FORMAT_TOO_NEW, whatever
    its payload, naming its format and the highest this code reads."""
    state, events = new_match(make_ruleset("scopa"), rng=random.Random(1))
    for blob in (dump_state(state), dump_events(events), b"x"):
        newer = bytes([version]) + blob[1:]
        for load in (load_state, load_events):
            with pytest.raises(FormatTooNew) as err:
                load(newer)
            assert err.value.reason == "FORMAT_TOO_NEW"
            want = {"format": str(version), "readable_format": str(FORMAT_VERSION)}
            assert err.value.metadata == want
    with pytest.raises(FormatTooNew):
        events_from_records(event_records(events), FORMAT_VERSION + 1)


def test_well_formed_but_wrong_payload_raises_invalid_state() -> None:
    """A valid envelope around the wrong JSON shape is rejected as INVALID_STATE."""
    state, events = new_match(make_ruleset("scopa"), rng=random.Random(1))
    with pytest.raises(InvalidState):
        load_state(dump_events(events))
    with pytest.raises(InvalidState):
        load_events(dump_state(state))


def _plain(value: Any) -> Any:
    """Tuples as lists and StrEnums as their values, recursively (the stored JSON's shape)."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def test_stored_json_is_keyed_by_field_name() -> None:
    """The payload is an object keyed by field name, overrides and events as plain values."""
    rules = make_ruleset("spazzino", {"target_score": 31, "mazzo_ties": "unassigned"})
    rng = random.Random(5)
    state, _ = new_match(rules, rng=rng)
    for _ in range(7):
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
    payload = _payload(dump_state(state))
    assert payload["preset"] == "spazzino"
    assert payload["overrides"] == {"target_score": 31, "mazzo_ties": "unassigned"}
    assert "version" not in payload  # the store owns the game's version
    assert len(payload["history"]) == 7
    assert payload["history"][0]["t"] == "card_played"
    fields = _state_fields(state)
    for name in ("preset", "overrides", "history", "results", "picule", "bagher"):
        del fields[name]
    assert {k: payload[k] for k in fields} == fields
    assert payload["specials"] == _plain(state.specials)
    assert (payload["phase"], payload["declared"]) == ("play", [])


def test_loaded_states_share_one_ruleset_per_distinct_overrides() -> None:
    """Blobs with the same preset and overrides load one shared (frozen) ruleset."""
    first, _ = new_match(make_ruleset("scopa", {"target_score": 21}), rng=random.Random(1))
    second, _ = new_match(make_ruleset("scopa", {"target_score": 21}), rng=random.Random(2))
    other, _ = new_match(make_ruleset("scopa", {"target_score": 16}), rng=random.Random(3))
    a, b, c = (load_state(dump_state(s)) for s in (first, second, other))
    assert a.ruleset is b.ruleset
    assert c.ruleset is not a.ruleset and c.ruleset.options.target_score == 16


def test_unhashable_override_value_raises_invalid_state() -> None:
    """A stored override holding a list (never written) is corrupt input, not a crash."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(1))
    payload = _payload(dump_state(state))
    payload["overrides"] = {"target_score": [1, 2]}
    blob = _blob(json.dumps(payload).encode())
    with pytest.raises(InvalidState):
        load_state(blob)


# --- stored blobs of earlier format versions -------------------------------------------------

BLOBS = Path(__file__).with_name("blobs")


def _state_fields(state: MatchState) -> dict[str, Any]:
    """The state spelled as in the blobs' JSON descriptions (cards as ints, enums as strings)."""
    return {
        "preset": state.ruleset.preset,
        "overrides": {k: _plain(v) for k, v in state.ruleset.overrides().items()},
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "turn": state.turn,
        "hands": _plain(state.hands),
        "table": _plain(state.table),
        "stock": _plain(state.stock),
        "piles": _plain(state.piles),
        "sweeps": _plain(state.sweeps),
        "picule": [dict(side).get("picula", 0) for side in state.specials],
        "bagher": [dict(side).get("bagher", 0) for side in state.specials],
        "last_capturer": state.last_capturer,
        "last_laid": state.last_laid,
        "history": [_event_fields(p) for p in state.history],
        "scores": _plain(state.scores),
        "results": [_result_fields(r) for r in state.results],
        "winners": _plain(state.winners),
        "finish_reason": state.finish_reason.value,
        "decks": _plain(state.decks),
    }


def _result_fields(result: HandResult) -> dict[str, Any]:
    score = result.score
    return {
        "hand_number": result.hand_number,
        "components": [[c.name, list(c.points), list(c.values)] for c in score.components],
        "hand_totals": list(score.totals),
        "napoleone": list(score.napoleone),
        "totals": list(result.totals),
    }


def _event_fields(event: Event) -> dict[str, Any]:
    if isinstance(event, HandScored):
        return {"type": "HandScored", "result": _result_fields(event.result)}
    if isinstance(event, CardPlayed):  # format 1 had a picula flag and bagher points, no steals
        assert event.stolen_from == -1 and event.claim is None and event.farm is None
        skipped = ("specials", "stolen_from", "claim", "farm")
        fields = {k: _plain(v) for k, v in event._asdict().items() if k not in skipped}
        specials = dict(event.specials)
        picula, bagher = specials.get("picula", 0) > 0, specials.get("bagher", 0)
        return {"type": "CardPlayed", **fields, "picula": picula, "bagher_points": bagher}
    return {"type": type(event).__name__, **{k: _plain(v) for k, v in event._asdict().items()}}


@pytest.mark.parametrize("name", ["state_spazzino_live", "state_scopa4_resigned"])
def test_version_1_state_blobs_load_with_every_field(name: str) -> None:
    """A stored format-1 state loads with every field the blob's description lists."""
    want = json.loads((BLOBS / f"{name}.v1.json").read_text())
    want.pop("version")
    loaded = load_state((BLOBS / f"{name}.v1.bin").read_bytes())
    assert _state_fields(loaded) == want
    assert dump_state(loaded)[0] == FORMAT_VERSION and load_state(dump_state(loaded)) == loaded


def test_version_1_event_blob_loads_every_kind() -> None:
    """A stored format-1 event batch loads every event kind with its fields."""
    want = json.loads((BLOBS / "events_every_kind.v1.json").read_text())
    loaded = load_events((BLOBS / "events_every_kind.v1.bin").read_bytes())
    assert [_event_fields(e) for e in loaded] == want
    assert load_events(dump_events(loaded)) == loaded
    new_since = {"Declared", "SweepClaimed", "ClaimAnswered", "BonusScored"}  # after format 1
    assert {e["type"] for e in want} | new_since == {t.__name__ for t in get_args(Event)}


V3_STATES = [
    "state_fidasse",
    "state_fattoria",
    "state_cirulla",
    "state_rubamazzo",
    "state_scopa_aces_returned",
    "state_tuzzulicchio",
]


PINNED_SINCE_7 = {"cirulla": {"napola_top": 0}}
"""The overrides format 7's migration writes into an earlier state of these presets, so that it
keeps the rules it was created with (Cirulla's whole piccola)."""


def _as_written(want: Any) -> Any:
    """An earlier-format state payload as the current format writes it back."""
    pinned = PINNED_SINCE_7.get(want.get("preset", ""), {}) if isinstance(want, dict) else {}
    if not pinned:
        return want
    return {**want, "overrides": {**pinned, **want["overrides"]}}


@pytest.mark.parametrize("name", V3_STATES)
def test_version_3_state_blobs_load_with_every_key(name: str) -> None:
    """A stored format-3 state (claims, farms, bonuses, steals, returned aces, declarations)
    loads, and written again holds every key and value its description lists."""
    blob = (BLOBS / f"{name}.v3.bin").read_bytes()
    assert blob[0] == 3
    want = _as_written(json.loads((BLOBS / f"{name}.v3.json").read_text()))
    loaded = load_state(blob)
    again = dump_state(loaded)
    assert again[0] == FORMAT_VERSION and _payload(again) == want
    assert load_state(again) == loaded


V4_STATES = [*V3_STATES, "state_spazzino_live", "state_scopa4_resigned"]


@pytest.mark.parametrize("name", [*V4_STATES, "events_every_kind"])
def test_version_4_blobs_load_and_are_written_back_with_the_same_payload(name: str) -> None:
    """A stored format-4 state or event batch loads, and written again in the current format
    holds the same JSON payload."""
    blob = (BLOBS / f"{name}.v4.bin").read_bytes()
    assert blob[0] == 4
    want = _as_written(json.loads((BLOBS / f"{name}.v4.json").read_text()))
    load, dump = (
        (load_events, dump_events) if name.startswith("events") else (load_state, dump_state)
    )
    loaded = load(blob)
    again = dump(loaded)  # type: ignore[arg-type]
    assert again[0] == FORMAT_VERSION and _payload(again) == want
    assert load(again) == loaded


V5_LIMITED = ["state_modulo_sette", "state_marescialla_80"]
"""Format-5 states of presets that set hand_limit since format 6, created with no limit."""


@pytest.mark.parametrize("name", [*V5_LIMITED, "state_marescialla_limited"])
def test_version_5_states_keep_the_hand_limit_they_were_created_with(name: str) -> None:
    """A format-5 Marescialla or Modulo sette state keeps its limit (none unless its creator
    set one) though the preset has 40 hands now; written again, its overrides say so and the
    rest of the payload is unchanged."""
    blob = (BLOBS / f"{name}.v5.bin").read_bytes()
    assert blob[0] == 5
    want = json.loads((BLOBS / f"{name}.v5.json").read_text())
    state = load_state(blob)
    preset = PRESETS[want["preset"]].options()
    assert preset.hand_limit == 40
    limit = want["overrides"].get("hand_limit", 0)
    assert state.ruleset.options.hand_limit == limit
    again = dump_state(state)
    want["overrides"] = {**want["overrides"], "hand_limit": limit}
    assert again[0] == FORMAT_VERSION and _payload(again) == want
    assert load_state(again) == state


def test_a_version_6_cirulla_state_keeps_the_whole_piccola_it_was_created_with() -> None:
    """A format-6 Cirulla state keeps the uncapped piccola it was created with though the preset
    stops it at the 7 now (issue 27); written again, its overrides say so and the rest of the
    payload is unchanged."""
    blob = (BLOBS / "state_cirulla.v6.bin").read_bytes()
    assert blob[0] == 6
    want = json.loads((BLOBS / "state_cirulla.v6.json").read_text())
    assert want["preset"] == "cirulla" and "napola_top" not in want["overrides"]
    state = load_state(blob)
    assert PRESETS["cirulla"].options().napola_top == 7
    assert state.ruleset.options.napola_top == 0
    again = dump_state(state)
    want["overrides"] = {**want["overrides"], "napola_top": 0}
    assert again[0] == FORMAT_VERSION and _payload(again) == want
    assert load_state(again) == state


V6_BLOBS = [*V4_STATES, *V5_LIMITED, "state_marescialla_limited", "events_every_kind"]
"""Written by format 6 (zlib, the last before zstd) from the blobs of formats 4 and 5."""


@pytest.mark.parametrize("name", V6_BLOBS)
def test_version_6_zlib_blobs_load_and_are_written_back_as_zstd(name: str) -> None:
    """A stored format-6 (zlib) state or event batch loads, and written again as format 8
    (zstd) holds the same JSON payload in fewer bytes."""
    blob = (BLOBS / f"{name}.v6.bin").read_bytes()
    assert blob[0] == 6
    want = json.loads((BLOBS / f"{name}.v6.json").read_text())
    assert json.loads(zlib.decompress(blob[1:])) == want
    load, dump = (
        (load_events, dump_events) if name.startswith("events") else (load_state, dump_state)
    )
    loaded = load(blob)
    again = dump(loaded)  # type: ignore[arg-type]
    assert again[0] == FORMAT_VERSION == 9 and _payload(again) == _as_written(want)
    assert len(again) < len(blob)
    assert load(again) == loaded


V8_BLOBS = V6_BLOBS
"""Written by format 8 (zstd in one frame, the last before format 9) from the format-6 blobs."""


@pytest.mark.parametrize("name", V8_BLOBS)
def test_version_8_blobs_load_and_are_written_back_in_two_parts(name: str) -> None:
    """A stored format-8 state or event batch (main's before format 9) loads, and written
    again as format 9 holds the same JSON payload."""
    blob = (BLOBS / f"{name}.v8.bin").read_bytes()
    assert blob[0] == 8
    want = json.loads((BLOBS / f"{name}.v8.json").read_text())
    assert json.loads(decompress(blob[1:], 8)) == want
    load, dump = (
        (load_events, dump_events) if name.startswith("events") else (load_state, dump_state)
    )
    loaded = load(blob)
    again = dump(loaded)  # type: ignore[arg-type]
    assert again[0] == FORMAT_VERSION == 9 and _payload(again) == want
    assert load(again) == loaded


def test_a_hands_states_share_their_first_part_the_hand_results() -> None:
    """A format-9 state's JSON starts with its hand results, the payload's first part: the
    states of one hand carry the very same first frame, and the next hand's a new one."""
    rng = random.Random(5)
    state, _ = new_match(make_ruleset("scopa", {"target_score": 61}), rng=rng)
    firsts: dict[int, set[bytes]] = {}
    while state.hand_number < 4 and not state.finished:
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
        blob = dump_state(state)
        size, start = read_varint(blob, 1)
        if state.results:
            assert size > 0 and _raw(blob).startswith(b'{"results":[{')
            firsts.setdefault(state.hand_number, set()).add(blob[start : start + size])
        else:
            assert size == 0 and _raw(blob).startswith(b'{"results":[],')
        assert load_state(blob) == state
    assert len(firsts) >= 2 and all(len(parts) == 1 for parts in firsts.values())
    assert len({part for parts in firsts.values() for part in parts}) == len(firsts)


def test_version_3_state_blobs_hold_the_keys_added_under_format_3() -> None:
    """The format-3 blobs pin every key added to format 3 before format 4 named them."""
    keys = {k for name in V3_STATES for k in json.loads((BLOBS / f"{name}.v3.json").read_text())}
    assert {"claim", "farms", "bonuses", "returned", "declarations"} <= keys
    fidasse = load_state((BLOBS / "state_fidasse.v3.bin").read_bytes())
    assert fidasse.claim is not None and any(p.claim for p in fidasse.history)
    fattoria = load_state((BLOBS / "state_fattoria.v3.bin").read_bytes())
    assert fattoria.farms and any(p.farm for p in fattoria.history)
    assert load_state((BLOBS / "state_cirulla.v3.bin").read_bytes()).bonuses
    rubamazzo = load_state((BLOBS / "state_rubamazzo.v3.bin").read_bytes())
    assert any(p.stolen_from >= 0 for p in rubamazzo.history)


def test_version_3_event_blob_loads_every_kind() -> None:
    """A stored format-3 event batch loads one event of every kind (claimed, farm and steal
    plays too) and is written again with the same records."""
    blob = (BLOBS / "events_every_kind.v3.bin").read_bytes()
    assert blob[0] == 3
    want = json.loads((BLOBS / "events_every_kind.v3.json").read_text())
    loaded = load_events(blob)
    again = dump_events(loaded)
    assert again[0] == FORMAT_VERSION and _payload(again) == want
    assert {type(e) for e in loaded} == set(get_args(Event))
    played = [e for e in loaded if isinstance(e, CardPlayed)]
    assert any(p.claim for p in played) and any(p.farm for p in played)
    assert any(p.stolen_from >= 0 for p in played)
    assert events_from_records(want, 3) == loaded


def test_every_event_kind_has_one_tag_and_reader() -> None:
    """Each event kind is written under its own tag, and every tag has a reader."""
    from scopa.rules._serial import _EVENT_DECODERS  # noqa: PLC0415

    loaded = load_events((BLOBS / "events_every_kind.v1.bin").read_bytes())
    loaded.append(Declared(seat=1, name="accusa", cards=cards("1C 1D 1S"), points=7))
    loaded.append(SweepClaimed(seat=0, table=cards("3D 4S"), answering=(1,)))
    loaded.append(ClaimAnswered(seat=1, trust=False))
    loaded.append(BonusScored(seat=1, side=1, name="dealer_bonus", points=1, cards=cards("5C 10D")))
    assert load_events(dump_events(loaded)) == loaded
    rows = _payload(dump_events(loaded))
    tags = [row["t"] for row in rows]
    assert len(set(tags)) == len(get_args(Event)) == len(loaded)
    assert set(tags) == set(_EVENT_DECODERS)


def stored(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Event records as a log entry keeps them: through JSON (tuples come back as lists)."""
    loaded: list[dict[str, Any]] = json.loads(json.dumps(records))
    return loaded


def test_event_records_of_an_earlier_format_are_migrated() -> None:
    """Records kept in another envelope load at their own format version, migrated first."""
    format_2 = {"t": "card_played", "seat": 0, "card": 5, "captured": [15], "taken": True,
                "sweep": False, "picula": True, "bagher_points": 0}  # fmt: skip
    played = CardPlayed(0, 5, (15,), True, False, (("picula", 1),))
    assert events_from_records([format_2], 2) == [played]
    assert events_from_records(stored(event_records([played])), FORMAT_VERSION) == [played]
    with pytest.raises(FormatTooNew):
        events_from_records([format_2], FORMAT_VERSION + 1)
    with pytest.raises(InvalidState):
        events_from_records([format_2], 1)
    with pytest.raises(InvalidState):
        events_from_records([{"t": "card_played"}], FORMAT_VERSION)


def test_a_steal_keeps_its_side_and_other_plays_keep_their_records() -> None:
    """stolen_from is written only for a steal, so a play's record has no new key."""
    steal = CardPlayed(0, 5, (15, 25), True, False, (), 1)
    plain = CardPlayed(0, 5, (15,), True, False, ())
    records = stored(event_records([steal, plain]))
    assert [("stolen_from" in r) for r in records] == [True, False]
    assert events_from_records(records, FORMAT_VERSION) == [steal, plain]


def test_a_hands_bonus_survives_a_round_trip_and_other_states_keep_their_keys() -> None:
    """A Cirulla state whose table went to the dealer loads back with its bonus; a state without
    one writes no "bonuses" key (new key, same format)."""
    state, _ = new_match(make_ruleset("cirulla"), rng=random.Random(11))
    assert state.bonuses
    assert load_state(dump_state(state)) == state
    plain, _ = new_match(make_ruleset("cirulla"), rng=random.Random(12))
    assert not plain.bonuses
    assert b"bonuses" not in _raw(dump_state(plain))
    assert b"bonuses" in _raw(dump_state(state))


def test_the_aces_returned_under_the_stock_survive_a_round_trip() -> None:
    """A state whose deal sent an ace under the stock loads back with it (new key, same format)."""
    deck = tuple(cards("2C 3C 4C 5C 6C 7C 1S 8D 9D 10D 2S"))
    rest = tuple(c for c in range(40) if c not in deck)
    state, _ = new_match(make_ruleset("scopa", {"aces_on_table": "return"}), decks=(deck + rest,))
    assert state.returned == cards("1S")
    assert load_state(dump_state(state)) == state
    plain, _ = new_match(make_ruleset("scopa"), rng=random.Random(1))
    assert "returned" not in _payload(dump_state(plain))


def test_claims_keep_their_outcome_and_pending_claims_their_record() -> None:
    """A claimed sweep's outcome and a pending claim load back; other records get no new key."""
    trusted = CardPlayed(0, 5, (15, 25), True, True, (), -1, ClaimOutcome(-1, False, ()))
    doubted = CardPlayed(
        0, 5, (15, 25), True, True, (), -1, ClaimOutcome(1, True, (("wrong_doubt", -1),))
    )
    plain = CardPlayed(0, 5, (15,), True, False, ())
    records = stored(event_records([trusted, doubted, plain]))
    assert [("claim" in r) for r in records] == [True, True, False]
    assert events_from_records(records, FORMAT_VERSION) == [trusted, doubted, plain]
    state, _ = new_match(make_ruleset("fidasse"), rng=random.Random(4))
    assert "claim" not in _payload(dump_state(state))
    pending = replace(state, phase="answer", turn=1, claim=PendingClaim(0, 7, (1,), ()))
    assert load_state(dump_state(pending)) == pending


def test_a_farm_play_keeps_its_farm_and_other_plays_keep_their_records() -> None:
    """farm is written only for a farm play, and a state's farms only when some lie on it."""
    farm = Farm(owner=1, value=7, cards=(13, 2))
    build = CardPlayed(1, 2, (), False, False, (), -1, None, farm)
    take = CardPlayed(0, 36, (13, 2, 6), True, True, (), -1, None, farm)
    plain = CardPlayed(0, 5, (15,), True, False, ())
    records = stored(event_records([build, take, plain]))
    assert [("farm" in r) for r in records] == [True, True, False]
    assert events_from_records(records, FORMAT_VERSION) == [build, take, plain]
    state, _ = new_match(make_ruleset("fattoria"), rng=random.Random(5))
    assert "farms" not in _payload(dump_state(state))
    with_farm = dataclasses.replace(state, farms=(farm,))
    assert _payload(dump_state(with_farm))["farms"] == [{"owner": 1, "value": 7, "cards": [13, 2]}]
    assert load_state(dump_state(with_farm)).farms == (farm,)


def test_format_6_blobs_of_the_default_zlib_compressor_read_back() -> None:
    """A format-6 blob compressed with zlib's default window and table (earlier builds) loads
    as the same state as the current format's blob, for every state of a whole game."""
    rng = random.Random(12)
    state, _ = new_match(make_ruleset("scopone", {"target_score": 21}), rng=rng)
    largest = 0
    while not state.finished:
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
        blob = dump_state(state)
        text = _raw(blob)
        largest = max(largest, len(text))
        assert load_state(b"\x06" + zlib.compress(text, 1)) == state
        assert load_state(blob) == state
    assert largest > 4096


def test_a_stored_game_keeps_rules_a_new_game_would_be_refused() -> None:
    """A game stored before a creation check existed (here: a preset's seat counts, a ruleset
    that scores nothing) loads with the very rules it was created with, and plays on."""
    refused = [
        ("scopone", {"players": 2}),
        ("scopa", {"cards_points": 0, "denari_points": 0, "primiera_points": 0,
                   "settebello_points": 0, "sweep_points": 0}),
    ]  # fmt: skip
    for preset, overrides in refused:
        with pytest.raises(InvalidOption):
            make_ruleset(preset, overrides)
        stored = make_ruleset(preset, overrides, stored=True)
        state, _ = new_match(stored, rng=random.Random(6))
        loaded = load_state(dump_state(state))
        assert loaded == state and loaded.ruleset == stored
        rng = random.Random(2)
        for _ in range(8):  # plays on under those rules
            loaded, _ = apply_move(loaded, loaded.turn, random_move(loaded, rng), rng)


def test_a_stored_game_of_a_newer_release_is_too_new_not_unplayable() -> None:
    """Rules naming a preset or an option this release does not know come from a newer release
    (a rolling update): FORMAT_TOO_NEW, which another replica can serve, with the name."""
    blob = dump_state(new_match(make_ruleset("scopa"), rng=random.Random(6))[0])
    with pytest.raises(FormatTooNew) as err:
        load_state(with_rules(blob, "scopa", {"hand_limit": 5, "option_of_tomorrow": True}))
    assert err.value.metadata == {"preset": "scopa", "option": "option_of_tomorrow"}
    with pytest.raises(FormatTooNew, match="preset_of_tomorrow"):
        load_state(with_rules(blob, "preset_of_tomorrow", {}))


def test_a_stored_state_whose_seats_are_not_its_rules_is_corrupt() -> None:
    """Overrides that disagree with the state's seats (3 players on a 2-seat deal) are a
    corrupt state, refused on load, not an IndexError at the first play."""
    blob = dump_state(new_match(make_ruleset("scopa"), rng=random.Random(6))[0])
    with pytest.raises(InvalidState, match="seats and sides"):
        load_state(with_rules(blob, "scopa", {"players": 3}))


def test_a_stored_game_under_rules_this_release_cannot_build_is_unplayable() -> None:
    """Rules no release of today can deal (a 41-card deck) make the game GAME_UNPLAYABLE,
    naming the preset and the option, never a corrupt state."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(6))
    with pytest.raises(GameUnplayable) as err:
        load_state(with_rules(dump_state(state), "scopa", {"deck_size": 41}))
    assert err.value.reason == "GAME_UNPLAYABLE"
    assert err.value.metadata == {"preset": "scopa", "option": "deck_size"}

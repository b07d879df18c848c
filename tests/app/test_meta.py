"""Tests of scopa.app._meta."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from scopa.app import GameMeta, SeatMeta
from scopa.app._codec import FORMAT, pack, unpack
from scopa.rules import FormatTooNew, InvalidState


def test_meta_round_trip() -> None:
    """Meta survives dump and load."""
    meta = GameMeta((SeatMeta("ann", False, True), SeatMeta("", True, False, "digest")))
    assert GameMeta.load(meta.dump()) == meta


def test_waiting_until_open_seats_join() -> None:
    """A game waits while an open seat is unclaimed."""
    meta = GameMeta((SeatMeta("ann", False, True), SeatMeta("", True, False, "d")))
    assert meta.waiting
    assert not meta.with_joined(1, "bob").waiting
    assert meta.with_joined(1, "bob").seats[1].name == "bob"


def test_corrupt_meta() -> None:
    """Corrupt meta raises InvalidState."""
    with pytest.raises(InvalidState):
        GameMeta.load(b"{not json")


def test_version_1_meta_blob_loads() -> None:
    """A meta stored by format 1 (tests/app/blobs/README.md) loads with every field."""
    blobs = Path(__file__).with_name("blobs")
    meta = GameMeta.load((blobs / "meta.v1.bin").read_bytes())
    assert meta.seats == (SeatMeta("Ann", False, True), SeatMeta("Bea", True, True, "ab12cd"))
    assert meta.resigned == -1
    assert meta.last_events == (blobs / "log_engine.v1.bin").read_bytes()


def test_meta_is_stored_keyed_and_versioned() -> None:
    """Meta is written in the keyed format 2 and a truncated one is refused."""
    meta = GameMeta((SeatMeta("ann", False, True),), resigned=0, last_events=b"A\x01\x02")
    blob = meta.dump()
    assert blob[0] == 2 and GameMeta.load(blob) == meta
    with pytest.raises(InvalidState):
        GameMeta.load(blob[:-1])


def test_format_3_meta_with_the_turn_clock_and_timeout_bot_loads() -> None:
    """A meta stored by the build before format 4 (tests/app/blobs) keeps its clock, its seat
    timeouts, its timeout bot and its log entry."""
    blobs = Path(__file__).with_name("blobs")
    meta = GameMeta.load((blobs / "meta_clock.v3.bin").read_bytes())
    assert meta.seats[0].timeouts == 1 and meta.seats[1].invite_digest == "ab12cd"
    assert (meta.turn_timeout_s, meta.on_timeout, meta.timeout_bot) == (30, "bot", "greedy")
    assert (meta.public, meta.deadline_ms) == (True, 1795000000000)
    assert meta.last_events == (blobs / "log_every_kind.v3.bin").read_bytes()
    assert GameMeta.load(meta.dump()) == meta and not meta.unknown


def test_keys_of_a_newer_release_survive_a_rewrite() -> None:
    """Meta and seat keys and a named blob that this release does not know (a newer one wrote
    them) are written back unchanged when the meta is rewritten (a join, a timeout)."""
    meta = GameMeta((SeatMeta("ann", False, True), SeatMeta("", True, False, "d")), 1, b"log")
    record, blobs = unpack(meta.dump())
    record["seats"][1]["avatar"] = {"colour": "red"}
    record["clock_v2"] = [30, "bot", 0, ["x"]]
    newer = pack(record, {**blobs, "replay": b"\x00\x01"})
    rewritten = GameMeta.load(newer).with_joined(1, "bob").with_timeout(0).dump()
    again, again_blobs = unpack(rewritten)
    assert again["clock_v2"] == [30, "bot", 0, ["x"]]
    assert again["seats"][1]["avatar"] == {"colour": "red"} and again["seats"][1]["name"] == "bob"
    assert again["seats"][0]["timeouts"] == 1 and "avatar" not in again["seats"][0]
    assert again_blobs == {"last_events": b"log", "replay": b"\x00\x01"}


def test_a_meta_of_a_newer_stored_format_is_format_too_new() -> None:
    """A meta whose format byte is above the codec's (a newer release's) is FORMAT_TOO_NEW."""
    blob = GameMeta((SeatMeta("ann", False, True),)).dump()
    with pytest.raises(FormatTooNew) as err:
        GameMeta.load(bytes([FORMAT + 1]) + blob[1:])
    assert err.value.metadata == {"format": str(FORMAT + 1), "readable_format": str(FORMAT)}


def test_a_seat_owner_round_trips_and_older_metas_have_none() -> None:
    """A signed-in seat's owner digest is stored only when set: a meta stored before identity
    tokens (format 3 blob) loads with no owner, and an owner survives dump and load."""
    blobs = Path(__file__).with_name("blobs")
    older = GameMeta.load((blobs / "meta_clock.v3.bin").read_bytes())
    assert all(seat.owner == "" for seat in older.seats)
    meta = GameMeta((SeatMeta("ann", False, True, owner="d1"), SeatMeta("", True, False, "d")))
    record, _ = unpack(meta.dump())
    assert record["seats"][0]["owner"] == "d1" and "owner" not in record["seats"][1]
    joined = GameMeta.load(meta.dump()).with_joined(1, "bob", "d2")
    assert GameMeta.load(joined.dump()).seats[1].owner == "d2"


def test_the_seat_an_owner_acts_for() -> None:
    """The owner's seat whose turn it is, else its lowest; None for a stranger or no owner."""
    seats = (
        SeatMeta("a", False, True, owner="o1"),
        SeatMeta("b", False, True, owner="o2"),
        SeatMeta("c", False, True, owner="o1"),
        SeatMeta("d", False, True),
    )
    meta = GameMeta(seats)
    assert meta.owned_seat("o1", 2) == 2
    assert meta.owned_seat("o1", 1) == 0
    assert meta.owned_seat("o2", 0) == 1
    assert meta.owned_seat("o3", 0) is None
    assert meta.owned_seat("", 3) is None


def test_rematch_links_round_trip_and_older_metas_have_none() -> None:
    """The finished game's rematch, and a rematch's previous game and token origin, survive
    dump and load; a meta without them reads as empty."""
    seats = (SeatMeta("ann", False, True),)
    meta = GameMeta(seats, rematch="g3", rematch_of="g1", tokens_of="g0")
    assert GameMeta.load(meta.dump()) == meta
    plain = GameMeta.load(GameMeta(seats).dump())
    assert (plain.rematch, plain.rematch_of, plain.tokens_of) == ("", "", "")


def _unlike_default(field: dataclasses.Field[Any]) -> Any:
    """A value of ``field``'s type that is not its default (by the default's type: the
    compiled build's fields carry classes where the interpreted one's carry strings)."""
    special: dict[str, Any] = {
        "seats": (SeatMeta("ann", False, True), SeatMeta("", True, False)),
        "unknown": (("later_key", "1"),),
        "unknown_blobs": (("later_blob", b"b"),),
    }
    if field.name in special:
        return special[field.name]
    value = {bool: True, int: 7, str: "x", bytes: b"log"}[type(field.default)]
    assert value != field.default
    return value


def test_a_committed_copy_changes_only_the_log_entry_and_deadline() -> None:
    """``committed`` keeps every other field, a field added later included: the meta here
    sets each field to a value that is not its default."""
    meta = GameMeta(**{f.name: _unlike_default(f) for f in dataclasses.fields(GameMeta)})
    committed = meta.committed(b"next", 1234)
    assert committed == dataclasses.replace(meta, last_events=b"next", deadline_ms=1234)
    assert committed.resigned == meta.resigned and committed.last_events == b"next"

"""Tests of the event log's list entries (scopa.storage._log)."""

from __future__ import annotations

import pytest

from scopa.storage import Event, StorageError, read_log_entries
from scopa.storage._log import decode_entry, encode_entry


@pytest.mark.parametrize("payloads", [[b"one"], [], [b"a", b""], [b"x:1*2", b"\x00\xff:"], [b""]])
def test_an_entry_reads_back_its_version_and_payloads(payloads: list[bytes]) -> None:
    """None, one or several payloads, any bytes, come back with their version."""
    assert decode_entry(encode_entry(37, payloads)) == (37, payloads)


def test_one_payload_costs_the_version_and_a_colon() -> None:
    """The usual entry (one payload per version) adds only ``<version>:`` to the payload."""
    assert encode_entry(12, [b"abc"]) == b"12:abc"


@pytest.mark.parametrize("entry", [b"", b"x:1", b"3*5:ab", b"3*zz"])
def test_a_corrupt_entry_is_a_storage_error(entry: bytes) -> None:
    """An entry without a version, or with a payload length past its end, is refused."""
    with pytest.raises(StorageError):
        decode_entry(entry)


def test_entries_flatten_to_events_in_order() -> None:
    """read_log_entries gives every payload as an Event tagged with its entry's version."""
    entries = [encode_entry(1, [b"a"]), encode_entry(2, []), encode_entry(3, [b"b", b"c"])]
    assert read_log_entries(entries) == [Event(1, b"a"), Event(3, b"b"), Event(3, b"c")]

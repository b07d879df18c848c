"""Tests of scopa.app._decoded: decoded values reused by their bytes, bounded."""

from __future__ import annotations

import pytest

from scopa.app._decoded import DecodedCache


class _Counting:
    """A decoder that counts its calls and refuses b"bad"."""

    def __init__(self) -> None:
        self.calls: list[bytes] = []

    def __call__(self, blob: bytes) -> str:
        self.calls.append(blob)
        if blob == b"bad":
            raise ValueError("corrupt")
        return blob.decode().upper()


def test_equal_bytes_are_decoded_once() -> None:
    """A second load of equal bytes (another object) returns the first value, undecoded."""
    decode = _Counting()
    cache = DecodedCache(decode, 4)
    first = cache.load(b"state-1")
    again = cache.load(bytes(bytearray(b"state-1")))
    assert first == again == "STATE-1"
    assert decode.calls == [b"state-1"]


def test_remembered_values_are_not_decoded() -> None:
    """What the core just encoded is handed out for its bytes without decoding."""
    decode = _Counting()
    cache = DecodedCache(decode, 4)
    cache.remember(b"written", "THE STATE")
    assert cache.load(b"written") == "THE STATE"
    assert decode.calls == []


def test_the_oldest_entry_goes_first() -> None:
    """At its size the cache drops its oldest entry, which is then decoded again."""
    decode = _Counting()
    cache = DecodedCache(decode, 2)
    for blob in (b"a", b"b", b"c"):
        cache.load(blob)
    assert len(cache) == 2
    cache.load(b"c")
    cache.load(b"a")
    assert decode.calls == [b"a", b"b", b"c", b"a"]


def test_decoding_errors_are_raised_every_time() -> None:
    """Bytes that do not decode raise on each load and are never kept."""
    decode = _Counting()
    cache = DecodedCache(decode, 2)
    for _ in range(2):
        with pytest.raises(ValueError, match="corrupt"):
            cache.load(b"bad")
    assert decode.calls == [b"bad", b"bad"]
    assert len(cache) == 0


def test_size_must_be_positive() -> None:
    """A cache that can hold nothing is refused."""
    with pytest.raises(ValueError, match="at least 1"):
        DecodedCache(_Counting(), 0)

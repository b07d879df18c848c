"""Recently decoded blobs by their stored bytes, so a read of an unchanged blob skips decoding.

A game's state and meta are immutable once written at a version (every change is a new version
through a compare-and-set), and decoding them is pure, so the value decoded from some bytes can
be handed out again for the same bytes. The core also remembers what it just wrote: the next
move in a game (the other seat's turn), when it reaches the same replica, decodes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["DecodedCache"]

T = TypeVar("T")


class DecodedCache(Generic[T]):
    """At most ``size`` values by the bytes they were decoded from; the oldest entry goes first.

    Values must be immutable (they are shared between callers).
    """

    __slots__ = ("_decode", "_entries", "_size")

    def __init__(self, decode: Callable[[bytes], T], size: int) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._decode = decode
        self._size = size
        self._entries: dict[bytes, T] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def load(self, blob: bytes) -> T:
        """``decode(blob)``, or the value already decoded from equal bytes."""
        value = self._entries.get(blob)
        if value is None:
            value = self._decode(blob)  # a decoding error is raised, and nothing is kept
            self.remember(blob, value)
        return value

    def remember(self, blob: bytes, value: T) -> None:
        """Keep ``value`` as what ``blob`` decodes to (e.g. just encoded from it)."""
        entries = self._entries
        if blob not in entries and len(entries) >= self._size:
            del entries[next(iter(entries))]
        entries[blob] = value

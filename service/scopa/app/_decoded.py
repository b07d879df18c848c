"""Bounded caches of values derived from stored bytes, so unchanged data is not derived again.

A game's state and meta are immutable once written at a version (every change is a new version
through a compare-and-set), and decoding them is pure, so the value decoded from some bytes can
be handed out again for the same bytes. The core also remembers what it just wrote: the next
move in a game (the other seat's turn), when it reaches the same replica, decodes nothing. The
same holds one level up: a seat's snapshot of a game depends only on the stored bytes, the
version and the seat (see ``GameCore.get_state``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedMap", "DecodedCache"]

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class BoundedMap(Generic[K, T]):
    """At most ``size`` entries; when full, the oldest entry goes first. Values are shared
    between callers, so they must be immutable.

    An ``OrderedDict``: dropping the oldest entry is O(1), where a plain dict finds its first
    entry by skipping the holes earlier deletions left at the front."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._entries: OrderedDict[K, T] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> T | None:
        """The value kept for ``key``, or None."""
        return self._entries.get(key)

    def discard(self, key: K) -> None:
        """Forget ``key`` (a no-op if it is not kept)."""
        self._entries.pop(key, None)

    def put(self, key: K, value: T) -> None:
        """Keep ``value`` for ``key`` (dropping the oldest entry when full)."""
        entries = self._entries
        if key not in entries and len(entries) >= self._size:
            entries.popitem(last=False)
        entries[key] = value


class DecodedCache(Generic[T]):
    """At most ``size`` values by the bytes they were decoded from; the oldest entry goes first.

    Values must be immutable (they are shared between callers).
    """

    __slots__ = ("_decode", "_entries")

    def __init__(self, decode: Callable[[bytes], T], size: int) -> None:
        self._decode = decode
        self._entries: BoundedMap[bytes, T] = BoundedMap(size)

    def __len__(self) -> int:
        return len(self._entries)

    def load(self, blob: bytes) -> T:
        """``decode(blob)``, or the value already decoded from equal bytes."""
        value = self._entries.get(blob)
        if value is None:
            value = self._decode(blob)  # a decoding error is raised, and nothing is kept
            self._entries.put(blob, value)
        return value

    def remember(self, blob: bytes, value: T) -> None:
        """Keep ``value`` as what ``blob`` decodes to (e.g. just encoded from it)."""
        self._entries.put(blob, value)

"""Values kept by the identity of the object they were made from.

A game's ruleset, options and hand results are one object from move to move, while hashing and
comparing them (every option, every score line) costs more than what is made from them. An
entry holds its object, so no other object can have that id while the entry lasts; the oldest
entry goes first when the cache is full, so a replica with more games in play than entries
still finds each game's recent ones.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class ByIdentity(Generic[_K, _V]):
    """At most ``limit`` values, each found by the very object (``is``) it was kept under."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self._entries: dict[int, tuple[_K, _V]] = {}
        self._limit = limit

    def get(self, key: _K) -> _V | None:
        """The value kept under ``key`` itself, or None."""
        entry = self._entries.get(id(key))
        if entry is None or entry[0] is not key:
            return None
        return entry[1]

    def put(self, key: _K, value: _V) -> _V:
        """Keep ``value`` under ``key`` (dropping the oldest entry when full); returns it."""
        entries = self._entries
        if id(key) not in entries and len(entries) >= self._limit:
            del entries[next(iter(entries))]  # dicts keep insertion order
        entries[id(key)] = (key, value)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()

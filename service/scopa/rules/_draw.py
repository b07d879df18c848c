"""Random draws the engine makes, spelled so that they compile to native code under mypyc.

:func:`randbelow` and :func:`shuffle` make exactly the ``getrandbits`` calls that CPython's
``Random.choice`` and ``Random.shuffle`` make (for ``random.Random`` and subclasses that keep its
``random`` and ``getrandbits``), so a seeded match deals and plays the same cards whether the
engine is compiled or not, and as it did when it called ``rng.shuffle``.
"""

from __future__ import annotations

import random
from typing import Any, Final

__all__ = ["randbelow", "shuffle"]

_BIT_LENGTH: Final[tuple[int, ...]] = tuple([n.bit_length() for n in range(64)])


def randbelow(rng: random.Random, n: int) -> int:
    """A random int in ``[0, n)`` (``n > 0``), drawn as ``rng.choice`` over ``n`` items draws it.

    CPython's ``Random.choice(seq)`` is ``seq[rng._randbelow(len(seq))]``, which takes
    ``n.bit_length()`` random bits until they fall below ``n``; this makes the same
    ``getrandbits`` calls through the public API.
    """
    if n <= 0:
        raise ValueError("randbelow needs n > 0")
    k = _BIT_LENGTH[n] if n < 64 else n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does (Fisher-Yates, last first).

    ``Random.shuffle`` is interpreted Python (~8 us for a deck); this is the same draws compiled.
    The items are typed ``Any`` so that mypyc swaps them as they are (a ``list[int]`` would
    unbox and box each card it moves: a sixth of a rollout's deal, callgrind said).
    """
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = _BIT_LENGTH[n] if n < 64 else n.bit_length()
        j: int = getrandbits(k)
        while j >= n:  # randbelow(rng, n), inlined
            j = getrandbits(k)
        swapped = items[j]
        items[j] = items[i]
        items[i] = swapped

"""Tests of the engine's draws (scopa.rules._draw): randbelow draws like ``rng.choice``."""

from __future__ import annotations

import random

import pytest

from scopa.rules._draw import randbelow


@pytest.mark.parametrize("n", [*range(1, 70), 127, 128, 129, 1000, 1 << 40])
def test_randbelow_draws_like_choice(n: int) -> None:
    """randbelow picks the index rng.choice picks and leaves the RNG in the same state."""
    items = list(range(n)) if n <= 1000 else range(n)
    for seed in range(30):
        ours, theirs = random.Random(seed), random.Random(seed)
        for _ in range(5):
            assert randbelow(ours, n) == theirs.choice(items)
        assert ours.getstate() == theirs.getstate()


def test_randbelow_rejects_an_empty_range() -> None:
    """There is no int below 0 to pick, as rng.choice refuses an empty sequence."""
    with pytest.raises(ValueError, match="n > 0"):
        randbelow(random.Random(1), 0)

"""A controllable monotonic clock for tests of time-dependent code."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that only moves when told to; call it to read the time."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.now += seconds

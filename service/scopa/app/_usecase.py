"""What the write use cases (:class:`~._actions.Actions`, :class:`~._seating.Seating`,
:class:`~._rematch.Rematches`) are built on: the shared read side, the compare-and-set commit,
the turns a write leaves due, the core's randomness and its tracer."""

from __future__ import annotations

import random

from opentelemetry import trace

from ._commits import Commits
from ._games import Games
from ._turns import Turns

__all__ = ["UseCase"]


class UseCase:
    """A group of the core's write use cases, holding their collaborators."""

    def __init__(
        self,
        games: Games,
        commits: Commits,
        turns: Turns,
        rng: random.Random,
        tracer: trace.Tracer,
    ) -> None:
        self._games = games
        self._commits = commits
        self._turns = turns
        self._rng = rng
        self._tracer = tracer

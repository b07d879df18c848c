"""The policy API: ``choose(view, rng, budget)`` picks an action from one seat's view only.

Pure but for the clock a time budget reads (``Budget.clock``, injectable): no I/O, no global
randomness, and no true state; the bot sees exactly what :func:`~scopa.rules.observe` gives its
seat, so its choice cannot reveal another seat's hidden cards.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from scopa.rules import Action, SeatView

from ._greedy import greedy_action
from ._ismcts import ismcts_action

__all__ = ["DEFAULT_BUDGET", "Budget", "Level", "choose", "scaled_budget"]


class Level(StrEnum):
    """How a bot plays."""

    RANDOM = "random"
    """A random legal action."""
    GREEDY = "greedy"
    """The best one-ply heuristic score."""
    ISMCTS = "ismcts"
    """Information-set Monte Carlo tree search within the budget."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a search may think: at most ``iterations``, and at most ``seconds`` when > 0.

    A search always runs one iteration. With ``seconds`` the choice depends on the machine's
    speed; leave it 0 for a reproducible bot (tests, replays).
    """

    iterations: int = 100_000
    seconds: float = 0.0
    clock: Callable[[], float] = time.perf_counter

    def deadline(self) -> Callable[[], bool]:
        """A callable that says whether the time is up, starting now."""
        if self.seconds <= 0:
            return lambda: False
        clock = self.clock
        end = clock() + self.seconds
        return lambda: clock() >= end


DEFAULT_BUDGET = Budget(iterations=1000, seconds=0.02)
"""The service's default: 20 ms of search (bounded by 1000 iterations). With the compiled engine's
rollouts that is ~250 iterations on an idle core, which beats greedy ~0.75 (docs/performance.md)."""


def scaled_budget(seconds: float) -> Budget:
    """The default budget stretched to ``seconds``: its iteration cap grows in proportion."""
    rate = DEFAULT_BUDGET.iterations / DEFAULT_BUDGET.seconds
    return Budget(iterations=max(1, math.ceil(rate * seconds)), seconds=seconds)


def choose(
    view: SeatView, rng: random.Random, budget: Budget = DEFAULT_BUDGET, level: Level = Level.ISMCTS
) -> Action:
    """The action ``level`` picks for ``view``'s seat, on its turn (``ValueError`` otherwise)."""
    actions = view.legal_actions
    if view.seat is None or not actions:
        raise ValueError("no legal action: it is not this seat's turn")
    match level:
        case Level.RANDOM:
            return actions[rng.randrange(len(actions))]
        case Level.GREEDY:
            return greedy_action(view, rng)
        case Level.ISMCTS:
            return ismcts_action(view, rng, budget.iterations, budget.deadline())

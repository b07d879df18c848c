"""Bots for every preset, playing from one seat's view only (``observe(state, seat)``).

``choose(view, rng, budget, level)`` returns an action for the seat to play: ``random``, ``greedy``
(one-ply heuristic) or ``ismcts`` (information-set Monte Carlo tree search within a budget). It
knows only :mod:`scopa.rules`; hidden cards are sampled from what the seat has not seen
(:func:`scopa.rules.state_from_view`), never read from the true state.
"""

from ._greedy import card_value, greedy_action, score_actions
from ._ismcts import Tally, ismcts_action, search
from ._policy import DEFAULT_BUDGET, Budget, Level, choose, scaled_budget

__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "Level",
    "Tally",
    "card_value",
    "choose",
    "greedy_action",
    "ismcts_action",
    "scaled_budget",
    "score_actions",
    "search",
]

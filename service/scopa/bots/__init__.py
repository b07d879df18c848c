"""Bots for every preset, playing from one seat's view only (``observe(state, seat)``).

``choose(view, rng, budget, level)`` returns an action for the seat to play: ``random``, ``greedy``
(one-ply heuristic) or ``ismcts`` (information-set Monte Carlo tree search within a budget). It
knows only :mod:`scopa.rules`; hidden cards are sampled from what the seat has not seen
(:func:`scopa.rules.state_from_view`), never read from the true state.

The random policies live here too: :func:`random_move` and :func:`random_action` (a random legal
move or action, drawn like ``rng.choice``, for seeded games and benchmarks), and the rollout path
for search: :func:`play_out` plays a hand to its end with :func:`rollout_move`'s policy,
unchecked and fast, to the :class:`HandOutcome` the validated loop reaches; :func:`card_points`
is each card's worth in points under a ruleset's scoring rules. tools/build_mypyc.py compiles
these two modules (``_random``, ``_rollout``) with the engine.
"""

from ._greedy import card_value, greedy_action, score_actions
from ._ismcts import Tally, ismcts_action, search
from ._policy import DEFAULT_BUDGET, Budget, Level, choose, scaled_budget
from ._random import random_action, random_move, rollout_move
from ._rollout import HandOutcome, card_points, play_out

__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "HandOutcome",
    "Level",
    "Tally",
    "card_points",
    "card_value",
    "choose",
    "greedy_action",
    "ismcts_action",
    "play_out",
    "random_action",
    "random_move",
    "rollout_move",
    "scaled_budget",
    "score_actions",
    "search",
]

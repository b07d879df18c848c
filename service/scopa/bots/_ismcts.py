"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012).

One tree over the seat's information set: every iteration deals the cards the seat has not seen at
random (:func:`~scopa.rules.state_from_view`), walks the tree choosing among the actions legal in
that deal by UCB with availability counts, adds one node, plays the deal out at random to the end of
the hand on the engine's rollout path (:func:`~scopa.bots.play_out`, unchecked and compiled with
the engine), and credits each node with the result for the side that chose it. Actions are the
engine's own (a card and the exact table cards it takes), so an opponent's play is the same node in
every deal where it is legal. The answer is the most visited action at the root.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from scopa.rules import (
    PLAY,
    Action,
    Event,
    GameFinished,
    HandScored,
    MatchState,
    SeatView,
    apply_action,
    legal_actions,
    state_from_view,
)

from ._greedy import score_actions
from ._rollout import play_out

__all__ = ["Tally", "ismcts_action", "search"]

_EXPLORATION: Final = 0.7
_PRIOR_VISITS: Final = 8
_PRIOR_LOW: Final = 0.35
_PRIOR_SPAN: Final = 0.3
_POINT_SCALE: Final = 8.0
"""A hand won by this many points counts as a full win in a rollout's reward."""


@dataclass(slots=True)
class _Node:
    side: int = -1
    """The side that chose the action leading here."""
    visits: int = 0
    reward: float = 0.0
    available: int = 0
    virtual: int = 0
    """Visits credited up front from the greedy score (root children only), each worth ``prior``."""
    prior: float = 0.0
    children: dict[Action, _Node] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tally:
    """One root action's statistics after a search."""

    action: Action
    visits: int
    mean_reward: float


def _rewards(sides: int, totals: tuple[int, ...], winners: tuple[int, ...]) -> tuple[float, ...]:
    """Per side: 1 win .. 0 loss; a hand that does not end the game by its points margin."""
    if winners:
        return tuple([1.0 if s in winners else 0.0 for s in range(sides)])
    out = []
    for side in range(sides):
        best_other = max(totals[o] for o in range(sides) if o != side)
        margin = (totals[side] - best_other) / _POINT_SCALE
        out.append(0.5 + max(-0.5, min(0.5, margin / 2)))
    return tuple(out)


def _event_rewards(sides: int, events: list[Event]) -> tuple[float, ...] | None:
    """:func:`_rewards` once ``events`` end the game or the hand, else ``None``."""
    hand: HandScored | None = None
    for event in events:
        if isinstance(event, GameFinished):
            return _rewards(sides, (), event.winners)
        if isinstance(event, HandScored):
            hand = event
    return None if hand is None else _rewards(sides, hand.result.score.totals, ())


def _rollout(state: MatchState, rng: random.Random) -> tuple[float, ...]:
    """Play the hand out at random on the engine's rollout path (compiled with it)."""
    outcome = play_out(state, rng)
    return _rewards(state.ruleset.options.sides, outcome.totals, outcome.winners)


def _select(node: _Node, legal: list[Action], rng: random.Random) -> tuple[Action, _Node, bool]:
    """An untried legal action (a new child: ``True``), else the legal child of best UCB score."""
    untried = [a for a in legal if a not in node.children]
    for action in legal:
        known = node.children.get(action)
        if known is not None:
            known.available += 1
    if untried:
        action = untried[rng.randrange(len(untried))]
        child = _Node(available=1)
        node.children[action] = child
        return action, child, True
    best_action = legal[0]
    best = -1.0
    for action in legal:
        child = node.children[action]
        score = child.reward / child.visits + _EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if score > best:
            best, best_action = score, action
    return best_action, node.children[best_action], False


def _iterate(root: _Node, view: SeatView, rng: random.Random) -> None:
    """One determinisation: select, expand one node, roll out, back up."""
    state = state_from_view(view, rng)
    side_of = view.side_of_seat
    sides = view.options.sides
    node = root
    path: list[_Node] = []
    rewards: tuple[float, ...] | None = None
    while rewards is None:
        action, node, expanded = _select(node, legal_actions(state), rng)
        node.side = side_of[state.turn]
        path.append(node)
        state, events = apply_action(state, state.turn, action, rng)
        rewards = _event_rewards(sides, events)
        if rewards is None and expanded and state.phase == PLAY:
            # the rollout plays cards only: a pending claim is answered in the tree first
            rewards = _rollout(state, rng)
    for visited in path:
        visited.visits += 1
        visited.reward += rewards[visited.side]


def _seeded_root(view: SeatView, rng: random.Random) -> _Node:
    """A root whose children start with virtual visits valued by the greedy one-ply score.

    Progressive bias (Chaslot et al. 2008): with few iterations the search follows the heuristic,
    with many the rollouts outweigh it.
    """
    root = _Node()
    if view.seat is None:
        return root
    scored = score_actions(view, rng)
    low = min(s for s, _a in scored)
    high = max(s for s, _a in scored)
    side = view.side_of_seat[view.seat]
    for score, action in scored:
        prior = 0.5 if high == low else _PRIOR_LOW + _PRIOR_SPAN * (score - low) / (high - low)
        root.children[action] = _Node(
            side=side,
            visits=_PRIOR_VISITS,
            reward=prior * _PRIOR_VISITS,
            available=_PRIOR_VISITS,
            virtual=_PRIOR_VISITS,
            prior=prior,
        )
    return root


def search(
    view: SeatView, rng: random.Random, iterations: int, deadline: Callable[[], bool]
) -> list[Tally]:
    """Run up to ``iterations`` (at least one) until ``deadline()``; every root action's tally."""
    if not view.legal_actions:
        raise ValueError("no legal action: it is not this seat's turn")
    root = _seeded_root(view, rng)
    done = 0
    while done < iterations and not (done and deadline()):
        _iterate(root, view, rng)
        done += 1
    tallies = []
    for action in view.legal_actions:
        child = root.children.get(action)
        visits = child.visits - child.virtual if child else 0
        mean = (child.reward - child.virtual * child.prior) / visits if child and visits else 0.0
        tallies.append(Tally(action, visits, mean))
    return tallies


def ismcts_action(
    view: SeatView, rng: random.Random, iterations: int, deadline: Callable[[], bool]
) -> Action:
    """The most visited root action (the first of equals, in the view's order)."""
    if len(view.legal_actions) == 1:
        return view.legal_actions[0]
    tallies = search(view, rng, iterations, deadline)
    best = tallies[0]
    for tally in tallies[1:]:
        if (tally.visits, tally.mean_reward) > (best.visits, best.mean_reward):
            best = tally
    return best.action

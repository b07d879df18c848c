"""Tests of what a bot-search worker process runs (scopa.bots._worker)."""

from __future__ import annotations

import random
from multiprocessing.reduction import ForkingPickler

from scopa import bots, rules
from scopa.bots._worker import ENGINE_DATACLASSES, choose_seeded


def test_a_seeded_choice_is_the_choice_with_that_seed() -> None:
    """choose_seeded picks what choose picks with a generator of the same seed."""
    state, _ = rules.new_match(rules.make_ruleset("cirulla"), rng=random.Random(5))
    view = rules.observe(state, state.turn)
    budget = bots.Budget(iterations=40)
    for seed in range(5):
        expected = bots.choose(view, random.Random(seed), budget, bots.Level.ISMCTS)
        assert choose_seeded(view, seed, budget, bots.Level.ISMCTS) == expected


def test_every_preset_s_views_and_actions_cross_to_a_worker_intact() -> None:
    """The views of every preset and their legal actions come back equal through the pickler the
    workers' queues use (the engine's dataclasses by their fields: compiled by mypyc, pickle's
    default cannot restore a frozen one)."""
    assert rules.Options in ENGINE_DATACLASSES
    crossed = 0
    for preset in rules.PRESETS:
        rng = random.Random(3)
        state, _ = rules.new_match(rules.make_ruleset(preset), rng=rng)
        for _ in range(40):
            if state.turn < 0:
                break
            view = rules.observe(state, state.turn)
            sent = (view, view.legal_actions)
            assert ForkingPickler.loads(ForkingPickler.dumps(sent)) == sent, preset
            crossed += 1
            state, _ = rules.apply_action(state, state.turn, bots.random_action(state, rng), rng)
    assert crossed > 30 * len(rules.PRESETS)

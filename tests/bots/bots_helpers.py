"""Shared builders for the bot tests: games played to a seeded point, crafted table situations."""

from __future__ import annotations

import random
from dataclasses import replace

from scopa.rules import (
    ALL_CARDS,
    Card,
    MatchState,
    apply_action,
    make_ruleset,
    new_match,
    parse_card,
    random_move,
)
from scopa.rules._capture import table_key


def cards(codes: str) -> tuple[Card, ...]:
    """Cards from space-separated codes, e.g. ``"7D 3C"``."""
    return tuple(parse_card(c) for c in codes.split())


def midgame(preset: str, seed: int, plays: int) -> MatchState:
    """A live match of ``preset`` after ``plays`` random plays (fewer if it ends first)."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset(preset), rng=rng)
    for _ in range(plays):
        after, _ = apply_action(state, state.turn, random_move(state, rng), rng)
        if after.finished:
            break
        state = after
    return state


def reshuffled_hidden(state: MatchState, seat: int, seed: int) -> MatchState:
    """``state`` with every card ``seat`` cannot see (others' hands, the stock) dealt anew."""
    others = [s for s in range(len(state.hands)) if s != seat]
    hidden = [c for s in others for c in state.hands[s]] + list(state.stock)
    random.Random(seed).shuffle(hidden)
    hands = list(state.hands)
    at = 0
    for s in others:
        hands[s] = tuple(hidden[at : at + len(state.hands[s])])
        at += len(state.hands[s])
    return replace(state, hands=tuple(hands), stock=tuple(hidden[at:]))


def situation(hand: str, table: str, other: str, preset: str = "scopa") -> MatchState:
    """A 2-player deal: seat 0 holds ``hand``, seat 1 ``other``, every other card in the stock."""
    state, _ = new_match(make_ruleset(preset), rng=random.Random(0))
    mine, laid, theirs = cards(hand), cards(table), cards(other)
    used = set(mine) | set(laid) | set(theirs)
    stock = tuple(c for c in ALL_CARDS if c not in used)
    return replace(
        state,
        turn=0,
        dealer=1,
        hands=(mine, theirs),
        table=tuple(sorted(laid, key=table_key)),
        stock=stock,
    )

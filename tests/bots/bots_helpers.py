"""Shared builders for the bot tests: games played to a seeded point, crafted table situations."""

from __future__ import annotations

import random
from dataclasses import replace

from scopa.bots import random_move
from scopa.rules import (
    ALL_CARDS,
    Card,
    Declare,
    MatchState,
    apply_action,
    legal_actions,
    make_ruleset,
    new_match,
    observe,
    parse_card,
    shown_cards,
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
    """``state`` with every card ``seat`` cannot see (others' hands, the stock) dealt anew; cards
    shown in declarations stay in the hands that showed them."""
    shown = shown_cards(observe(state, seat))
    others = [s for s in range(len(state.hands)) if s != seat]
    hidden = [c for s in others for c in state.hands[s] if c not in shown[s]] + list(state.stock)
    random.Random(seed).shuffle(hidden)
    hands = list(state.hands)
    at = 0
    for s in others:
        fill = len(state.hands[s]) - len(shown[s])
        hands[s] = shown[s] + tuple(hidden[at : at + fill])
        at += fill
    return replace(state, hands=tuple(hands), stock=tuple(hidden[at:]))


def after_a_declaration(seed: int) -> MatchState:
    """A bazzica match where a seat declared and played a card, the other seat to play."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset("bazzica"), rng=rng)
    while not state.finished:
        seat = state.turn
        declaring = [a for a in legal_actions(state) if isinstance(a, Declare)]
        state, _ = apply_action(
            state, seat, declaring[0] if declaring else random_move(state, rng), rng
        )
        if declaring:
            state, _ = apply_action(state, seat, random_move(state, rng), rng)
            if state.turn != seat and state.declarations:
                return state
    raise AssertionError(f"no declaration in the match of seed {seed}")


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

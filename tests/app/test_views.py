"""Tests of scopa.app._views: what a seat sees of a version (pure)."""

from __future__ import annotations

import random
from dataclasses import replace

from scopa import rules
from scopa.app import GameMeta, GameStatus, SeatJoined, SeatMeta
from scopa.app._eventlog import encode_log
from scopa.app._views import result, snapshot, status

PEOPLE = (SeatMeta("ann", False, True), SeatMeta("bob", False, True))
WAITING = (SeatMeta("ann", False, True), SeatMeta("", True, False))


def game() -> tuple[rules.MatchState, list[rules.Event]]:
    return rules.new_match(rules.make_ruleset("scopa", {}), rng=random.Random(5))


def test_status_follows_the_seats_and_the_end() -> None:
    state, _ = game()
    over, _ = rules.resign(state, 0)
    assert status(state, GameMeta(PEOPLE)) is GameStatus.ACTIVE
    assert status(state, GameMeta(WAITING)) is GameStatus.WAITING_FOR_PLAYERS
    assert status(over, GameMeta(WAITING)) is GameStatus.FINISHED


def test_a_seat_sees_its_hand_and_the_dealt_events_of_its_own_cards_only() -> None:
    state, events = game()
    meta = GameMeta(PEOPLE, last_events=encode_log(events))
    mine = snapshot("g", 1, state, meta, 0, "")
    assert mine.view.hand == state.hands[0] and mine.last_events
    spectator = snapshot("g", 1, state, meta, None, "")
    assert spectator.view.hand == ()
    dealt = [e.event for e in spectator.last_events if isinstance(e.event, rules.CardsDealt)]
    assert dealt and all(card == rules.HIDDEN_CARD for e in dealt for card in e.cards)


def test_a_waiting_game_offers_no_moves_yet() -> None:
    state, _ = game()
    seat = state.turn
    assert snapshot("g", 1, state, GameMeta(PEOPLE), seat, "").view.legal_moves
    assert snapshot("g", 1, state, GameMeta(WAITING), seat, "").view.legal_moves == ()


def test_the_deadline_and_timeout_bot_show_only_on_a_clocked_active_game() -> None:
    state, _ = game()
    clocked = GameMeta(PEOPLE, turn_timeout_s=30, deadline_ms=99)
    shown = snapshot("g", 1, state, clocked, 0, "greedy")
    assert (shown.deadline_ms, shown.timeout_bot, shown.turn_timeout_s) == (99, "greedy", 30)
    unclocked = snapshot("g", 1, state, replace(clocked, turn_timeout_s=0), 0, "greedy")
    assert (unclocked.deadline_ms, unclocked.timeout_bot) == (0, "")
    waiting = snapshot("g", 1, state, replace(clocked, seats=WAITING), 0, "greedy")
    assert waiting.deadline_ms == 0


def test_a_result_shows_its_own_events_at_its_version() -> None:
    state, _ = game()
    joined = [SeatJoined(1, "bob")]
    done = result("g", 1, 4, state, GameMeta(PEOPLE), joined, "")
    assert [(e.version, e.event) for e in done.events] == [(4, SeatJoined(1, "bob"))]
    assert done.snapshot.last_events == done.events and done.snapshot.version == 4

"""Tests of scopa.app._due: what is due in a game and when (pure, times in ms)."""

from __future__ import annotations

import random
from dataclasses import replace

from scopa import bots, rules
from scopa.app import CoreSettings, GameMeta, SeatMeta, TimeoutAction, TurnTimedOut
from scopa.app._due import awaited_seat, deadline, is_due, time_out, timeout_bot, ttl

SETTINGS = CoreSettings(
    bot_budget=bots.Budget(seconds=0.5),
    bot_grace_s=2,
    waiting_ttl_s=60,
    active_ttl_s=3600,
    finished_ttl_s=600,
)
NOW = 1_000_000


def game(*seats: SeatMeta, **meta: object) -> tuple[rules.MatchState, GameMeta]:
    """A new two-seat Scopa match and its meta."""
    state, _ = rules.new_match(rules.make_ruleset("scopa", {}), rng=random.Random(1))
    return state, GameMeta(seats, **meta)  # type: ignore[arg-type]


PEOPLE = (SeatMeta("ann", False, True), SeatMeta("bob", False, True))


def bot_to_play(state: rules.MatchState) -> tuple[SeatMeta, ...]:
    seats = list(PEOPLE)
    seats[awaited_seat(state)] = SeatMeta("bot", False, True, bot="greedy")
    return tuple(seats)


def test_a_bot_turn_is_due_at_once_and_falls_due_for_others_after_its_budget_and_grace() -> None:
    state, meta = game(*PEOPLE)
    meta = replace(meta, seats=bot_to_play(state))
    assert is_due(state, meta, NOW)
    assert deadline(state, meta, NOW, SETTINGS) == NOW + 2500


def test_a_person_turn_is_due_when_its_clock_runs_out() -> None:
    state, meta = game(*PEOPLE, turn_timeout_s=30)
    assert deadline(state, meta, NOW, SETTINGS) == NOW + 30_000
    meta = replace(meta, deadline_ms=NOW + 30_000)
    assert not is_due(state, meta, NOW + 29_999)
    assert is_due(state, meta, NOW + 30_000)


def test_nothing_is_due_without_a_clock_while_waiting_or_once_over() -> None:
    state, meta = game(*PEOPLE)
    assert (is_due(state, meta, NOW), deadline(state, meta, NOW, SETTINGS)) == (False, 0)
    waiting = replace(meta, seats=(PEOPLE[0], SeatMeta("", True, False)), turn_timeout_s=30)
    assert (is_due(state, waiting, NOW), deadline(state, waiting, NOW, SETTINGS)) == (False, 0)
    over, _ = rules.resign(state, 0)
    botted = replace(meta, seats=bot_to_play(state))
    assert (is_due(over, botted, NOW), deadline(over, botted, NOW, SETTINGS)) == (False, 0)


def test_the_store_keeps_a_game_by_where_it_stands() -> None:
    state, meta = game(*PEOPLE)
    waiting = replace(meta, seats=(PEOPLE[0], SeatMeta("", True, False)))
    over, _ = rules.resign(state, 0)
    assert [ttl(state, meta, SETTINGS), ttl(state, waiting, SETTINGS)] == [3600, 60]
    assert ttl(over, meta, SETTINGS) == 600


def test_the_timeout_bot_is_the_game_own_else_the_server_default() -> None:
    _, meta = game(*PEOPLE)
    assert timeout_bot(meta, SETTINGS) is SETTINGS.timeout_bot
    assert timeout_bot(replace(meta, timeout_bot="ismcts"), SETTINGS) is bots.Level.ISMCTS


def test_a_run_out_clock_has_the_bot_play_until_the_forfeit_count() -> None:
    state, meta = game(*PEOPLE, on_timeout=TimeoutAction.FORFEIT, forfeit_after=2)
    seat = awaited_seat(state)
    first = time_out(state, meta, seat, SETTINGS)
    assert (first.timeouts, first.forfeit, first.bot) == (1, None, SETTINGS.timeout_bot)
    assert first.meta.seats[seat].timeouts == 1
    second = time_out(state, first.meta, seat, SETTINGS)
    assert second.forfeit is not None
    forfeited, events = second.forfeit
    assert forfeited.finished and second.meta.resigned == seat
    assert events[0] == TurnTimedOut(seat, 2, True, "")


def test_the_bot_action_never_forfeits() -> None:
    state, meta = game(*PEOPLE, on_timeout=TimeoutAction.BOT, forfeit_after=1)
    for _ in range(3):
        timed_out = time_out(state, meta, awaited_seat(state), SETTINGS)
        assert timed_out.forfeit is None
        meta = timed_out.meta
    assert meta.seats[awaited_seat(state)].timeouts == 3

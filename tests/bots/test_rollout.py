"""Tests of the rollout path (scopa.bots._rollout): play_out agrees with the validated engine."""

from __future__ import annotations

import random

import pytest

from scopa.bots import (
    HandOutcome,
    _rollout,
    card_points,
    play_out,
    random_action,
    rollout_move,
)
from scopa.rules import (
    PRESETS,
    GameFinished,
    GameOver,
    HandScored,
    MatchState,
    SideTally,
    apply_action,
    apply_move,
    deck_cards,
    legal_moves,
    make_ruleset,
    new_match,
    resign,
    score_hand,
)


def validated_hand(state: MatchState, rng: random.Random) -> HandOutcome:
    """The reference: rollout_move then apply_move until the hand is scored."""
    while True:
        state, events = apply_move(state, state.turn, rollout_move(state, rng), rng)
        for event in events:
            if isinstance(event, HandScored):
                winners = next((e.winners for e in events if isinstance(e, GameFinished)), ())
                result = event.result
                return HandOutcome(result.score.totals, result.totals, winners)


def states_of(preset: str, seed: int, players: int | None = None) -> list[MatchState]:
    """Every state of one random match of ``preset`` (the first hand's and later hands')."""
    options = {} if players is None else {"players": players}
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset(preset, options), rng=rng)
    states = []
    while not state.finished:
        states.append(state)
        state, _ = apply_move(state, state.turn, rollout_move(state, rng), rng)
    return states


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_play_out_equals_the_validated_loop(preset: str) -> None:
    """From every 7th state of random matches, play_out scores what the validated loop scores."""
    checked = 0
    for seed in range(4):
        for at, state in enumerate(states_of(preset, seed)):
            if at % 7:
                continue
            ours, theirs = random.Random(seed * 1000 + at), random.Random(seed * 1000 + at)
            assert play_out(state, ours) == validated_hand(state, theirs)
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("players", [3, 4, 6])
def test_play_out_equals_the_validated_loop_for_more_seats(players: int) -> None:
    """The same with teams and more seats, in the presets that allow them."""
    for preset in ("scopa", "scopa15", "asso_piglia_tutto"):
        for at, state in enumerate(states_of(preset, players, players)):
            ours, theirs = random.Random(at), random.Random(at)
            assert play_out(state, ours) == validated_hand(state, theirs)


def test_play_out_ends_matches() -> None:
    """A hand that reaches the target score names the match's winners, as the engine does."""
    finished = 0
    for seed in range(40):
        state, _ = new_match(make_ruleset("scopa", {"target_score": 1}), rng=random.Random(seed))
        outcome = play_out(state, random.Random(seed))
        assert outcome == validated_hand(state, random.Random(seed))
        finished += bool(outcome.winners)
    assert finished > 20


def test_play_out_leaves_its_state_alone() -> None:
    """The state played out is not changed."""
    state, _ = new_match(make_ruleset("spazzino"), rng=random.Random(3))
    before = (state.hands, state.table, state.stock, state.piles, state.specials)
    play_out(state, random.Random(1))
    assert (state.hands, state.table, state.stock, state.piles, state.specials) == before


def test_play_out_refuses_a_finished_game() -> None:
    """There is no hand to play out after the end."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(1))
    over, _ = resign(state, 0)
    with pytest.raises(GameOver):
        play_out(over, random.Random(1))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rollout_move_is_legal(preset: str) -> None:
    """Every move the rollout policy picks in whole matches is a legal move."""
    for state in states_of(preset, 11):
        assert rollout_move(state, random.Random(len(state.history))) in legal_moves(state)


def test_rollout_move_covers_every_capture_choice() -> None:
    """Both parts of one draw matter: every legal move of a state gets picked."""
    for state in states_of("scopa", 5):
        moves = legal_moves(state)
        if len({m.card for m in moves}) < len(moves):  # some card has several captures
            rng = random.Random(0)
            assert {rollout_move(state, rng) for _ in range(400)} == set(moves)
            return
    pytest.fail("no state with a choice of captures")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_mask_scoring_equals_score_hand(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the mask lines switched off play_out scores through score_hand, to the same totals."""
    states = states_of(preset, 2)[::5]
    fast = [play_out(state, random.Random(i)) for i, state in enumerate(states)]
    monkeypatch.setattr(_rollout, "_cached_lines", lambda options: None)
    slow = [play_out(state, random.Random(i)) for i, state in enumerate(states)]
    assert fast == slow


@pytest.mark.parametrize("owner_takes", [True, False])
def test_play_out_with_farms_on_the_table_equals_the_validated_loop(owner_takes: bool) -> None:
    """From states with farms down (fattoria, builds at random), play_out scores as the loop."""
    rules = make_ruleset("fattoria", {"farm_owner_takes": owner_takes})
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        state, _ = new_match(rules, rng=rng)
        while not state.finished:
            if state.farms:
                ours, theirs = random.Random(seed + checked), random.Random(seed + checked)
                assert play_out(state, ours) == validated_hand(state, theirs)
                checked += 1
            state, _ = apply_action(state, state.turn, random_action(state, rng), rng)
    assert checked > 20


def test_card_points_are_shared_by_rulesets_alike_but_for_the_target() -> None:
    """Two targets of one preset share one card_points answer, and no preset's hand score reads
    the target (random piles and sweeps score alike under targets 7 and 99)."""
    alike = [make_ruleset("scopa", {"target_score": t}).options for t in (7, 11, 99)]
    first = card_points(alike[0])
    assert all(card_points(options) is first for options in alike)
    assert card_points(make_ruleset("scopone").options) is not first
    for preset in sorted(PRESETS):
        low = make_ruleset(preset, {"target_score": 7}).options
        high = make_ruleset(preset, {"target_score": 99}).options
        rng = random.Random(preset)
        deck = deck_cards(low.deck_size)
        for _ in range(20):
            owner = [rng.randrange(low.sides) for _ in deck]
            tallies = [
                SideTally(
                    tuple([c for c, o in zip(deck, owner, strict=True) if o == side]),
                    rng.randrange(4),
                )
                for side in range(low.sides)
            ]
            assert score_hand(low, tallies) == score_hand(high, tallies), preset


@pytest.mark.parametrize("optional", ["figures", "all"])
def test_play_out_equals_the_validated_loop_when_captures_are_optional(optional: str) -> None:
    """With optional captures (Cicera) the lay is one more capture choice, alike in both paths."""
    rng = random.Random(5)
    rules = make_ruleset("cicera_bigia", {"players": 2, "optional_captures": optional})
    state, _ = new_match(rules, rng=rng)
    for at in range(20):
        ours, theirs = random.Random(at), random.Random(at)
        assert play_out(state, ours) == validated_hand(state, theirs)
        state, _ = apply_move(state, state.turn, rollout_move(state, rng), rng)


@pytest.mark.parametrize(("top", "ranks"), [(7, 10), (7, 8), (7, 6), (0, 10), (5, 9)])
def test_mask_scoring_stops_the_napola_where_score_hand_does(top: int, ranks: int) -> None:
    """Issue 27: the mask scorer's napola line stops at napola_top as score_hand's does, for a
    side holding the denari from the ace up (Cirulla itself scores through score_hand: its
    grande has no mask line)."""
    assert _rollout._lines(make_ruleset("cirulla").options) is None
    options = make_ruleset("scopa_napola", {"napola_top": top}).options
    held = tuple(range(10, 10 + ranks))  # the denari from the ace up (card 10 is the ace)
    rest = tuple(c for c in deck_cards(40) if c not in held)
    lines = _rollout._lines(options)
    assert lines is not None
    masks = [sum(1 << c for c in held), sum(1 << c for c in rest)]
    fast = _rollout._mask_totals(lines, options, masks, [0, 0], [{}, {}])
    slow = score_hand(options, [SideTally(held), SideTally(rest)]).totals
    assert fast == list(slow)

"""Property tests: random full games of every preset keep the engine's invariants."""

from __future__ import annotations

import random
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rules_helpers import check_views, random_move

from scopa.rules import (
    PLAY,
    PRESETS,
    Answer,
    BonusScored,
    Build,
    CardPlayed,
    CardsDealt,
    Claim,
    ClaimAnswered,
    Declare,
    Declared,
    Event,
    HandScored,
    InvalidOption,
    LeftoverTaken,
    MatchState,
    Ruleset,
    Steal,
    SweepClaimed,
    apply_action,
    apply_move,
    deck_cards,
    dump_state,
    legal_actions,
    legal_moves,
    load_state,
    make_ruleset,
    new_match,
    rank_of,
    visible_events,
)
from scopa.rules._scoring import hand_points_bound

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY_SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def in_play(state: MatchState) -> list[int]:
    """Every card held somewhere in the current hand: hands, table, farms, stock and piles."""
    held = [c for h in state.hands for c in h] + list(state.table) + list(state.stock)
    if state.claim is not None:  # the card played face down, awaiting answers
        held.append(state.claim.card)
    held += [c for farm in state.farms for c in farm.cards]
    return held + [c for p in state.piles for c in p]


def check_events(events: list[Event], state: MatchState) -> None:
    """Filtered events show dealt cards only to their seat, and own dealt cards match the hand."""
    players = state.ruleset.options.players
    for seat in (*range(players), None):
        for event in visible_events(events, seat):
            if isinstance(event, CardsDealt):
                if event.seat != seat:
                    assert event.cards == ()
                else:
                    assert len(event.cards) == event.n_cards
                    assert set(event.cards) <= set(state.hands[seat]), "dealt cards not in hand"


def check_hand_score(events: list[Event], state: MatchState, before: MatchState) -> None:
    """A scored hand shares out the whole deck as the plays took them; lines agree with the piles.

    Each side's cards (its pile before the last play, plus what the last play and the leftovers
    gave it) are the cards the score sheet counts, and each side's points lie in [floor, bound]
    (the floor is 0 but for Modulo sette's traditional sweeps, -1 each).
    """
    options = state.ruleset.options
    plays = options.deck_size - options.table_cards
    bound = hand_points_bound(options, plays)
    floor = -plays if options.modular_sweeps else 0
    copies = 2 if options.deck_size == 80 else 1  # two decks: two marescialli, two saponari
    # maresciallo -1, its sweep -3; saponaro -1
    floor -= copies * (4 * options.maresciallo + options.saponaro)
    if options.sweep_claims:  # each play may be a false claim or be wrongly doubted
        floor -= plays * max(options.false_claim_points, options.wrong_doubt_points)
    piles = [list(p) for p in before.piles]
    for event in events:
        if isinstance(event, CardPlayed) and event.taken:
            if event.stolen_from >= 0:  # Rubamazzo: the stolen pile moves to the thief
                piles[event.stolen_from] = []
            piles[options.side_of(event.seat)] += [*event.captured, event.card]
        elif isinstance(event, LeftoverTaken):
            piles[options.side_of(event.seat)] += event.cards
        elif isinstance(event, HandScored):
            assert sorted(c for p in piles for c in p) == list(deck_cards(options.deck_size))
            score = event.result.score
            lines = {c.name: c for c in score.components}
            if "cards" in lines:
                assert lines["cards"].values == tuple(float(len(p)) for p in piles)
            assert all(floor <= t <= bound for t in score.totals), (score.totals, bound)
            break
    if any(isinstance(e, HandScored) for e in events):
        captured = {c for e in events if isinstance(e, CardPlayed) for c in (e.card, *e.captured)}
        left = {c for e in events if isinstance(e, LeftoverTaken) for c in e.cards}
        assert set(before.table) <= captured | left


def check_serial(state: MatchState) -> None:
    """The state loads back equal; a 2-player state fits in 2 KiB."""
    blob = dump_state(state)
    if state.ruleset.options.players == 2:
        assert len(blob) <= 2048, len(blob)
    assert load_state(blob) == state


def check_steal(state: MatchState, before: MatchState, action: Steal, events: list[Event]) -> None:
    """A steal empties the stolen pile onto the thief's, the card on top (unless it ended the
    hand, which clears the piles)."""
    played = events[0]
    assert isinstance(played, CardPlayed) and played.stolen_from == action.side
    assert played.captured == before.piles[action.side] and played.captured
    if state.hand_number == before.hand_number and not state.finished:
        side = state.ruleset.options.side_of(before.turn)
        assert state.piles[action.side] == ()
        assert state.piles[side] == before.piles[side] + played.captured + (action.card,)


def claim_and_answer(state: MatchState, rng: random.Random) -> tuple[MatchState, list[Event]]:
    """Claim a sweep with a random card, then answer at random until the claim is settled:
    the turn follows the seats asked, each sees the claim's card hidden, only it may answer."""
    seat = state.turn
    claim = rng.choice([a for a in legal_actions(state) if isinstance(a, Claim)])
    state, events = apply_action(state, seat, claim, rng)
    assert [type(e) for e in events] == [SweepClaimed] and state.claim is not None
    while state.phase != PLAY:
        answering = state.turn
        assert state.claim is not None and state.claim.answering[0] == answering
        assert legal_actions(state) == [Answer(trust=True), Answer(trust=False)]
        assert all(not legal_actions(state, s) for s in range(len(state.hands)) if s != answering)
        assert not legal_moves(state)
        check_views(state)
        check_serial(state)
        state, more = apply_action(state, answering, Answer(trust=rng.random() < 0.7), rng)
        assert isinstance(more[0], ClaimAnswered)
        events += more
    assert sum(1 for e in events if isinstance(e, CardPlayed) and e.claim is not None) == 1
    return state, events


def check_build(state: MatchState, before: MatchState, action: Build, events: list[Event]) -> None:
    """A build puts the card into a farm worth the sum of its cards, owned by the builder, who
    holds a card of that value; the farm's cards leave the loose table."""
    played = events[0]
    assert isinstance(played, CardPlayed) and played.farm is not None and not played.taken
    farm = played.farm
    assert farm.value == sum(rank_of(c) for c in farm.cards) <= 10
    assert farm.owner == before.turn and farm.cards[-1] == action.card
    assert any(rank_of(c) == farm.value for c in state.hands[before.turn])
    assert farm in state.farms and not set(farm.cards) & set(state.table)


def play_game(rules: Ruleset, seed: int) -> None:
    """Play one random game, declaring, stealing, claiming sweeps and building at random when
    allowed, checking every invariant (cards conserved, each hand's cards line equal to the
    cards the events moved)."""
    rng = random.Random(seed)
    deck = list(deck_cards(rules.options.deck_size))
    state, events = new_match(rules, rng=rng)
    check_events(events, state)
    steps = 0
    before = state
    while not state.finished:
        assert sorted(in_play(state)) == deck
        seat = state.turn
        assert state.hands[seat] and legal_moves(state)
        check_views(state)
        if steps % 4 == 0 or state.hand_number != before.hand_number:
            check_serial(state)
        before = state
        declarations = [a for a in legal_actions(state) if isinstance(a, Declare)]
        if declarations and rng.random() < 0.7:
            state, events = apply_action(state, seat, rng.choice(declarations), rng)
            assert [type(e) for e in events] == [Declared] and state.turn == seat
            continue
        steals = [a for a in legal_actions(state) if isinstance(a, Steal)]
        farm_builds = [a for a in legal_actions(state) if isinstance(a, Build)]
        if any(isinstance(a, Claim) for a in legal_actions(state)) and rng.random() < 0.1:
            state, events = claim_and_answer(state, rng)
        elif farm_builds and rng.random() < 0.5:
            build = rng.choice(farm_builds)
            state, events = apply_action(state, seat, build, rng)
            check_build(state, before, build, events)
        elif steals and rng.random() < 0.5:
            steal = rng.choice(steals)
            state, events = apply_action(state, seat, steal, rng)
            check_steal(state, before, steal, events)
        else:
            state, events = apply_move(state, seat, random_move(state, rng), rng)
        check_events(events, state)
        check_hand_score(events, state, before)
        steps += 1
        assert steps < 5000, "game does not end"
    check_views(state)
    check_serial(before)
    check_serial(state)
    assert state.winners


@pytest.mark.parametrize("preset", sorted(PRESETS))
@PROPERTY_SETTINGS
@given(seed=SEEDS)
def test_random_games_keep_the_invariants(preset: str, seed: int) -> None:
    """Cards are conserved, a seat to play has moves, views hide cards, scores are bounded."""
    play_game(make_ruleset(preset), seed)


FREE_OPTIONS: dict[str, st.SearchStrategy[Any]] = {
    **{
        name: st.booleans()
        for name in (
            "equal_card_precedence",
            "figures_capture_only_figures",
            "ace_takes_all",
            "ace_sweep_counts",
            "ace_takes_only_table_ace",
            "ace_on_empty_table_sweeps",
            "capture_15",
            "capture_15_only",
            "capture_11",
            "sweep_on_last_card",
            "picula",
            "bagher",
            "accusa",
            "pile_steal",
            "farms",
            "farm_raise",
            "farm_owner_takes",
            "two_of_denari",
            "specials_on_last_card",
            "re_bello",
            "rosmarino",
            "two_of_spade",
            "denari_each",
            "settanta",
            "napola_denari",
            "napola_spade",
            "napoleone_wins",
            "partnerships",
            "denari_figures",
            "frac_points",
            "frac_tie_re_bello",
            "modular_captures",
            "modular_sweeps",
            "lowest_wins",
            "tuzzulicchio_declarations",
            "maresciallo",
            "polacca",
            "saponaro",
            "cirulla_declarations",
            "grande",
            "capture_15_fewest",
            "elimination",
            "sweep_claims",
            "dealer_bonus",
            "dealer_bonus_low",
            "table_ace_15",
            "suit_capture",
            "three_card_capture",
        )
    },
    "claim_answers": st.sampled_from(["opponents", "next"]),
    "false_claim_points": st.integers(0, 2),
    "wrong_doubt_points": st.integers(0, 2),
    "kings_redeal": st.sampled_from([0, 2, 3, 4]),
    "aces_on_table": st.sampled_from(["keep", "return", "redeal"]),
    "mazzo_ties": st.sampled_from(["unassigned", "split", "all"]),
    "primiera_method": st.sampled_from(["standard", "veneto", "milan"]),
    "capture_arithmetic": st.sampled_from(["sum", "difference", "sum_or_difference", "signed"]),
    "optional_captures": st.sampled_from(["none", "figures", "all"]),
    "sweep_points": st.integers(0, 3),
    "spade_points": st.integers(0, 2),
    "target_score": st.integers(1, 21),
    "hand_limit": st.integers(0, 4),
}
"""Options that combine freely with any preset, each with the values it may take."""


@PROPERTY_SETTINGS
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    overrides=st.fixed_dictionaries({}, optional=FREE_OPTIONS),
    seed=SEEDS,
)
def test_random_option_combinations_keep_the_invariants(
    preset: str, overrides: dict[str, Any], seed: int
) -> None:
    """Any preset with any mix of the free options plays to the end keeping every invariant
    (an option drawn without the option it needs is left out, as make_ruleset refuses it)."""
    while True:
        try:
            rules = make_ruleset(preset, overrides)
            break
        except InvalidOption as err:
            if "does nothing here" not in err.message or err.field not in overrides:
                assume(False)
            overrides = {k: v for k, v in overrides.items() if k != err.field}
    play_game(rules, seed)


def claim_at_random(rules: Ruleset, seed: int, hands: int) -> MatchState:
    """A fidasse match where each seat claims a sweep at 40% of its turns (when it may) and every
    answer is a coin toss, played until it ends or has scored ``hands`` hands."""
    rng = random.Random(seed)
    state, _ = new_match(rules, rng=rng)
    while not state.finished and len(state.results) < hands:
        claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
        if state.phase != PLAY:
            state, _ = apply_action(state, state.turn, Answer(trust=rng.random() < 0.5), rng)
        elif claims and rng.random() < 0.4:
            state, _ = apply_action(state, state.turn, rng.choice(claims), rng)
        else:
            state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
    return state


_ENDLESS: Final = [(4, 1), (4, 2), (6, 3)]
"""Seat counts and seeds of fidasse matches that :func:`claim_at_random` keeps going."""


@pytest.mark.parametrize(("players", "seed"), _ENDLESS)
def test_without_a_hand_limit_random_claims_keep_a_fidasse_match_going(
    players: int, seed: int
) -> None:
    """With hand_limit 0, false claims and wrong doubts keep every score below the target:
    these matches are still going after 100 hands."""
    rules = make_ruleset("fidasse", {"players": players, "hand_limit": 0})
    state = claim_at_random(rules, seed, 100)
    assert not state.finished and len(state.results) == 100
    assert max(state.scores) < rules.options.target_score, state.scores


@pytest.mark.parametrize(("players", "seed"), [*_ENDLESS, (2, 4)])
def test_fidasse_games_end_however_often_seats_claim_and_doubt(players: int, seed: int) -> None:
    """The same matches with the preset's hand_limit (40) end by their 40th hand, the highest
    score winning."""
    rules = make_ruleset("fidasse", {"players": players})
    assert rules.options.hand_limit == 40
    state = claim_at_random(rules, seed, 41)
    assert state.finished and len(state.results) <= 40, state.scores
    assert state.winners and all(state.scores[w] == max(state.scores) for w in state.winners), (
        state.scores
    )


@pytest.mark.parametrize("seed", [11, 18, 31])
def test_cirulla_games_whose_first_table_goes_to_the_dealer_keep_the_invariants(seed: int) -> None:
    """A Cirulla game opening with the dealer's bonus conserves the cards, its pile included."""
    rules = make_ruleset("cirulla")
    _, events = new_match(rules, rng=random.Random(seed))
    assert any(isinstance(e, BonusScored) for e in events)
    play_game(rules, seed)

"""The engine's invariants, checked over whole random games: the property suite
(test_properties.py) and the fuzzer (tools/fuzz_rules.py) play them with :func:`play_game`.

A game is a function of its ruleset, its seed and its policy alone, so a failure is
reproduced by calling :func:`play_game` again with the three.
"""

from __future__ import annotations

import random
from typing import Any, Final, Literal

from rules_helpers import check_views, random_move

from scopa.bots import random_action
from scopa.rules import (
    PLAY,
    Action,
    Answer,
    Build,
    CardPlayed,
    CardsDealt,
    Claim,
    ClaimAnswered,
    Declare,
    Declared,
    Event,
    HandScored,
    LeftoverTaken,
    MatchState,
    Options,
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
    new_match,
    rank_of,
    scores_can_fall,
    visible_events,
)
from scopa.rules._scoring import hand_points_bound

Policy = Literal["mixed", "uniform", "engine"]
"""How :func:`play_game` picks each action:

- ``mixed``: declares at 70% when it may, claims a sweep at 10%, builds at 50%, steals at 50%,
  else a random card and capture (:func:`rules_helpers.random_move`);
- ``uniform``: one of :func:`legal_actions` at random, answers to claims included;
- ``engine``: :func:`scopa.bots.random_action` (the bots' seeded random policy).
"""

POLICIES: Final[tuple[Policy, ...]] = ("mixed", "uniform", "engine")

MAX_HANDS: Final = 200
"""A game whose scores only rise, still going after this many hands or 20 hands a point of its
target (whichever is more), does not end. One whose scores can fall must end by its hand_limit,
which make_ruleset sets for it."""


def hand_bound(options: Options) -> int:
    """The most hands a game under ``options`` may play (:data:`MAX_HANDS`)."""
    if options.hand_limit:
        return options.hand_limit
    return max(MAX_HANDS, 20 * options.target_score)


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
    """The state loads back equal; a 2-player state fits in 2 KiB plus 64 bytes for each hand
    scored (the state keeps every hand's result)."""
    blob = dump_state(state)
    if state.ruleset.options.players == 2:
        bound = 2048 + 64 * len(state.results)
        assert len(blob) <= bound, f"a 2-player state of {len(blob)} bytes (at most {bound})"
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


def plain_overrides(rules: Ruleset) -> dict[str, Any]:
    """The overrides that rebuild ``rules``, sorted, enums by their string value: a literal
    to paste into a test."""
    return {k: getattr(v, "value", v) for k, v in sorted(rules.overrides().items())}


def replay_line(rules: Ruleset, seed: int, policy: Policy) -> str:
    """The call that replays a game: what a failure of :func:`play_game` notes."""
    overrides = plain_overrides(rules)
    return f"play_game(make_ruleset({rules.preset!r}, {overrides!r}), {seed}, {policy!r})"


def play_game(rules: Ruleset, seed: int, policy: Policy = "mixed") -> MatchState:
    """Play one random game by ``policy``, checking every invariant on the way: the cards are
    conserved, the seat to play always has a legal action, the views hide what they must, the
    events show dealt cards only to their seat, each scored hand shares out the whole deck, the
    state round-trips through the stored format, and the game ends within :func:`hand_bound`.

    A failure carries a note with the call that replays it (:func:`replay_line`), whoever
    drew the game (hypothesis, the fuzzer)."""
    try:
        return _play_game(rules, seed, policy)
    except Exception as err:
        err.add_note(f"replay: {replay_line(rules, seed, policy)}")
        raise


def _play_game(rules: Ruleset, seed: int, policy: Policy) -> MatchState:
    rng = random.Random(seed)
    deck = list(deck_cards(rules.options.deck_size))
    state, events = new_match(rules, rng=rng)
    check_events(events, state)
    steps = 0
    before = state
    bound = hand_bound(rules.options)
    rising = not scores_can_fall(rules.options)
    while not state.finished:
        assert sorted(in_play(state)) == deck, "cards are not conserved"
        seat = state.turn
        actions = legal_actions(state)
        assert actions, f"seat {seat} has no legal action (hand {state.hand_number})"
        assert state.phase != PLAY or (state.hands[seat] and legal_moves(state))
        check_views(state)
        if steps % 4 == 0 or state.hand_number != before.hand_number:
            check_serial(state)
        before = state
        if policy == "mixed":
            state, events = _mixed_step(state, actions, rng)
        else:
            action = rng.choice(actions) if policy == "uniform" else random_action(state, rng)
            assert action in actions, f"random_action chose {action!r}, not a legal action"
            state, events = apply_action(state, seat, action, rng)
            _check_action(state, before, action, events)
        check_events(events, state)
        check_hand_score(events, state, before)
        steps += 1
        assert len(state.results) <= bound, f"game still going after {bound} hands"
        if rising:
            assert all(a >= b for a, b in zip(state.scores, before.scores, strict=True)), (
                f"scores fell from {before.scores} to {state.scores}"
            )
    check_views(state)
    check_serial(before)
    check_serial(state)
    assert state.winners
    return state


def _mixed_step(
    state: MatchState, actions: list[Action], rng: random.Random
) -> tuple[MatchState, list[Event]]:
    """One step of the ``mixed`` policy (a claim is played with its answers)."""
    seat = state.turn
    declarations = [a for a in actions if isinstance(a, Declare)]
    steals = [a for a in actions if isinstance(a, Steal)]
    builds = [a for a in actions if isinstance(a, Build)]
    action: Action
    if declarations and rng.random() < 0.7:
        action = rng.choice(declarations)
    elif any(isinstance(a, Claim) for a in actions) and rng.random() < 0.1:
        return claim_and_answer(state, rng)
    elif builds and rng.random() < 0.5:
        action = rng.choice(builds)
    elif steals and rng.random() < 0.5:
        action = rng.choice(steals)
    else:
        return apply_move(state, seat, random_move(state, rng), rng)
    after, events = apply_action(state, seat, action, rng)
    _check_action(after, state, action, events)
    return after, events


def _check_action(
    state: MatchState, before: MatchState, action: Action, events: list[Event]
) -> None:
    """The checks particular to ``action``'s kind."""
    if isinstance(action, Declare):
        assert [type(e) for e in events] == [Declared] and state.turn == before.turn
    elif isinstance(action, Build):
        check_build(state, before, action, events)
    elif isinstance(action, Steal):
        check_steal(state, before, action, events)
    elif isinstance(action, Claim):
        assert [type(e) for e in events] == [SweepClaimed] and state.claim is not None
    elif isinstance(action, Answer):
        assert isinstance(events[0], ClaimAnswered)

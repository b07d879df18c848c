"""Tests of claimed sweeps as move types (scopa.rules._moves_claim): Scopa fidasse's claim,
the answers and their settling."""

from __future__ import annotations

import random

import pytest
from rules_helpers import cards, of_type, ruleset, situation

from scopa.rules import (
    ANSWER,
    HIDDEN_CARD,
    PLAY,
    ActionNotLegal,
    Answer,
    CardNotInHand,
    CardPlayed,
    Claim,
    ClaimAnswered,
    ClaimOutcome,
    HandScored,
    InvalidOption,
    MatchState,
    Move,
    NotYourTurn,
    PendingClaim,
    SweepClaimed,
    apply_action,
    apply_move,
    legal_actions,
    legal_moves,
    make_ruleset,
    observe,
    visible_event,
)


def _card(code: str) -> int:
    return cards(code)[0]


def _claimed(preset: str = "fidasse", **overrides: object) -> MatchState:
    """Seat 0 has claimed a sweep of 3D 4S with the 2C it played face down (a false claim)."""
    state = situation(
        ruleset(preset, **overrides),
        hands=["2C 9C", "5B 8B"] if preset == "fidasse" else ["2C 9C", "5B 8B", "6B 8C", "1S 2S"],
        table="3D 4S",
        stock="10C 10D",
    )
    state, events = apply_action(state, 0, Claim(_card("2C")), None)
    assert events == [SweepClaimed(seat=0, table=state.table, answering=state.claim.answering)]  # type: ignore[union-attr]
    return state


def test_a_claim_awaits_the_opponents_answer_with_its_card_face_down() -> None:
    """After "ti fidi?" the turn is the answering seat's: only it may act, by trust or doubt;
    its view and a spectator's show the claim without its card, the claimer's with it."""
    state = _claimed()
    assert (state.phase, state.turn, state.hands[0]) == (ANSWER, 1, cards("9C"))
    assert state.claim == PendingClaim(seat=0, card=_card("2C"), answering=(1,), trusted=())
    assert legal_actions(state) == [Answer(trust=True), Answer(trust=False)]
    assert legal_actions(state, 0) == [] and legal_moves(state) == []
    with pytest.raises(NotYourTurn):
        apply_action(state, 0, Answer(trust=True), None)
    with pytest.raises(ActionNotLegal):
        apply_action(state, 1, Move(_card("5B"), ()), None)
    with pytest.raises(ActionNotLegal):
        apply_move(state, 1, Move(_card("5B"), ()))
    for seat in (1, None):
        view = observe(state, seat)
        assert view.phase == ANSWER and view.claim is not None
        assert view.claim.card == HIDDEN_CARD and _card("2C") not in view.hand
    assert observe(state, 0).claim.card == _card("2C")  # type: ignore[union-attr]
    assert observe(state, 1).legal_actions == (Answer(trust=True), Answer(trust=False))


def test_a_trusted_claim_sweeps_unseen_even_when_false() -> None:
    """it.wikipedia: "dacă răspundeți da, mătura rămâne terminată și nu trebuie afișată": 2C takes
    3D 4S as a sweep, and only the claimer ever sees the card."""
    state, events = apply_action(_claimed(), 1, Answer(trust=True), None)
    trusted = CardPlayed(
        0, _card("2C"), cards("3D 4S"), True, True, (), -1, ClaimOutcome(-1, False, ())
    )
    assert events[:2] == [ClaimAnswered(seat=1, trust=True), trusted]
    assert (state.phase, state.claim, state.turn, state.table) == (PLAY, None, 1, ())
    assert state.sweeps == (1, 0) and state.piles[0] == cards("3D 4S 2C")
    hidden = trusted._replace(card=HIDDEN_CARD)
    assert observe(state, 1).history[-1] == hidden and observe(state, None).history[-1] == hidden
    assert observe(state, 0).history[-1] == trusted
    assert visible_event(trusted, 1) == hidden and visible_event(trusted, 0) == trusted


def test_a_doubted_false_claim_is_annulled_and_costs_the_claimer_a_point() -> None:
    """it.wikipedia, case 1: the sweep is annulled (2C is laid beside 3D 4S) and the claimer's
    side loses a point; the card is shown to everyone."""
    state, events = apply_action(_claimed(), 1, Answer(trust=False), None)
    laid = CardPlayed(
        0, _card("2C"), (), False, False, (("false_claim", -1),), -1, ClaimOutcome(1, False, ())
    )
    assert events[:2] == [ClaimAnswered(seat=1, trust=False), laid]
    assert state.table == tuple(sorted(cards("2C 3D 4S"), key=lambda c: (c % 10, c // 10)))
    assert (state.sweeps, state.specials, state.last_laid) == (
        (0, 0),
        ((("false_claim", -1),), ()),
        _card("2C"),
    )
    assert visible_event(laid, 1) == laid and observe(state, None).history[-1] == laid


def test_a_doubted_true_claim_stands_and_costs_the_doubter_a_point() -> None:
    """it.wikipedia, case 2: 7C does take 3D 4S, so the sweep stands and the doubter's side loses
    the point (the score sheet's wrong_doubts line)."""
    state = situation(
        ruleset("fidasse"), hands=["7C", "5B"], table="3D 4S", stock="", piles=((), ())
    )
    state, _ = apply_action(state, 0, Claim(_card("7C")), None)
    state, events = apply_action(state, 1, Answer(trust=False), None)
    played = of_type(events, CardPlayed)[0]
    assert played.claim == ClaimOutcome(1, True, (("wrong_doubt", -1),)) and played.sweep
    assert state.sweeps == (1, 0) and state.specials == ((), (("wrong_doubt", -1),))
    state, events = apply_action(state, 1, Move(_card("5B"), ()), random.Random(1))
    lines = {c.name: c.points for c in of_type(events, HandScored)[0].result.score.components}
    assert lines["sweeps"] == (1, 0) and lines["wrong_doubts"] == (0, -1)
    assert lines["false_claims"] == (0, 0)


def test_with_four_players_each_opponent_answers_in_turn_and_the_first_doubt_settles() -> None:
    """Scopone-style teams: seats 1 and 3 are asked (not the partner 2); 1 trusts, the turn goes
    to 3, whose doubt settles the claim; play goes on after the claimer."""
    state = _claimed("scopone", sweep_claims=True)
    assert state.claim.answering == (1, 3) and state.turn == 1  # type: ignore[union-attr]
    state, events = apply_action(state, 1, Answer(trust=True), None)
    assert events == [ClaimAnswered(1, True)] and state.turn == 3
    assert state.claim.trusted == (1,) and legal_actions(state, 1) == []  # type: ignore[union-attr]
    state, events = apply_action(state, 3, Answer(trust=False), None)
    assert of_type(events, CardPlayed)[0].claim == ClaimOutcome(3, False, ())
    assert (state.phase, state.turn) == (PLAY, 1)


def test_no_claim_on_an_empty_table_with_the_last_card_or_without_the_rule() -> None:
    """A claim needs cards on the table and a play that is not the hand's last; plain Scopa
    has none; a card not in the hand is refused."""
    empty = situation(ruleset("fidasse"), hands=["2C 9C", "5B 8B"], table="", stock="10C 10D")
    assert not [a for a in legal_actions(empty) if isinstance(a, Claim)]
    with pytest.raises(ActionNotLegal):
        apply_action(empty, 0, Claim(_card("2C")), None)
    last = situation(ruleset("fidasse"), hands=["2C", ""], table="3D", stock="")
    assert not [a for a in legal_actions(last) if isinstance(a, Claim)]
    open_ = situation(ruleset("fidasse"), hands=["2C 9C", "5B 8B"], table="3D", stock="10C 10D")
    assert [a for a in legal_actions(open_) if isinstance(a, Claim)] == [
        Claim(_card("2C")),
        Claim(_card("9C")),
    ]
    with pytest.raises(CardNotInHand):
        apply_action(open_, 0, Claim(_card("5B")), None)
    scopa = situation(ruleset("scopa"), hands=["2C 9C", "5B 8B"], table="3D", stock="10C 10D")
    assert not [a for a in legal_actions(scopa) if isinstance(a, Claim)]
    with pytest.raises(ActionNotLegal):
        apply_action(scopa, 0, Claim(_card("2C")), None)
    with pytest.raises(InvalidOption):
        make_ruleset("rubamazzo", {"sweep_claims": True})


@pytest.mark.parametrize("counts", [False, True])
def test_a_claim_is_open_only_with_a_card_whose_clearing_would_score_a_sweep(counts: bool) -> None:
    """Under asso piglia tutto an ace's clearing is a sweep only with ace_sweep_counts, so
    only then may an ace be claimed (the sweep rules are asked as for a real sweep)."""
    state = situation(
        ruleset("fidasse", ace_takes_all=True, ace_sweep_counts=counts),
        hands=["1C 9C", "5B 8B"],
        table="3D 4S",
        stock="10C 10D",
    )
    claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
    assert claims == ([Claim(_card("1C"))] if counts else []) + [Claim(_card("9C"))]
    if not counts:
        with pytest.raises(ActionNotLegal):
            apply_action(state, 0, Claim(_card("1C")), None)


def test_a_claim_with_the_hands_last_card_follows_sweep_on_last_card() -> None:
    """The last card's clearing is no sweep by default, so it cannot be claimed; with
    sweep_on_last_card it is one, so the claim is open and, trusted, scores the sweep."""
    for on_last, expected in ((False, []), (True, [Claim(_card("7C"))])):
        state = situation(
            ruleset("fidasse", sweep_on_last_card=on_last),
            hands=["7C", ""],
            table="3D 4S",
            stock="",
            piles=((), ()),
        )
        assert [a for a in legal_actions(state) if isinstance(a, Claim)] == expected
    state, _ = apply_action(state, 0, Claim(_card("7C")), None)
    state, events = apply_action(state, 1, Answer(trust=True), random.Random(1))
    assert of_type(events, CardPlayed)[0].sweep
    lines = {c.name: c.points for c in of_type(events, HandScored)[0].result.score.components}
    assert lines["sweeps"] == (1, 0)


def test_a_trusted_claim_is_a_sweep_only_when_the_sweep_rules_say_so() -> None:
    """A pending claim of an ace under asso piglia tutto without ace_sweep_counts (a state
    saved before such claims were closed) takes the table trusted but scores no sweep, as the
    ace taking the table would not."""
    state = situation(
        ruleset("fidasse", ace_takes_all=True),
        hands=["9C", "5B 8B"],
        table="3D 4S",
        stock="10C 10D",
        turn=1,
        phase=ANSWER,
        claim=PendingClaim(seat=0, card=_card("1C"), answering=(1,), trusted=()),
    )
    state, events = apply_action(state, 1, Answer(trust=True), None)
    played = of_type(events, CardPlayed)[0]
    assert (played.taken, played.sweep, played.captured) == (True, False, cards("3D 4S"))
    assert state.sweeps == (0, 0) and state.piles[0][-3:] == cards("3D 4S 1C")

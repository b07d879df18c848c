"""Tests of the match-flow rules (scopa.rules._matchflow) with it.wikipedia's games played to
lose."""

from __future__ import annotations

import pytest

from scopa.rules import make_ruleset
from scopa.rules._matchflow import (
    Elimination,
    FlowOutcome,
    HighestWins,
    LowestWins,
    NapoleoneWins,
    instant_win_rules,
    match_flow,
)
from scopa.rules._scoring import Component, HandScore


def test_each_ruleset_gets_its_flow() -> None:
    """Scopa plays to the highest score; A non prendere to the lowest; al contrario eliminates."""
    assert isinstance(match_flow(make_ruleset("scopa").options), HighestWins)
    assert isinstance(match_flow(make_ruleset("a_non_prendere").options), LowestWins)
    assert isinstance(match_flow(make_ruleset("scopone_al_contrario").options), Elimination)


@pytest.mark.parametrize(
    ("scores", "winners"),
    [
        ((8, 9, 7, 10), ()),  # nobody at 11 yet: play on
        ((8, 9, 7, 12), (2,)),  # "the first player to reach 11 points loses"; the lowest wins
        ((7, 9, 7, 11), (0, 2)),  # every side tied for the lowest score wins
    ],
)
def test_a_non_prendere_lowest_score_wins_once_a_side_reaches_11(
    scores: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    """it.wikipedia A non prendere: the first to 11 loses; the match ends and the lowest wins."""
    options = make_ruleset("a_non_prendere").options
    outcome = LowestWins().after_hand(options, scores, ())
    assert outcome.winners == winners
    assert outcome.reason == ("lowest" if winners else "")


@pytest.mark.parametrize(
    ("scores", "out", "expected"),
    [
        ((18, 25, 10, 12), (), FlowOutcome((), "", (1,))),  # "reaches 21 leaves the game"
        ((22, 25, 10, 12), (1,), FlowOutcome((), "", (0, 1))),
        ((22, 25, 30, 12), (0, 1), FlowOutcome((3,), "elimination", (0, 1, 2))),  # last left
        ((22, 25, 10, 23), (), FlowOutcome((2,), "elimination", (0, 1, 3))),  # several at once
        ((22, 25, 24, 23), (), FlowOutcome((), "", (1,))),  # all over: the highest leave
        ((22, 25, 25, 22), (), FlowOutcome((), "", (1, 2))),
        ((25, 10, 25, 10), (1, 3), FlowOutcome((), "", (1, 3))),  # a tie: nobody leaves
    ],
)
def test_scopone_al_contrario_seats_leave_at_21_until_one_is_left(
    scores: tuple[int, ...], out: tuple[int, ...], expected: FlowOutcome
) -> None:
    """it.wikipedia Scopone romano al contrario: who reaches 21 leaves; the last one left wins."""
    options = make_ruleset("scopone_al_contrario").options
    assert Elimination().after_hand(options, scores, out) == expected


@pytest.mark.parametrize(
    ("players", "active", "shape"),
    [(5, 5, (7, 5)), (5, 4, (9, 4)), (4, 4, (9, 4)), (4, 3, (6, 4)), (4, 2, (6, 4))],
)
def test_scopone_al_contrario_deals_by_the_seats_left(
    players: int, active: int, shape: tuple[int, int]
) -> None:
    """it.wikipedia: five play 7 cards with 5 on the table, four 9 and 4, the last two 6 and 4."""
    options = make_ruleset("scopone_al_contrario", {"players": players}).options
    assert Elimination().deal_shape(options, active) == shape


@pytest.mark.parametrize(
    ("flow", "scores", "out", "leaders"),
    [
        (HighestWins(), (3, -2), (), (0,)),
        (HighestWins(), (-1, 4, 4), (), (1, 2)),  # every side tied for the highest
        (LowestWins(), (8, 9, 7, 7), (), (2, 3)),
        (Elimination(), (5, 25, 9, 5), (1,), (0, 3)),  # the lowest still in
        (Elimination(), (30, 2, 9, 5), (1,), (3,)),  # a seat out counts for nothing
    ],
)
def test_a_match_cut_short_goes_to_the_best_score_of_its_flow(
    flow: HighestWins | LowestWins | Elimination,
    scores: tuple[int, ...],
    out: tuple[int, ...],
    leaders: tuple[int, ...],
) -> None:
    """At hand_limit the highest wins, the lowest when played to lose or under elimination."""
    assert flow.leaders(scores, out) == leaders


def test_napoleone_is_an_instant_win_rule_of_the_rulesets_that_enable_it() -> None:
    """Scopa with napola lists the napoleone rule; it names the sides holding all ten denari."""
    assert [type(r) for r in instant_win_rules(make_ruleset("scopa_napola").options)] == [
        NapoleoneWins
    ]
    assert instant_win_rules(make_ruleset("scopa").options) == ()
    line = Component("cards", (0, 0), (20.0, 20.0))
    score = HandScore((line,), (0, 0), (False, True))
    assert NapoleoneWins().winners(score) == (1,)
    assert NapoleoneWins().winners(HandScore((line,), (0, 0), (False, False))) == ()

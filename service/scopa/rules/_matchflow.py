"""Match flow as rules: how each hand is dealt and when the match ends, and who wins.

A :class:`MatchFlow` is asked once per hand: :meth:`MatchFlow.deal_shape` says how many cards
each seat still in the match gets and how many go face up on the table, and
:meth:`MatchFlow.after_hand` says, from the match scores, who wins (nobody yet: play on) and
which seats leave the match; :meth:`MatchFlow.leaders` says who wins a match that ``hand_limit``
cuts short. :func:`match_flow` picks the flow an
:class:`~scopa.rules._options.Options` value enables; the engine has no branch on the flag. An
:class:`InstantWinRule` (the napoleone) ends the match at once after a hand, whatever the
scores.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple, Protocol

from ._options import Options
from ._scoring import HandScore

__all__ = [
    "INSTANT_WIN_RULES",
    "Elimination",
    "FlowOutcome",
    "HighestWins",
    "InstantWinRule",
    "LowestWins",
    "MatchFlow",
    "NapoleoneWins",
    "SpadeNapoleoneWins",
    "instant_win_rules",
    "match_flow",
]


class FlowOutcome(NamedTuple):
    """What a finished hand means for the match."""

    winners: tuple[int, ...]
    """The winning sides; empty while the match goes on."""
    reason: str
    """The finish reason (a ``FinishReason`` value), ``""`` while the match goes on."""
    out: tuple[int, ...]
    """Every seat out of the match after this hand (sorted)."""


_PLAY_ON: Final = ""


class MatchFlow(Protocol):
    """Dealing and the end of the match."""

    def deal_shape(self, options: Options, active: int) -> tuple[int, int]:
        """Cards per seat and table cards of a hand with ``active`` seats in the match."""
        ...

    def after_hand(
        self, options: Options, scores: tuple[int, ...], out: tuple[int, ...]
    ) -> FlowOutcome:
        """The outcome after a hand, from the match ``scores`` per side and the seats ``out``."""
        ...

    def leaders(self, scores: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
        """The sides that win a match cut short now (``hand_limit``): every side tied for the
        best score."""
        ...


class HighestWins:
    """The first side to reach ``target_score`` wins; if several reach it the highest wins, and a
    tie at the top plays further hands (docs/rules.md)."""

    def deal_shape(self, options: Options, active: int) -> tuple[int, int]:
        """The options' own deal (every seat stays in the match)."""
        return options.hand_size, options.table_cards

    def after_hand(
        self, options: Options, scores: tuple[int, ...], out: tuple[int, ...]
    ) -> FlowOutcome:
        """The unique highest side once one reaches the target."""
        winners = _highest_winner(options, scores)
        return FlowOutcome(winners, "target" if winners else _PLAY_ON, out)

    def leaders(self, scores: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
        """Every side tied for the highest score."""
        return _tied(scores, range(len(scores)), max(scores))


def _highest_winner(options: Options, scores: tuple[int, ...]) -> tuple[int, ...]:
    """:meth:`HighestWins.after_hand`'s winners: the one highest side once it reaches the
    target, else none (a tie at the top plays on). The rollout asks it without a
    :class:`FlowOutcome`."""
    top = max(scores)
    if top < options.target_score:
        return ()
    leader = -1
    for side, value in enumerate(scores):
        if value == top:
            if leader >= 0:
                return ()
            leader = side
    return (leader,)


class LowestWins:
    """A non prendere (it.wikipedia): "Primul jucător care ajunge la 11 puncte pierde" -- the match
    ends when a side reaches ``target_score``, and the side(s) with the lowest score win (every
    side tied for the lowest score wins)."""

    def deal_shape(self, options: Options, active: int) -> tuple[int, int]:
        """The options' own deal (every seat stays in the match)."""
        return options.hand_size, options.table_cards

    def after_hand(
        self, options: Options, scores: tuple[int, ...], out: tuple[int, ...]
    ) -> FlowOutcome:
        """Every side tied for the lowest score, once a side reaches the target."""
        if max(scores) < options.target_score:
            return FlowOutcome((), _PLAY_ON, out)
        return FlowOutcome(self.leaders(scores, out), "lowest", out)

    def leaders(self, scores: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
        """Every side tied for the lowest score."""
        return _tied(scores, range(len(scores)), min(scores))


_ELIMINATION_SHAPES: Final[dict[int, tuple[int, int]]] = {
    5: (7, 5),
    4: (9, 4),
    3: (6, 4),
    2: (6, 4),
}
"""Scopone al contrario (it.wikipedia): cards per seat and on the table by seats left in the match.
Five: 7 each and 5 on the table; four: 9 and 4; two: 6 and 4, dealt again until the deck ends;
three (the seed is silent): as two, 6 each and 4, in two deals."""


class Elimination:
    """Scopone romano al contrario (it.wikipedia): a seat (each plays alone) that reaches
    ``target_score`` leaves the match, which goes on with the others; the last seat left wins.

    When every seat still in reaches the target in the same hand, those with the highest score
    leave and the rest play on (nobody leaves on a tie: further hands break it).
    """

    def deal_shape(self, options: Options, active: int) -> tuple[int, int]:
        """The seed's deal for ``active`` seats; the options' own with every seat in."""
        if active == options.players:
            return options.hand_size, options.table_cards
        return _ELIMINATION_SHAPES[active]

    def after_hand(
        self, options: Options, scores: tuple[int, ...], out: tuple[int, ...]
    ) -> FlowOutcome:
        """The seats reaching the target leave; the last one left wins."""
        active = [s for s in range(len(scores)) if s not in out]
        leaving = [s for s in active if scores[s] >= options.target_score]
        if len(leaving) == len(active):
            top = max([scores[s] for s in active])
            leaving = [s for s in active if scores[s] == top]
            if len(leaving) == len(active):
                leaving = []
        now_out = tuple(sorted([*out, *leaving]))
        staying = tuple([s for s in active if s not in leaving])
        if len(staying) == 1:
            return FlowOutcome(staying, "elimination", now_out)
        return FlowOutcome((), _PLAY_ON, now_out)

    def leaders(self, scores: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, ...]:
        """Every seat still in tied for the lowest score (the furthest from leaving)."""
        active = [s for s in range(len(scores)) if s not in out]
        return _tied(scores, active, min([scores[s] for s in active]))


def _tied(scores: tuple[int, ...], sides: Iterable[int], best: int) -> tuple[int, ...]:
    """The sides among ``sides`` whose score is ``best``."""
    return tuple([s for s in sides if scores[s] == best])


_HIGHEST: Final = HighestWins()
_LOWEST: Final = LowestWins()
_ELIMINATION: Final = Elimination()


def match_flow(options: Options) -> MatchFlow:
    """The match flow ``options`` enable."""
    if options.elimination:
        return _ELIMINATION
    if options.lowest_wins:
        return _LOWEST
    return _HIGHEST


# --- hands that end the match at once ------------------------------------------------------


class InstantWinRule(Protocol):
    """A hand result that ends the match at once, whatever the scores (the napoleone)."""

    @property
    def reason(self) -> str:
        """The finish reason it gives, e.g. ``"napoleone"`` (a ``FinishReason`` value)."""
        ...

    def winners(self, score: HandScore) -> tuple[int, ...]:
        """The sides that win at once after the hand scored ``score`` (empty: none)."""
        ...


class NapoleoneWins:
    """A side that took all ten denari wins the match at once (the Scopa page and it.wikipedia)."""

    reason: Final = "napoleone"

    def winners(self, score: HandScore) -> tuple[int, ...]:
        """The sides holding all ten denari this hand."""
        return tuple([side for side, has in enumerate(score.napoleone) if has])


_ALL_SPADE_52: Final = 13
"""The napula of a side holding every spade of the 52-card deck."""


class SpadeNapoleoneWins:
    """Cicera bigia: a side that took all thirteen spade of the 52-card deck (a napula of 13)
    wins the match at once (en.wikipedia's and it.wikipedia's Cicera)."""

    reason: Final = "napoleone"

    def winners(self, score: HandScore) -> tuple[int, ...]:
        """The sides whose napola of spade runs through all thirteen ranks."""
        for line in score.components:
            if line.name == "napola_spade":
                return tuple([s for s, n in enumerate(line.values) if n >= _ALL_SPADE_52])
        return ()


INSTANT_WIN_RULES: Final[tuple[tuple[str, InstantWinRule], ...]] = (
    ("napoleone_wins", NapoleoneWins()),
    ("spade_napoleone_wins", SpadeNapoleoneWins()),
)
"""Every instant-win rule, by the boolean option that enables it, asked in this order."""


def instant_win_rules(options: Options) -> tuple[InstantWinRule, ...]:
    """The instant-win rules ``options`` enable."""
    return tuple([rule for option, rule in INSTANT_WIN_RULES if getattr(options, option)])

"""The rollout path: a random play-out of the current hand, for search, from the engine's source.

:func:`play_out` plays the hand of a :class:`~scopa.rules.MatchState` to its end with the random
policy of :func:`~scopa.bots.random_move` and scores it, as the validated loop
(``random_move`` then ``apply_move`` until :class:`~scopa.rules.HandScored`) would with the same
RNG, draw for draw and point for point (tests/bots/test_rollout.py checks both on every preset).
It skips what a search does not need: validation (every pick is legal by construction), events,
a new :class:`MatchState` per play, the public history. It works on lists in place, keeps the
table's capture shape up to date play by play, and asks the engine's own rules for captures
(the ruleset's :class:`~scopa.rules._capture.CaptureTable`), sweeps, special plays, dealing and
the match's end; it scores the hand with one bit mask of cards per side, line by line as the
ruleset's scoring rules say (a rule it has no mask twin for is scored by
:func:`~scopa.rules.score_hand` itself). It reads the engine's internals (``scopa.rules._game``,
``_scoring``) for that speed, and is compiled with the engine (tools/build_mypyc.py).
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache
from typing import Final, NamedTuple

from scopa.rules._capture import SHAPE_BITS
from scopa.rules._cards import _RANKS, MAX_CARD, Card, Suit, deck_cards
from scopa.rules._errors import GameOver
from scopa.rules._events import HandScored
from scopa.rules._game import _plan, apply_move
from scopa.rules._hand import _is_sweep, _match_outcome, _next_in, _score_specials, _takes_alone
from scopa.rules._matchflow import HighestWins, _highest_winner
from scopa.rules._options import MazzoTies, Options, PrimieraMethod
from scopa.rules._scoring import (
    _CARDS,
    _DENARI,
    _DENARI_EACH,
    _DENARI_FIGURES,
    _DENARI_FIGURES_RULE,
    _FRAC,
    _FRAC_RANKS,
    _PRIMIERA,
    _SETTANTA,
    _SPADE,
    _SPECIAL_LINES,
    _STANDARD_BY_CARD,
    _SWEEPS,
    _VENETO_BY_CARD,
    SETTEBELLO,
    CardRule,
    HandScore,
    NapolaRule,
    SideTally,
    napola_length,
    score_hand,
    scoring_rules,
)
from scopa.rules._state import _PLAYING, MatchState

from ._random import rollout_move

__all__ = ["HandOutcome", "card_points", "play_out"]

_SUIT_BITS: Final = 1023
_DENARI_SHIFT: Final = 10 * int(Suit.DENARI)
_TABLE_KEY: Final[tuple[int, ...]] = tuple([(c % 10) * 4 + c // 10 for c in range(40)])
"""``table_key`` of each card."""


class HandOutcome(NamedTuple):
    """What a play-out of a hand ends in."""

    totals: tuple[int, ...]
    """The hand's points per side (``HandScore.totals`` of the validated path)."""
    scores: tuple[int, ...]
    """The match totals after the hand."""
    winners: tuple[int, ...]
    """The sides that win the match with this hand (empty: the match goes on)."""


# --- scoring with one card mask per side ----------------------------------------------------

_MOST_CARDS: Final = 0
_MOST_SUIT: Final = 1
_MOST_PRIMIERA: Final = 2
_CARD: Final = 3
_SWEEP_LINE: Final = 4
_DENARI_EACH_LINE: Final = 5
_SETTANTA_LINE: Final = 6
_NAPOLA: Final = 7
_SPECIAL: Final = 8
_CARDS_IN: Final = 9


class _Line(NamedTuple):
    """One score-sheet line as the mask scorer computes it."""

    kind: int
    arg: int
    """The suit, card, card mask or primiera method (index in ``PrimieraMethod``) it looks at."""
    points: int
    """The line's points; for a ``_NAPOLA`` line, the run's top rank (``napola_top``)."""
    name: str
    """The special's name (``_SPECIAL`` lines)."""


def _suit_table(measure: str) -> tuple[float, ...]:
    """Per 10-bit rank mask of one suit: its card count, best primiera value, or napola run."""
    out: list[float] = []
    for bits in range(1 << 10):
        ranks = [r for r in range(10) if bits >> r & 1]  # card r of suit 0 has rank r + 1
        if measure == "count":
            out.append(float(len(ranks)))
        elif measure == "napola":
            out.append(float(napola_length(ranks, Suit(0))))
        else:
            values = _VENETO_BY_CARD if measure == "veneto" else _STANDARD_BY_CARD
            out.append(max([values[r] for r in ranks], default=0.0))
    return tuple(out)


_FRAC_CARDS: Final = tuple([c for c in range(40) if _RANKS[c] in _FRAC_RANKS])
_COUNT: Final[tuple[float, ...]] = _suit_table("count")
_BEST_STANDARD: Final[tuple[float, ...]] = _suit_table("standard")
_BEST_VENETO: Final[tuple[float, ...]] = _suit_table("veneto")
_NAPOLA_RUN: Final[tuple[float, ...]] = _suit_table("napola")


def _lines(options: Options) -> tuple[_Line, ...] | None:
    """The ruleset's scoring rules as mask lines, or ``None`` if one has no mask twin."""
    lines: list[_Line] = []
    for rule in scoring_rules(options):
        special = [name for name, line in _SPECIAL_LINES.items() if line is rule]
        if rule is _SWEEPS:
            lines.append(_Line(_SWEEP_LINE, 0, options.sweep_points, ""))
        elif rule is _CARDS:
            lines.append(_Line(_MOST_CARDS, 0, options.cards_points, ""))
        elif rule is _DENARI:
            lines.append(_Line(_MOST_SUIT, int(Suit.DENARI), options.denari_points, ""))
        elif rule is _SPADE:
            lines.append(_Line(_MOST_SUIT, int(Suit.SPADE), options.spade_points, ""))
        elif rule is _PRIMIERA:
            method = list(PrimieraMethod).index(options.primiera_method)
            lines.append(_Line(_MOST_PRIMIERA, method, options.primiera_points, ""))
        elif isinstance(rule, CardRule):
            lines.append(_Line(_CARD, rule.card, rule.points(options), ""))
        elif rule is _DENARI_EACH:
            lines.append(_Line(_DENARI_EACH_LINE, 0, 1, ""))
        elif rule is _DENARI_FIGURES_RULE or rule is _FRAC:
            wanted = _DENARI_FIGURES if rule is _DENARI_FIGURES_RULE else _FRAC_CARDS
            lines.append(_Line(_CARDS_IN, sum(1 << c for c in wanted), 1, ""))
        elif rule is _SETTANTA:
            lines.append(_Line(_SETTANTA_LINE, 0, 1, ""))
        elif isinstance(rule, NapolaRule):  # points: the run's top rank (0: the whole suit)
            lines.append(_Line(_NAPOLA, int(rule.suit), options.napola_top, ""))
        elif special:
            lines.append(_Line(_SPECIAL, 0, 0, special[0]))
        else:
            return None
    return tuple(lines)


def _primiera(mask: int, method: int) -> float:
    """``primiera_value`` of the cards in ``mask`` (method: index in ``PrimieraMethod``)."""
    if method == 2:  # MILAN: 100 * sevens + 10 * sixes + aces
        sevens = sixes = aces = 0
        for suit in range(4):
            bits = mask >> (10 * suit)
            sevens += bits >> 6 & 1
            sixes += bits >> 5 & 1
            aces += bits & 1
        return float(100 * sevens + 10 * sixes + aces)
    best = _BEST_VENETO if method == 1 else _BEST_STANDARD
    total = 0.0
    for suit in range(4):
        value = best[mask >> (10 * suit) & _SUIT_BITS]
        if value == 0.0:
            return 0.0
        total += value
    return total


def _most(points: int, values: list[float], ties: MazzoTies, out: list[int]) -> None:
    """Add ``points`` to the side of the highest positive value (``_scoring._most``'s rule)."""
    top = 0.0
    for value in values:
        if value > top:  # noqa: PLR1730 - no max() call in the hot path
            top = value
    if top <= 0:
        return
    leaders = 0
    for value in values:
        if value == top:
            leaders += 1
    if leaders > 1:
        if ties is MazzoTies.SPLIT:
            points = max(1, points // leaders)
        elif ties is not MazzoTies.ALL:
            points = 0
    for side in range(len(values)):
        if values[side] == top:
            out[side] += points


def _line_values(line: _Line, masks: list[int]) -> list[float]:
    kind = line.kind
    if kind == _MOST_CARDS:
        return [
            _COUNT[m & _SUIT_BITS]
            + _COUNT[m >> 10 & _SUIT_BITS]
            + _COUNT[m >> 20 & _SUIT_BITS]
            + _COUNT[m >> 30 & _SUIT_BITS]
            for m in masks
        ]
    if kind == _MOST_SUIT:
        return [_COUNT[m >> (10 * line.arg) & _SUIT_BITS] for m in masks]
    return [_primiera(m, line.arg) for m in masks]


def _mask_totals(
    lines: tuple[_Line, ...],
    options: Options,
    masks: list[int],
    sweeps: list[int],
    specials: list[dict[str, int]],
) -> list[int]:
    """The hand's points per side, line by line."""
    sides = len(masks)
    out = [0] * sides
    ties = options.mazzo_ties
    for line in lines:
        kind = line.kind
        if kind <= _MOST_PRIMIERA:
            _most(line.points, _line_values(line, masks), ties, out)
            continue
        for side in range(sides):
            mask = masks[side]
            if kind == _CARD:
                out[side] += (mask >> line.arg & 1) * line.points
            elif kind == _SWEEP_LINE:
                out[side] += sweeps[side] * line.points
            elif kind == _DENARI_EACH_LINE:
                out[side] += int(_COUNT[mask >> _DENARI_SHIFT & _SUIT_BITS]) - (
                    mask >> SETTEBELLO & 1
                )
            elif kind == _SETTANTA_LINE:
                sevens = 0
                for suit in range(4):
                    sevens += mask >> (10 * suit + 6) & 1
                out[side] += 1 if sevens == 4 else 0
            elif kind == _CARDS_IN:
                out[side] += (mask & line.arg).bit_count() * line.points
            elif kind == _NAPOLA:
                run = int(_NAPOLA_RUN[mask >> (10 * line.arg) & _SUIT_BITS])
                top = line.points
                out[side] += top if top and run > top else run
            else:
                out[side] += specials[side].get(line.name, 0)
    return out


_LINES: Final[dict[int, tuple[Options, tuple[_Line, ...] | None]]] = {}
_MAX_LINES: Final = 256


def _cached_lines(options: Options) -> tuple[_Line, ...] | None:
    entry = _LINES.get(id(options))
    if entry is not None and entry[0] is options:
        return entry[1]
    if len(_LINES) >= _MAX_LINES:
        _LINES.clear()
    lines = _lines(options)
    _LINES[id(options)] = (options, lines)
    return lines


def _cards_of(mask: int) -> tuple[Card, ...]:
    return tuple([c for c in range(40) if mask >> c & 1])


def _score(
    options: Options, masks: list[int], sweeps: list[int], specials: list[dict[str, int]]
) -> HandScore:
    """The hand's score sheet: totals and napoleone only, unless a rule has no mask twin."""
    lines = _cached_lines(options)
    if lines is None:
        tallies = [
            SideTally(_cards_of(masks[s]), sweeps[s], tuple(specials[s].items()))
            for s in range(len(masks))
        ]
        return score_hand(options, tallies)
    napoleone = tuple([m >> _DENARI_SHIFT & _SUIT_BITS == _SUIT_BITS for m in masks])
    totals = tuple(_mask_totals(lines, options, masks, sweeps, specials))
    return HandScore((), totals, napoleone)  # the totals-only sheet the match end reads


_WORTH_SAMPLES: Final = 240


_POINTS: Final[dict[int, tuple[Options, tuple[float, ...]]]] = {}
_MAX_POINTS: Final = 256
_ANY_TARGET: Final = 1
"""The ``target_score`` every ruleset is scored with for :func:`card_points`: no hand's score
reads it (only the match's end does), so rulesets that differ only in it share the values."""


def card_points(options: Options) -> tuple[float, ...]:
    """Per card, the points taking it is worth under ``options``' scoring rules.

    Half the average swing in (side 0's points - side 1's) between side 0 and side 1 taking the
    card, the other 39 split at random among the sides (a fixed seed: the same values in every
    process). The settebello is worth its own line's points plus its share of denari and
    primiera; every line a variant adds (re bello, napola, denari each, ...) counts the same way.

    Cached by identity in front of a cache shared by rulesets alike but for ``target_score``
    (the same preset played to 11 or 21): each new one cost a bot's first move 100-470 ms.
    """
    entry = _POINTS.get(id(options))
    if entry is not None and entry[0] is options:
        return entry[1]
    if len(_POINTS) >= _MAX_POINTS:
        _POINTS.clear()
    shared = options
    if options.target_score != _ANY_TARGET:
        shared = replace(options, target_score=_ANY_TARGET)
    points = _shared_card_points(shared)
    _POINTS[id(options)] = (options, points)
    return points


@lru_cache(maxsize=64)
def _shared_card_points(options: Options) -> tuple[float, ...]:
    """:func:`card_points` of a ruleset whose ``target_score`` is :data:`_ANY_TARGET`."""
    if options.deck_size != _DECK_OF_MASKS:
        return _card_points_any_deck(options)
    rng = random.Random(0)
    sides = options.sides
    no_sweeps = [0] * sides
    no_specials: list[dict[str, int]] = [{} for _ in range(sides)]
    worth = [0.0] * 40
    for _ in range(_WORTH_SAMPLES):
        split = [0] * sides
        for card in range(40):
            split[rng.randrange(sides)] |= 1 << card
        for card in range(40):
            bit = 1 << card
            masks = [m & ~bit for m in split]
            swing = 0
            for holder, sign in ((0, 1), (1, -1)):
                masks[holder] |= bit
                totals = _score(options, masks, no_sweeps, no_specials).totals
                swing += sign * (totals[0] - totals[1])
                masks[holder] &= ~bit
            worth[card] += swing / 2
    return tuple([w / _WORTH_SAMPLES for w in worth])


_WORTH_SAMPLES_ANY_DECK: Final = 10


def _card_points_any_deck(options: Options) -> tuple[float, ...]:
    """:func:`card_points` for the 52- and 80-card decks, on :func:`score_hand` itself (fewer
    samples: the deck is bigger and the score sheet slower); indexed by card int."""
    rng = random.Random(0)
    sides = options.sides
    deck = deck_cards(options.deck_size)
    worth = [0.0] * MAX_CARD
    for _ in range(_WORTH_SAMPLES_ANY_DECK):
        owner = {card: rng.randrange(sides) for card in deck}
        for card in deck:
            swing = 0
            for holder, sign in ((0, 1), (1, -1)):
                owner[card] = holder
                piles = [tuple([c for c in deck if owner[c] == s]) for s in range(sides)]
                totals = score_hand(options, [SideTally(p) for p in piles]).totals
                swing += sign * (totals[0] - totals[1])
            worth[card] += swing / 2
    return tuple([w / _WORTH_SAMPLES_ANY_DECK for w in worth])


def _outcome(
    state: MatchState,
    masks: list[int],
    sweeps: list[int],
    specials: list[dict[str, int]],
) -> HandOutcome:
    """Score the hand and say whether the match ends with it.

    With mask lines for every scoring rule, no instant win, no hand limit and the usual match
    flow, it builds no score sheet, flow outcome or finish reason: the totals and the winners
    only.
    """
    options = state.ruleset.options
    plan = _plan(options)
    lines = _cached_lines(options)
    if (
        lines is None
        or plan.instant_wins
        or type(plan.flow) is not HighestWins
        or options.hand_limit
    ):
        score = _score(options, masks, sweeps, specials)
        totals = score.totals
        scores = tuple([a + b for a, b in zip(state.scores, totals, strict=True)])
        winners = _match_outcome(plan, score, scores, state.out, len(state.results) + 1)[0]
    else:
        totals = tuple(_mask_totals(lines, options, masks, sweeps, specials))
        scores = tuple([a + b for a, b in zip(state.scores, totals, strict=True)])
        winners = _highest_winner(options, scores)
    return tuple.__new__(HandOutcome, (totals, scores, winners))  # no interpreted __new__


# --- the play-out ---------------------------------------------------------------------------


_DECK_OF_MASKS: Final = 40
"""The deck the card masks below are built for; other decks play out on the validated path."""


def _play_out_validated(state: MatchState, rng: random.Random) -> HandOutcome:
    """:func:`play_out` on the validated loop (``rollout_move`` then ``apply_move``)."""
    while True:
        state, events = apply_move(state, state.turn, rollout_move(state, rng), rng)
        for event in events:
            if type(event) is HandScored:
                return HandOutcome(event.result.score.totals, state.scores, state.winners)


def play_out(state: MatchState, rng: random.Random) -> HandOutcome:
    """Play the hand of ``state`` to its end at random and score it (``GameOver`` if over).

    Each play is :func:`~scopa.bots.rollout_move`'s: one ``rng.random()`` picks the card and the
    capture, so the result is the validated loop's (``rollout_move`` then ``apply_move``) with
    the same RNG. Declarations are never made (the policy plays cards only). ``state`` is not
    changed.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    while state.farms:  # Scopa della fattoria: validated plays until no farm is left
        state, events = apply_move(state, state.turn, rollout_move(state, rng), rng)
        for event in events:
            if type(event) is HandScored:
                result = event.result
                return HandOutcome(result.score.totals, result.totals, state.winners)
    plan = _plan(state.ruleset.options)
    if plan.options.deck_size != _DECK_OF_MASKS:
        return _play_out_validated(state, rng)
    options = plan.options
    captures = plan.captures
    shapes = captures.solved
    side_of = plan.side_of
    next_seat = plan.next_seat
    players = plan.players
    specials_rules = plan.specials
    specials_last = plan.specials_last
    lone_takes = plan.lone_takes
    sweep_rules = plan.sweeps
    hand_size = options.hand_size
    seated = tuple(range(players))
    if state.out:  # seats out of the match (elimination) are skipped and dealt nothing
        out = state.out
        next_seat = tuple([_next_in(players, s, out) for s in range(players)])
        seated = tuple([s for s in range(players) if s not in out])
        hand_size = plan.flow.deal_shape(options, len(seated))[0]
    hands = [list(h) for h in state.hands]
    table = list(state.table)
    shape = 0
    for card in table:
        shape += SHAPE_BITS[card]
    stock = state.stock
    at_stock = 0
    masks = [0] * options.sides
    for side in range(options.sides):
        for card in state.piles[side]:
            masks[side] |= 1 << card
    sweeps = list(state.sweeps)
    specials = [dict(s) for s in state.specials]
    last_capturer = state.last_capturer
    last_laid = state.last_laid
    dealer = state.dealer
    turn = state.turn
    left = 0
    for h in hands:
        left += len(h)
    draw = rng.random
    while True:
        hand = hands[turn]
        n_hand = len(hand)
        x = draw() * n_hand
        at = int(x)
        if at >= n_hand:  # float rounding; never in practice
            at = n_hand - 1
        card = hand.pop(at)
        rank = _RANKS[card]
        by_rank = shapes.get(shape)
        if by_rank is None:
            by_rank = captures.by_shape(shape, table)
        sets = by_rank[rank]
        chosen: tuple[int, ...] = ()
        if sets:
            n_sets = len(sets)
            pick = int((x - at) * n_sets)
            chosen = sets[pick if pick < n_sets else n_sets - 1]
        left -= 1
        last_card = left == 0 and at_stock == len(stock)
        side = side_of[turn]
        n = len(chosen)
        if n or (not table and lone_takes and _takes_alone(lone_takes, card)):
            mask = masks[side] | 1 << card
            capture: tuple[Card, ...] = ()
            if n:
                if specials_rules or specials_last or n == len(table):
                    capture = tuple([table[i] for i in chosen])
                for i in range(n - 1, -1, -1):
                    taken = table.pop(chosen[i])
                    shape -= SHAPE_BITS[taken]
                    mask |= 1 << taken
            masks[side] = mask
            # the table before the play was exactly the capture when nothing is left
            sweep = not table and _is_sweep(sweep_rules, capture, card, capture, last_card)
            if sweep:
                sweeps[side] += 1  # a count; the sweeps line multiplies it by sweep_points
            rules = specials_last if last_card else specials_rules
            if rules:
                for name, points in _score_specials(rules, card, capture, last_laid, sweep):
                    per_side = specials[side]
                    per_side[name] = per_side.get(name, 0) + points
            last_capturer = turn
            last_laid = -1
        else:
            key = _TABLE_KEY[card]
            at = 0
            while at < len(table) and _TABLE_KEY[table[at]] < key:
                at += 1
            table.insert(at, card)
            shape += SHAPE_BITS[card]
            last_laid = card
        if last_card:
            break
        turn = next_seat[turn]
        if left == 0:  # deal again from the stock, one card at a time from the leader
            turn = next_seat[dealer]
            n = len(seated)
            start = seated.index(turn)
            left = min(hand_size * n, len(stock) - at_stock)
            for i in range(left):
                hands[seated[(start + i) % n]].append(stock[at_stock + i])
            at_stock += left
    if table:
        taker = last_capturer if last_capturer >= 0 else dealer
        for card in table:
            masks[side_of[taker]] |= 1 << card
    return _outcome(state, masks, sweeps, specials)

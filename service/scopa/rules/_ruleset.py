"""A preset plus option overrides resolved into a validated :class:`Ruleset`.

Presets only override defaults, so any option can be combined with any preset where it makes
sense; :func:`make_ruleset` validates the combination.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import comb
from typing import Any, Final

from ._cards import DECK_SIZES, figure_rank
from ._errors import InvalidOption
from ._options import (
    _FALLING_HAND_LIMIT,
    _HAND_LIMIT_MAX,
    _SIGNED_TABLE_MAX,
    PLAY_SPECIAL_OPTIONS,
    AcesOnTable,
    CaptureArithmetic,
    OptionalCaptures,
    Options,
    _coerce,
)
from ._presets import PRESETS, Preset
from ._scoring import hand_points_bound

__all__ = [
    "MAX_VOID_CHANCE",
    "Ruleset",
    "make_ruleset",
    "may_never_end",
    "only_declarations_score",
    "scores_can_fall",
    "void_deal_chance",
]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A preset id and the options it resolved to after the caller's overrides."""

    preset: str
    options: Options

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the preset's own for this many players.

        ``make_ruleset(self.preset, self.overrides())`` rebuilds this ruleset.
        """
        preset = PRESETS[self.preset]
        base = preset.options()
        base = dataclasses.replace(base, **_player_defaults(preset, self.options.players))
        return {
            f.name: getattr(self.options, f.name)
            for f in dataclasses.fields(Options)
            if getattr(self.options, f.name) != getattr(base, f.name)
        }


def _validate(o: Options, *, needs: bool = True) -> None:
    if o.deck_size not in DECK_SIZES:
        sizes = ", ".join(str(n) for n in DECK_SIZES)
        raise InvalidOption(f"deck_size must be one of {sizes}", field="deck_size")
    if o.elimination and o.deck_size != DECK_SIZES[0]:
        raise InvalidOption(
            "elimination deals the 40-card deck's shapes; it needs deck_size 40", field="deck_size"
        )
    if o.twin_captures and o.deck_size != _TWO_DECKS:
        raise InvalidOption("twin_captures needs two decks (deck_size 80)", field="twin_captures")
    if o.spade_napoleone_wins and (o.deck_size != _BRESCIANE or not o.napola_spade):
        raise InvalidOption(
            "spade_napoleone_wins needs the 52-card deck and napola_spade",
            field="spade_napoleone_wins",
        )
    if o.denari_ten_fante and o.deck_size != _BRESCIANE:
        raise InvalidOption(
            "denari_ten_fante needs the 52-card deck's fante (deck_size 52)",
            field="denari_ten_fante",
        )
    if o.players not in (2, 3, 4, 5, 6):
        raise InvalidOption("players must be 2, 3, 4, 5 or 6", field="players")
    if o.elimination and o.sides != o.players:
        raise InvalidOption(
            "elimination needs everyone to play alone (partnerships=false)", field="partnerships"
        )
    if o.elimination and o.lowest_wins:
        raise InvalidOption(
            "elimination and lowest_wins are two match flows; choose one", field="lowest_wins"
        )
    if o.hand_size < 1:
        raise InvalidOption("hand_size must be >= 1", field="hand_size")
    if o.table_cards < 0:
        raise InvalidOption("table_cards must be >= 0", field="table_cards")
    per_deal = o.players * o.hand_size
    if per_deal > o.deck_size:
        raise InvalidOption(
            f"{o.players} seats x {o.hand_size} cards is more than the {o.deck_size}-card deck",
            field="hand_size",
        )
    dealt = o.deck_size - o.table_cards
    if per_deal > dealt:
        raise InvalidOption(
            f"with {o.table_cards} table cards only {max(dealt, 0)} are left to deal, less than"
            f" one deal of {o.players} seats x {o.hand_size} cards",
            field="table_cards",
        )
    if dealt % (o.players * o.hand_size) != 0:
        raise InvalidOption(
            f"{o.players} seats x {o.hand_size} cards must divide the {dealt} cards dealt",
            field="hand_size",
        )
    if o.aces_on_table is AcesOnTable.RETURN and dealt - per_deal < 1:
        raise InvalidOption(
            "aces_on_table=return needs a stock after the first deal to turn replacement cards",
            field="aces_on_table",
        )
    if o.modular_captures and o.capture_arithmetic is not CaptureArithmetic.SUM:
        raise InvalidOption(
            "modular_captures counts sums; it cannot be combined with capture_arithmetic="
            f"{o.capture_arithmetic.value}",
            field="capture_arithmetic",
        )
    if o.capture_arithmetic is CaptureArithmetic.SIGNED and (
        o.optional_captures is not OptionalCaptures.NONE
    ):
        # Declined captures let the table grow, and a table's signed sets grow exponentially
        # with it.
        raise InvalidOption(
            "capture_arithmetic=signed cannot be combined with optional_captures="
            f"{o.optional_captures.value}: laid cards would pile up on the table and the signed "
            "sets of a large table are too many to list",
            field="optional_captures",
        )
    if o.capture_arithmetic is CaptureArithmetic.SIGNED and o.table_cards > _SIGNED_TABLE_MAX:
        # A starting table's signed sets grow exponentially with its cards; compulsory
        # captures keep the table small in play.
        raise InvalidOption(
            f"capture_arithmetic=signed allows at most {_SIGNED_TABLE_MAX} table cards: the"
            " signed sets of a larger table are too many to list",
            field="table_cards",
        )
    if o.sweep_claims:
        for name in PLAY_SPECIAL_OPTIONS:
            if getattr(o, name):
                # A trusted claim's card stays hidden: scoring it for a play would show it.
                raise InvalidOption(
                    f"sweep_claims keeps a trusted claim's card hidden, which {name} would"
                    " score (and so show); choose one",
                    field="sweep_claims",
                )
    if o.sweep_claims and o.pile_steal:
        raise InvalidOption(
            "sweep_claims keeps a trusted claim's card face down in the claimer's pile, which"
            " pile_steal's face-up piles would show; choose one",
            field="sweep_claims",
        )
    if o.frac_tie_re_bello and not o.frac_points:
        raise InvalidOption(
            "frac_tie_re_bello breaks a tie of the frac line; it needs frac_points",
            field="frac_tie_re_bello",
        )
    if o.sweep_claims and o.farms:
        raise InvalidOption(
            "sweep_claims settles a claim against the loose table only, which farms would leave"
            " beside it; choose one",
            field="sweep_claims",
        )
    if o.farms and o.optional_captures is not OptionalCaptures.NONE:
        # The farm rules decide which card may be laid (one that takes nothing builds or is
        # laid; one that can take a farm must): a declined capture would lay a card beside a
        # farm it could take on one path and not on another.
        raise InvalidOption(
            "farms decide which cards may be laid; they cannot be combined with"
            f" optional_captures={o.optional_captures.value}",
            field="optional_captures",
        )
    if not -1 <= o.first_dealer < o.players:
        raise InvalidOption("first_dealer must be -1 or a seat number", field="first_dealer")
    if needs:
        _check_needs(o)
    _check_void_deals(o)
    if o.target_score < 1:
        raise InvalidOption("target_score must be >= 1", field="target_score")
    if not 0 <= o.hand_limit <= _HAND_LIMIT_MAX:
        raise InvalidOption(
            f"hand_limit must be between 0 (no limit) and {_HAND_LIMIT_MAX}", field="hand_limit"
        )
    top_rank = figure_rank(o.deck_size) + 2
    if o.napola_top and not 3 <= o.napola_top <= top_rank:
        raise InvalidOption(
            f"napola_top must be 0 (the whole suit) or a rank from 3 to {top_rank}",
            field="napola_top",
        )
    if o.kings_redeal < 0 or o.kings_redeal > 4 or o.kings_redeal == 1:
        raise InvalidOption("kings_redeal must be 0, 2, 3 or 4", field="kings_redeal")
    for name in (
        "cards_points",
        "denari_points",
        "spade_points",
        "primiera_points",
        "settebello_points",
        "sweep_points",
        "false_claim_points",
        "wrong_doubt_points",
    ):
        if not 0 <= getattr(o, name) <= 10:
            raise InvalidOption(f"{name} must be between 0 and 10", field=name)


def _ordinary_captures(o: Options) -> bool:
    """Whether the ordinary captures (equal card, sums or their arithmetic) are played."""
    return not (o.capture_15 and o.capture_15_only)


def _play_specials_on_last_card(o: Options) -> bool:
    """Whether a special-play rule that ``specials_on_last_card`` extends is on."""
    return o.picula or o.bagher or o.suit_capture or o.three_card_capture


_NO_ORDINARY: Final = (
    "which capture_15 with capture_15_only turns off (capture_15_only=false keeps them)"
)

_NEEDS: Final[tuple[tuple[str, Callable[[Options], bool], str], ...]] = (
    ("ace_sweep_counts", lambda o: o.ace_takes_all, "needs ace_takes_all, whose ace it scores"),
    (
        "ace_takes_only_table_ace",
        lambda o: o.ace_takes_all,
        "needs ace_takes_all, whose ace it limits",
    ),
    (
        "ace_on_empty_table_sweeps",
        lambda o: o.ace_takes_all,
        "needs ace_takes_all, whose ace it lets take itself",
    ),
    (
        "table_ace_15",
        lambda o: o.ace_takes_all and o.ace_takes_only_table_ace and o.capture_15,
        "needs ace_takes_all with ace_takes_only_table_ace and capture_15: it lets an ace"
        " played on a table ace make 15 instead",
    ),
    (
        "ace_takes_15",
        lambda o: o.ace_takes_all and o.capture_15,
        "needs ace_takes_all and capture_15: it lets an ace that would take the whole table"
        " make 15 instead",
    ),
    ("capture_15_only", lambda o: o.capture_15, "needs capture_15, whose captures it limits"),
    ("capture_15_fewest", lambda o: o.capture_15, "needs capture_15, whose captures it limits"),
    (
        "capture_arithmetic",
        _ordinary_captures,
        f"sets the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "modular_captures",
        _ordinary_captures,
        f"replaces the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "equal_card_precedence",
        _ordinary_captures,
        f"is a rule of the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "figures_capture_only_figures",
        lambda o: _ordinary_captures(o) and not o.modular_captures,
        "is a rule of the ordinary captures by sum or difference, which modular_captures or"
        " capture_15 with capture_15_only replace",
    ),
    (
        "dealer_bonus",
        lambda o: o.table_cards > 0,
        "scores the starting table, and with table_cards 0 there is none",
    ),
    ("dealer_bonus_low", lambda o: o.dealer_bonus, "needs dealer_bonus, whose bonus it widens"),
    (
        "aces_on_table",
        lambda o: o.aces_on_table is not AcesOnTable.SWEEP or o.table_cards > 0,
        "scores the starting table (sweep), and with table_cards 0 there is none",
    ),
    (
        "napola_top",
        lambda o: o.napola_denari or o.napola_spade,
        "needs napola_denari or napola_spade, whose run it stops",
    ),
    ("picula_on_last_card", lambda o: o.picula, "needs picula, which it scores"),
    ("picula_after_redeal", lambda o: o.picula, "needs picula, which it scores"),
    ("bagher_on_last_card", lambda o: o.bagher, "needs bagher, which it scores"),
    (
        "specials_on_last_card",
        _play_specials_on_last_card,
        "needs one of picula, bagher, suit_capture or three_card_capture, which it scores",
    ),
    ("claim_answers", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it answers"),
    ("false_claim_points", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it prices"),
    ("wrong_doubt_points", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it prices"),
    ("farm_raise", lambda o: o.farms, "needs farms, which it raises"),
    ("farm_owner_takes", lambda o: o.farms, "needs farms, which it makes the owner take"),
)
"""Options that do something only with others: each option's name, whether ``o`` gives it its
effect, and why not. Set away from its default without that, it would be accepted and do
nothing, so :func:`_check_needs` refuses it."""

_DEFAULTS: Final = Options()


def _check_needs(o: Options) -> None:
    """Refuse an option set away from its default where the others leave it nothing to do."""
    for name, effective, why in _NEEDS:
        value = getattr(o, name)
        if value != getattr(_DEFAULTS, name) and not effective(o):
            shown = value.value if isinstance(value, StrEnum) else str(value).lower()
            raise InvalidOption(f"{name}={shown} does nothing here: it {why}", field=name)


MAX_VOID_CHANCE: Final = Fraction(3, 4)
"""The highest chance of a void first deal a ruleset may have. The engine gives up on a hand
after 100 void deals in a row; at 3/4 that happens with odds below 1 in 10**12 per hand."""

_TWO_DECKS: Final = 80
_BRESCIANE: Final = 52
_RANKS_OF_FOUR: Final = 4
"""Kings (and aces) in one 40- or 52-card deck."""


def _per_rank(o: Options) -> int:
    """Cards of one rank in ``o``'s deck (4, or 8 in the two-deck 80)."""
    return _RANKS_OF_FOUR * (2 if o.deck_size == _TWO_DECKS else 1)


def _table_kings_void(k: int, kings: int) -> bool:
    return k > 0 and kings >= k


def void_deal_chance(o: Options) -> Fraction:
    """The exact chance that a hand's first deal is void (kings or aces on the table).

    The deal is a uniformly shuffled deck: the hands, then ``table_cards`` face up, then the
    stock. Void: at least ``kings_redeal`` kings on the table; with ``aces_on_table`` ``return``
    or ``redeal`` also two or more aces on it; with ``return`` also a lone ace that cannot be
    replaced (no card but aces left in the stock) or whose replacement, the stock's first card
    that is not an ace, is the king that completes ``kings_redeal``.
    """
    table = o.table_cards
    deck = o.deck_size
    four = _per_rank(o)
    rest = deck - table
    stock = rest - o.players * o.hand_size
    others = deck - 2 * four
    chance = Fraction(0)
    total = comb(deck, table)
    for aces in range(min(four, table) + 1):
        for kings in range(min(four, table - aces) + 1):
            ways = comb(four, aces) * comb(four, kings)
            ways *= comb(others, table - aces - kings)
            if not ways:
                continue
            weight = Fraction(ways, total)
            chance += weight * _void_given(o, aces, kings, rest, stock)
    return chance


def _void_given(o: Options, aces: int, kings: int, rest: int, stock: int) -> Fraction:
    """The chance of a void deal given the aces and kings among the table cards."""
    if _table_kings_void(o.kings_redeal, kings):
        return Fraction(1)
    if o.aces_on_table in (AcesOnTable.KEEP, AcesOnTable.SWEEP) or aces == 0:
        return Fraction(0)  # a sweep takes the aces' table: no deal is void
    if aces > 1:
        return Fraction(1)
    if o.aces_on_table is AcesOnTable.REDEAL:  # a lone ace stays
        return Fraction(0)
    # A lone ace: the rest (hands + stock) holds the other aces; the stock is a random part.
    four = _per_rank(o)
    left_aces = four - 1
    only_aces = (
        Fraction(comb(left_aces, stock), comb(rest, stock)) if stock <= left_aces else Fraction(0)
    )
    non_aces = rest - left_aces
    king_next = Fraction(four - kings, non_aces) if non_aces else Fraction(0)
    completes = _table_kings_void(o.kings_redeal, kings + 1)
    return only_aces + (1 - only_aces) * (king_next if completes else 0)


def _check_void_deals(o: Options) -> None:
    chance = void_deal_chance(o)
    if chance > MAX_VOID_CHANCE:
        percent = float(chance * 100)
        raise InvalidOption(
            f"with {o.table_cards} table cards, kings_redeal={o.kings_redeal} and "
            f"aces_on_table={o.aces_on_table.value}, {percent:.4g}% of deals would be void "
            "(redealt); use fewer table cards or fewer void rules",
            field="table_cards",
        )


_DEFAULT_PLAYERS: Final = Options().players
_MANY_PLAYERS_TARGET: Final = 21


def _player_defaults(preset: Preset, players: int) -> dict[str, Any]:
    """Defaults that follow the player count where ``preset`` leaves them open.

    docs/rules.md Scopa: game to 11 with 2 players, 21 with 3 or more (the Scopa page); then the
    preset's own overrides for that seat count (``Preset.by_players``).
    """
    defaults: dict[str, Any] = {}
    if players >= 3 and "target_score" not in preset.overrides:
        defaults["target_score"] = _MANY_PLAYERS_TARGET
    defaults.update(preset.by_players.get(players, {}))
    return defaults


def make_ruleset(
    preset: str = "scopa", overrides: dict[str, Any] | None = None, *, stored: bool = False
) -> Ruleset:
    """Resolve ``preset`` plus option ``overrides`` into a validated :class:`Ruleset`.

    Options the preset does not set take their defaults, except that ``target_score`` is 21
    with 3 or more players; the caller's ``overrides`` win over both. Where the match may never
    end (:func:`may_never_end`) and no ``hand_limit`` is set, it is 40, and an explicit 0 is
    refused. ``stored`` is for a game already created (loaded from the store): it keeps only
    the checks the engine needs to deal and play (:func:`_validate`'s shape of the deal), and
    skips those that refuse a new game's choices: the preset's seat counts, options that would
    do nothing (:func:`_check_needs`), a ruleset scoring nothing, the hand limit's default and
    refusal. A game created before such a check was added still loads and plays as it did.
    """
    if preset not in PRESETS:
        raise InvalidOption(f"unknown preset {preset!r}", field="preset")
    base = PRESETS[preset]
    chosen = {name: _coerce(name, value) for name, value in (overrides or {}).items()}
    values = dict(base.overrides)
    players = chosen.get("players", values.get("players", _DEFAULT_PLAYERS))
    values.update(_player_defaults(base, players))
    values.update(chosen)
    options = Options(**values)
    if not stored:  # a stored game keeps its seats, whatever the preset offers today
        _check_players(base, options.players)
    _validate(options, needs=not stored)
    if not stored:  # ... and its scoring, no hand limit included
        _check_scores_something(options)
        options = _with_hand_limit(options, "hand_limit" in chosen)
    return _interned(Ruleset(preset, options))


_INTERNED: Final[dict[Ruleset, Ruleset]] = {}
_INTERNED_LIMIT: Final = 256


def _interned(ruleset: Ruleset) -> Ruleset:
    """The one object of rulesets equal to ``ruleset``. A game's state keeps its ruleset, and
    the engine keeps what it derives from one by the object (capture tables, the encoded
    overrides): games of the same rules then share those, where each game created made its own
    (thousands of objects held by a replica's caches, for the garbage collector to walk)."""
    found = _INTERNED.get(ruleset)  # every option value is hashable (checked by _coerce)
    if found is None:
        if len(_INTERNED) >= _INTERNED_LIMIT:
            _INTERNED.clear()
        found = _INTERNED[ruleset] = ruleset
    return found


def scores_can_fall(options: Options) -> bool:
    """Whether a hand can cost a side points (penalised claims or doubts, Modulo sette's
    sweeps, the maresciallo, the saponaro): then no score need ever reach the target."""
    claims_cost = options.sweep_claims and (
        options.false_claim_points > 0 or options.wrong_doubt_points > 0
    )
    return bool(claims_cost or options.modular_sweeps or options.maresciallo or options.saponaro)


_DECLARATION_OPTIONS: Final = ("accusa", "tuzzulicchio_declarations", "cirulla_declarations")
"""The options whose points come from declarations, which a seat may never make."""


def only_declarations_score(options: Options) -> bool:
    """Whether no line but a declaration's can score: then no score need ever move (tools/
    fuzz_rules.py found Scopa FRAC without its points, scoring accuse only, at 0-0 after 1,000
    hands of seats that never declared)."""
    if not any(getattr(options, name) for name in _DECLARATION_OPTIONS):
        return False
    plain = dataclasses.replace(
        options, accusa=False, tuzzulicchio_declarations=False, cirulla_declarations=False
    )
    return _hand_bound(plain) <= 0


def may_never_end(options: Options) -> bool:
    """Whether a match may never reach its target however long it is played: a hand can cost
    points (:func:`scores_can_fall`), or only declarations score
    (:func:`only_declarations_score`)."""
    return scores_can_fall(options) or only_declarations_score(options)


def _with_hand_limit(options: Options, given: bool) -> Options:
    """``options`` with :data:`_FALLING_HAND_LIMIT` hands at most when its match may never end
    and no limit was set; refused when the caller asked for none (``given``)."""
    if options.hand_limit or not may_never_end(options):
        return options
    if given:
        raise InvalidOption(
            "hand_limit 0 (none) is refused where a hand can cost points (sweep_claims,"
            " modular_sweeps, maresciallo, saponaro) or only declarations score: the scores"
            f" could stay below target_score for ever; give 1-{_HAND_LIMIT_MAX}",
            field="hand_limit",
        )
    return dataclasses.replace(options, hand_limit=_FALLING_HAND_LIMIT)


def _hand_bound(options: Options) -> int:
    """The most points one side can score in a hand under ``options``."""
    return hand_points_bound(options, options.deck_size - options.table_cards)


def _check_scores_something(options: Options) -> None:
    """Refuse options under which no hand can score a point: such a match would never end."""
    if _hand_bound(options) <= 0:
        raise InvalidOption(
            "these options score no points in a hand, so the game could never end",
            field="target_score",
        )


def _check_players(preset: Preset, players: int) -> None:
    if players not in preset.players:
        *rest, last = [str(n) for n in preset.players]
        spelled = f"{', '.join(rest)} or {last}" if rest else last
        raise InvalidOption(f"preset {preset.id} is for {spelled} players", field="players")

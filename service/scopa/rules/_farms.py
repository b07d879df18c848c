"""Farms (Scopa della fattoria, it.wikipedia) as rules a ruleset lists.

it.wikipedia: "Se adaugă regula de a putea juca o carte deasupra uneia dintre cele de pe masă, dacă
aveți o carte care vă permite să le capturați pe amândouă la următoarea rotire. Alți jucători pot
captura ferma jucând o carte de scor egală cu cea a fermei sau mărind valoarea fermei prin
adăugarea unei cărți, dar trebuie să respecte regula de a avea o carte care poate captura ferma pe
runda următoare. Când capturați ferma, dacă există o carte pe masă cu o valoare egală cu ferma,
aceasta este, de asemenea, capturată."

A :class:`Farm` lies on the table beside the loose cards: its owner (the seat that built or last
raised it), its value and its cards. A :class:`Build` plays a card onto one loose card (a new
farm) or onto a farm (raising it). The engine (``_game.py``) asks the rules listed here:

- a :class:`BuildRule` lists the builds it opens to the seat to play;
- a :class:`FarmTakeRule` lists the captures of farms a played card may make;
- a :class:`FarmDutyRule` names the farms a seat must take on its turn (then that is all it may
  do).

docs/rules.md ("Scopa della fattoria") gives every reading these rules implement.
"""

from __future__ import annotations

from typing import Final, NamedTuple, Protocol

from ._cards import _RANKS, Card
from ._options import Options

__all__ = [
    "FARM_VALUES",
    "Build",
    "BuildOnCard",
    "BuildRule",
    "Farm",
    "FarmDutyRule",
    "FarmTakeRule",
    "OwnerTakesNextTurn",
    "RaiseFarm",
    "TakeFarmByValue",
    "build_rules",
    "farm_duty_rules",
    "farm_take_rules",
]

FARM_VALUES: Final = range(2, 11)
"""What a farm can be worth: two cards of rank 1 at least, at most a re (its builder must hold
a card of its value). A build naming another value, or more cards than the most a farm this
worth holds, is malformed rather than illegal now."""

_MAX_VALUE: Final = FARM_VALUES[-1]

_new: Final = tuple.__new__
"""Builds a small hot NamedTuple (a build here; a move, a play, a deal in ``_game``) from its
fields in order, without the Python frame of the generated ``__new__``. Only for those, next to
their definitions' order; :class:`~scopa.rules.MatchState` is always built by name."""


class Farm(NamedTuple):
    """A farm on the table: taken whole, by its value, never split."""

    owner: int
    """The seat that built it or raised it last."""
    value: int
    """Its capture value: the sum of its cards' ranks."""
    cards: tuple[Card, ...]
    """Its cards in the order they were laid (the table card first)."""


class Build(NamedTuple):
    """Play ``card`` onto ``onto``: one loose table card (a new farm) or every card of one farm
    (raising it), forming a farm worth ``value``; the seat must hold another card of ``value``."""

    card: Card
    onto: tuple[Card, ...]
    value: int


def _ranks(hand: tuple[Card, ...]) -> frozenset[int]:
    """The ranks ``hand`` holds. A card played to build is worth less than the farm it makes
    (every rank is at least 1), so a card of the farm's value in the hand is another card."""
    return frozenset(map(_RANKS.__getitem__, hand))


class BuildRule(Protocol):
    """Which builds a seat may make."""

    def builds(
        self,
        seat: int,
        hand: tuple[Card, ...],
        free: tuple[Card, ...],
        table: tuple[Card, ...],
        farms: tuple[Farm, ...],
    ) -> list[Build]:
        """The builds open to ``seat``; ``free`` are the cards of ``hand`` that take nothing (the
        only ones it may build with: capturing stays compulsory)."""
        ...


def _builds_onto(
    hand: tuple[Card, ...],
    free: tuple[Card, ...],
    targets: list[tuple[tuple[Card, ...], int]],
) -> list[Build]:
    """One build per free card and target (``(onto, value)``: the cards it lands on and what
    they are worth) whose new value, at most 10, the hand holds another card of; by card, then
    target."""
    out: list[Build] = []
    held = _ranks(hand)
    for card in free:
        rank = _RANKS[card]
        for onto, worth in targets:
            value = worth + rank
            if value <= _MAX_VALUE and value in held:
                out.append(_new(Build, (card, onto, value)))
    return out


class BuildOnCard:
    """A card that takes nothing played onto one loose table card, when the seat holds another
    card of their sum (at most 10): the new farm is the seat's."""

    def builds(
        self,
        seat: int,
        hand: tuple[Card, ...],
        free: tuple[Card, ...],
        table: tuple[Card, ...],
        farms: tuple[Farm, ...],
    ) -> list[Build]:
        """One build per free card and loose card whose sum the seat can take (by card, then
        loose card, as :func:`_builds_onto` orders them)."""
        out: list[Build] = []
        held = _ranks(hand)
        for card in free:
            rank = _RANKS[card]
            for base in table:
                value = _RANKS[base] + rank
                if value <= _MAX_VALUE and value in held:
                    out.append(_new(Build, (card, (base,), value)))
        return out


class RaiseFarm:
    """Another seat's farm raised by a card that takes nothing, when the seat holds another card
    of the new value (at most 10): the raised farm becomes the raiser's."""

    def builds(
        self,
        seat: int,
        hand: tuple[Card, ...],
        free: tuple[Card, ...],
        table: tuple[Card, ...],
        farms: tuple[Farm, ...],
    ) -> list[Build]:
        """One raise per free card and farm of another seat whose new value it can take."""
        if not farms:
            return []
        others = [(farm.cards, farm.value) for farm in farms if farm.owner != seat]
        return _builds_onto(hand, free, others) if others else []


class FarmTakeRule(Protocol):
    """How a played card takes a farm."""

    def takes(
        self, card: Card, table: tuple[Card, ...], farms: tuple[Farm, ...]
    ) -> list[tuple[Card, ...]]:
        """Every capture of a farm ``card`` may make: the cards taken (the farm's first)."""
        ...


class TakeFarmByValue:
    """A card of a farm's value takes the farm whole, and with it one loose card of that value
    when the table holds one (each such card is its own choice)."""

    def takes(
        self, card: Card, table: tuple[Card, ...], farms: tuple[Farm, ...]
    ) -> list[tuple[Card, ...]]:
        """The farm captures of ``card``, farm by farm."""
        rank = _RANKS[card]
        out: list[tuple[Card, ...]] = []
        for farm in farms:
            if farm.value == rank:
                equal = [c for c in table if _RANKS[c] == rank]
                if equal:
                    out.extend([farm.cards + (c,) for c in equal])
                else:
                    out.append(farm.cards)
        return out


class FarmDutyRule(Protocol):
    """A farm a seat must take on its turn."""

    def due(self, seat: int, farms: tuple[Farm, ...]) -> tuple[Farm, ...]:
        """The farms ``seat`` must take now (it may take any one of them, and do nothing else)."""
        ...


class OwnerTakesNextTurn:
    """The owner of a farm takes it on its next turn ("le capturați pe amândouă la următoarea
    rotire"): it always can, holding the card of its value since it built or raised it."""

    def due(self, seat: int, farms: tuple[Farm, ...]) -> tuple[Farm, ...]:
        """The seat's own farms."""
        return tuple([farm for farm in farms if farm.owner == seat])


_ON_CARD: Final = BuildOnCard()
_RAISE: Final = RaiseFarm()
_TAKE: Final = TakeFarmByValue()
_DUTY: Final = OwnerTakesNextTurn()


def build_rules(options: Options) -> tuple[BuildRule, ...]:
    """The build rules ``options`` enable: new farms (``farms``), raising (``farm_raise``)."""
    if not options.farms:
        return ()
    return (_ON_CARD, _RAISE) if options.farm_raise else (_ON_CARD,)


def farm_take_rules(options: Options) -> tuple[FarmTakeRule, ...]:
    """How farms are taken (``farms``)."""
    return (_TAKE,) if options.farms else ()


def farm_duty_rules(options: Options) -> tuple[FarmDutyRule, ...]:
    """The duties of a farm's owner (``farm_owner_takes``)."""
    return (_DUTY,) if options.farms and options.farm_owner_takes else ()

"""Compact, versioned serialisation of match state and events.

Format: one byte :data:`FORMAT_VERSION`, then zlib-compressed JSON of plain lists. Cards are
small integers, so a live 2-player game stays well under 2 KiB. Unknown versions and corrupt
input raise :class:`InvalidState`.
"""

from __future__ import annotations

import json
import zlib
from enum import StrEnum
from typing import Any, Final

from ._errors import InvalidState, RulesError
from ._game import (
    AceReturned,
    CardPlayed,
    CardsDealt,
    Event,
    FinishReason,
    GameFinished,
    HandResult,
    HandScored,
    HandStarted,
    LeftoverTaken,
    MatchState,
    Redealt,
    SeatResigned,
)
from ._options import Ruleset, make_ruleset
from ._scoring import Component, HandScore

__all__ = ["FORMAT_VERSION", "dump_events", "dump_state", "load_events", "load_state"]

FORMAT_VERSION: Final = 1

_EVENT_TAGS: Final[dict[type[Any], str]] = {
    HandStarted: "hs",
    Redealt: "rd",
    AceReturned: "ar",
    CardsDealt: "cd",
    CardPlayed: "cp",
    LeftoverTaken: "lt",
    HandScored: "sc",
    GameFinished: "gf",
    SeatResigned: "sr",
}


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"))


def _pack(payload: Any) -> bytes:
    raw = _ENCODER.encode(payload).encode()
    return bytes([FORMAT_VERSION]) + zlib.compress(raw, 6)


def _unpack(blob: bytes) -> Any:
    if not blob or blob[0] != FORMAT_VERSION:
        raise InvalidState("unknown state format version")
    try:
        return json.loads(zlib.decompress(blob[1:]))
    except (zlib.error, ValueError) as exc:
        raise InvalidState("corrupt state") from exc


_CACHE_LIMIT: Final = 256
_OVERRIDES: dict[Ruleset, dict[str, Any]] = {}
_RULESETS: dict[tuple[str, tuple[tuple[str, Any], ...]], Ruleset] = {}


def _overrides(ruleset: Ruleset) -> dict[str, Any]:
    """``ruleset.overrides()`` as plain values, computed once per distinct ruleset."""
    cached = _OVERRIDES.get(ruleset)
    if cached is None:
        if len(_OVERRIDES) >= _CACHE_LIMIT:
            _OVERRIDES.clear()
        cached = {k: _plain(v) for k, v in ruleset.overrides().items()}
        _OVERRIDES[ruleset] = cached
    return cached


def _ruleset(preset: str, overrides: dict[str, Any]) -> Ruleset:
    """``make_ruleset(preset, overrides)``, built once per distinct stored pair."""
    key = (preset, tuple(overrides.items()))
    try:
        cached = _RULESETS.get(key)
    except TypeError:  # an unhashable value: corrupt input, let make_ruleset reject it
        return make_ruleset(preset, overrides)
    if cached is None:
        if len(_RULESETS) >= _CACHE_LIMIT:
            _RULESETS.clear()
        cached = make_ruleset(preset, overrides)
        _RULESETS[key] = cached
    return cached


def _tuples(rows: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(r) for r in rows)


def _result_out(r: HandResult) -> list[Any]:
    comps = [[c.name, list(c.points), list(c.values)] for c in r.score.components]
    return [r.hand_number, comps, list(r.score.totals), list(r.score.napoleone), list(r.totals)]


def _result_in(row: list[Any]) -> HandResult:
    hand_number, comps, totals, napoleone, match_totals = row
    score = HandScore(
        components=tuple(Component(n, tuple(p), tuple(v)) for n, p, v in comps),
        totals=tuple(totals),
        napoleone=tuple(napoleone),
    )
    return HandResult(hand_number, score, tuple(match_totals))


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def dump_state(state: MatchState) -> bytes:
    """Serialise ``state`` (hidden parts included: this is for the server's store only)."""
    # json writes tuples (named ones too) as lists and StrEnums as their values, exactly what
    # _plain would build, so the fields go in as they are.
    return _pack(
        [
            state.ruleset.preset,
            _overrides(state.ruleset),
            state.version,
            state.hand_number,
            state.dealer,
            state.turn,
            state.hands,
            state.table,
            state.stock,
            state.piles,
            state.sweeps,
            state.picule,
            state.bagher,
            state.last_capturer,
            state.last_laid,
            state.history,
            state.scores,
            [_result_out(r) for r in state.results],
            state.winners,
            state.finish_reason.value,
            state.decks,
        ]
    )


def load_state(blob: bytes) -> MatchState:
    """Read a state written by :func:`dump_state`."""
    row = _unpack(blob)
    try:
        (
            preset,
            overrides,
            version,
            hand_number,
            dealer,
            turn,
            hands,
            table,
            stock,
            piles,
            sweeps,
            picule,
            bagher,
            last_capturer,
            last_laid,
            history,
            scores,
            results,
            winners,
            finish_reason,
            decks,
        ) = row
        return MatchState(
            ruleset=_ruleset(preset, overrides),
            version=version,
            hand_number=hand_number,
            dealer=dealer,
            turn=turn,
            hands=_tuples(hands),
            table=tuple(table),
            stock=tuple(stock),
            piles=_tuples(piles),
            sweeps=tuple(sweeps),
            picule=tuple(picule),
            bagher=tuple(bagher),
            last_capturer=last_capturer,
            last_laid=last_laid,
            history=tuple(_played_in(p) for p in history),
            scores=tuple(scores),
            results=tuple(_result_in(r) for r in results),
            winners=tuple(winners),
            finish_reason=FinishReason(finish_reason),
            decks=_tuples(decks),
        )
    except (TypeError, ValueError, RulesError) as exc:
        raise InvalidState("corrupt state") from exc


def _played_in(p: list[Any]) -> CardPlayed:
    seat, card, captured, taken, sweep, picula, bagher = p
    return CardPlayed(seat, card, tuple(captured), taken, sweep, picula, bagher)


def _event_out(event: Event) -> list[Any]:
    tag = _EVENT_TAGS[type(event)]
    if isinstance(event, HandScored):
        return [tag, _result_out(event.result)]
    return [tag, *(_plain(v) for v in event)]


def _event_in(row: list[Any]) -> Event:
    tag, *fields = row
    if tag == "hs":
        return HandStarted(fields[0], fields[1], tuple(fields[2]))
    if tag == "rd":
        return Redealt(fields[0], fields[1], tuple(fields[2]))
    if tag == "ar":
        return AceReturned(fields[0])
    if tag == "cd":
        return CardsDealt(fields[0], fields[1], tuple(fields[2]))
    if tag == "cp":
        return _played_in(fields)
    if tag == "lt":
        return LeftoverTaken(fields[0], tuple(fields[1]))
    if tag == "sc":
        return HandScored(_result_in(fields[0]))
    if tag == "gf":
        return GameFinished(tuple(fields[0]), FinishReason(fields[1]), tuple(fields[2]))
    if tag == "sr":
        return SeatResigned(fields[0])
    raise InvalidState(f"unknown event tag {tag!r}")


def dump_events(events: list[Event] | tuple[Event, ...]) -> bytes:
    """Serialise a batch of events (full truth: filter with ``visible_events`` before showing)."""
    return _pack([_event_out(e) for e in events])


def load_events(blob: bytes) -> list[Event]:
    """Read a batch written by :func:`dump_events`."""
    rows = _unpack(blob)
    try:
        return [_event_in(r) for r in rows]
    except (TypeError, ValueError, IndexError) as exc:
        raise InvalidState("corrupt event batch") from exc

"""One keyed, versioned codec for match state and events, with migrations from every earlier
format.

Format: one byte, the format version, then the compressed JSON (:mod:`._compress`: zstd with a
dictionary since format 8, in two frames since format 9, zlib before). Since format 2 every
record is an object keyed by field name (an event also carries its kind under ``"t"``), so
adding a field is a new format version plus a migration, never a reshuffle of positions.
:func:`load_state` and :func:`load_events` read every earlier version: the payload goes through
the migrations in ``STATE_MIGRATIONS`` / ``EVENT_MIGRATIONS`` (:mod:`._migrations`) one version
at a time up to :data:`FORMAT_VERSION`.
Format 1 (positional lists) also stored a ``version`` counter in the state; the store owns the
game's version, so the migration drops it. Corrupt input raises :class:`InvalidState`; a version
above :data:`FORMAT_VERSION` (written by a newer release) raises its subclass
:class:`FormatTooNew`, which the service answers as a retryable error, never as a fault.

Format 4 has the records of format 3 plus every key and event kind added to them since format 3
was first written: a steal's ``stolen_from``, a claimed play's ``claim`` and the events
``sweep_claimed`` / ``claim_answered`` with the state's pending ``claim``, a farm play's ``farm``
and the state's ``farms``, the event ``bonus_scored`` and the state's ``bonuses``, the state's
``returned`` and ``declarations`` (and in the service's event log, ``turn_timed_out``). Builds
before format 4 wrote those under format 3, where a reader of format 3 that predates them fails
on the events and silently drops the state keys; every write is now format 4, which such a
reader refuses as a whole. Format-3 data is read as it is (a format-3 reader of this release
knows every one of those keys), so the migration 3 -> 4 changes nothing.

Format 5 gives values a meaning that a reader of format 4 lacks: the finish reason
``hand_limit`` (in a state and in a ``game_finished`` event) and the option ``hand_limit`` in a
state's overrides, which also bounds every Scopa fidasse game (its preset sets it). A format-4
reader would fail on the first and drop the limit of the others, so it refuses format 5 as a
whole; format-4 records mean the same under format 5, so the migration 4 -> 5 changes nothing.

Format 6 reads a state's overrides against presets that set ``hand_limit`` where format 5's did
not (Marescialla, Marescialla with 80 cards, Modulo sette: their scores can fall). A format-5
state of those presets without a ``hand_limit`` override was created with no limit, so the
migration 5 -> 6 writes ``hand_limit: 0`` into its overrides: a stored game keeps the rules it
was created with. A format-5 reader would give a format-6 game of those presets no limit, so it
refuses format 6 as a whole.

Format 7 reads a state's overrides against a ``cirulla`` preset whose piccola stops at the 7
(``napola_top`` 7, issue 27) where format 6's ran through the whole suit. A format-6 state of
that preset without a ``napola_top`` override was created with the whole run, so the migration
6 -> 7 writes ``napola_top: 0`` into its overrides; a format-6 reader would give a format-7
Cirulla game the whole run (and could not deal the value ``sweep`` of ``aces_on_table``, new
with format 7), so it refuses format 7 as a whole.

Format 8 changed only the compression (zstd at level 1 with a dictionary, :mod:`._compress`),
so the migration 7 -> 8 changes nothing; a format-7 reader cannot decompress it and refuses it.

Format 9 changed only the framing: a payload is two zstd frames, and a state's JSON starts with
its hand results, which are the first frame (compressed once per hand, :func:`dump_state`), so
the migration 8 -> 9 changes nothing; a format-8 reader would read only the length byte's frame
and refuses it. The tests' ``blobs/*.v8.bin`` were written by format 8 (main at 8ed65a9).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final, TypeVar, assert_never

import orjson

from ._compress import CorruptPayload, compress, compress_parts, decompress, frame
from ._errors import FormatTooNew, GameUnplayable, InvalidOption, InvalidState, RulesError
from ._events import (
    AceReturned,
    BonusScored,
    CardPlayed,
    CardsDealt,
    ClaimAnswered,
    ClaimOutcome,
    Declared,
    Event,
    FinishReason,
    GameFinished,
    HandResult,
    HandScored,
    HandStarted,
    LeftoverTaken,
    PendingClaim,
    Redealt,
    SeatResigned,
    SweepClaimed,
)
from ._farms import Farm
from ._kept import ByIdentity
from ._migrations import EVENT_MIGRATIONS, STATE_MIGRATIONS
from ._options import list_options
from ._presets import PRESETS
from ._ruleset import Ruleset, make_ruleset
from ._scoring import Component, HandScore
from ._state import MatchState

__all__ = [
    "FORMAT_VERSION",
    "dump_events",
    "dump_state",
    "event_records",
    "event_text",
    "events_from_records",
    "load_events",
    "load_state",
]

FORMAT_VERSION: Final = 9

Record = dict[str, Any]


def _pack(payload: Any) -> bytes:
    return bytes([FORMAT_VERSION]) + compress(orjson.dumps(payload), FORMAT_VERSION)


def _unpack(blob: bytes, migrations: dict[int, Callable[[Any], Any]]) -> Any:
    """The payload of ``blob``, migrated from its format version to :data:`FORMAT_VERSION`."""
    if not blob or blob[0] < 1:
        raise InvalidState("unknown state format version")
    if blob[0] > FORMAT_VERSION:
        raise FormatTooNew.of("stored game", blob[0], FORMAT_VERSION)
    try:
        payload = orjson.loads(decompress(blob[1:], blob[0]))
    except (CorruptPayload, ValueError) as exc:
        raise InvalidState("corrupt state") from exc
    try:
        for version in range(blob[0], FORMAT_VERSION):
            payload = migrations[version](payload)
    except (TypeError, ValueError, IndexError, KeyError) as exc:
        raise InvalidState(f"corrupt format {blob[0]} payload") from exc
    return payload


# --- rulesets ------------------------------------------------------------------------------

_CACHE_LIMIT: Final = 256
_RULESETS: Final[dict[tuple[str, tuple[tuple[str, Any], ...]], Ruleset]] = {}
_OVERRIDES: Final[ByIdentity[Ruleset, dict[str, Any]]] = ByIdentity(4096)


def _overrides(ruleset: Ruleset) -> dict[str, Any]:
    """``ruleset.overrides()`` as plain values, computed once per ruleset object: hashing and
    comparing a ruleset (every option) cost more than the rest of a state's encoding, and a
    game's ruleset is one object from move to move."""
    kept = _OVERRIDES.get(ruleset)
    if kept is not None:
        return kept
    return _OVERRIDES.put(ruleset, {k: _plain(v) for k, v in ruleset.overrides().items()})


def _ruleset(preset: str, overrides: dict[str, Any]) -> Ruleset:
    """``make_ruleset(preset, overrides, stored=True)``, built once per distinct stored pair."""
    key = (preset, tuple(overrides.items()))
    try:
        cached = _RULESETS.get(key)
    except TypeError:  # an unhashable value: corrupt input, let make_ruleset reject it
        return make_ruleset(preset, overrides, stored=True)
    if cached is None:
        if len(_RULESETS) >= _CACHE_LIMIT:
            _RULESETS.clear()
        cached = make_ruleset(preset, overrides, stored=True)
        _RULESETS[key] = cached
    return cached


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _tuples(rows: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple([tuple(r) for r in rows])


# --- hand results --------------------------------------------------------------------------


def _result_out(r: HandResult) -> Record:
    return {
        "hand_number": r.hand_number,
        "components": [[c.name, c.points, c.values] for c in r.score.components],
        "hand_totals": r.score.totals,
        "napoleone": r.score.napoleone,
        "totals": r.totals,
    }


def _result_in(row: Record) -> HandResult:
    score = HandScore(
        components=tuple([Component(n, tuple(p), tuple(v)) for n, p, v in row["components"]]),
        totals=tuple(row["hand_totals"]),
        napoleone=tuple(row["napoleone"]),
    )
    return HandResult(hand_number=row["hand_number"], score=score, totals=tuple(row["totals"]))


# --- events --------------------------------------------------------------------------------


def _event_out(event: Event) -> Record:
    """One event as a keyed record; ``match`` over the whole union (mypy checks it is total)."""
    match event:
        case HandStarted():
            return {"t": "hand_started", "hand_number": event.hand_number,
                    "dealer": event.dealer, "table": event.table}  # fmt: skip
        case Redealt():
            return {"t": "redealt", "hand_number": event.hand_number, "reason": event.reason,
                    "table": event.table}  # fmt: skip
        case AceReturned():
            return {"t": "ace_returned", "card": event.card}
        case CardsDealt():
            return {"t": "cards_dealt", "seat": event.seat, "n_cards": event.n_cards,
                    "cards": event.cards}  # fmt: skip
        case BonusScored():
            return {"t": "bonus_scored", "seat": event.seat, "side": event.side,
                    "name": event.name, "points": event.points,
                    "cards": event.cards}  # fmt: skip
        case CardPlayed():
            played: Record = {"t": "card_played", "seat": event.seat, "card": event.card,
                              "captured": event.captured, "taken": event.taken,
                              "sweep": event.sweep, "specials": event.specials}  # fmt: skip
            if event.stolen_from >= 0:  # only steals carry the key: other blobs stay the same
                played["stolen_from"] = event.stolen_from
            if event.claim is not None:  # only claimed sweeps carry the key
                claim = event.claim
                played["claim"] = [claim.doubter, claim.genuine, claim.doubter_specials]
            if event.farm is not None:  # only farm plays carry the key, likewise
                played["farm"] = _farm_out(event.farm)
            return played
        case SweepClaimed():
            return {"t": "sweep_claimed", "seat": event.seat, "table": event.table,
                    "answering": event.answering}  # fmt: skip
        case ClaimAnswered():
            return {"t": "claim_answered", "seat": event.seat, "trust": event.trust}
        case Declared():
            return {"t": "declared", "seat": event.seat, "name": event.name,
                    "cards": event.cards, "points": event.points}  # fmt: skip
        case LeftoverTaken():
            return {"t": "leftover_taken", "seat": event.seat, "cards": event.cards}
        case HandScored():
            return {"t": "hand_scored", "result": _result_out(event.result)}
        case GameFinished():
            return {"t": "game_finished", "winners": event.winners,
                    "reason": event.reason.value, "scores": event.scores}  # fmt: skip
        case SeatResigned():
            return {"t": "seat_resigned", "seat": event.seat}
        case _:
            assert_never(event)


def _farm_out(farm: Farm) -> Record:
    return {"owner": farm.owner, "value": farm.value, "cards": farm.cards}


def _farm_in(r: Record) -> Farm:
    return Farm(owner=r["owner"], value=r["value"], cards=tuple(r["cards"]))


def _played_in(r: Record) -> CardPlayed:
    return CardPlayed(
        seat=r["seat"],
        card=r["card"],
        captured=tuple(r["captured"]),
        taken=r["taken"],
        sweep=r["sweep"],
        specials=_specials_in(r["specials"]),
        stolen_from=r.get("stolen_from", -1),
        claim=_outcome_in(r["claim"]) if "claim" in r else None,
        farm=_farm_in(r["farm"]) if "farm" in r else None,
    )


def _outcome_in(row: list[Any]) -> ClaimOutcome:
    doubter, genuine, paid = row
    return ClaimOutcome(doubter=int(doubter), genuine=bool(genuine),
                        doubter_specials=_specials_in(paid))  # fmt: skip


def _specials_in(rows: list[list[Any]]) -> tuple[tuple[str, int], ...]:
    return tuple([(str(name), int(points)) for name, points in rows])


_EVENT_DECODERS: Final[dict[str, Callable[[Record], Event]]] = {
    "hand_started": lambda r: HandStarted(
        hand_number=r["hand_number"], dealer=r["dealer"], table=tuple(r["table"])
    ),
    "redealt": lambda r: Redealt(
        hand_number=r["hand_number"], reason=r["reason"], table=tuple(r["table"])
    ),
    "ace_returned": lambda r: AceReturned(card=r["card"]),
    "cards_dealt": lambda r: CardsDealt(
        seat=r["seat"], n_cards=r["n_cards"], cards=tuple(r["cards"])
    ),
    "card_played": _played_in,
    "bonus_scored": lambda r: BonusScored(
        seat=r["seat"],
        side=r["side"],
        name=r["name"],
        points=r["points"],
        cards=tuple(r["cards"]),
    ),
    "declared": lambda r: Declared(
        seat=r["seat"], name=r["name"], cards=tuple(r["cards"]), points=r["points"]
    ),
    "sweep_claimed": lambda r: SweepClaimed(
        seat=r["seat"], table=tuple(r["table"]), answering=tuple(r["answering"])
    ),
    "claim_answered": lambda r: ClaimAnswered(seat=r["seat"], trust=bool(r["trust"])),
    "leftover_taken": lambda r: LeftoverTaken(seat=r["seat"], cards=tuple(r["cards"])),
    "hand_scored": lambda r: HandScored(result=_result_in(r["result"])),
    "game_finished": lambda r: GameFinished(
        winners=tuple(r["winners"]), reason=FinishReason(r["reason"]), scores=tuple(r["scores"])
    ),
    "seat_resigned": lambda r: SeatResigned(seat=r["seat"]),
}
"""Every event kind's reader, by the tag :func:`_event_out` writes (tests check they agree)."""


def _event_in(row: Record) -> Event:
    decode = _EVENT_DECODERS.get(row["t"])
    if decode is None:
        raise InvalidState(f"unknown event kind {row['t']!r}")
    return decode(row)


def dump_events(events: list[Event] | tuple[Event, ...]) -> bytes:
    """Serialise a batch of events (full truth: filter with ``visible_events`` before showing)."""
    return _pack([_event_out(e) for e in events])


def load_events(blob: bytes) -> list[Event]:
    """Read a batch written by :func:`dump_events` of this or any earlier format version."""
    rows = _unpack(blob, EVENT_MIGRATIONS)
    if not isinstance(rows, list):
        raise InvalidState("corrupt event batch")
    try:
        return [_event_in(r) for r in rows]
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise InvalidState("corrupt event batch") from exc


def event_records(events: list[Event] | tuple[Event, ...]) -> list[Record]:
    """The events as keyed records of format :data:`FORMAT_VERSION` (JSON-ready), for a caller
    that keeps them inside its own versioned envelope (the service's event log)."""
    return [_event_out(e) for e in events]


def events_from_records(rows: list[Record], version: int) -> list[Event]:
    """Read records that :func:`event_records` wrote at format ``version`` (migrated first)."""
    if isinstance(version, int) and version > FORMAT_VERSION:
        raise FormatTooNew.of("game's event log", version, FORMAT_VERSION)
    if not isinstance(version, int) or version < 2:
        raise InvalidState(f"unknown event record format {version}")
    try:
        for step in range(version, FORMAT_VERSION):
            rows = EVENT_MIGRATIONS[step](rows)
        return [_event_in(r) for r in rows]
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise InvalidState("corrupt event records") from exc


# --- state ---------------------------------------------------------------------------------


_HISTORY_TEXTS: Final[ByIdentity[Event, bytes]] = ByIdentity(4096)
"""JSON texts of history events by the event object: each play stays in the history, and in
every state dumped, until its hand ends."""
_RESULT_TEXTS: Final[ByIdentity[HandResult, bytes]] = ByIdentity(4096)
"""JSON texts of hand results by the result object, likewise: each stays in every later state."""
_HISTORY_SLOT: Final = b',"history":[],"scores":'
"""Where the history goes in a state's JSON (with its neighbours: no option name is either)."""
_RESULTS_HEAD: Final = b'{"results":[],'
"""How a state's JSON starts: its hand results come first (:func:`dump_state`)."""
_RESULT_FRAMES: Final[ByIdentity[tuple[HandResult, ...], bytes]] = ByIdentity(4096)
"""The compressed first part of a state's payload, its hand results (``{"results":[...],``),
by the results tuple: a game's states share one from a hand's end to the next."""

_Kept = TypeVar("_Kept")


def _kept_texts(
    items: tuple[_Kept, ...], kept: ByIdentity[_Kept, bytes], out: Callable[[_Kept], Any]
) -> bytes:
    """The JSON texts of ``items`` joined by commas, each written once and kept by its object."""
    texts = []
    for item in items:
        found = kept.get(item)
        if found is None:
            found = kept.put(item, orjson.dumps(out(item)))
        texts.append(found)
    return b",".join(texts)


def event_text(event: Event) -> bytes:
    """The JSON text of :func:`event_records`' record of ``event``, written once per event
    object (a move's played card is the same object in its state's history: its text is the
    one :func:`dump_state` wrote)."""
    found = _HISTORY_TEXTS.get(event)
    if found is None:
        found = _HISTORY_TEXTS.put(event, orjson.dumps(_event_out(event)))
    return found


def _history_text(history: tuple[Event, ...]) -> bytes:
    """The JSON text of a state's history, each event's text written once."""
    return b'"history":[' + _kept_texts(history, _HISTORY_TEXTS, _event_out) + b"]"


def dump_state(state: MatchState) -> bytes:
    """Serialise ``state`` (hidden parts included: this is for the server's store only).

    The JSON starts with the hand results: they are the payload's first part
    (:func:`._compress.compress_parts`), compressed once per results tuple and kept; the rest is
    the second part, compressed on every write. The history's events and the hand results are
    written from their kept texts (:func:`_kept_texts`) into the slots the encoder leaves for
    them: the same bytes as encoding them with the rest.
    """
    # orjson writes tuples as lists, so the fields go in as they are.
    text = orjson.dumps(_state_record(state, history=[], results=[]))
    if state.history:
        slot = b"," + _history_text(state.history) + b',"scores":'
        text = text.replace(_HISTORY_SLOT, slot, 1)
    results = state.results
    if not results:
        return bytes([FORMAT_VERSION]) + compress_parts(b"", text)
    first = _RESULT_FRAMES.get(results)
    if first is None:
        head = b'{"results":[' + _kept_texts(results, _RESULT_TEXTS, _result_out) + b"],"
        first = _RESULT_FRAMES.put(results, frame(head))
    return bytes([FORMAT_VERSION]) + compress_parts(first, text[len(_RESULTS_HEAD) :])


def _state_record(
    state: MatchState, history: list[Record], results: list[Record] | None = None
) -> Record:
    record: Record = {
        "results": [_result_out(r) for r in state.results] if results is None else results,
        "preset": state.ruleset.preset,
        "overrides": _overrides(state.ruleset),
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "turn": state.turn,
        "hands": state.hands,
        "table": state.table,
        "stock": state.stock,
        "piles": state.piles,
        "sweeps": state.sweeps,
        "specials": state.specials,
        "phase": state.phase,
        "declared": state.declared,
        "declarations": [_event_out(d) for d in state.declarations],
        "last_capturer": state.last_capturer,
        "last_laid": state.last_laid,
        "history": history,
        "scores": state.scores,
        "winners": state.winners,
        "finish_reason": state.finish_reason.value,
        "decks": state.decks,
        "out": state.out,
        **({"returned": state.returned} if state.returned else {}),
    }
    claim = state.claim
    if claim is not None:  # only a pending claim writes the key: other blobs stay the same
        record["claim"] = [claim.seat, claim.card, claim.answering, claim.trusted]
    if state.farms:  # only a game with farms on the table carries the key: other blobs stay
        record["farms"] = [_farm_out(f) for f in state.farms]
    if state.bonuses:  # only a hand that scored a bonus carries the key, likewise
        record["bonuses"] = [_event_out(b) for b in state.bonuses]
    return record


def _bonus_in(r: Record) -> BonusScored:
    event = _event_in(r)
    if not isinstance(event, BonusScored):
        raise InvalidState("a state's bonuses hold only bonuses")
    return event


def _declared_in(r: Record) -> Declared:
    event = _event_in(r)
    if not isinstance(event, Declared):
        raise InvalidState("a state's declarations hold only declarations")
    return event


def _pending_in(row: list[Any]) -> PendingClaim:
    seat, card, answering, trusted = row
    return PendingClaim(seat=int(seat), card=int(card), answering=tuple(answering),
                        trusted=tuple(trusted))  # fmt: skip


def _check_known_names(preset: Any, overrides: Any) -> None:
    """FormatTooNew when the stored rules name a preset or an option this release does not
    know: a newer release created the game (a rolling update), so a newer replica can serve
    it; only rules this release knows and refuses make a game unplayable."""
    if not isinstance(preset, str) or not isinstance(overrides, dict):
        return  # not a newer release's: corrupt, refused by the ruleset
    unknown = [name for name in overrides if name not in _OPTION_NAMES]
    if preset in PRESETS and not unknown:
        return
    named = unknown[0] if unknown else preset
    raise FormatTooNew(
        f"this game's rules name {named!r}, which this replica does not know: a newer release"
        " created it. Retry: another replica can serve it",
        metadata={"preset": preset, "option": unknown[0] if unknown else ""},
    )


_OPTION_NAMES: Final = frozenset(info.name for info in list_options())


def load_state(blob: bytes) -> MatchState:
    """Read a state written by :func:`dump_state` of this or any earlier format version.

    A stored game keeps the rules it was created with: its ruleset is built without the checks
    that only refuse a new game (``make_ruleset(stored=True)``); rules this release cannot
    build at all raise :class:`GameUnplayable`, not a corrupt state.
    """
    r = _unpack(blob, STATE_MIGRATIONS)
    try:
        _check_known_names(r["preset"], r["overrides"])
        ruleset = _ruleset(r["preset"], r["overrides"])
    except FormatTooNew:
        raise
    except InvalidOption as refused:  # its own name: mypyc types one name once per function
        facts = {"preset": str(r["preset"]), "option": refused.field or ""}
        raise GameUnplayable(
            f"this game's rules can no longer be played by this release: {refused}",
            metadata=facts,
        ) from refused
    except (TypeError, KeyError, AttributeError, ValueError, RulesError) as exc:
        raise InvalidState("corrupt state") from exc
    try:
        state = MatchState(
            ruleset=ruleset,
            hand_number=r["hand_number"],
            dealer=r["dealer"],
            turn=r["turn"],
            hands=_tuples(r["hands"]),
            table=tuple(r["table"]),
            stock=tuple(r["stock"]),
            piles=_tuples(r["piles"]),
            sweeps=tuple(r["sweeps"]),
            specials=tuple([_specials_in(side) for side in r["specials"]]),
            phase=str(r["phase"]),
            declared=tuple(r["declared"]),
            declarations=tuple([_declared_in(d) for d in r.get("declarations", [])]),
            last_capturer=r["last_capturer"],
            last_laid=r["last_laid"],
            history=tuple([_played_in(p) for p in r["history"]]),
            scores=tuple(r["scores"]),
            results=tuple([_result_in(x) for x in r["results"]]),
            winners=tuple(r["winners"]),
            finish_reason=FinishReason(r["finish_reason"]),
            decks=_tuples(r["decks"]),
            out=tuple(r.get("out", ())),
            returned=tuple(r.get("returned", ())),
            claim=_pending_in(r["claim"]) if "claim" in r else None,
            farms=tuple([_farm_in(f) for f in r.get("farms", ())]),
            bonuses=tuple([_bonus_in(b) for b in r.get("bonuses", ())]),
        )
    except (TypeError, ValueError, KeyError, AttributeError, RulesError) as exc:
        raise InvalidState("corrupt state") from exc
    options = ruleset.options
    sides = (len(state.piles), len(state.scores), len(state.sweeps))
    if len(state.hands) != options.players or sides != (options.sides,) * 3:
        raise InvalidState("corrupt state: its seats and sides are not its rules'")
    return state

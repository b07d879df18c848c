"""The migrations of stored payloads: each earlier format's state and event records to the next
format's, one version at a time (:mod:`._serial` runs them from a blob's format up to
:data:`._serial.FORMAT_VERSION`; its docstring says what each format changed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

__all__ = ["EVENT_MIGRATIONS", "STATE_MIGRATIONS"]

Record = dict[str, Any]


# --- migrations ----------------------------------------------------------------------------

_STATE_FIELDS_1: Final = (
    "preset", "overrides", "version", "hand_number", "dealer", "turn", "hands", "table",
    "stock", "piles", "sweeps", "picule", "bagher", "last_capturer", "last_laid", "history",
    "scores", "results", "winners", "finish_reason", "decks",
)  # fmt: skip
"""Format 1: the state as a list in this order."""

_EVENT_FIELDS_1: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "hs": ("hand_started", ("hand_number", "dealer", "table")),
    "rd": ("redealt", ("hand_number", "reason", "table")),
    "ar": ("ace_returned", ("card",)),
    "cd": ("cards_dealt", ("seat", "n_cards", "cards")),
    "cp": (
        "card_played",
        ("seat", "card", "captured", "taken", "sweep", "picula", "bagher_points"),
    ),
    "lt": ("leftover_taken", ("seat", "cards")),
    "sc": ("hand_scored", ("result",)),
    "gf": ("game_finished", ("winners", "reason", "scores")),
    "sr": ("seat_resigned", ("seat",)),
}
"""Format 1: an event as ``[short tag, *fields]``, by short tag: the kind and the field order."""


def _result_1_to_2(row: list[Any]) -> Record:
    hand_number, components, hand_totals, napoleone, totals = row
    return {"hand_number": hand_number, "components": components, "hand_totals": hand_totals,
            "napoleone": napoleone, "totals": totals}  # fmt: skip


def _event_1_to_2(row: list[Any]) -> Record:
    tag, fields = _EVENT_FIELDS_1[row[0]]
    values = row[1:]
    if len(values) != len(fields):
        raise ValueError(f"event {tag} has {len(values)} fields, not {len(fields)}")
    record: Record = {"t": tag, **dict(zip(fields, values, strict=True))}
    if tag == "hand_scored":
        record["result"] = _result_1_to_2(record["result"])
    return record


def _state_1_to_2(row: list[Any]) -> Record:
    if len(row) != len(_STATE_FIELDS_1):
        raise ValueError("a format-1 state has 21 fields")
    record: Record = dict(zip(_STATE_FIELDS_1, row, strict=True))
    del record["version"]  # the store owns the game's version
    record["history"] = [_event_1_to_2(["cp", *p]) for p in record["history"]]
    record["results"] = [_result_1_to_2(r) for r in record["results"]]
    return record


def _events_1_to_2(rows: list[list[Any]]) -> list[Record]:
    return [_event_1_to_2(r) for r in rows]


def _specials_2_to_3(picula: int, bagher: int) -> list[list[Any]]:
    """Format 2's picula count and bagher points as format 3's specials (rule order)."""
    return [[name, n] for name, n in (("picula", int(picula)), ("bagher", bagher)) if n]


def _played_2_to_3(record: Record) -> Record:
    record = dict(record)
    record["specials"] = _specials_2_to_3(record.pop("picula"), record.pop("bagher_points"))
    return record


def _event_2_to_3(record: Record) -> Record:
    return _played_2_to_3(record) if record["t"] == "card_played" else record


def _state_2_to_3(record: Record) -> Record:
    record = dict(record)
    picule, bagher = record.pop("picule"), record.pop("bagher")
    record["specials"] = [_specials_2_to_3(p, b) for p, b in zip(picule, bagher, strict=True)]
    record["history"] = [_played_2_to_3(p) for p in record["history"]]
    record["phase"] = "play"
    record["declared"] = []
    return record


def _events_2_to_3(rows: list[Record]) -> list[Record]:
    return [_event_2_to_3(r) for r in rows]


def _same(payload: Any) -> Any:
    """A format that changes none of the payload's records (format 4 only names what builds of
    format 3 already wrote, format 5 only adds values: see the module docstring)."""
    return payload


def _pinned(presets: frozenset[str], option: str) -> Callable[[Record], Record]:
    """The state migration to a format whose ``presets`` set ``option`` where the format before
    left it at its default: a state of theirs without an ``option`` override gets the default
    (0) written into its overrides, so it keeps the rules it was created with."""

    def migrate(record: Record) -> Record:
        if record["preset"] not in presets or option in record["overrides"]:
            return record
        record = dict(record)
        record["overrides"] = {**record["overrides"], option: 0}
        return record

    return migrate


_state_5_to_6: Final = _pinned(
    frozenset({"marescialla", "marescialla_80", "modulo_sette"}), "hand_limit"
)
"""Format 6: the presets whose scores can fall set ``hand_limit``."""
_state_6_to_7: Final = _pinned(frozenset({"cirulla"}), "napola_top")
"""Format 7: Cirulla's piccola stops at the 7."""


STATE_MIGRATIONS: Final[dict[int, Callable[[Any], Any]]] = {
    1: _state_1_to_2,
    2: _state_2_to_3,
    3: _same,
    4: _same,
    5: _state_5_to_6,
    6: _state_6_to_7,
    7: _same,
    8: _same,
}
"""``n -> f``: ``f`` turns a format-``n`` state payload into a format-``n + 1`` one."""
EVENT_MIGRATIONS: Final[dict[int, Callable[[Any], Any]]] = {
    1: _events_1_to_2,
    2: _events_2_to_3,
    3: _same,
    4: _same,
    5: _same,
    6: _same,
    7: _same,
    8: _same,
}
"""``n -> f``: ``f`` turns a format-``n`` event batch into a format-``n + 1`` one."""

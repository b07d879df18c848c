"""A viewed response's proto3 JSON written from the snapshot, with no message built.

``_convert.with_view`` builds a response's GameView from dicts, and REST and Connect JSON wrote
the built message as text (:func:`._rest_json.dumps`): two passes over every field, and the
message's nested messages serialized once more to find their kept texts. :func:`view_json`
writes the same text from the same dicts (``_convert.view_fields``) with
:func:`._dict_json.dict_text`. What repeats from view to view is written once and kept: the
options and deck size by the game's options object, the hand results by the game's results
tuple, each card in hand and on the table and each legal move and action by its rules value.
"""

from __future__ import annotations

from typing import Any, Final

from google.protobuf.message import Message

from scopa import rules
from scopa.app import GameSnapshot
from scopa_client.v1 import scopa_pb2 as pb

from ._convert import options_view, results_view, view_fields
from ._convert_presence import view_times
from ._dict_json import Rendered, dict_text, element_text, field_text
from ._rest_json import _text_plan

__all__ = ["view_json"]

_KEPT: Final = 4096
_OPTIONS: Final[rules.ByIdentity[rules.Options, dict[str, Rendered]]] = rules.ByIdentity(_KEPT)
"""The texts of a view's options and deck size, by the options object (a game's own)."""
_RESULTS: Final[rules.ByIdentity[tuple[rules.HandResult, ...], dict[str, Rendered]]] = (
    rules.ByIdentity(_KEPT)
)
"""The text of a view's hand results, by the results tuple (a game's until a hand ends)."""


def _texts(view: bytes) -> dict[str, Rendered]:
    """Each field of a GameView's wire bytes as its JSON text, by field name."""
    plan = _text_plan(pb.GameView.DESCRIPTOR)
    assert plan is not None
    return {
        field.name: Rendered(plan.by_field[field][1](value))
        for field, value in pb.GameView.FromString(view).ListFields()
    }


def _options_texts(options: rules.Options) -> dict[str, Rendered]:
    kept = _OPTIONS.get(options)
    return kept if kept is not None else _OPTIONS.put(options, _texts(options_view(options)))


def _results_texts(results: tuple[rules.HandResult, ...]) -> dict[str, Rendered]:
    if not results:
        return {}
    kept = _RESULTS.get(results)
    return kept if kept is not None else _RESULTS.put(results, _texts(results_view(results)))


_ELEMENTS: Final[dict[tuple[str, type, Any], str]] = {}
"""The texts of a view's cards in hand and on the table and of its legal moves and actions, by
field and the rules' value each was made from (a card, a move: few distinct ones, seen in every
game, where the lists they make up change with every move); all dropped when full."""
_ELEMENTS_KEPT: Final = 16384
_KEPT_LISTS: Final = ("hand", "table", "legal_moves", "legal_actions")


def _list_text(name: str, source: tuple[Any, ...], values: list[Any]) -> Rendered:
    """The text of the view's field ``name``, whose elements ``values`` were made from the
    rules' ``source``, joined from each element's kept text."""
    if not source:
        return Rendered("")
    parts: list[str] = []
    for item, value in zip(source, values, strict=True):
        # an action's type is part of it: a Move and a Steal may be equal tuples
        key = (name, type(item), item)
        text = _ELEMENTS.get(key)
        if text is None:
            if len(_ELEMENTS) >= _ELEMENTS_KEPT:
                _ELEMENTS.clear()
            text = _ELEMENTS[key] = element_text(pb.GameView.DESCRIPTOR, name, value)
        parts.append(text)
    return Rendered("[" + ",".join(parts) + "]")


def view_json(
    response: type[Message],
    snapshot: GameSnapshot,
    last_events: list[pb.Event] | None = None,
    **fields: Any,
) -> bytes:
    """The proto3 JSON of ``with_view(response, snapshot, last_events, **fields)``, as
    :func:`._rest_json.dumps` writes it, built from the same dicts without the message."""
    view = snapshot.view
    values = view_fields(snapshot, last_events, results=False)
    for name in _KEPT_LISTS:
        values[name] = _list_text(name, getattr(view, name), values[name])
    values.update(view_times(snapshot))
    values.update(_options_texts(view.options))
    values.update(_results_texts(view.results))
    events = fields.get("events")
    if events is not None and events is last_events:  # the action's: written once
        values["last_events"] = fields["events"] = field_text(response.DESCRIPTOR, "events", events)
    fields["view"] = values
    return dict_text(response.DESCRIPTOR, fields).encode()

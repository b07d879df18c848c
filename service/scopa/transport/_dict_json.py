"""Proto3 JSON text straight from a message's constructor arguments: no message built.

A response is built from dicts (``_convert.with_view``: upb fills submessages in place), and
REST and Connect JSON then wrote the built message as text (:func:`._rest_json.dumps`). For a
response sent only as JSON, :func:`dict_dumps` writes the same text from those dicts: the same
members and values in the same order (fields with a value first, by field number; then the
defaults of the fields without presence, in declaration order), each value as
:mod:`._rest_json` writes it. A value may also be a message (written by ``_rest_json``) or a
:class:`Rendered` text.

Driven by the descriptors, like ``_rest_json``: a plan per message type, built once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from ._json_parse import _repeated
from ._rest_json import _QUOTE, _map_key, _message_text, _scalar_text, _text_plan, kept_plan

__all__ = ["Rendered", "dict_text", "element_text", "field_text"]

_FD: Final = FieldDescriptor

_SCALAR: Final = 0
"""A scalar without presence: written when it is not its zero."""
_OPTIONAL: Final = 1
"""A scalar with presence (proto3 ``optional``, a oneof member): written when given."""
_MESSAGE: Final = 2
_REPEATED: Final = 3
_REPEATED_MESSAGE: Final = 4
_MAP: Final = 5


class Rendered(NamedTuple):
    """A field's value already written as JSON text (its key is written before it; an empty
    text: the field is written with the defaults, as a zero or an empty list would be)."""

    text: str


_Write = Callable[[Any], str]


class _Field(NamedTuple):
    number: int
    key: str
    """``"jsonName":``"""
    kind: int
    write: _Write
    """A scalar's (or a repeated scalar's element's, a map value's) writer."""
    zero: Any
    """A scalar's zero (for _SCALAR)."""
    enum_numbers: dict[str, int] | None
    """An enum's numbers by name (a constructor takes either)."""
    sub: Descriptor | None
    """A message field's (or a map's value's) type."""
    map_key: Callable[[Any], str] | None


class _Plan:
    """How one message type is written from a dict: per field name its way, and the texts of
    the defaults of the fields without presence (declaration order)."""

    __slots__ = ("by_name", "defaults", "name")

    def __init__(self, descriptor: Descriptor) -> None:
        self.name = descriptor.full_name
        text = _text_plan(descriptor)
        assert text is not None
        self.by_name: dict[str, _Field] = {}
        for field in descriptor.fields:
            key = text.by_field[field][0]
            self.by_name[field.name] = _field(field, key)
        self.defaults: tuple[tuple[str, str], ...] = tuple(
            (field.name, default) for field, default in text.defaults
        )


def _field(field: FieldDescriptor, key: str) -> _Field:
    entry = field.message_type
    enum_type: Any = field.enum_type
    numbers = None if enum_type is None else {v.name: v.number for v in enum_type.values}
    if entry is not None and entry.GetOptions().map_entry:
        value = entry.fields_by_name["value"]
        return _Field(
            field.number,
            key,
            _MAP,
            _scalar_text(value),
            None,
            None,
            value.message_type,
            _map_key(entry.fields_by_name["key"]),
        )
    write = _scalar_text(field)
    if _repeated(field):
        kind = _REPEATED if entry is None else _REPEATED_MESSAGE
        return _Field(field.number, key, kind, write, None, numbers, entry, None)
    if entry is not None:
        return _Field(field.number, key, _MESSAGE, write, None, None, entry, None)
    if field.has_presence:
        return _Field(field.number, key, _OPTIONAL, write, None, numbers, None, None)
    return _Field(field.number, key, _SCALAR, write, field.default_value, numbers, None, None)


_PLANS: Final[dict[Descriptor, _Plan | None]] = {}


def _plan(descriptor: Any) -> _Plan | None:
    """The type's plan; None for a well-known type (written from a message, as json_format)."""
    return kept_plan(_PLANS, descriptor, _Plan)


_CLASSES: Final[dict[Descriptor, Callable[..., Message]]] = {}


def _value_text(descriptor: Descriptor, value: Any) -> str:
    """A message value's text: a dict of constructor arguments, a message or a Rendered."""
    if isinstance(value, dict):
        plan = _plan(descriptor)
        if plan is not None:
            return _dict_fields(plan, value)
        cls = _CLASSES.get(descriptor)
        if cls is None:
            cls = _CLASSES[descriptor] = message_factory.GetMessageClass(descriptor)
        return _message_text(cls(**value))
    if isinstance(value, Rendered):
        return value.text
    return _message_text(value)


def _enum_value(field: _Field, value: Any) -> Any:
    if isinstance(value, str) and field.enum_numbers is not None:
        return field.enum_numbers[value]
    return value


def _text(field: _Field, value: Any) -> str | None:
    """The text of a field's value; None where the value is not written with the values (not
    given, a zero, empty: a field without presence is written with the defaults then)."""
    kind = field.kind
    if isinstance(value, Rendered):
        return value.text or None
    if kind == _SCALAR:
        scalar = _enum_value(field, value)
        return None if scalar == field.zero else field.write(scalar)
    if kind == _OPTIONAL:
        return field.write(_enum_value(field, value))
    if kind == _MESSAGE:
        assert field.sub is not None
        return _value_text(field.sub, value)
    if not value:
        return None
    if kind == _REPEATED:
        write = field.write
        if field.enum_numbers is not None:
            return "[" + ",".join([write(_enum_value(field, v)) for v in value]) + "]"
        return "[" + ",".join(map(write, value)) + "]"
    sub = field.sub
    if kind == _REPEATED_MESSAGE:
        assert sub is not None
        return "[" + ",".join([_value_text(sub, v) for v in value]) + "]"
    key = field.map_key  # _MAP
    assert key is not None
    if sub is None:
        write = field.write
        items = [_QUOTE(key(k)) + ":" + write(v) for k, v in value.items()]
    else:
        items = [_QUOTE(key(k)) + ":" + _value_text(sub, v) for k, v in value.items()]
    return "{" + ",".join(items) + "}"


def _dict_fields(plan: _Plan, values: Mapping[str, Any]) -> str:
    by_name = plan.by_name
    numbered: list[tuple[int, str]] = []
    written: set[str] = set()
    for name, value in values.items():
        if value is None:
            continue
        field = by_name.get(name)
        if field is None:  # as the message's constructor would
            raise ValueError(f"{plan.name} has no field {name!r}")
        text = _text(field, value)
        if text is not None:
            numbered.append((field.number, field.key + text))
            written.add(name)
    numbered.sort()
    parts = [part for _, part in numbered]
    parts += [default for name, default in plan.defaults if name not in written]
    return "{" + ",".join(parts) + "}"


def dict_text(descriptor: Any, values: Mapping[str, Any]) -> str:
    """The proto3 JSON text of the message ``descriptor`` names, built from ``values`` (its
    constructor's arguments: nested messages as dicts, messages or :class:`Rendered`), as
    ``_rest_json.dumps(message)`` writes the built message."""
    plan = _plan(descriptor)
    if plan is None:
        return _value_text(descriptor, dict(values))
    return _dict_fields(plan, values)


def field_text(descriptor: Any, name: str, value: Any) -> Rendered:
    """The text of the field ``name``'s ``value`` in a message of type ``descriptor``, as
    :func:`dict_text` writes it; empty where it is written as the field's default (a zero,
    an empty list or map, None)."""
    plan = _plan(descriptor)
    assert plan is not None
    text = None if value is None else _text(plan.by_name[name], value)
    return Rendered(text or "")


def element_text(descriptor: Any, name: str, value: Any) -> str:
    """The text of one element ``value`` of the repeated message field ``name`` in a message of
    type ``descriptor``, as :func:`dict_text` writes it inside the field's list."""
    plan = _plan(descriptor)
    assert plan is not None
    field = plan.by_name[name]
    assert field.kind == _REPEATED_MESSAGE and field.sub is not None
    return _value_text(field.sub, value)

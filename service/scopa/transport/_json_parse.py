"""Proto3 JSON into messages, fast: a parse plan per message type, built once.

`from_json_dict(data, message_class)` equals ``json_format.ParseDict`` for the messages the API
takes; input it cannot take fast (a well-known type, a value json_format would word an error
for) raises :class:`_Slow`, and the caller hands it to json_format, which words the error.
``DECODER`` reads a body as ``json.loads`` with a name given twice refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Final, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

__all__ = ["DECODER", "NESTED_TOO_DEEPLY", "from_json_dict"]

_FD: Final = FieldDescriptor
_V = TypeVar("_V", bound=Message)
_INT64: Final = {
    _FD.TYPE_INT64,
    _FD.TYPE_SINT64,
    _FD.TYPE_SFIXED64,
    _FD.TYPE_UINT64,
    _FD.TYPE_FIXED64,
}


def _repeated(field: FieldDescriptor) -> bool:
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(getattr(field, "label", None) == _FD.LABEL_REPEATED)


class _Slow(Exception):
    """Input the fast parser does not take: json_format parses it (and words any error)."""


_Setter = Callable[[Message, Any, int, bool], None]
_INT32: Final = {
    _FD.TYPE_INT32, _FD.TYPE_SINT32, _FD.TYPE_SFIXED32, _FD.TYPE_UINT32, _FD.TYPE_FIXED32
} | _INT64  # fmt: skip
_EXACT_INT: Final = 2**53
_MAX_DEPTH: Final = 100
"""json_format's default max_recursion_depth; deeper input goes to json_format, which refuses it."""


def _text(value: Any) -> str:
    if type(value) is not str:
        raise _Slow
    if not value.isascii():
        try:
            value.encode()
        except UnicodeEncodeError:  # an unpaired surrogate
            raise _Slow from None
    return value


def _integer(value: Any) -> int:
    if type(value) is not int:  # floats, strings, bools: json_format's rules
        raise _Slow
    return value


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise _Slow
    return value


def _real(value: Any) -> float:
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is int and -_EXACT_INT < value < _EXACT_INT:
        return float(value)
    raise _Slow  # "NaN", "Infinity", numeric strings, huge numbers: json_format's rules


def _enum_parser(field: FieldDescriptor) -> Callable[[Any], int]:
    enum_type: Any = field.enum_type
    numbers = {v.name: v.number for v in enum_type.values}

    def enum(value: Any) -> int:
        number: int | None = numbers.get(value) if type(value) is str else None
        if number is None:  # numbers, unknown names: json_format's rules
            raise _Slow
        return number

    return enum


def _element_parser(field: FieldDescriptor) -> Callable[[Any], Any] | None:
    """How to take one scalar JSON value for ``field``; None: only json_format does."""
    kind = field.type
    if kind == _FD.TYPE_STRING:
        return _text
    if kind == _FD.TYPE_BOOL:
        return _boolean
    if kind in _INT32:
        return _integer
    if kind == _FD.TYPE_DOUBLE:
        return _real
    if kind == _FD.TYPE_ENUM:
        return _enum_parser(field)
    return None  # float (its range), bytes (base64): json_format


def _message_setter(field: FieldDescriptor) -> _Setter:
    name = field.name
    if _repeated(field):

        def messages(target: Message, value: Any, depth: int, ignore: bool) -> None:
            if type(value) is not list:
                raise _Slow
            container = getattr(target, name)
            for item in value:
                _fill(container.add(), item, depth, ignore)

        return messages

    def message(target: Message, value: Any, depth: int, ignore: bool) -> None:
        sub = getattr(target, name)
        sub.SetInParent()
        _fill(sub, value, depth, ignore)

    return message


def _map_setter(field: FieldDescriptor) -> _Setter | None:
    """String-keyed maps of messages or scalars; other keys: json_format."""
    name = field.name
    entry: Any = field.message_type
    key_field, value_field = entry.fields_by_name["key"], entry.fields_by_name["value"]
    if key_field.type != _FD.TYPE_STRING:
        return None
    if value_field.message_type is not None:

        def messages(target: Message, value: Any, depth: int, ignore: bool) -> None:
            if type(value) is not dict:
                raise _Slow
            container = getattr(target, name)
            for key, item in value.items():
                _fill(container[_text(key)], item, depth, ignore)

        return messages
    element = _element_parser(value_field)
    if element is None:
        return None

    def scalars(target: Message, value: Any, depth: int, ignore: bool) -> None:
        if type(value) is not dict:
            raise _Slow
        try:
            getattr(target, name).update({_text(k): element(v) for k, v in value.items()})
        except ValueError:  # out of range
            raise _Slow from None

    return scalars


def _scalar_setter(field: FieldDescriptor) -> _Setter | None:
    name = field.name
    element = _element_parser(field)
    if element is None:
        return None
    if _repeated(field):

        def scalars(target: Message, value: Any, depth: int, ignore: bool) -> None:
            if type(value) is not list:
                raise _Slow
            try:
                getattr(target, name).extend([element(item) for item in value])
            except ValueError:  # out of range
                raise _Slow from None

        return scalars

    def scalar(target: Message, value: Any, depth: int, ignore: bool) -> None:
        try:
            setattr(target, name, element(value))
        except ValueError:  # out of range
            raise _Slow from None

    return scalar


def _setter(field: FieldDescriptor) -> _Setter | None:
    """How to set ``field`` from its JSON value; None: only json_format does."""
    entry = field.message_type
    if entry is None:
        return _scalar_setter(field)
    if entry.GetOptions().map_entry:
        return _map_setter(field)
    if entry.full_name.startswith("google.protobuf."):
        return None
    return _message_setter(field)


_ParsePlan = dict[str, tuple[FieldDescriptor, _Setter, Any]]
_PARSE_PLANS: Final[dict[Descriptor, _ParsePlan | None]] = {}


def _parse_plan(descriptor: Any) -> _ParsePlan | None:
    """JSON name and proto name -> (field, setter, oneof); None when any field needs json_format."""
    try:
        return _PARSE_PLANS[descriptor]
    except KeyError:
        pass
    plan: _ParsePlan | None = None
    if not descriptor.full_name.startswith("google.protobuf."):
        plan = _field_setters(descriptor)
    _PARSE_PLANS[descriptor] = plan
    return plan


def _field_setters(descriptor: Any) -> _ParsePlan | None:
    plan: _ParsePlan = {}
    for field in descriptor.fields:
        setter = _setter(field)
        if setter is None:
            return None
        plan[field.json_name] = plan[field.name] = (field, setter, field.containing_oneof)
    return plan


def _fill(message: Message, data: Any, depth: int, ignore_unknown: bool) -> None:
    """Set ``message``'s fields from a JSON object, or raise _Slow (json_format's case)."""
    plan = _parse_plan(message.DESCRIPTOR)
    if plan is None or type(data) is not dict or depth >= _MAX_DEPTH:
        raise _Slow
    seen: set[Any] = set()
    for key, value in data.items():
        entry = plan.get(key)
        if entry is None:
            if ignore_unknown and not key.startswith("["):
                continue
            raise _Slow  # json_format refuses it with its own message (or knows an extension)
        field, setter, oneof = entry
        if value is None or field in seen or (oneof is not None and oneof in seen):
            raise _Slow  # null clears or means NullValue; a field or a oneof given twice
        seen.add(field)
        if oneof is not None:
            seen.add(oneof)
        setter(message, value, depth + 1, ignore_unknown)


def from_json_dict(
    data: Any, message_class: type[_V], *, ignore_unknown_fields: bool = False
) -> _V:
    """A new ``message_class`` from parsed proto3 JSON, as ``json_format.ParseDict`` builds it.

    Plain fields (strings, integers, bools, enums by name, messages, lists of those) are set
    from a plan per message type; any other input (floats, bytes, maps, well-known types,
    nulls, enum numbers, strings for integers, unknown names, errors) goes to json_format, so
    results and error messages are json_format's (ParseError).
    """
    message = message_class()
    try:
        _fill(message, data, 0, ignore_unknown_fields)
    except _Slow:
        message = message_class()
        json_format.ParseDict(data, message, ignore_unknown_fields=ignore_unknown_fields)
    return message


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Slow  # json_format.Parse refuses duplicate keys
    return result


DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)  # json.loads's, made once
NESTED_TOO_DEEPLY: Final = "the body is not JSON this server reads: it is nested too deeply"

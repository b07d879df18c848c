"""The proto3 JSON mapping of messages, fast: a conversion plan per message type, built once.

`to_json_dict(message)` equals ``json_format.MessageToDict(message,
always_print_fields_with_no_presence=True)``, keys in the same order (fields without presence
always present, lowerCamelCase names, enums by name, 64-bit integers as strings, bytes as base64,
maps as objects), but walks ``ListFields()`` with a plan per message type keyed by field
descriptor instead of reflecting on every field of every message: json_format spent about a
millisecond on one PlayCard response, more than the rest of the call. (Keys are descriptors, not
``field.name``: upb builds a new string for each ``name`` read, which cost more than the rest.)
Well-known types (``google.protobuf.*``) are left to json_format. :class:`FastJsonCodec` is the
same conversion as a connectrpc codec, for Connect JSON; it reads requests with
``_json_parse.from_json_dict`` (exported here too).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from operator import methodcaller
from typing import Any, Final, TypeVar

from connectrpc.codec import Codec
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from ._json_parse import _INT64, DECODER, NESTED_TOO_DEEPLY, _repeated, _Slow, from_json_dict

__all__ = [
    "FastJsonCodec",
    "dumps",
    "from_json_dict",
    "kept_plan",
    "to_json_dict",
]  # from_json_dict: _json_parse's

_Convert = Callable[[Any], Any]
_FD: Final = FieldDescriptor


class _Plan:
    """How one message type converts: per present field, its JSON name and converter; then the
    JSON defaults of the fields without presence (json_format's order: present fields, then
    the defaults)."""

    __slots__ = ("defaults", "fields")

    def __init__(self, descriptor: Descriptor) -> None:
        self.fields: dict[FieldDescriptor, tuple[str, _Convert | None]] = {}
        defaults = []
        for field in descriptor.fields:
            convert, default = _field_plan(field)
            self.fields[field] = (field.json_name, None if convert is _same else convert)
            if default is not None:
                defaults.append((field.json_name, default))
        self.defaults: tuple[tuple[str, Callable[[], Any]], ...] = tuple(defaults)


_PLANS: Final[dict[Descriptor, _Plan | None]] = {}
"""Per message type; None for the well-known types, which json_format converts."""
_V = TypeVar("_V", bound=Message)
_CHECKERS: Final = getattr(json_format, "type_checkers")  # noqa: B009
_SHORTEST_FLOAT: Final[Callable[[float], float]] = _CHECKERS.ToShortestFloat


def _same(value: Any) -> Any:
    return value


def _double(value: float) -> Any:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _bytes(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _enum(field: FieldDescriptor) -> _Convert:
    enum_type: Any = field.enum_type
    names = {v.number: v.name for v in enum_type.values}
    return lambda value: names.get(value, value)


def _scalar(field: FieldDescriptor) -> _Convert:
    kind = field.type
    if kind in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return _json_value
    if kind == _FD.TYPE_ENUM:
        return _enum(field)
    if kind in _INT64:
        return str
    if kind == _FD.TYPE_DOUBLE:
        return _double
    if kind == _FD.TYPE_FLOAT:
        return lambda value: _double(_SHORTEST_FLOAT(value))
    if kind == _FD.TYPE_BYTES:
        return _bytes
    return _same


def _map_key(field: FieldDescriptor) -> _Convert:
    if field.type == _FD.TYPE_BOOL:
        return lambda key: "true" if key else "false"
    return str


def _field_plan(field: FieldDescriptor) -> tuple[_Convert, Callable[[], Any] | None]:
    """How to convert the field's value, and its JSON default when it has no presence."""
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        key, value = _map_key(entry.fields_by_name["key"]), _scalar(entry.fields_by_name["value"])
        # dict(items) copies in C; a protobuf map's own items() iterates in Python.
        return (lambda items: {key(k): value(v) for k, v in dict(items).items()}), dict
    if _repeated(field):
        element = _scalar(field)
        if element is _same:
            return list, list
        return (lambda items: [element(x) for x in items]), list
    convert = _scalar(field)
    if field.has_presence:
        return convert, None
    zero = convert(field.default_value)
    return convert, lambda: zero


_P = TypeVar("_P")


def kept_plan(plans: dict[Any, _P | None], descriptor: Any, make: Callable[[Any], _P]) -> _P | None:
    """The plan of the message type ``descriptor`` in ``plans``, made once by ``make``; None
    for a well-known type (``google.protobuf.*``), which json_format converts."""
    try:
        return plans[descriptor]
    except KeyError:
        plan = None if descriptor.full_name.startswith("google.protobuf.") else make(descriptor)
        plans[descriptor] = plan
        return plan


def _plan(descriptor: Any) -> _Plan | None:
    return kept_plan(_PLANS, descriptor, _Plan)


_MESSAGE_TO_DICT: Final[Callable[..., Any]] = json_format.MessageToDict
"""json_format's MessageToDict typed as it behaves: its stub says it returns a dict, but a
well-known type maps to a string or another JSON value (code compiled by mypyc checks the
stub's type and fails on a Timestamp)."""


def _reference(message: Message) -> Any:
    """json_format's mapping of ``message``: a dict, except for the well-known types that map to
    a string (Timestamp, Duration, FieldMask) or another JSON value (Value, ListValue, ...)."""
    return _MESSAGE_TO_DICT(message, always_print_fields_with_no_presence=True)


def _json_value(message: Message) -> Any:
    """The proto3 JSON value of ``message``, every field without presence included: a dict, or a
    well-known type's string or other value (json_format's)."""
    plan = _plan(message.DESCRIPTOR)
    if plan is None:
        return _reference(message)
    fields = plan.fields
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        entry = fields.get(field)
        if entry is None:  # an extension: json_format knows how to name it
            return _reference(message)
        json_name, convert = entry
        out[json_name] = value if convert is None else convert(value)
    for json_name, default in plan.defaults:
        if json_name not in out:
            out[json_name] = default()
    return out


def to_json_dict(message: Message) -> Any:
    """The proto3 JSON mapping of ``message``: a dict, every field without presence included,
    or for a well-known type that maps to a string or another JSON value, that value."""
    return _json_value(message)


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"))
_QUOTE: Final[Callable[[str], str]] = getattr(json.encoder, "encode_basestring_ascii")  # noqa: B009
"""json's own string encoder (in C), as ``json.dumps`` uses it: quoted, non-ASCII escaped."""
_TEXTS_KEPT = 4096
"""Texts of nested messages kept per message type (see _message_text); all dropped when full."""

_Write = Callable[[Any], str]


class _Text:
    """How one message type is written as JSON text, straight from the message: per field,
    ``"jsonName":`` and its writer, whether it has a JSON default (no presence), and the text of
    those defaults, as :func:`to_json_dict` maps it (present fields first, then the defaults)."""

    __slots__ = ("by_field", "defaults", "texts")

    def __init__(self, descriptor: Descriptor) -> None:
        self.by_field: dict[FieldDescriptor, tuple[str, _Write, bool]] = {}
        defaults = []
        for field in descriptor.fields:
            write, default = _field_text(field)
            key = _QUOTE(field.json_name) + ":"
            self.by_field[field] = (key, write, default is not None)
            if default is not None:
                defaults.append((field, key + default))
        self.defaults: tuple[tuple[FieldDescriptor, str], ...] = tuple(defaults)
        self.texts: dict[bytes, str] = {}
        """Texts of this type's nested messages by their wire bytes (see _message_text)."""


def _is_flat(descriptor: Any) -> bool:
    """Singular scalar fields only (not a well-known type)."""
    return (
        not descriptor.full_name.startswith("google.protobuf.")
        and bool(descriptor.fields)
        and all(not _repeated(f) and f.message_type is None for f in descriptor.fields)
    )


_TEXTS: Final[dict[Descriptor, _Text | None]] = {}


def _text_plan(descriptor: Any) -> _Text | None:
    return kept_plan(_TEXTS, descriptor, _Text)


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


def _scalar_text(field: FieldDescriptor) -> _Write:
    kind = field.type
    if kind in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return _message_text
    if kind == _FD.TYPE_ENUM:
        enum_type: Any = field.enum_type
        names = {v.number: _QUOTE(v.name) for v in enum_type.values}
        return lambda value: names.get(value) or str(value)
    if kind == _FD.TYPE_BOOL:
        return _bool_text
    if kind == _FD.TYPE_STRING:
        return _QUOTE
    if kind in _INT64:
        return lambda value: f'"{value}"'
    if kind in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT, _FD.TYPE_BYTES):
        convert = _scalar(field)
        return lambda value: _ENCODER.encode(convert(value))
    return int.__repr__


def _map_text(entry: Any) -> _Write:
    """How to write a map; a map of flat messages (a view's options) once per distinct
    content, kept under its keys and its values' wire bytes."""
    key = _map_key(entry.fields_by_name["key"])
    value_field = entry.fields_by_name["value"]
    value = _scalar_text(value_field)

    def write(items: Any) -> str:
        return "{" + ",".join(f"{_QUOTE(key(k))}:{value(v)}" for k, v in items.items()) + "}"

    if value_field.message_type is None or not _is_flat(value_field.message_type):
        return lambda items: write(dict(items))
    serialize = methodcaller("SerializeToString", deterministic=True)
    texts: dict[tuple[tuple[Any, ...], tuple[bytes, ...]], str] = {}

    def kept(items: Any) -> str:
        keys = tuple(items)  # the map's own iterator (dict(items) goes through Python's Mapping)
        values = tuple(map(items.__getitem__, keys))
        content = (keys, tuple(map(serialize, values)))
        text = texts.get(content)
        if text is None:
            text = write(dict(zip(keys, values, strict=True)))
            if len(texts) < _TEXTS_KEPT:
                texts[content] = text
        return text

    return kept


def _field_text(field: FieldDescriptor) -> tuple[_Write, str | None]:
    """How to write the field's value, and the text of its JSON default (no presence)."""
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        return _map_text(entry), "{}"
    if _repeated(field):
        element = _scalar_text(field)
        return (lambda items: "[" + ",".join(map(element, items)) + "]"), "[]"
    write = _scalar_text(field)
    if field.has_presence:
        return write, None
    return write, write(field.default_value)


def _message_text(message: Message) -> str:
    """A nested message's text, kept under its wire bytes: what repeats from response to
    response (cards, options, legal moves, seats, past hands' results) or inside one (a move's
    events are also the view's last events) is written once."""
    plan = _text_plan(message.DESCRIPTOR)
    key = message.SerializeToString(deterministic=True)
    if plan is None:
        return _known_text(message, key)
    texts = plan.texts
    text = texts.get(key)
    if text is None:
        text = _fields_text(plan, message)
        if len(texts) >= _TEXTS_KEPT:
            texts.clear()
        texts[key] = text
    return text


def _fields_text(plan: _Text, message: Message) -> str:
    by_field = plan.by_field
    parts = []
    missing = len(plan.defaults)
    listed = message.ListFields()
    for field, value in listed:
        entry = by_field.get(field)
        if entry is None:  # an extension: json_format knows how to name it
            return _ENCODER.encode(_reference(message))
        key, write, has_default = entry
        parts.append(key + write(value))
        missing -= has_default
    if missing:
        present = {field for field, _ in listed}
        parts += [text for field, text in plan.defaults if field not in present]
    return "{" + ",".join(parts) + "}"


_KNOWN_TEXTS: Final[dict[tuple[Any, bytes], str]] = {}
"""Texts of well-known types (a view's timestamps) by type and wire bytes; dropped when full."""


def _known_text(message: Message, key: bytes) -> str:
    """A well-known type's text (json_format's), kept under its wire bytes like the others."""
    kept = (message.DESCRIPTOR, key)
    text = _KNOWN_TEXTS.get(kept)
    if text is None:
        text = _ENCODER.encode(_reference(message))
        if len(_KNOWN_TEXTS) >= _TEXTS_KEPT:
            _KNOWN_TEXTS.clear()
        _KNOWN_TEXTS[kept] = text
    return text


class _Overlay:
    """A message's tail (wire bytes appended to it) as text, for one message type: per field
    the tail sets, the text ``"jsonName":value`` for when the message lacks the field, and for
    a singular message field the overlay of that message's own fields, for when it has it."""

    __slots__ = ("fields", "plan", "texts")

    def __init__(self, plan: _Text, tail: Message) -> None:
        self.plan = plan
        """How the message type the overlay lies on is written."""
        self.fields: dict[FieldDescriptor, tuple[str, _Overlay | None]] = {}
        for field, value in tail.ListFields():
            key, write, _ = plan.by_field[field]  # KeyError: an extension (see _overlay)
            sub = None
            entry = field.message_type
            if entry is not None and not _repeated(field):
                sub_plan = _text_plan(entry)
                sub = None if sub_plan is None else _Overlay(sub_plan, value)
            self.fields[field] = (key + write(value), sub)
        self.texts: dict[bytes, str] = {}
        """Merged texts of messages by their wire bytes (as _Text.texts)."""


_OVERLAYS: Final[dict[tuple[Any, bytes], _Overlay | None]] = {}
_OVERLAYS_KEPT: Final = 1024
"""Overlays by message type and tail: a tail per response type and distinct options, and per
game in play once a hand has ended (its hand results); the oldest dropped when full."""
_OVERLAY_TEXTS_KEPT: Final = 16
"""Merged texts kept per overlay (a view sent to several watchers is written once); all
dropped when full. Few, as an overlay may serve a single game."""


def _overlay(message_type: type[Message], tail: bytes) -> _Overlay | None:
    """The overlay of ``tail`` on ``message_type``; None where only a real merge will do."""
    key = (message_type, tail)
    try:
        return _OVERLAYS[key]
    except KeyError:
        pass
    plan = _text_plan(message_type.DESCRIPTOR)
    overlay = None
    if plan is not None:
        try:
            overlay = _Overlay(plan, message_type.FromString(tail))
        except KeyError:  # an extension
            overlay = None
    if len(_OVERLAYS) >= _OVERLAYS_KEPT:
        del _OVERLAYS[next(iter(_OVERLAYS))]  # the oldest: dicts keep insertion order
    _OVERLAYS[key] = overlay
    return overlay


def _merged_text(message: Message, overlay: _Overlay, keep: bool) -> str | None:
    """The text of ``message`` merged with the tail ``overlay`` stands for, as the text of the
    parsed ``message`` bytes + tail would be; None where the two set the same scalar, list or map
    field, or two members of one oneof (a real merge decides those). ``keep``: a nested
    message, kept under its wire bytes (the response itself is new each time)."""
    key = message.SerializeToString(deterministic=True) if keep else b""
    text = overlay.texts.get(key) if keep else None
    if text is not None:
        return text
    plan = overlay.plan
    by_field, extra = plan.by_field, overlay.fields
    numbered: list[tuple[int, str]] = []
    present = set()
    for field, value in message.ListFields():
        entry = by_field.get(field)
        if entry is None:
            return None
        name, write, _ = entry
        present.add(field)
        over = extra.get(field)
        if over is None:
            numbered.append((field.number, name + write(value)))
            continue
        sub = over[1]
        merged = None if sub is None else _merged_text(value, sub, True)
        if merged is None:
            return None
        numbered.append((field.number, name + merged))
    oneofs = {f.containing_oneof for f in present if f.containing_oneof is not None}
    for field, (alone, _) in extra.items():
        if field in present:
            continue
        if field.containing_oneof is not None and field.containing_oneof in oneofs:
            return None
        present.add(field)
        numbered.append((field.number, alone))
    numbered.sort()
    parts = [part for _, part in numbered]
    parts += [part for field, part in plan.defaults if field not in present]
    text = "{" + ",".join(parts) + "}"
    if keep:
        if len(overlay.texts) >= _OVERLAY_TEXTS_KEPT:
            overlay.texts.clear()
        overlay.texts[key] = text
    return text


def dumps(message: Message, tail: bytes = b"") -> bytes:
    """``message`` as compact proto3 JSON bytes: ``json.dumps(to_json_dict(message))`` (same
    members and values in the same order), written straight from the message without the
    dictionary in between, and each nested message already written before (same wire bytes:
    same text) taken from the texts kept (see _message_text).

    With ``tail``, the JSON of the message its wire bytes followed by ``tail`` parse to (a
    response whose view's options were left to a tail: ``GameCalls(options_tail=True)``), the
    tail's fields written from texts kept per tail instead of being parsed into the message.
    """
    plan = _text_plan(message.DESCRIPTOR)
    if plan is None:
        return _ENCODER.encode(_reference(message)).encode()
    if not tail:
        return _fields_text(plan, message).encode()
    overlay = _overlay(type(message), tail)
    text = None if overlay is None else _merged_text(message, overlay, False)
    if text is None:
        whole = type(message).FromString(message.SerializeToString() + tail)
        text = _fields_text(plan, whole)
    return text.encode()


class FastJsonCodec(Codec[Message, _V]):
    """connectrpc's JSON codec with :func:`dumps` for encoding (decoding as json_format does)."""

    def name(self) -> str:
        """The codec's name in Content-Type (``application/json``)."""
        return "json"

    def encode(self, message: Message) -> bytes:
        """Compact proto3 JSON."""
        return dumps(message)

    def decode(self, data: bytes | bytearray, message_class: type[_V]) -> _V:
        """Parse proto3 JSON as ``json_format.Parse`` does (unknown fields ignored, as Connect
        clients expect), through :func:`from_json_dict`."""
        try:
            parsed = DECODER.decode(bytes(data).decode())
        except RecursionError:  # json_format would give the interpreter's words
            raise json_format.ParseError(NESTED_TOO_DEEPLY) from None
        except (_Slow, ValueError):  # json_format words the error
            message = message_class()
            json_format.Parse(bytes(data), message, ignore_unknown_fields=True)
            return message
        return from_json_dict(parsed, message_class, ignore_unknown_fields=True)

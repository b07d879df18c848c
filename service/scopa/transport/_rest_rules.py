"""google.api.HttpRule semantics, generic over any service descriptor: routes and binding.

`routes_of(service)` reads each method's ``(google.api.http)`` option (and its
``additional_bindings``) into :class:`Route` objects; :meth:`Route.match` matches a path against the
rule's template and :func:`bind_request` builds the request message from the path variables, the
body and the query string as HttpRule specifies:

- path template segments are literals, ``*`` (one segment), ``**`` (the rest) and variables
  ``{field.path=pattern}`` (``{field}`` means ``{field=*}``), with an optional ``:verb``;
- ``body: "*"`` maps the whole JSON body onto the request (then no query parameters are allowed),
  ``body: "field"`` maps it onto that field, no body means none is accepted;
- every other non-message field may come from the query string (``?a.b=1&list=1&list=2``);
- the JSON is the proto3 JSON mapping (`google.protobuf.json_format`, through the fast path of
  `._rest_json.from_json_dict`); unknown fields and query parameters are refused with
  INVALID_ARGUMENT naming them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote

from google.api import annotations_pb2, http_pb2  # type: ignore[import-untyped]
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from scopa.app import InvalidArgument

from ._json_parse import NESTED_TOO_DEEPLY, from_json_dict

__all__ = ["PathTemplate", "Route", "bind_request", "is_repeated", "routes_of"]

_HTTP_METHODS: Final = ("get", "put", "post", "delete", "patch")
_VARIABLE: Final = re.compile(r"\{([a-zA-Z_][\w.]*)(?:=([^}]*))?\}")


def _segment_regex(segment: str) -> str:
    # ':' only ever starts the verb, so a wildcard never swallows it.
    if segment == "**":
        return r"(?:[^/:]+(?:/[^/:]+)*)"
    if segment == "*":
        return r"[^/:]+"
    return re.escape(segment)


@dataclass(frozen=True)
class PathTemplate:
    """A compiled HttpRule path template (e.g. ``/v1/{name=games/*}:playCard``)."""

    text: str
    regex: re.Pattern[str]
    variables: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> PathTemplate:
        """Compile a template; raise ValueError when it is not a valid HttpRule template."""
        if not text.startswith("/"):
            raise ValueError(f"path template must start with '/': {text!r}")
        path, verb = text, ""
        last = text.rsplit("/", 1)[-1]
        if ":" in last and "}" not in last.split(":", 1)[1]:
            path, _, verb = text.rpartition(":")
        pattern, pos = "", 0
        variables: list[str] = []
        for match in _VARIABLE.finditer(path):
            pattern += cls._literal_part(path[pos : match.start()])
            field, sub = match.group(1), match.group(2) or "*"
            inner = "/".join(_segment_regex(s) for s in sub.split("/"))
            pattern += f"(?P<v{len(variables)}>{inner})"
            variables.append(field)
            pos = match.end()
        pattern += cls._literal_part(path[pos:])
        if verb:
            pattern += re.escape(":" + verb)
        return cls(text, re.compile(pattern), tuple(variables))

    @staticmethod
    def _literal_part(part: str) -> str:
        return "/".join(_segment_regex(s) for s in part.split("/"))

    def match(self, path: str) -> dict[str, str] | None:
        """The variables' values if ``path`` matches the whole template, else None."""
        found = self.regex.fullmatch(path)
        if found is None:
            return None
        return {f: unquote(found.group(f"v{i}")) for i, f in enumerate(self.variables)}


@dataclass(frozen=True)
class Route:
    """One HTTP binding of one RPC method."""

    http_method: str
    template: PathTemplate
    method: MethodDescriptor
    body: str
    response_body: str

    def match(self, path: str) -> dict[str, str] | None:
        """The path variables when ``path`` fits this route's template, else None."""
        return self.template.match(path)

    @functools.cached_property
    def rpc_method(self) -> str:
        """The method's full gRPC name, ``/pkg.Service/Method``."""
        return f"/{self.method.containing_service.full_name}/{self.method.name}"


def _bindings(rule: http_pb2.HttpRule) -> Iterator[http_pb2.HttpRule]:
    yield rule
    for extra in rule.additional_bindings:
        yield from _bindings(extra)


def _route_of(method: MethodDescriptor, rule: http_pb2.HttpRule) -> Route:
    kind = rule.WhichOneof("pattern")
    if kind == "custom":
        verb, path = rule.custom.kind.upper(), rule.custom.path
    elif kind in _HTTP_METHODS:
        verb, path = kind.upper(), getattr(rule, kind)
    else:
        raise ValueError(f"{method.full_name}: HttpRule without a pattern")
    return Route(verb, PathTemplate.parse(path), method, rule.body, rule.response_body)


def routes_of(service: Any) -> list[Route]:
    """Every HTTP route the ``(google.api.http)`` options of ``service``'s methods declare."""
    routes = []
    for method in service.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        rule = options.Extensions[annotations_pb2.http]
        routes += [_route_of(method, binding) for binding in _bindings(rule)]
    return routes


def _resolve(descriptor: Descriptor, path: str) -> tuple[FieldDescriptor, str]:
    """The field a dotted path names (by proto or JSON names) and its proto-name path."""
    field: FieldDescriptor | None = None
    current: Descriptor | None = descriptor
    names = []
    for part in path.split("."):
        if current is None:
            raise InvalidArgument(f"{path} does not name a field", field=path)
        field = current.fields_by_name.get(part) or _by_json_name(current, part)
        if field is None:
            raise InvalidArgument(f"unknown field {path!r}", field=path)
        names.append(field.name)
        current = field.message_type
    assert field is not None
    return field, ".".join(names)


def _field_at(descriptor: Descriptor, path: str) -> FieldDescriptor:
    """The field a dotted path names (by proto or JSON name); InvalidArgument if none."""
    return _resolve(descriptor, path)[0]


def is_repeated(field: Any) -> bool:
    """True for a repeated (or map) field, on any protobuf release."""
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(getattr(field, "label", None) == FieldDescriptor.LABEL_REPEATED)


def _by_json_name(descriptor: Descriptor, name: str) -> FieldDescriptor | None:
    for field in descriptor.fields:
        if field.json_name == name:
            return field
    return None


def _nest(target: dict[str, Any], path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[leaf] = value


def _query_value(field: FieldDescriptor, value: str) -> Any:
    if field.type == FieldDescriptor.TYPE_BOOL:
        lowered = value.lower()
        if lowered not in ("true", "false"):
            raise InvalidArgument(f"{field.name} must be true or false", field=field.name)
        return lowered == "true"
    return value


def _query_dict(
    descriptor: Descriptor, query: Sequence[tuple[str, str]], taken: Iterable[str]
) -> dict[str, Any]:
    grouped: dict[str, list[str]] = {}
    for key, value in query:
        grouped.setdefault(key, []).append(value)
    taken_paths = set(taken)
    result: dict[str, Any] = {}
    for key, values in grouped.items():
        field, proto_path = _resolve(descriptor, key)
        if any(proto_path == t or proto_path.startswith(t + ".") for t in taken_paths):
            raise InvalidArgument(f"{key} is bound by the path or body", field=key)
        if field.message_type is not None and not field.message_type.GetOptions().map_entry:
            if field.message_type.full_name.startswith("google.protobuf."):
                pass  # well-known wrappers and Timestamp take their JSON string form
            else:
                raise InvalidArgument(f"{key} is a message; set its fields", field=key)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            raise InvalidArgument(f"{key} is a map and cannot be a query parameter", field=key)
        repeated = is_repeated(field)
        if not repeated and len(values) > 1:
            raise InvalidArgument(f"{key} is given more than once", field=key)
        converted = [_query_value(field, v) for v in values]
        _nest(result, key, converted if repeated else converted[0])
    return result


def _parse(data: Any, message: Message, descriptor: Descriptor, where: str) -> None:
    if type(data) is not dict:
        # json_format raises TypeError for a top-level null, number or bool, and takes a list
        # as an empty message: the proto3 JSON of a message is an object.
        raise InvalidArgument(f"{where}: a JSON object is expected", field=where)
    if not data:
        return  # nothing to set
    _check_names(data, descriptor, "", where)
    try:
        message.MergeFrom(from_json_dict(data, type(message)))
    except json_format.ParseError as exc:
        path, reason = _parse_error_path(str(exc))
        if not path:
            raise InvalidArgument(f"{where}: {reason}", field=where) from None
        path = _resolve(descriptor, path)[1]  # proto names, as every error's "field"
        raise InvalidArgument(f"{where}: {path}: {reason}", field=path) from None


_FAILED_FIELD: Final = re.compile(r"Failed to parse (\w+) field: ")


def _parse_error_path(text: str) -> tuple[str, str]:
    """json_format's nested "Failed to parse X field: " prefixes as a field path ("card.rank")
    and the words after them."""
    path: list[str] = []
    while match := _FAILED_FIELD.match(text):
        path.append(match.group(1))
        text = text[match.end() :]
    return ".".join(path), text.strip()


def _check_names(data: Any, descriptor: Descriptor, prefix: str, where: str) -> None:
    """Refuse a member that names no field, saying where (the field path, proto names, in the
    ErrorInfo metadata "field") and which names the message has, before json_format would."""
    if type(data) is not dict or descriptor.full_name.startswith("google.protobuf."):
        return
    for key, value in data.items():
        field = descriptor.fields_by_name.get(key) or _by_json_name(descriptor, key)
        if field is None:
            names = ", ".join(f.json_name for f in descriptor.fields) or "none"
            raise InvalidArgument(
                f"{where}: {prefix}{key} is not a field of {descriptor.name} (its fields: {names})",
                field=f"{prefix}{key}",
            )
        sub = field.message_type
        if sub is None or value is None:
            continue
        path = f"{prefix}{field.name}"
        if sub.GetOptions().map_entry:
            value_type = sub.fields_by_name["value"].message_type
            if value_type is not None and type(value) is dict:
                for k, v in value.items():
                    _check_names(v, value_type, f"{path}[{k}].", where)
        elif is_repeated(field):
            for i, item in enumerate(value if type(value) is list else ()):
                _check_names(item, sub, f"{path}[{i}].", where)
        else:
            _check_names(value, sub, f"{path}.", where)


def _json_body(body: bytes) -> Any:
    try:
        # json.loads(body, object_pairs_hook=...) exactly, without a new decoder per call.
        return _DECODER.decode(body.decode(json.detect_encoding(body), "surrogatepass"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidArgument(f"the body is not JSON: {exc}", field="body") from None
    except RecursionError:
        raise InvalidArgument(NESTED_TOO_DEEPLY, field="body") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members; a name given twice is refused (as json_format.Parse does), not
    silently taken as its last value."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InvalidArgument(f"the body gives {key!r} twice", field="body")
            seen.add(key)
    return result


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _check_path_fields(request: Message, path_values: Mapping[str, str]) -> None:
    for path, value in path_values.items():
        sub: Any = request
        for part in path.split("."):
            sub = getattr(sub, part)
        if sub not in ("", 0, None) and str(sub) != value:
            raise InvalidArgument(f"{path} in the body differs from the URL", field=path)


def bind_request(
    route: Route,
    path_values: Mapping[str, str],
    query: Sequence[tuple[str, str]],
    body: bytes,
) -> Message:
    """Build ``route``'s request message from the path variables, the query and the body."""
    descriptor = route.method.input_type
    request = message_factory.GetMessageClass(descriptor)()
    taken = list(path_values)
    if route.body == "*":
        if query:
            raise InvalidArgument(
                "this method takes its fields in the body, not the query", field=query[0][0]
            )
        if body.strip():
            _parse(_json_body(body), request, descriptor, "body")
        _check_path_fields(request, path_values)
    elif route.body:
        field = _field_at(descriptor, route.body)
        if body.strip():
            _parse({field.json_name: _json_body(body)}, request, descriptor, route.body)
        taken.append(route.body)
    elif body.strip():
        raise InvalidArgument("this method takes no body", field="body")
    if route.body != "*":
        _parse(_query_dict(descriptor, query, taken), request, descriptor, "query")
    bound: dict[str, Any] = {}
    for path, value in path_values.items():
        field = _field_at(descriptor, path)
        if field.containing_type is descriptor and _is_text(field):
            setattr(request, field.name, value)  # what parsing {path: value} sets, directly
        else:
            _nest(bound, path, value)
    _parse(bound, request, descriptor, "path")
    return request


def _is_text(field: FieldDescriptor) -> bool:
    """A singular string field (not one of a oneof, whose setting would clear the others)."""
    return (
        field.type == FieldDescriptor.TYPE_STRING
        and not is_repeated(field)
        and field.containing_oneof is None
    )

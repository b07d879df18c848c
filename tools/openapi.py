"""Build the OpenAPI 3.1 document of the REST surface from the proto's descriptors.

Used by tools/generate.py (`make generate`), which runs protoc for a descriptor set with source
info (for the descriptions) and writes the result to service/scopa/transport/openapi.json, the
document the server serves at /openapi.json. Generic over any service with `google.api.http`
annotations:

- a path variable ``{name=games/*}`` becomes the literal segments plus one path parameter per
  wildcard (``/v1/games/{game}``), because an OpenAPI path parameter cannot hold a ``/``;
- ``body: "*"`` is a JSON request body of the request's fields not bound by the path; the other
  non-message fields of a method without a body are query parameters (JSON names);
- schemas follow the proto3 JSON mapping (enums by name, 64-bit integers as strings, maps as
  objects), unknown properties are not allowed, OUTPUT_ONLY fields are read-only;
- every operation's `default` response is Google's JSON error shape, and server-streaming
  methods answer `text/event-stream`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from google.api import annotations_pb2, field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from openapi_errors import (
    COMMON_ERRORS,
    ERROR_CONTENT,
    ERROR_INFO_SCHEMA,
    ERROR_SCHEMA,
    RETRY_INFO_SCHEMA,
    documented_errors,
    error_responses,
)

__all__ = ["Conventions", "build_openapi", "documented_errors"]

_FDP = descriptor_pb2.FieldDescriptorProto
_INT32 = {_FDP.TYPE_INT32, _FDP.TYPE_SINT32, _FDP.TYPE_SFIXED32}
_UINT32 = {_FDP.TYPE_UINT32, _FDP.TYPE_FIXED32}
_INT64 = {
    _FDP.TYPE_INT64,
    _FDP.TYPE_SINT64,
    _FDP.TYPE_SFIXED64,
    _FDP.TYPE_UINT64,
    _FDP.TYPE_FIXED64,
}
_HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def _clean(comment: str) -> str:
    """A proto comment without the space each line has after ``//``."""
    lines = [line[1:] if line.startswith(" ") else line for line in comment.splitlines()]
    return "\n".join(lines).strip()


class _Index:
    """Messages, enums and comments of a descriptor set, by full name and path."""

    def __init__(self, files: descriptor_pb2.FileDescriptorSet) -> None:
        self.messages: dict[str, descriptor_pb2.DescriptorProto] = {}
        self.enums: dict[str, descriptor_pb2.EnumDescriptorProto] = {}
        self.comments: dict[str, str] = {}
        self.files = list(files.file)
        for file in self.files:
            comments = {
                tuple(loc.path): _clean(loc.leading_comments)
                for loc in file.source_code_info.location
                if loc.leading_comments.strip()
            }
            prefix = f".{file.package}" if file.package else ""
            for i, message in enumerate(file.message_type):
                self._message(f"{prefix}.{message.name}", message, (4, i), comments)
            for i, enum in enumerate(file.enum_type):
                self._enum(f"{prefix}.{enum.name}", enum, (5, i), comments)
            for si, service in enumerate(file.service):
                name = f"{prefix}.{service.name}"
                self.comments[name] = comments.get((6, si), "")
                for mi, method in enumerate(service.method):
                    self.comments[f"{name}.{method.name}"] = comments.get((6, si, 2, mi), "")

    def _message(
        self,
        name: str,
        message: descriptor_pb2.DescriptorProto,
        path: tuple[int, ...],
        comments: dict[tuple[int, ...], str],
    ) -> None:
        self.messages[name] = message
        self.comments[name] = comments.get(path, "")
        for i, field in enumerate(message.field):
            self.comments[f"{name}.{field.name}"] = comments.get((*path, 2, i), "")
        for i, nested in enumerate(message.nested_type):
            self._message(f"{name}.{nested.name}", nested, (*path, 3, i), comments)
        for i, enum in enumerate(message.enum_type):
            self._enum(f"{name}.{enum.name}", enum, (*path, 4, i), comments)

    def _enum(
        self,
        name: str,
        enum: descriptor_pb2.EnumDescriptorProto,
        path: tuple[int, ...],
        comments: dict[tuple[int, ...], str],
    ) -> None:
        self.enums[name] = enum
        self.comments[name] = comments.get(path, "")

    def service(self, full_name: str) -> descriptor_pb2.ServiceDescriptorProto:
        for file in self.files:
            for service in file.service:
                if f"{file.package}.{service.name}" == full_name:
                    return service
        raise KeyError(full_name)


def _reachable(index: _Index, roots: set[str]) -> set[str]:
    """The messages reachable from ``roots`` through message fields (map values included)."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in seen or name not in index.messages:
            continue
        seen.add(name)
        pending += [f.type_name for f in index.messages[name].field if f.type_name]
        pending += [f"{name}.{nested.name}" for nested in index.messages[name].nested_type]
    return seen


def _has_presence(field: descriptor_pb2.FieldDescriptorProto) -> bool:
    """True when proto3 JSON leaves the field out while it is unset: a proto3 ``optional``, a
    oneof member or a singular message field. Every other field is always printed."""
    if field.label == _FDP.LABEL_REPEATED:
        return False
    return (
        field.proto3_optional
        or field.HasField("oneof_index")
        or field.type in (_FDP.TYPE_MESSAGE, _FDP.TYPE_GROUP)
    )


def _oneof_groups(
    message: descriptor_pb2.DescriptorProto,
) -> list[tuple[str, list[descriptor_pb2.FieldDescriptorProto]]]:
    """The message's real oneofs (not proto3 ``optional``'s synthetic ones) and their members."""
    groups: dict[int, list[descriptor_pb2.FieldDescriptorProto]] = {}
    for field in message.field:
        if field.HasField("oneof_index") and not field.proto3_optional:
            groups.setdefault(field.oneof_index, []).append(field)
    return [(message.oneof_decl[i].name, members) for i, members in sorted(groups.items())]


def _ref(type_name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{type_name.lstrip('.')}"}


def _behaviors(field: descriptor_pb2.FieldDescriptorProto) -> set[int]:
    return set(field.options.Extensions[field_behavior_pb2.field_behavior])


class _Builder:
    def __init__(self, index: _Index, inputs: set[str]) -> None:
        self.index = index
        self.inputs = inputs
        """Messages a request may carry: only their REQUIRED fields are required."""
        self.schemas: dict[str, Any] = {}

    def required(self, owner: str, field: descriptor_pb2.FieldDescriptorProto) -> bool:
        """REQUIRED fields, and in a message only the server sends, every field it always
        prints (those without presence: docs/api.md, "The OpenAPI document")."""
        if field_behavior_pb2.REQUIRED in _behaviors(field):
            return True
        return owner not in self.inputs and not _has_presence(field)

    def scalar(self, field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
        kind = field.type
        if kind in _INT32:
            return {"type": "integer", "format": "int32"}
        if kind in _UINT32:
            return {"type": "integer", "format": "int32", "minimum": 0}
        if kind in _INT64:
            return {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
        if kind in (_FDP.TYPE_DOUBLE, _FDP.TYPE_FLOAT):
            return {"type": "number"}
        if kind == _FDP.TYPE_BOOL:
            return {"type": "boolean"}
        if kind == _FDP.TYPE_BYTES:
            return {"type": "string", "format": "byte"}
        if kind == _FDP.TYPE_ENUM:
            self.enum(field.type_name)
            return _ref(field.type_name)
        if field.type_name == ".google.protobuf.Timestamp":
            return {"type": "string", "format": "date-time"}  # proto3 JSON: RFC 3339
        if kind in (_FDP.TYPE_MESSAGE, _FDP.TYPE_GROUP):
            self.message(field.type_name)
            return _ref(field.type_name)
        return {"type": "string"}

    def field(self, owner: str, field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
        entry = self.index.messages.get(field.type_name) if field.type_name else None
        if entry is not None and entry.options.map_entry:
            value = self.scalar(entry.field[1])
            schema: dict[str, Any] = {"type": "object", "additionalProperties": value}
        elif field.label == _FDP.LABEL_REPEATED:
            schema = {"type": "array", "items": self.scalar(field)}
        else:
            schema = self.scalar(field)
        description = self.index.comments.get(f"{owner}.{field.name}")
        if "$ref" in schema:
            schema = {"allOf": [schema]}
        if description:
            schema["description"] = description
        behaviors = _behaviors(field)
        if field_behavior_pb2.OUTPUT_ONLY in behaviors:
            schema["readOnly"] = True
        if field.type == _FDP.TYPE_ENUM and field_behavior_pb2.REQUIRED in behaviors:
            zero = self.index.enums[field.type_name].value[0].name
            note = f"`{zero}` is not a value here: a request that sends it is refused."
            schema["description"] = f"{description}\n\n{note}" if description else note
            schema["not"] = {"const": zero}
        return schema

    def enum(self, type_name: str) -> None:
        name = type_name.lstrip(".")
        if name in self.schemas:
            return
        enum = self.index.enums[type_name]
        self.schemas[name] = {
            "type": "string",
            "enum": [v.name for v in enum.value],
            "description": self.index.comments.get(type_name, ""),
        }

    def message(self, type_name: str, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        """The schema of a message (a $ref to its component; inline without ``skip``'s fields).

        A message with a oneof is a ``oneOf`` of one object per member: the message's other
        fields plus that member, required (so a generated client's type narrows by member).
        """
        name = type_name.lstrip(".")
        if name in self.schemas and not skip:
            return _ref(type_name)
        message = self.index.messages[type_name]
        schema: dict[str, Any] = {}
        if not skip:
            self.schemas[name] = schema
        groups = _oneof_groups(message)
        in_oneof = {f.name for _, members in groups for f in members}
        base = [f for f in message.field if f.name not in skip and f.name not in in_oneof]
        description = self.index.comments.get(type_name)
        if not groups:
            schema.update(self._object(type_name, base))
        else:
            branches = []
            for chosen in itertools.product(*(members for _, members in groups)):
                branch = self._object(type_name, base, chosen)
                if skip:
                    branches.append(branch)
                    continue
                suffix = ".".join(
                    f"{group}.{member.json_name}"
                    for (group, _), member in zip(groups, chosen, strict=True)
                )
                self.schemas[f"{name}.{suffix}"] = branch
                branches.append({"$ref": f"#/components/schemas/{name}.{suffix}"})
            schema["oneOf"] = branches
        if description:
            schema["description"] = description
        return _ref(type_name) if not skip else schema

    def _object(
        self,
        type_name: str,
        fields: list[descriptor_pb2.FieldDescriptorProto],
        members: tuple[descriptor_pb2.FieldDescriptorProto, ...] = (),
    ) -> dict[str, Any]:
        """An object schema of ``fields`` plus the chosen oneof ``members`` (required)."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        chosen = {f.name for f in fields} | {m.name for m in members}
        oneof = {m.name for m in members}
        for field in self.index.messages[type_name].field:
            if field.name not in chosen:
                continue
            properties[field.json_name] = self.field(type_name, field)
            if field.name in oneof or self.required(type_name, field):
                required.append(field.json_name)
        schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
        schema["properties"] = properties
        if required:
            schema["required"] = required
        return schema


def _openapi_path(template: str) -> tuple[str, list[tuple[str, str]]]:
    """``/v1/{name=games/*}:play`` -> (``/v1/games/{game}:play``, [("game", "name")])."""
    params: list[tuple[str, str]] = []
    out, i = "", 0
    while i < len(template):
        if template[i] != "{":
            out += template[i]
            i += 1
            continue
        end = template.index("}", i)
        field, _, pattern = template[i + 1 : end].partition("=")
        segments = (pattern or "*").split("/")
        for j, segment in enumerate(segments):
            if segment in ("*", "**"):
                previous = segments[j - 1] if j else field.split(".")[-1]
                param = previous[:-1] if previous.endswith("s") and j else previous
                params.append((param, field))
                segments[j] = "{" + param + "}"
        out += "/".join(segments)
        i = end + 1
    return out, params


def _rules(method: descriptor_pb2.MethodDescriptorProto) -> Iterator[Any]:
    if not method.options.HasExtension(annotations_pb2.http):
        return
    pending = [method.options.Extensions[annotations_pb2.http]]
    while pending:
        rule = pending.pop(0)
        yield rule
        pending += list(rule.additional_bindings)


def _query_parameters(builder: _Builder, input_type: str, bound: set[str]) -> list[dict[str, Any]]:
    params = []
    for field in builder.index.messages[input_type].field:
        if field.name in bound or field.type in (_FDP.TYPE_MESSAGE, _FDP.TYPE_GROUP):
            continue
        schema = builder.field(input_type, field)
        description = schema.pop("description", "")
        if list(schema) == ["allOf"] and len(schema["allOf"]) == 1:
            # The wrapper carried the description beside a $ref; a parameter has its own.
            schema = schema["allOf"][0]
        params.append(
            {
                "name": field.json_name,
                "in": "query",
                "required": False,
                "description": description,
                "schema": schema,
            }
        )
    return params


@dataclass(frozen=True)
class Conventions:
    """What the document needs to know of the server beyond the descriptors.

    ``http_status`` maps a google.rpc code name and an ErrorInfo reason to the REST status (the
    server's one error table); ``token_option`` is the full name of the method option that says
    how a method uses the bearer token (an enum whose value names end in ``_NONE``,
    ``_OPTIONAL`` or ``_REQUIRED``; unset: optional); ``id_pattern`` is the rule of the ids a
    path parameter holds.
    """

    http_status: Callable[[str, str], int]
    token_option: str = ""
    id_pattern: str = "^[^/:]+$"
    license: str = ""
    servers: tuple[str, ...] = ("/",)


def _common_errors(index: _Index, service_name: str) -> list[tuple[str, str]]:
    paragraphs = index.comments.get(f".{service_name}", "").split("\n\n")
    return [e for p in paragraphs if COMMON_ERRORS in p for e in documented_errors(p)]


class _Tokens:
    """The token option of each method, read through a pool that knows the extension."""

    def __init__(self, files: descriptor_pb2.FileDescriptorSet, option: str) -> None:
        self.extension: Any = None
        if not option:
            return
        pool = descriptor_pool.DescriptorPool()
        for file in files.file:
            pool.Add(file)
        self.extension = pool.FindExtensionByName(option)
        self.options = message_factory.GetMessageClass(
            pool.FindMessageTypeByName("google.protobuf.MethodOptions")
        )

    def security(self, method: descriptor_pb2.MethodDescriptorProto) -> list[dict[str, Any]] | None:
        use = "OPTIONAL"
        if self.extension is not None:
            options = self.options.FromString(method.options.SerializeToString())
            number = options.Extensions[self.extension]
            use = self.extension.enum_type.values_by_number[number].name.rsplit("_", 1)[-1]
        if use == "NONE":
            return []
        if use == "REQUIRED":
            return [{"bearer": []}]
        return None  # the document's own: OPTIONAL_TOKEN


OPTIONAL_TOKEN: list[dict[str, Any]] = [{}, {"bearer": []}]
"""The document's security: a token or none. An operation that takes a token optionally leaves
its own out and so inherits this (a generator such as openapi-python-client then accepts a
client without credentials); one that takes none says ``[]``, one that needs one says so."""


@dataclass(frozen=True)
class _Route:
    """One HTTP binding of a method."""

    method: descriptor_pb2.MethodDescriptorProto
    rule: Any
    verb: str
    path_params: list[tuple[str, str]]
    security: list[dict[str, Any]] | None
    errors: list[tuple[str, str]]


def _path_parameters(route: _Route, conv: Conventions) -> list[dict[str, Any]]:
    template = getattr(route.rule, route.verb)
    parameters = []
    for param, field in route.path_params:
        variable = re.search(r"\{" + re.escape(field) + r"=([^}]*)\}", template)
        pattern = variable.group(1) if variable else "*"
        shape = pattern.replace("*", "{" + param + "}")
        parameters.append(
            {
                "name": param,
                "in": "path",
                "required": True,
                "description": f"The `{param}` of the resource name in `{field}` (`{shape}`): "
                f"the id alone, without the rest of the name (a `{field}` of a response "
                f"holds `{shape}`).",
                "schema": {"type": "string", "pattern": conv.id_pattern},
            }
        )
    return parameters


def _header(name: str, description: str, pattern: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": schema,
    }


def _operation(
    builder: _Builder, service_name: str, route: _Route, conv: Conventions
) -> dict[str, Any]:
    method, rule, verb = route.method, route.rule, route.verb
    comment = builder.index.comments.get(f".{service_name}.{method.name}", "")
    bound = {field.split(".")[0] for _, field in route.path_params}
    parameters = _path_parameters(route, conv)
    operation: dict[str, Any] = {
        "operationId": method.name,
        "summary": comment.split("\n\n")[0].replace("\n", " "),
        "description": comment,
        "tags": [service_name.rsplit(".", 1)[-1]],
    }
    if route.security is not None:
        operation["security"] = route.security
    if rule.body == "*":
        body = builder.message(method.input_type, skip=frozenset(bound))
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}},
        }
    elif not rule.body:
        parameters += _query_parameters(builder, method.input_type, bound)
    if method.server_streaming:
        parameters.append(
            _header("Last-Event-ID", "Resume after this version (sets from_version).", "^[0-9]+$")
        )
        item = method.output_type.lstrip(".")
        ok = {
            "description": "Server-Sent Events: one event per message, `id:` its version and "
            f"`data:` a {item} in JSON (the `contentSchema`); a later error is an "
            "`event: error` whose data is the Error JSON.",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "string",
                        "contentMediaType": "text/event-stream",
                        "contentSchema": builder.message(method.output_type),
                    }
                }
            },
        }
    else:
        ok = {
            "description": "OK",
            "content": {"application/json": {"schema": builder.message(method.output_type)}},
        }
    errors = list(route.errors)
    etag_in = _has_field(builder.index, method.input_type, "etag")
    etag_out = not method.server_streaming and _etag_nested(builder.index, method.output_type)
    responses: dict[str, Any] = {"200": ok}
    if etag_in or (verb == "get" and etag_out):
        parameters.append(
            _header("If-Match", "Act only if the game's current etag is this one (else 412).")
        )
        errors.append(("ABORTED", "STALE_ETAG"))
    if etag_out:
        ok["headers"] = {
            "ETag": {"description": "The game's etag, quoted.", "schema": {"type": "string"}}
        }
    if verb == "get" and etag_out:
        parameters.append(
            _header("If-None-Match", "Answer 304, with no body, if the etag is still this one.")
        )
        responses["304"] = {
            "description": "Not Modified: the game's etag is the If-None-Match one; no body.",
            "headers": ok["headers"],
        }
    if parameters:
        operation["parameters"] = parameters
    responses.update(error_responses(errors, conv.http_status))
    responses["default"] = {
        "description": "Any other error, in Google's JSON error shape.",
        "content": ERROR_CONTENT,
    }
    operation["responses"] = responses
    return operation


def _has_field(index: _Index, type_name: str, name: str) -> bool:
    return any(f.name == name for f in index.messages[type_name].field)


def _etag_nested(index: _Index, type_name: str) -> bool:
    """True when the message or one of its singular message fields has an ``etag``."""
    if _has_field(index, type_name, "etag"):
        return True
    return any(
        f.type == _FDP.TYPE_MESSAGE
        and f.label != _FDP.LABEL_REPEATED
        and _has_field(index, f.type_name, "etag")
        for f in index.messages[type_name].field
    )


def _probe(operation_id: str, summary: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": ["status"],
        "additionalProperties": False,
        "properties": {"status": {"type": "string", "enum": ["SERVING", "NOT_SERVING"]}},
    }
    body = {"content": {"application/json": {"schema": schema}}}
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": f"{summary} Open to every caller: no token.",
            "tags": ["probes"],
            "security": [],
            "responses": {
                "200": {"description": "SERVING", **body},
                "503": {"description": "NOT_SERVING", **body},
            },
        }
    }


def build_openapi(
    files: descriptor_pb2.FileDescriptorSet,
    service_name: str,
    version: str,
    conventions: Conventions,
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``service_name``'s HTTP annotations."""
    index = _Index(files)
    service = index.service(service_name)
    methods = list(service.method)
    inputs = _reachable(index, {m.input_type for m in methods})
    builder = _Builder(index, inputs)
    tokens = _Tokens(files, conventions.token_option)
    common = _common_errors(index, service_name)
    paths: dict[str, dict[str, Any]] = {}
    for method in methods:
        own = documented_errors(index.comments.get(f".{service_name}.{method.name}", ""))
        for rule in _rules(method):
            verb = rule.WhichOneof("pattern")
            if verb not in _HTTP_METHODS:
                continue
            path, params = _openapi_path(getattr(rule, verb))
            route = _Route(method, rule, verb, params, tokens.security(method), common + own)
            paths.setdefault(path, {})[verb] = _operation(builder, service_name, route, conventions)
    paths["/healthz"] = _probe("Healthz", 'Liveness, as the gRPC health service\'s "".')
    paths["/readyz"] = _probe("Readyz", "Readiness, as the gRPC health service's readiness.")
    schemas = dict(sorted(builder.schemas.items()))
    schemas["ErrorResponse"] = ERROR_SCHEMA
    schemas["google.rpc.ErrorInfo"] = ERROR_INFO_SCHEMA
    schemas["google.rpc.RetryInfo"] = RETRY_INFO_SCHEMA
    info: dict[str, Any] = {
        "title": service_name,
        "version": version,
        "description": index.comments.get(f".{service_name}", ""),
    }
    if conventions.license:
        info["license"] = {"name": conventions.license, "identifier": conventions.license}
    return {
        "openapi": "3.1.0",
        "info": info,
        "security": OPTIONAL_TOKEN,
        "servers": [
            {"url": url, "description": "The server that serves this document."}
            for url in conventions.servers
        ],
        "tags": [
            {
                "name": service_name.rsplit(".", 1)[-1],
                "description": f"The methods of {service_name}, over REST.",
            },
            {"name": "probes", "description": "Liveness and readiness for load balancers."},
        ],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "One of: a seat token from CreateGame or JoinGame, acting for its seat;"
                        " a signed-in player's OpenID Connect access token (a JWT), where the"
                        " server sets SCOPA_OIDC_ISSUER, acting for that player's seats"
                        " (docs/operations.md, Identity); an invite-only game's spectator token"
                        " (CreateGameResponse.spectatorToken), reading that game as a spectator"
                        " with no seat."
                    ),
                }
            },
        },
    }

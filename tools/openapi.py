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

from collections.abc import Iterator
from typing import Any

from google.api import annotations_pb2, field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2

__all__ = ["build_openapi"]

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

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Google's JSON error shape (AIP-193).",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "status", "details"],
            "additionalProperties": False,
            "properties": {
                "code": {"type": "integer", "description": "The HTTP status code."},
                "message": {"type": "string"},
                "status": {"type": "string", "description": "The google.rpc.Code name."},
                "details": {
                    "type": "array",
                    "description": "An ErrorInfo first; a RetryInfo may follow.",
                    "items": {
                        "oneOf": [
                            {"$ref": "#/components/schemas/google.rpc.ErrorInfo"},
                            {"$ref": "#/components/schemas/google.rpc.RetryInfo"},
                        ]
                    },
                },
            },
        }
    },
}

ERROR_INFO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["@type", "reason", "domain", "metadata"],
    "additionalProperties": False,
    "properties": {
        "@type": {"type": "string", "const": "type.googleapis.com/google.rpc.ErrorInfo"},
        "reason": {"type": "string", "description": "UPPER_SNAKE reason (see the proto)."},
        "domain": {"type": "string"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _clean(comment: str) -> str:
    """A proto comment without the space each line has after ``//``."""
    lines = [line[1:] if line.startswith(" ") else line for line in comment.splitlines()]
    return "\n".join(lines).strip()


RETRY_INFO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["@type", "retryDelay"],
    "additionalProperties": False,
    "properties": {
        "@type": {"type": "string", "const": "type.googleapis.com/google.rpc.RetryInfo"},
        "retryDelay": {"type": "string", "description": 'When to retry, e.g. "12.5s".'},
    },
}


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


def _ref(type_name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{type_name.lstrip('.')}"}


def _behaviors(field: descriptor_pb2.FieldDescriptorProto) -> set[int]:
    return set(field.options.Extensions[field_behavior_pb2.field_behavior])


class _Builder:
    def __init__(self, index: _Index) -> None:
        self.index = index
        self.schemas: dict[str, Any] = {}

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
        if field_behavior_pb2.OUTPUT_ONLY in _behaviors(field):
            schema["readOnly"] = True
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
        name = type_name.lstrip(".")
        if name in self.schemas and not skip:
            return _ref(type_name)
        message = self.index.messages[type_name]
        schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
        if not skip:
            self.schemas[name] = schema
        properties, required = {}, []
        for field in message.field:
            if field.name in skip:
                continue
            properties[field.json_name] = self.field(type_name, field)
            if field_behavior_pb2.REQUIRED in _behaviors(field):
                required.append(field.json_name)
        schema["properties"] = properties
        if required:
            schema["required"] = required
        description = self.index.comments.get(type_name)
        if description:
            schema["description"] = description
        return _ref(type_name) if not skip else schema


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


def _operation(
    builder: _Builder,
    service_name: str,
    method: descriptor_pb2.MethodDescriptorProto,
    rule: Any,
    verb: str,
    path_params: list[tuple[str, str]],
) -> dict[str, Any]:
    comment = builder.index.comments.get(f".{service_name}.{method.name}", "")
    bound = {field.split(".")[0] for _, field in path_params}
    parameters: list[dict[str, Any]] = [
        {
            "name": param,
            "in": "path",
            "required": True,
            "description": f"Part of the resource name in `{field}`.",
            "schema": {"type": "string", "pattern": "^[^/:]+$"},
        }
        for param, field in path_params
    ]
    operation: dict[str, Any] = {
        "operationId": method.name,
        "summary": comment.split("\n\n")[0].replace("\n", " "),
        "description": comment,
        "tags": [service_name],
        "security": [{}, {"bearer": []}],
    }
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
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "description": "Resume after this version (sets from_version).",
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }
        )
        builder.message(method.output_type)
        ok = {
            "description": "Server-Sent Events: one event per message, `id:` its version and "
            f"`data:` a {method.output_type.lstrip('.')} in JSON.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }
    else:
        ok = {
            "description": "OK",
            "content": {"application/json": {"schema": builder.message(method.output_type)}},
        }
    etag_in = _has_field(builder.index, method.input_type, "etag")
    etag_out = not method.server_streaming and _etag_nested(builder.index, method.output_type)
    if etag_in or (verb == "get" and etag_out):
        parameters.append(
            {
                "name": "If-Match",
                "in": "header",
                "required": False,
                "description": "Act only if the game's current etag is this one (else 412).",
                "schema": {"type": "string"},
            }
        )
    if etag_out:
        ok["headers"] = {
            "ETag": {"description": "The game's etag, quoted.", "schema": {"type": "string"}}
        }
    if parameters:
        operation["parameters"] = parameters
    operation["responses"] = {
        "200": ok,
        "default": {
            "description": "An error in Google's JSON error shape.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        },
    }
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
            "tags": ["probes"],
            "responses": {
                "200": {"description": "SERVING", **body},
                "503": {"description": "NOT_SERVING", **body},
            },
        }
    }


def build_openapi(
    files: descriptor_pb2.FileDescriptorSet, service_name: str, version: str
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``service_name``'s HTTP annotations."""
    index = _Index(files)
    builder = _Builder(index)
    service = index.service(service_name)
    paths: dict[str, dict[str, Any]] = {}
    for method in service.method:
        for rule in _rules(method):
            verb = rule.WhichOneof("pattern")
            if verb not in _HTTP_METHODS:
                continue
            path, params = _openapi_path(getattr(rule, verb))
            paths.setdefault(path, {})[verb] = _operation(
                builder, service_name, method, rule, verb, params
            )
    paths["/healthz"] = _probe("Healthz", 'Liveness, as the gRPC health service\'s "".')
    paths["/readyz"] = _probe("Readyz", "Readiness, as the gRPC health service's readiness.")
    schemas = dict(sorted(builder.schemas.items()))
    schemas["Error"] = ERROR_SCHEMA
    schemas["google.rpc.ErrorInfo"] = ERROR_INFO_SCHEMA
    schemas["google.rpc.RetryInfo"] = RETRY_INFO_SCHEMA
    return {
        "openapi": "3.1.0",
        "info": {
            "title": service_name,
            "version": version,
            "description": index.comments.get(f".{service_name}", ""),
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A seat token from CreateGame or JoinGame.",
                }
            },
        },
    }

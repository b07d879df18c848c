"""Errors in the OpenAPI document (tools/openapi.py): Google's JSON error shape and its details,
and the responses of the errors a method's proto comment documents (``- CODE / REASON:`` lines)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "COMMON_ERRORS",
    "ERROR_CONTENT",
    "ERROR_INFO_SCHEMA",
    "ERROR_SCHEMA",
    "RETRY_INFO_SCHEMA",
    "documented_errors",
    "error_responses",
]

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


RETRY_INFO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["@type", "retryDelay"],
    "additionalProperties": False,
    "properties": {
        "@type": {"type": "string", "const": "type.googleapis.com/google.rpc.RetryInfo"},
        "retryDelay": {"type": "string", "description": 'When to retry, e.g. "12.5s".'},
    },
}


ERROR_LINE = re.compile(r"^- ([A-Z_]+) / ([A-Z_]+):", re.MULTILINE)
COMMON_ERRORS = "common to all methods"
"""The service comment's paragraph of errors every method may answer holds these words."""


def documented_errors(comment: str) -> list[tuple[str, str]]:
    """The ``- CODE / REASON:`` lines of a proto comment, as (code, reason) pairs."""
    return [(m.group(1), m.group(2)) for m in ERROR_LINE.finditer(comment)]


ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying (the RetryInfo's delay, rounded up).",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def error_responses(
    errors: list[tuple[str, str]], http_status: Callable[[str, str], int]
) -> dict[str, Any]:
    """One response per HTTP status the errors map to, naming their code / reason pairs."""
    by_status: dict[int, list[str]] = {}
    for code, reason in errors:
        named = by_status.setdefault(http_status(code, reason), [])
        if f"{code} / {reason}" not in named:
            named.append(f"{code} / {reason}")
    responses: dict[str, Any] = {}
    for status in sorted(by_status):
        response: dict[str, Any] = {
            "description": "Google's JSON error shape; code / reason: "
            + ", ".join(by_status[status])
            + ".",
            "content": ERROR_CONTENT,
        }
        if status == 429:
            response["headers"] = RETRY_AFTER
        responses[str(status)] = response
    return responses

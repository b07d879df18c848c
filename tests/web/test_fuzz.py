"""The REST surface fuzzed by schemathesis from the server's own /openapi.json (bounded).

Every generated request must get no 5xx, a status and body the document describes, and every
4xx must be Google's JSON error shape with an ErrorInfo reason.
"""

from __future__ import annotations

from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from openapi_spec_validator import validate
from schemathesis.core.transport import Response
from support.server_process import ServerProcess

from web.helpers import check_error

MAX_EXAMPLES = 25
"""Generated requests per operation (about a minute for the whole surface on a loaded machine)."""


def test_served_document_is_valid_openapi(client: httpx.Client) -> None:
    """/openapi.json is an OpenAPI 3.1 document that openapi-spec-validator accepts."""
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    validate(document)


def _check(case: schemathesis.Case[Any]) -> None:
    response = case.call(timeout=30)
    assert response.status_code < 500, (case.method, case.formatted_path, response.text)
    case.validate_response(response, excluded_checks=[schemathesis.checks.positive_data_acceptance])
    if 400 <= response.status_code < 500:
        error = response.json()["error"]
        check_error(
            _Adapter(response),  # type: ignore[arg-type]
            error["code"],
            error["details"][0]["reason"],
        )


def test_rest_surface_never_fails_the_server(http_server: ServerProcess) -> None:
    """Generated requests to every operation get no 5xx, documented answers, 4xx as errors."""
    schema = schemathesis.openapi.from_url(f"{http_server.http_url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 9
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case: schemathesis.Case[Any]) -> None:
            _check(case)

        fuzz()


class _Adapter:
    """A schemathesis response seen through the httpx-style attributes check_error reads."""

    def __init__(self, response: Response) -> None:
        self._response = response
        self.status_code = response.status_code
        self.headers = {k: v[0] for k, v in response.headers.items()}
        self.text = response.text

    def json(self) -> object:
        return self._response.json()

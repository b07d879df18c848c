"""The HTTP side of a delivery: one POST with httpx; a 2xx answer is a delivery."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import httpx

__all__ = ["HttpSender", "Sender"]


class Sender(Protocol):
    """Posts one body; returns the HTTP status (0: no answer: refused, timed out, reset)."""

    async def post(self, url: str, body: str, headers: Mapping[str, str]) -> int: ...

    async def close(self) -> None: ...


class HttpSender:
    """An httpx client shared by every delivery of the replica; no redirects are followed
    (a redirect is a failed attempt: the receiver's URL is configured, not discovered)."""

    def __init__(self, timeout_s: float) -> None:
        self._client = httpx.AsyncClient(
            timeout=timeout_s,
            follow_redirects=False,
            headers={"user-agent": "scopa-webhooks"},
        )

    async def post(self, url: str, body: str, headers: Mapping[str, str]) -> int:
        try:
            response = await self._client.post(
                url, content=body.encode(), headers={**headers, "content-type": "application/json"}
            )
        except httpx.HTTPError:
            return 0
        return response.status_code

    async def close(self) -> None:
        await self._client.aclose()

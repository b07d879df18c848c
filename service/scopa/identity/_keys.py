"""The provider's keys: discovery and JWKS fetched, cached, and refreshed on rotation.

:class:`JwksKeys` reads ``<issuer>/.well-known/openid-configuration`` once for its
``jwks_uri`` (the document must name the same issuer), then the JWKS. Keys are kept for
``max_age_s`` and refreshed after; a token whose ``kid`` no kept key has (the provider rotated
its keys) refreshes them at once, but at most once per ``min_refresh_s``, so tokens with made-up
key ids cannot make the service hammer the provider. When a refresh fails the kept keys go on
being used; with none kept, every identity token fails closed (:class:`KeysUnavailable`),
and the next refresh is tried after ``min_refresh_s``.

Fetching is a blocking ``urllib`` GET in a worker thread (a few per hour per replica).
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Final

import jwt
import structlog

from ._verify import KeysUnavailable, Subject, TokenRejected, unverified_kid, verify_token

__all__ = ["Identity", "JwksKeys"]

_log = structlog.get_logger("scopa.identity")

_MAX_DOCUMENT: Final = 1 << 20
"""The largest discovery document or JWKS read (bytes)."""

Fetch = Callable[[str], Awaitable[bytes]]
"""GET a URL's body (raises OSError or ValueError when it cannot)."""


def _get(url: str, timeout_s: float) -> bytes:
    if not url.startswith(("https://", "http://")):
        raise ValueError("only http(s) URLs are fetched")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        body: bytes = response.read(_MAX_DOCUMENT + 1)
    if len(body) > _MAX_DOCUMENT:
        raise ValueError("the document is too large")
    return body


def http_fetch(timeout_s: float) -> Fetch:
    """A :data:`Fetch` that GETs with ``urllib`` in a worker thread."""

    async def fetch(url: str) -> bytes:
        return await asyncio.to_thread(_get, url, timeout_s)

    return fetch


class JwksKeys:
    """The issuer's signing keys by key id, fetched on first use and kept."""

    def __init__(
        self,
        issuer: str,
        *,
        fetch: Fetch | None = None,
        max_age_s: float = 600.0,
        min_refresh_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._issuer = issuer.rstrip("/")
        self._fetch = fetch or http_fetch(5.0)
        self._max_age_s = max_age_s
        self._min_refresh_s = min_refresh_s
        self._clock = clock
        self._jwks_uri: str | None = None
        self._keys: dict[str | None, jwt.PyJWK] | None = None
        self._fetched_at = -float("inf")
        """When keys were last fetched (monotonic)."""
        self._tried_at = -float("inf")
        """When a refresh was last tried, whatever its outcome."""
        self._lock = asyncio.Lock()

    async def key(self, kid: str | None) -> jwt.PyJWK:
        """The key of ``kid`` (None: the only key); TokenRejected when the issuer has none,
        KeysUnavailable when no keys can be had."""
        now = self._clock()
        if self._keys is None or now - self._fetched_at >= self._max_age_s:
            await self._refresh(now)
        elif kid not in self._keys:
            await self._refresh(now)  # rotated keys: fetched again, rate-limited
        if self._keys is None:
            raise KeysUnavailable("the identity provider's keys cannot be fetched; retry later")
        key = self._keys.get(kid)
        if key is None and kid is None and len(self._keys) == 1:
            key = next(iter(self._keys.values()))
        if key is None:
            if self._tried_at > self._fetched_at:
                # The last refresh failed: the key may be genuine, and unknown only for that.
                raise KeysUnavailable("the identity provider's keys cannot be fetched; retry later")
            raise TokenRejected("the identity token is signed by a key the issuer does not publish")
        return key

    async def _refresh(self, now: float) -> None:
        async with self._lock:
            if self._tried_at >= now or self._clock() - self._tried_at < self._min_refresh_s:
                return  # refreshed (or tried) just now, by this or another request
            self._tried_at = self._clock()
            try:
                self._keys = await self._load()
                self._fetched_at = self._clock()
            except (OSError, ValueError, KeyError, TypeError, jwt.PyJWTError) as exc:
                _log.warning(
                    "identity_keys_unavailable",
                    error=type(exc).__name__,
                    cached=self._keys is not None,
                )

    async def _load(self) -> dict[str | None, jwt.PyJWK]:
        if self._jwks_uri is None:
            url = f"{self._issuer}/.well-known/openid-configuration"
            discovery = json.loads(await self._fetch(url))
            if str(discovery["issuer"]).rstrip("/") != self._issuer:
                raise ValueError("the discovery document names another issuer")
            jwks_uri = discovery["jwks_uri"]
            if not isinstance(jwks_uri, str):
                raise TypeError("jwks_uri is not a string")
            self._jwks_uri = jwks_uri
        keyset = jwt.PyJWKSet.from_json((await self._fetch(self._jwks_uri)).decode())
        keys: dict[str | None, jwt.PyJWK] = {}
        for key in keyset.keys:
            if key.public_key_use in (None, "sig"):
                keys[key.key_id] = key
        _log.info("identity_keys_fetched", keys=len(keys))
        return keys


class Identity:
    """Verifies identity tokens of one issuer and audience against the issuer's keys."""

    def __init__(self, issuer: str, audience: str, keys: JwksKeys, leeway_s: float = 30.0) -> None:
        self.issuer = issuer
        self._audience = audience
        self._keys = keys
        self._leeway_s = leeway_s

    async def verify(self, token: str) -> Subject:
        """The subject of ``token``; TokenRejected or KeysUnavailable."""
        key = await self._keys.key(unverified_kid(token))
        return verify_token(token, key, self.issuer, self._audience, self._leeway_s)

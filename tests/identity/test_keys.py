"""Tests of scopa.identity._keys: the JWKS cache's refreshes, rate limit and failures.

The documents come from an in-process fetch with a settable clock, so each refresh is
counted; the same cache against the real provider is tests/identity/test_signed_in.py's.
"""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from scopa.identity import JwksKeys, KeysUnavailable, TokenRejected

ISSUER = "https://idp.example"
JWKS_URI = "https://idp.example/jwks"


def _jwk(kid: str) -> dict[str, Any]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk: dict[str, Any] = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


class Provider:
    """Discovery and JWKS documents, a switch to make fetches fail, and a count of fetches."""

    def __init__(self, *kids: str) -> None:
        self.keys = [_jwk(k) for k in kids]
        self.up = True
        self.fetches: list[str] = []
        self.issuer = ISSUER
        self.now = 1000.0

    async def fetch(self, url: str) -> bytes:
        self.fetches.append(url)
        if not self.up:
            raise OSError("connection refused")
        if url.endswith("/.well-known/openid-configuration"):
            return json.dumps({"issuer": self.issuer, "jwks_uri": JWKS_URI}).encode()
        assert url == JWKS_URI
        return json.dumps({"keys": self.keys}).encode()

    def cache(self) -> JwksKeys:
        return JwksKeys(ISSUER, fetch=self.fetch, min_refresh_s=10, clock=lambda: self.now)


async def test_keys_are_fetched_once_and_kept() -> None:
    provider = Provider("a", "b")
    keys = provider.cache()
    assert (await keys.key("a")).key_id == "a"
    assert (await keys.key("b")).key_id == "b"
    assert provider.fetches == [f"{ISSUER}/.well-known/openid-configuration", JWKS_URI]


async def test_an_unknown_kid_refreshes_once_per_interval() -> None:
    """A rotated key is found by one refresh; made-up key ids cannot make more than one
    refresh per interval."""
    provider = Provider("a")
    keys = provider.cache()
    await keys.key("a")
    provider.keys.append(_jwk("b"))
    provider.now += 11
    assert (await keys.key("b")).key_id == "b"
    assert provider.fetches.count(JWKS_URI) == 2
    for made_up in ("x", "y", "z"):
        with pytest.raises(TokenRejected, match="does not publish"):
            await keys.key(made_up)
    assert provider.fetches.count(JWKS_URI) == 2  # "b"'s refresh was just now
    provider.now += 11
    for made_up in ("x", "y", "z"):
        with pytest.raises(TokenRejected):
            await keys.key(made_up)
    assert provider.fetches.count(JWKS_URI) == 3


async def test_kept_keys_outlive_a_failed_fetch_and_none_fail_closed() -> None:
    provider = Provider("a")
    provider.up = False
    keys = provider.cache()
    with pytest.raises(KeysUnavailable):
        await keys.key("a")
    provider.up = True
    with pytest.raises(KeysUnavailable):  # within the interval: not fetched again yet
        await keys.key("a")
    provider.now += 11
    assert (await keys.key("a")).key_id == "a"
    provider.up = False
    provider.now += 700  # past the keys' age: the refresh fails, the kept keys serve
    assert (await keys.key("a")).key_id == "a"
    provider.now += 11
    with pytest.raises(KeysUnavailable):  # a new kid may be genuine: fail closed, not open
        await keys.key("b")


async def test_discovery_of_another_issuer_is_refused() -> None:
    provider = Provider("a")
    provider.issuer = "https://evil.example"
    keys = provider.cache()
    with pytest.raises(KeysUnavailable):
        await keys.key("a")
    assert JWKS_URI not in provider.fetches

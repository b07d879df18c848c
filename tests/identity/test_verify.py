"""Tests of scopa.identity._verify: telling a JWT from a seat token, and one token's checks."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from scopa.app import TokenAuthority
from scopa.identity import TokenRejected, looks_like_jwt, unverified_kid, verify_token

ISSUER = "https://idp.example"
AUDIENCE = "https://scopa.example/api"
PRIVATE = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY = jwt.PyJWK(
    {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(PRIVATE.public_key())), "kid": "k"}
)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _token(private: Any = PRIVATE, algorithm: str = "RS256", **changes: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "iat": now, "exp": now + 60}
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, private, algorithm=algorithm, headers={"kid": "k"})


def test_a_jwt_is_told_from_a_seat_token() -> None:
    """Three base64url parts with a JOSE header are a JWT; a seat token has four parts."""
    seat_token = TokenAuthority(b"0123456789abcdef").issue("game", 1)
    assert looks_like_jwt(_token())
    assert not looks_like_jwt(seat_token)
    header = _b64(json.dumps({"alg": "none"}).encode())
    assert looks_like_jwt(f"{header}.{_b64(b'{}')}.")
    assert not looks_like_jwt(f"{_b64(b'[1]')}.{_b64(b'{}')}.sig")  # no JOSE header
    assert not looks_like_jwt("a.b.c")  # not JSON
    assert not looks_like_jwt(f"{header}..sig")
    assert not looks_like_jwt(f"{header}.{_b64(b'{}')}.s+g")


def test_a_genuine_token_gives_its_subject() -> None:
    subject = verify_token(_token(), KEY, ISSUER, AUDIENCE, 5)
    assert (subject.issuer, subject.subject) == (ISSUER, "user-1")
    assert "user-1" not in repr(subject)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"iss": "https://evil.example"}, "another issuer"),
        ({"aud": "https://other.example"}, "another audience"),
        ({"exp": -60}, "expired"),
        ({"nbf": 60}, "not valid yet"),
        ({"exp": None}, "no exp claim"),
        ({"sub": None}, "no sub claim"),
    ],
)
def test_a_claim_out_of_bounds_is_refused(changes: dict[str, Any], message: str) -> None:
    """``exp`` and ``nbf`` are given as seconds from the time the test runs (not from its
    collection, which xdist may do a minute earlier)."""
    now = int(time.time())
    claims: dict[str, Any] = {
        k: now + v if k in ("exp", "nbf") and isinstance(v, int) else v for k, v in changes.items()
    }
    with pytest.raises(TokenRejected, match=message):
        verify_token(_token(**claims), KEY, ISSUER, AUDIENCE, 5)


def test_the_leeway_covers_small_clock_skew() -> None:
    token = _token(exp=int(time.time()) - 3)
    assert verify_token(token, KEY, ISSUER, AUDIENCE, 10).subject == "user-1"
    with pytest.raises(TokenRejected, match="expired"):
        verify_token(token, KEY, ISSUER, AUDIENCE, 0)


def test_only_asymmetric_algorithms_are_allowed() -> None:
    """``none`` and HS256 are refused before any key is used; another key does not verify."""
    header = _b64(json.dumps({"alg": "none", "kid": "k"}).encode())
    payload = _b64(json.dumps({"iss": ISSUER, "aud": AUDIENCE, "sub": "x"}).encode())
    for token in (f"{header}.{payload}.", _token(b"a-shared-secret-of-32-bytes-long!", "HS256")):
        with pytest.raises(TokenRejected, match="algorithm is not allowed"):
            unverified_kid(token)
        with pytest.raises(TokenRejected, match="algorithm is not allowed"):
            verify_token(token, KEY, ISSUER, AUDIENCE, 5)
    rogue = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(TokenRejected, match="signature does not verify"):
        verify_token(_token(rogue), KEY, ISSUER, AUDIENCE, 5)
    with pytest.raises(TokenRejected):  # an EC signature against the RSA key
        verify_token(
            _token(ec.generate_private_key(ec.SECP256R1()), "ES256"), KEY, ISSUER, AUDIENCE, 5
        )

"""Verifying one identity token (pure: no I/O, no clock but the one it is given).

The rule that tells the two kinds of bearer value apart: a JWT (JWS compact serialization) is
exactly three dot-separated base64url segments (the header and payload non-empty; the
signature may be, as ``alg: none`` leaves it) whose first decodes to a JSON object with an
``alg`` member; a seat token (:mod:`scopa.app._tokens`) is four segments. Anything
else is neither, and the seat-token check refuses it.

The checks are PyJWT's, never hand-written: the algorithm must be an asymmetric one of
:data:`ALLOWED_ALGORITHMS` (so neither ``none`` nor an HMAC keyed with a public key), the
key must be the issuer's key of the token's ``kid`` and of a matching type, and ``iss``,
``aud``, ``exp`` (required), ``nbf`` and ``iat`` are checked with a small leeway. Error
messages name what failed, never a claim's value.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Final

import jwt

__all__ = [
    "ALLOWED_ALGORITHMS",
    "IdentityError",
    "KeysUnavailable",
    "Subject",
    "TokenRejected",
    "looks_like_jwt",
    "unverified_kid",
    "verify_token",
]

ALLOWED_ALGORITHMS: Final = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""Asymmetric signatures only: a token signed with ``none`` or an HMAC is refused unread."""

_SEGMENT: Final = re.compile(r"[A-Za-z0-9_-]+")
_MAX_TOKEN: Final = 16_384
"""Longer bearer values are not looked at as JWTs (a provider's tokens are a few KB)."""


class IdentityError(Exception):
    """An identity token the service cannot accept; ``message`` says why (no claim values)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TokenRejected(IdentityError):
    """The token does not verify: malformed, a refused algorithm, a bad signature or claim."""


class KeysUnavailable(IdentityError):
    """The provider's keys could not be fetched and none are cached: fail closed."""


@dataclass(frozen=True, slots=True)
class Subject:
    """Who a verified token speaks for: its issuer and subject (kept out of reprs and logs)."""

    issuer: str = field(repr=False)
    subject: str = field(repr=False)


def _segment_json(segment: str) -> object:
    raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    return json.loads(raw)


def looks_like_jwt(value: str) -> bool:
    """Whether a bearer value is a JWT rather than a seat token (see the module's rule)."""
    if len(value) > _MAX_TOKEN:
        return False
    parts = value.split(".")
    if len(parts) != 3 or not all(_SEGMENT.fullmatch(p) for p in parts[:2]):
        return False
    if parts[2] and not _SEGMENT.fullmatch(parts[2]):
        return False
    try:
        header = _segment_json(parts[0])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and "alg" in header


def unverified_kid(token: str) -> str | None:
    """The ``kid`` of a token's header (None: none given); TokenRejected when unreadable or
    when its algorithm is not allowed."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise TokenRejected("the identity token is malformed") from None
    if header.get("alg") not in ALLOWED_ALGORITHMS:
        raise TokenRejected("the identity token's algorithm is not allowed")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise TokenRejected("the identity token's key id is malformed")
    return kid


def verify_token(
    token: str,
    key: jwt.PyJWK,
    issuer: str,
    audience: str,
    leeway_s: float,
) -> Subject:
    """The subject of ``token`` signed with ``key``; TokenRejected when any check fails."""
    unverified_kid(token)  # the algorithm allowlist, before any key is used
    algorithm = key.algorithm_name
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[algorithm] if algorithm in ALLOWED_ALGORITHMS else list(ALLOWED_ALGORITHMS),
            audience=audience,
            issuer=issuer,
            leeway=leeway_s,
            options={"require": ["exp", "iss", "aud", "sub"], "verify_signature": True},
        )
    except jwt.ExpiredSignatureError:
        raise TokenRejected("the identity token has expired") from None
    except jwt.ImmatureSignatureError:
        raise TokenRejected("the identity token is not valid yet") from None
    except jwt.InvalidAudienceError:
        raise TokenRejected("the identity token is for another audience") from None
    except jwt.InvalidIssuerError:
        raise TokenRejected("the identity token is from another issuer") from None
    except jwt.InvalidSignatureError:
        raise TokenRejected("the identity token's signature does not verify") from None
    except jwt.MissingRequiredClaimError as exc:
        raise TokenRejected(f"the identity token has no {exc.claim} claim") from None
    except (jwt.PyJWTError, ValueError, TypeError):
        raise TokenRejected("the identity token does not verify") from None
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise TokenRejected("the identity token has no sub claim")
    return Subject(issuer, subject)

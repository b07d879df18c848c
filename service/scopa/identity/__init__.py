"""Identity tokens from an OIDC provider: tell a JWT from a seat token, verify it, cache keys.

Below the application core (which asks it who a caller is) and free of any transport:
:mod:`._verify` checks one token against keys it is given (pure), :mod:`._keys` fetches the
provider's discovery document and JWKS and keeps them, honouring key rotation.
"""

from ._keys import Identity, JwksKeys
from ._verify import (
    ALLOWED_ALGORITHMS,
    IdentityError,
    KeysUnavailable,
    Subject,
    TokenRejected,
    looks_like_jwt,
    unverified_kid,
    verify_token,
)

__all__ = [
    "ALLOWED_ALGORITHMS",
    "Identity",
    "IdentityError",
    "JwksKeys",
    "KeysUnavailable",
    "Subject",
    "TokenRejected",
    "looks_like_jwt",
    "unverified_kid",
    "verify_token",
]

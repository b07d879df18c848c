"""Standard Webhooks signatures, by the specification's own library (``standardwebhooks``).

The signed content is ``<webhook-id>.<webhook-timestamp>.<body>``, HMAC-SHA256 with the secret
(``whsec_`` + base64 of its bytes), sent as ``webhook-signature: v1,<base64>``.
"""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

__all__ = ["Signer", "new_secret"]

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    """A fresh secret in the specification's form (24 random bytes)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


class Signer:
    """Signs request bodies with one secret (``whsec_...``)."""

    def __init__(self, secret: str) -> None:
        if not secret.startswith(SECRET_PREFIX):
            raise ValueError("a webhook secret starts with whsec_")
        self._webhook = Webhook(secret)

    def headers(self, msg_id: str, timestamp_s: int, body: str) -> dict[str, str]:
        """The three headers of a request with ``body``, sent at ``timestamp_s`` (epoch s)."""
        when = datetime.fromtimestamp(timestamp_s, UTC)
        return {
            "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp_s),
            "webhook-signature": self._webhook.sign(msg_id, when, body),
        }

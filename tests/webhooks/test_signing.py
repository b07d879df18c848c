"""Standard Webhooks signatures (scopa.webhooks._signing) against the specification's example."""

from __future__ import annotations

import base64
import time

import pytest
from standardwebhooks.webhooks import Webhook

from scopa.webhooks import Signer, new_secret

SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = '{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_specifications_example_vector() -> None:
    """The example of the specification signs to its published signature."""
    headers = Signer(SPEC_SECRET).headers(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)
    assert headers == {
        "webhook-id": SPEC_ID,
        "webhook-timestamp": str(SPEC_TIMESTAMP),
        "webhook-signature": SPEC_SIGNATURE,
    }


def test_a_receiver_verifies_what_is_signed_now() -> None:
    """The library's verify accepts a fresh signature and refuses a changed body."""
    secret = new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 24
    now = int(time.time())
    headers = Signer(secret).headers("msg_1", now, '{"a":1}')
    assert Webhook(secret).verify('{"a":1}', headers) == {"a": 1}
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify('{"a":2}', headers)


def test_a_secret_without_the_prefix_is_refused() -> None:
    with pytest.raises(ValueError, match="whsec_"):
        Signer("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")

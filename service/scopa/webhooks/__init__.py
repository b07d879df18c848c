"""Webhook delivery: every replica's worker sending the outbox's entries, signed per the
Standard Webhooks specification (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``).

The notices themselves are chosen in the core (:mod:`scopa.app._webhooks`) and written into the
game's outbox with its commit (:mod:`scopa.storage`); this package only sends what is there.
"""

from scopa.webhooks._delivery import DeliveryPolicy, WebhookWorker
from scopa.webhooks._sender import HttpSender, Sender
from scopa.webhooks._signing import Signer, new_secret
from scopa.webhooks._urls import MAX_URL_LENGTH, check_url

__all__ = [
    "MAX_URL_LENGTH",
    "DeliveryPolicy",
    "HttpSender",
    "Sender",
    "Signer",
    "WebhookWorker",
    "check_url",
    "new_secret",
]

"""The HTTP sender (scopa.webhooks._sender) against the real test receiver process."""

from __future__ import annotations

import time

from support.webhooks import SECRET, running_receiver

from scopa.webhooks import HttpSender, Signer


async def test_a_post_reaches_the_receiver_signed() -> None:
    """The receiver verifies the signature (204) and records the body as sent."""
    sender = HttpSender(5.0)
    try:
        with running_receiver() as receiver:
            headers = Signer(SECRET).headers("msg_s", int(time.time()), '{"x":1}')
            assert await sender.post(receiver.url, '{"x":1}', headers) == 204
            ((got,),) = [receiver.deliveries()]
            assert got["valid"] and got["body"] == '{"x":1}' and got["id"] == "msg_s"
            bad = {**headers, "webhook-signature": "v1,AAAA"}
            assert await sender.post(receiver.url, '{"x":1}', bad) == 400
    finally:
        await sender.close()


async def test_no_answer_is_status_zero() -> None:
    """A refused connection is no delivery: status 0, no exception."""
    sender = HttpSender(1.0)
    try:
        with running_receiver(started=False) as receiver:
            assert await sender.post(receiver.url, "{}", {}) == 0
    finally:
        await sender.close()

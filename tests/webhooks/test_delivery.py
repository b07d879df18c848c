"""The delivery worker (scopa.webhooks._delivery) on the embedded store with a scripted sender:
signed POSTs, retries with backoff and jitter, dead letters, outcomes counted."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook

from scopa.storage import MemoryStore
from scopa.webhooks import DeliveryPolicy, Signer, WebhookWorker

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
URL = "https://hooks.example/scopa"


class Wall:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class ScriptedSender:
    """Answers each POST with the next scripted status (the last one repeats)."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses)
        self.posts: list[tuple[str, str, dict[str, str]]] = []
        self.closed = False

    async def post(self, url: str, body: str, headers: Mapping[str, str]) -> int:
        self.posts.append((url, body, dict(headers)))
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    async def close(self) -> None:
        self.closed = True


def _setup(
    *statuses: int, max_attempts: int = 3, url: str = URL
) -> tuple[MemoryStore, Wall, ScriptedSender, WebhookWorker, list[str]]:
    wall = Wall()
    store = MemoryStore(wall=wall)
    sender = ScriptedSender(*statuses)
    outcomes: list[str] = []
    policy = DeliveryPolicy(url, max_attempts=max_attempts, backoff_s=2.0)
    worker = WebhookWorker(store, Signer(SECRET), sender, policy, outcomes.append, random.Random(1))
    return store, wall, sender, worker, outcomes


async def _game(store: MemoryStore, *entries: tuple[str, bytes]) -> None:
    await store.create("g1", b"s", b"m", [b"e"], 3600, outbox=list(entries))


async def test_an_entry_is_posted_signed_and_dropped() -> None:
    """A 2xx answer: delivered once, with a signature the specification's library accepts."""
    store, wall, sender, worker, outcomes = _setup(204)
    await _game(store, ("msg_1", b'\n{"type":"game.your_turn"}'))
    assert await worker.deliver() == 1
    ((url, body, headers),) = sender.posts
    assert url == URL and body == '{"type":"game.your_turn"}'
    assert headers["webhook-id"] == "msg_1"
    assert headers["webhook-timestamp"] == str(int(wall.now))
    # verify() checks the timestamp against the real clock: sign again at a current time
    assert Webhook(SECRET).sign("msg_1", _dt(wall.now), body) == headers["webhook-signature"]
    assert outcomes == ["delivered"]
    assert await worker.deliver() == 0 and len(sender.posts) == 1


def _dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


async def test_an_entrys_own_url_wins() -> None:
    """An entry naming a URL (a game's own) goes there, not to the deployment's."""
    store, _, sender, worker, _ = _setup(200)
    await _game(store, ("msg_1", b"https://game.example/h\n{}"))
    await worker.deliver()
    assert [p[0] for p in sender.posts] == ["https://game.example/h"]


async def test_failures_back_off_with_jitter_then_succeed() -> None:
    """A failed attempt is retried only after its backoff (2 s, then 4 s, each with jitter
    between half and all of it), under the same webhook-id."""
    store, wall, sender, worker, outcomes = _setup(503, 0, 204, max_attempts=5)
    await _game(store, ("msg_1", b"\n{}"))
    await worker.deliver()
    for posts, delay in ((1, 2.0), (2, 4.0)):
        start = wall.now
        wall.now = start + delay * 0.5 - 0.01  # under half the backoff: not yet
        await worker.deliver()
        assert len(sender.posts) == posts
        wall.now = start + delay + 0.01  # past all of it: sent again
        await worker.deliver()
        assert len(sender.posts) == posts + 1
    assert [p[2]["webhook-id"] for p in sender.posts] == ["msg_1"] * 3
    assert outcomes == ["failed", "failed", "delivered"]


async def test_no_retry_before_the_backoff() -> None:
    """Right after a failure nothing is sent again, whatever the jitter."""
    store, wall, sender, worker, _ = _setup(503, max_attempts=5)
    await _game(store, ("msg_1", b"\n{}"))
    await worker.deliver()
    wall.now += 0.99  # under half the first backoff (2 s)
    await worker.deliver()
    assert len(sender.posts) == 1
    wall.now += 1.02
    await worker.deliver()
    assert len(sender.posts) == 2


async def test_the_last_failed_attempt_dead_letters() -> None:
    """After max_attempts failures the entry is dropped and counted as dead-lettered."""
    store, wall, sender, worker, outcomes = _setup(500, max_attempts=3)
    await _game(store, ("msg_1", b"\n{}"))
    for _ in range(6):
        await worker.deliver()
        wall.now += 400  # past any backoff (capped at 300 s)
    assert len(sender.posts) == 3
    assert outcomes == ["failed", "failed", "failed", "dead_lettered"]
    assert (await store.claim_outbox("g1", 2**62, 1, 10, "x")).entries == ()


async def test_without_any_url_an_entry_fails() -> None:
    """No deployment URL and none of its own: nothing is sent, the attempt fails."""
    store, _, sender, worker, outcomes = _setup(204, url="", max_attempts=1)
    await _game(store, ("msg_1", b"\n{}"))
    await worker.deliver()
    assert sender.posts == [] and outcomes == ["failed", "dead_lettered"]


async def test_stop_closes_the_sender() -> None:
    _, _, sender, worker, _ = _setup(204)
    worker.start()
    await worker.stop()
    assert sender.closed


@pytest.mark.parametrize("attempts", [1, 2, 5, 30])
def test_retry_delays_are_exponential_capped_and_jittered(attempts: int) -> None:
    policy = DeliveryPolicy(URL, backoff_s=1.0, backoff_cap_s=300.0)
    full = min(300.0, 2.0 ** (attempts - 1))
    delays = [policy.retry_delay_s(attempts, random.Random(i)) for i in range(50)]
    assert all(full / 2 <= d <= full for d in delays)
    assert len(set(delays)) > 1

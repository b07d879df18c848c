"""The delivery worker: every replica's background task sending the webhook outbox.

Each pass reads the store's clock, scans every outbox index shard for games with entries due,
leases a game's due entries (``claim_outbox``: another replica takes them over only once the
lease ran out, e.g. this one died mid-lease), POSTs each signed entry, and then drops it
(a 2xx answer, or its last attempt failed: dead-lettered) or schedules its next attempt with
exponential backoff and jitter. Delivery is at least once: an entry sent but not yet dropped
when its replica died is sent again under the same ``webhook-id``, by which receivers
de-duplicate. No scheduler service, no leader: like the sweeper (``scopa.app.Sweeper``).
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from opentelemetry import context, trace

from scopa._tasks import cancel_until_done
from scopa.storage import OUTBOX_SHARDS, GameStore, OutboxEntry, StorageError
from scopa.webhooks._sender import Sender
from scopa.webhooks._signing import Signer

__all__ = ["DeliveryPolicy", "WebhookWorker"]

_log = structlog.get_logger("scopa.webhooks")
_tracer = trace.get_tracer("scopa.webhooks")

_CLAIM_BATCH = 4
"""Entries of one game leased at once (sent one after the other)."""
_SETTLE_GRACE_MS = 30_000
"""How long a commit may still be on its way after touching the outbox index."""
_GAMES_AT_ONCE = 8
"""Games whose entries one replica sends at the same time."""


@dataclass(frozen=True, slots=True)
class DeliveryPolicy:
    """Where and how entries are sent."""

    url: str
    """The deployment's URL (entries without a per-game URL go there; "" none)."""
    max_attempts: int = 8
    timeout_s: float = 5.0
    backoff_s: float = 1.0
    """The first retry's delay; each next one doubles, up to ``backoff_cap_s``, with jitter."""
    backoff_cap_s: float = 300.0
    interval_s: float = 1.0

    @property
    def lease_ms(self) -> int:
        """How long a claim holds its entries: every request of a batch, and one more."""
        return round((_CLAIM_BATCH + 1) * self.timeout_s * 1000)

    def retry_delay_s(self, attempts: int, rng: random.Random) -> float:
        """The delay before the next attempt after ``attempts`` failed ones: exponential,
        capped, with "equal jitter" (between half and all of it) so retries spread out."""
        delay: float = min(self.backoff_cap_s, self.backoff_s * 2.0 ** (attempts - 1))
        return delay * rng.uniform(0.5, 1.0)


Outcome = Callable[[str], None]
"""Counts one outcome: ``delivered``, ``failed`` (an attempt) or ``dead_lettered``."""


class WebhookWorker:
    """Sends due outbox entries every ``policy.interval_s`` until stopped."""

    def __init__(
        self,
        store: GameStore,
        signer: Signer,
        sender: Sender,
        policy: DeliveryPolicy,
        on_outcome: Outcome | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._store = store
        self._signer = signer
        self._sender = sender
        self._policy = policy
        self._on_outcome = on_outcome or (lambda outcome: None)
        self._rng = rng or random.SystemRandom()
        self._task: asyncio.Task[None] | None = None
        self._games = asyncio.Semaphore(_GAMES_AT_ONCE)

    def start(self) -> None:
        """Run :meth:`run` in a task of its own until :meth:`stop`."""
        if self._task is None:
            self._task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        """End the task and close the HTTP client (leased entries go to another replica once
        their lease runs out)."""
        if self._task is not None:
            await cancel_until_done(self._task)
        await self._sender.close()

    async def run(self) -> None:
        """Deliver until cancelled; a store outage is logged and the next pass tries again."""
        while True:
            try:
                await self.deliver()
            except StorageError as exc:
                _log.warning("webhook_storage_unavailable", error=type(exc).__name__)
            except Exception:
                _log.exception("webhook_pass_crashed")
            await asyncio.sleep(self._policy.interval_s)

    async def deliver(self) -> int:
        """One pass over every shard; returns how many entries were delivered.

        The scan runs every interval on every replica: untraced (OpenTelemetry's
        suppress-instrumentation flag, as the sweeper's), while each game's delivery is one
        ``scopa.webhooks.deliver`` span with its store calls inside."""
        token = context.attach(context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True))
        try:
            now_ms = round(await self._store.time() * 1000)
            due: list[str] = []
            for shard in range(OUTBOX_SHARDS):
                due += await self._store.due_outboxes(shard, now_ms, 32)
        finally:
            context.detach(token)
        counts = await asyncio.gather(*(self._game(game_id, now_ms) for game_id in due))
        return sum(counts)

    async def _game(self, game_id: str, now_ms: int) -> int:
        """Send one game's due entries; then re-index the game for its next due entry."""
        async with self._games:
            with _tracer.start_as_current_span(
                "scopa.webhooks.deliver", attributes={"scopa.game_id": game_id}
            ):
                return await self._leased(game_id, now_ms)

    async def _leased(self, game_id: str, now_ms: int) -> int:
        """Lease, send and finish the game's due entries, then settle its index entry."""
        lease = secrets.token_hex(8)
        store = self._store
        claim = await store.claim_outbox(
            game_id, now_ms, self._policy.lease_ms, _CLAIM_BATCH, lease
        )
        next_due, delivered = claim.next_due_ms, 0
        for entry in claim.entries:
            sent, next_due = await self._entry(game_id, entry, lease)
            delivered += sent
        await store.settle_outbox(game_id, next_due, now_ms, _SETTLE_GRACE_MS)
        return delivered

    async def _entry(self, game_id: str, entry: OutboxEntry, lease: str) -> tuple[int, int | None]:
        """POST one entry; drop it or schedule its retry. (1 if delivered, the next due)."""
        url, _, body = entry.payload.decode().partition("\n")
        url = url or self._policy.url
        status = 0
        if url:
            timestamp_s = int(await self._store.time())
            headers = self._signer.headers(entry.entry_id, timestamp_s, body)
            status = await self._sender.post(url, body, headers)
        fields = {"game_id": game_id, "webhook_id": entry.entry_id, "attempts": entry.attempts}
        if 200 <= status < 300:
            self._on_outcome("delivered")
            _log.info("webhook_delivered", status=status, **fields)
            return 1, await self._store.finish_outbox(game_id, entry.entry_id, lease, None)
        self._on_outcome("failed")
        if entry.attempts >= self._policy.max_attempts:
            self._on_outcome("dead_lettered")
            _log.warning("webhook_dead_lettered", status=status, **fields)
            return 0, await self._store.finish_outbox(game_id, entry.entry_id, lease, None)
        delay_s = self._policy.retry_delay_s(entry.attempts, self._rng)
        retry_at = round(await self._store.time() * 1000 + delay_s * 1000)
        _log.info("webhook_failed", status=status, retry_in_s=round(delay_s, 3), **fields)
        return 0, await self._store.finish_outbox(game_id, entry.entry_id, lease, retry_at)

"""The service's OpenTelemetry instruments and small helpers to record them."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from opentelemetry import metrics
from opentelemetry.metrics import CallbackOptions, Observation

from scopa.telemetry._semconv import DURATION_BUCKETS_S

__all__ = [
    "ACTIVE_WINDOW_S",
    "ActiveGames",
    "ScopaMetrics",
    "record_bot_queue",
    "record_game_active",
    "record_game_created",
    "record_game_finished",
    "record_game_stuck",
    "record_watch_streams",
    "record_webhook",
    "scopa_metrics",
]

_METER_NAME = "scopa"

ACTIVE_WINDOW_S = 300.0
"""A game counts as active on a replica for this long after that replica last changed it."""


class ActiveGames:
    """Games this replica changed (created, moved in) in the last window and that are not over.

    Each replica sees only the games its own calls touch, so the sum over replicas counts a
    game once per replica that served it recently; the gauge is a per-replica load figure.
    Entries are kept in order of their last change and dropped once out of the window, on
    every change and every reading, so memory stays bounded without a metric reader too. A
    lock guards them: the periodic metric reader observes from its own thread.

    An ``OrderedDict`` (a linked list beside the table): a touch moves its game to the end
    and pruning pops from the front, each O(1) however many games are kept. A plain dict
    finds its first entry by skipping the holes its deletions left at the front (O(n)).
    """

    def __init__(
        self, window_s: float = ACTIVE_WINDOW_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._window_s = window_s
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def touch(self, game_id: str, finished: bool) -> None:
        """Note a change to ``game_id``: active until the window passes, or gone when over."""
        with self._lock:
            seen = self._seen
            if finished:
                seen.pop(game_id, None)
            else:
                seen[game_id] = self._clock()
                seen.move_to_end(game_id)
            self._prune()

    def count(self) -> int:
        """The number of active games now."""
        with self._lock:
            self._prune()
            return len(self._seen)

    def _prune(self) -> None:
        """Drop the oldest entries while they are out of the window (oldest first)."""
        horizon = self._clock() - self._window_s
        seen = self._seen
        while seen:
            game_id = next(iter(seen))
            if seen[game_id] >= horizon:
                return
            seen.popitem(last=False)


class ScopaMetrics:
    """Call durations, game counters, open watch streams and active games, from one meter."""

    def __init__(
        self,
        meter_provider: metrics.MeterProvider | None = None,
        active_games: ActiveGames | None = None,
    ) -> None:
        meter = metrics.get_meter(_METER_NAME, meter_provider=meter_provider)
        self.active_games = active_games or ActiveGames()
        self.rpc_duration = meter.create_histogram(
            "rpc.server.call.duration",
            unit="s",
            description="Duration of inbound RPCs (gRPC and Connect).",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS_S,
        )
        self.http_duration = meter.create_histogram(
            "http.server.request.duration",
            unit="s",
            description="Duration of inbound plain HTTP requests (REST).",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS_S,
        )
        self.games_created = meter.create_counter(
            "scopa.games.created", unit="{game}", description="Games created."
        )
        self.games_finished = meter.create_counter(
            "scopa.games.finished", unit="{game}", description="Games that reached their end."
        )
        self.games_stuck = meter.create_counter(
            "scopa.games.stuck",
            unit="{game}",
            description=(
                "Games this replica found awaiting a seat with no legal action (a rules-engine"
                " fault; each is refused with GAME_STUCK), counted once per game and version."
            ),
        )
        self.bots_running = meter.create_up_down_counter(
            "scopa.bots.running",
            unit="{move}",
            description="Bot moves this replica is choosing now (at most SCOPA_BOT_SEARCHES).",
        )
        self.bots_waiting = meter.create_up_down_counter(
            "scopa.bots.waiting",
            unit="{move}",
            description="Bot turns waiting for a search slot (at most SCOPA_BOT_QUEUE).",
        )
        self.bots_deferred = meter.create_counter(
            "scopa.bots.deferred",
            unit="{move}",
            description="Bot turns left due for a sweeper because every slot and place was taken.",
        )
        self.watch_streams = meter.create_up_down_counter(
            "scopa.watch.streams",
            unit="{stream}",
            description="WatchGame streams open on this replica.",
        )
        self.webhook_deliveries = meter.create_counter(
            "scopa.webhooks.deliveries",
            unit="{attempt}",
            description="Webhook delivery attempts by outcome (`delivered` or `failed`).",
        )
        self.webhooks_dead_lettered = meter.create_counter(
            "scopa.webhooks.dead_lettered",
            unit="{notification}",
            description="Webhook notifications given up after SCOPA_WEBHOOK_MAX_ATTEMPTS.",
        )
        meter.create_observable_gauge(
            "scopa.games.active",
            callbacks=[self._observe_active_games],
            unit="{game}",
            description=(
                f"Unfinished games this replica created or changed in the last "
                f"{ACTIVE_WINDOW_S:.0f} s."
            ),
        )

    def _observe_active_games(self, _options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(self.active_games.count())]

    def game_created(self, variant: str) -> None:
        """Count one new game of the given variant (e.g. "scopa", "scopone")."""
        self.games_created.add(1, {"scopa.variant": variant})

    def game_finished(self, variant: str) -> None:
        """Count one finished game of the given variant."""
        self.games_finished.add(1, {"scopa.variant": variant})

    def game_stuck(self, variant: str) -> None:
        """Count one game of the given variant found stuck."""
        self.games_stuck.add(1, {"scopa.variant": variant})

    def bot_queue(self, kind: str, delta: int) -> None:
        """Count a change of the bot queue: ``running``, ``waiting`` or ``deferred``."""
        {"running": self.bots_running, "waiting": self.bots_waiting}.get(
            kind, self.bots_deferred
        ).add(delta)

    def webhook(self, outcome: str) -> None:
        """Count a webhook attempt (``delivered``, ``failed``) or a ``dead_lettered`` one."""
        if outcome == "dead_lettered":
            self.webhooks_dead_lettered.add(1)
        else:
            self.webhook_deliveries.add(1, {"outcome": outcome})

    def watch_opened(self) -> None:
        """Count one more open watch stream."""
        self.watch_streams.add(1)

    def watch_closed(self) -> None:
        """Count one watch stream fewer."""
        self.watch_streams.add(-1)


_default: ScopaMetrics | None = None


def scopa_metrics() -> ScopaMetrics:
    """Return the process-wide instruments, bound to the global meter provider."""
    global _default  # noqa: PLW0603
    if _default is None:
        _default = ScopaMetrics()
    return _default


def record_game_created(variant: str) -> None:
    """Count one new game on the process-wide counter `scopa.games.created`."""
    scopa_metrics().game_created(variant)


def record_game_finished(variant: str) -> None:
    """Count one finished game on the process-wide counter `scopa.games.finished`."""
    scopa_metrics().game_finished(variant)


def record_game_stuck(variant: str) -> None:
    """Count one stuck game on the process-wide counter `scopa.games.stuck`."""
    scopa_metrics().game_stuck(variant)


def record_bot_queue(kind: str, delta: int) -> None:
    """Count a change of the bot queue (``scopa.bots.running``, ``.waiting``, ``.deferred``)."""
    scopa_metrics().bot_queue(kind, delta)


def record_game_active(game_id: str, finished: bool) -> None:
    """Note a change to a game on the process-wide `scopa.games.active` gauge."""
    scopa_metrics().active_games.touch(game_id, finished)


def record_watch_streams(delta: int) -> None:
    """Count watch streams opened (+1) or closed (-1) on `scopa.watch.streams`."""
    scopa_metrics().watch_streams.add(delta)


def record_webhook(outcome: str) -> None:
    """Count a webhook outcome (``scopa.webhooks.deliveries``, ``.dead_lettered``)."""
    scopa_metrics().webhook(outcome)

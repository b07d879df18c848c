"""The service's OpenTelemetry instruments and small helpers to record them."""

from __future__ import annotations

from opentelemetry import metrics

__all__ = ["ScopaMetrics", "record_game_created", "record_game_finished", "scopa_metrics"]

_METER_NAME = "scopa"


class ScopaMetrics:
    """RPC latency histogram and game counters, created from one meter provider."""

    def __init__(self, meter_provider: metrics.MeterProvider | None = None) -> None:
        meter = metrics.get_meter(_METER_NAME, meter_provider=meter_provider)
        self.rpc_duration = meter.create_histogram(
            "rpc.server.duration",
            unit="ms",
            description="Duration of inbound gRPC calls.",
        )
        self.games_created = meter.create_counter(
            "scopa.games.created", unit="{game}", description="Games created."
        )
        self.games_finished = meter.create_counter(
            "scopa.games.finished", unit="{game}", description="Games that reached their end."
        )

    def record_rpc(self, method: str, code: str, duration_ms: float) -> None:
        """Record one RPC's duration with its full method name and status code name."""
        service, _, name = method.lstrip("/").rpartition("/")
        self.rpc_duration.record(
            duration_ms,
            {
                "rpc.system": "grpc",
                "rpc.service": service,
                "rpc.method": name,
                "rpc.grpc.status_code": code,
            },
        )

    def game_created(self, variant: str) -> None:
        """Count one new game of the given variant (e.g. "scopa", "scopone")."""
        self.games_created.add(1, {"scopa.variant": variant})

    def game_finished(self, variant: str) -> None:
        """Count one finished game of the given variant."""
        self.games_finished.add(1, {"scopa.variant": variant})


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

"""Where calls wait inside the process: event-loop lag and garbage-collector pauses.

Every call of the service runs on one asyncio event loop, so anything that holds the loop
(a long callback, a garbage collection, the process being descheduled on a busy machine)
delays every call in flight. :class:`RuntimeStats` measures that from inside: a probe task
asks to wake up every ``probe_s`` and records how late it wakes (the loop's lag), and a
``gc.callbacks`` hook times each collection by generation. With ``SCOPA_RUNTIME_STATS_S`` set,
the server logs one ``runtime`` line per interval with what it saw (bench/service.py reads
them to say where its calls waited).
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from scopa.telemetry import get_logger

__all__ = ["RuntimeStats"]

_PROBE_S = 0.01


class RuntimeStats:
    """Loop-lag samples and GC pauses since the last report."""

    def __init__(self, probe_s: float = _PROBE_S) -> None:
        self.probe_s = probe_s
        self.lags: list[float] = []
        """How late each probe woke (seconds)."""
        self.gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        """Each collection's duration (seconds), by generation."""
        self._gc_start = 0.0

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_pauses[int(info["generation"])].append(time.perf_counter() - self._gc_start)

    async def probe(self) -> None:
        """Sample the loop's lag until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(self.probe_s)
            self.lags.append(max(0.0, loop.time() - start - self.probe_s))

    def report(self) -> dict[str, float | int]:
        """The figures since the last report (then forgotten): lag quantiles and GC pauses."""
        lags = sorted(self.lags)
        self.lags = []
        fields: dict[str, float | int] = {
            "loop_lag_samples": len(lags),
            "loop_lag_p50_ms": _ms(_quantile(lags, 0.50)),
            "loop_lag_p99_ms": _ms(_quantile(lags, 0.99)),
            "loop_lag_max_ms": _ms(lags[-1] if lags else 0.0),
        }
        for generation, pauses in self.gc_pauses.items():
            fields[f"gc{generation}_count"] = len(pauses)
            fields[f"gc{generation}_total_ms"] = _ms(sum(pauses))
            fields[f"gc{generation}_max_ms"] = _ms(max(pauses, default=0.0))
            pauses.clear()
        return fields

    async def run(self, interval_s: float) -> None:
        """Probe the loop and log one ``runtime`` line every ``interval_s`` until cancelled."""
        log = get_logger("scopa.runtime")
        gc.callbacks.append(self._on_gc)
        probe = asyncio.create_task(self.probe(), name="scopa-loop-probe")
        try:
            while True:
                await asyncio.sleep(interval_s)
                log.info("runtime", interval_s=interval_s, **self.report())
        finally:
            probe.cancel()
            gc.callbacks.remove(self._on_gc)


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)

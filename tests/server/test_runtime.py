"""Tests of scopa.server._runtime: event-loop lag and GC pauses, as the runtime line reports."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import time

import pytest
import structlog

from scopa.config import Settings
from scopa.server._runtime import RuntimeStats
from scopa.telemetry import configure_logging


async def test_a_callback_holding_the_loop_shows_as_lag() -> None:
    """A callback that blocks the loop for 60 ms makes the probe wake at least ~60 ms late."""
    stats = RuntimeStats(probe_s=0.005)
    probe = asyncio.create_task(stats.probe())
    await asyncio.sleep(0.05)
    time.sleep(0.06)  # holds the event loop
    await asyncio.sleep(0.05)
    probe.cancel()
    report = stats.report()
    assert report["loop_lag_samples"] > 2
    assert report["loop_lag_max_ms"] >= 50
    assert report["loop_lag_p50_ms"] < report["loop_lag_max_ms"]
    assert stats.report()["loop_lag_samples"] == 0  # a report forgets what it reported


async def test_runtime_lines_count_gc_pauses_by_generation() -> None:
    """The logged line counts a full collection made meanwhile under generation 2."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="json"), stream)
    try:
        stats = RuntimeStats()
        task = asyncio.create_task(stats.run(0.05))
        await asyncio.sleep(0.01)
        gc.collect()
        await asyncio.sleep(0.08)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        structlog.reset_defaults()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    runtime = [line for line in lines if line.get("event") == "runtime"]
    assert runtime and runtime[0]["gc2_count"] >= 1
    assert runtime[0]["gc2_max_ms"] > 0
    assert runtime[0]["loop_lag_samples"] > 0
    assert stats._on_gc not in gc.callbacks  # its hook is gone once it ends

"""Tests of bench/sessions.py's pure parts: its run lines and the summary of the rounds."""

from __future__ import annotations

import sys

from support.python import ROOT, load_tool

sys.path.append(str(ROOT / "bench"))  # its sibling modules (service_procs, ...), after the rest
sessions = load_tool("bench/sessions.py")


def _ours(index: int, cpu_us: float, **extra: object) -> object:
    return sessions.Figures(
        "scopa", 16, index, cpu_us, 1000.0, 5.0, 9.0, {"redis_cpu_us_per_move": 50.0, **extra}
    )


def _anchor(index: int, cpu_us: float) -> object:
    return sessions.Figures("bgio", 16, index, cpu_us, 2000.0, 4.0, 8.0, {})


def test_the_summary_is_the_medians_and_their_ratio_to_each_anchor() -> None:
    results = [_ours(0, 600.0), _ours(1, 500.0), _ours(2, 700.0), _anchor(0, 400.0)]
    fields = dict(part.split("=") for part in sessions._summary(16, results).split())
    assert (fields["scopa_us"], fields["bgio_us"], fields["vs_bgio"]) == ("600.0", "400.0", "1.5")
    assert fields["vs_bgio_with_redis"] == "1.625"


def test_a_run_sampled_by_py_spy_is_marked_and_left_out_of_the_medians() -> None:
    """py-spy's sampling costs the server CPU: that run would raise the median."""
    sampled = _ours(0, 900.0, sampled="py-spy")
    assert "sampled=py-spy" in sessions._line(sampled)
    results = [sampled, _ours(1, 500.0), _ours(2, 700.0), _anchor(0, 400.0)]
    fields = dict(part.split("=") for part in sessions._summary(16, results).split())
    assert fields["scopa_us"] == "600.0"

"""Tests of bench/service_report.py: how bench/service.py merges rounds and writes its lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from support.python import load_tool

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # service_report imports its sibling service_players
report: Any = load_tool("bench/service_report.py")
players: Any = load_tool("bench/service_players.py")


def _phase(name: str, calls: dict[str, list[float]], cpu_s: float, at: float = 0.0) -> Any:
    rec = players.Recorder()
    rec.latencies.update({rpc: list(times) for rpc, times in calls.items()})
    return report.PhaseResult(name, rec, 2.0, cpu_s, 0.5, 30, 10, ((at, at + 2.0),), cpu_s / 4)


def test_rounds_merge_into_one_phase_with_every_call_and_cost() -> None:
    first = _phase("play", {"PlayCard": [0.01, 0.02]}, 0.004, at=100.0)
    second = _phase("play", {"PlayCard": [0.03], "CreateGame": [0.05]}, 0.002, at=200.0)
    merged = report.merge([first, second])
    assert merged.total_calls() == 4
    assert merged.cpu_s == 0.006 and merged.elapsed_s == 4.0 and merged.redis_cmds == 60
    assert merged.windows == ((100.0, 102.0), (200.0, 202.0))
    assert sorted(merged.rec.latencies["PlayCard"]) == [0.01, 0.02, 0.03]


def test_an_rpc_line_divides_the_server_costs_by_the_calls() -> None:
    phase = _phase("play", {"PlayCard": [0.01] * 99 + [0.05]}, 0.05)
    fields = dict(kv.split("=", 1) for kv in report._rpc_line("PlayCard", phase, 64, 100).split())
    assert fields["cpu_us_per_call"] == "500"  # 0.05 s over 100 calls
    assert fields["redis_cmds_per_call"] == "0.300"
    assert fields["calls_per_s"] == "50.000"
    assert fields["p99_over_p50"] == "5.000"


def test_a_playcard_line_splits_the_moves_by_their_place_in_the_game() -> None:
    """A game's first and last moves get their own p50 and p99 (the archive's cost shows on
    them), kept across merged rounds; a line without them has none of these keys."""
    first = _phase("play", {"PlayCard": [0.01] * 4}, 0.01)
    first.rec.places.update({"first": [0.02], "mid": [0.01, 0.01], "last": [0.3]})
    second = _phase("play", {"PlayCard": [0.01]}, 0.01)
    second.rec.places.update({"last": [0.5]})
    merged = report.merge([first, second])
    fields = dict(kv.split("=", 1) for kv in report._rpc_line("PlayCard", merged, 64, 5).split())
    assert fields["p99_ms_first"] == "20.000" and fields["p50_ms_mid"] == "10.000"
    assert fields["p99_ms_last"] == "500" and fields["p50_ms_last"] == "500"
    plain = report._rpc_line("PlayCard", _phase("play", {"PlayCard": [0.01]}, 0.01), 64, 1)
    assert "_first" not in plain


def test_the_anchor_ratio_replaces_the_placeholder_only() -> None:
    text = report.line(rpc="PlayCard", cpu_us_per_call=600, vs_anchor="?")
    assert report.with_ratio(text, "vs_bgio", 240.0).endswith("vs_bgio=2.50")
    plain = report.line(rpc="floor", cpu_us_per_call=600)
    assert report.with_ratio(plain, "vs_bgio", 240.0) == plain


def test_the_runtime_line_sums_the_server_lines_inside_the_rounds(tmp_path: Path) -> None:
    def record(at: str, lag: float, gc0: int) -> str:
        fields = {"event": "runtime", "timestamp": at, "loop_lag_p50_ms": lag}
        fields |= {"loop_lag_p99_ms": lag * 2, "loop_lag_max_ms": lag * 3}
        for gen in range(3):
            fields |= {f"gc{gen}_count": gc0 if gen == 0 else 0, f"gc{gen}_total_ms": gc0 * 2.0}
            fields[f"gc{gen}_max_ms"] = 2.0 if gc0 else 0.0
        return json.dumps(fields)

    log = tmp_path / "server.log"
    log.write_text(
        "\n".join(
            [
                record("2026-01-01T00:00:01Z", 9.0, 5),  # before the round: left out
                '{"event": "call"}',
                record("2026-01-01T00:00:12Z", 1.0, 1),
                record("2026-01-01T00:00:13Z", 3.0, 2),
            ]
        )
    )
    start = 1767225610.0  # 2026-01-01T00:00:10Z
    fields = dict(kv.split("=", 1) for kv in report.runtime_line(log, [(start, start + 5)]).split())
    assert fields["intervals"] == "2"
    assert fields["loop_lag_p50_ms"] == "2.000" and fields["loop_lag_max_ms"] == "9.000"
    assert fields["gc0_count"] == "3" and fields["gc0_ms"] == "6.000"

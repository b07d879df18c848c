"""Tests of bench/callgrind.py's pure parts: perf stat's counts read back, and the output line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from support.python import ROOT, load_tool

sys.path.append(str(ROOT / "bench"))  # its sibling modules (service_procs, ...), after the rest
callgrind = load_tool("bench/callgrind.py")

_PERF_CSV = """\
# started on Mon Dec  7 06:22:24 2026

80806,,raw_syscalls:sys_enter,2014305567,100.00,40.116,K/sec
19388,,context-switches,2014305567,100.00,9.625,K/sec
2014.31,msec,task-clock,2014305567,100.00,0.848,CPUs utilized
"""


def _args(**overrides: object) -> argparse.Namespace:
    fields: dict[str, object] = {
        "proto": "grpc",
        "floor": False,
        "rpc": "playcard",
        "calls": 2000,
        "conc": 64,
    }
    return argparse.Namespace(**{**fields, **overrides})


def test_perf_stat_counts_are_read_per_event(tmp_path: Path) -> None:
    (tmp_path / "server.perf").write_text(_PERF_CSV)
    totals = callgrind.PerfStat().totals(tmp_path, "server", 1)
    assert totals == {"syscalls": 80806, "context_switches": 19388, "cpu_ms": 2014.31}
    line = callgrind.line(_args(), totals, tmp_path)
    assert line.startswith("syscalls proto=grpc target=playcard calls=2000 conc=64 ")
    assert "syscalls_per_call=40.4 context_switches_per_call=9.7 cpu_us_per_call=1007 " in line


def test_an_event_perf_could_not_count_is_an_error(tmp_path: Path) -> None:
    """Without the rights to a tracepoint, perf prints ``<not supported>`` for it."""
    text = _PERF_CSV.replace("80806,,raw", "<not supported>,,raw")
    (tmp_path / "server.perf").write_text(text)
    with pytest.raises(RuntimeError, match="raw_syscalls"):
        callgrind.PerfStat().totals(tmp_path, "server", 1)


def test_instructions_are_read_from_the_last_dump(tmp_path: Path) -> None:
    (tmp_path / "floor.7.1").write_text("events: Ir\ntotals: 123456789\n")
    totals = callgrind.Callgrind().totals(tmp_path, "floor", 7)
    line = callgrind.line(_args(proto="rest", floor=True, calls=400, conc=8), totals, tmp_path)
    assert line == (
        f"callgrind proto=rest target=floor calls=400 conc=8 instr_per_call=308641 out={tmp_path}"
    )


def test_the_line_names_the_call_measured(tmp_path: Path) -> None:
    """``--rpc getstate`` counts GetState; a session counts moves whatever ``--rpc`` says."""
    (tmp_path / "server.7.1").write_text("events: Ir\ntotals: 8000\n")
    totals = callgrind.Callgrind().totals(tmp_path, "server", 7)
    get = callgrind.line(_args(rpc="getstate", calls=4, conc=8), totals, tmp_path)
    assert get.startswith("callgrind proto=grpc target=getstate calls=4 conc=8 instr_per_call=2000")
    move = callgrind.line(_args(proto="session", calls=4), totals, tmp_path)
    assert move.startswith("callgrind proto=session target=move ")


def test_getstate_is_for_a_unary_protocol() -> None:
    with pytest.raises(SystemExit):
        callgrind.main(["--proto", "session", "--rpc", "getstate"])

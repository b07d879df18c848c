"""The figures of ``bench/service.py``: one phase's measurements, rounds merged, and the
``key=value`` lines the bench prints (the RPC lines, the runtime line, the anchor ratios).
The lines' keys are described in bench/README.md and in ``bench/service.py``'s docstring."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import service_players as players

from scopa.storage import events_key, game_key

__all__ = [
    "PROTOCOLS",
    "RATIO_PLACEHOLDER",
    "RPCS",
    "RUNTIME_INTERVAL_S",
    "PhaseResult",
    "cpu_per_call",
    "game_bytes",
    "line",
    "merge",
    "ratio",
    "report",
    "runtime_line",
    "state_bytes",
    "with_ratio",
]

RPCS = ("CreateGame", "GetState", "PlayCard")
PROTOCOLS = ("grpc", "rest", "connect")
RUNTIME_INTERVAL_S = 1.0
"""The server's runtime line (event-loop lag, GC pauses) comes every this many seconds."""


@dataclass(frozen=True)
class PhaseResult:
    """Client recordings and server-side deltas of one phase."""

    name: str
    rec: players.Recorder
    elapsed_s: float
    cpu_s: float
    client_cpu_s: float
    redis_cmds: int
    redis_roundtrips: int
    windows: tuple[tuple[float, float], ...] = ()
    """The wall-clock (epoch seconds) start and end of each round merged into this result."""
    sys_s: float = 0.0
    """The system (kernel) part of ``cpu_s``."""

    def total_calls(self) -> int:
        """Successful calls of every RPC in the phase."""
        return sum(len(v) for v in self.rec.latencies.values())


def line(**fields: object) -> str:
    return " ".join(f"{k}={_fmt(v)}" for k, v in fields.items())


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def _rpc_line(rpc: str, phase: PhaseResult, conc: int, per_call_calls: int, **extra: object) -> str:
    """One RPC's line; server costs are divided by ``per_call_calls`` (see the module doc)."""
    times = sorted(phase.rec.latencies.get(rpc, ()))
    divisor = max(1, per_call_calls)
    p50, p99 = players.percentile(times, 0.50), players.percentile(times, 0.99)
    # The documented keys first, in the documented order (README); then the extras.
    return line(
        rpc=rpc,
        conc=conc,
        calls_per_s=len(times) / phase.elapsed_s,
        p50_ms=p50 * 1000,
        p99_ms=p99 * 1000,
        cpu_us_per_call=phase.cpu_s * 1e6 / divisor,
        redis_cmds_per_call=phase.redis_cmds / divisor,
        phase=phase.name,
        calls=len(times),
        errors=phase.rec.errors.get(rpc, 0),
        redis_roundtrips_per_call=phase.redis_roundtrips / divisor,
        client_cpu_us_per_call=phase.client_cpu_s * 1e6 / divisor,
        p99_over_p50=p99 / p50 if p50 else 0.0,
        cpu_sys_us_per_call=phase.sys_s * 1e6 / divisor,
        **(_place_fields(phase.rec) if rpc == "PlayCard" else {}),
        **extra,
    )


def _place_fields(rec: players.Recorder) -> dict[str, float]:
    """p50 and p99 (ms) of the moves at each place in their game, where the phase has them."""
    fields = {}
    for place in players.PLACES:
        times = sorted(rec.places.get(place, ()))
        if times:
            fields[f"p50_ms_{place}"] = players.percentile(times, 0.50) * 1000
            fields[f"p99_ms_{place}"] = players.percentile(times, 0.99) * 1000
    return fields


def game_bytes(client: Any, names: Sequence[str], limit: int = 50) -> float:
    """Mean MEMORY USAGE of a finished game's keys: its hash plus its event log (a list)."""
    sizes = []
    for name in names[:limit]:
        game_id = name.removeprefix("games/")
        total = 0
        for key in (game_key(game_id), events_key(game_id)):
            total += int(client.memory_usage(key, samples=0) or 0)
        sizes.append(total)
    return statistics.fmean(sizes) if sizes else 0.0


def state_bytes(client: Any, names: Sequence[str], limit: int = 50) -> int:
    """Mean size of the state plus meta fields of some games (the floor writes that much)."""
    sizes = []
    for name in names[:limit]:
        state, meta = client.hmget(game_key(name.removeprefix("games/")), ["state", "meta"])
        sizes.append(len(state or b"") + len(meta or b""))
    return round(statistics.fmean(sizes)) if sizes else 256


def merge(parts: Sequence[PhaseResult]) -> PhaseResult:
    """One result for several rounds of the same phase."""
    rec = players.Recorder()
    for part in parts:
        for name, times in part.rec.latencies.items():
            rec.latencies.setdefault(name, []).extend(times)
        for name, sizes in part.rec.sizes.items():
            rec.sizes.setdefault(name, []).extend(sizes)
        for name, count in part.rec.errors.items():
            rec.errors[name] = rec.errors.get(name, 0) + count
        for place, times in part.rec.places.items():
            rec.places.setdefault(place, []).extend(times)
    return PhaseResult(
        parts[0].name,
        rec,
        sum(p.elapsed_s for p in parts),
        sum(p.cpu_s for p in parts),
        sum(p.client_cpu_s for p in parts),
        sum(p.redis_cmds for p in parts),
        sum(p.redis_roundtrips for p in parts),
        tuple(w for p in parts for w in p.windows),
        sum(p.sys_s for p in parts),
    )


RATIO_PLACEHOLDER = "vs_anchor=?"


def with_ratio(text: str, key: str, anchor_us: float) -> str:
    """``text`` with its placeholder replaced by ``key=`` our CPU per call over ``anchor_us``."""
    if RATIO_PLACEHOLDER not in text:
        return text
    fields = dict(part.split("=", 1) for part in text.split())
    ratio = float(fields["cpu_us_per_call"]) / anchor_us if anchor_us else 0.0
    return text.replace(RATIO_PLACEHOLDER, f"{key}={ratio:.2f}")


def report(
    conc: int,
    late_hands: int,
    results: Sequence[PhaseResult],
    by_proto: dict[str, tuple[PhaseResult, PhaseResult]],
    anchored: bool = False,
) -> list[str]:
    by_name = {r.name: r for r in results}
    lines = []
    vs: dict[str, object] = {"vs_anchor": "?"} if anchored else {}
    isolated = (
        ("create", "CreateGame", "grpc"),
        ("get", "GetState", "grpc"),
        ("get_rest", "GetState", "rest"),
        ("get_connect", "GetState", "connect"),
    )
    for phase_name, rpc, proto in isolated:
        phase = by_name[phase_name]
        extra_ratio: dict[str, object] = {}
        if rpc == "GetState":
            floor_cpu = cpu_per_call(by_proto[proto][1], "floor")
            extra_ratio["cpu_ratio_vs_floor"] = ratio(cpu_per_call(phase, rpc), floor_cpu)
            extra_ratio.update(vs)
        lines.append(
            _rpc_line(
                rpc,
                phase,
                conc,
                phase.total_calls(),
                cpu_attrib="isolated",
                proto=proto,
                **extra_ratio,
            )
        )
    grpc_cpu = cpu_per_call(by_proto["grpc"][0], "PlayCard")
    for proto in PROTOCOLS:
        play, floor = by_proto[proto]
        floor_rate = floor.rec.calls("floor") / floor.elapsed_s
        rate = play.rec.calls("PlayCard") / play.elapsed_s
        cpu = cpu_per_call(play, "PlayCard")
        extra: dict[str, object] = {
            "cpu_attrib": "isolated",
            "proto": proto,
            "extra_creates": play.rec.calls("CreateGame"),
            "ratio_vs_floor": rate / floor_rate if floor_rate else 0.0,
            "cpu_vs_grpc": ratio(cpu, grpc_cpu),
            "cpu_ratio_vs_floor": ratio(cpu, cpu_per_call(floor, "floor")),
            **vs,
        }
        lines.append(_rpc_line("PlayCard", play, conc, play.total_calls(), **extra))
    if "late" in by_name:
        early, late = by_name["early"], by_name["late"]
        for phase in (early, late):
            hand = 1 if phase is early else late_hands + 1
            extra = {"cpu_attrib": "isolated", "proto": "grpc", "hand": hand, **vs}
            extra["extra_creates"] = phase.rec.calls("CreateGame")
            if phase is late:
                extra["vs_start"] = ratio(cpu_per_call(late, ""), cpu_per_call(early, ""))
            lines.append(_rpc_line("PlayCard", phase, conc, phase.total_calls(), **extra))
    games = by_name["games"]
    for rpc in RPCS:
        lines.append(
            _rpc_line(rpc, games, conc, games.total_calls(), cpu_attrib="phase_avg", proto="grpc")
        )
    for proto in PROTOCOLS:
        floor = by_proto[proto][1]
        lines.append(
            _rpc_line("floor", floor, conc, floor.total_calls(), cpu_attrib="isolated", proto=proto)
        )
    return lines


def runtime_line(log_path: Path, windows: Sequence[tuple[float, float]]) -> str:
    """Where the server's calls waited during the gRPC PlayCard rounds, from its runtime lines.

    Each ``runtime`` log line covers the second before it; the ones logged at least a second
    into a round and before its end are summed: the median and worst of their loop-lag p50 and
    p99, the longest lag, and GC collections (count, total and longest pause) by generation.
    """
    picked = []
    for text in log_path.read_text(errors="replace").splitlines():
        if '"runtime"' not in text:
            continue
        record = json.loads(text)
        at = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")).timestamp()
        if any(start + RUNTIME_INTERVAL_S <= at <= end for start, end in windows):
            picked.append(record)
    fields: dict[str, object] = {"runtime": "play", "proto": "grpc", "intervals": len(picked)}
    if picked:
        fields["loop_lag_p50_ms"] = statistics.median(r["loop_lag_p50_ms"] for r in picked)
        fields["loop_lag_p99_ms"] = max(r["loop_lag_p99_ms"] for r in picked)
        fields["loop_lag_max_ms"] = max(r["loop_lag_max_ms"] for r in picked)
        for gen in range(3):
            fields[f"gc{gen}_count"] = sum(r[f"gc{gen}_count"] for r in picked)
            fields[f"gc{gen}_ms"] = sum(r[f"gc{gen}_total_ms"] for r in picked)
            fields[f"gc{gen}_max_ms"] = max(r[f"gc{gen}_max_ms"] for r in picked)
    return line(**fields)


def cpu_per_call(phase: PhaseResult, rpc: str) -> float:
    return phase.cpu_s / max(1, phase.total_calls())


def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline else 0.0

"""Processes of the service benchmark: a throwaway redis-server, the server, CPU and Redis counters.

Everything listens on 127.0.0.1 only; every process started here is stopped by :func:`stop`.
Starting redis-server, picking free ports and stopping processes are the test helpers' own
(``tests/support``); this module adds only what the benchmark needs beyond them: python children
with its own environment and log file, and the CPU and Redis counters.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc.aio
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.redis_cluster import start_redis_cluster, stop_redis_cluster
from support.redis_server import free_port, start_redis_server, stop_redis_server
from support.server_process import ServerProcess, stop_server

__all__ = [
    "HOST",
    "REDIS_MODES",
    "BenchRedis",
    "Proc",
    "RedisCounters",
    "cpu_seconds",
    "free_port",
    "make_workdir",
    "redis_counters",
    "server_env",
    "start_python",
    "start_redis",
    "start_redis_mode",
    "stop",
    "wait_until",
]

HOST = "127.0.0.1"
TOKEN_SECRET = "bench-secret-0123456789abcdef"
"""The benchmarks' token secret (``SCOPA_TOKEN_SECRET``): a fixed throwaway value."""
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_OWN_COMMANDS = frozenset({"info", "memory", "ping", "client", "hello", "config", "select"})
"""Commands the benchmark itself (or a readiness probe) sends; never charged to an RPC."""
_ROUNDTRIP_COMMANDS = frozenset({"hmget", "evalsha", "evalsha_ro", "script"})
"""Commands the store (and the floor) send over the wire in the benchmarked RPCs; the rest run
inside their Lua scripts: HMGET to load, EVALSHA to create or commit, and SCRIPT LOAD when
redis-py's script call falls back after NOSCRIPT (then EVALSHA again)."""


@dataclass(frozen=True)
class Proc(ServerProcess):
    """A started child process, where its output goes, its port and a name for messages."""

    name: str = "process"


def start_redis() -> Proc:
    """Start a non-persistent redis-server on a free port and wait until it answers PING.

    Its log is in the test helper's own temporary directory, not the benchmark's workdir.
    """
    server = start_redis_server(host=HOST)
    return Proc(server.process, server.port, server.log_path, name="redis")


def server_env(
    port: int,
    http_port: int,
    redis_url: str,
    *,
    tracing: bool = True,
    runtime_stats_s: float | None = None,
) -> dict[str, str]:
    """The server's environment in every benchmark (``bench/service.py``, ``bench/callgrind.py``).

    Stacked decks allowed, JSON access log at info, a one-second drain, no exporters, and the
    per-client rate limits off (one client creates games far faster than any person).
    ``runtime_stats_s`` turns on the server's runtime line (event-loop lag, GC pauses) every
    that many seconds; left off it adds no work (callgrind counts every instruction).
    """
    env = {
        "SCOPA_HOST": HOST,
        "SCOPA_PORT": str(port),
        "SCOPA_HTTP_PORT": str(http_port),
        "REDIS_URL": redis_url,
        "SCOPA_TOKEN_SECRET": TOKEN_SECRET,
        "SCOPA_ALLOW_STACKED_DECKS": "true",
        "SCOPA_LOG_FORMAT": "json",
        "SCOPA_LOG_LEVEL": "info",
        "SCOPA_TRACING": "on" if tracing else "off",
        "SCOPA_GRACE_S": "1",
        "SCOPA_RATE_LIMIT_CREATE_GAME": "off",
        "SCOPA_RATE_LIMIT_JOIN_GAME": "off",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "",
    }
    if runtime_stats_s is not None:
        env["SCOPA_RUNTIME_STATS_S"] = str(runtime_stats_s)
    return env


def start_python(
    name: str,
    args: Sequence[str],
    env: Mapping[str, str],
    workdir: Path,
    port: int,
    wrapper: Sequence[str] = (),
) -> Proc:
    """Start ``python <args>`` (same interpreter) with ``env`` added; output goes to a log file.

    ``wrapper`` goes before the interpreter (``bench/callgrind.py`` runs it under valgrind).
    """
    log_path = workdir / f"{name}.log"
    full_env = {**os.environ, **env}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*wrapper, sys.executable, *args],
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Proc(process, port, log_path, name=name)


async def wait_until(
    proc: Proc,
    timeout_s: float,
    probe: Callable[[], Awaitable[object]],
    interval_s: float = 0.1,
    retry_on: tuple[type[Exception], ...] = (grpc.aio.AioRpcError, ConnectionError),
) -> None:
    """Retry ``probe`` (one call) until it succeeds; fail if ``proc`` exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.process.poll() is not None:
            raise RuntimeError(f"{proc.name} exited; see {proc.log_path}")
        try:
            await probe()
            return
        except retry_on:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(interval_s)


def stop(proc: Proc, timeout_s: float = 15.0) -> int:
    """Send SIGTERM, wait (SIGKILL after ``timeout_s``) and return the exit code."""
    return stop_server(proc, timeout_s)


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU time the process has used so far, from /proc/<pid>/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    # After the command name: state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
    return int(fields[11]) / _CLK_TCK, int(fields[12]) / _CLK_TCK


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far, from /proc/<pid>/stat."""
    return sum(cpu_times(pid))


@dataclass(frozen=True)
class RedisCounters:
    """Cumulative command counts of a redis-server, per command name."""

    calls: Mapping[str, int]

    def commands_since(self, earlier: RedisCounters) -> int:
        """Commands run since ``earlier``, inside Lua scripts included, own probes excluded."""
        return self._delta(earlier, lambda name: name not in _OWN_COMMANDS)

    def roundtrips_since(self, earlier: RedisCounters) -> int:
        """Commands sent over the wire by the store since ``earlier``."""
        return self._delta(earlier, lambda name: name in _ROUNDTRIP_COMMANDS)

    def _delta(self, earlier: RedisCounters, keep: Callable[[str], bool]) -> int:
        return sum(
            count - earlier.calls.get(name, 0) for name, count in self.calls.items() if keep(name)
        )


def redis_counters(client: redis.Redis[bytes]) -> RedisCounters:
    """Read ``INFO commandstats`` (sub-commands such as ``script|load`` fold into ``script``)."""
    info = client.info("commandstats")
    calls: dict[str, int] = {}
    for key, value in info.items():
        name = str(key).removeprefix("cmdstat_").split("|", 1)[0]
        if isinstance(value, dict):
            calls[name] = calls.get(name, 0) + int(value["calls"])
    return RedisCounters(calls)


REDIS_MODES = ("standalone", "cluster")


@dataclass
class BenchRedis:
    """The Redis of a benchmark run: one server or a 3-primary Redis Cluster."""

    mode: str
    url: str
    """``REDIS_URL`` for the server and the floor."""
    client: Any
    """A client that routes by key (``redis.Redis`` or ``redis.RedisCluster``)."""
    nodes: list[redis.Redis[bytes]]
    """One client per primary, for ``INFO commandstats``."""
    stop: Callable[[], None]

    def counters(self) -> RedisCounters:
        """The command counts of every primary, summed."""
        calls: dict[str, int] = {}
        for node in self.nodes:
            for name, count in redis_counters(node).calls.items():
                calls[name] = calls.get(name, 0) + count
        return RedisCounters(calls)

    def close(self) -> None:
        """Close the clients and stop the servers."""
        self.client.close()
        for node in self.nodes:
            node.close()
        self.stop()


def start_redis_mode(mode: str) -> BenchRedis:
    """Start a throwaway Redis of ``mode`` (one of :data:`REDIS_MODES`) on free ports."""
    if mode == "cluster":
        cluster = start_redis_cluster()
        nodes = [redis.Redis(host=HOST, port=port) for port in cluster.ports]
        routed: redis.RedisCluster[bytes] = redis.RedisCluster(host=HOST, port=cluster.ports[0])
        return BenchRedis(mode, cluster.url, routed, nodes, lambda: stop_redis_cluster(cluster))
    server = start_redis_server(host=HOST)
    client: redis.Redis[bytes] = redis.Redis(host=HOST, port=server.port)
    return BenchRedis(mode, server.url, client, [client], lambda: stop_redis_server(server))


def make_workdir() -> Path:
    """A fresh temporary directory for logs and profiles."""
    return Path(tempfile.mkdtemp(prefix="scopa-bench-"))


def _py_spy() -> str:
    """The py-spy executable: beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("--py-spy needs py-spy (a dev dependency: make .venv/.installed)")
    return found


def start_py_spy(pid: int, out: Path) -> subprocess.Popen[bytes]:
    """Sample ``pid`` until :func:`stop_py_spy`, raw collapsed stacks to ``out``."""
    cmd = [_py_spy(), "record", "--pid", str(pid), "--format", "raw", "--rate", "200",
           "--full-filenames", "--output", str(out)]  # fmt: skip
    sampler = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.2)  # attached before the phase starts
    return sampler


def stop_py_spy(sampler: subprocess.Popen[bytes]) -> None:
    """Stop the sampler; py-spy writes its file on SIGINT."""
    sampler.send_signal(signal.SIGINT)
    try:
        sampler.wait(30)
    except subprocess.TimeoutExpired:
        sampler.kill()
        sampler.wait()

"""Processes of the service benchmark: a throwaway redis-server, the server, CPU and Redis counters.

Everything listens on 127.0.0.1 only; every process started here is stopped by :func:`stop`.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import redis

__all__ = [
    "HOST",
    "Proc",
    "RedisCounters",
    "cpu_seconds",
    "free_port",
    "make_workdir",
    "redis_counters",
    "start_python",
    "start_redis",
    "stop",
]

HOST = "127.0.0.1"
_REDIS_DEFAULT_PORT = 6379
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_OWN_COMMANDS = frozenset({"info", "memory", "ping", "client", "hello", "config", "select"})
"""Commands the benchmark itself (or a readiness probe) sends; never charged to an RPC."""
_ROUNDTRIP_COMMANDS = frozenset({"hmget", "evalsha", "eval", "script", "exists", "xrange"})
"""Commands the store sends over the wire; the rest run inside its Lua scripts."""


@dataclass(frozen=True)
class Proc:
    """A started child process, where its output goes and (for servers) its port."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now (never Redis' default)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if port != _REDIS_DEFAULT_PORT:
            return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(workdir: Path, timeout_s: float = 10.0) -> Proc:
    """Start a non-persistent redis-server on a free port and wait until it answers PING."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    log_path = workdir / "redis.log"
    command = [
        binary,
        "--port", str(port),
        "--bind", HOST,
        "--save", "",
        "--appendonly", "no",
        "--dir", str(workdir),
        "--logfile", str(log_path),
        "--daemonize", "no",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    proc = Proc("redis", process, port, log_path)
    deadline = time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        if _answers_ping(port):
            return proc
        time.sleep(0.02)
    stop(proc)
    raise RuntimeError(f"redis-server did not start; see {log_path}")


def start_python(
    name: str, args: Sequence[str], env: Mapping[str, str], workdir: Path, port: int
) -> Proc:
    """Start ``python <args>`` (same interpreter) with ``env`` added; output goes to a log file."""
    log_path = workdir / f"{name}.log"
    full_env = {**os.environ, **env}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, *args],
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Proc(name, process, port, log_path)


def stop(proc: Proc, timeout_s: float = 15.0) -> int | None:
    """Send SIGTERM, wait (SIGKILL after ``timeout_s``) and return the exit code."""
    if proc.process.poll() is None:
        proc.process.terminate()
        try:
            proc.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.process.kill()
            proc.process.wait()
    return proc.process.returncode


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far, from /proc/<pid>/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    # After the command name: state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


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


def make_workdir() -> Path:
    """A fresh temporary directory for logs and profiles."""
    return Path(tempfile.mkdtemp(prefix="scopa-bench-"))

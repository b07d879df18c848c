"""Start and stop a throwaway Sentinel set-up: one primary and one sentinel on free ports.

The sentinel is ``redis-server --sentinel`` (the same binary; Debian's redis-sentinel package
only adds a service around it).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.redis_server import RedisServer, free_port, start_redis_server, stop_redis_server

MASTER_NAME = "scopa"


@dataclass(frozen=True)
class RedisSentinel:
    """A primary watched by a sentinel, and the ``redis+sentinel://`` URL that reaches it."""

    primary: RedisServer
    host: str
    port: int
    process: subprocess.Popen[bytes]
    workdir: Path

    @property
    def url(self) -> str:
        """The ``redis+sentinel://`` URL: the sentinel, then the master's name."""
        return f"redis+sentinel://{self.host}:{self.port}/{MASTER_NAME}"


def _master_addr(host: str, port: int) -> str:
    binary = shutil.which("redis-cli") or "/usr/bin/redis-cli"
    done = subprocess.run(
        [binary, "-h", host, "-p", str(port), "SENTINEL", "get-master-addr-by-name", MASTER_NAME],
        capture_output=True,
        check=False,
        timeout=5,
        text=True,
    )
    return " ".join(done.stdout.split())


def start_redis_sentinel(host: str = "127.0.0.1", timeout_s: float = 10.0) -> RedisSentinel:
    """Start a primary and a sentinel monitoring it (quorum 1); wait until the sentinel knows it."""
    primary = start_redis_server(host=host)
    workdir = Path(tempfile.mkdtemp(prefix="scopa-sentinel-"))
    port = free_port(host)
    conf = workdir / "sentinel.conf"
    conf.write_text(
        f"port {port}\nbind {host}\ndir {workdir}\nlogfile {workdir / 'sentinel.log'}\n"
        f"sentinel monitor {MASTER_NAME} {host} {primary.port} 1\n"
        f"sentinel down-after-milliseconds {MASTER_NAME} 2000\n"
    )
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    process = subprocess.Popen(
        [binary, str(conf), "--sentinel"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    sentinel = RedisSentinel(primary, host, port, process, workdir)
    deadline = time.monotonic() + timeout_s
    while _master_addr(host, port) != f"{host} {primary.port}":
        if process.poll() is not None or time.monotonic() > deadline:
            stop_redis_sentinel(sentinel)
            raise RuntimeError(f"redis sentinel did not start; see {workdir}")
        time.sleep(0.05)
    return sentinel


def stop_redis_sentinel(sentinel: RedisSentinel) -> None:
    """Stop the sentinel and the primary."""
    if sentinel.process.poll() is None:
        sentinel.process.terminate()
        try:
            sentinel.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            sentinel.process.kill()
            sentinel.process.wait()
    stop_redis_server(sentinel.primary)
    shutil.rmtree(sentinel.workdir, ignore_errors=True)


@contextmanager
def running_redis_sentinel() -> Iterator[RedisSentinel]:
    """Run a throwaway Sentinel set-up for the duration of the block."""
    sentinel = start_redis_sentinel()
    try:
        yield sentinel
    finally:
        stop_redis_sentinel(sentinel)

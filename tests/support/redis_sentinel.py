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
from support.tools import system_tool

MASTER_NAME = "scopa"


@dataclass(frozen=True)
class RedisSentinel:
    """A primary watched by a sentinel, and the ``redis+sentinel://`` URL that reaches it."""

    primary: RedisServer
    replicas: tuple[RedisServer, ...]
    host: str
    port: int
    process: subprocess.Popen[bytes]
    workdir: Path

    @property
    def url(self) -> str:
        """The ``redis+sentinel://`` URL: the sentinel, then the master's name."""
        return f"redis+sentinel://{self.host}:{self.port}/{MASTER_NAME}"


def _cli(host: str, port: int, *args: str) -> str:
    binary = system_tool("redis-cli")
    done = subprocess.run(
        [binary, "-h", host, "-p", str(port), *args],
        capture_output=True,
        check=False,
        timeout=5,
        text=True,
    )
    return done.stdout


def master_addr(sentinel: RedisSentinel) -> str:
    """``host port`` of the master the sentinel names now."""
    return _master_addr(sentinel.host, sentinel.port)


def _master_addr(host: str, port: int) -> str:
    return " ".join(_cli(host, port, "SENTINEL", "get-master-addr-by-name", MASTER_NAME).split())


def _replicating(
    primary: RedisServer, count: int, timeout_s: float, field: str = "connected_slaves"
) -> None:
    deadline = time.monotonic() + timeout_s
    while f"{field}:{count}" not in _cli(primary.host, primary.port, "INFO", "replication"):
        if time.monotonic() > deadline:
            raise RuntimeError("the replicas did not connect to the primary")
        time.sleep(0.05)


def start_redis_sentinel(
    host: str = "127.0.0.1", timeout_s: float = 10.0, replicas: int = 0
) -> RedisSentinel:
    """Start a primary (and ``replicas``) and a sentinel monitoring it (quorum 1).

    Returns once the sentinel knows the primary; replicas are in sync before it starts, so its
    first look at the primary finds them (a failover can then be asked for at once).
    """
    primary = start_redis_server(host=host)
    followers = tuple(start_redis_server(host=host) for _ in range(replicas))
    for follower in followers:
        _cli(host, follower.port, "REPLICAOF", host, str(primary.port))
    if followers:
        _replicating(primary, len(followers), timeout_s)
        # As docs/architecture.md advises: a demoted primary refuses writes (NOREPLICAS).
        _cli(host, primary.port, "CONFIG", "SET", "min-replicas-to-write", "1")
        _replicating(primary, len(followers), timeout_s, "min_slaves_good_slaves")
    workdir = Path(tempfile.mkdtemp(prefix="scopa-sentinel-"))
    port = free_port(host)
    conf = workdir / "sentinel.conf"
    conf.write_text(
        f"port {port}\nbind {host}\ndir {workdir}\nlogfile {workdir / 'sentinel.log'}\n"
        f"sentinel monitor {MASTER_NAME} {host} {primary.port} 1\n"
        f"sentinel down-after-milliseconds {MASTER_NAME} 2000\n"
    )
    binary = system_tool("redis-server")
    process = subprocess.Popen(
        [binary, str(conf), "--sentinel"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    sentinel = RedisSentinel(primary, followers, host, port, process, workdir)
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
    for replica in sentinel.replicas:
        stop_redis_server(replica)
    shutil.rmtree(sentinel.workdir, ignore_errors=True)


@contextmanager
def running_redis_sentinel(replicas: int = 0) -> Iterator[RedisSentinel]:
    """Run a throwaway Sentinel set-up for the duration of the block."""
    sentinel = start_redis_sentinel(replicas=replicas)
    try:
        yield sentinel
    finally:
        stop_redis_sentinel(sentinel)

"""Start and stop a throwaway 3-primary Redis Cluster on free ports (no replicas, no disk)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.redis_server import free_port
from support.tools import system_tool

_SLOTS = 16384


@dataclass(frozen=True)
class RedisCluster:
    """The running primaries of a local Redis Cluster."""

    host: str
    ports: tuple[int, ...]
    processes: tuple[subprocess.Popen[bytes], ...]
    workdir: Path

    @property
    def url(self) -> str:
        """The ``redis+cluster://`` URL listing every primary as a seed node."""
        nodes = ",".join(f"{self.host}:{port}" for port in self.ports)
        return f"redis+cluster://{nodes}"


def _cli(host: str, port: int, *args: str) -> str:
    binary = system_tool("redis-cli")
    done = subprocess.run(
        [binary, "-h", host, "-p", str(port), *args],
        capture_output=True,
        check=True,
        timeout=10,
        text=True,
    )
    return done.stdout


def _launch(host: str, port: int, bus_port: int, workdir: Path) -> subprocess.Popen[bytes]:
    binary = system_tool("redis-server")
    command = [
        binary,
        "--port", str(port),
        "--bind", host,
        "--cluster-enabled", "yes",
        "--cluster-port", str(bus_port),  # not port + 10000, which may exceed 65535
        "--cluster-config-file", f"nodes-{port}.conf",
        "--cluster-node-timeout", "2000",
        "--save", "",
        "--appendonly", "no",
        "--dir", str(workdir),
        "--logfile", str(workdir / f"redis-{port}.log"),
    ]  # fmt: skip
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def _wait(check: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if callable(check) and check():
                return
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"Redis Cluster: {what} timed out")


def _assign_slots(host: str, ports: tuple[int, ...], bus_ports: tuple[int, ...]) -> None:
    """Give each primary a contiguous third of the slots and introduce them to each other."""
    share = _SLOTS // len(ports)
    for index, port in enumerate(ports):
        first = index * share
        last = _SLOTS - 1 if index == len(ports) - 1 else first + share - 1
        _cli(host, port, "CLUSTER", "ADDSLOTSRANGE", str(first), str(last))
    for port, bus_port in zip(ports[1:], bus_ports[1:], strict=True):
        _cli(host, ports[0], "CLUSTER", "MEET", host, str(port), str(bus_port))


def _ready(host: str, ports: tuple[int, ...]) -> bool:
    for port in ports:
        info = _cli(host, port, "CLUSTER", "INFO")
        if "cluster_state:ok" not in info or f"cluster_known_nodes:{len(ports)}" not in info:
            return False
    return True


def start_redis_cluster(primaries: int = 3, host: str = "127.0.0.1") -> RedisCluster:
    """Start ``primaries`` cluster-enabled redis-servers, join them and wait for state ok."""
    workdir = Path(tempfile.mkdtemp(prefix="scopa-cluster-"))
    ports = tuple(free_port(host) for _ in range(primaries))
    bus_ports = tuple(free_port(host) for _ in range(primaries))
    processes = tuple(
        _launch(host, port, bus, workdir) for port, bus in zip(ports, bus_ports, strict=True)
    )
    cluster = RedisCluster(host, ports, processes, workdir)
    try:
        for port in ports:
            _wait(lambda p=port: _cli(host, p, "PING").strip() == "PONG", 10, "start-up")
        _assign_slots(host, ports, bus_ports)
        _wait(lambda: _ready(host, ports), 20, "joining")
    except BaseException:
        stop_redis_cluster(cluster)
        raise
    return cluster


def stop_redis_cluster(cluster: RedisCluster) -> None:
    """Stop every node and remove the cluster's directory."""
    for process in cluster.processes:
        if process.poll() is None:
            process.terminate()
    for process in cluster.processes:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    shutil.rmtree(cluster.workdir, ignore_errors=True)


@contextmanager
def running_redis_cluster(primaries: int = 3) -> Iterator[RedisCluster]:
    """Run a throwaway Redis Cluster for the duration of the block."""
    cluster = start_redis_cluster(primaries)
    try:
        yield cluster
    finally:
        stop_redis_cluster(cluster)

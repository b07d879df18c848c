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
_START_ATTEMPTS = 5


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


def _cli(host: str, port: int, *args: str, timeout_s: float = 10) -> str:
    binary = system_tool("redis-cli")
    done = subprocess.run(
        [binary, "-h", host, "-p", str(port), *args],
        capture_output=True,
        check=True,
        timeout=timeout_s,
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


def _launch_nodes(host: str, primaries: int, workdir: Path) -> tuple[RedisCluster, tuple[int, ...]]:
    ports = tuple(free_port(host) for _ in range(primaries))
    bus_ports = tuple(free_port(host) for _ in range(primaries))
    processes = tuple(
        _launch(host, port, bus, workdir) for port, bus in zip(ports, bus_ports, strict=True)
    )
    return RedisCluster(host, ports, processes, workdir), bus_ports


def _serves(host: str, port: int, process: subprocess.Popen[bytes]) -> bool:
    """Whether ``process`` answers on ``port`` (not another server that took the port)."""
    try:
        info = _cli(host, port, "INFO", "server", timeout_s=1)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return False
    return f"process_id:{process.pid}\r" in info or f"process_id:{process.pid}\n" in info


def _all_answer(cluster: RedisCluster, timeout_s: float) -> bool:
    """Wait until every node answers: False as soon as one has exited.

    A node exits when another process took its port (or bus port) between ``free_port``
    releasing it and the node binding it, which parallel test workers make likely.
    """
    deadline = time.monotonic() + timeout_s
    for port, process in zip(cluster.ports, cluster.processes, strict=True):
        while not _serves(cluster.host, port, process):
            if process.poll() is not None:
                return False
            if time.monotonic() > deadline:
                raise RuntimeError("Redis Cluster: start-up timed out")
            time.sleep(0.05)
    return True


def start_redis_cluster(primaries: int = 3, host: str = "127.0.0.1") -> RedisCluster:
    """Start ``primaries`` cluster-enabled redis-servers, join them and wait for state ok.

    A node that exits at start (its port was taken meanwhile) restarts the whole set on
    fresh ports, up to ``_START_ATTEMPTS`` times.
    """
    workdir = Path(tempfile.mkdtemp(prefix="scopa-cluster-"))
    for _ in range(_START_ATTEMPTS):
        cluster, bus_ports = _launch_nodes(host, primaries, workdir)
        try:
            if _all_answer(cluster, 10):
                _assign_slots(host, cluster.ports, bus_ports)
                _wait(lambda c=cluster: _ready(host, c.ports), 20, "joining")
                return cluster
        except BaseException:
            stop_redis_cluster(cluster)
            raise
        _stop_nodes(cluster)
    shutil.rmtree(workdir, ignore_errors=True)
    raise RuntimeError(f"Redis Cluster: no start in {_START_ATTEMPTS} attempts")


def _stop_nodes(cluster: RedisCluster) -> None:
    for process in cluster.processes:
        if process.poll() is None:
            process.terminate()
    for process in cluster.processes:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def stop_redis_cluster(cluster: RedisCluster) -> None:
    """Stop every node and remove the cluster's directory."""
    _stop_nodes(cluster)
    shutil.rmtree(cluster.workdir, ignore_errors=True)


@contextmanager
def running_redis_cluster(primaries: int = 3) -> Iterator[RedisCluster]:
    """Run a throwaway Redis Cluster for the duration of the block."""
    cluster = start_redis_cluster(primaries)
    try:
        yield cluster
    finally:
        stop_redis_cluster(cluster)

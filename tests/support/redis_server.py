"""Start and stop a throwaway, non-persistent redis-server on a free port (never 6379)."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.tools import system_tool

DEFAULT_PORT = 6379
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class RedisServer:
    """A running redis-server process and where to reach it."""

    host: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        """The redis:// URL of database 0."""
        return f"redis://{self.host}:{self.port}/0"


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free right now, never Redis' default port."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
            port = int(sock.getsockname()[1])
        if port != DEFAULT_PORT:
            return port


def _answers_ping(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _launch(binary: str, host: str, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    log_path = workdir / f"redis-{port}.log"
    command = [
        binary,
        "--port", str(port),
        "--bind", host,
        "--save", "",
        "--appendonly", "no",
        "--dir", str(workdir),
        "--logfile", str(log_path),
        "--daemonize", "no",
    ]  # fmt: skip
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def start_redis_server(
    binary: str | None = None,
    host: str = "127.0.0.1",
    timeout_s: float = 10.0,
) -> RedisServer:
    """Start redis-server on a free port and wait until it answers PING."""
    path = binary or system_tool("redis-server")
    workdir = Path(tempfile.mkdtemp(prefix="scopa-redis-"))
    for _ in range(_START_ATTEMPTS):
        port = free_port(host)
        process = _launch(path, host, port, workdir)
        deadline = time.monotonic() + timeout_s
        while process.poll() is None and time.monotonic() < deadline:
            if _answers_ping(host, port):
                return RedisServer(host, port, process, workdir / f"redis-{port}.log")
            time.sleep(0.02)
        _terminate(process)
    raise RuntimeError(f"redis-server did not start; see logs in {workdir}")


def restart_redis_server(server: RedisServer, timeout_s: float = 10.0) -> RedisServer:
    """Stop the server after saving its data (SHUTDOWN SAVE), then start it on the same port.

    The data survives (loaded from the dump in the server's directory); every connection is cut.
    """
    workdir = server.log_path.parent
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(b"SHUTDOWN SAVE\r\n")
        sock.recv(64)
    server.process.wait(timeout=timeout_s)
    binary = system_tool("redis-server")
    process = _launch(binary, server.host, server.port, workdir)
    deadline = time.monotonic() + timeout_s
    while not _answers_ping(server.host, server.port):
        if process.poll() is not None or time.monotonic() > deadline:
            _terminate(process)
            raise RuntimeError(f"redis-server did not restart; see {server.log_path}")
        time.sleep(0.02)
    return RedisServer(server.host, server.port, process, server.log_path)


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def stop_redis_server(server: RedisServer) -> None:
    """Stop the server process (its data is never persisted)."""
    _terminate(server.process)


@contextmanager
def running_redis_server(binary: str | None = None) -> Iterator[RedisServer]:
    """Run a throwaway redis-server for the duration of the block."""
    server = start_redis_server(binary)
    try:
        yield server
    finally:
        stop_redis_server(server)

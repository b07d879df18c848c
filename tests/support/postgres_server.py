"""Start and stop a throwaway PostgreSQL server (initdb in a temporary directory, fsync off) on a
free port. As root it runs as the ``postgres`` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.ports import PortTaken, on_free_port
from support.tools import find_tool, system_tool


@dataclass(frozen=True)
class PostgresServer:
    """A running postgres process and where to reach it."""

    port: int
    process: subprocess.Popen[bytes]
    datadir: Path

    @property
    def url(self) -> str:
        """The postgresql:// URL of its ``postgres`` database (trust authentication)."""
        return f"postgresql://scopa@127.0.0.1:{self.port}/postgres"


def _binary(name: str) -> str:
    """``name`` from the PATH, or Debian's /usr/lib/postgresql/<version>/bin (skipped if none)."""
    found = find_tool(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    return found or system_tool(name)


def _as_owner(command: list[str]) -> list[str]:
    """``command`` run as the postgres user when this process is root."""
    if os.geteuid() == 0:
        return [system_tool("runuser"), "-u", "postgres", "--", *command]
    return command


def _answers(port: int, log: Path) -> bool:
    """Whether the server accepts connections on ``port`` and has said it is ready."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            pass
    except OSError:
        return False
    return b"ready to accept connections" in log.read_bytes()


@contextmanager
def running_postgres_server(
    timeout_s: float = 30.0, port: int | None = None
) -> Iterator[PostgresServer]:
    """Run a throwaway PostgreSQL server for the duration of the block (on ``port``, or a free
    one)."""
    initdb, postgres = _binary("initdb"), _binary("postgres")
    workdir = Path(tempfile.mkdtemp(prefix="scopa-pg-"))
    datadir = workdir / "data"
    if os.geteuid() == 0:
        shutil.chown(workdir, "postgres", "postgres")
    subprocess.run(
        _as_owner([initdb, "-D", str(datadir), "-U", "scopa", "--auth=trust", "--no-sync"]),
        check=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server = (
            _start_on(port, postgres, datadir, workdir, timeout_s)
            if port is not None
            else on_free_port(lambda free: _start_on(free, postgres, datadir, workdir, timeout_s))
        )
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    try:
        yield server
    finally:
        _stop(server.process)
        shutil.rmtree(workdir, ignore_errors=True)


def _start_on(
    port: int, postgres: str, datadir: Path, workdir: Path, timeout_s: float
) -> PostgresServer:
    """postgres on ``port`` once it is ready (PortTaken: it exited first)."""
    command = [
        postgres, "-D", str(datadir), "-p", str(port), "-k", str(workdir),
        "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
    ]  # fmt: skip
    with open(workdir / "postgres.log", "wb") as log:
        process = subprocess.Popen(
            _as_owner(command), stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    deadline = time.monotonic() + timeout_s
    while not _answers(port, workdir / "postgres.log"):
        if process.poll() is not None:
            raise PortTaken(f"postgres exited on port {port}; see {workdir}/postgres.log")
        if time.monotonic() > deadline:
            _stop(process)
            raise RuntimeError(f"postgres did not start; see {workdir}/postgres.log")
        time.sleep(0.05)
    return PostgresServer(port, process, datadir)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()

"""Start and stop a throwaway redis-server that accepts TLS only, with a self-signed certificate.

The certificate (for IP 127.0.0.1) is made with the ``openssl`` command line and is its own CA,
so clients trust it with ``ssl_ca_certs=<cert>`` exactly as they would a private CA.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from support.ports import PortTaken, on_free_port
from support.tools import system_tool


@dataclass(frozen=True)
class RedisTls:
    """A TLS-only redis-server and the CA file that verifies it."""

    port: int
    process: subprocess.Popen[bytes]
    ca_file: Path
    workdir: Path

    @property
    def url(self) -> str:
        """The ``rediss://`` URL, trusting the server's certificate as its CA."""
        return f"rediss://127.0.0.1:{self.port}/0?ssl_ca_certs={quote(str(self.ca_file))}"


def _certificate(workdir: Path) -> tuple[Path, Path]:
    cert, key = workdir / "cert.pem", workdir / "key.pem"
    command = [
        system_tool("openssl"),
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        "-keyout", str(key), "-out", str(cert),
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=30)
    return cert, key


def _answers_ping(port: int, ca_file: Path) -> bool:
    context = ssl.create_default_context(cafile=str(ca_file))
    try:
        with (
            socket.create_connection(("127.0.0.1", port), timeout=0.5) as raw,
            context.wrap_socket(raw, server_hostname="127.0.0.1") as sock,
        ):
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis_tls(timeout_s: float = 10.0) -> RedisTls:
    """Start redis-server with only a TLS port (no plain one) and wait until it answers."""
    workdir = Path(tempfile.mkdtemp(prefix="scopa-redis-tls-"))
    cert, key = _certificate(workdir)
    return on_free_port(lambda port: _start_on(port, workdir, cert, key, timeout_s))


def _start_on(port: int, workdir: Path, cert: Path, key: Path, timeout_s: float) -> RedisTls:
    command = [
        system_tool("redis-server"),
        "--port", "0",
        "--tls-port", str(port),
        "--bind", "127.0.0.1",
        "--tls-cert-file", str(cert),
        "--tls-key-file", str(key),
        "--tls-ca-cert-file", str(cert),
        "--tls-auth-clients", "no",
        "--save", "",
        "--appendonly", "no",
        "--dir", str(workdir),
        "--logfile", str(workdir / "redis.log"),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    server = RedisTls(port, process, cert, workdir)
    deadline = time.monotonic() + timeout_s
    while not _answers_ping(port, cert):
        if process.poll() is not None:
            raise PortTaken(f"redis-server with TLS exited on port {port}")
        if time.monotonic() > deadline:
            stop_redis_tls(server)
            raise RuntimeError("redis-server with TLS did not start")
        time.sleep(0.05)
    return server


def stop_redis_tls(server: RedisTls) -> None:
    """Stop the server and remove its directory (certificate included)."""
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    shutil.rmtree(server.workdir, ignore_errors=True)


@contextmanager
def running_redis_tls() -> Iterator[RedisTls]:
    """Run a TLS-only redis-server for the duration of the block."""
    server = start_redis_tls()
    try:
        yield server
    finally:
        stop_redis_tls(server)

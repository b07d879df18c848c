"""Run nginx (from apt) as an L7 balancer in front of server replicas, as the test's own user.

Everything lives in a temporary prefix: the configuration, the pid file, logs and temp paths;
nginx listens on free loopback ports only and runs in the foreground (``daemon off``) so the
test owns the process. ``grpc_pass`` balances gRPC (HTTP/2 without TLS) over the replicas'
gRPC ports; ``proxy_pass`` does the same for their HTTP ports when they have one.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.ports import PortTaken, on_free_port
from support.redis_server import free_port
from support.tools import system_tool

_CONF = """\
{user}worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 4096; }}
http {{
  access_log {prefix}/access.log;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  upstream scopa_grpc {{
{grpc_servers}
  }}
  server {{
    listen 127.0.0.1:{grpc_port} http2;
    location / {{
      grpc_pass grpc://scopa_grpc;
      grpc_read_timeout 300s;
      grpc_send_timeout 300s;
    }}
  }}
{http_block}}}
"""

_HTTP_BLOCK = """\
  upstream scopa_http {{
{http_servers}
  }}
  server {{
    listen 127.0.0.1:{http_port};
    location / {{
      proxy_pass http://scopa_http;
      proxy_http_version 1.1;
      proxy_buffering off;
      proxy_read_timeout 300s;
    }}
  }}
"""


@dataclass(frozen=True)
class Nginx:
    """A running nginx balancer and the ports it listens on."""

    process: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int | None
    prefix: Path

    @property
    def grpc_target(self) -> str:
        """The host:port gRPC clients dial."""
        return f"127.0.0.1:{self.grpc_port}"

    def error_log(self) -> str:
        """nginx's error log so far (upstream failures are logged there)."""
        path = self.prefix / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _servers(ports: Sequence[int]) -> str:
    # A replica that fails once is skipped for a second; clients retry the failed call.
    return "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;" for p in ports)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def start_nginx(
    grpc_ports: Sequence[int], http_ports: Sequence[int] = (), timeout_s: float = 10.0
) -> Nginx:
    """Start nginx balancing ``grpc_ports`` (and ``http_ports`` when given) on free ports."""
    return on_free_port(
        lambda grpc: _start_on(
            grpc, free_port() if http_ports else None, grpc_ports, http_ports, timeout_s
        )
    )


def _start_on(
    grpc_port: int,
    http_port: int | None,
    grpc_ports: Sequence[int],
    http_ports: Sequence[int],
    timeout_s: float,
) -> Nginx:
    """nginx listening on ``grpc_port`` (and ``http_port``) once its pid file says it bound
    them: a port that merely accepts connections may be another process's (PortTaken: nginx
    could not bind, and gave up or is retrying)."""
    binary = system_tool("nginx")
    prefix = Path(tempfile.mkdtemp(prefix="scopa-nginx-"))
    http_block = (
        _HTTP_BLOCK.format(http_servers=_servers(http_ports), http_port=http_port)
        if http_ports
        else ""
    )
    conf = prefix / "nginx.conf"
    conf.write_text(
        _CONF.format(
            # As root, nginx would hand its worker to "nobody"; keep it the test's own user.
            user="user root;\n" if os.geteuid() == 0 else "",
            prefix=prefix,
            grpc_servers=_servers(grpc_ports),
            grpc_port=grpc_port,
            http_block=http_block,
        )
    )
    process = subprocess.Popen(
        [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    nginx = Nginx(process, grpc_port, http_port, prefix)
    deadline = time.monotonic() + timeout_s
    while not ((prefix / "nginx.pid").exists() and _listening(grpc_port)):
        log = nginx.error_log()
        if process.poll() is not None or "Address already in use" in log:
            stop_nginx(nginx)
            raise PortTaken(f"nginx could not bind its ports:\n{log}")
        if time.monotonic() > deadline:
            stop_nginx(nginx)
            raise RuntimeError(f"nginx did not start:\n{log}")
        time.sleep(0.02)
    return nginx


def stop_nginx(nginx: Nginx) -> None:
    """Stop nginx (SIGTERM: its workers stop too) and remove its prefix."""
    if nginx.process.poll() is None:
        nginx.process.send_signal(signal.SIGTERM)
        try:
            nginx.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            nginx.process.kill()
            nginx.process.wait()
    shutil.rmtree(nginx.prefix, ignore_errors=True)


@contextmanager
def running_nginx(grpc_ports: Sequence[int], http_ports: Sequence[int] = ()) -> Iterator[Nginx]:
    """Run nginx in front of the given ports for the duration of the block."""
    nginx = start_nginx(grpc_ports, http_ports)
    try:
        yield nginx
    finally:
        stop_nginx(nginx)

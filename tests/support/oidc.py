"""A real OpenID Connect provider process for the identity tests (tests/oidc/provider.mjs).

panva's ``oidc-provider`` (tests/oidc/package.json, installed by ``make test`` with ``npm ci``)
on a free port, with clients that get JWT access tokens by the client_credentials grant (no
browser): each client id is the ``sub`` of its tokens, so two clients are two signed-in
players. The tests make the provider's signing keys, so they can rotate them (a restart on the
same port with a new key first) and also sign tokens of their own with them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from support.ports import ATTEMPTS, PortTaken
from support.redis_server import free_port
from support.tools import require_all, system_tool

OIDC_DIR = Path(__file__).resolve().parents[1] / "oidc"
AUDIENCE = "https://scopa.test/api"
SECRET = "a-test-client-secret-0123456789abcdef"


def require_provider() -> None:
    """Skip the calling test (fail it under SCOPA_REQUIRE_ALL) when the provider cannot run:
    no node, or tests/oidc not installed (``make test`` installs it)."""
    system_tool("node")
    if not (OIDC_DIR / "node_modules" / "oidc-provider").is_dir():
        why = "needs tests/oidc/node_modules: run `cd tests/oidc && npm ci` (make test does)"
        if require_all():
            pytest.fail(why, pytrace=False)
        pytest.skip(why)


def new_key(kid: str) -> tuple[rsa.RSAPrivateKey, dict[str, Any]]:
    """An RSA signing key and its private JWK (kid, RS256, use sig)."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private))
    jwk.update(kid=kid, alg="RS256", use="sig")
    return private, jwk


class OidcProvider:
    """One provider process: start, stop, restart with other keys, and get tokens from it."""

    def __init__(self, clients: dict[str, int], keys: list[dict[str, Any]]) -> None:
        """``clients``: client id -> access token lifetime in seconds."""
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.clients = clients
        self.keys = keys
        self._dir = Path(tempfile.mkdtemp(prefix="scopa-oidc-"))
        self._process: subprocess.Popen[bytes] | None = None
        self._started = False

    def start(self) -> None:
        """Start the provider; a first start whose port was taken in between picks another
        (the issuer names the port: once started, a provider keeps it)."""
        for attempt in range(ATTEMPTS):
            try:
                self._start_once()
                self._started = True
                return
            except PortTaken:
                if self._started or attempt == ATTEMPTS - 1:
                    raise
                self.port = free_port()
                self.issuer = f"http://127.0.0.1:{self.port}"

    def _start_once(self) -> None:
        config = {
            "issuer": self.issuer,
            "port": self.port,
            "keys": self.keys,
            "audience": AUDIENCE,
            "clients": [
                {"client_id": c, "client_secret": SECRET, "ttl_s": ttl}
                for c, ttl in self.clients.items()
            ],
        }
        path = self._dir / "config.json"
        path.write_text(json.dumps(config))
        log = (self._dir / "provider.log").open("ab")
        self._process = subprocess.Popen(
            ["node", str(OIDC_DIR / "provider.mjs"), str(path)],
            cwd=OIDC_DIR,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            env={**os.environ, "NODE_ENV": "test"},
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if line.strip() != b"ready":
            self.stop()
            if "EADDRINUSE" in self.log_text():
                raise PortTaken(f"oidc provider's port {self.port} was taken")
            raise AssertionError(f"oidc provider did not start: {self.log_text()}")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def restart(self, keys: list[dict[str, Any]]) -> None:
        """Stop, then start on the same port with ``keys`` (the first signs)."""
        self.stop()
        self.keys = keys
        deadline = time.monotonic() + 10
        while True:
            try:
                self.start()
                return
            except (AssertionError, PortTaken):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def log_text(self) -> str:
        path = self._dir / "provider.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def token(self, client_id: str, resource: str | None = None) -> str:
        """A JWT access token for ``client_id`` from the token endpoint (client_credentials)."""
        form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": SECRET}
        if resource is not None:
            form["resource"] = resource
        request = urllib.request.Request(
            f"{self.issuer}/token",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.loads(response.read())
        token = body["access_token"]
        assert isinstance(token, str)
        return token

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

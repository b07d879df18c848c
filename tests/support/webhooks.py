"""Start and stop the test webhook receiver (webhook_receiver.py) as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from support.ports import PortTaken, on_free_port
from support.redis_server import free_port

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
"""The Standard Webhooks specification's example secret (24 bytes)."""
_SCRIPT = Path(__file__).with_name("webhook_receiver.py")


@dataclass
class Receiver:
    """A receiver process (or none, while it is down) on a fixed port, recording to a file."""

    port: int
    record: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self, *, fail: bool = False, hang: bool = False) -> None:
        """Start the process (answering 503 to every delivery with ``fail``, never answering
        with ``hang``)."""
        command = [sys.executable, str(_SCRIPT), "--port", str(self.port)]
        command += ["--secret", SECRET, "--record", str(self.record)]
        command += (["--fail"] if fail else []) + (["--hang"] if hang else [])
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != b"listening":
            self.process.wait(timeout=10)
            self.process = None
            raise PortTaken(f"the webhook receiver could not listen on port {self.port}")

    def stop(self) -> None:
        """Stop the process: deliveries fail (connection refused) until it starts again."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def deliveries(self) -> list[dict[str, Any]]:
        """Every request received so far, as the receiver recorded it (from its file)."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line]

    def served(self) -> list[dict[str, Any]]:
        """The same list, asked of the running process over HTTP (GET /deliveries)."""
        reply = httpx.get(f"http://127.0.0.1:{self.port}/deliveries", timeout=10)
        result: list[dict[str, Any]] = reply.json()
        return result

    def wait_for(
        self, check: Callable[[list[dict[str, Any]]], bool], what: str, timeout_s: float = 60
    ) -> list[dict[str, Any]]:
        """Poll the recorded deliveries until ``check`` holds of them."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.deliveries()
            if check(found):
                return found
            assert time.monotonic() < deadline, f"timed out waiting for {what}: {found}"
            time.sleep(0.05)


def bodies(deliveries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parsed JSON bodies of the deliveries the receiver accepted (2xx)."""
    return [json.loads(d["body"]) for d in deliveries if d["status"] < 300]


@contextmanager
def running_receiver(*, started: bool = True, fail: bool = False) -> Iterator[Receiver]:
    """A receiver on a free port (not started yet unless ``started``), stopped on exit."""
    record = Path(tempfile.mkdtemp(prefix="scopa-webhooks-")) / "deliveries.jsonl"
    if started:
        receiver = on_free_port(lambda port: _started(Receiver(port, record), fail))
    else:
        receiver = Receiver(free_port(), record)
    try:
        yield receiver
    finally:
        receiver.stop()


def _started(receiver: Receiver, fail: bool) -> Receiver:
    receiver.start(fail=fail)
    return receiver


def webhook_env(receiver: Receiver, **extra: str) -> dict[str, str]:
    """Server environment sending webhooks to ``receiver`` (fast retries, short timeouts)."""
    return {
        "SCOPA_WEBHOOK_URL": receiver.url,
        "SCOPA_WEBHOOK_SECRET": SECRET,
        "SCOPA_WEBHOOK_TIMEOUT_S": "1",
        "SCOPA_WEBHOOK_BACKOFF_S": "0.2",
        "SCOPA_SWEEP_INTERVAL_S": "0.2",
        **extra,
    }

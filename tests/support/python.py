"""Run the test's Python in a child process from the repository root, for tools and benches."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "run_python"]

ROOT = Path(__file__).resolve().parents[2]


def run_python(
    *args: str, pythonpath: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``python *args`` in the repository root with ``PYTHONPATH`` set; its output as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )

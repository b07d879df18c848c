"""Tests of the suite's own guard against hangs: pyproject's pytest-timeout setting."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from support.python import ROOT, run_python

HANG = """
import time


def test_hangs():
    time.sleep(120)


def test_after_it():
    assert True
"""


def test_the_configured_timeout_fails_a_hung_test_and_the_run_goes_on(tmp_path: Path) -> None:
    """The suite sets a timeout well inside CI's 90 minutes; a test past it fails with its stack
    and the next test still runs (here with the timeout shortened to 2 s)."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    timeout = options["ini_options"]["timeout"]
    assert 300 <= timeout <= 1200
    (tmp_path / "test_hang.py").write_text(HANG)
    result = run_python(
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-c",
        str(ROOT / "pyproject.toml"),
        "--rootdir",
        str(tmp_path),
        "-o",
        "timeout=2",
        "-o",
        "faulthandler_timeout=0",
        str(tmp_path / "test_hang.py"),
        pythonpath=os.environ.get("PYTHONPATH", ""),
        timeout=60,
    )
    assert result.returncode == 1, result.stdout[-2000:]
    assert "Timeout (>2.0s) from pytest-timeout" in result.stdout, result.stdout[-2000:]
    assert "1 failed, 1 passed" in result.stdout, result.stdout[-2000:]

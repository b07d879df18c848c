"""Run the test's Python in a child process from the repository root, for tools and benches."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["ROOT", "load_tool", "run_python"]

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


def load_tool(relative: str) -> ModuleType:
    """A script of the repository (``tools/x.py``) imported as module ``x``, for its tests."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module

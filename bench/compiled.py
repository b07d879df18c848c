"""Run a bench script against the mypyc build of ``scopa.rules`` made by tools/build_mypyc.py.

The build compiles the same source files, so the fingerprint must match the interpreted
engine's. Run from the repository root, after ``.venv/bin/python tools/build_mypyc.py``::

    .venv/bin/python bench/compiled.py fingerprint.py --games 40
    .venv/bin/python bench/compiled.py engine.py --preset scopa

The script runs in a child process with the build directory first on ``PYTHONPATH``; the
child is refused unless ``scopa.rules`` really imports as compiled extension modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["CHILD_MARK", "is_compiled", "run_compiled"]

BENCH = Path(__file__).resolve().parent
BUILD = BENCH.parent / "build" / "mypyc"
SOURCE = BENCH.parent / "service" / "scopa" / "rules"
CHILD_MARK = "SCOPA_BENCH_COMPILED_CHILD"
"""Set in the child's environment, so a child that is not compiled fails instead of looping."""

_PROBE = "import sys; sys.path.insert(0, sys.argv[1]); import compiled; sys.exit(compiled.probe())"
"""Run as ``python -c _PROBE <bench dir>`` under the build: this module's :func:`probe`."""


def rules_files() -> dict[str, str]:
    """The file each module of the imported ``scopa.rules`` package was loaded from."""
    import importlib  # noqa: PLC0415
    import pkgutil  # noqa: PLC0415

    import scopa.rules  # noqa: PLC0415

    return {
        m.name: str(importlib.import_module(f"scopa.rules.{m.name}").__file__)
        for m in pkgutil.iter_modules(scopa.rules.__path__)
    }


def is_compiled() -> bool:
    """Whether this process's ``scopa.rules._game`` is a compiled extension module."""
    return not rules_files()["_game"].endswith(".py")


def probe() -> int:
    """Print where each ``scopa.rules`` module comes from; 0 when ``_game`` is compiled, else 1."""
    files = rules_files()
    print(*files.values(), sep="\n")
    return 0 if is_compiled() else 1


def compiled_env(build: Path = BUILD) -> dict[str, str]:
    """This process's environment with ``build`` first on ``PYTHONPATH``."""
    env = dict(os.environ)
    rest = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(build) + (os.pathsep + rest if rest else "")
    env[CHILD_MARK] = "1"
    return env


def _stale(build: Path) -> list[str]:
    """The engine sources that differ from the copies the build was compiled from."""
    built = build / "scopa" / "rules"
    return [
        path.name
        for path in sorted(SOURCE.glob("*.py"))
        if not (built / path.name).exists() or (built / path.name).read_bytes() != path.read_bytes()
    ]


def _check_build(build: Path) -> None:
    """Exit with a hint unless ``build`` is current and imports ``scopa.rules._game`` compiled."""
    stale = _stale(build)
    if stale:
        raise SystemExit(
            f"the build in {build} is older than {', '.join(stale)}: "
            "run .venv/bin/python tools/build_mypyc.py"
        )
    child = subprocess.run(
        [sys.executable, "-c", _PROBE, str(BENCH)],
        env=compiled_env(build),
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode:
        raise SystemExit(
            f"no compiled scopa.rules in {build}: run .venv/bin/python tools/build_mypyc.py\n"
            + (child.stdout + child.stderr)[-2000:]
        )


def run_compiled(script: str, argv: Sequence[str], build: Path = BUILD) -> int:
    """Run ``bench/<script>`` with ``argv`` against the compiled build; returns its exit code."""
    _check_build(build)
    return subprocess.run(
        [sys.executable, str(BENCH / script), *argv], env=compiled_env(build), check=False
    ).returncode


def main(argv: Sequence[str] | None = None) -> int:
    """``compiled.py SCRIPT [ARGS...]``: run a bench script against the compiled build."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if args else 2
    return run_compiled(args[0], args[1:])


if __name__ == "__main__":
    sys.exit(main())

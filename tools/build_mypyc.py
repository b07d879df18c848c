"""Compile the rules engine ``scopa.rules`` with mypyc into a separate, importable tree.

The sources are copied unchanged from ``service/scopa/rules`` (one source of truth) into
``build/mypyc/scopa/rules`` and compiled in place there; the service and the tests keep
importing the interpreted package unless ``build/mypyc`` is put first on ``PYTHONPATH``::

    .venv/bin/python tools/build_mypyc.py                 # every module of scopa.rules
    .venv/bin/python tools/build_mypyc.py --only _capture --only _game --only _scoring
    PYTHONPATH=build/mypyc .venv/bin/python bench/engine.py  # or: bench/engine.py --impl mypyc

Modules left out with ``--only`` stay interpreted (their ``.py`` file is still copied). The
last line printed is the directory to put on ``PYTHONPATH``.

``--also scopa/transport/_rest_json.py`` (repeatable) compiles a module outside the engine too,
to measure what mypyc would give the other layers (docs/performance.md, "mypyc beyond the
engine"). The whole ``service/scopa`` tree is then copied, so the build replaces the package;
put the client package after it::

    .venv/bin/python tools/build_mypyc.py --out build/mypyc-more --also scopa/transport/_convert.py
    PYTHONPATH=build/mypyc-more:clients/python/src .venv/bin/python bench/callgrind.py --proto rest

The async shells (``scopa.app``'s collaborators, ``scopa.transport._calls``) are not compiled.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = ["build", "main"]

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "service" / "scopa"
DEFAULT_OUT = ROOT / "build" / "mypyc"


def _copy_sources(out: Path) -> list[str]:
    """Copy ``scopa/__init__.py`` and ``scopa/rules/*.py`` into ``out``; returns module names."""
    if out.exists():
        shutil.rmtree(out)
    rules = out / "scopa" / "rules"
    rules.mkdir(parents=True)
    shutil.copy2(SOURCE / "__init__.py", out / "scopa" / "__init__.py")
    modules = []
    for path in sorted((SOURCE / "rules").glob("*.py")):
        shutil.copy2(path, rules / path.name)
        modules.append(path.stem)
    return modules


_MYPY_CONFIG: Final = f"""[mypy]
strict = True
python_version = 3.11
mypy_path = {ROOT / "clients" / "python" / "src"}
[mypy-grpc.*,grpc_health.*,grpc_reflection.*,grpc_status.*]
ignore_missing_imports = True
"""
"""The project's mypy settings (pyproject.toml) for a build that compiles modules outside the
engine, which import the client package and grpc."""


def _copy_all(out: Path) -> None:
    """Replace the copied engine with the whole ``service/scopa`` tree (resources included)."""
    shutil.rmtree(out / "scopa")
    shutil.copytree(SOURCE, out / "scopa", ignore=shutil.ignore_patterns("__pycache__"))
    (out / "mypy.ini").write_text(_MYPY_CONFIG)


def build(
    out: Path,
    only: Sequence[str] = (),
    opt_level: str = "3",
    verbose: bool = False,
    also: Sequence[str] = (),
) -> Path:
    """Copy and compile ``scopa.rules`` (and the ``also`` modules, paths below ``service``) into
    ``out``; returns ``out`` (the ``PYTHONPATH`` entry)."""
    modules = _copy_sources(out)
    chosen = list(only) or modules
    unknown = sorted(set(chosen) - set(modules))
    if unknown:
        raise SystemExit(f"no such module in scopa.rules: {', '.join(unknown)}")
    files = [f"scopa/rules/{name}.py" for name in chosen]
    config: list[str] = []
    if also:
        absent = [path for path in also if not (SOURCE.parent / path).is_file()]
        if absent:
            raise SystemExit(f"no such module below service/: {', '.join(absent)}")
        _copy_all(out)
        files += list(also)
        config = ["--config-file", "mypy.ini"]
    env = {**os.environ, "MYPYC_OPT_LEVEL": opt_level}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mypyc", *config, *files],
        cwd=out,
        env=env,
        capture_output=not verbose,
        text=True,
        check=False,
    )
    if proc.returncode:
        if not verbose:
            sys.stderr.write(proc.stdout[-20000:] + proc.stderr[-20000:])
        raise SystemExit(f"mypyc failed with exit code {proc.returncode}")
    missing = [name for name in chosen if not list((out / "scopa" / "rules").glob(f"{name}.*.so"))]
    missing += [path for path in also if not list(out.glob(path.removesuffix(".py") + ".*.so"))]
    if missing:
        raise SystemExit(f"mypyc produced no extension for: {', '.join(missing)}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, build, and print the directory to put on ``PYTHONPATH``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="build directory")
    parser.add_argument(
        "--only", action="append", default=[], help="compile only this module (e.g. _game)"
    )
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        help="compile this module outside the engine too (a path below service/)",
    )
    parser.add_argument("--opt-level", default="3", choices=["0", "1", "2", "3"])
    parser.add_argument("--verbose", action="store_true", help="show mypyc and gcc output")
    args = parser.parse_args(argv)
    out = build(args.out.resolve(), args.only, args.opt_level, args.verbose, args.also)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

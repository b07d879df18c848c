"""Compile the rules engine ``scopa.rules`` with mypyc into a separate, importable tree.

The sources are copied unchanged from ``service/scopa/rules`` (one source of truth) into
``build/mypyc/scopa/rules`` and compiled in place there, with the bots' modules that walk the
engine's internals as fast as the engine (:data:`BOT_MODULES`: the random policies and the
rollout path of ``scopa.bots``; the rest of ``scopa.bots`` is copied and stays interpreted, so
the package is whole in the tree). The service and the tests keep importing the interpreted
packages unless ``build/mypyc`` is put first on ``PYTHONPATH``::

    .venv/bin/python tools/build_mypyc.py                 # scopa.rules and BOT_MODULES
    .venv/bin/python tools/build_mypyc.py --only _capture --only _game --only _scoring
    PYTHONPATH=build/mypyc .venv/bin/python bench/engine.py  # or: bench/engine.py --impl mypyc

``--only`` takes module names of either (``_game``, ``_rollout``); modules left out with it stay
interpreted (their ``.py`` file is still copied). The last line printed is the directory to put
on ``PYTHONPATH``.

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
BOT_MODULES: Final = ("_random", "_rollout")
"""The modules of ``scopa.bots`` compiled with the engine: ``random_move`` and ``random_action``,
and the rollout path (``play_out``) that search runs thousands of times a move."""


def _copy_sources(out: Path) -> dict[str, str]:
    """Copy ``scopa/__init__.py``, ``scopa/rules/*.py`` and ``scopa/bots/*.py`` into ``out``;
    returns the modules to compile: name -> path below ``out``."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(SOURCE / "rules", out / "scopa" / "rules", ignore=_not_source)
    shutil.copytree(SOURCE / "bots", out / "scopa" / "bots", ignore=_not_source)
    shutil.copy2(SOURCE / "__init__.py", out / "scopa" / "__init__.py")
    modules = {path.stem: f"scopa/rules/{path.name}" for path in sorted(SOURCE.glob("rules/*.py"))}
    modules.update({name: f"scopa/bots/{name}.py" for name in BOT_MODULES})
    return modules


def _not_source(directory: str, names: list[str]) -> list[str]:
    """What ``shutil.copytree`` leaves out of a package: all but its ``.py`` files."""
    return [name for name in names if not name.endswith(".py")]


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
    """Copy and compile ``scopa.rules`` and :data:`BOT_MODULES` (and the ``also`` modules, paths
    below ``service``) into ``out``; returns ``out`` (the ``PYTHONPATH`` entry)."""
    modules = _copy_sources(out)
    chosen = list(only) or list(modules)
    unknown = sorted(set(chosen) - set(modules))
    if unknown:
        raise SystemExit(f"no such module in scopa.rules or BOT_MODULES: {', '.join(unknown)}")
    files = [modules[name] for name in chosen]
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
    missing = [path for path in [*files, *also] if not list(out.glob(_extension_of(path)))]
    if missing:
        raise SystemExit(f"mypyc produced no extension for: {', '.join(missing)}")
    return out


def _extension_of(path: str) -> str:
    """The glob of the extension module mypyc makes of ``path`` (``scopa/rules/_game.py``)."""
    return path.removesuffix(".py") + ".*.so"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, build, and print the directory to put on ``PYTHONPATH``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="build directory")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="compile only this module (e.g. _game, _rollout)",
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

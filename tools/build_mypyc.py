"""Compile the pure modules of ``scopa`` with mypyc into a separate, importable tree.

The whole ``service/scopa`` package is copied unchanged (one source of truth) into
``build/mypyc/scopa``, and its pure, synchronous modules are compiled in place there: the rules
engine ``scopa.rules``, the bots' modules that walk the engine's internals (:data:`BOT_MODULES`:
the random policies and the rollout path), the application core's pure steps
(:data:`APP_MODULES`: input checks, the stored records, what is due, the views) and the
transports' pure conversions (:data:`TRANSPORT_MODULES`: views to messages, proto3 JSON, view
patches). The async shells (``scopa.app``'s collaborators, the transports' handlers, the
server) stay interpreted in the same tree, so ``build/mypyc`` first on ``PYTHONPATH`` replaces
the whole package::

    .venv/bin/python tools/build_mypyc.py                 # all of the above
    .venv/bin/python tools/build_mypyc.py --only _capture --only _game --only _scoring
    .venv/bin/python tools/build_mypyc.py --sync          # copy the sources again, compile nothing
    PYTHONPATH=build/mypyc:clients/python/src .venv/bin/python bench/engine.py

``--only`` takes module names of any of them (``_game``, ``_rollout``; ``app._views`` for the
app's, ``transport._convert`` for the transports'); modules left
out with it stay interpreted. ``--sync`` refreshes the copied sources of an existing build (the
compiled modules' extensions win over their ``.py`` files), for a build whose compiled sources
did not change (the Makefile's ``mypyc`` target). The last line printed is the directory to put
on ``PYTHONPATH``.

``--also scopa/app/_commits.py`` (repeatable) compiles a module outside those too, to
measure what mypyc would give the other layers (docs/performance.md, "Compiled code beyond the
pure modules")::

    .venv/bin/python tools/build_mypyc.py --out build/mypyc-more --also scopa/app/_commits.py
    PYTHONPATH=build/mypyc-more:clients/python/src .venv/bin/python bench/callgrind.py --proto rest
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
APP_MODULES: Final = (
    "_checks",
    "_clock",
    "_codec",
    "_commands",
    "_decoded",
    "_due",
    "_errors",
    "_eventlog",
    "_meta",
    "_owned",
    "_paging",
    "_presence_changes",
    "_records",
    "_rematch_setup",
    "_seats",
    "_summary",
    "_tokens",
    "_views",
    "_webhooks",
    "_wire",
)
"""The pure modules of ``scopa.app`` (no asyncio, store, tracing or logging): every request's
decoding, checks, encoding and views run through them, each commit's lobby and owner
summaries and webhook notices, a rematch's set-up and what a presence read changes."""
TRANSPORT_MODULES: Final = (
    "_convert",
    "_convert_presence",
    "_dict_json",
    "_json_parse",
    "_rest_json",
    "_rest_rules",
    "_view_json",
    "_view_patch",
    "_view_wire",
)
"""The transports' pure conversions (no I/O, no async): the app's views and events to protobuf
messages, their proto3 JSON (from messages, or from the dicts a view is built from), a view's
wire bytes written field by field, REST's binding of a request to its message (google.api.http
rules), and a realtime session's view patches. Every protocol's response
goes through them (compiled: 3-9% fewer instructions per PlayCard and realtime move,
``bench/callgrind.py``)."""


def _copy_sources(out: Path) -> dict[str, str]:
    """Copy the ``scopa`` package into ``out``; returns the modules to compile: name -> path
    below ``out``."""
    if out.exists():
        shutil.rmtree(out)
    sync(out)
    (out / "mypy.ini").write_text(_MYPY_CONFIG)
    modules = {path.stem: f"scopa/rules/{path.name}" for path in sorted(SOURCE.glob("rules/*.py"))}
    modules.update({name: f"scopa/bots/{name}.py" for name in BOT_MODULES})
    modules.update({f"app.{name}": f"scopa/app/{name}.py" for name in APP_MODULES})
    modules.update(
        {f"transport.{name}": f"scopa/transport/{name}.py" for name in TRANSPORT_MODULES}
    )
    return modules


def sync(out: Path) -> Path:
    """Copy every file of ``service/scopa`` into ``out/scopa`` (resources included), over what
    is there; compiled extensions stay. Returns ``out``."""
    shutil.copytree(
        SOURCE,
        out / "scopa",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
        dirs_exist_ok=True,
    )
    return out


_MYPY_CONFIG: Final = f"""[mypy]
strict = True
python_version = 3.11
mypy_path = {ROOT / "clients" / "python" / "src"}
[mypy-grpc.*,grpc_health.*,grpc_reflection.*,grpc_status.*]
ignore_missing_imports = True
[mypy-scopa_client.*]
ignore_errors = True
"""
"""The project's mypy settings (pyproject.toml) for a build that compiles modules outside the
engine, which import the client package and grpc."""


def build(
    out: Path,
    only: Sequence[str] = (),
    opt_level: str = "3",
    verbose: bool = False,
    also: Sequence[str] = (),
) -> Path:
    """Copy ``scopa`` into ``out`` and compile ``scopa.rules``, :data:`BOT_MODULES`,
    :data:`APP_MODULES` and :data:`TRANSPORT_MODULES` (and the ``also`` modules, paths below
    ``service``) there; returns
    ``out`` (the ``PYTHONPATH`` entry)."""
    modules = _copy_sources(out)
    chosen = list(only) or list(modules)
    unknown = sorted(set(chosen) - set(modules))
    if unknown:
        raise SystemExit(
            "no such module in scopa.rules, BOT_MODULES, APP_MODULES or TRANSPORT_MODULES: "
            + ", ".join(unknown)
        )
    files = [modules[name] for name in chosen]
    absent = [path for path in also if not (SOURCE.parent / path).is_file()]
    if absent:
        raise SystemExit(f"no such module below service/: {', '.join(absent)}")
    files += list(also)
    env = {**os.environ, "MYPYC_OPT_LEVEL": opt_level}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mypyc", "--config-file", "mypy.ini", *files],
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
    missing = [path for path in files if not list(out.glob(_extension_of(path)))]
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
        help="compile only this module (e.g. _game, _rollout, app._views, transport._convert)",
    )
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        help="compile this module outside the engine too (a path below service/)",
    )
    parser.add_argument("--opt-level", default="3", choices=["0", "1", "2", "3"])
    parser.add_argument("--verbose", action="store_true", help="show mypyc and gcc output")
    parser.add_argument(
        "--sync", action="store_true", help="only copy the sources into an existing build again"
    )
    args = parser.parse_args(argv)
    if args.sync:
        print(sync(args.out.resolve()))
        return 0
    out = build(args.out.resolve(), args.only, args.opt_level, args.verbose, args.also)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

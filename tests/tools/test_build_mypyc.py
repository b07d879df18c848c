"""Tests of tools/build_mypyc.py: the compiled engine behaves exactly like the interpreted one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.python import load_tool, run_python
from support.tools import system_tool

ROOT = Path(__file__).resolve().parents[2]


def _fingerprint(pythonpath: str) -> subprocess.CompletedProcess[str]:
    """bench/fingerprint.py's 40-game check with ``pythonpath``'s engine, which it names first."""
    code = (
        "import sys, scopa.rules._game as g; sys.argv = ['fingerprint', '--games', '40'];"
        "sys.path.insert(0, 'bench'); import fingerprint;"
        "print('compiled' if g.__file__.endswith('.so') else 'interpreted');"
        "sys.exit(fingerprint.main())"
    )
    return run_python("-c", code, pythonpath=pythonpath)


@pytest.fixture(scope="module")
def compiled_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree tools/build_mypyc.py compiled: $SCOPA_MYPYC_BUILD when set (make test's
    build/mypyc, built once for the compiled test run too), else a build into a temporary tree."""
    system_tool("gcc")
    built = os.environ.get("SCOPA_MYPYC_BUILD")
    if built:
        return Path(built)
    out = tmp_path_factory.mktemp("mypyc") / "tree"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_mypyc.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip().splitlines()[-1] == str(out)
    return out


def test_compiled_engine_matches_the_stored_fingerprints(compiled_tree: Path) -> None:
    """The mypyc build of scopa.rules plays every preset exactly as bench/fingerprint.json says."""
    done = _fingerprint(str(compiled_tree))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("compiled")


_WHERE_BOTS_COME_FROM = """
import scopa.bots
from scopa.bots import _greedy, _random, _rollout
print(_random.__file__, _rollout.__file__, _greedy.__file__, scopa.bots.play_out.__module__)
"""


def test_the_bots_random_and_rollout_modules_are_compiled_with_the_engine(
    compiled_tree: Path,
) -> None:
    """The build compiles scopa.bots' random policies and rollout path beside the engine, and
    copies the rest of scopa.bots (interpreted), so the package imports whole from the tree."""
    done = run_python("-c", _WHERE_BOTS_COME_FROM, pythonpath=str(compiled_tree))
    assert done.returncode == 0, done.stderr[-4000:]
    random_file, rollout_file, greedy_file, module = done.stdout.split()
    bots = compiled_tree / "scopa" / "bots"
    assert Path(random_file).parent == bots and random_file.endswith(".so")
    assert Path(rollout_file).parent == bots and rollout_file.endswith(".so")
    assert greedy_file == str(bots / "_greedy.py")
    assert module == "scopa.bots._rollout"


def test_interpreted_engine_matches_the_stored_fingerprints() -> None:
    """The interpreted engine plays every preset exactly as bench/fingerprint.json says."""
    done = _fingerprint(str(ROOT / "service"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("interpreted")


_CANCEL_A_TASK = """
import asyncio
from scopa import _tasks

async def main() -> None:
    task = asyncio.create_task(asyncio.sleep(60))
    await asyncio.sleep(0)
    await _tasks.cancel_until_done(task)
    assert task.cancelled()

asyncio.run(main())
print("compiled" if _tasks.__file__.endswith(".so") else "interpreted")
"""


def test_a_module_outside_the_engine_compiled_with_also_runs(tmp_path: Path) -> None:
    """--also compiles a module outside the engine into a whole copy of the package, where it
    runs compiled (scopa._tasks: an async module, small enough to build in seconds)."""
    system_tool("gcc")
    out = tmp_path / "tree"
    also = ["--also", "scopa/_tasks.py", "--only", "_cards"]
    done = run_python("tools/build_mypyc.py", "--out", str(out), *also, pythonpath="")
    assert done.returncode == 0, done.stderr[-4000:]
    assert list((out / "scopa").glob("_tasks.*.so"))
    ran = run_python("-c", _CANCEL_A_TASK, pythonpath=str(out))
    assert ran.returncode == 0, ran.stderr[-4000:]
    assert ran.stdout.strip() == "compiled"


_WHERE_THE_APP_COMES_FROM = """
from scopa.app import _actions, _due, _records, _summary, _views, _webhooks
print(_views.__file__, _due.__file__, _records.__file__, _summary.__file__, _webhooks.__file__)
print(_actions.__file__)
"""


def test_the_app_pure_modules_are_compiled_and_its_async_shell_is_not(
    compiled_tree: Path,
) -> None:
    """The build compiles scopa.app's pure steps (APP_MODULES) and leaves the async shell
    interpreted, beside them in the same package."""
    done = run_python("-c", _WHERE_THE_APP_COMES_FROM, pythonpath=str(compiled_tree))
    assert done.returncode == 0, done.stderr[-4000:]
    *pure, shell = done.stdout.split()
    app = compiled_tree / "scopa" / "app"
    assert all(Path(path).parent == app and path.endswith(".so") for path in pure)
    assert shell == str(app / "_actions.py")


_WHERE_THE_TRANSPORT_COMES_FROM = """
from scopa.transport import _convert, _rest_json, _view_patch, _session, _rest
print(_convert.__file__, _rest_json.__file__, _view_patch.__file__)
print(_session.__file__, _rest.__file__)
"""


def test_the_transport_conversions_are_compiled_and_its_handlers_are_not(
    compiled_tree: Path,
) -> None:
    """The build compiles the transports' pure conversions (TRANSPORT_MODULES) and leaves the
    handlers (a session, the REST app) interpreted, beside them in the same package."""
    done = run_python("-c", _WHERE_THE_TRANSPORT_COMES_FROM, pythonpath=str(compiled_tree))
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    transport = compiled_tree / "scopa" / "transport"
    pure, handlers = lines[-2].split(), lines[-1].split()
    assert all(Path(path).parent == transport and path.endswith(".so") for path in pure)
    assert handlers == [str(transport / "_session.py"), str(transport / "_rest.py")]


def test_sync_copies_the_sources_again_and_keeps_the_extensions(tmp_path: Path) -> None:
    """--sync brings every source of the package into a build (a changed or new file too) and
    leaves the compiled extensions there."""
    build = load_tool("tools/build_mypyc.py")
    app = tmp_path / "scopa" / "app"
    app.mkdir(parents=True)
    (app / "_views.cpython-311-x86_64-linux-gnu.so").write_bytes(b"compiled")
    (app / "_core.py").write_text("stale")
    assert build.sync(tmp_path) == tmp_path
    source = ROOT / "service" / "scopa"
    assert (app / "_core.py").read_text() == (source / "app" / "_core.py").read_text()
    assert (tmp_path / "scopa" / "rules" / "_game.py").is_file()
    assert (app / "_views.cpython-311-x86_64-linux-gnu.so").read_bytes() == b"compiled"
    assert not list(tmp_path.rglob("__pycache__"))

"""Rebuild (or check) the web client's bundle that the service serves (clients/web).

Usage (from anywhere; paths are relative to the repository root):

    python tools/generate_web.py          # write service/scopa/transport/webui
    python tools/generate_web.py --check  # exit 1 if the committed bundle is stale

The bundle is built by `clients/web/build.mjs` with esbuild, pinned (like the app's other
dependencies) in clients/web/package.json and its package-lock.json; it is committed, so the
service package, `make run` and the container image serve it without Node.js. When
clients/web/node_modules is missing this runs `npm ci` there first (npm and Node.js >= 20).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_ts import stale_report

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "clients" / "web"
OUT_DIR = ROOT / "service" / "scopa" / "transport" / "webui"
INSTALLED_STAMP = PACKAGE / "node_modules" / ".installed"  # also made by the Makefile


def ensure_node_modules() -> None:
    """Install the app's pinned dependencies with `npm ci` unless node_modules is there."""
    if INSTALLED_STAMP.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("generate_web.py: npm not found: install Node.js >= 20 and npm")
    cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    if subprocess.run(cmd, cwd=PACKAGE, check=False).returncode != 0:
        sys.exit("generate_web.py: npm ci failed in clients/web")
    INSTALLED_STAMP.touch()


def build_into(out: Path) -> None:
    """Bundle the app into `out` (index.html and assets/)."""
    node = shutil.which("node")
    if node is None:
        sys.exit("generate_web.py: node not found: install Node.js >= 20")
    cmd = [node, "build.mjs", "--outdir", str(out)]
    result = subprocess.run(cmd, cwd=PACKAGE, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"generate_web.py: the build failed:\n{result.stdout}{result.stderr}")


def check() -> int:
    """Return 0 when the committed bundle equals a fresh build, else 1."""
    ensure_node_modules()
    with tempfile.TemporaryDirectory(prefix="scopa-gen-web-check-") as tmp:
        fresh = Path(tmp) / "webui"
        build_into(fresh)
        problems = stale_report(fresh, OUT_DIR)
    where = OUT_DIR.relative_to(ROOT)
    if not problems:
        print(f"generate_web.py: the web client bundle in {where} is up to date")
        return 0
    print(f"generate_web.py: {where} is STALE; run `make generate` and commit.")
    for problem in problems:
        print(problem[:2000])
    return 1


def write() -> None:
    """Replace the committed bundle with a fresh build."""
    ensure_node_modules()
    build_into(OUT_DIR)
    print(f"generate_web.py: wrote {OUT_DIR.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and write or check the bundle."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the bundle is stale")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())

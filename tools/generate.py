"""Regenerate (or check) the code and OpenAPI document generated from proto/scopa/v1/scopa.proto.

Usage (from anywhere; paths are relative to the repository root):

    python tools/generate.py            # write the Python code and openapi.json, then buf lint
    python tools/generate.py --no-lint  # write only
    python tools/generate.py --check    # exit 1 if the committed generated code is stale
    python tools/generate.py --lint     # buf lint only
    python tools/generate.py --breaking # buf breaking against the last released API image
    python tools/generate.py --baseline # write proto/releases/v<version>.binpb (at a release)

Code is generated with grpcio-tools (python -m grpc_tools.protoc) plus mypy-protobuf
(.pyi stubs for messages and for the gRPC stubs/servicers) and protoc-gen-connectrpc
(`scopa_connect.py`: the Connect/gRPC-Web ASGI application and clients, for google.protobuf).
protoc writes modules named `scopa.v1.*`; the import lines are rewritten to
`scopa_client.v1.*` so the generated code never lives under (or shadows) the server's
top-level `scopa` package.

buf is the one pinned by clients/typescript/package-lock.json (the Makefile runs its `npm ci`),
so one buf version generates the TypeScript client and checks the API. The breaking-change
baseline is the buf image of the last release committed under proto/releases/ (see
docs/versioning.md), so the check needs no network.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from google.protobuf import descriptor_pb2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from openapi import Conventions, build_openapi

# The server's own rules, each in one place: a game id's pattern and the REST status of an error.
from scopa.app._checks import GAME_ID_PATTERN
from scopa.transport._errors import http_status_of

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
THIRD_PARTY = PROTO_ROOT / "third_party"
PROTO_FILES = ("scopa/v1/scopa.proto",)
PROTOC_PACKAGE = "scopa/v1"
OUT_DIR = ROOT / "clients" / "python" / "src" / "scopa_client" / "v1"
# buf, pinned by clients/typescript/package-lock.json (the Makefile runs npm ci there first).
BUF = ROOT / "clients" / "typescript" / "node_modules" / ".bin" / "buf"
RELEASES = PROTO_ROOT / "releases"
CLIENT_PYPROJECT = ROOT / "clients" / "python" / "pyproject.toml"
OPENAPI_FILE = ROOT / "service" / "scopa" / "transport" / "openapi.json"
SERVICE = "scopa.v1.GameService"
# The method option that says how a method uses the bearer token (the document's security).
TOKEN_OPTION = "scopa.v1.seat_token"
API_VERSION = "v1"

# mypy-protobuf's grpc stubs carry `type: ignore` comments that are unused when grpc has no
# type stubs (the project's case); keep `mypy --strict` quiet about that either way.
PYI_PREAMBLE = '# mypy: disable-error-code="unused-ignore"\n'

INIT_TEXT = '"""Generated code for the scopa.v1 API (do not edit; see tools/generate.py)."""\n'

# protoc names our modules `scopa.v1.<mod>`; they live at `scopa_client.v1.<mod>`. The
# look-behind keeps gRPC method paths such as "/scopa.v1.GameService/PlayCard" intact.
_MODULE_REF = re.compile(r"(?<![\w./])scopa\.v1(?=\.scopa_pb2|\s+import\s)")
_MODULE_NAME_LITERAL = re.compile(r"'scopa\.v1\.(scopa_pb2\w*)'")


def _rewrite_imports(text: str) -> str:
    """Point references to the `scopa.v1` modules at `scopa_client.v1`."""
    text = _MODULE_REF.sub("scopa_client.v1", text)
    return _MODULE_NAME_LITERAL.sub(r"'scopa_client.v1.\1'", text)


def _plugin_path(name: str) -> str:
    """Find a protoc plugin next to the running interpreter, else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"generate.py: {name} not found (pip install -e '.[dev]')")
    return found


def _run_protoc(out: Path) -> None:
    """Run grpc_tools.protoc with the python, grpc and mypy generators into `out`."""
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"--proto_path={PROTO_ROOT}",
        f"--proto_path={THIRD_PARTY}",
        f"--plugin=protoc-gen-mypy={_plugin_path('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin_path('protoc-gen-mypy_grpc')}",
        f"--plugin=protoc-gen-connectrpc={_plugin_path('protoc-gen-connectrpc')}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        f"--connectrpc_out={out}",
        "--connectrpc_opt=protobuf=google",
        *PROTO_FILES,
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"generate.py: protoc failed:\n{result.stdout}{result.stderr}")


def _descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """The proto files and their imports, with source info (comments), as protoc reads them."""
    with tempfile.TemporaryDirectory(prefix="scopa-fds-") as raw:
        out = Path(raw) / "set.pb"
        cmd = [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"--proto_path={PROTO_ROOT}",
            f"--proto_path={THIRD_PARTY}",
            "--include_imports",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *PROTO_FILES,
        ]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.exit(f"generate.py: protoc failed:\n{result.stdout}{result.stderr}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def openapi_text() -> str:
    """The OpenAPI document of the REST surface, as committed in OPENAPI_FILE."""
    conventions = Conventions(
        http_status=http_status_of,
        token_option=TOKEN_OPTION,
        id_pattern=f"^{GAME_ID_PATTERN}$",
        license=tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"],
    )
    document = build_openapi(_descriptor_set(), SERVICE, API_VERSION, conventions)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def generate_into(dest: Path) -> None:
    """Generate the finished `scopa_client/v1` package contents into `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scopa-protoc-") as raw:
        _run_protoc(Path(raw))
        produced = sorted((Path(raw) / PROTOC_PACKAGE).iterdir())
        for src in produced:
            text = _rewrite_imports(src.read_text())
            if src.suffix == ".pyi":
                text = PYI_PREAMBLE + text
            (dest / src.name).write_text(text)
    (dest / "__init__.py").write_text(INIT_TEXT)


def _generated_names(directory: Path) -> set[str]:
    """Names of the generated files in `directory` (caches ignored)."""
    if not directory.is_dir():
        return set()
    return {p.name for p in directory.iterdir() if p.is_file() and p.suffix in {".py", ".pyi"}}


def _stale_report(fresh: Path, committed: Path) -> list[str]:
    """Describe every difference between fresh and committed generated code."""
    problems: list[str] = []
    want, have = _generated_names(fresh), _generated_names(committed)
    problems += [f"missing: {committed / n}" for n in sorted(want - have)]
    problems += [f"unexpected: {committed / n}" for n in sorted(have - want)]
    for name in sorted(want & have):
        if filecmp.cmp(fresh / name, committed / name, shallow=False):
            continue
        diff = difflib.unified_diff(
            (committed / name).read_text().splitlines(),
            (fresh / name).read_text().splitlines(),
            f"committed/{name}",
            f"fresh/{name}",
            lineterm="",
            n=1,
        )
        lines = list(diff)
        shown = "\n".join(lines[:20]) + ("\n..." if len(lines) > 20 else "")
        problems.append(f"differs: {committed / name}\n{shown}")
    return problems


def check() -> int:
    """Return 0 when the committed generated code equals a fresh generation, else 1."""
    with tempfile.TemporaryDirectory(prefix="scopa-gen-check-") as tmp:
        fresh = Path(tmp) / "v1"
        generate_into(fresh)
        problems = _stale_report(fresh, OUT_DIR)
    committed = OPENAPI_FILE.read_text() if OPENAPI_FILE.exists() else ""
    if committed != openapi_text():
        problems.append(f"differs: {OPENAPI_FILE.relative_to(ROOT)} (the OpenAPI document)")
    if not problems:
        print(f"generate.py: generated code in {OUT_DIR.relative_to(ROOT)} is up to date")
        return 0
    print("generate.py: generated code is STALE; run `python tools/generate.py` and commit.")
    print("(Differences only in version lines mean another grpcio-tools/protobuf is installed.)")
    for problem in problems:
        print(problem)
    return 1


def write() -> None:
    """Replace the committed generated code with a fresh generation."""
    with tempfile.TemporaryDirectory(prefix="scopa-gen-") as tmp:
        fresh = Path(tmp) / "v1"
        generate_into(fresh)
        if OUT_DIR.exists():
            shutil.rmtree(OUT_DIR)
        shutil.copytree(fresh, OUT_DIR)
    OPENAPI_FILE.write_text(openapi_text())
    print(f"generate.py: wrote {OUT_DIR.relative_to(ROOT)} and {OPENAPI_FILE.relative_to(ROOT)}")


def _buf(*, required: bool) -> str | None:
    """The pinned buf binary; None (after a message) when `npm ci` has not installed it."""
    if BUF.exists():
        return str(BUF)
    level = "" if required else "WARNING: "
    where = BUF.relative_to(ROOT)
    print(f"generate.py: {level}{where} missing: run `make test` (npm ci)", file=sys.stderr)
    return None


def lint(*, required: bool = True) -> int:
    """Run `buf lint` on the proto module; without buf, fail (or, if not required, warn)."""
    buf = _buf(required=required)
    if buf is None:
        return 1 if required else 0
    result = subprocess.run([buf, "lint"], cwd=PROTO_ROOT, check=False)
    if result.returncode != 0:
        print("generate.py: buf lint failed", file=sys.stderr)
        return 1
    print("generate.py: buf lint clean")
    return 0


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.stem))


def last_release_image() -> Path:
    """The buf image of the newest release under proto/releases/ (`v<major>.<minor>.<patch>`)."""
    images = sorted(RELEASES.glob("v*.binpb"), key=_version_key)
    if not images:
        sys.exit(f"generate.py: no release image in {RELEASES.relative_to(ROOT)}")
    return images[-1]


def breaking(proto_root: Path = PROTO_ROOT, against: Path | None = None) -> int:
    """Run `buf breaking` on `proto_root` against the last release's image; 0 when compatible."""
    buf = _buf(required=True)
    if buf is None:
        return 1
    image = against if against is not None else last_release_image()
    # Only our API: the vendored googleapis files are copies, not part of what we promise.
    cmd = [buf, "breaking", "--path", "scopa", "--against", str(image)]
    result = subprocess.run(cmd, cwd=proto_root, check=False)
    if result.returncode != 0:
        print(f"generate.py: breaking change against {image.name}", file=sys.stderr)
        return 1
    print(f"generate.py: no breaking change against {image.name}")
    return 0


def baseline() -> int:
    """Write the buf image of today's proto as the release of the client's current version."""
    buf = _buf(required=True)
    if buf is None:
        return 1
    version = tomllib.loads(CLIENT_PYPROJECT.read_text())["project"]["version"]
    RELEASES.mkdir(exist_ok=True)
    image = RELEASES / f"v{version}.binpb"
    # With its imports (descriptor.proto...): `buf breaking` must resolve them offline.
    subprocess.run([buf, "build", "-o", str(image)], cwd=PROTO_ROOT, check=True)
    print(f"generate.py: wrote {image.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the requested steps."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if generated code is stale")
    parser.add_argument("--lint", action="store_true", help="run buf lint (with --check: also)")
    parser.add_argument("--no-lint", action="store_true", help="skip buf lint when generating")
    parser.add_argument("--breaking", action="store_true", help="buf breaking vs last release")
    parser.add_argument("--baseline", action="store_true", help="write the release's buf image")
    args = parser.parse_args(argv)
    if args.baseline:
        return baseline()
    if args.breaking:
        return breaking()
    if args.check:
        status = check()
        return max(status, lint()) if args.lint else status
    if args.lint:
        return lint()
    write()
    return 0 if args.no_lint else lint(required=False)


if __name__ == "__main__":
    sys.exit(main())

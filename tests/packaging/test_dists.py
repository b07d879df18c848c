"""Tests of the built distributions: twine-clean, and installable at the locked versions."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from email.parser import HeaderParser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from packaging_helpers import ROOT, load_tool

lock = load_tool("lock")
PROJECTS = {"scopa": ROOT, "scopa-client": ROOT / "clients" / "python"}


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Path]]]:
    """Wheel and sdist of both packages, built without isolation from this checkout."""
    out = tmp_path_factory.mktemp("dists")
    built: dict[str, list[Path]] = {}
    for name, project in PROJECTS.items():
        target = out / name
        cmd = [sys.executable, "-m", "build", "--no-isolation", "-q", "--outdir", str(target)]
        subprocess.run([*cmd, str(project)], check=True, capture_output=True)
        built[name] = sorted(target.iterdir())
    yield built


def _metadata(wheel: Path) -> list[tuple[str, str]]:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return HeaderParser().parsestr(archive.read(name).decode()).items()


def _requirements(wheel: Path) -> list[Requirement]:
    requirements = [Requirement(v) for k, v in _metadata(wheel) if k == "Requires-Dist"]
    return [r for r in requirements if r.marker is None]  # extras (dev) are not installed


def _wheel(paths: list[Path]) -> Path:
    (wheel,) = [p for p in paths if p.suffix == ".whl"]
    return wheel


def test_both_packages_build_a_wheel_and_an_sdist(dists: dict[str, list[Path]]) -> None:
    """Each package builds exactly one wheel and one sdist."""
    for paths in dists.values():
        assert sorted(p.suffix for p in paths) == [".gz", ".whl"]


def test_twine_check_strict_passes(dists: dict[str, list[Path]]) -> None:
    """`twine check --strict` accepts every built file (metadata and rendered README)."""
    files = [str(p) for paths in dists.values() for p in paths]
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == len(files)


def test_server_declares_the_client_it_was_built_with(dists: dict[str, list[Path]]) -> None:
    """The server wheel requires scopa-client, and this checkout's client version satisfies it."""
    client_version = dict(_metadata(_wheel(dists["scopa-client"])))["Version"]
    (client,) = [r for r in _requirements(_wheel(dists["scopa"])) if r.name == "scopa-client"]
    assert Version(client_version) in client.specifier


def test_locked_versions_satisfy_every_requirement(dists: dict[str, list[Path]]) -> None:
    """Every runtime Requires-Dist of both wheels has a fitting pin in constraints.txt."""
    pins = lock.read_pins(lock.CONSTRAINTS.read_text())
    for name, paths in dists.items():
        for requirement in _requirements(_wheel(paths)):
            if lock.normalize(requirement.name) in lock.LOCAL_NAMES:
                continue
            pinned = pins[lock.normalize(requirement.name)]
            assert Version(pinned) in requirement.specifier, (name, str(requirement), pinned)


def test_client_accepts_protobuf_7(dists: dict[str, list[Path]]) -> None:
    """The client allows the protobuf major that current grpcio-health-checking requires."""
    (protobuf,) = [r for r in _requirements(_wheel(dists["scopa-client"])) if r.name == "protobuf"]
    assert Version("7.36.2") in protobuf.specifier


def test_server_wheel_carries_its_data_files(dists: dict[str, list[Path]]) -> None:
    """The server wheel holds the Lua scripts, the OpenAPI document and the web client's bundle."""
    with zipfile.ZipFile(_wheel(dists["scopa"])) as archive:
        names = archive.namelist()
    assert "scopa/transport/openapi.json" in names
    assert "scopa/transport/webui/index.html" in names
    bundle = {n.rsplit(".", 1)[1] for n in names if n.startswith("scopa/transport/webui/assets/")}
    assert bundle == {"js", "css"}
    assert any(n.startswith("scopa/storage/lua/") and n.endswith(".lua") for n in names)

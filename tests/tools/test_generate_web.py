"""Tests of tools/generate_web.py: building the web client's bundle and spotting a stale one."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "generate_web.py"


def _load() -> ModuleType:
    """Import tools/generate_web.py as a module."""
    spec = importlib.util.spec_from_file_location("scopa_generate_web", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def generate_web() -> ModuleType:
    """The tool as a module, skipping where its pinned esbuild is not installed."""
    module = _load()
    if not module.INSTALLED_STAMP.exists() or shutil.which("node") is None:
        pytest.skip("clients/web/node_modules missing: run `make generate` (npm ci) first")
    return module


def test_a_build_is_the_committed_bundle(generate_web: ModuleType, tmp_path: Path) -> None:
    """Building the sources gives exactly the committed files, byte for byte (deterministic)."""
    generate_web.build_into(tmp_path / "webui")
    assert generate_web.stale_report(tmp_path / "webui", generate_web.OUT_DIR) == []


def test_check_fails_on_an_edited_bundle(
    generate_web: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--check exits 1 and names the file when the committed bundle differs from a build."""
    committed = tmp_path / "committed"
    shutil.copytree(generate_web.OUT_DIR, committed)
    (committed / "index.html").write_text("<!doctype html>edited\n")
    monkeypatch.setattr(generate_web, "OUT_DIR", committed)
    monkeypatch.setattr(generate_web, "ROOT", tmp_path)
    assert generate_web.main(["--check"]) == 1
    shutil.rmtree(committed)
    shutil.copytree(ROOT / "service" / "scopa" / "transport" / "webui", committed)
    assert generate_web.main(["--check"]) == 0

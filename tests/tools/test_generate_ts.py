"""Tests of tools/generate_ts.py: the staleness report and the committed TypeScript code."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "generate_ts.py"


def _load() -> ModuleType:
    """Import tools/generate_ts.py as a module."""
    spec = importlib.util.spec_from_file_location("scopa_generate_ts", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_tree_holds_every_generated_file() -> None:
    """The committed src/gen has the scopa.v1 and google.rpc modules the package exports."""
    out_dir = _load().OUT_DIR
    names = {p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.ts")}
    assert {"scopa/v1/scopa_pb.ts", "google/rpc/error_details_pb.ts"} <= names


def test_report_names_edited_missing_and_unexpected_files(tmp_path: Path) -> None:
    """The staleness report names an edited, a missing and an unexpected file."""
    generate_ts = _load()
    fresh = tmp_path / "fresh"
    shutil.copytree(generate_ts.OUT_DIR, fresh)
    committed = tmp_path / "committed"
    shutil.copytree(fresh, committed)
    assert generate_ts.stale_report(fresh, committed) == []
    (committed / "scopa" / "v1" / "scopa_pb.ts").write_text("// edited\n")
    (committed / "google" / "rpc" / "status_pb.ts").unlink()
    (committed / "extra_pb.ts").write_text("// stray\n")
    report = "\n".join(generate_ts.stale_report(fresh, committed))
    assert "differs:" in report and "scopa_pb.ts" in report
    assert "missing:" in report and "status_pb.ts" in report
    assert "unexpected:" in report and "extra_pb.ts" in report

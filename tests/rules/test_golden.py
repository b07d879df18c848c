"""Golden transcripts: seeded full games of every preset replay exactly as recorded."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "run `python tools/golden.py` after an intended rule change and review the diff"


def load_tool() -> ModuleType:
    """Import tools/golden.py (a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("golden_tool", ROOT / "tools" / "golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GOLDEN = load_tool()
CASES = [(p, s) for p in sorted(GOLDEN.PRESETS) for s in GOLDEN.SEEDS]


@pytest.mark.parametrize(("preset", "seed"), CASES)
def test_transcript_matches_the_recorded_game(preset: str, seed: int) -> None:
    """Replaying the seeded game of a preset yields the stored transcript line for line."""
    path = GOLDEN.GOLDEN_DIR / f"{preset}_{seed}.txt"
    assert path.exists(), f"{path} is missing: {REGENERATE}"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = GOLDEN.transcript(preset, seed).splitlines()
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        assert got == want, f"{path.name} line {number} differs: {REGENERATE}"
    assert len(actual) == len(expected), f"{path.name} length differs: {REGENERATE}"


def test_transcripts_record_finished_games() -> None:
    """Every stored transcript ends with the game's result."""
    assert CASES, "tools/golden.py lists no preset or no seed"
    for preset, seed in CASES:
        text = (GOLDEN.GOLDEN_DIR / f"{preset}_{seed}.txt").read_text(encoding="utf-8")
        assert text.splitlines()[-1].startswith("== game over"), f"{preset}_{seed}"


def test_docs_tables_are_current() -> None:
    """The generated preset and option tables of docs/rules.md match the code."""
    current = GOLDEN.DOCS.read_text(encoding="utf-8")
    assert GOLDEN.docs_text(current) == current, f"docs/rules.md tables are stale: {REGENERATE}"

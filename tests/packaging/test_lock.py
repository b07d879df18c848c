"""Tests of tools/lock.py: constraints.txt pins every dependency, and its check notices a gap."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging_helpers import load_tool

lock = load_tool("lock")


def test_read_pins_round_trips_render() -> None:
    """render() writes what read_pins() reads back, with names normalised."""
    pins = {"grpcio": "1.85.3", "types-pyyaml": "6.0.12"}
    assert lock.read_pins(lock.render(pins)) == pins
    assert lock.read_pins("Types_PyYAML==6.0  # note\n\n") == {"types-pyyaml": "6.0"}


def test_declared_names_cover_runtime_dev_and_client() -> None:
    """Declared names include the server's runtime, its dev extra and the client's dependencies."""
    names = lock.declared_names()
    assert {"grpcio-health-checking", "pytest", "twine", "protobuf"} <= names
    assert not names & lock.LOCAL_NAMES


def test_committed_constraints_pin_every_declared_dependency() -> None:
    """The committed constraints.txt has an exact pin for each declared dependency."""
    pins = lock.read_pins(lock.CONSTRAINTS.read_text())
    assert lock.declared_names() <= set(pins)
    assert all(version and version[0].isdigit() for version in pins.values())


def test_check_fails_when_a_pin_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--check exits 1 and names the dependency a constraints file lacks."""
    pins = lock.read_pins(lock.CONSTRAINTS.read_text())
    del pins["structlog"]
    partial = tmp_path / "constraints.txt"
    partial.write_text(lock.render(pins))
    monkeypatch.setattr(lock, "CONSTRAINTS", partial)
    assert lock.main(["--check"]) == 1
    assert "structlog" in capsys.readouterr().out
    partial.write_text(lock.render({**pins, "structlog": "26.1.0"}))
    assert lock.main(["--check"]) == 0

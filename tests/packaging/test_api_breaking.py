"""Tests of the API compatibility check: `buf breaking` against the last release's image."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from packaging_helpers import ROOT, load_tool

generate = load_tool("generate")


def test_last_release_is_the_highest_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The baseline is the newest release image by version, not by name (v0.10 after v0.9)."""
    for name in ("v0.9.0.binpb", "v0.10.0.binpb", "v0.2.1.binpb"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setattr(generate, "RELEASES", tmp_path)
    assert generate.last_release_image().name == "v0.10.0.binpb"


def test_todays_api_is_compatible_with_the_last_release() -> None:
    """The committed proto has no breaking change against the committed release image."""
    assert generate.breaking() == 0


def test_a_renamed_field_is_reported(tmp_path: Path) -> None:
    """Renaming a field of a released message makes the check fail."""
    proto = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", proto)
    api = proto / "scopa" / "v1" / "scopa.proto"
    text = api.read_text()
    assert "  string name = 1 [" in text
    api.write_text(text.replace("  string name = 1 [", "  string renamed = 1 [", 1))
    assert generate.breaking(proto, generate.last_release_image()) == 1

"""Tests of the match state (scopa.rules._state): every field given, copied in its place."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from scopa.rules import MatchState
from scopa.rules._state import _copy


@pytest.mark.interpreted_only
def test_the_hot_path_copy_keeps_every_field_in_its_place() -> None:
    """_copy calls MatchState positionally: each field, given its own value, keeps it."""
    names = [f.name for f in fields(MatchState)]
    values: dict[str, Any] = {name: f"value of {name}" for name in names}
    state = MatchState(**values)
    copied = _copy(state)
    assert copied is not state
    assert {name: getattr(copied, name) for name in names} == {
        name: f"value of {name}" for name in names
    }


def test_every_field_must_be_given() -> None:
    """MatchState has no defaults: a build that leaves out any one field is a TypeError."""
    names = [f.name for f in fields(MatchState)]
    for left_out in names:
        values: dict[str, Any] = {name: None for name in names if name != left_out}
        with pytest.raises(TypeError, match=left_out):
            MatchState(**values)

"""Tests of Redis key naming and argument validation."""

from __future__ import annotations

import pytest

from scopa.storage._keys import (
    channel,
    check_game_id,
    check_ttl,
    events_key,
    game_key,
    legacy_events_key,
    request_field,
)


def test_names_embed_the_game_id_as_hash_tag() -> None:
    """Every name of a game carries ``{game_id}`` so Redis Cluster maps them to one slot."""
    assert game_key("abc") == "scopa:{abc}:g"
    assert events_key("abc") == "scopa:{abc}:log"
    assert legacy_events_key("abc") == "scopa:{abc}:ev"
    assert channel("abc") == "scopa:{abc}:ch"
    assert request_field("r-1") == "req:r-1"


@pytest.mark.parametrize("game_id", ["", "a{b", "a}b", "{x}"])
def test_bad_game_ids_are_rejected(game_id: str) -> None:
    """Empty ids and ids with braces would break the hash tag."""
    with pytest.raises(ValueError):
        check_game_id(game_id)


def test_good_game_id_is_accepted() -> None:
    """An ordinary id passes validation."""
    check_game_id("0f8e-game:1")


@pytest.mark.parametrize("ttl_s", [0, -1.0, float("nan")])
def test_non_positive_ttls_are_rejected(ttl_s: float) -> None:
    """Zero, negative and NaN TTLs are refused."""
    with pytest.raises(ValueError):
        check_ttl(ttl_s)

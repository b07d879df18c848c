"""Tests of scopa.app._limits: the rate-limit policy and the client key."""

from __future__ import annotations

import pytest

from scopa.app import RateLimited, RateLimits, client_key, parse_rate


async def test_calls_over_the_limit_are_refused_per_client_and_action() -> None:
    """The third call in a minute is refused with a delay; other clients and actions are not."""
    limits = RateLimits({"create_game": "2/minute", "join_game": "off"})
    await limits.check("create_game", "10.0.0.1")
    await limits.check("create_game", "10.0.0.1")
    with pytest.raises(RateLimited) as err:
        await limits.check("create_game", "10.0.0.1")
    assert 0 < err.value.retry_after_s <= 60
    assert err.value.reason == "RATE_LIMITED"
    await limits.check("create_game", "10.0.0.2")
    for _ in range(10):
        await limits.check("join_game", "10.0.0.1")
        await limits.check("resign", "10.0.0.1")


def test_client_key_takes_the_trusted_hop_from_the_right() -> None:
    """Without a forwarded value the peer counts; with one, the entry the trusted proxy added."""
    assert client_key("10.0.0.9") == "10.0.0.9"
    assert client_key("10.0.0.9", "203.0.113.7") == "203.0.113.7"
    assert client_key("10.0.0.9", "6.6.6.6, 203.0.113.7") == "203.0.113.7"
    assert client_key("10.0.0.9", "6.6.6.6, 203.0.113.7, 10.1.1.1", 2) == "203.0.113.7"
    assert client_key("10.0.0.9", "203.0.113.7", 3) == "203.0.113.7"
    assert client_key("", "") == "-"
    assert len(client_key("x" * 500)) == 64


def test_parse_rate_knows_off() -> None:
    """off / 0 disable a limit; anything else is the limits library's notation."""
    assert parse_rate("off") is None
    assert parse_rate("0") is None
    item = parse_rate("5 per second")
    assert item is not None and item.amount == 5


@pytest.mark.parametrize("deployment", ["redis_cluster", "redis_sentinel"])
async def test_limits_are_counted_in_a_cluster_and_behind_sentinel(
    deployment: str, request: pytest.FixtureRequest
) -> None:
    """With a redis+cluster:// or redis+sentinel:// URL the counters live in that Redis."""
    url = request.getfixturevalue(deployment).url
    client = f"10.9.9.{len(deployment)}"
    first = RateLimits.for_store({"create_game": "2/minute"}, url)
    second = RateLimits.for_store({"create_game": "2/minute"}, url)  # another replica
    await first.check("create_game", client)
    await second.check("create_game", client)
    with pytest.raises(RateLimited):
        await first.check("create_game", client)

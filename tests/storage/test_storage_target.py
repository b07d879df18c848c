"""Tests of scopa.storage._target: which Redis deployment a REDIS_URL names."""

from __future__ import annotations

import pytest

from scopa.storage import RedisMode, parse_redis_url


def test_plain_urls_are_standalone_and_rediss_is_tls() -> None:
    """redis://, rediss:// and unix:// name one server; only rediss:// asks for TLS."""
    assert parse_redis_url("redis://h:6379/2").mode is RedisMode.STANDALONE
    assert not parse_redis_url("redis://h:6379/2").tls
    assert parse_redis_url("rediss://h:6380").tls
    assert parse_redis_url("unix:///run/redis.sock").mode is RedisMode.STANDALONE


def test_cluster_url_lists_seed_nodes_and_credentials() -> None:
    """redis+cluster:// carries every seed node and the credentials, TLS with rediss+."""
    target = parse_redis_url("rediss+cluster://u:p%40ss@a:7000,b:7001,[::1]:7002")
    assert target.mode is RedisMode.CLUSTER and target.tls
    assert target.nodes == (("a", 7000), ("b", 7001), ("::1", 7002))
    assert (target.username, target.password) == ("u", "p@ss")


def test_sentinel_url_names_the_master_and_database() -> None:
    """redis+sentinel:// lists the sentinels, then the master's name and an optional db."""
    target = parse_redis_url("redis+sentinel://:secret@s1:26379,s2:26379/mymaster/3")
    assert target.mode is RedisMode.SENTINEL and not target.tls
    assert target.nodes == (("s1", 26379), ("s2", 26379))
    assert (target.master, target.db, target.password) == ("mymaster", 3, "secret")
    assert parse_redis_url("rediss+sentinel://s1:26379/m").db == 0


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://h:6379", "unsupported Redis URL scheme"),
        ("redis+cluster://a:7000/1", "database 0 only"),
        ("redis+cluster://a", "expected host:port"),
        ("redis+cluster://a:99999", "expected host:port"),
        ("redis+sentinel://s1:26379", "needs the master's name"),
        ("redis+sentinel://s1:26379/m/x", "must be a number"),
    ],
)
def test_bad_urls_are_refused_with_their_reason(url: str, reason: str) -> None:
    """An unusable REDIS_URL raises ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=reason):
        parse_redis_url(url)


def test_tls_options_of_cluster_and_sentinel_urls_reach_every_connection() -> None:
    """ssl_* query options (a private CA) become connection options; others are refused."""
    target = parse_redis_url(
        "rediss+cluster://a:7000?ssl_ca_certs=/ca.pem&ssl_check_hostname=false"
    )
    assert target.connection_options() == {
        "ssl": True,
        "ssl_ca_certs": "/ca.pem",
        "ssl_check_hostname": False,
    }
    assert parse_redis_url("redis+sentinel://s:1/m").connection_options() == {}
    with pytest.raises(ValueError, match="unknown REDIS_URL option"):
        parse_redis_url("rediss+cluster://a:7000?max_connections=5")
    with pytest.raises(ValueError, match="need a rediss"):
        parse_redis_url("redis+sentinel://s:1/m?ssl_ca_certs=/ca.pem")

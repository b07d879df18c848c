"""Fixtures shared by every test suite."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings
from support.postgres_server import PostgresServer, running_postgres_server
from support.redis_cluster import RedisCluster, running_redis_cluster
from support.redis_sentinel import RedisSentinel, running_redis_sentinel
from support.redis_server import RedisServer, running_redis_server
from support.redis_tls import RedisTls, running_redis_tls

# Property tests draw the same examples on every run, so a red run is reproduced by running it
# again; random exploration is tools/fuzz_rules.py's job. SCOPA_HYPOTHESIS_PROFILE=explore draws
# new examples (with hypothesis' example database) for a developer who wants them.
settings.register_profile("derandomized", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("SCOPA_HYPOTHESIS_PROFILE", "derandomized"))

_SKIPPED: list[tuple[str, str]] = []
"""(test id, reason) of every skipped test of this session, for `make test`'s closing list."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a skipped test (on the controller, workers' reports included)."""
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        _SKIPPED.append((report.nodeid, reason))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the skipped tests to $SCOPA_SKIPPED_DIR/pytest.txt (tools/skipped.py lists them;
    $SCOPA_SKIPPED_NAME names another file, for a second run such as the compiled build's)."""
    folder = os.environ.get("SCOPA_SKIPPED_DIR")
    if not folder or hasattr(session.config, "workerinput"):
        return
    os.makedirs(folder, exist_ok=True)
    name = os.environ.get("SCOPA_SKIPPED_NAME") or "pytest"
    with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf-8") as out:
        out.writelines(f"{test}\t{reason}\n" for test, reason in _SKIPPED)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway redis-server (free port, no persistence) for the whole session."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """The redis:// URL of the session's throwaway redis-server."""
    return redis_server.url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """A throwaway 3-primary Redis Cluster for the whole session."""
    with running_redis_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_sentinel() -> Iterator[RedisSentinel]:
    """A throwaway primary behind a sentinel for the whole session."""
    with running_redis_sentinel() as sentinel:
        yield sentinel


@pytest.fixture(scope="session")
def redis_tls() -> Iterator[RedisTls]:
    """A throwaway TLS-only redis-server (self-signed certificate) for the whole session."""
    with running_redis_tls() as server:
        yield server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server (free port, fsync off) for the whole session."""
    with running_postgres_server() as server:
        yield server

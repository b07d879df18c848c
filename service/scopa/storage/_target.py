"""Which Redis deployment a ``REDIS_URL`` names: standalone, Redis Cluster or Sentinel.

- ``redis://[[user]:password@]host:port[/db]`` (``rediss://`` for TLS, ``unix://`` too):
  one server, as redis-py reads it;
- ``redis+cluster://[[user]:password@]host:port[,host:port...]`` (``rediss+cluster://``):
  seed nodes of a Redis Cluster (database 0 only);
- ``redis+sentinel://[[user]:password@]host:port[,host:port...]/master[/db]``
  (``rediss+sentinel://``): the sentinels and the name of the monitored master; the
  credentials are the master's (the sentinels are asked without any).

The ``+cluster`` and ``+sentinel`` schemes are the ones the ``limits`` library reads, so one
variable configures the games and the rate-limit counters alike. With TLS, the query may name a
private CA or a client certificate as redis-py does for ``rediss://``: ``ssl_ca_certs``,
``ssl_certfile``, ``ssl_keyfile``, ``ssl_cert_reqs`` and ``ssl_check_hostname``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["RedisMode", "RedisTarget", "parse_redis_url"]


class RedisMode(Enum):
    """How the service reaches Redis."""

    STANDALONE = "standalone"
    CLUSTER = "cluster"
    SENTINEL = "sentinel"


_MODES = {
    "redis": (RedisMode.STANDALONE, False),
    "rediss": (RedisMode.STANDALONE, True),
    "unix": (RedisMode.STANDALONE, False),
    "redis+cluster": (RedisMode.CLUSTER, False),
    "rediss+cluster": (RedisMode.CLUSTER, True),
    "redis+sentinel": (RedisMode.SENTINEL, False),
    "rediss+sentinel": (RedisMode.SENTINEL, True),
}


@dataclass(frozen=True)
class RedisTarget:
    """A parsed ``REDIS_URL`` (see the module docstring); ``url`` is the text as given."""

    url: str
    mode: RedisMode
    tls: bool
    nodes: tuple[tuple[str, int], ...] = ()
    """Cluster seed nodes or sentinels (empty for standalone: redis-py reads ``url``)."""
    master: str | None = None
    """The Sentinel master's name."""
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls_options: tuple[tuple[str, str], ...] = ()
    """``ssl_*`` query options of a cluster or sentinel URL (see the module docstring)."""

    def connection_options(self) -> dict[str, Any]:
        """Keyword arguments of every connection: TLS and its options (credentials apart)."""
        options: dict[str, Any] = {"ssl": self.tls} if self.tls else {}
        for name, value in self.tls_options:
            options[name] = value.lower() in ("1", "true", "yes") if name == _BOOL else value
        return options


_TLS_OPTIONS = frozenset(
    {"ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs", "ssl_check_hostname"}
)
_BOOL = "ssl_check_hostname"


def parse_redis_url(url: str) -> RedisTarget:
    """Parse ``url``; raise ValueError with the reason when it names no usable deployment."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _MODES:
        raise ValueError(f"unsupported Redis URL scheme {parts.scheme!r}; use one of {_schemes()}")
    mode, tls = _MODES[scheme]
    if mode is RedisMode.STANDALONE:
        return RedisTarget(url, mode, tls)
    tls_options = _tls_options(parts.query, tls)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    username, password = _credentials(userinfo)
    nodes = tuple(_node(text) for text in hosts.split(","))
    path = [segment for segment in parts.path.split("/") if segment]
    if mode is RedisMode.CLUSTER:
        if path and path != ["0"]:
            raise ValueError("a Redis Cluster has database 0 only; drop the path of REDIS_URL")
        return RedisTarget(
            url, mode, tls, nodes, username=username, password=password, tls_options=tls_options
        )
    if not path or len(path) > 2:
        raise ValueError("a redis+sentinel:// URL needs the master's name: .../<master>[/<db>]")
    return RedisTarget(
        url,
        mode,
        tls,
        nodes,
        master=unquote(path[0]),
        db=_db(path[1]) if len(path) == 2 else 0,
        username=username,
        password=password,
        tls_options=tls_options,
    )


def _tls_options(query: str, tls: bool) -> tuple[tuple[str, str], ...]:
    options = tuple(parse_qsl(query, keep_blank_values=True))
    unknown = sorted({name for name, _ in options} - _TLS_OPTIONS)
    if unknown:
        raise ValueError(f"unknown REDIS_URL option(s) {unknown}; known: {sorted(_TLS_OPTIONS)}")
    if options and not tls:
        raise ValueError(
            "ssl_* options of REDIS_URL need a rediss+cluster:// or rediss+sentinel://"
        )
    return options


def _schemes() -> str:
    return ", ".join(f"{scheme}://" for scheme in _MODES)


def _credentials(userinfo: str) -> tuple[str | None, str | None]:
    if not userinfo:
        return None, None
    user, colon, password = userinfo.partition(":")
    if not colon:
        return unquote(user) or None, None
    return unquote(user) or None, unquote(password) or None


def _node(text: str) -> tuple[str, int]:
    host, colon, port = text.strip().rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected host:port in REDIS_URL, got {text.strip()!r}")
    return host.strip("[]"), int(port)


def _db(text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"the database of REDIS_URL must be a number, got {text!r}")
    return int(text)

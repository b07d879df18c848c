"""Service settings, read once at start-up from environment variables only.

`Settings.from_env(os.environ)` parses and validates every variable; an invalid value raises
`ConfigError` naming the variable, so the process fails at start rather than at first use.
`settings_table()` renders the variables as the Markdown table of docs/operations.md.
The standard `OTEL_*` variables are read by the OpenTelemetry SDK itself; the few that choose an
exporter are also reflected here so that the choice is visible and testable.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, TypeVar

from scopa._config_values import (
    Exporter,
    LogFormat,
    _archive_url,
    _auth_params,
    _bool,
    _byte_count,
    _exporter,
    _header_name,
    _hops,
    _issuer,
    _log_format,
    _log_level,
    _non_empty,
    _non_negative_float,
    _non_negative_int,
    _optional_port,
    _optional_seconds,
    _origins,
    _port,
    _positive_count,
    _positive_float,
    _positive_int,
    _rate,
    _redis_url,
    _scope,
)
from scopa._config_webhooks import WEBHOOK_ENV_VARS, WebhookSettings, webhook_settings

__all__ = [
    "ENV_VARS",
    "ConfigError",
    "EnvVar",
    "Settings",
    "settings_table",
]

_T = TypeVar("_T")
_MIN_SECRET_BYTES = 16
_DAY_S = 86_400
_DEFAULT_HTTP_PORT: int | None = 8080


class ConfigError(ValueError):
    """An environment variable holds a value the service cannot use."""


@dataclass(frozen=True)
class EnvVar:
    """One documented environment variable: its name, default and meaning."""

    name: str
    default: str
    description: str


ENV_VARS: tuple[EnvVar, ...] = (
    EnvVar("SCOPA_HOST", "`0.0.0.0`", "Address the gRPC server binds to."),
    EnvVar("SCOPA_PORT", "`50051`", "TCP port of the gRPC server (`0` picks a free port)."),
    EnvVar(
        "SCOPA_HTTP_PORT",
        "`8080`",
        "TCP port of the HTTP server in the same process: REST/JSON, Connect, gRPC-Web, "
        "`/openapi.json`, `/healthz`, `/readyz` (`0` picks a free port, `off` disables it).",
    ),
    EnvVar(
        "SCOPA_CORS_ORIGINS",
        "none",
        "Comma-separated origins (e.g. `https://play.example`) browsers may call the HTTP port "
        "from; `*` allows any origin.",
    ),
    EnvVar(
        "SCOPA_WEB_UI",
        "`off` (`on` in `make run`)",
        "Serve the reference web client (clients/web, docs/web-client.md) at `/` on the HTTP "
        "port: create, join and play games in a browser.",
    ),
    EnvVar(
        "SCOPA_SSE_KEEPALIVE_S",
        "`15`",
        "Seconds between the comment lines that keep an idle Server-Sent Events stream "
        "(REST WatchGame) open through proxies.",
    ),
    EnvVar(
        "REDIS_URL",
        "unset",
        "Redis for game state and rate limits: `redis://host:6379/0` (one server; "
        "`rediss://` for TLS), `redis+cluster://host:port[,host:port…]` (Redis Cluster seed "
        "nodes) or `redis+sentinel://host:port[,host:port…]/master[/db]` (Sentinel); "
        "`rediss+cluster://`, `rediss+sentinel://` for TLS. Unset uses the embedded "
        "in-process store (single replica, lost on restart).",
    ),
    EnvVar(
        "SCOPA_REDIS_TIMEOUT_S",
        "`5`",
        "Seconds a Redis command (and a connection attempt) may take; a write that times out "
        "after it was sent is reported as `UNAVAILABLE / OUTCOME_UNKNOWN`.",
    ),
    EnvVar(
        "SCOPA_TOKEN_SECRET",
        "random",
        "HMAC key for seat tokens (at least 16 bytes). Unset: a random key is generated at start "
        "and a warning is logged, because tokens then do not survive restarts or span replicas.",
    ),
    EnvVar(
        "SCOPA_OIDC_ISSUER",
        "unset",
        "OpenID Connect issuer whose access tokens (`Authorization: Bearer <JWT>`) sign players "
        "in: their seats follow them across devices, without seat tokens (docs/operations.md, "
        "Identity). An `https://` URL (`http://` only for localhost); unset: seat tokens only.",
    ),
    EnvVar(
        "SCOPA_OIDC_AUDIENCE",
        "unset",
        "The `aud` an identity token must carry (the API identifier the provider issues tokens "
        "for); required with `SCOPA_OIDC_ISSUER`.",
    ),
    EnvVar(
        "SCOPA_OIDC_LEEWAY_S",
        "`30`",
        "Clock skew allowed when checking an identity token's `exp`, `nbf` and `iat`, in seconds.",
    ),
    EnvVar(
        "SCOPA_OIDC_MIN_REFRESH_S",
        "`10`",
        "Fewest seconds between two fetches of the issuer's keys (JWKS): a token with an unknown "
        "key id, or a failed fetch, refreshes them at most this often. Kept keys are fetched "
        "again every 10 minutes.",
    ),
    EnvVar(
        "SCOPA_WEB_OIDC_CLIENT_ID",
        "unset",
        "The web client's own client id at the `SCOPA_OIDC_ISSUER` provider (a public client: "
        "authorization code flow with PKCE, redirect URI the page's origin and `/`): with "
        "`SCOPA_WEB_UI` the page offers Sign in (docs/operations.md, Identity). Unset: no Sign in.",
    ),
    EnvVar(
        "SCOPA_WEB_OIDC_SCOPE",
        "`openid profile`",
        "The scopes the web client asks for; `profile` gives the name it shows, "
        "`offline_access` a refresh token where the provider needs it for silent renewal.",
    ),
    EnvVar(
        "SCOPA_WEB_OIDC_PARAMS",
        "unset",
        "Extra authorization request parameters of the web client, URL-encoded, e.g. "
        "`audience=https%3A%2F%2Fscopa.example%2Fapi` where the provider needs one to issue "
        "access tokens for `SCOPA_OIDC_AUDIENCE`.",
    ),
    EnvVar(
        "SCOPA_ALLOW_STACKED_DECKS",
        "`false`",
        "Accept a caller-supplied deck order when creating a game (tests, tournaments).",
    ),
    EnvVar("SCOPA_GAME_TTL_S", "`604800` (7 days)", "Expiry of an unfinished game, in seconds."),
    EnvVar(
        "SCOPA_WAITING_TTL_S",
        "`3600` (1 hour)",
        "Expiry of a game still waiting for players to join (refreshed by each join), in "
        "seconds; once every seat is taken, `SCOPA_GAME_TTL_S` applies.",
    ),
    EnvVar(
        "SCOPA_FINISHED_TTL_S",
        "`86400` (1 day)",
        "How long a finished game stays readable, in seconds.",
    ),
    EnvVar(
        "SCOPA_ARCHIVE_URL",
        "`sqlite:///scopa-data/archive.db`",
        "Where finished games' records are kept: `sqlite:///PATH` (a file, relative to the working "
        "directory; `sqlite:////abs/path` for an absolute one) or "
        "`postgresql://USER:PASSWORD@HOST:PORT/DB`; `off` keeps none.",
    ),
    EnvVar(
        "SCOPA_ARCHIVE_TIMEOUT_S",
        "`5`",
        "Seconds a PostgreSQL archive's statement (a lock it waits for included) and a "
        "connection attempt may take: a stalled archive answers `UNAVAILABLE / "
        "STORAGE_UNAVAILABLE` instead of holding the call, and a record it did not take is "
        "written by a later sweep.",
    ),
    EnvVar(
        "SCOPA_ARCHIVE_RETENTION_DAYS",
        "`365`",
        "Finished games' records older than this many days are deleted (every replica's "
        "sweeper runs the retention job once a minute).",
    ),
    EnvVar(
        "SCOPA_WATCH_IDLE_S",
        "`600`",
        "A WatchGame stream with no new version for this many seconds ends with "
        "`DEADLINE_EXCEEDED / WATCH_IDLE` (watch again from the last version to resume).",
    ),
    EnvVar(
        "SCOPA_PRESENCE_TTL_S",
        "`15`",
        "Presence: each open stream refreshes its seat's (or spectator's) entry every third of "
        "this; an entry not refreshed for this many seconds (its replica died) lapses.",
    ),
    EnvVar(
        "SCOPA_SWEEP_INTERVAL_S",
        "`1`",
        "How often each replica's sweeper scans the turn-deadline index for overdue games "
        "(turn clocks, bot turns a dead replica left) and drops the lobby entries of expired "
        "public games, in seconds.",
    ),
    EnvVar(
        "SCOPA_BOT_BUDGET_MS",
        "`20`",
        "How long an `ismcts` bot seat searches per move, in milliseconds (at most 1000 "
        "iterations per 20 ms, the bots' default budget).",
    ),
    EnvVar(
        "SCOPA_BOT_GRACE_S",
        "`2`",
        "A bot seat's turn still unplayed this many seconds after its thinking time "
        "(`SCOPA_BOT_BUDGET_MS`) is over (its replica died) is played by a sweeper.",
    ),
    EnvVar(
        "SCOPA_BOT_ONLY_GAMES",
        "`false`",
        "Accept games whose every seat is a bot; refused with `FAILED_PRECONDITION / "
        "BOT_ONLY_GAMES_DISABLED` otherwise (one call would set the server playing a whole "
        "match).",
    ),
    EnvVar(
        "SCOPA_BOT_SEARCHES",
        "`2`",
        "Bot moves one replica chooses at once (an `ismcts` move holds a core for its budget).",
    ),
    EnvVar(
        "SCOPA_BOT_QUEUE",
        "`32`",
        "Bot turns that may wait for a search slot on one replica; a turn beyond them is left "
        "due and taken later by a sweeper (`scopa.bots.deferred`).",
    ),
    EnvVar(
        "SCOPA_BOT_PROCESSES",
        "`true`",
        "Run the bot searches in `SCOPA_BOT_SEARCHES` worker processes, so that they leave the "
        "event loop its core (a worker gets the bot seat's view only); `false` runs them in "
        "threads of the server process.",
    ),
    EnvVar(
        "SCOPA_WATCH_PER_CLIENT",
        "`100`",
        "Open WatchGame streams one client address may hold on one replica; more get "
        "`RESOURCE_EXHAUSTED / TOO_MANY_WATCHES`.",
    ),
    EnvVar(
        "SCOPA_SESSION_QUEUE",
        "`64`",
        "Frames a realtime session may have waiting to be written; one more closes the "
        "session with close code 4008 (a slow reader: it reconnects and resumes).",
    ),
    EnvVar(
        "SCOPA_SESSIONS_MAX",
        "`10000`",
        "Realtime sessions one replica holds at once; a handshake beyond is refused with "
        "HTTP 429 `RESOURCE_EXHAUSTED / TOO_MANY_SESSIONS`.",
    ),
    EnvVar(
        "SCOPA_SESSION_ACTION_RATE",
        "`20/second`",
        "Actions one realtime session may take (a moving window, per connection); more get an "
        "error frame `RESOURCE_EXHAUSTED / RATE_LIMITED` with a RetryInfo. `off` disables it.",
    ),
    EnvVar(
        "SCOPA_SESSION_PING_S",
        "`20`",
        "Seconds between the WebSocket pings of a realtime session; a pong later than this "
        "closes the connection (1011).",
    ),
    EnvVar(
        "SCOPA_GRACE_S",
        "`10`",
        "Shutdown grace: seconds in-flight RPCs get after SIGTERM/SIGINT.",
    ),
    EnvVar(
        "SCOPA_DRAIN_DELAY_S",
        "`2`",
        "On SIGTERM/SIGINT: seconds between readiness turning NOT_SERVING (watch streams are "
        "ended at once with UNAVAILABLE / SERVER_SHUTTING_DOWN, unary calls still served) and "
        "refusing new calls, so that probes and load balancers see it before the port closes. "
        "Then in-flight calls get up to `SCOPA_GRACE_S`.",
    ),
    EnvVar(
        "SCOPA_MAX_REQUEST_BYTES",
        "`65536`",
        "Largest request message accepted; a larger one is INVALID_ARGUMENT / "
        "REQUEST_TOO_LARGE (above 4x this, gRPC itself answers RESOURCE_EXHAUSTED).",
    ),
    EnvVar(
        "SCOPA_RATE_LIMIT_CREATE_GAME",
        "`60/minute`",
        "CreateGame calls allowed per client, in `limits` notation (`10/second`, "
        "`100/hour`, `5 per minute`); `off` disables. Counted in Redis (shared by every "
        "replica) when `REDIS_URL` is set, else in memory. Over it: RESOURCE_EXHAUSTED / "
        "RATE_LIMITED with a `google.rpc.RetryInfo` delay.",
    ),
    EnvVar(
        "SCOPA_RATE_LIMIT_JOIN_GAME",
        "`120/minute`",
        "JoinGame calls allowed per client, as `SCOPA_RATE_LIMIT_CREATE_GAME`.",
    ),
    EnvVar(
        "SCOPA_TRUSTED_PROXY_HEADER",
        "unset",
        "Behind an ingress or proxy: the request header naming the client address (e.g. "
        "`x-forwarded-for` or `x-real-ip`), used as the rate-limit key. Unset: the peer "
        "address. Set it only when every request passes that proxy, or clients can forge it.",
    ),
    EnvVar(
        "SCOPA_TRUSTED_PROXY_HOPS",
        "`1`",
        "How many trusted proxies append to `X-Forwarded-For`: the client is that many "
        "entries from the right.",
    ),
    EnvVar(
        "SCOPA_MAX_CONNECTION_AGE_S",
        "off",
        "Close client connections after this many seconds (`grpc.max_connection_age_ms`) so "
        "clients re-balance across replicas; `0`/`off` disables.",
    ),
    EnvVar(
        "SCOPA_RUNTIME_STATS_S",
        "off",
        "Log one `runtime` line every this many seconds: event-loop lag (p50, p99, max of a "
        "10 ms probe) and garbage-collector pauses by generation, i.e. where calls wait inside "
        "the process; `0`/`off` disables.",
    ),
    EnvVar(
        "SCOPA_LOG_FORMAT",
        "`auto`",
        "`json` (one JSON object a line), `console` (coloured, for people) or `auto` "
        "(console when stderr is a terminal, JSON otherwise).",
    ),
    EnvVar(
        "SCOPA_LOG_LEVEL",
        "`info`",
        "`debug`, `info`, `warning`, `error` or `critical`.",
    ),
    EnvVar(
        "SCOPA_TRACING",
        "`on`",
        "OpenTelemetry traces and metrics on/off. When on and no exporter is configured, spans "
        "are still created (trace ids appear in logs) but not exported.",
    ),
    EnvVar("OTEL_SERVICE_NAME", "`scopa`", "Service name on spans and metrics."),
    EnvVar(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "unset",
        "OTLP/gRPC collector endpoint (e.g. `http://otel-collector:4317`); setting it turns on "
        "OTLP export of traces and metrics. Other `OTEL_EXPORTER_OTLP_*` variables are honoured "
        "by the SDK.",
    ),
    EnvVar(
        "OTEL_TRACES_EXPORTER",
        "`otlp` if an endpoint is set, else `none`",
        "`otlp`, `console` (spans printed to stdout) or `none`.",
    ),
    EnvVar(
        "OTEL_METRICS_EXPORTER",
        "`otlp` if an endpoint is set, else `none`",
        "`otlp`, `console` or `none`.",
    ),
    *(EnvVar(*row) for row in WEBHOOK_ENV_VARS),
)


DEFAULT_ARCHIVE_URL: Final = "sqlite:///scopa-data/archive.db"
"""The archive of finished games by default: a SQLite file under the working directory."""
_ARCHIVE_DEFAULT: str | None = DEFAULT_ARCHIVE_URL


@dataclass(frozen=True)
class Settings:
    """Every setting of the service process, validated."""

    host: str = "0.0.0.0"
    port: int = 50051
    http_port: int | None = 8080
    cors_origins: tuple[str, ...] = ()
    web_ui: bool = False
    sse_keepalive_s: float = 15.0
    redis_url: str | None = None
    redis_timeout_s: float = 5.0
    token_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    token_secret_generated: bool = True
    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_leeway_s: float = 30.0
    oidc_min_refresh_s: float = 10.0
    web_oidc_client_id: str | None = None
    web_oidc_scope: str = "openid profile"
    web_oidc_params: tuple[tuple[str, str], ...] = ()
    allow_stacked_decks: bool = False
    game_ttl_s: int = 7 * _DAY_S
    finished_ttl_s: int = _DAY_S
    archive_url: str | None = DEFAULT_ARCHIVE_URL
    archive_timeout_s: float = 5.0
    archive_retention_days: int = 365
    waiting_ttl_s: int = 3600
    watch_idle_s: float = 600.0
    watch_per_client: int = 100
    presence_ttl_s: float = 15.0
    session_queue: int = 64
    sessions_max: int = 10_000
    session_action_rate: str = "20/second"
    session_ping_s: float = 20.0
    sweep_interval_s: float = 1.0
    bot_grace_s: float = 2.0
    bot_budget_ms: int = 20
    bot_only_games: bool = False
    bot_searches: int = 2
    bot_queue: int = 32
    bot_processes: bool = True
    grace_s: float = 10.0
    drain_delay_s: float = 2.0
    max_request_bytes: int = 65_536
    rate_limit_create_game: str = "60/minute"
    rate_limit_join_game: str = "120/minute"
    trusted_proxy_header: str | None = None
    trusted_proxy_hops: int = 1
    max_connection_age_s: float | None = None
    runtime_stats_s: float | None = None
    log_format: LogFormat = "auto"
    log_level: str = "info"
    tracing: bool = True
    service_name: str = "scopa"
    traces_exporter: Exporter = "none"
    metrics_exporter: Exporter = "none"
    webhooks: WebhookSettings = WebhookSettings()

    @property
    def address(self) -> str:
        """The `host:port` string the server binds to."""
        host = self.host
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"{host}:{self.port}"

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """Parse and validate settings from an environment mapping; raise ConfigError if invalid."""
        env = _Env(environ)
        secret_text = env.raw("SCOPA_TOKEN_SECRET")
        if secret_text is None:
            secret, generated = secrets.token_bytes(32), True
        else:
            secret, generated = secret_text.encode(), False
            if len(secret) < _MIN_SECRET_BYTES:
                raise ConfigError(
                    f"SCOPA_TOKEN_SECRET must be at least {_MIN_SECRET_BYTES} bytes long"
                )
        issuer = env.get("SCOPA_OIDC_ISSUER", None, _issuer)
        audience = env.raw("SCOPA_OIDC_AUDIENCE")
        if issuer is not None and audience is None:
            raise ConfigError("SCOPA_OIDC_AUDIENCE must be set with SCOPA_OIDC_ISSUER")
        web_client_id = env.raw("SCOPA_WEB_OIDC_CLIENT_ID")
        if web_client_id is not None and issuer is None:
            raise ConfigError("SCOPA_WEB_OIDC_CLIENT_ID needs SCOPA_OIDC_ISSUER")
        endpoint = env.raw("OTEL_EXPORTER_OTLP_ENDPOINT")
        default_exporter: Exporter = "otlp" if endpoint else "none"
        traces_endpoint = env.raw("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        metrics_endpoint = env.raw("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        try:
            webhooks = webhook_settings(environ)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        return cls(
            webhooks=webhooks,
            host=env.get("SCOPA_HOST", "0.0.0.0", _non_empty),
            port=env.get("SCOPA_PORT", 50051, _port),
            http_port=env.get("SCOPA_HTTP_PORT", _DEFAULT_HTTP_PORT, _optional_port),
            cors_origins=env.get("SCOPA_CORS_ORIGINS", (), _origins),
            web_ui=env.get("SCOPA_WEB_UI", False, _bool),
            sse_keepalive_s=env.get("SCOPA_SSE_KEEPALIVE_S", 15.0, _positive_float),
            redis_url=env.get("REDIS_URL", None, _redis_url),
            redis_timeout_s=env.get("SCOPA_REDIS_TIMEOUT_S", 5.0, _positive_float),
            token_secret=secret,
            token_secret_generated=generated,
            oidc_issuer=issuer,
            oidc_audience=audience,
            oidc_leeway_s=env.get("SCOPA_OIDC_LEEWAY_S", 30.0, _non_negative_float),
            oidc_min_refresh_s=env.get("SCOPA_OIDC_MIN_REFRESH_S", 10.0, _non_negative_float),
            web_oidc_client_id=web_client_id,
            web_oidc_scope=env.get("SCOPA_WEB_OIDC_SCOPE", "openid profile", _scope),
            web_oidc_params=env.get("SCOPA_WEB_OIDC_PARAMS", (), _auth_params),
            allow_stacked_decks=env.get("SCOPA_ALLOW_STACKED_DECKS", False, _bool),
            game_ttl_s=env.get("SCOPA_GAME_TTL_S", 7 * _DAY_S, _positive_int),
            finished_ttl_s=env.get("SCOPA_FINISHED_TTL_S", _DAY_S, _positive_int),
            archive_url=env.get("SCOPA_ARCHIVE_URL", _ARCHIVE_DEFAULT, _archive_url),
            archive_timeout_s=env.get("SCOPA_ARCHIVE_TIMEOUT_S", 5.0, _positive_float),
            archive_retention_days=env.get("SCOPA_ARCHIVE_RETENTION_DAYS", 365, _positive_int),
            waiting_ttl_s=env.get("SCOPA_WAITING_TTL_S", 3600, _positive_int),
            watch_idle_s=env.get("SCOPA_WATCH_IDLE_S", 600.0, _positive_float),
            watch_per_client=env.get("SCOPA_WATCH_PER_CLIENT", 100, _positive_count),
            presence_ttl_s=env.get("SCOPA_PRESENCE_TTL_S", 15.0, _positive_float),
            session_queue=env.get("SCOPA_SESSION_QUEUE", 64, _positive_count),
            sessions_max=env.get("SCOPA_SESSIONS_MAX", 10_000, _positive_count),
            session_action_rate=env.get("SCOPA_SESSION_ACTION_RATE", "20/second", _rate),
            session_ping_s=env.get("SCOPA_SESSION_PING_S", 20.0, _positive_float),
            sweep_interval_s=env.get("SCOPA_SWEEP_INTERVAL_S", 1.0, _positive_float),
            bot_grace_s=env.get("SCOPA_BOT_GRACE_S", 2.0, _non_negative_float),
            bot_budget_ms=env.get("SCOPA_BOT_BUDGET_MS", 20, _positive_int),
            bot_only_games=env.get("SCOPA_BOT_ONLY_GAMES", False, _bool),
            bot_searches=env.get("SCOPA_BOT_SEARCHES", 2, _positive_count),
            bot_queue=env.get("SCOPA_BOT_QUEUE", 32, _non_negative_int),
            bot_processes=env.get("SCOPA_BOT_PROCESSES", True, _bool),
            grace_s=env.get("SCOPA_GRACE_S", 10.0, _non_negative_float),
            drain_delay_s=env.get("SCOPA_DRAIN_DELAY_S", 2.0, _non_negative_float),
            max_request_bytes=env.get("SCOPA_MAX_REQUEST_BYTES", 65_536, _byte_count),
            rate_limit_create_game=env.get("SCOPA_RATE_LIMIT_CREATE_GAME", "60/minute", _rate),
            rate_limit_join_game=env.get("SCOPA_RATE_LIMIT_JOIN_GAME", "120/minute", _rate),
            trusted_proxy_header=env.get("SCOPA_TRUSTED_PROXY_HEADER", None, _header_name),
            trusted_proxy_hops=env.get("SCOPA_TRUSTED_PROXY_HOPS", 1, _hops),
            max_connection_age_s=env.get("SCOPA_MAX_CONNECTION_AGE_S", None, _optional_seconds),
            runtime_stats_s=env.get("SCOPA_RUNTIME_STATS_S", None, _optional_seconds),
            log_format=env.get("SCOPA_LOG_FORMAT", "auto", _log_format),
            log_level=env.get("SCOPA_LOG_LEVEL", "info", _log_level),
            tracing=env.get("SCOPA_TRACING", True, _bool),
            service_name=env.get("OTEL_SERVICE_NAME", "scopa", _non_empty),
            traces_exporter=env.get(
                "OTEL_TRACES_EXPORTER",
                "otlp" if traces_endpoint else default_exporter,
                _exporter,
            ),
            metrics_exporter=env.get(
                "OTEL_METRICS_EXPORTER",
                "otlp" if metrics_endpoint else default_exporter,
                _exporter,
            ),
        )


def settings_table() -> str:
    """Render the documented environment variables as a Markdown table."""
    lines = ["| Variable | Default | Meaning |", "| --- | --- | --- |"]
    lines += [f"| `{v.name}` | {v.default} | {v.description} |" for v in ENV_VARS]
    return "\n".join(lines) + "\n"


class _Env:
    """Reads variables, treating empty or blank values as unset."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ

    def raw(self, name: str) -> str | None:
        value = self._environ.get(name, "").strip()
        return value or None

    def get(self, name: str, default: _T, parse: Callable[[str], _T]) -> _T:
        value = self.raw(name)
        if value is None:
            return default
        try:
            return parse(value)
        except ValueError as exc:
            raise ConfigError(f"{name}={value!r} is invalid: {exc}") from None

"""Tests of scopa.config: environment parsing, validation and the documented table."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from scopa.config import ENV_VARS, ConfigError, Settings, settings_table


def test_defaults_when_environment_is_empty() -> None:
    """An empty environment gives the documented defaults and a generated token secret."""
    settings = Settings.from_env({})
    assert (settings.host, settings.port, settings.redis_url) == ("0.0.0.0", 50051, None)
    assert settings.token_secret_generated and len(settings.token_secret) == 32
    assert settings.allow_stacked_decks is False
    assert (settings.game_ttl_s, settings.finished_ttl_s) == (7 * 86400, 86400)
    assert (settings.grace_s, settings.max_connection_age_s) == (10.0, None)
    assert (settings.drain_delay_s, settings.max_request_bytes) == (2.0, 65536)
    assert (settings.rate_limit_create_game, settings.rate_limit_join_game) == (
        "60/minute",
        "120/minute",
    )
    assert (settings.trusted_proxy_header, settings.trusted_proxy_hops) == (None, 1)
    assert (settings.log_format, settings.log_level, settings.tracing) == ("auto", "info", True)
    assert (settings.service_name, settings.traces_exporter) == ("scopa", "none")


def test_generated_secrets_differ_between_starts() -> None:
    """Two starts without SCOPA_TOKEN_SECRET get different random keys."""
    assert Settings.from_env({}).token_secret != Settings.from_env({}).token_secret


def test_every_variable_is_parsed() -> None:
    """Each variable, when set, lands in its field with the right type."""
    settings = Settings.from_env(
        {
            "SCOPA_HOST": "127.0.0.1",
            "SCOPA_PORT": "6000",
            "REDIS_URL": "redis://cache:6380/2",
            "SCOPA_TOKEN_SECRET": "0123456789abcdef-secret",
            "SCOPA_ALLOW_STACKED_DECKS": "Yes",
            "SCOPA_BOT_ONLY_GAMES": "true",
            "SCOPA_BOT_SEARCHES": "4",
            "SCOPA_BOT_QUEUE": "0",
            "SCOPA_BOT_PROCESSES": "off",
            "SCOPA_GAME_TTL_S": "3600",
            "SCOPA_FINISHED_TTL_S": "60",
            "SCOPA_GRACE_S": "2.5",
            "SCOPA_DRAIN_DELAY_S": "0.5",
            "SCOPA_MAX_REQUEST_BYTES": "4096",
            "SCOPA_RATE_LIMIT_CREATE_GAME": "5 per second",
            "SCOPA_RATE_LIMIT_JOIN_GAME": "off",
            "SCOPA_TRUSTED_PROXY_HEADER": "X-Forwarded-For",
            "SCOPA_TRUSTED_PROXY_HOPS": "2",
            "SCOPA_MAX_CONNECTION_AGE_S": "300",
            "SCOPA_LOG_FORMAT": "Console",
            "SCOPA_LOG_LEVEL": "DEBUG",
            "SCOPA_TRACING": "off",
            "OTEL_SERVICE_NAME": "scopa-eu",
            "OTEL_TRACES_EXPORTER": "console",
        }
    )
    assert settings.address == "127.0.0.1:6000"
    assert settings.redis_url == "redis://cache:6380/2"
    assert settings.token_secret == b"0123456789abcdef-secret"
    assert not settings.token_secret_generated
    assert settings.allow_stacked_decks is True
    assert (settings.bot_only_games, settings.bot_searches, settings.bot_queue) == (True, 4, 0)
    assert settings.bot_processes is False
    assert (settings.game_ttl_s, settings.finished_ttl_s, settings.grace_s) == (3600, 60, 2.5)
    assert settings.max_connection_age_s == 300.0
    assert (settings.drain_delay_s, settings.max_request_bytes) == (0.5, 4096)
    assert (settings.rate_limit_create_game, settings.rate_limit_join_game) == (
        "5 per second",
        "off",
    )
    assert (settings.trusted_proxy_header, settings.trusted_proxy_hops) == ("x-forwarded-for", 2)
    assert (settings.log_format, settings.log_level, settings.tracing) == (
        "console",
        "debug",
        False,
    )
    assert (settings.service_name, settings.traces_exporter) == ("scopa-eu", "console")


def test_otlp_endpoint_turns_on_otlp_export() -> None:
    """Setting OTEL_EXPORTER_OTLP_ENDPOINT selects the OTLP exporters unless overridden."""
    settings = Settings.from_env(
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_METRICS_EXPORTER": "none"}
    )
    assert (settings.traces_exporter, settings.metrics_exporter) == ("otlp", "none")


def test_ipv6_host_is_bracketed_in_the_address() -> None:
    """A bare IPv6 host is written in brackets in the bind address."""
    assert Settings.from_env({"SCOPA_HOST": "::", "SCOPA_PORT": "1"}).address == "[::]:1"


@pytest.mark.parametrize("value", ["0", "off", "OFF"])
def test_max_connection_age_can_be_disabled(value: str) -> None:
    """0 or off disables the maximum connection age."""
    env = {"SCOPA_MAX_CONNECTION_AGE_S": value}
    assert Settings.from_env(env).max_connection_age_s is None


@pytest.mark.parametrize(("value", "seconds"), [("off", None), ("0", None), ("2.5", 2.5)])
def test_runtime_stats_interval(value: str, seconds: float | None) -> None:
    """SCOPA_RUNTIME_STATS_S is an interval in seconds, off (the default) or 0 for none."""
    assert Settings.from_env({"SCOPA_RUNTIME_STATS_S": value}).runtime_stats_s == seconds
    assert Settings.from_env({}).runtime_stats_s is None


@pytest.mark.parametrize(
    ("value", "port"), [("off", None), ("OFF", None), ("0", 0), ("9090", 9090)]
)
def test_http_port_can_be_a_port_zero_or_off(value: str, port: int | None) -> None:
    """SCOPA_HTTP_PORT is a port, 0 for a free one, or off to serve no HTTP."""
    assert Settings.from_env({"SCOPA_HTTP_PORT": value}).http_port == port
    assert Settings.from_env({}).http_port == 8080


def test_cors_origins_are_a_comma_separated_list() -> None:
    """SCOPA_CORS_ORIGINS lists origins (trailing slashes dropped); unset allows none."""
    env = {"SCOPA_CORS_ORIGINS": "https://a.example/, http://localhost:5173"}
    assert Settings.from_env(env).cors_origins == ("https://a.example", "http://localhost:5173")
    assert Settings.from_env({}).cors_origins == ()


def test_web_ui_is_off_unless_turned_on() -> None:
    """SCOPA_WEB_UI is a switch, off by default (make run turns it on); nonsense is refused."""
    assert Settings.from_env({}).web_ui is False
    assert Settings.from_env({"SCOPA_WEB_UI": "on"}).web_ui is True
    with pytest.raises(ConfigError, match="SCOPA_WEB_UI"):
        Settings.from_env({"SCOPA_WEB_UI": "maybe"})


def test_blank_values_count_as_unset() -> None:
    """An empty or blank variable falls back to its default instead of failing."""
    assert Settings.from_env({"SCOPA_PORT": "  ", "REDIS_URL": ""}).port == 50051


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SCOPA_PORT", "http"),
        ("SCOPA_PORT", "70000"),
        ("SCOPA_PORT", "-1"),
        ("REDIS_URL", "http://redis:6379"),
        ("REDIS_URL", "redis+sentinel://s1:26379"),
        ("SCOPA_HTTP_PORT", "web"),
        ("SCOPA_HTTP_PORT", "65536"),
        ("SCOPA_CORS_ORIGINS", "example.com"),
        ("SCOPA_ALLOW_STACKED_DECKS", "maybe"),
        ("SCOPA_BOT_ONLY_GAMES", "sometimes"),
        ("SCOPA_BOT_SEARCHES", "0"),
        ("SCOPA_BOT_QUEUE", "-1"),
        ("SCOPA_BOT_PROCESSES", "forks"),
        ("SCOPA_GAME_TTL_S", "0"),
        ("SCOPA_FINISHED_TTL_S", "1.5"),
        ("SCOPA_GRACE_S", "-3"),
        ("SCOPA_GRACE_S", "nan"),
        ("SCOPA_MAX_CONNECTION_AGE_S", "-5"),
        ("SCOPA_DRAIN_DELAY_S", "-1"),
        ("SCOPA_MAX_REQUEST_BYTES", "100"),
        ("SCOPA_RATE_LIMIT_CREATE_GAME", "lots"),
        ("SCOPA_RATE_LIMIT_JOIN_GAME", "5/fortnight"),
        ("SCOPA_TRUSTED_PROXY_HEADER", "x forwarded"),
        ("SCOPA_TRUSTED_PROXY_HOPS", "0"),
        ("SCOPA_LOG_FORMAT", "xml"),
        ("SCOPA_LOG_LEVEL", "verbose"),
        ("SCOPA_TRACING", "2"),
        ("OTEL_TRACES_EXPORTER", "jaeger"),
    ],
)
def test_invalid_values_raise_a_clear_error(name: str, value: str) -> None:
    """An invalid value raises ConfigError naming the variable and the value."""
    with pytest.raises(ConfigError) as info:
        Settings.from_env({name: value})
    assert name in str(info.value)
    assert repr(value) in str(info.value)


def test_short_secret_error_names_the_variable_but_not_the_secret() -> None:
    """A too-short token secret raises ConfigError naming the variable, never echoing the key."""
    with pytest.raises(ConfigError) as info:
        Settings.from_env({"SCOPA_TOKEN_SECRET": "short-key"})
    assert "SCOPA_TOKEN_SECRET" in str(info.value)
    assert "16 bytes" in str(info.value)
    assert "short-key" not in str(info.value)


def test_secret_is_not_in_the_repr() -> None:
    """The token secret never appears in the settings' repr (and so in logs)."""
    settings = Settings.from_env({"SCOPA_TOKEN_SECRET": "do-not-print-this-key"})
    assert "do-not-print-this-key" not in repr(settings)


def test_oidc_settings_are_parsed() -> None:
    """An issuer (its trailing slash dropped), its audience, the leeway and the refresh gap."""
    settings = Settings.from_env(
        {
            "SCOPA_OIDC_ISSUER": "https://tenant.eu.auth0.com/",
            "SCOPA_OIDC_AUDIENCE": "https://scopa.example/api",
            "SCOPA_OIDC_LEEWAY_S": "5",
            "SCOPA_OIDC_MIN_REFRESH_S": "2.5",
        }
    )
    assert settings.oidc_issuer == "https://tenant.eu.auth0.com"
    assert settings.oidc_audience == "https://scopa.example/api"
    assert (settings.oidc_leeway_s, settings.oidc_min_refresh_s) == (5.0, 2.5)
    assert Settings.from_env({}).oidc_issuer is None


@pytest.mark.parametrize(
    "issuer",
    ["http://idp.example", "ftp://idp.example", "idp.example", "https://idp.example/?x=1"],
)
def test_an_issuer_must_be_https_but_on_localhost(issuer: str) -> None:
    env = {"SCOPA_OIDC_ISSUER": issuer, "SCOPA_OIDC_AUDIENCE": "api"}
    with pytest.raises(ConfigError, match="SCOPA_OIDC_ISSUER"):
        Settings.from_env(env)
    local = Settings.from_env({**env, "SCOPA_OIDC_ISSUER": "http://127.0.0.1:9000"})
    assert local.oidc_issuer == "http://127.0.0.1:9000"


def test_an_issuer_needs_an_audience() -> None:
    with pytest.raises(ConfigError, match="SCOPA_OIDC_AUDIENCE"):
        Settings.from_env({"SCOPA_OIDC_ISSUER": "https://idp.example"})


def test_settings_are_frozen() -> None:
    """Settings cannot be changed after parsing."""
    settings = Settings.from_env({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.port = 1  # type: ignore[misc]


DOCUMENTED_VARIABLES = [
    "SCOPA_HOST",
    "SCOPA_PORT",
    "SCOPA_HTTP_PORT",
    "SCOPA_CORS_ORIGINS",
    "SCOPA_WEB_UI",
    "SCOPA_SSE_KEEPALIVE_S",
    "REDIS_URL",
    "SCOPA_REDIS_TIMEOUT_S",
    "SCOPA_TOKEN_SECRET",
    "SCOPA_OIDC_ISSUER",
    "SCOPA_OIDC_AUDIENCE",
    "SCOPA_OIDC_LEEWAY_S",
    "SCOPA_OIDC_MIN_REFRESH_S",
    "SCOPA_WEB_OIDC_CLIENT_ID",
    "SCOPA_WEB_OIDC_SCOPE",
    "SCOPA_WEB_OIDC_PARAMS",
    "SCOPA_ALLOW_STACKED_DECKS",
    "SCOPA_GAME_TTL_S",
    "SCOPA_WAITING_TTL_S",
    "SCOPA_FINISHED_TTL_S",
    "SCOPA_ARCHIVE_URL",
    "SCOPA_ARCHIVE_TIMEOUT_S",
    "SCOPA_ARCHIVE_RETENTION_DAYS",
    "SCOPA_WATCH_IDLE_S",
    "SCOPA_PRESENCE_TTL_S",
    "SCOPA_SWEEP_INTERVAL_S",
    "SCOPA_BOT_BUDGET_MS",
    "SCOPA_BOT_GRACE_S",
    "SCOPA_BOT_ONLY_GAMES",
    "SCOPA_BOT_SEARCHES",
    "SCOPA_BOT_QUEUE",
    "SCOPA_BOT_PROCESSES",
    "SCOPA_WATCH_PER_CLIENT",
    "SCOPA_SESSION_QUEUE",
    "SCOPA_SESSIONS_MAX",
    "SCOPA_SESSION_ACTION_RATE",
    "SCOPA_SESSION_PING_S",
    "SCOPA_GRACE_S",
    "SCOPA_DRAIN_DELAY_S",
    "SCOPA_MAX_REQUEST_BYTES",
    "SCOPA_RATE_LIMIT_CREATE_GAME",
    "SCOPA_RATE_LIMIT_JOIN_GAME",
    "SCOPA_TRUSTED_PROXY_HEADER",
    "SCOPA_TRUSTED_PROXY_HOPS",
    "SCOPA_MAX_CONNECTION_AGE_S",
    "SCOPA_RUNTIME_STATS_S",
    "SCOPA_LOG_FORMAT",
    "SCOPA_LOG_LEVEL",
    "SCOPA_TRACING",
    "OTEL_SERVICE_NAME",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "SCOPA_WEBHOOK_URL",
    "SCOPA_WEBHOOK_SECRET",
    "SCOPA_WEBHOOK_ALLOW_PER_GAME",
    "SCOPA_WEBHOOK_MAX_ATTEMPTS",
    "SCOPA_WEBHOOK_TIMEOUT_S",
    "SCOPA_WEBHOOK_BACKOFF_S",
]
"""Every variable docs/operations.md's table documents, in order (written out, not derived)."""


def test_table_documents_every_variable() -> None:
    """The Markdown table has a header, a rule and one row per documented variable, in order."""
    table = settings_table().splitlines()
    assert table[0] == "| Variable | Default | Meaning |"
    assert table[1] == "| --- | --- | --- |"
    rows = [re.match(r"\| `([A-Z_]+)` \| [^|]+ \| .+ \|$", line) for line in table[2:]]
    assert all(rows), [line for line, row in zip(table[2:], rows, strict=True) if not row]
    assert [row.group(1) for row in rows if row] == DOCUMENTED_VARIABLES


def test_every_variable_read_is_documented() -> None:
    """Every variable name that Settings.from_env reads appears in the table."""
    read = set(
        re.findall(r'"((?:SCOPA|OTEL|REDIS)_[A-Z_]+)"', inspect.getsource(Settings.from_env))
    )
    documented = {var.name for var in ENV_VARS}
    assert read - documented <= {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    }
    assert len(read) >= 15


def test_the_archive_settings() -> None:
    """The archive is a SQLite file by default, any sqlite or postgresql URL, or off."""
    assert Settings.from_env({}).archive_url == "sqlite:///scopa-data/archive.db"
    pg = "postgresql://u:p@db:5432/scopa"
    assert Settings.from_env({"SCOPA_ARCHIVE_URL": pg}).archive_url == pg
    assert Settings.from_env({"SCOPA_ARCHIVE_URL": "OFF"}).archive_url is None
    assert Settings.from_env({"SCOPA_ARCHIVE_RETENTION_DAYS": "30"}).archive_retention_days == 30
    assert Settings.from_env({}).archive_timeout_s == 5.0
    assert Settings.from_env({"SCOPA_ARCHIVE_TIMEOUT_S": "0.5"}).archive_timeout_s == 0.5
    with pytest.raises(ConfigError, match="SCOPA_ARCHIVE_TIMEOUT_S"):
        Settings.from_env({"SCOPA_ARCHIVE_TIMEOUT_S": "0"})
    with pytest.raises(ConfigError, match="SCOPA_ARCHIVE_URL"):
        Settings.from_env({"SCOPA_ARCHIVE_URL": "mysql://db/scopa"})
    with pytest.raises(ConfigError, match="SCOPA_ARCHIVE_RETENTION_DAYS"):
        Settings.from_env({"SCOPA_ARCHIVE_RETENTION_DAYS": "0"})


def test_the_web_sign_in_settings_are_parsed() -> None:
    """The web client's client id, scopes and extra authorization parameters."""
    env = {"SCOPA_OIDC_ISSUER": "https://id.example", "SCOPA_OIDC_AUDIENCE": "api"}
    plain = Settings.from_env(env)
    assert (plain.web_oidc_client_id, plain.web_oidc_scope, plain.web_oidc_params) == (
        None,
        "openid profile",
        (),
    )
    settings = Settings.from_env(
        {
            **env,
            "SCOPA_WEB_OIDC_CLIENT_ID": "scopa-web",
            "SCOPA_WEB_OIDC_SCOPE": " openid  profile offline_access ",
            "SCOPA_WEB_OIDC_PARAMS": "audience=https%3A%2F%2Fscopa.example%2Fapi&prompt=login",
        }
    )
    assert settings.web_oidc_client_id == "scopa-web"
    assert settings.web_oidc_scope == "openid profile offline_access"
    assert settings.web_oidc_params == (
        ("audience", "https://scopa.example/api"),
        ("prompt", "login"),
    )


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("SCOPA_WEB_OIDC_SCOPE", "profile email", "must include openid"),
        ("SCOPA_WEB_OIDC_PARAMS", "audience", "URL-encoded"),
        ("SCOPA_WEB_OIDC_PARAMS", "redirect_uri=https%3A%2F%2Fevil.example", "redirect_uri"),
        ("SCOPA_WEB_OIDC_PARAMS", "x=1&code_challenge=abc", "code_challenge"),
    ],
)
def test_bad_web_sign_in_settings_are_refused(name: str, value: str, why: str) -> None:
    env = {
        "SCOPA_OIDC_ISSUER": "https://id.example",
        "SCOPA_OIDC_AUDIENCE": "api",
        "SCOPA_WEB_OIDC_CLIENT_ID": "scopa-web",
    }
    with pytest.raises(ConfigError, match=name) as raised:
        Settings.from_env({**env, name: value})
    assert why in str(raised.value)


def test_a_web_client_id_without_an_issuer_is_refused() -> None:
    with pytest.raises(ConfigError, match="SCOPA_WEB_OIDC_CLIENT_ID needs SCOPA_OIDC_ISSUER"):
        Settings.from_env({"SCOPA_WEB_OIDC_CLIENT_ID": "scopa-web"})

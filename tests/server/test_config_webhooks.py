"""The SCOPA_WEBHOOK_* settings (scopa._config_webhooks), read through Settings.from_env."""

from __future__ import annotations

import pytest

from scopa.config import ConfigError, Settings

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_off_by_default() -> None:
    hooks = Settings.from_env({}).webhooks
    assert not hooks.enabled and hooks.max_attempts == 8 and hooks.timeout_s == 5.0


def test_a_url_and_a_secret_turn_them_on() -> None:
    hooks = Settings.from_env(
        {
            "SCOPA_WEBHOOK_URL": "https://app.example/hooks",
            "SCOPA_WEBHOOK_SECRET": SECRET,
            "SCOPA_WEBHOOK_MAX_ATTEMPTS": "4",
            "SCOPA_WEBHOOK_TIMEOUT_S": "2.5",
            "SCOPA_WEBHOOK_BACKOFF_S": "0.5",
        }
    ).webhooks
    assert hooks.enabled and hooks.url == "https://app.example/hooks" and hooks.secret == SECRET
    assert (hooks.max_attempts, hooks.timeout_s, hooks.backoff_s) == (4, 2.5, 0.5)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SCOPA_WEBHOOK_URL": "https://a.example/h"}, "SCOPA_WEBHOOK_SECRET must be set"),
        ({"SCOPA_WEBHOOK_URL": "ftp://a.example/h", "SCOPA_WEBHOOK_SECRET": SECRET}, "https"),
        ({"SCOPA_WEBHOOK_SECRET": "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "whsec_"),
        ({"SCOPA_WEBHOOK_SECRET": "whsec_not base64!"}, "base64"),
        ({"SCOPA_WEBHOOK_SECRET": "whsec_c2hvcnQ="}, "at least 16 bytes"),
        ({"SCOPA_WEBHOOK_MAX_ATTEMPTS": "0"}, "SCOPA_WEBHOOK_MAX_ATTEMPTS"),
        ({"SCOPA_WEBHOOK_TIMEOUT_S": "nan"}, "SCOPA_WEBHOOK_TIMEOUT_S"),
        ({"SCOPA_WEBHOOK_BACKOFF_S": "-1"}, "SCOPA_WEBHOOK_BACKOFF_S"),
        ({"SCOPA_WEBHOOK_ALLOW_PER_GAME": "1"}, "SCOPA_WEBHOOK_SECRET must be set"),
        ({"SCOPA_WEBHOOK_ALLOW_PER_GAME": "maybe"}, "on or off"),
    ],
)
def test_bad_values_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        Settings.from_env(env)
    assert "c2hvcnQ" not in str(info.value)  # a secret is never echoed


def test_per_game_urls_alone_run_a_worker() -> None:
    """Per-game URLs allowed without a deployment URL: no deployment webhook, but a worker."""
    hooks = Settings.from_env(
        {"SCOPA_WEBHOOK_ALLOW_PER_GAME": "on", "SCOPA_WEBHOOK_SECRET": SECRET}
    ).webhooks
    assert hooks.allow_per_game and not hooks.enabled and hooks.worker
    assert not Settings.from_env({"SCOPA_WEBHOOK_SECRET": SECRET}).webhooks.worker

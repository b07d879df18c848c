"""Which URLs a webhook may go to (scopa.webhooks._urls)."""

from __future__ import annotations

import pytest

from scopa.webhooks import MAX_URL_LENGTH, check_url


@pytest.mark.parametrize(
    "url",
    [
        "http://",
        "javascript:alert(1)",
        "https://user:pw@a.example/",
        "https://a.example/a b",
        "https://a.example/\x7f",
        "https://[::1/",
        "https://a.example/" + "x" * MAX_URL_LENGTH,
    ],
)
def test_urls_a_webhook_may_not_go_to(url: str) -> None:
    with pytest.raises(ValueError, match="webhook URL"):
        check_url(url)


def test_urls_it_may_go_to() -> None:
    for url in ("https://a.example/h?x=1", "http://10.0.0.1:8080/"):
        assert check_url(url) == url

"""Tests of scopa.transport._webui: loading the web client's files and answering for them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from scopa.transport._webui import StaticFile, WebSignIn, load_web_ui


def _site(tmp_path: Path) -> Path:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    (tmp_path / "assets" / "app-AB12.js").write_text("console.log(1)")
    (tmp_path / "assets" / "app-CD34.css").write_text("body{}")
    return tmp_path


def _get(web_ui: Any, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> list[Any]:
    """The ASGI messages the web UI sends for a GET of `path` (which it must serve)."""
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    file = web_ui.find(path)
    assert file is not None
    scope = {"type": "http", "method": "GET", "path": path, "headers": headers or []}
    asyncio.run(web_ui.send(scope, send, file))
    return sent


def test_index_is_served_at_the_root_and_assets_under_their_names(tmp_path: Path) -> None:
    """`/` is index.html, every other file keeps its path, and nothing else is served (but the
    page's settings, /web-config.json)."""
    web_ui = load_web_ui(_site(tmp_path))
    assert web_ui.paths() == {
        "/",
        "/assets/app-AB12.js",
        "/assets/app-CD34.css",
        "/web-config.json",
    }
    assert web_ui.find("/index.html") is None
    assert web_ui.find("/assets/../index.html") is None
    assert web_ui.find("/assets/") is None


def test_the_page_is_revalidated_and_the_assets_are_immutable(tmp_path: Path) -> None:
    """index.html is no-cache with a CSP; a hashed asset is cached for a year."""
    web_ui = load_web_ui(_site(tmp_path))
    page = dict(_get(web_ui, "/")[0]["headers"])
    assert page[b"cache-control"] == b"no-cache"
    assert page[b"content-type"] == b"text/html; charset=utf-8"
    assert b"default-src 'none'" in page[b"content-security-policy"]
    script = dict(_get(web_ui, "/assets/app-AB12.js")[0]["headers"])
    assert script[b"cache-control"] == b"public, max-age=31536000, immutable"
    assert script[b"content-type"] == b"text/javascript; charset=utf-8"
    assert b"content-security-policy" not in script


def test_a_matching_if_none_match_is_answered_304_without_a_body(tmp_path: Path) -> None:
    """A revalidation with the current ETag gets 304 and an empty body; another ETag gets 200."""
    web_ui = load_web_ui(_site(tmp_path))
    etag = StaticFile.of("index.html", b"<!doctype html><title>t</title>").etag
    start, body = _get(web_ui, "/", [(b"if-none-match", etag)])
    assert (start["status"], body["body"]) == (304, b"")
    start, body = _get(web_ui, "/", [(b"if-none-match", b'"other"')])
    assert start["status"] == 200 and body["body"].startswith(b"<!doctype html>")


def test_a_directory_without_index_html_is_refused(tmp_path: Path) -> None:
    """Loading a web UI that was never built fails at start-up, naming `make generate`."""
    with pytest.raises(FileNotFoundError, match="make generate"):
        load_web_ui(tmp_path)


def test_the_packaged_bundle_loads_and_its_page_names_its_assets() -> None:
    """The committed bundle has an index.html whose script and stylesheet are served too."""
    web_ui = load_web_ui()
    page = web_ui.find("/")
    assert page is not None
    assets = {p for p in web_ui.paths() if p.startswith("/assets/")}
    assert {p.rsplit(".", 1)[1] for p in assets} == {"js", "css"}
    for asset in assets:
        assert f'"{asset}"'.encode() in page.body


def _csp(web_ui: Any) -> str:
    value: bytes = dict(_get(web_ui, "/")[0]["headers"])[b"content-security-policy"]
    return value.decode()


def test_without_sign_in_the_config_is_empty_and_the_page_calls_only_its_origin(
    tmp_path: Path,
) -> None:
    """No sign-in configured: /web-config.json is {} (the page offers no Sign in), revalidated
    on each load, and the page may connect to its own origin alone."""
    web_ui = load_web_ui(_site(tmp_path))
    start, body = _get(web_ui, "/web-config.json")
    headers = dict(start["headers"])
    assert (headers[b"content-type"], headers[b"cache-control"]) == (
        b"application/json",
        b"no-cache",
    )
    assert json.loads(body["body"]) == {}
    assert "connect-src 'self';" in _csp(web_ui)


def test_with_sign_in_the_config_names_the_issuer_and_the_page_may_call_it(
    tmp_path: Path,
) -> None:
    """The issuer, client id, scopes and extra parameters are served; the CSP adds the issuer's
    origin (not its path) to connect-src and nothing else."""
    sign_in = WebSignIn(
        "https://id.example:8443/tenant/a",
        "scopa-web",
        "openid profile",
        (("audience", "https://scopa.example/api"),),
    )
    web_ui = load_web_ui(_site(tmp_path), sign_in)
    _, body = _get(web_ui, "/web-config.json")
    assert json.loads(body["body"]) == {
        "oidc": {
            "issuer": "https://id.example:8443/tenant/a",
            "clientId": "scopa-web",
            "scope": "openid profile",
            "extraParams": {"audience": "https://scopa.example/api"},
        }
    }
    csp = _csp(web_ui)
    assert "connect-src 'self' https://id.example:8443;" in csp
    assert "frame-ancestors 'none'" in csp and "form-action 'none'" in csp

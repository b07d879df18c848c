"""The web client on a real server's HTTP port: on with SCOPA_WEB_UI, off by default."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from web.helpers import check_error


@pytest.fixture(scope="module")
def ui_client(redis_server: RedisServer) -> Iterator[httpx.Client]:
    """An HTTP client of a server started with SCOPA_WEB_UI=on."""
    server: ServerProcess = start_server(redis_server.url, env={"SCOPA_WEB_UI": "on"})
    try:
        with httpx.Client(base_url=server.http_url, timeout=30) as http:
            yield http
    finally:
        stop_server(server)


def test_the_page_and_its_assets_are_served(ui_client: httpx.Client) -> None:
    """GET / is the app's page; the script and stylesheet it names are served, cacheable."""
    page = ui_client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["x-content-type-options"] == "nosniff"
    assets = re.findall(r'(?:src|href)="(/assets/[^"]+)"', page.text)
    assert len(assets) == 2, page.text
    for asset in assets:
        response = ui_client.get(asset)
        assert response.status_code == 200, asset
        assert "immutable" in response.headers["cache-control"]
        again = ui_client.get(asset, headers={"If-None-Match": response.headers["etag"]})
        assert (again.status_code, again.content) == (304, b"")


def test_the_api_is_still_served_beside_the_page(ui_client: httpx.Client) -> None:
    """REST and the probes answer as without the web UI."""
    assert ui_client.get("/v1/rulesets").status_code == 200
    assert ui_client.get("/healthz").json() == {"status": "SERVING"}


@pytest.mark.parametrize(
    "path",
    ["/index.html", "/assets/", "/assets/../pyproject.toml", "/%2e%2e/pyproject.toml", "/x"],
)
def test_other_paths_are_not_found(ui_client: httpx.Client, path: str) -> None:
    """Only the bundle's own URLs are files: no traversal, no listing, no other name."""
    response = ui_client.send(ui_client.build_request("GET", path))
    check_error(response, 404, "NOT_FOUND")


def test_a_write_to_the_page_is_method_not_allowed(ui_client: httpx.Client) -> None:
    """POST / is 405 METHOD_NOT_ALLOWED; HEAD / is the page's headers without a body."""
    check_error(ui_client.post("/", content=b"x"), 405, "METHOD_NOT_ALLOWED")
    head = ui_client.head("/")
    assert head.status_code == 200 and head.content == b""


def test_the_web_ui_is_off_by_default(client: httpx.Client) -> None:
    """Without SCOPA_WEB_UI the HTTP port serves no page at /."""
    check_error(client.get("/"), 404, "NOT_FOUND")


def test_the_page_learns_its_sign_in_from_web_config(ui_client: httpx.Client) -> None:
    """Without SCOPA_WEB_OIDC_CLIENT_ID the page's config offers no sign-in."""
    response = ui_client.get("/web-config.json")
    assert response.status_code == 200 and response.json() == {}
    assert "connect-src 'self';" in ui_client.get("/").headers["content-security-policy"]


def test_a_server_with_a_web_client_id_serves_its_sign_in(redis_server: RedisServer) -> None:
    """With an issuer and the web client's id, /web-config.json names them (and the scopes) and
    the page may call the issuer's origin."""
    env = {
        "SCOPA_WEB_UI": "on",
        "SCOPA_OIDC_ISSUER": "http://127.0.0.1:9/realms/scopa",
        "SCOPA_OIDC_AUDIENCE": "https://scopa.test/api",
        "SCOPA_WEB_OIDC_CLIENT_ID": "scopa-web",
    }
    server = start_server(redis_server.url, env=env)
    try:
        with httpx.Client(base_url=server.http_url, timeout=30) as http:
            assert http.get("/web-config.json").json() == {
                "oidc": {
                    "issuer": "http://127.0.0.1:9/realms/scopa",
                    "clientId": "scopa-web",
                    "scope": "openid profile",
                    "extraParams": {},
                }
            }
            csp = http.get("/").headers["content-security-policy"]
            assert "connect-src 'self' http://127.0.0.1:9;" in csp
    finally:
        stop_server(server)

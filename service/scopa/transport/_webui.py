"""The reference web client's static files (clients/web, bundled into ``webui/``), served at ``/``.

The files are read once, when the HTTP port is built, from the package's ``webui`` directory
(written by ``make generate``): ``index.html`` and the content-hashed ``assets/*``. A request is
answered only when its path is exactly one of those files' URLs, so no path ever reaches the file
system (no traversal, no directory listing). ``index.html`` is revalidated on every load
(``no-cache``, with an ETag); the hashed assets are ``immutable`` for a year, since a new build
gives them new names.

With sign-in configured (:class:`WebSignIn`), ``/web-config.json`` tells the page the OpenID
Connect issuer, client id and scopes (public values), and the page's Content-Security-Policy lets
it call the issuer's origin (discovery, token endpoint); without it the file is ``{}`` and the
page offers no Sign in.
"""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

from ._http_telemetry import Scope, Send

__all__ = ["StaticFile", "WebSignIn", "WebUi", "load_web_ui"]

_CONTENT_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".json": b"application/json",
}
_PAGE_CACHE = b"no-cache"
_ASSET_CACHE = b"public, max-age=31536000, immutable"
# The app loads only its own files and calls only this origin (and the sign-in issuer's);
# nothing may frame it.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src {connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
CONFIG_PATH = "/web-config.json"
"""Where the page reads its sign-in settings."""


@dataclass(frozen=True)
class WebSignIn:
    """The web client's OpenID Connect sign-in: public values, served to every browser."""

    issuer: str
    client_id: str
    scope: str
    params: tuple[tuple[str, str], ...] = ()

    def config(self) -> dict[str, object]:
        """The ``oidc`` object of /web-config.json."""
        return {
            "issuer": self.issuer,
            "clientId": self.client_id,
            "scope": self.scope,
            "extraParams": dict(self.params),
        }

    def origin(self) -> str:
        """The issuer's origin (scheme, host and port), which the page calls."""
        parts = urllib.parse.urlsplit(self.issuer)
        return f"{parts.scheme}://{parts.netloc}"


@dataclass(frozen=True)
class StaticFile:
    """One file of the web UI: its bytes, content type, cache policy and ETag."""

    body: bytes
    content_type: bytes
    cache_control: bytes
    etag: bytes

    @classmethod
    def of(cls, name: str, body: bytes) -> StaticFile:
        """The file called ``name`` (a path below webui/) with ``body``."""
        suffix = name[name.rfind(".") :]
        digest = hashlib.sha256(body).hexdigest()[:32]
        return cls(
            body=body,
            content_type=_CONTENT_TYPES.get(suffix, b"application/octet-stream"),
            cache_control=_ASSET_CACHE if name.startswith("assets/") else _PAGE_CACHE,
            etag=f'"{digest}"'.encode(),
        )


class WebUi:
    """The web UI's files by URL path; answers GET and HEAD for exactly those paths."""

    def __init__(self, files: dict[str, StaticFile], csp: bytes) -> None:
        self._files = files
        self._csp = csp

    def paths(self) -> frozenset[str]:
        """Every URL path served (``/`` and ``/assets/...``)."""
        return frozenset(self._files)

    def find(self, path: str) -> StaticFile | None:
        """The file served at ``path``, or None."""
        return self._files.get(path)

    async def send(self, scope: Scope, send: Send, file: StaticFile) -> None:
        """Answer a GET or HEAD for ``file`` (304 when If-None-Match names its ETag)."""
        headers = [
            (b"content-type", file.content_type),
            (b"cache-control", file.cache_control),
            (b"etag", file.etag),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
        ]
        if file.content_type.startswith(b"text/html"):
            headers.append((b"content-security-policy", self._csp))
        if _matches(scope, file.etag):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers.append((b"content-length", str(len(file.body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = b"" if scope["method"] == "HEAD" else file.body
        await send({"type": "http.response.body", "body": body})


def _matches(scope: Scope, etag: bytes) -> bool:
    """True when the request's If-None-Match lists ``etag`` (or is ``*``)."""
    for key, value in scope["headers"]:
        if key == b"if-none-match":
            tags = {tag.strip().removeprefix(b"W/") for tag in value.split(b",")}
            return etag in tags or b"*" in tags
    return False


def _walk(directory: Traversable, prefix: str) -> dict[str, bytes]:
    """Every file below ``directory`` by its relative name."""
    found: dict[str, bytes] = {}
    for entry in directory.iterdir():
        name = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.update(_walk(entry, f"{name}/"))
        elif entry.is_file():
            found[name] = entry.read_bytes()
    return found


def load_web_ui(directory: Traversable | None = None, sign_in: WebSignIn | None = None) -> WebUi:
    """The web UI bundled in the package (or in ``directory``); ``/`` serves its index.html,
    ``/web-config.json`` the page's sign-in settings (``{}``: no sign-in)."""
    root = directory or resources.files("scopa.transport").joinpath("webui")
    files = _walk(root, "")
    if "index.html" not in files:
        raise FileNotFoundError(f"the web UI has no index.html in {root}; run `make generate`")
    config = {} if sign_in is None else {"oidc": sign_in.config()}
    files[CONFIG_PATH.lstrip("/")] = json.dumps(config, sort_keys=True).encode()
    connect = "'self'" if sign_in is None else f"'self' {sign_in.origin()}"
    return WebUi(
        {
            ("/" if name == "index.html" else f"/{name}"): StaticFile.of(name, body)
            for name, body in sorted(files.items())
        },
        _CSP.format(connect=connect).encode(),
    )

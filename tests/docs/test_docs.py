"""Tests that the README and docs match what the code does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.server_process import ServerProcess, start_server, stop_server
from support.tools import system_tool

from scopa.config import settings_table
from scopa.rules import PRESETS, list_options
from scopa.transport._websocket import CLOSE_SLOW_READER
from scopa.webhooks import Signer, new_secret

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
API = (ROOT / "docs" / "api.md").read_text()


def test_readme_gives_the_two_commands() -> None:
    """The README gives `make test` and `make run` as the set-up."""
    assert "make test" in README
    assert "make run" in README


def test_operations_configuration_table_is_current() -> None:
    """docs/operations.md's configuration table is exactly the one the settings module describes."""
    assert settings_table().strip() in OPERATIONS


def test_readme_quotes_the_grpcurl_session() -> None:
    """The README quotes docs/grpcurl-session.sh verbatim."""
    assert (ROOT / "docs" / "grpcurl-session.sh").read_text().strip() in README


@pytest.fixture(scope="module")
def embedded_server() -> Iterator[ServerProcess]:
    """A real server process on the embedded store (what `make run` starts), without the
    sessions' action rate: the browser example's seats play as fast as the loop goes."""
    server = start_server("", stacked=False, env={"SCOPA_SESSION_ACTION_RATE": "off"})
    try:
        yield server
    finally:
        stop_server(server)


def _path_without_venv() -> str:
    venv_bin = str(Path(sys.executable).parent)
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)


def _run_http_session(
    script: str, server: ServerProcess, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """Run docs/<script> against the server's HTTP port; it must exit 0."""
    done = subprocess.run(
        ["bash", str(ROOT / "docs" / script)],
        env={**os.environ, "BASE": server.http_url},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_readme_quotes_the_curl_session() -> None:
    """The README quotes docs/curl-session.sh verbatim."""
    assert (ROOT / "docs" / "curl-session.sh").read_text().strip() in README


def test_curl_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """The README's curl session creates a game over REST, plays with If-Match, sees 412."""
    done = _run_http_session("curl-session.sh", embedded_server, tmp_path)
    out = done.stdout
    assert "'scopa', 'scopa3'" in out
    assert "game: games/" in out and 'etag: "v' in out
    assert "'cardPlayed'" in out
    assert '"reason":"STALE_ETAG"' in out and "HTTP 412" in out
    assert "\ndata: {" in out


def test_api_doc_quotes_the_lobby_session() -> None:
    """docs/api.md quotes docs/lobby-session.sh verbatim."""
    assert (ROOT / "docs" / "lobby-session.sh").read_text().strip() in API


def test_lobby_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """docs/api.md's lobby session lists a public game, joins it without a code, sees it leave."""
    done = _run_http_session("lobby-session.sh", embedded_server, tmp_path)
    assert done.stdout.splitlines()[1:] == [
        "[[False, True]]",
        "(1, 'GAME_STATUS_ACTIVE', True)",
        "False",
    ]


def test_grpcurl_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """The README's grpcurl session (grpcurl from .venv/bin, not on PATH) plays and is refused."""
    assert (ROOT / ".venv" / "bin" / "grpcurl").exists(), "make test installs grpcurl"
    env = {**os.environ, "ADDR": embedded_server.target, "PATH": _path_without_venv()}
    done = subprocess.run(
        ["bash", str(ROOT / "docs" / "grpcurl-session.sh")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "'scopa', 'scopa3'" in out
    assert "game: games/" in out
    assert "'card_played'" in out
    assert '"reason":"NOT_YOUR_TURN"' in out


def test_readme_counts_presets_and_options() -> None:
    """The README's counts of presets and options are the engine's."""
    assert f"{len(PRESETS)} named presets and {len(list_options())} options" in README


def test_readme_is_short() -> None:
    """The README stays an overview: details live in docs/."""
    assert len(README.splitlines()) <= 150


def test_the_performance_page_is_short() -> None:
    """docs/performance.md keeps today's figures, their commands and their limits; how they
    were reached goes to CHANGELOG.md."""
    page = (ROOT / "docs" / "performance.md").read_text()
    assert len(page.splitlines()) <= 300


_LINK = re.compile(r"\]\(([^)\s]+)\)")
_DOCS = ["README.md", "CHANGELOG.md", "bench/README.md", "deploy/README.md", "docs/*.md"]


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file."""
    anchors = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower().replace("`", "")
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize(
    "doc",
    sorted({str(p.relative_to(ROOT)) for pattern in _DOCS for p in ROOT.glob(pattern)}),
)
def test_relative_links_resolve(doc: str) -> None:
    """Every relative link of the docs names a file that exists, and a heading it has."""
    source = ROOT / doc
    broken = []
    for target in _LINK.findall(source.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (source.parent / path).resolve() if path else source
        missing_anchor = bool(anchor) and linked.suffix == ".md"
        if not linked.exists() or (missing_anchor and anchor not in _anchors(linked)):
            broken.append(target)
    assert broken == []


_SEED_FILE = re.compile(r"seeds?\s*0", re.IGNORECASE)
"""How a mention of the project's private rule-text files ("seed 004", "seeds 002, 004") looks."""


def _served_texts() -> dict[str, str]:
    """Every text a client or reader gets: ListRulesets' presets and options, the web bundle,
    openapi.json, the README and docs/."""
    texts = {f"preset {p.id}": f"{p.name}\n{p.description}\n{p.source}" for p in PRESETS.values()}
    texts.update({f"option {o.name}": f"{o.description}\n{o.source}" for o in list_options()})
    served = ROOT / "service" / "scopa" / "transport"
    files = [served / "openapi.json", ROOT / "README.md", *sorted((ROOT / "docs").rglob("*"))]
    files += sorted((served / "webui").rglob("*"))
    for path in files:
        if path.is_file():
            texts[str(path.relative_to(ROOT))] = path.read_text(errors="replace")
    return texts


def test_no_served_text_or_doc_names_a_seed_file() -> None:
    """Nobody outside the project can open "seed 004": what is served or documented cites the
    public document instead (it.wikipedia, "Scopa (gioco)"; Lo Spazzino, Cuperativa ...)."""
    texts = _served_texts()
    assert any("preset" in name for name in texts) and "docs/rules.md" in texts
    found = {
        name: sorted({m.group(0) for m in _SEED_FILE.finditer(text)})
        for name, text in texts.items()
        if _SEED_FILE.search(text)
    }
    assert found == {}


def test_no_source_names_a_private_rules_file() -> None:
    """The code's comments and docstrings cite the same public documents as the docs: a reader
    of the repository cannot open "seed 004" or the project's private rulings file either."""
    private = re.compile(r"seeds?\s*0\d\d|RULINGS\.md", re.IGNORECASE)
    checkers = {Path(__file__).resolve(), (ROOT / "tests" / "rules" / "test_sources.py").resolve()}
    sources = [*(ROOT / "service").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    assert len(sources) > 100
    found = {
        str(path.relative_to(ROOT)): sorted(set(private.findall(path.read_text())))
        for path in sources
        if path.resolve() not in checkers and private.search(path.read_text())
    }
    assert found == {}


def _browser_example() -> str:
    """The JavaScript block of docs/api.md's "Realtime sessions" section."""
    section = API.split("## Realtime sessions", 1)[1]
    match = re.search(r"```js\n(.*?)```", section, re.S)
    assert match, "docs/api.md's realtime sessions give a browser example"
    return match.group(1)


def test_the_browser_session_example_plays_a_whole_game(
    embedded_server: ServerProcess, tmp_path: Path
) -> None:
    """docs/api.md's browser example, run by Node's WebSocket once per seat, plays a game to
    its end: each seat acts on its turn, and each session sees the game finish."""
    assert len(_browser_example().strip().splitlines()) <= 15
    node = system_tool("node")
    body = {
        "preset": "scopa",
        "seats": [{"displayName": "Ann"}, {"displayName": "Bob"}],
        "options": {"target_score": {"intValue": 1}},
    }
    created = httpx.post(f"{embedded_server.http_url}/v1/games", json=body).json()
    script = tmp_path / "seat.mjs"
    script.write_text(
        "const [GAME, TOKEN, HOST] = process.argv.slice(2);\n"
        "const location = { host: HOST };\n"
        + _browser_example()
        + "\nconst quit = setInterval(() => {}, 1000);\n"
        "ws.addEventListener('message', (m) => { if (m.data.includes('GAME_STATUS_FINISHED'))"
        " { console.log('finished'); clearInterval(quit); ws.close(); } });\n"
    )
    host = f"127.0.0.1:{embedded_server.http_port}"
    seats = [
        subprocess.Popen(
            [node, "--experimental-websocket", str(script), created["name"], c["token"], host],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for c in created["credentials"]
    ]
    try:
        outputs = [seat.communicate(timeout=60)[0] for seat in seats]
    finally:
        for seat in seats:
            seat.kill()
    for output in outputs:
        assert "finished" in output, output
        assert "cardPlayed" in output  # the events it logged
    view = httpx.get(f"{embedded_server.http_url}/v1/{created['name']}").json()["view"]
    assert view["status"] == "GAME_STATUS_FINISHED"


def test_api_doc_lists_every_session_close_code() -> None:
    """The close codes of docs/api.md are those the server uses."""
    section = API.split("## Realtime sessions", 1)[1]
    assert f"| {CLOSE_SLOW_READER} |" in section and "| 1009 |" in section


def test_the_webhook_verify_example_accepts_a_signed_request_once() -> None:
    """docs/api.md's webhook example, at most 10 lines, accepts what the server signs (handing it
    on with its id) and answers 400 to a changed body."""
    section = API.split("## Webhooks", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/api.md's webhooks give a verify example"
    assert len(match.group(1).strip().splitlines()) <= 10
    secret = new_secret()
    handled: list[tuple[str, object]] = []
    example: dict[str, Any] = {"handle_once": lambda *args: handled.append(args)}
    exec(match.group(1).replace("whsec_...", secret), example)
    body = b'{"type":"game.finished","timestamp":"2026-12-06T09:01:44.325Z","data":{}}'
    headers = Signer(secret).headers("msg_1", int(time.time()), body.decode())
    assert example["receive"](body.replace(b"finished", b"your_turn"), headers) == 400
    assert handled == []
    assert example["receive"](body, headers) == 204
    assert handled == [("msg_1", json.loads(body))]

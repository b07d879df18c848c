"""GetState of an unchanged game sends the bytes kept with its view (GameCalls.get_state,
Encoded.forms): over REST, on a real Redis, the second read builds no view and writes no JSON;
each seat and a spectator get their own view from a warm cache; a move is seen at once."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from scopa.app import CoreSettings, GameCore, TokenAuthority
from scopa.storage import open_store
from scopa.transport import GameCalls, _calls, _convert, _rest, _rest_json, build_http_app
from scopa.transport._calls import serialize_response
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")  # the fixtures' loop: the store's


class _Probes:
    def live(self) -> bool:
        return True

    def ready(self) -> bool:
        return True


class _Counted:
    """A function that counts its calls."""

    def __init__(self, wrapped: Callable[..., Any]) -> None:
        self.wrapped = wrapped
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.wrapped(*args, **kwargs)


@pytest.fixture
async def calls(redis_url: str) -> AsyncIterator[GameCalls]:
    """GameCalls as the HTTP port makes them (options_tail) on the session's redis-server."""
    store = open_store(redis_url)
    core = GameCore(store, TokenAuthority(b"k" * 32), CoreSettings(), rng=random.Random(3))
    try:
        yield GameCalls(core, options_tail=True)
    finally:
        await core.close()
        await store.close()


@pytest.fixture
async def http(calls: GameCalls) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the HTTP port's application, in process."""
    app = build_http_app(calls, _Probes())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://scopa") as client:
        yield client


async def _game(http: httpx.AsyncClient) -> tuple[str, dict[int, str]]:
    """A new 2-seat game over REST: its name and its seats' tokens."""
    body = {"preset": "scopa", "seats": [{"displayName": "Ann"}, {"displayName": "Bob"}]}
    created = (await http.post("/v1/games", json=body)).json()
    return created["name"], {c["seat"]: c["token"] for c in created["credentials"]}


def _auth(token: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"} if token else {}


async def _get(http: httpx.AsyncClient, name: str, token: str | None) -> httpx.Response:
    reply = await http.get(f"/v1/{name}", headers=_auth(token))
    assert reply.status_code == 200, reply.text
    return reply


async def _play(http: httpx.AsyncClient, name: str, token: str, view: dict[str, Any]) -> None:
    move = view["legalMoves"][0]
    body = {"card": move["card"], "capture": {"cards": move.get("capture", [])}}
    reply = await http.post(f"/v1/{name}:playCard", json=body, headers=_auth(token))
    assert reply.status_code == 200, reply.text


async def test_a_second_read_of_an_unchanged_game_sends_the_kept_bytes(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second GetState of an unchanged game builds no view message and writes no JSON:
    the same bytes go out, with the same ETag, and If-None-Match still answers 304. After a
    move the next read is of the new version."""
    name, tokens = await _game(http)
    views = _Counted(_convert.with_view)  # as _calls and _rest call them
    texts = _Counted(_rest_json.dumps)
    monkeypatch.setattr(_calls, "with_view", views)
    monkeypatch.setattr(_rest, "dumps", texts)
    first = await _get(http, name, tokens[0])
    second = await _get(http, name, tokens[0])
    assert (views.calls, texts.calls) == (1, 1)
    assert second.content == first.content
    assert second.headers["etag"] == first.headers["etag"] == f'"{first.json()["view"]["etag"]}"'
    unchanged = await http.get(
        f"/v1/{name}", headers={**_auth(tokens[0]), "if-none-match": first.headers["etag"]}
    )
    assert unchanged.status_code == 304 and unchanged.content == b""

    view = first.json()["view"]
    await _play(
        http,
        name,
        tokens[view["turn"]],
        (await _get(http, name, tokens[view["turn"]])).json()["view"],
    )
    after = await _get(http, name, tokens[0])
    assert int(after.json()["view"]["version"]) == int(view["version"]) + 1
    assert after.headers["etag"] != first.headers["etag"]
    changed = await http.get(
        f"/v1/{name}", headers={**_auth(tokens[0]), "if-none-match": first.headers["etag"]}
    )
    assert changed.status_code == 200 and changed.content == after.content


async def test_the_protobuf_bytes_are_kept_too(calls: GameCalls) -> None:
    """gRPC's and Connect's serializer sends the bytes kept with an unchanged view: the very
    same object, equal to the complete response's wire form; a response that is not kept (a
    PlayCard's) is serialized anew each time."""
    seats = [pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")]
    created = await calls.create_game(pb.CreateGameRequest(preset="scopa", seats=seats), None)
    token = created.credentials[0].token
    request = pb.GetStateRequest(name=created.name)
    first = serialize_response(GameCalls.encoded(await calls.get_state(request, token)))
    again = serialize_response(GameCalls.encoded(await calls.get_state(request, token)))
    assert again is first
    assert pb.GetStateResponse.FromString(first).view.options["target_score"].int_value > 0
    assert GameCalls.encoded(pb.GetStateResponse()) == pb.GetStateResponse()  # none left over


async def test_each_seat_and_a_spectator_get_their_own_view_from_a_warm_cache(
    http: httpx.AsyncClient,
) -> None:
    """Interleaved reads by both seats and a spectator, each made twice so each is served
    from what was kept: every reader gets its own hand (a spectator none), never another's."""
    name, tokens = await _game(http)
    readers: list[str | None] = [tokens[0], tokens[1], None]
    bodies: dict[str | None, list[bytes]] = {reader: [] for reader in readers}
    for _ in range(3):
        for reader in readers:
            bodies[reader].append((await _get(http, name, reader)).content)
    for reader in readers:
        assert len(set(bodies[reader])) == 1, "an unchanged game reads the same each time"
    views = {reader: json.loads(bodies[reader][0])["view"] for reader in readers}
    hands = {reader: views[reader].get("hand", []) for reader in readers}
    assert views[tokens[0]]["seat"] == 0 and views[tokens[1]]["seat"] == 1
    assert "seat" not in views[None] and hands[None] == []
    keys = [{json.dumps(c, sort_keys=True) for c in hands[t]} for t in (tokens[0], tokens[1])]
    assert keys[0] and keys[1] and not keys[0] & keys[1], "no seat sees the other's hand"
    for reader in readers:
        others = [c for r in readers if r != reader for c in hands[r]]
        text = bodies[reader][0].decode()
        assert all(json.dumps(c, separators=(",", ":")) not in text for c in others)

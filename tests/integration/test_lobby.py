"""The lobby on real replicas and a real redis-server: a public game is listed, joined without an
invite code and leaves the list, over gRPC (the generated client) and REST."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
from support.server_process import ServerProcess

from integration.helpers import Stub, expect_error, rid
from scopa_client.v1 import scopa_pb2 as pb


def _public(stub: Stub, preset: str = "scopa", open_seats: int = 1) -> pb.CreateGameResponse:
    seats = [pb.SeatSpec(display_name="host")]
    seats += [pb.SeatSpec(open=True) for _ in range(open_seats)]
    request = pb.CreateGameRequest(preset=preset, seats=seats, public=True, request_id=rid())
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=30)
    return response


def _listed(stub: Stub, preset: str = "") -> list[str]:
    names: list[str] = []
    token = ""
    while True:
        page = stub.ListGames(
            pb.ListGamesRequest(preset=preset, page_size=50, page_token=token), timeout=30
        )
        names += [g.name for g in page.games]
        token = page.next_page_token
        if not token:
            return names


def test_a_public_game_is_listed_joined_and_leaves_the_list(stubs: tuple[Stub, Stub]) -> None:
    """Created on one replica, listed and joined (no invite) on the other, then gone."""
    created = _public(stubs[0], "scopa4", open_seats=3)
    assert created.view.public
    assert created.name in _listed(stubs[1], "scopa4")
    assert created.name not in _listed(stubs[1], "scopa")
    page = stubs[1].ListGames(pb.ListGamesRequest(preset="scopa4", page_size=100), timeout=30)
    (listed,) = [g for g in page.games if g.name == created.name]
    assert listed.status == pb.GAME_STATUS_WAITING_FOR_PLAYERS
    assert [s.open for s in listed.seats] == [False, True, True, True]
    assert not listed.hand and not listed.HasField("seat")
    seats = []
    for i, stub in enumerate([stubs[1], stubs[0], stubs[1]]):
        joined = stub.JoinGame(
            pb.JoinGameRequest(name=created.name, display_name=f"p{i}", request_id=rid()),
            timeout=30,
        )
        seats.append(joined.seat)
        assert joined.token
    assert seats == [1, 2, 3]
    assert joined.view.status == pb.GAME_STATUS_ACTIVE
    assert created.name not in _listed(stubs[0]) + _listed(stubs[1])


def test_a_game_that_is_not_public_needs_its_invite(stub: Stub) -> None:
    """JoinGame without an invite code on a private game is INVALID_ARGUMENT."""
    seats = [pb.SeatSpec(display_name="host"), pb.SeatSpec(open=True)]
    created = stub.CreateGame(pb.CreateGameRequest(preset="scopa", seats=seats), timeout=30)
    assert created.name not in _listed(stub)
    expect_error(
        lambda: stub.JoinGame(pb.JoinGameRequest(name=created.name), timeout=30),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="invite_code",
    )


def test_a_page_token_of_another_filter_is_refused(stub: Stub) -> None:
    """AIP-158: a token is valid only with the request it came from."""
    for _ in range(2):
        _public(stub)
    page = stub.ListGames(pb.ListGamesRequest(preset="scopa", page_size=1), timeout=30)
    assert page.next_page_token
    request = pb.ListGamesRequest(preset="scopone", page_token=page.next_page_token)
    expect_error(
        lambda: stub.ListGames(request, timeout=30),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="page_token",
    )


def test_the_lobby_over_rest(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    """POST /v1/games with public, GET /v1/games, POST :join without a code, over REST."""
    body: dict[str, Any] = {
        "preset": "scopa",
        "public": True,
        "turnTimeoutS": 60,
        "seats": [{"displayName": "host"}, {"open": True}],
    }
    with httpx.Client(base_url=replicas[1].http_url, timeout=30) as http:
        created = http.post("/v1/games", json=body)
        assert created.status_code == 200, created.text
        name = created.json()["name"]
        listed = http.get("/v1/games", params={"preset": "scopa", "pageSize": 100})
        assert listed.status_code == 200, listed.text
        (game,) = [g for g in listed.json()["games"] if g["name"] == name]
        assert game["public"] and game["turnTimeoutS"] == 60 and "createTime" in game
        assert [s.get("open", False) for s in game["seats"]] == [False, True]
        joined = http.post(f"/v1/{name}:join", json={"displayName": "guest"})
        assert joined.status_code == 200, joined.text
        assert joined.json()["seat"] == 1
        assert joined.json()["view"]["turnDeadline"].endswith("Z")
        after = http.get("/v1/games", params={"preset": "scopa", "pageSize": 100})
        assert name not in [g["name"] for g in after.json().get("games", [])]
        bad = http.get("/v1/games", params={"pageSize": -1})
        assert bad.status_code == 400
        assert bad.json()["error"]["details"][0]["metadata"]["field"] == "page_size"

"""Helpers of the HTTP-port suite: REST calls, error-shape checks and playing games over REST."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from typing import Any

import httpx

from scopa_client import ERROR_DOMAIN

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a seat token."""
    return {"Authorization": f"Bearer {token}"}


def check_error(response: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    """Assert Google's JSON error shape with this HTTP status and reason; return the error."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert set(error) == {"code", "message", "status", "details"}
    assert error["code"] == status and isinstance(error["message"], str)
    info, *more = error["details"]
    assert info["@type"] == ERROR_INFO_TYPE
    assert all(d["@type"] == RETRY_INFO_TYPE for d in more), more
    assert (info["reason"], info["domain"]) == (reason, ERROR_DOMAIN)
    result: dict[str, Any] = error
    return result


def create(
    client: httpx.Client, preset: str, players: int, *, target: int | None = None
) -> dict[str, Any]:
    """Create a game with every seat held by the creator; return the CreateGame JSON."""
    body: dict[str, Any] = {
        "preset": preset,
        "seats": [{"displayName": f"p{i}"} for i in range(players)],
        "requestId": uuid.uuid4().hex,
    }
    if target is not None:
        body["options"] = {"target_score": {"intValue": target}}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    """Seat -> token of a CreateGame JSON."""
    return {c["seat"]: c["token"] for c in created["credentials"]}


def play_to_end(
    client: httpx.Client, created: dict[str, Any], rng: random.Random, max_plays: int = 2000
) -> list[dict[str, Any]]:
    """Play random legal moves (the turn's seat, its own view) until the game ends."""
    name, tokens = created["name"], tokens_of(created)
    view = created["view"]
    responses: list[dict[str, Any]] = []
    for _ in range(max_plays):
        if view["status"] == "GAME_STATUS_FINISHED":
            return responses
        seat = view["turn"]
        mine = client.get(f"/v1/{name}", headers=bearer(tokens[seat]))
        assert mine.status_code == 200, mine.text
        own = mine.json()["view"]
        assert own["seat"] == seat and own["legalMoves"]
        move = rng.choice(own["legalMoves"])
        body = {
            "card": move["card"],
            "capture": {"cards": move["capture"]},
            "requestId": uuid.uuid4().hex,
        }
        played = client.post(
            f"/v1/{name}:playCard",
            json=body,
            headers={**bearer(tokens[seat]), "If-Match": mine.headers["etag"]},
        )
        assert played.status_code == 200, played.text
        responses.append(played.json())
        view = responses[-1]["view"]
    raise AssertionError(f"{name} did not finish in {max_plays} plays")


def read_events(lines: Iterator[str], count: int) -> tuple[list[dict[str, Any]], int]:
    """Read ``count`` SSE events (id and JSON data) from a line iterator; also count comments."""
    events: list[dict[str, Any]] = []
    comments = 0
    current: dict[str, Any] = {}
    for line in lines:
        if line.startswith(":"):
            comments += 1
        elif line.startswith("id: "):
            current["id"] = line[4:]
        elif line.startswith("event: "):
            current["event"] = line[7:]
        elif line.startswith("data: "):
            current["data"] = json.loads(line[6:])
        elif line == "" and current:
            events.append(current)
            current = {}
            if len(events) == count:
                break
    return events, comments


def play_one(client: httpx.Client, name: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Play the first legal move of the seat whose turn it is; return the PlayCard JSON."""
    spectator = client.get(f"/v1/{name}").json()["view"]
    token = tokens[spectator["turn"]]
    own = client.get(f"/v1/{name}", headers=bearer(token)).json()["view"]
    move = own["legalMoves"][0]
    body = {"card": move["card"], "capture": {"cards": move["capture"]}}
    played = client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token))
    assert played.status_code == 200, played.text
    result: dict[str, Any] = played.json()
    return result

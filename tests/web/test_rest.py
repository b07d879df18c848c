"""REST/JSON on the HTTP port of a real server on Redis: games, errors, etags, idempotency."""

from __future__ import annotations

import json
import random
import uuid

import httpx
import pytest

from web.helpers import bearer, check_error, create, play_to_end, tokens_of

_CARD = {"suit": "SUIT_SPADE", "rank": 3}


def _presets(client: httpx.Client) -> list[tuple[str, int]]:
    reply = client.get("/v1/rulesets")
    assert reply.status_code == 200, reply.text
    return [(r["id"], r["options"]["players"]["intValue"]) for r in reply.json()["rulesets"]]


def test_every_preset_plays_to_the_end_over_rest(client: httpx.Client) -> None:
    """Every preset, played with random legal moves over REST (If-Match on each play), ends."""
    rng = random.Random(6)
    presets = _presets(client)
    assert {players for _, players in presets} >= {2, 3, 4, 6}
    for preset, players in presets:
        created = create(client, preset, players, target=1)
        responses = play_to_end(client, created, rng)
        final = responses[-1]["view"]
        assert final["status"] == "GAME_STATUS_FINISHED", preset
        assert final["winners"] and final["finishReason"] != "FINISH_REASON_UNSPECIFIED"
        versions = [e["version"] for r in responses for e in r["events"]]
        assert all(isinstance(v, int) for v in versions)  # int32: JSON numbers, not strings
        assert versions == sorted(versions) and final["version"] == versions[-1]


def test_get_state_carries_an_etag_and_honours_if_none_match(client: httpx.Client) -> None:
    """GET returns the view's etag as ETag; If-None-Match with it answers 304 Not Modified."""
    created = create(client, "scopa", 2)
    name, token = created["name"], tokens_of(created)[0]
    first = client.get(f"/v1/{name}", headers=bearer(token))
    assert first.headers["etag"] == f'"{first.json()["view"]["etag"]}"'
    again = client.get(
        f"/v1/{name}", headers={**bearer(token), "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""


def test_stale_if_match_is_412_and_changes_nothing(client: httpx.Client) -> None:
    """A play with a stale If-Match is 412 STALE_ETAG and the game stays at its version."""
    created = create(client, "scopa", 2)
    name, token = created["name"], tokens_of(created)[0]
    own = client.get(f"/v1/{name}", headers=bearer(token)).json()["view"]
    body = {
        "card": own["legalMoves"][0]["card"],
        "capture": {"cards": own["legalMoves"][0]["capture"]},
    }
    stale = client.post(
        f"/v1/{name}:playCard", json=body, headers={**bearer(token), "If-Match": '"v0"'}
    )
    check_error(stale, 412, "STALE_ETAG")
    after = client.get(f"/v1/{name}", headers=bearer(token)).json()["view"]
    assert after["version"] == own["version"]
    stale_get = client.get(f"/v1/{name}", headers={"If-Match": '"not-it"'})
    check_error(stale_get, 412, "STALE_ETAG")
    # One wording whichever call refused it: the etag sent, then the current one.
    current = own["etag"]
    assert (
        stale.json()["error"]["message"]
        == f"etag v0 is stale: the game's current etag is {current}"
    )
    assert stale_get.json()["error"]["message"] == (
        f"etag not-it is stale: the game's current etag is {current}"
    )


def test_a_retried_play_with_its_request_id_returns_the_first_response(
    client: httpx.Client,
) -> None:
    """The same PlayCard sent twice with one requestId plays once and answers the same."""
    created = create(client, "scopa", 2)
    name, token = created["name"], tokens_of(created)[0]
    own = client.get(f"/v1/{name}", headers=bearer(token)).json()["view"]
    move = own["legalMoves"][0]
    body = {
        "card": move["card"],
        "capture": {"cards": move["capture"]},
        "requestId": uuid.uuid4().hex,
    }
    first = client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token))
    second = client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token))
    assert first.status_code == second.status_code == 200, second.text
    assert first.json()["view"]["version"] == second.json()["view"]["version"] == own["version"] + 1


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "reason"),
    [
        ("GET", "/v1/games/nope", {}, 404, "GAME_NOT_FOUND"),
        ("GET", "/v1/nothing-here", {}, 404, "NOT_FOUND"),
        ("GET", "/nothing", {}, 404, "NOT_FOUND"),
        ("DELETE", "/v1/rulesets", {}, 405, "METHOD_NOT_ALLOWED"),
        ("GET", "/v1/rulesets?unknown=1", {}, 400, "INVALID_ARGUMENT"),
        ("GET", "/v1/games/x?access_token=abc", {}, 400, "INVALID_ARGUMENT"),
        ("POST", "/v1/games", {"json": {"preset": "scopa", "bogus": 1}}, 400, "INVALID_ARGUMENT"),
        ("POST", "/v1/games", {"content": b"{not json"}, 400, "INVALID_ARGUMENT"),
        ("POST", "/v1/games", {"content": b"null"}, 400, "INVALID_ARGUMENT"),  # not an object
        ("POST", "/v1/games", {"content": b"7"}, 400, "INVALID_ARGUMENT"),
        ("POST", "/v1/games", {"content": b"[]"}, 400, "INVALID_ARGUMENT"),
        (
            "POST",
            "/v1/games",
            {"json": {"preset": "nope", "seats": [{}, {}]}},
            400,
            "INVALID_OPTION",
        ),
        ("POST", "/v1/games", {"content": b"[" * 300_000}, 413, "REQUEST_TOO_LARGE"),
        ("POST", "/v1/games/x:playCard", {"json": {"card": _CARD}}, 401, "UNAUTHENTICATED"),
        ("GET", "/v1/games/x", {"headers": {"Authorization": "Basic abc"}}, 401, "UNAUTHENTICATED"),
        ("GET", "/v1/games/x:watch?fromVersion=abc", {}, 400, "INVALID_ARGUMENT"),
    ],
)
def test_bad_requests_get_googles_error_shape(
    client: httpx.Client,
    method: str,
    path: str,
    kwargs: dict[str, object],
    status: int,
    reason: str,
) -> None:
    """Each bad request gets its HTTP status and reason in Google's JSON error shape."""
    check_error(client.request(method, path, **kwargs), status, reason)  # type: ignore[arg-type]


def test_method_not_allowed_names_the_allowed_methods(client: httpx.Client) -> None:
    """A 405 carries an Allow header listing the route's methods."""
    response = client.put("/v1/games/x:playCard")
    check_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "POST"


def test_a_malformed_card_names_the_field(client: httpx.Client) -> None:
    """A rank outside 1..13 or a copy other than 0/1 is 400 INVALID_ARGUMENT naming the field."""
    created = create(client, "scopa", 2)
    name, token = created["name"], tokens_of(created)[0]
    body = {"card": {"suit": "SUIT_SPADE", "rank": 14}}
    error = check_error(
        client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token)),
        400,
        "INVALID_ARGUMENT",
    )
    assert error["details"][0]["metadata"] == {"field": "card.rank"}
    body = {"card": {"suit": "SUIT_SPADE", "rank": 7, "copy": 2}}
    error = check_error(
        client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token)),
        400,
        "INVALID_ARGUMENT",
    )
    assert error["details"][0]["metadata"] == {"field": "card.copy"}


@pytest.mark.parametrize("level", ["random", "greedy", "ismcts"])
def test_a_person_plays_a_bot_seat_to_the_end_over_rest(client: httpx.Client, level: str) -> None:
    """A game with a bot seat created over REST: the person's plays alone finish it."""
    body = {
        "preset": "scopa",
        "seats": [{"displayName": "me"}, {"displayName": "bot", "bot": level}],
        "options": {"target_score": {"intValue": 1}},
    }
    created = client.post("/v1/games", json=body)
    assert created.status_code == 200, created.text
    name, tokens = created.json()["name"], tokens_of(created.json())
    assert list(tokens) == [0], "a bot seat gets no token"
    view = client.get(f"/v1/{name}", headers=bearer(tokens[0])).json()["view"]
    assert [seat.get("bot", "") for seat in view["seats"]] == ["", level]
    plays = 0
    while view["status"] != "GAME_STATUS_FINISHED":
        assert plays < 100, "the game does not end"
        assert view["turn"] == 0, f"a bot turn was left pending: {view}"
        move = view["legalMoves"][0]
        play = {"card": move["card"], "capture": {"cards": move.get("capture", [])}}
        reply = client.post(f"/v1/{name}:playCard", json=play, headers=bearer(tokens[0]))
        assert reply.status_code == 200, reply.text
        view = client.get(f"/v1/{name}", headers=bearer(tokens[0])).json()["view"]
        plays += 1
    assert view["winners"]
    assert view["version"] > 2 * plays, "the bot's plays are versions too"


def test_views_carry_the_whole_options_map_and_deck_size(client: httpx.Client) -> None:
    """GetState and PlayCard views over REST hold the game's options and deck size, as
    CreateGame's view does (the server writes them from a tail, not from the message)."""
    created = create(client, "scopa", 2, target=1)
    name, tokens = created["name"], tokens_of(created)
    options = created["view"]["options"]
    assert options["target_score"] == {"intValue": 1} and created["view"]["deckSize"] == 40
    token = tokens[created["view"]["turn"]]
    own = client.get(f"/v1/{name}", headers=bearer(token)).json()["view"]
    move = own["legalMoves"][0]
    body = {"card": move["card"], "capture": {"cards": move["capture"]}}
    played = client.post(f"/v1/{name}:playCard", json=body, headers=bearer(token))
    assert played.status_code == 200, played.text
    for view in (own, played.json()["view"]):
        assert view["options"] == options and view["deckSize"] == 40


@pytest.mark.parametrize("opener", [b'{"card":', b"["])
def test_a_body_nested_too_deeply_is_refused_in_plain_words(
    client: httpx.Client, opener: bytes
) -> None:
    """A body nested past the JSON decoder's depth is 400 INVALID_ARGUMENT on the body saying
    it is nested too deeply, without the interpreter's words; over Connect JSON it is 400
    invalid_argument saying the same; the game is unchanged."""
    created = create(client, "scopa", 2)
    name, token = created["name"], tokens_of(created)[0]
    before = client.get(f"/v1/{name}", headers=bearer(token)).json()
    deep = opener * 3000 + b"1" + (b"}" if opener.startswith(b"{") else b"]") * 3000
    error = check_error(
        client.post(
            f"/v1/{name}:playCard",
            content=deep,
            headers={**bearer(token), "content-type": "application/json"},
        ),
        400,
        "INVALID_ARGUMENT",
    )
    assert "nested too deeply" in error["message"], error
    assert "recursion" not in error["message"] and error["details"][0]["metadata"] == {
        "field": "body"
    }
    connect = client.post(
        "/scopa.v1.GameService/PlayCard",
        content=b'{"name":' + json.dumps(name).encode() + b',"card":' + deep + b"}",
        headers={**bearer(token), "content-type": "application/json"},
    )
    assert connect.status_code == 400, connect.text
    assert connect.json()["code"] == "invalid_argument"
    assert "nested too deeply" in connect.json()["message"], connect.text
    assert "recursion" not in connect.text
    assert client.get(f"/v1/{name}", headers=bearer(token)).json() == before


def test_a_full_name_in_the_path_is_refused_saying_to_drop_games(client: httpx.Client) -> None:
    """`{game}` is the id: a name there (its `/` escaped, as generators send it) is a 400 whose
    message says which id to send instead."""
    created = create(client, "scopa", 2)
    game_id = created["name"].removeprefix("games/")
    refused = client.get(f"/v1/games/games%2F{game_id}")
    check_error(refused, 400, "INVALID_ARGUMENT")
    assert f"the id of games/{game_id} is {game_id}" in refused.json()["error"]["message"]

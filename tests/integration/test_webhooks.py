"""Webhooks end to end: real replicas on a real redis-server POST signed notifications to a
real receiver process (tests/support/webhook_receiver.py), which checks every signature with
the Standard Webhooks library; retries reach a receiver that was failing, a receiver that never
answers gets its notifications dead-lettered."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from support.redis_cluster import RedisCluster
from support.redis_server import RedisServer, running_redis_server
from support.server_process import ServerProcess, running_replicas, start_server, stop_server
from support.webhooks import Receiver, bodies, running_receiver, webhook_env

from integration.helpers import (
    Stub,
    auth,
    create,
    expect_error,
    play_to_end,
    stub_pair,
    tokens_of,
)
from scopa_client.v1 import scopa_pb2 as pb

PAYLOAD_KEYS = {"type", "timestamp", "data"}
DATA_KEYS = {
    "game_id",
    "version",
    "turn",
    "seat",
    "forfeited",
    "reason",
    "winners",
    "scores",
    "rematch_game_id",
}


@pytest.fixture(scope="module")
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this module: no other suite's replicas deliver its outbox."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def hooked_replicas(
    own_redis: RedisServer, receiver: Receiver
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two replicas sending webhooks to the module's receiver."""
    with running_replicas(own_redis.url, env=webhook_env(receiver)) as pair:
        yield pair


@pytest.fixture(scope="module")
def hooked(hooked_replicas: tuple[ServerProcess, ServerProcess]) -> Iterator[tuple[Stub, Stub]]:
    """A stub on each of the two replicas."""
    with stub_pair([r.target for r in hooked_replicas]) as stubs:
        yield stubs


def _of(deliveries: list[dict[str, Any]], game: str) -> list[dict[str, Any]]:
    """The deliveries of ``game``'s notices (a predicate of ``Receiver.wait_for`` must look at
    the deliveries it is given: they are what it returns, a later read may hold more)."""
    return [d for d in deliveries if json.loads(d["body"])["data"]["game_id"] == game]


def _types(deliveries: list[dict[str, Any]]) -> list[str]:
    return [body["type"] for body in bodies(deliveries)]


def _game_id(name: str) -> str:
    return name.removeprefix("games/")


def test_each_event_is_delivered_signed(hooked: tuple[Stub, Stub], receiver: Receiver) -> None:
    """A join, whose turn it is, and the finish: each POSTed once, its signature verified by the
    receiver, with a webhook-id of its own."""
    stub = hooked[0]
    created = create(stub, open_seats=[1])
    game = _game_id(created.name)
    joined = stub.JoinGame(
        pb.JoinGameRequest(
            name=created.name, invite_code=created.invites[0].invite_code, display_name="J"
        ),
        timeout=10,
    )
    tokens = {**tokens_of(created), 1: joined.token}
    assert joined.view.turn in (0, 1)
    found = receiver.wait_for(
        lambda ds: {"game.seat_joined", "game.your_turn"} <= set(_types(_of(ds, game))),
        "the join's notices",
    )
    mine = [d for d in found if json.loads(d["body"])["data"]["game_id"] == game]
    joined_body = next(b for b in bodies(mine) if b["type"] == "game.seat_joined")
    assert joined_body["data"]["seat"] == 1
    turn_body = next(b for b in bodies(mine) if b["type"] == "game.your_turn")
    assert turn_body["data"]["seat"] == turn_body["data"]["turn"] == joined.view.turn
    created_both = pb.CreateGameResponse(name=created.name, view=joined.view)
    for seat, token in tokens.items():
        created_both.credentials.add(seat=seat, token=token)
    final = play_to_end(list(hooked), created_both, random.Random(7)).final
    finished = receiver.wait_for(lambda ds: "game.finished" in _types(_of(ds, game)), "the finish")
    mine = [d for d in finished if json.loads(d["body"])["data"]["game_id"] == game]
    assert all(d["valid"] and d["status"] == 204 for d in mine), mine
    assert len({d["id"] for d in mine}) == len(mine)  # one request per notice, each its id
    end = next(b for b in bodies(mine) if b["type"] == "game.finished")
    assert end["data"]["scores"] == [side.score for side in final.sides]
    assert end["data"]["turn"] is None
    assert sorted(end["data"]["winners"]) == sorted(final.winners)


def test_a_turn_clock_running_out_is_delivered(
    hooked: tuple[Stub, Stub], receiver: Receiver
) -> None:
    """A person's turn left to its 1 s clock: the sweeper's timeout is notified."""
    request = pb.CreateGameRequest(
        preset="scopa",
        seats=[pb.SeatSpec(display_name="P0"), pb.SeatSpec(display_name="B", bot="greedy")],
        turn_timeout_s=1,
    )
    created = hooked[0].CreateGame(request, timeout=10)
    game = _game_id(created.name)
    found = receiver.wait_for(
        lambda ds: "game.turn_timed_out" in _types(_of(ds, game)), "the timeout"
    )
    mine = [d for d in found if json.loads(d["body"])["data"]["game_id"] == game]
    timed = next(b for b in bodies(mine) if b["type"] == "game.turn_timed_out")
    assert timed["data"]["seat"] == 0 and timed["data"]["forfeited"] is False
    assert "game.your_turn" in _types(mine)  # the game started on the person's turn
    assert all(d["valid"] for d in mine)


def test_a_rematch_offer_is_delivered_and_the_rematch_notifies_too(
    hooked: tuple[Stub, Stub], receiver: Receiver
) -> None:
    """A seat resigns, the other asks for a rematch on the other replica: the finished game's
    webhook gets ``game.rematch_offered`` naming the new game and the seat that asked, and the
    rematch (same webhook) announces whose turn it is."""
    stub, other = hooked
    created = create(stub)
    tokens = tokens_of(created)
    game = _game_id(created.name)
    stub.ResignGame(pb.ResignGameRequest(name=created.name), metadata=auth(tokens[0]), timeout=10)
    asked = other.RematchGame(
        pb.RematchGameRequest(name=created.name), metadata=auth(tokens[1]), timeout=20
    )
    rematch = _game_id(asked.game)
    found = receiver.wait_for(
        lambda ds: (
            "game.rematch_offered" in _types(_of(ds, game))
            and "game.your_turn" in _types(_of(ds, rematch))
        ),
        "the rematch's notices",
    )
    mine = [d for d in found if json.loads(d["body"])["data"]["game_id"] == game]
    offer = next(b for b in bodies(mine) if b["type"] == "game.rematch_offered")
    assert offer["data"]["seat"] == 1
    assert offer["data"]["rematch_game_id"] == rematch
    assert [b["type"] for b in bodies(mine)].count("game.rematch_offered") == 1
    assert all(d["valid"] for d in found)
    other.RematchGame(  # asked again: the same rematch, no second offer
        pb.RematchGameRequest(name=created.name), metadata=auth(tokens[0]), timeout=20
    )
    time.sleep(1)
    assert _types(_of(receiver.deliveries(), game)).count("game.rematch_offered") == 1


def test_no_payload_holds_a_card_a_name_or_a_token(
    hooked: tuple[Stub, Stub], receiver: Receiver
) -> None:
    """Every body the receiver got has only the documented keys: no hand, no card, no seat
    name, no token."""
    created = create(hooked[0], open_seats=[1])
    hooked[0].JoinGame(
        pb.JoinGameRequest(
            name=created.name,
            invite_code=created.invites[0].invite_code,
            display_name="Secret-Name",
        ),
        timeout=10,
    )
    game = _game_id(created.name)
    receiver.wait_for(lambda ds: len(_of(ds, game)) >= 2, "the join's notices")
    tokens = [c.token for c in created.credentials]
    for delivery in receiver.deliveries():
        body = json.loads(delivery["body"])
        assert set(body) == PAYLOAD_KEYS and set(body["data"]) <= DATA_KEYS, body
        text = delivery["body"]
        assert "Secret-Name" not in text and "card" not in text and "hand" not in text
        assert not any(token in text for token in tokens)


def test_the_receiver_down_then_failing_then_back_gets_it_with_the_same_id() -> None:
    """A receiver that is down (connection refused), then answers 503, sees retries (backoff)
    carrying one stable webhook-id; once it answers again, that notification is delivered under
    the same id, once."""
    with running_redis_server() as redis, running_receiver(started=False) as receiver:
        env = webhook_env(receiver, SCOPA_WEBHOOK_MAX_ATTEMPTS="30")
        server = start_server(redis.url, env=env)
        try:
            with stub_pair([server.target] * 2) as (stub, _):
                game = _game_id(create(stub).name)
            _wait_log(server, "webhook_failed", game)
            assert _logged(server, "webhook_failed", game)[0]["status"] == 0  # no answer
            receiver.start(fail=True)
            tries = receiver.wait_for(lambda ds: len(_of(ds, game)) >= 2, "two attempts")
            ids = {d["id"] for d in tries if json.loads(d["body"])["data"]["game_id"] == game}
            assert len(ids) == 1 and all(d["valid"] and d["status"] == 503 for d in tries)
            receiver.stop()
            receiver.start()
            done = receiver.wait_for(
                lambda ds: any(d["status"] == 204 for d in _of(ds, game)), "the delivery"
            )
            delivered = [d for d in done if d["status"] == 204]
            assert [d["id"] for d in delivered] == list(ids)
            assert receiver.served() == receiver.deliveries()
        finally:
            stop_server(server)


def test_a_receiver_that_always_fails_gets_dead_letters() -> None:
    """After SCOPA_WEBHOOK_MAX_ATTEMPTS failed attempts the notification is given up: logged as
    dead-lettered, and never sent again."""
    with running_redis_server() as redis, running_receiver(fail=True) as receiver:
        env = webhook_env(receiver, SCOPA_WEBHOOK_MAX_ATTEMPTS="3")
        server = start_server(redis.url, env=env)
        try:
            with stub_pair([server.target] * 2) as (stub, _):
                game = _game_id(create(stub).name)
            _wait_log(server, "webhook_dead_lettered", game)
            time.sleep(1.5)  # a fourth attempt would have come by now (backoff 0.2 s doubling)
            attempts = _of(receiver.deliveries(), game)
            assert len(attempts) == 3 and len({d["id"] for d in attempts}) == 1
            assert [r["attempts"] for r in _logged(server, "webhook_failed", game)] == [1, 2]
        finally:
            stop_server(server)


def _logged(server: ServerProcess, event: str, game: str) -> list[dict[str, Any]]:
    return [r for r in server.log_records() if r.get("event") == event and r.get("game_id") == game]


def _wait_log(server: ServerProcess, event: str, game: str) -> None:
    deadline = time.monotonic() + 60
    while not _logged(server, event, game):
        assert time.monotonic() < deadline, f"no {event} for {game}"
        time.sleep(0.05)


def test_a_games_own_url_gets_its_notices_where_allowed() -> None:
    """With SCOPA_WEBHOOK_ALLOW_PER_GAME (and no deployment URL), a game created with its own
    webhook URL has its notices sent there, signed with the server's secret; a game without
    one sends nothing."""
    with running_redis_server() as redis, running_receiver() as receiver:
        env = webhook_env(receiver, SCOPA_WEBHOOK_ALLOW_PER_GAME="on")
        del env["SCOPA_WEBHOOK_URL"]
        server = start_server(redis.url, env=env)
        try:
            with stub_pair([server.target] * 2) as (stub, _):
                plain = _game_id(create(stub).name)
                request = pb.CreateGameRequest(
                    preset="scopa", webhook=pb.GameWebhook(url=receiver.url)
                )
                own = _game_id(stub.CreateGame(request, timeout=10).name)
            found = receiver.wait_for(lambda ds: bool(_of(ds, own)), "the game's notice")
            assert all(d["valid"] for d in found)
            time.sleep(1)  # the plain game's notice would have come by now
            assert _of(receiver.deliveries(), plain) == []
        finally:
            stop_server(server)


def test_a_games_own_url_is_refused_with_a_reason(
    hooked: tuple[Stub, Stub], hooked_replicas: tuple[ServerProcess, ServerProcess]
) -> None:
    """Where per-game URLs are not allowed (the default), or for a URL the server will not
    call: INVALID_ARGUMENT naming webhook.url, over gRPC and REST alike; nothing is created."""
    for url in ("https://elsewhere.example/h", "ftp://x.example/h", ""):
        request = pb.CreateGameRequest(preset="scopa", webhook=pb.GameWebhook(url=url))
        expect_error(
            lambda request=request: hooked[0].CreateGame(request, timeout=10),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            field="webhook.url",
        )
    reply = httpx.post(
        f"{hooked_replicas[0].http_url}/v1/games",
        json={"preset": "scopa", "webhook": {"url": "https://elsewhere.example/h"}},
        timeout=10,
    )
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    (info,) = [d for d in error["details"] if d.get("reason")]
    assert info["reason"] == "INVALID_ARGUMENT" and info["metadata"]["field"] == "webhook.url"


def test_on_a_redis_cluster_too(redis_cluster: RedisCluster) -> None:
    """On a Redis Cluster (the outbox in the game's slot, its index in the shards' own): a game
    played by two replicas gets its join and finish notices delivered, each once."""
    with running_receiver() as receiver:
        with running_replicas(redis_cluster.url, env=webhook_env(receiver)) as pair:
            with stub_pair([r.target for r in pair]) as stubs:
                created = create(stubs[0], open_seats=[1])
                game = _game_id(created.name)
                code = created.invites[0].invite_code
                request = pb.JoinGameRequest(name=created.name, invite_code=code)
                joined = stubs[1].JoinGame(request, timeout=10)
                both = pb.CreateGameResponse(name=created.name, view=joined.view)
                for seat, token in {**tokens_of(created), 1: joined.token}.items():
                    both.credentials.add(seat=seat, token=token)
                play_to_end(list(stubs), both, random.Random(3))
            found = receiver.wait_for(
                lambda ds: "game.finished" in _types(_of(ds, game)), "the finish"
            )
        mine = [d for d in found if json.loads(d["body"])["data"]["game_id"] == game]
        assert {"game.seat_joined", "game.your_turn"} <= set(_types(mine))
        assert all(d["valid"] and d["status"] == 204 for d in mine)
        assert len({d["id"] for d in mine}) == len(mine)

"""RematchGame against two real replicas on one redis-server, through the generated client:
every watcher learns of the rematch, seats keep their credentials, racing asks make one game."""

from __future__ import annotations

import asyncio
import json
import random
from typing import TYPE_CHECKING

import grpc
import httpx
from support.server_process import ServerProcess

from integration.aio_helpers import aio_stub
from integration.helpers import (
    auth,
    create,
    expect_error,
    int_option,
    play_to_end,
    tokens_of,
    view,
)
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1.scopa_pb2_grpc import GameServiceStub as Stub

if TYPE_CHECKING:
    from scopa_client.v1.scopa_pb2_grpc import GameServiceAsyncStub as AioStub


def _short_game(stub: Stub, bot: str = "") -> pb.CreateGameResponse:
    """A two-seat scopa game of one hand (hand_limit 1); seat 1 a ``bot`` if given."""
    request = pb.CreateGameRequest(
        preset="scopa",
        options={"target_score": int_option(21), "hand_limit": int_option(1)},
        seats=[pb.SeatSpec(display_name="P0"), pb.SeatSpec(display_name="P1", bot=bot)],
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=10)
    return response


def _resign(stub: Stub, name: str, token: str) -> pb.GameView:
    """Seat ``token`` resigns: the game is over at once."""
    response: pb.ResignGameResponse = stub.ResignGame(
        pb.ResignGameRequest(name=name), metadata=auth(token), timeout=10
    )
    return response.view


def _rematch(stub: Stub, name: str, token: str) -> pb.RematchGameResponse:
    response: pb.RematchGameResponse = stub.RematchGame(
        pb.RematchGameRequest(name=name), metadata=auth(token), timeout=20
    )
    return response


async def _watch_to_end(stub: AioStub, name: str, token: str) -> list[pb.WatchGameResponse]:
    """Every message of seat ``token``'s WatchGame stream that follows the rematch, to its end."""
    call = stub.WatchGame(
        pb.WatchGameRequest(name=name, follow_rematch=True), metadata=auth(token), timeout=120
    )
    return [message async for message in call]


async def _sse_to_end(http_port: int, name: str, token: str) -> list[dict[str, object]]:
    """Every event of the REST WatchGame stream (followRematch), to its end, as JSON."""
    url = f"http://127.0.0.1:{http_port}/v1/{name}:watch?followRematch=true"
    events: list[dict[str, object]] = []
    async with httpx.AsyncClient(timeout=120) as http:
        headers = {"Authorization": f"Bearer {token}"}
        async with http.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
    return events


async def test_every_watcher_learns_of_the_rematch_and_seats_keep_their_tokens(
    replicas: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Seat 1's open WatchGame (replica 1) and SSE (replica 0) streams stay open past the end,
    get the rematch seat 0 asked for, and end; both seats play the rematch with their old
    tokens, its first dealer the seat after the finished game's; asking again finds it."""
    created = _short_game(stubs[0])
    name, tokens = created.name, tokens_of(created)
    async with aio_stub(replicas[1].target) as watcher:
        streams = asyncio.gather(
            _watch_to_end(watcher, name, tokens[1]),
            _sse_to_end(replicas[0].http_port, name, tokens[1]),
        )
        played = await asyncio.to_thread(play_to_end, stubs, created, random.Random(3))
        assert played.final.status == pb.GAME_STATUS_FINISHED
        await asyncio.sleep(0.5)
        assert not streams.done(), "a stream following the rematch ended with the game"
        asked = await asyncio.to_thread(_rematch, stubs[0], name, tokens[0])
        watched, sse = await asyncio.wait_for(streams, timeout=30)
    rematch = asked.game
    assert rematch.startswith("games/") and rematch != name
    assert asked.view.name == rematch and asked.view.seat == 0
    assert asked.view.previous_game == name
    assert watched[-1].view.rematch_game == rematch
    assert watched[-1].view.status == pb.GAME_STATUS_FINISHED
    assert not any(m.view.rematch_game for m in watched[:-1])
    last = sse[-1]["view"]
    assert isinstance(last, dict) and last["rematchGame"] == rematch
    assert view(stubs[1], name).rematch_game == rematch  # a spectator's GetState too
    # The same seats, the dealer moved on: the finished game's first dealer was seat 1.
    assert created.view.dealer == 1 and asked.view.dealer == 0
    assert [s.display_name for s in asked.view.seats] == ["P0", "P1"]
    assert dict(asked.view.options) | {"first_dealer": pb.OptionValue(int_value=0)} == dict(
        asked.view.options
    )
    assert asked.view.options["hand_limit"].int_value == 1
    # Asking again (the other seat, the other replica) gets the same game, changing nothing.
    before = view(stubs[0], name).version
    again = _rematch(stubs[1], name, tokens[1])
    assert again.game == rematch and again.view.seat == 1
    assert view(stubs[0], name).version == before
    # Both seats play the rematch with their old tokens, to its end.
    second = pb.CreateGameResponse(name=rematch, credentials=created.credentials, view=asked.view)
    final = play_to_end(stubs, second, random.Random(4)).final
    assert final.status == pb.GAME_STATUS_FINISHED and final.previous_game == name
    # ... and its rematch deals from seat 1 again.
    third = _rematch(stubs[1], rematch, tokens[1])
    assert third.game not in (name, rematch) and third.view.dealer == 1
    assert third.view.previous_game == rematch


async def test_racing_asks_on_two_replicas_make_one_rematch(
    replicas: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Both seats ask at once, each through its own replica: one rematch, one new version of
    the finished game; each seat gets its own view of it."""
    async with aio_stub(replicas[0].target) as first, aio_stub(replicas[1].target) as second:
        for round_ in range(6):
            created = create(stubs[0], "scopa", 2)
            name, tokens = created.name, tokens_of(created)
            finished = _resign(stubs[round_ % 2], name, tokens[round_ % 2]).version
            asks = [
                stub.RematchGame(
                    pb.RematchGameRequest(name=name), metadata=auth(tokens[seat]), timeout=20
                )
                for seat, stub in ((0, first), (1, second), (0, second), (1, first))
            ]
            answers: list[pb.RematchGameResponse] = await asyncio.gather(*asks)
            assert len({a.game for a in answers}) == 1, [a.game for a in answers]
            assert [a.view.seat for a in answers] == [0, 1, 0, 1]
            assert view(stubs[1], name).version == finished + 1


def test_a_bot_seat_comes_along(stubs: tuple[Stub, Stub]) -> None:
    """The rematch's bot seat is the same bot level, and plays: seat 1 deals first in the
    finished game, so seat 0 in the rematch, and the bot leads."""
    created = _short_game(stubs[0], bot="random")
    name, token = created.name, tokens_of(created)[0]
    assert tokens_of(created).keys() == {0}
    _resign(stubs[0], name, token)
    asked = _rematch(stubs[1], name, token)
    assert [s.bot for s in asked.view.seats] == ["", "random"]
    assert asked.view.dealer == 0
    shown = view(stubs[0], asked.game, token)
    assert shown.seat == 0 and shown.version > 1  # the bot (seat 1) played its lead
    assert shown.HasField("turn") and shown.turn == 0 and shown.legal_moves


def test_rematch_errors_change_nothing(stubs: tuple[Stub, Stub]) -> None:
    """An unfinished game, a caller without a token or with another game's, an unknown game, a
    game with a seat never taken: each its error, and no new version."""
    stub = stubs[0]
    created = create(stub, "scopa", 2)
    name, tokens = created.name, tokens_of(created)
    other = tokens_of(create(stub, "scopa", 2))[0]
    expect_error(
        lambda: _rematch(stub, name, tokens[0]),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_FINISHED",
    )
    _resign(stub, name, tokens[1])
    finished = view(stub, name).version
    expect_error(
        lambda: stub.RematchGame(pb.RematchGameRequest(name=name), timeout=10),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHENTICATED",
    )
    expect_error(
        lambda: _rematch(stub, name, other),
        grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED",
    )
    expect_error(
        lambda: _rematch(stub, "games/nosuchgame0000000000", tokens[0]),
        grpc.StatusCode.NOT_FOUND,
        "GAME_NOT_FOUND",
    )
    assert view(stub, name).version == finished and not view(stub, name).rematch_game
    waiting = create(stub, "scopa", 2, open_seats=[1])
    _resign(stub, waiting.name, tokens_of(waiting)[0])
    expect_error(
        lambda: _rematch(stub, waiting.name, tokens_of(waiting)[0]),
        grpc.StatusCode.FAILED_PRECONDITION,
        "REMATCH_UNAVAILABLE",
    )


def test_rematch_over_rest(replicas: tuple[ServerProcess, ServerProcess], stub: Stub) -> None:
    """POST /v1/games/{game}:rematch with the seat token: the rematch's name and view."""
    created = create(stub, "scopa", 2)
    name, tokens = created.name, tokens_of(created)
    _resign(stub, name, tokens[0])
    url = f"http://127.0.0.1:{replicas[1].http_port}/v1/{name}:rematch"
    headers = {"Authorization": f"Bearer {tokens[1]}"}
    response = httpx.post(url, json={}, headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["game"] == view(stub, name).rematch_game == body["view"]["name"]
    assert body["view"]["seat"] == 1

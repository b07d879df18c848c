"""ListMyGames against a real OpenID Connect provider and real server processes.

Each player's devices are separate clients of :mod:`scopa_client` built with a token provider
(a fresh access token from the provider for every call, no seat token anywhere); two
subjects are two players. The server runs on the session's redis-server, or on the session's
Redis Cluster where the owner index has its own slot.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from integration.helpers import expect_error, move_request, rid
from support.oidc import AUDIENCE, OidcProvider, new_key, require_provider
from support.redis_cluster import RedisCluster
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from scopa_client import aio_connect, bearer_metadata, connect
from scopa_client.session import open_session
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub


def _subject(name: str) -> str:
    return f"subject-{name}-{uuid.uuid4().hex[:8]}"


ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI = (
    _subject(n) for n in ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
)
CLIENTS = dict.fromkeys((ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI), 300)


def _env(provider: OidcProvider, **more: str) -> dict[str, str]:
    return {
        "SCOPA_OIDC_ISSUER": provider.issuer,
        "SCOPA_OIDC_AUDIENCE": AUDIENCE,
        "SCOPA_OIDC_LEEWAY_S": "1",
        **more,
    }


@pytest.fixture(scope="module")
def provider() -> Iterator[OidcProvider]:
    require_provider()
    started = OidcProvider(CLIENTS, [new_key("key-1")[1]])
    started.start()
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, provider: OidcProvider) -> Iterator[ServerProcess]:
    process = start_server(redis_server.url, env=_env(provider))
    try:
        yield process
    finally:
        stop_server(process)


class Device:
    """One client instance of a signed-in player: its own channel, a token per call."""

    def __init__(self, server: ServerProcess, provider: OidcProvider, subject: str) -> None:
        self.calls = 0

        def fresh() -> str:
            self.calls += 1
            return provider.token(subject)

        self.stub = connect(server.target, token_provider=fresh)

    def create(self, *, open_seats: tuple[int, ...] = (1,)) -> pb.CreateGameResponse:
        request = pb.CreateGameRequest(
            preset="scopa",
            options={"target_score": pb.OptionValue(int_value=1)},
            seats=[pb.SeatSpec(display_name=f"P{i}", open=i in open_seats) for i in range(2)],
        )
        response: pb.CreateGameResponse = self.stub.CreateGame(request, timeout=10)
        return response

    def join(self, created: pb.CreateGameResponse) -> pb.JoinGameResponse:
        request = pb.JoinGameRequest(
            name=created.view.name,
            invite_code=created.invites[0].invite_code,
            display_name="Joiner",
        )
        response: pb.JoinGameResponse = self.stub.JoinGame(request, timeout=10)
        return response

    def mine(self, **fields: Any) -> pb.ListMyGamesResponse:
        response: pb.ListMyGamesResponse = self.stub.ListMyGames(
            pb.ListMyGamesRequest(**fields), timeout=10
        )
        return response

    def listed(self, name: str, **fields: Any) -> pb.GameView | None:
        found = [game for game in self.mine(page_size=100, **fields).games if game.name == name]
        return found[0] if found else None


def _pair(server: ServerProcess, provider: OidcProvider, subject: str) -> tuple[Device, Device]:
    return Device(server, provider, subject), Device(server, provider, subject)


def test_each_device_of_each_player_lists_the_game_with_whose_turn_it_is(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Alice creates on her phone, Bob joins on his: both players' laptops list the game,
    each with its own seat and the seat to play, and follow the turn; Carol lists nothing
    of it. Every call fetched a fresh token (no seat token exists)."""
    alice_phone, alice_laptop = _pair(server, provider, ALICE)
    bob_phone, bob_laptop = _pair(server, provider, BOB)
    carol = Device(server, provider, CAROL)
    created = alice_phone.create()
    name = created.view.name
    assert not created.credentials[0].token  # bound to Alice: no seat token
    waiting = alice_laptop.listed(name)
    assert waiting is not None
    assert waiting.status == pb.GAME_STATUS_WAITING_FOR_PLAYERS
    assert waiting.seat == 0 and not waiting.HasField("turn")
    assert bob_laptop.listed(name) is None
    joined = bob_phone.join(created)
    assert not joined.token
    for device, seat in ((alice_laptop, 0), (bob_laptop, 1), (alice_phone, 0), (bob_phone, 1)):
        game = device.listed(name, status=pb.GAME_STATUS_ACTIVE)
        assert game is not None
        assert (game.seat, game.turn, game.status) == (seat, 0, pb.GAME_STATUS_ACTIVE)
        assert [s.display_name for s in game.seats] == ["P0", "Joiner"]
        assert not game.hand and not game.legal_moves  # a summary: nothing of the table
    view: pb.GetStateResponse = alice_laptop.stub.GetState(pb.GetStateRequest(name=name))
    alice_laptop.stub.PlayCard(move_request(name, view.view.legal_moves[0], rid()), timeout=10)
    after = bob_laptop.listed(name)
    assert after is not None and after.turn == 1 and after.version > waiting.version
    assert carol.listed(name) is None
    assert alice_laptop.calls >= 4 and alice_phone.calls >= 2  # one fresh token per call


def test_anonymous_and_seat_token_callers_are_refused(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """Without a token, or with a seat token, ListMyGames is UNAUTHENTICATED /
    IDENTITY_REQUIRED; with a JWT that does not verify, IDENTITY_INVALID."""
    anonymous = connect(server.target)
    request = pb.ListMyGamesRequest()
    expect_error(
        lambda: anonymous.ListMyGames(request, timeout=10),
        grpc.StatusCode.UNAUTHENTICATED,
        "IDENTITY_REQUIRED",
    )
    created: pb.CreateGameResponse = anonymous.CreateGame(
        pb.CreateGameRequest(preset="scopa", seats=[pb.SeatSpec(), pb.SeatSpec(open=True)]),
        timeout=10,
    )
    seat_token = bearer_metadata(created.credentials[0].token)
    expect_error(
        lambda: anonymous.ListMyGames(request, metadata=seat_token, timeout=10),
        grpc.StatusCode.UNAUTHENTICATED,
        "IDENTITY_REQUIRED",
    )
    forged = provider.token(ALICE)[:-4] + "AAAA"
    expect_error(
        lambda: anonymous.ListMyGames(request, metadata=bearer_metadata(forged), timeout=10),
        grpc.StatusCode.UNAUTHENTICATED,
        "IDENTITY_INVALID",
    )


def _all_pages(device: Device, size: int, **fields: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    token = ""
    while True:
        page = device.mine(page_size=size, page_token=token, **fields)
        pages.append([game.name for game in page.games])
        token = page.next_page_token
        if not token:
            return pages


def test_pages_and_status_filters(server: ServerProcess, provider: OidcProvider) -> None:
    """Dave's five games page newest first, two by two; the status filter lists the waiting,
    active and finished ones apart; a page token of one filter is refused by another."""
    dave, erin = Device(server, provider, DAVE), Device(server, provider, ERIN)
    games = [dave.create() for _ in range(5)]
    names = [g.view.name for g in games]
    erin.join(games[1])
    erin.join(games[3])
    dave.stub.ResignGame(pb.ResignGameRequest(name=names[3]), timeout=10)
    pages = _all_pages(dave, 2)
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [name for page in pages for name in page] == names[::-1]
    assert _all_pages(dave, 10, status=pb.GAME_STATUS_WAITING_FOR_PLAYERS) == [
        [names[4], names[2], names[0]]
    ]
    assert _all_pages(dave, 10, status=pb.GAME_STATUS_ACTIVE) == [[names[1]]]
    finished = dave.mine(status=pb.GAME_STATUS_FINISHED).games
    assert [(g.name, g.status, g.HasField("turn")) for g in finished] == [
        (names[3], pb.GAME_STATUS_FINISHED, False)
    ]
    assert [g.name for g in erin.mine().games] == [names[3], names[1]]
    token = dave.mine(page_size=1).next_page_token
    expect_error(
        lambda: dave.mine(page_token=token, status=pb.GAME_STATUS_ACTIVE),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="page_token",
    )
    expect_error(
        lambda: dave.mine(page_size=-1),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="page_size",
    )
    expect_error(
        lambda: dave.mine(status=99),  # a status this API does not have (open enums pass it)
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="status",
    )


@pytest.fixture(scope="module")
def cluster_server(redis_cluster: RedisCluster, provider: OidcProvider) -> Iterator[ServerProcess]:
    process = start_server(redis_cluster.url, env=_env(provider))
    try:
        yield process
    finally:
        stop_server(process)


def test_the_owner_index_on_a_redis_cluster(
    cluster_server: ServerProcess, provider: OidcProvider
) -> None:
    """On a Redis Cluster (the games and each owner's index in their own slots) both players
    list their games, which follow the game's commits."""
    frank: Callable[[], Device] = lambda: Device(cluster_server, provider, FRANK)  # noqa: E731
    alice = Device(cluster_server, provider, ALICE)
    games = [frank().create() for _ in range(3)]
    alice.join(games[0])
    mine = frank().mine()
    assert [g.name for g in mine.games] == [g.view.name for g in games[::-1]]
    active = frank().listed(games[0].view.name, status=pb.GAME_STATUS_ACTIVE)
    assert active is not None and active.turn == 0 and active.seat == 0
    listed = alice.listed(games[0].view.name)
    assert listed is not None and listed.seat == 1


@pytest.fixture(scope="module")
def archive_server(
    redis_server: RedisServer, provider: OidcProvider, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("archive")
    env = _env(provider, SCOPA_ARCHIVE_URL=f"sqlite:///{folder}/archive.db")
    process = start_server(redis_server.url, env=env)
    try:
        yield process
    finally:
        stop_server(process)


def _rest(server: ServerProcess, path: str, token: str | None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"{server.http_url}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), json.loads(error.read())


def test_finished_games_come_from_the_archive_and_their_records_are_readable(
    archive_server: ServerProcess, provider: OidcProvider
) -> None:
    """On a server with an archive, Grace's finished private game is listed from it (with her
    seat) once archived, over gRPC and REST (GET /v1/me/games); she reads its record with her
    access token, Heidi (who held no seat) may not."""
    grace, heidi = Device(archive_server, provider, GRACE), Device(archive_server, provider, HEIDI)
    created = grace.create(open_seats=())
    name = created.view.name
    grace.stub.ResignGame(pb.ResignGameRequest(name=name, request_id=rid()), timeout=10)
    deadline = time.monotonic() + 10
    while not grace.mine(status=pb.GAME_STATUS_FINISHED).games:
        assert time.monotonic() < deadline, "the finished game was never archived"
        time.sleep(0.1)
    [finished] = grace.mine(status=pb.GAME_STATUS_FINISHED).games
    assert (finished.name, finished.seat, finished.status) == (name, 0, pb.GAME_STATUS_FINISHED)
    assert heidi.mine(status=pb.GAME_STATUS_FINISHED).games == []
    status, body = _rest(
        archive_server, "/v1/me/games?status=GAME_STATUS_FINISHED", provider.token(GRACE)
    )
    assert status == 200 and [g["name"] for g in body["games"]] == [name]
    assert body["games"][0]["seat"] == 0
    status, body = _rest(archive_server, "/v1/me/games", None)
    assert status == 401 and body["error"]["details"][0]["reason"] == "IDENTITY_REQUIRED"
    record: pb.GetGameRecordResponse = grace.stub.GetGameRecord(
        pb.GetGameRecordRequest(name=name), timeout=10
    )
    assert json.loads(record.record.record_json)["game"] == name
    expect_error(
        lambda: heidi.stub.GetGameRecord(pb.GetGameRecordRequest(name=name), timeout=10),
        grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED",
    )


@pytest.mark.asyncio(loop_scope="session")
async def test_an_async_token_provider_and_a_signed_in_session(
    server: ServerProcess, provider: OidcProvider
) -> None:
    """aio_connect takes a coroutine function as its token provider (awaited before each
    call), and open_session one for its hello: Alice's realtime session acts for her seat."""
    fetched = 0

    async def fresh() -> str:
        nonlocal fetched
        fetched += 1
        return await asyncio.to_thread(provider.token, ALICE)

    stub = aio_connect(server.target, token_provider=fresh)
    created: pb.CreateGameResponse = await stub.CreateGame(
        pb.CreateGameRequest(preset="scopa", seats=[pb.SeatSpec(), pb.SeatSpec(open=True)]),
        timeout=10,
    )
    mine: pb.ListMyGamesResponse = await stub.ListMyGames(
        pb.ListMyGamesRequest(page_size=100), timeout=10
    )
    assert created.view.name in [g.name for g in mine.games]
    assert fetched == 2
    session = await open_session(server.http_url, created.view.name, fresh)
    try:
        assert session.view.seat == 0 and fetched == 3
    finally:
        await session.close()

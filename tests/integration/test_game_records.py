"""GetGameRecord on a real server with a SQLite archive and a real redis-server: over gRPC and
REST, for the seats of a private game and for anyone of a public one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from integration.helpers import Stub, auth, create, rid, stub_pair, tokens_of
from scopa_client.v1 import scopa_pb2 as pb


@pytest.fixture(scope="module")
def archived(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """A server whose archive is a SQLite file of this module's."""
    folder: Path = tmp_path_factory.mktemp("archive")
    server = start_server(
        redis_server.url, env={"SCOPA_ARCHIVE_URL": f"sqlite:///{folder}/archive.db"}
    )
    try:
        yield server
    finally:
        stop_server(server)


def _resigned(stub: Stub, public: bool = False) -> tuple[str, dict[int, str]]:
    """A two-seat game that seat 1 resigned (seat 0 won)."""
    seats = [pb.SeatSpec(display_name="A"), pb.SeatSpec(display_name="B")]
    request = pb.CreateGameRequest(preset="scopa", seats=seats, public=public)
    created: pb.CreateGameResponse = stub.CreateGame(request, timeout=10)
    tokens = tokens_of(created)
    stub.ResignGame(
        pb.ResignGameRequest(name=created.name, request_id=rid()),
        metadata=auth(tokens[1]),
        timeout=10,
    )
    return created.name, tokens


def test_a_seat_reads_a_private_game_record_and_a_spectator_cannot(
    archived: ServerProcess,
) -> None:
    with stub_pair([archived.target, archived.target]) as (stub, _):
        name, tokens = _resigned(stub)
        response = stub.GetGameRecord(
            pb.GetGameRecordRequest(name=name), metadata=auth(tokens[0]), timeout=10
        )
        record = json.loads(response.record.record_json)
        assert response.record.name == name == record["game"]
        assert record["result"]["reason"] == "resigned"
        assert record["result"]["winners"] == [0]
        dealt = [e for v in record["versions"] for e in v["events"] if e["t"] == "cards_dealt"]
        assert {e["seat"] for e in dealt} == {0, 1}
        assert all(len(e["cards"]) == e["n_cards"] for e in dealt)
        with pytest.raises(grpc.RpcError) as denied:
            stub.GetGameRecord(pb.GetGameRecordRequest(name=name), timeout=10)
        assert denied.value.code() is grpc.StatusCode.PERMISSION_DENIED
        live = create(stub)
        with pytest.raises(grpc.RpcError) as playing:
            stub.GetGameRecord(
                pb.GetGameRecordRequest(name=live.name),
                metadata=auth(tokens_of(live)[0]),
                timeout=10,
            )
        assert playing.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert "GAME_NOT_FINISHED" in str(playing.value.trailing_metadata())


def test_anyone_reads_a_public_game_record_over_rest(archived: ServerProcess) -> None:
    with stub_pair([archived.target, archived.target]) as (stub, _):
        name, _tokens = _resigned(stub, public=True)
    reply = httpx.get(f"{archived.http_url}/v1/{name}/record", timeout=10)
    assert reply.status_code == 200, reply.text
    record = json.loads(reply.json()["record"]["recordJson"])
    assert record["public"] is True
    assert record["seats"] == [{"name": "A", "bot": ""}, {"name": "B", "bot": ""}]
    missing = httpx.get(f"{archived.http_url}/v1/games/AAAAAAAAAAAAAAAAAAAAAA/record", timeout=10)
    assert missing.status_code == 404
    assert missing.json()["error"]["details"][0]["reason"] == "GAME_NOT_FOUND"


def test_list_games_lists_finished_public_games(archived: ServerProcess) -> None:
    with stub_pair([archived.target, archived.target]) as (stub, _):
        private, _tokens = _resigned(stub)
        public, _tokens = _resigned(stub, public=True)
        for _ in range(100):  # archived in the background, after the answer
            listed = stub.ListGames(
                pb.ListGamesRequest(status=pb.GAME_STATUS_FINISHED, page_size=100), timeout=10
            )
            if public in [g.name for g in listed.games]:
                break
            time.sleep(0.05)
        names = [g.name for g in listed.games]
        assert public in names and private not in names
        assert all(g.status == pb.GAME_STATUS_FINISHED for g in listed.games)
        with pytest.raises(grpc.RpcError) as bad:
            stub.ListGames(pb.ListGamesRequest(status=pb.GameStatus.ValueType(99)), timeout=10)
        assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    reply = httpx.get(f"{archived.http_url}/v1/games?status=GAME_STATUS_FINISHED", timeout=10)
    assert reply.status_code == 200, reply.text
    assert public in [g["name"] for g in reply.json()["games"]]

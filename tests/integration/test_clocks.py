"""Turn clocks and the sweeper on real replicas and a real redis-server, through the generated
gRPC client: unattended games finish, racing replicas act once, a killed replica's bot turn (or
a claimed sweep's answer) is still played."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import grpc
import httpx
import pytest
import redis
from support.redis_server import RedisServer, running_redis_server
from support.server_process import ServerProcess, running_replicas, start_server, stop_server

from integration.helpers import Stub, auth, fidasse_action, int_option, move_request, rid, tokens_of
from scopa.storage import game_key
from scopa_client import error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

CLOCKED = {"SCOPA_SWEEP_INTERVAL_S": "0.2", "SCOPA_BOT_GRACE_S": "1"}


@pytest.fixture(scope="module")
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this module: no other suite's replica sweeps its games."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def clocked(own_redis: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two replicas on the module's Redis, sweeping every 0.2 s."""
    with running_replicas(own_redis.url, env=CLOCKED) as pair:
        yield pair


def _stub(server: ServerProcess) -> tuple[Stub, grpc.Channel]:
    channel = grpc.insecure_channel(server.target)
    return scopa_pb2_grpc.GameServiceStub(channel), channel


def _records(servers: tuple[ServerProcess, ...], event: str, game: str) -> list[dict[str, Any]]:
    return [
        r
        for s in servers
        for r in s.log_records()
        if r.get("event") == event and r.get("game_id") == game
    ]


def _kill_once_committed(
    doomed: ServerProcess, redis_url: str, game: str, future: grpc.Future[Any]
) -> datetime:
    """SIGKILL ``doomed`` once the store holds ``game`` at version 2 and return when; the call
    in flight (``future``) then fails."""
    with redis.Redis.from_url(redis_url) as store:
        _wait_for(lambda: store.hget(game_key(game), "version") == b"2")
    doomed.process.kill()
    doomed.process.wait()
    killed = datetime.now(UTC)
    with pytest.raises(grpc.RpcError):
        future.result()
    return killed


def _wait_for(check: Any, timeout_s: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


def _two_people(
    stub: Stub, timeout_s: int, preset_override: str = "scopa", **kw: Any
) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(
        preset=preset_override,
        seats=[pb.SeatSpec(display_name="ann"), pb.SeatSpec(display_name="bob")],
        turn_timeout_s=timeout_s,
        request_id=rid(),
        **kw,
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=30)
    return response


def test_the_view_carries_the_turn_deadline(clocked: tuple[ServerProcess, ServerProcess]) -> None:
    """The deadline is a Timestamp turn_timeout_s after the move, by the store's clock."""
    stub, channel = _stub(clocked[0])
    with channel:
        before = time.time()
        created = _two_people(stub, 600)
        after = time.time()
    deadline = created.view.turn_deadline.ToMilliseconds() / 1000
    assert before + 600 - 1 <= deadline <= after + 600 + 1
    assert created.view.turn_timeout_s == 600 and created.view.HasField("create_time")


def test_a_game_with_every_person_gone_finishes_by_clocks(
    clocked: tuple[ServerProcess, ServerProcess],
) -> None:
    """No client calls after CreateGame: the sweepers play two timeouts, the third forfeits."""
    stub, channel = _stub(clocked[0])
    with channel:
        created = _two_people(stub, 1, timeout_action=pb.TIMEOUT_ACTION_FORFEIT, forfeit_after=2)
        game = created.name.removeprefix("games/")
        _wait_for(lambda: [r for r in _records(clocked, "turn_timed_out", game) if r["forfeit"]])
        final = stub.GetState(pb.GetStateRequest(name=created.name), timeout=30).view
    assert final.status == pb.GAME_STATUS_FINISHED
    assert final.finish_reason == pb.FINISH_REASON_RESIGNED
    assert [(s.resigned, s.timeouts) for s in final.seats] == [(True, 2), (False, 1)]
    assert final.version == 4  # created, two turns played by the bot, the forfeit
    assert not final.HasField("turn_deadline")


def test_two_replicas_race_an_overdue_clock_and_one_move_results(
    clocked: tuple[ServerProcess, ServerProcess],
) -> None:
    """Both sweepers and a GetState on each replica meet the overdue turn: one move is made."""
    stubs = [_stub(server) for server in clocked]
    try:
        created = _two_people(stubs[0][0], 2)
        game = created.name.removeprefix("games/")
        due = created.view.turn_deadline.ToMilliseconds() / 1000
        time.sleep(max(0.0, due - time.time()) + 0.1)
        views: list[pb.GameView] = []
        readers = [
            threading.Thread(
                target=lambda s=s: views.append(
                    s.GetState(pb.GetStateRequest(name=created.name), timeout=30).view
                )
            )
            for s, _ in stubs
        ]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        log = stubs[1][0].WatchGame(
            pb.WatchGameRequest(name=created.name, from_version=1), timeout=30
        )
        first = next(iter(log))
        log.cancel()
    finally:
        for _, channel in stubs:
            channel.close()
    second_version = [e for e in first.events if e.version == 2]
    assert [e.WhichOneof("kind") for e in second_version] == ["turn_timed_out", "card_played"]
    assert second_version[0].turn_timed_out.seat == second_version[1].card_played.seat == 0
    timed_out = [(r["seat"], r["timeouts"]) for r in _records(clocked, "turn_timed_out", game)]
    assert timed_out.count((0, 1)) == 1, timed_out
    assert all(v.version >= 2 for v in views)


def test_a_bot_turn_is_played_after_the_serving_replica_is_killed(
    own_redis: RedisServer, clocked: tuple[ServerProcess, ServerProcess]
) -> None:
    """The replica thinking for the bot is SIGKILLed; another replica's sweeper plays the turn."""
    doomed = start_server(own_redis.url, env={**CLOCKED, "SCOPA_BOT_BUDGET_MS": "8000"})
    try:
        stub, channel = _stub(doomed)
        with channel:
            seats = [pb.SeatSpec(display_name="me"), pb.SeatSpec(display_name="bot", bot="ismcts")]
            created = stub.CreateGame(
                pb.CreateGameRequest(preset="scopa", seats=seats, request_id=rid()), timeout=30
            )
            token = tokens_of(created)[0]
            move = move_request(created.name, created.view.legal_moves[0], rid())
            future = stub.PlayCard.future(move, metadata=auth(token), timeout=60)
            game = created.name.removeprefix("games/")
            # the person's move is committed (version 2); the bot thinks for 8 s
            killed = _kill_once_committed(doomed, own_redis.url, game, future)
    finally:
        stop_server(doomed)
    assert not _records((doomed,), "overdue_taken", game)
    (taken,) = _wait_for(lambda: _records(clocked, "overdue_taken", game))
    # The turn's deadline was the bot's thinking time plus the grace (9 s) after the move.
    assert datetime.fromisoformat(taken["timestamp"]) > killed
    stub, channel = _stub(clocked[0])
    with channel:
        after = stub.GetState(pb.GetStateRequest(name=created.name), timeout=30).view
    assert after.version == 3  # created, the person's move, the bot's move
    assert after.turn == 0 and after.status == pb.GAME_STATUS_ACTIVE


def test_a_watch_stream_takes_a_run_out_turn_without_any_sweeper(own_redis: RedisServer) -> None:
    """A replica whose sweeper waits an hour: the WatchGame stream wakes at the deadline, takes
    the turn for the seat (timeout event first, then the game's own timeout bot's play), and
    REST shows the same event; without the stream nothing would act for the hour."""
    lazy = start_server(own_redis.url, env={"SCOPA_SWEEP_INTERVAL_S": "3600"})
    try:
        stub, channel = _stub(lazy)
        with channel:
            created = _two_people(stub, 1, timeout_bot="random")
            assert created.view.timeout_bot == "random"
            stream = stub.WatchGame(
                pb.WatchGameRequest(name=created.name, from_version=1), timeout=20
            )
            updates = iter(stream)
            assert next(updates).view.version == 1
            update = next(updates)  # DEADLINE_EXCEEDED if no one takes the turn
            stream.cancel()
        with httpx.Client(base_url=lazy.http_url, timeout=30) as http:
            rest = http.get(f"/v1/{created.name}").json()
    finally:
        stop_server(lazy)
    kinds = [e.WhichOneof("kind") for e in update.events]
    assert kinds[:2] == ["turn_timed_out", "card_played"]
    timed_out = update.events[0].turn_timed_out
    assert (timed_out.seat, timed_out.timeouts, timed_out.forfeited) == (0, 1, False)
    assert timed_out.bot == "random"
    assert update.view.version == 2 and update.view.seats[0].timeouts == 1
    first = rest["view"]["lastEvents"][0]
    assert first["turnTimedOut"] == {"seat": 0, "timeouts": 1, "forfeited": False, "bot": "random"}


def test_an_awaited_answer_to_a_claimed_sweep_times_out_to_the_timeout_bot(
    clocked: tuple[ServerProcess, ServerProcess],
) -> None:
    """Scopa fidasse: ann claims a sweep; the turn and its clock are bob's answer; when it runs
    out the timeout bot answers for bob (from bob's view), which the log and the events show."""
    stub, channel = _stub(clocked[0])
    with channel:
        created = _two_people(stub, 2, preset_override="fidasse")
        game = created.name.removeprefix("games/")
        token = tokens_of(created)[0]
        claim = next(a for a in created.view.legal_actions if a.HasField("claim_sweep"))
        claimed = stub.TakeAction(
            pb.TakeActionRequest(name=created.name, action=claim, request_id=rid()),
            metadata=auth(token),
            timeout=30,
        ).view
        assert claimed.phase.kind == pb.PHASE_ANSWER_CLAIM and claimed.turn == 1
        assert claimed.HasField("turn_deadline") and claimed.seats[1].answering
        _wait_for(lambda: [r for r in _records(clocked, "turn_timed_out", game) if r["seat"] == 1])
        log = stub.WatchGame(
            pb.WatchGameRequest(name=created.name, from_version=claimed.version), timeout=30
        )
        events: list[pb.Event] = []
        for message in log:  # up to the claim's settlement (the stream runs to the game's end)
            events += message.events
            if any(e.HasField("card_played") for e in events):
                log.cancel()
                break
    answered = next(e.claim_answered for e in events if e.HasField("claim_answered"))
    assert answered.seat == 1 and answered.answer != pb.CLAIM_ANSWER_UNSPECIFIED
    played = next(e.card_played for e in events if e.HasField("card_played"))
    assert played.seat == 0 and played.HasField("claim")


_MOVED_ON = frozenset({"NOT_YOUR_TURN", "ACTION_NOT_LEGAL", "CONCURRENT_UPDATE"})
"""Reasons a person's action fails when a sweeper took the turn first (its clock ran out)."""


def _fidasse(stub: Stub, bot: str = "", timeout_s: int = 0) -> pb.CreateGameResponse:
    seats = [pb.SeatSpec(display_name="ann"), pb.SeatSpec(display_name="bob", bot=bot)]
    request = pb.CreateGameRequest(
        preset="fidasse",
        options={"target_score": int_option(1)},
        seats=seats,
        turn_timeout_s=timeout_s,
        request_id=rid(),
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=30)
    return response


def _claim(view: pb.GameView) -> pb.Action:
    return next(a for a in view.legal_actions if a.HasField("claim_sweep"))


def _play_on(stubs: list[Stub], created: pb.CreateGameResponse, seed: int) -> None:
    """The people's random legal actions (claims and answers too), alternating replicas, to the
    end; an action a sweeper beat (its clock ran out meanwhile) is dropped and the game read
    again."""
    rng = random.Random(seed)
    tokens = tokens_of(created)
    for step in range(2000):
        stub = stubs[step % len(stubs)]
        spectator = stub.GetState(pb.GetStateRequest(name=created.name), timeout=30).view
        if spectator.status == pb.GAME_STATUS_FINISHED:
            return
        if spectator.turn not in tokens:  # a bot's turn, played by the replicas
            time.sleep(0.05)
            continue
        token = tokens[spectator.turn]
        seen = stub.GetState(pb.GetStateRequest(name=created.name), metadata=auth(token)).view
        if seen.status == pb.GAME_STATUS_FINISHED or seen.turn != seen.seat:
            continue
        action = fidasse_action(seen, rng, claim_rate=0.5)
        request = pb.TakeActionRequest(name=created.name, action=action, request_id=rid())
        try:
            stub.TakeAction(request, metadata=auth(token), timeout=30)
        except grpc.RpcError as exc:
            info = error_info(exc)
            if info is None or info.reason not in _MOVED_ON:
                raise
    raise AssertionError("the game does not end")


def _whole_log(stub: Stub, name: str, token: str) -> tuple[pb.GameView, list[pb.Event]]:
    """A finished game's every event after its creation, as seat 0 sees them."""
    stream = stub.WatchGame(
        pb.WatchGameRequest(name=name, from_version=1), metadata=auth(token), timeout=30
    )
    (message,) = list(stream)  # one message: the game is over
    assert not message.events_truncated
    return message.view, list(message.events)


def _assert_every_move_once(final: pb.GameView, events: list[pb.Event]) -> None:
    """Every version after the first has its events; each hand is 36 plays by alternating seats;
    each claim has one answer and one settling play; the game is over."""
    assert final.status == pb.GAME_STATUS_FINISHED
    assert sorted({e.version for e in events}) == list(range(2, final.version + 1))
    kinds = [e.WhichOneof("kind") for e in events]
    assert kinds.count("sweep_claimed") == kinds.count("claim_answered") >= 1
    claims = [e.card_played for e in events if e.HasField("card_played")]
    assert sum(p.HasField("claim") for p in claims) == kinds.count("sweep_claimed")
    hands: list[list[int]] = [[]]
    for event in events:
        if event.HasField("card_played"):
            hands[-1].append(event.card_played.seat)
        elif event.HasField("hand_scored"):
            hands.append([])
    assert hands[-1] == [] and len(hands) >= 2
    for seats in hands[:-1]:
        assert len(seats) == 36, seats
        assert all(a != b for a, b in itertools.pairwise(seats)), seats


def test_a_claimed_sweep_is_answered_after_the_replica_thinking_for_the_bot_is_killed(
    own_redis: RedisServer, clocked: tuple[ServerProcess, ServerProcess]
) -> None:
    """Scopa fidasse: ann claims a sweep; the replica thinking for bob's (a bot's) answer is
    SIGKILLed; another replica's sweeper answers, and the game goes on to its end with every
    move made once."""
    doomed = start_server(own_redis.url, env={**CLOCKED, "SCOPA_BOT_BUDGET_MS": "8000"})
    try:
        stub, channel = _stub(doomed)
        with channel:
            created = _fidasse(stub, bot="ismcts")
            token = tokens_of(created)[0]
            request = pb.TakeActionRequest(
                name=created.name, action=_claim(created.view), request_id=rid()
            )
            future = stub.TakeAction.future(request, metadata=auth(token), timeout=60)
            game = created.name.removeprefix("games/")
            # the claim is committed (version 2); the bot thinks 8 s over its answer
            killed = _kill_once_committed(doomed, own_redis.url, game, future)
    finally:
        stop_server(doomed)
    # Killed with the claim (version 2) pending: read from the store, as any replica's read
    # would take the bot's due answer itself.
    with redis.Redis.from_url(own_redis.url) as store:
        assert store.hget(game_key(game), "version") == b"2"
    (taken,) = _wait_for(lambda: _records(clocked, "overdue_taken", game), timeout_s=60)
    # The answer's deadline was the bot's thinking time plus the grace (9 s) after the claim.
    assert datetime.fromisoformat(taken["timestamp"]) > killed
    stubs = [_stub(server) for server in clocked]
    try:
        _play_on([s for s, _ in stubs], created, seed=3)
        final, events = _whole_log(stubs[1][0], created.name, token)
    finally:
        for _, channel in stubs:
            channel.close()
    answer = next(e for e in events if e.HasField("claim_answered"))
    assert answer.version == 3 and answer.claim_answered.seat == 1
    _assert_every_move_once(final, events)


def test_a_claimed_sweep_outlives_its_replica_and_the_clock_answers_it(
    own_redis: RedisServer, clocked: tuple[ServerProcess, ServerProcess]
) -> None:
    """Scopa fidasse with a 2 s turn clock: ann's claim is committed by a replica then SIGKILLed;
    bob's clock runs out on another replica (its timeout bot answers), and the people play on
    there to the game's end, answering later claims themselves, with every move made once."""
    doomed = start_server(own_redis.url, env=CLOCKED)
    try:
        stub, channel = _stub(doomed)
        with channel:
            created = _fidasse(stub, timeout_s=2)
            tokens = tokens_of(created)
            request = pb.TakeActionRequest(
                name=created.name, action=_claim(created.view), request_id=rid()
            )
            claimed = stub.TakeAction(request, metadata=auth(tokens[0]), timeout=30).view
            doomed.process.kill()
            doomed.process.wait()
    finally:
        stop_server(doomed)
    assert claimed.phase.kind == pb.PHASE_ANSWER_CLAIM and claimed.turn == 1
    game = created.name.removeprefix("games/")
    timed_out = _wait_for(
        lambda: [r for r in _records(clocked, "turn_timed_out", game) if r["seat"] == 1]
    )
    assert [(r["seat"], r["timeouts"]) for r in timed_out] == [(1, 1)]
    assert not _records((doomed,), "turn_timed_out", game)
    stubs = [_stub(server) for server in clocked]
    try:
        _play_on([s for s, _ in stubs], created, seed=5)
        final, events = _whole_log(stubs[1][0], created.name, tokens[0])
    finally:
        for _, channel in stubs:
            channel.close()
    first = [e for e in events if e.version == 3]
    assert [e.WhichOneof("kind") for e in first][:2] == ["turn_timed_out", "claim_answered"]
    assert first[1].claim_answered.seat == 1
    _assert_every_move_once(final, events)

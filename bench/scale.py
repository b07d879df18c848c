"""The store at scale: per-call server CPU with 100,000 games stored against 100, Redis bytes per
game, and the lobby left once every listed game has expired (issue 34).

One server (sweep interval ``--sweep-interval``) on a redis-server of its own. The run:

1. ``small``: ``--small`` open public games are created (CreateGame), then each measured call
   runs for ``--seconds`` at ``--conc``: ListGames page 20, ListGames page 100, PlayCard (on
   stacked two-seat games created beforehand, so that phase sends nothing but PlayCard) and
   GetState (seat 0 of those games);
2. the store is filled to ``--games``: active and finished games are copies (DUMP/RESTORE of
   its keys) of one active two-seat game (its first card played) and one finished one-hand
   game, both played through the server; then open public games are created through the
   server up to ``--public`` (their lobby entries and summaries written by the server);
3. ``large``: the same calls again;
4. no call at all until every listed game's waiting expiry (``--waiting-ttl``) has passed,
   plus two sweep intervals: the lobby's entries left are counted (ZCARD/HLEN of its keys).

Prints ``scale`` lines of ``key=value``: per phase and call the server's CPU per call
(``cpu_us_per_call``) and the store's round trips per call (EVALSHA and HMGET); the ratios
the issue asks for (page 100 / page 20 with the large store, large / small per call); Redis
bytes per active, finished and open public game (INFO used_memory over the games added); the
lobby entries left; and the in-process cost of a touch of the active-games gauge holding 100
and ``--games`` games. Compare figures of one run only (the machine's load moves them all).

    .venv/bin/python bench/scale.py [--games 100000] [--public 10000] [--small 100]
        [--seconds 5] [--conc 8] [--waiting-ttl 420] [--sweep-interval 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc.aio
import redis
import service_players as players
import service_procs as procs

from scopa.storage._index import lobby_keys
from scopa.storage._keys import events_key, game_key
from scopa.telemetry import ActiveGames
from scopa_client import bearer_metadata
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

__all__ = ["main"]

_START_TIMEOUT_S = 30.0
_RESTORE_BATCH = 500


@dataclass
class Measured:
    """One call's figures in one phase."""

    calls: int
    cpu_us_per_call: float
    roundtrips_per_call: float


class Bench:
    """The server, its Redis and a client of each."""

    def __init__(
        self,
        args: argparse.Namespace,
        stub: pb_grpc.GameServiceAsyncStub,
        pid: int,
        admin: redis.Redis[bytes],
    ):
        self.args = args
        self.stub = stub
        self.pid = pid
        self.admin = admin
        self.rng = random.Random(7)

    async def measure(self, worker: Callable[[float], Awaitable[int]]) -> Measured:
        """Run ``conc`` copies of ``worker`` for ``--seconds``: server CPU and round trips per
        call."""
        counters = procs.redis_counters(self.admin)
        cpu = procs.cpu_seconds(self.pid)
        deadline = time.monotonic() + self.args.seconds
        counts = await asyncio.gather(*(worker(deadline) for _ in range(self.args.conc)))
        spent = procs.cpu_seconds(self.pid) - cpu
        trips = procs.redis_counters(self.admin).roundtrips_since(counters)
        calls = max(1, sum(counts))
        return Measured(sum(counts), spent * 1e6 / calls, trips / calls)

    def list_worker(self, size: int) -> Callable[[float], Awaitable[int]]:
        async def worker(deadline: float) -> int:
            calls = 0
            while time.monotonic() < deadline:
                page = await self.stub.ListGames(pb.ListGamesRequest(page_size=size))
                if len(page.games) != size:
                    raise RuntimeError(f"a page of {size} held {len(page.games)} games")
                calls += 1
            return calls

        return worker

    async def public_games(self, count: int) -> None:
        """Create ``count`` open public two-seat games through the server."""
        queue = iter(range(count))

        async def worker() -> None:
            for _ in queue:
                seats = [pb.SeatSpec(display_name="host"), pb.SeatSpec(open=True)]
                request = pb.CreateGameRequest(
                    preset="scopa", seats=seats, public=True, request_id=uuid.uuid4().hex
                )
                await self.stub.CreateGame(request)

        await asyncio.gather(*(worker() for _ in range(16)))

    async def stacked_games(self, count: int) -> list[players.Game]:
        rec = players.Recorder()
        games: list[players.Game] = []
        while len(games) < count:
            game = await players.create_game(self.stub, rec, self.rng, 11, stacked=True)
            if game.mirror is not None:
                games.append(game)
        return games

    async def template_active(self) -> str:
        """A two-seat game in play: created, and its first card played (version 2)."""
        rec = players.Recorder()
        game = await players.create_game(self.stub, rec, self.rng, 11, stacked=False)
        got: pb.GetStateResponse = await self.stub.GetState(
            pb.GetStateRequest(name=game.name), metadata=game.seats[0]
        )
        seat = game.seats[got.view.turn]
        got = await self.stub.GetState(pb.GetStateRequest(name=game.name), metadata=seat)
        move = got.view.legal_moves[0]
        request = pb.PlayCardRequest(
            name=game.name,
            card=move.card,
            capture=pb.CaptureChoice(cards=move.capture),
            request_id=uuid.uuid4().hex,
        )
        await self.stub.PlayCard(request, metadata=seat)
        return game.name.removeprefix("games/")

    async def template_finished(self) -> str:
        seats = [pb.SeatSpec(display_name="north"), pb.SeatSpec(display_name="south")]
        request = pb.CreateGameRequest(
            preset="scopa",
            options={"target_score": pb.OptionValue(int_value=1)},
            seats=seats,
            request_id=uuid.uuid4().hex,
        )
        created: pb.CreateGameResponse = await self.stub.CreateGame(request)
        tokens = {c.seat: bearer_metadata(c.token) for c in created.credentials}
        turn = created.view.turn
        for _ in range(400):
            got: pb.GetStateResponse = await self.stub.GetState(
                pb.GetStateRequest(name=created.name), metadata=tokens[turn]
            )
            if got.view.status == pb.GAME_STATUS_FINISHED:
                return created.name.removeprefix("games/")
            move = self.rng.choice(got.view.legal_moves)
            played: pb.PlayCardResponse = await self.stub.PlayCard(
                pb.PlayCardRequest(
                    name=created.name,
                    card=move.card,
                    capture=pb.CaptureChoice(cards=move.capture),
                    request_id=uuid.uuid4().hex,
                ),
                metadata=tokens[turn],
            )
            if played.view.status == pb.GAME_STATUS_FINISHED:
                return created.name.removeprefix("games/")
            turn = played.view.turn
        raise RuntimeError("the one-hand game did not finish")

    def clone(self, template: str, count: int, tag: str) -> float:
        """``count`` copies of a game's keys; Redis bytes (used_memory) per copy."""
        keys = [game_key(template), events_key(template)]
        dumps = [(self.admin.dump(k), self.admin.pttl(k)) for k in keys]
        before = _used_memory(self.admin)
        for start in range(0, count, _RESTORE_BATCH):
            pipe = self.admin.pipeline(transaction=False)
            for i in range(start, min(count, start + _RESTORE_BATCH)):
                game_id = f"{tag}{i:06d}"
                for key, (payload, ttl) in zip(
                    (game_key(game_id), events_key(game_id)), dumps, strict=True
                ):
                    pipe.restore(key, max(ttl, 1), payload)
            pipe.execute()
        return (_used_memory(self.admin) - before) / max(1, count)


def _used_memory(client: redis.Redis[bytes]) -> int:
    return int(client.info("memory")["used_memory"])


def _line(phase: str, call: str, measured: Measured) -> str:
    return (
        f"scale phase={phase} call={call} calls={measured.calls} "
        f"cpu_us_per_call={measured.cpu_us_per_call:.0f} "
        f"redis_roundtrips_per_call={measured.roundtrips_per_call:.2f}"
    )


def _gauge_touch_us(games: int, touches: int = 20_000) -> float:
    """Microseconds per touch of the active-games gauge holding ``games`` recent games, each
    touched again oldest first (the front of the window fills with the games moved on)."""
    now = [0.0]
    active = ActiveGames(window_s=1e9, clock=lambda: now[0])
    ids = [f"g{i}" for i in range(games)]
    for game in ids:
        active.touch(game, False)
    start = time.perf_counter()
    for i in range(touches):
        now[0] += 1e-6
        active.touch(ids[i % games], False)
    return (time.perf_counter() - start) / touches * 1e6


def _lobby_left(client: redis.Redis[bytes]) -> int:
    """Entries left in every key of the lobby (its sets, per preset too, and its hashes)."""
    all_key, _, expiry, presets, summaries = lobby_keys("")
    left = client.zcard(all_key) + client.zcard(expiry)
    left += client.hlen(presets) + client.hlen(summaries)
    for key in client.scan_iter(match=lobby_keys("")[1] + "*", count=1000):
        left += client.zcard(key)
    return int(left)


async def _run(args: argparse.Namespace, server: procs.Proc, admin: redis.Redis[bytes]) -> None:
    async with grpc.aio.insecure_channel(f"{procs.HOST}:{server.port}") as channel:
        stub: pb_grpc.GameServiceAsyncStub = pb_grpc.GameServiceStub(channel)  # type: ignore[assignment]
        await procs.wait_until(
            server, _START_TIMEOUT_S, lambda: stub.ListRulesets(pb.ListRulesetsRequest())
        )
        bench = Bench(args, stub, server.process.pid, admin)
        started = time.monotonic()
        await bench.public_games(args.small)
        small = await _phase(bench, "small")
        active_id = await bench.template_active()
        finished_id = await bench.template_finished()
        others = max(0, args.games - args.public - int(admin.dbsize()) // 2)
        per_active = bench.clone(active_id, others // 2, "a")
        per_finished = bench.clone(finished_id, others - others // 2, "f")
        before = _used_memory(admin)
        added = max(0, args.public - args.small)
        await bench.public_games(added)
        per_public = (_used_memory(admin) - before) / max(1, added)
        large = await _phase(bench, "large")
        if time.monotonic() - started > args.waiting_ttl:
            print("scale warning=listed games expired before the large phase ended", flush=True)
        ratios = {
            "listgames_page100_over_page20": _ratio(large["page100"], large["page20"]),
            "listgames_page20_large_over_small": _ratio(large["page20"], small["page20"]),
            "listgames_page100_large_over_small": _ratio(large["page100"], small["page100"]),
            "playcard_large_over_small": _ratio(large["play"], small["play"]),
            "getstate_large_over_small": _ratio(large["get"], small["get"]),
        }
        print("scale ratios " + " ".join(f"{k}={v:.2f}" for k, v in ratios.items()), flush=True)
        print(
            f"scale memory redis_bytes_per_active_game={per_active:.0f} "
            f"redis_bytes_per_finished_game={per_finished:.0f} "
            f"redis_bytes_per_public_game={per_public:.0f}",
            flush=True,
        )
        # No call from here on: the sweepers alone must empty the lobby.
        last = admin.zrange(lobby_keys("")[2], -1, -1, withscores=True)
        expires_s = (last[0][1] / 1000) if last else time.time()
        wait = max(0.0, expires_s - time.time()) + 2 * args.sweep_interval + 0.5
        await asyncio.sleep(wait)
        print(f"scale lobby entries_left={_lobby_left(admin)} waited_s={wait:.0f}", flush=True)


async def _phase(bench: Bench, name: str) -> dict[str, Measured]:
    figures: dict[str, Measured] = {}
    stored = bench.admin.dbsize()
    listed = bench.admin.zcard(lobby_keys("")[0])
    print(f"scale phase={name} redis_keys={stored} lobby_entries={listed}", flush=True)
    for size in (20, 100):
        figures[f"page{size}"] = measured = await bench.measure(bench.list_worker(size))
        print(_line(name, f"ListGames_page{size}", measured), flush=True)
    play, get = await _play_and_get(bench)
    figures["play"], figures["get"] = play, get
    print(_line(name, "PlayCard", play), flush=True)
    print(_line(name, "GetState", get), flush=True)
    return figures


async def _play_and_get(bench: Bench) -> tuple[Measured, Measured]:
    """PlayCard then GetState, on stacked two-seat games made for them beforehand."""
    args = bench.args
    wanted = max(args.conc * 2, int(args.seconds * 60))  # ~36 plays a game: never runs out
    games = await bench.stacked_games(wanted)
    pool = players.Pools(fresh=list(games))
    created = [0]

    async def play(deadline: float) -> int:
        rec = players.Recorder()  # one per worker: each returns its own calls
        await players.play_stacked(bench.stub, rec, pool, bench.rng, 11, deadline)
        created[0] += rec.calls("CreateGame")
        return rec.calls("PlayCard")

    async def get(deadline: float) -> int:
        inner = players.Recorder()
        await players.get_worker(
            bench.stub, inner, games, bench.rng.randrange(len(games)), deadline
        )
        return inner.calls("GetState")

    played = await bench.measure(play)
    if created[0]:
        raise RuntimeError("the PlayCard phase ran out of prepared games")
    return played, await bench.measure(get)


def _ratio(value: Measured, base: Measured) -> float:
    return value.cpu_us_per_call / base.cpu_us_per_call if base.cpu_us_per_call else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games stored in all")
    parser.add_argument("--public", type=int, default=10_000, help="open public games of them")
    parser.add_argument("--small", type=int, default=100, help="open public games, small store")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    parser.add_argument("--conc", type=int, default=8, help="calls in flight")
    parser.add_argument("--waiting-ttl", type=int, default=420, help="SCOPA_WAITING_TTL_S")
    parser.add_argument("--sweep-interval", type=float, default=1.0, help="sweep interval, s")
    args = parser.parse_args(argv)
    if args.small < 100 or args.public < args.small:
        parser.error("--small must be at least 100 (a full page) and --public at least --small")
    print(
        f"scale games={args.games} public={args.public} small={args.small} "
        f"seconds={args.seconds} conc={args.conc} waiting_ttl={args.waiting_ttl} "
        f"sweep_interval={args.sweep_interval} load={os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print(
        f"scale gauge touch_us_100={_gauge_touch_us(100):.2f} "
        f"touch_us_{args.games}={_gauge_touch_us(args.games):.2f}",
        flush=True,
    )
    workdir = procs.make_workdir()
    redis_proc = procs.start_redis()
    port, http_port = procs.free_port(), procs.free_port()
    env = procs.server_env(port, http_port, f"redis://{procs.HOST}:{redis_proc.port}/0")
    env.update(
        SCOPA_WAITING_TTL_S=str(args.waiting_ttl),
        SCOPA_SWEEP_INTERVAL_S=str(args.sweep_interval),
        SCOPA_LOG_LEVEL="warning",
    )
    server = procs.start_python("server", ["-m", "scopa.server"], env, workdir, port)
    admin: redis.Redis[bytes] = redis.Redis(host=procs.HOST, port=redis_proc.port)
    try:
        asyncio.run(_run(args, server, admin))
    finally:
        admin.close()
        procs.stop(server)
        procs.stop(redis_proc)
    print(f"scale done load={os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

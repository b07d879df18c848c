"""Benchmark of the scopa gRPC service on real Redis, against a floor measured in the same run.

Starts a throwaway redis-server and ``python -m scopa.server`` (tracing on, JSON logs to a file),
both on 127.0.0.1, then runs ``--conc`` client tasks, each driving one two-seat game at a time
(so ``conc`` RPCs are in flight), in phases:

* ``create``: CreateGame only (games with a stacked deck, kept for the next phases);
* ``get``: GetState only, on those games (gRPC, then REST and Connect: ``get_rest``,
  ``get_connect``);
* ``play``: PlayCard only, random legal moves computed by a local engine mirror of each game;
* ``games``: full games as a client plays them: CreateGame, then GetState + PlayCard per turn.

The floor (``bench/_floor.py``: a bare grpc.aio unary call doing one HMGET and one EVALSHA of a
tiny CAS script on the same Redis, with PlayCard's payload sizes) is driven at the same concurrency
in rounds that alternate with the ``play`` rounds (3 each), so background noise on the machine
hits both sides of ``ratio_vs_floor`` alike. Run from the repository root::

    .venv/bin/python bench/service.py [--seconds 10] [--conc 64] [--profile server.prof]
        [--py-spy DIR] [--redis standalone|cluster]

Profiling. ``--py-spy DIR`` samples the server process with py-spy (a dev dependency) during the
first PlayCard-only round of each protocol, REST and Connect GetState (and with ``--late`` the
first early and late rounds) and writes ``DIR/play-<proto>.txt`` and ``DIR/get-<proto>.txt``
(``play-early.txt``, ``play-late.txt``; py-spy's raw collapsed stacks); ``bench/profile.py
DIR/play-*.txt`` prints the breakdown by component. That
is the same as running, while the round runs::

    py-spy record --pid <server pid> --format raw --rate 200 --full-filenames -o play-rest.txt

py-spy pauses the server for each sample (without ``--nonblocking``: that mode misplaces
samples) and takes CPU from the same two cores, so quote figures from runs without it.
``--profile`` runs the whole server under cProfile instead (deterministic, much slower).
``bench/callgrind.py --proto grpc|rest|connect [--floor]`` counts the server's instructions
per PlayCard (or floor call) under callgrind: the load-independent figure (bench/README.md).

``--server-path PATHS`` starts the server with ``PYTHONPATH=PATHS`` (the bench and its clients keep
this process's): another tree's server measured by this tree's bench, as ``bench/compare.py REF``
does, alternating with this tree's.

``--anchor [NAME]`` runs that anchor (``bench/anchor.py``; boardgame.io by default) before and
after the phases and adds ``vs_<anchor>=`` (our server CPU per call over the mean of its two
runs' CPU per move) to the isolated PlayCard and GetState lines. ``--late [HANDS]`` adds gRPC
PlayCard in hand HANDS + 1 (10 by default) of games to 61 (``phase=late``) in rounds alternating
with their first hand (``phase=early``), and ``vs_start=`` (late over early) on the late line.

``--redis cluster`` runs the same phases (server and floor alike) on a local 3-primary Redis
Cluster; the Redis counters are summed over its primaries.

Output (``key=value`` lines): an ``env`` line, one ``rpc=<name> conc=<n> calls_per_s=<n> p50_ms=<x>
p99_ms=<x> cpu_us_per_call=<x> redis_cmds_per_call=<x> phase=<phase> ...`` line per RPC
and phase, ``redis_bytes_per_game=<n>`` (a finished 2-player game, every request carrying a
request_id as the default client sends), the floor's ``rpc=floor`` line and ``ratio_vs_floor``
on the ``phase=play`` PlayCard line (PlayCard-only calls/s over floor calls/s). Every RPC line
has ``p99_over_p50`` (its tail), the PlayCard lines ``p50_ms_<place>`` and ``p99_ms_<place>``
(``first``, ``mid``, ``last``: the moves at that place in their game); the isolated PlayCard
and GetState lines (each protocol against its own stack's floor) have ``cpu_ratio_vs_floor``:
server CPU per call over the floor's, the figure the performance goals are set in. A
``runtime=play proto=grpc`` line says where calls waited inside the server during the gRPC
PlayCard rounds, from the server's ``SCOPA_RUNTIME_STATS_S=1`` log lines: event-loop lag (median
and worst per-second p50/p99 of a 10 ms probe, and the longest) and GC collections by generation
(count, total and longest pause).

Attribution. ``calls_per_s``, ``p50_ms`` and ``p99_ms`` are client-side per RPC.
``cpu_us_per_call`` is the server process's CPU time (``/proc/<pid>/stat`` utime+stime) during the
phase divided by every call of the phase: exact per RPC in the single-RPC phases (``create``,
``get``, ``play``; the few CreateGame calls of ``play`` when prepared games run out are charged to
PlayCard, see ``extra_creates``), and the same mixed average on every line of ``games``
(``cpu_attrib=phase_avg``); ``cpu_sys_us_per_call`` is its stime part (the kernel's), divided
the same way. ``redis_cmds_per_call`` comes from ``INFO commandstats`` deltas
(commands run inside Lua scripts included; ``redis_roundtrips_per_call`` counts only those sent
over the wire), attributed the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _floor
import anchor as anchors
import grpc
import grpc.aio
import service_http as http_clients
import service_players as players
import service_procs as procs
import service_report as report
from service_report import PhaseResult

from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

_START_TIMEOUT_S = 20.0
_FINISHED_SAMPLE = 4
_ROUNDS = 3
_LATE_PREPARE_S = 300.0
"""The longest the ``late`` phase's games take to prepare before the phase runs with fewer."""


class Bench:
    """Measures phases: client tasks against a server process and its Redis."""

    def __init__(self, conc: int, server: procs.Proc, store: procs.BenchRedis) -> None:
        self.conc = conc
        self.server = server
        self.redis = store

    async def phase(
        self,
        name: str,
        worker: Callable[[players.Recorder, int, float], Coroutine[Any, Any, None]],
        seconds: float,
        spy: Path | None = None,
    ) -> PhaseResult:
        """Run ``conc`` copies of ``worker(rec, index, deadline)`` for ``seconds``.

        ``spy``: sample the server with py-spy meanwhile, raw collapsed stacks to this file.
        """
        rec = players.Recorder()
        pid = self.server.process.pid
        sampler = procs.start_py_spy(pid, spy) if spy is not None else None
        (user0, sys0), red0 = procs.cpu_times(pid), self.redis.counters()
        client0 = time.process_time()
        wall0 = time.time()
        start = time.perf_counter()
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(worker(rec, i, deadline) for i in range(self.conc)))
        elapsed = time.perf_counter() - start
        client_cpu = time.process_time() - client0
        (user1, sys1), red1 = procs.cpu_times(pid), self.redis.counters()
        if sampler is not None:
            procs.stop_py_spy(sampler)
        return PhaseResult(
            name,
            rec,
            elapsed,
            user1 + sys1 - user0 - sys0,
            client_cpu,
            red1.commands_since(red0),
            red1.roundtrips_since(red0),
            ((wall0, time.time()),),
            sys1 - sys0,
        )


@dataclass(frozen=True)
class Args:
    """Command-line settings."""

    seconds: float
    conc: int
    target: int
    profile: Path | None
    tracing: bool
    seed: int
    redis: str
    py_spy: Path | None = None
    server_path: str | None = None
    """``PYTHONPATH`` of the server process only (``--server-path``); None: this process's."""
    anchor: str | None = None
    """The anchor run before and after the phases (``--anchor``), or None."""
    anchor_matches: int = 16
    late_hands: int = 0
    """``--late``: the hands played before the ``late`` phase's PlayCard (0: no such phase)."""


def _parse(argv: Sequence[str] | None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="play/games/floor phase length")
    parser.add_argument("--conc", type=int, default=64, help="client tasks (RPCs in flight)")
    parser.add_argument("--target", type=int, default=1, help="target_score of the games")
    parser.add_argument("--profile", type=Path, help="run the server under cProfile, write here")
    parser.add_argument(
        "--py-spy",
        type=Path,
        metavar="DIR",
        help="sample the server with py-spy in each protocol's first PlayCard round, into DIR",
    )
    parser.add_argument("--tracing", choices=("on", "off"), default="on")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--redis",
        choices=procs.REDIS_MODES,
        default="standalone",
        help="one redis-server, or a local 3-primary Redis Cluster",
    )
    parser.add_argument(
        "--server-path",
        metavar="PATHS",
        help="PYTHONPATH of the server process only (e.g. another tree's service and client)",
    )
    parser.add_argument(
        "--anchor",
        nargs="?",
        const="boardgame.io",
        metavar="NAME",
        help="run this anchor (default boardgame.io) before and after; print vs_<anchor>= ratios",
    )
    parser.add_argument("--anchor-matches", type=int, default=16, help="the anchor's matches")
    parser.add_argument(
        "--late",
        nargs="?",
        type=int,
        const=10,
        default=0,
        metavar="HANDS",
        help="PlayCard after HANDS hands (default 10) of games to 61, against their first hand",
    )
    ns = parser.parse_args(argv)
    if ns.anchor is not None and not anchors.script(ns.anchor).exists():
        parser.error(f"--anchor: one of {', '.join(anchors.ANCHORS)}, or an anchor's run.sh")
    if ns.late < 0 or ns.anchor_matches <= 0:
        parser.error("--late and --anchor-matches must not be negative")
    if ns.seconds <= 0 or ns.conc <= 0 or ns.target <= 0:
        parser.error("--seconds, --conc and --target must be positive")
    if ns.py_spy is not None:
        ns.py_spy.mkdir(parents=True, exist_ok=True)
    return Args(
        ns.seconds,
        ns.conc,
        ns.target,
        ns.profile,
        ns.tracing == "on",
        ns.seed,
        ns.redis,
        ns.py_spy,
        ns.server_path,
        ns.anchor,
        ns.anchor_matches,
        ns.late,
    )


def _mean_size(rec: players.Recorder, key: str, default: int) -> int:
    sizes = rec.sizes.get(key)
    return round(statistics.fmean(sizes)) if sizes else default


@dataclass
class Run:
    """The processes and shared state of one benchmark run."""

    args: Args
    workdir: Path
    store: procs.BenchRedis
    http_port: int
    started: list[procs.Proc]
    floor_sizes: dict[str, int]


FloorRound = Callable[[float], Coroutine[Any, Any, PhaseResult]]


async def _start_floor(
    run: Run, create: PhaseResult, play: PhaseResult, pools: players.Pools, stack: str
) -> tuple[FloorRound, Callable[[], Awaitable[None]]]:
    """Start the ``stack`` floor with PlayCard's payload sizes; return a runner and a closer."""
    args = run.args
    names = [g.name for g in pools.fresh] or pools.finished_stacked
    state_bytes = run.floor_sizes.get("state") or report.state_bytes(run.store.client, names)
    request_bytes = _mean_size(play.rec, players.request_size_key("PlayCard"), 40)
    request_bytes += _mean_size(create.rec, "token", 60)
    response_bytes = _mean_size(play.rec, players.response_size_key("PlayCard"), 600)
    run.floor_sizes.update(request=request_bytes, response=response_bytes, state=state_bytes)
    port = procs.free_port()
    floor_args = [
        str(Path(__file__).with_name("_floor.py")),
        "--stack", stack,
        "--port", str(port),
        "--redis-url", run.store.url,
        "--state-bytes", str(state_bytes),
        "--response-bytes", str(response_bytes),
    ]  # fmt: skip
    floor = procs.start_python(f"floor-{stack}", floor_args, {}, run.workdir, port)
    run.started.append(floor)
    for i in range(args.conc):
        run.store.client.hset(
            _floor.floor_key(i), mapping={"state": b"s" * state_bytes, "meta": b"m", "version": 0}
        )
    bench = Bench(args.conc, floor, run.store)
    if stack == "grpc":
        channel = grpc.aio.insecure_channel(floor.target)
        ready = channel.unary_unary(_floor.METHOD)
        await procs.wait_until(
            floor, _START_TIMEOUT_S, lambda: ready(_floor.encode_request(0, 8), timeout=1.0)
        )

        async def call(rec: players.Recorder, i: int, deadline: float) -> None:
            await players.floor_worker(channel, rec, i, request_bytes, deadline)

        close: Callable[[], Awaitable[None]] = channel.close
    else:
        http = _http_client(floor.port, args.conc)
        await procs.wait_until(floor, _START_TIMEOUT_S, lambda: http.get("/"))

        async def call(rec: players.Recorder, i: int, deadline: float) -> None:
            await http_clients.floor_http_worker(http, stack, rec, i, request_bytes, deadline)

        close = http.aclose

    async def measured(seconds: float) -> PhaseResult:
        return await bench.phase("floor", call, seconds)

    await bench.phase("warmup", call, min(1.0, args.seconds / 5))
    return measured, close


def _http_client(port: int, conc: int) -> http_clients.Http:
    return http_clients.Http(f"http://{procs.HOST}:{port}", conc)


async def _phases(
    run: Run, server: procs.Proc
) -> tuple[list[PhaseResult], dict[str, tuple[PhaseResult, PhaseResult]], players.Pools]:
    """Every measured phase; PlayCard-only and floor rounds alternate so noise hits both."""
    args = run.args
    channel = grpc.aio.insecure_channel(server.target)
    stub: pb_grpc.GameServiceAsyncStub = pb_grpc.GameServiceStub(channel)  # type: ignore[assignment]
    await procs.wait_until(
        server, _START_TIMEOUT_S, lambda: stub.ListRulesets(pb.ListRulesetsRequest(), timeout=1.0)
    )
    bench = Bench(args.conc, server, run.store)
    pools = players.Pools()
    rngs = [random.Random(args.seed * 1_000_003 + i) for i in range(args.conc)]
    short = max(1.0, args.seconds * 0.3)

    async def warm(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.games_worker(stub, rec, players.Pools(), rngs[i], args.target, deadline)

    async def create(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.create_worker(stub, rec, pools, rngs[i], args.target, deadline)

    async def get(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.get_worker(stub, rec, created, i * 7, deadline)

    def get_over(proto: str) -> Callable[[players.Recorder, int, float], Coroutine[Any, Any, None]]:
        async def worker(rec: players.Recorder, i: int, deadline: float) -> None:
            await players.get_worker(stubs[proto], rec, created, i * 7, deadline)

        return worker

    async def play(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.play_stacked(stub, rec, pools, rngs[i], args.target, deadline)

    async def games(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.games_worker(stub, rec, pools, rngs[i], args.target, deadline)

    await bench.phase("warmup", warm, min(1.0, args.seconds / 5))
    results = [await bench.phase("create", create, short)]
    created = list(pools.fresh)
    results.append(await bench.phase("get", get, short))
    round_s = args.seconds / _ROUNDS
    http = _http_client(run.http_port, args.conc)
    stubs: dict[str, Any] = {
        "grpc": stub,
        "rest": http_clients.HttpStub(http, "rest"),
        "connect": http_clients.HttpStub(http, "connect"),
    }
    for proto in ("rest", "connect"):  # GetState over the HTTP port, on the same games
        await bench.phase("warmup", get_over(proto), min(1.0, args.seconds / 5))
        spy = None if args.py_spy is None else args.py_spy / f"get-{proto}.txt"
        results.append(await bench.phase(f"get_{proto}", get_over(proto), short, spy))

    def play_over(
        proto: str,
    ) -> Callable[[players.Recorder, int, float], Coroutine[Any, Any, None]]:
        async def worker(rec: players.Recorder, i: int, deadline: float) -> None:
            await players.play_stacked(stubs[proto], rec, pools, rngs[i], args.target, deadline)

        return worker

    first_play = await bench.phase("play", play, round_s)
    play_parts: dict[str, list[PhaseResult]] = {p: [] for p in report.PROTOCOLS}
    floor_parts: dict[str, list[PhaseResult]] = {p: [] for p in report.PROTOCOLS}
    floors = {}
    for proto in report.PROTOCOLS:
        floors[proto] = await _start_floor(run, results[0], first_play, pools, proto)
        await bench.phase("warmup", play_over(proto), min(1.0, args.seconds / 5))
    for round_index in range(_ROUNDS):
        for proto in report.PROTOCOLS:
            while len(pools.fresh) < 4 * args.conc:
                # Unmeasured gRPC creates, so that no protocol's PlayCard phase pays for
                # CreateGame with a stacked deck (its JSON is 40 cards).
                await bench.phase("refill", create, 1.0)
            spy = None
            if args.py_spy is not None and round_index == 0:
                spy = args.py_spy / f"play-{proto}.txt"
            play_parts[proto].append(await bench.phase("play", play_over(proto), round_s, spy))
            floor_parts[proto].append(await floors[proto][0](round_s))
    for _round, close in floors.values():
        await close()
    await http.aclose()
    results.append(report.merge(play_parts["grpc"]))
    if args.late_hands:
        results += await _late_phases(bench, stub, args, rngs, play_parts["grpc"][0])
    results.append(await bench.phase("games", games, args.seconds))
    if len(pools.finished) + len(pools.finished_stacked) < _FINISHED_SAMPLE:
        # Short runs end before games do: finish a few, unmeasured, for redis_bytes_per_game.
        deadline = time.monotonic() + _START_TIMEOUT_S
        await asyncio.gather(
            *(
                players.play_stacked(
                    stub,
                    players.Recorder(),
                    pools,
                    rngs[i % len(rngs)],
                    args.target,
                    deadline,
                    stop_after_first=True,
                )
                for i in range(_FINISHED_SAMPLE)
            )
        )
    await channel.close()
    by_proto = {
        p: (report.merge(play_parts[p]), report.merge(floor_parts[p])) for p in report.PROTOCOLS
    }
    return results, by_proto, pools


async def _late_phases(
    bench: Bench,
    stub: pb_grpc.GameServiceAsyncStub,
    args: Args,
    rngs: Sequence[random.Random],
    first_round: PhaseResult,
) -> list[PhaseResult]:
    """gRPC PlayCard in the first hand of games to 61 (``early``) and after ``late_hands`` hands
    of such games (``late``), in alternating rounds."""
    round_s = args.seconds / _ROUNDS
    calls_per_round = first_round.rec.calls("PlayCard") * round_s / max(first_round.elapsed_s, 1e-9)
    # A hand of 2-player scopa is 36 plays; a third more games than one round can use.
    wanted = _ROUNDS * int(calls_per_round * 1.33 / 36 + 1)
    late: list[players.Game] = []
    early = players.Pools()

    async def prepare(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.prepare_late(stub, rec, late, rngs[i], args.late_hands, deadline, wanted)

    async def refill(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.create_worker(stub, rec, early, rngs[i], players.LATE_TARGET, deadline)

    async def play_early(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.play_stacked(stub, rec, early, rngs[i], players.LATE_TARGET, deadline)

    # One phase: a game takes hundreds of plays, more than a short phase gives a worker.
    await bench.phase("prepare", prepare, _LATE_PREPARE_S)
    print(f"# late: {len(late)} games prepared ({wanted} wanted)", file=sys.stderr)
    late_parts, early_parts = [], []
    per_round = len(late) // _ROUNDS
    for round_index in range(_ROUNDS):
        while len(early.fresh) < 4 * args.conc:
            await bench.phase("refill", refill, 1.0)
        spies: tuple[Path | None, Path | None] = (None, None)
        if args.py_spy is not None and round_index == 0:
            spies = (args.py_spy / "play-early.txt", args.py_spy / "play-late.txt")
        early_parts.append(await bench.phase("early", play_early, round_s, spies[0]))
        batch, late[:] = late[:per_round], late[per_round:]
        late_parts.append(await _late_round(bench, stub, batch, rngs, round_s, spies[1]))
    return [report.merge(early_parts), report.merge(late_parts)]


async def _late_round(
    bench: Bench,
    stub: pb_grpc.GameServiceAsyncStub,
    batch: list[players.Game],
    rngs: Sequence[random.Random],
    seconds: float,
    spy: Path | None,
) -> PhaseResult:
    """One ``late`` round on its own share of the prepared games."""

    async def worker(rec: players.Recorder, i: int, deadline: float) -> None:
        await players.play_late(stub, rec, batch, rngs[i], deadline)

    return await bench.phase("late", worker, seconds, spy)


def run(args: Args) -> list[str]:
    """Run every phase, between the anchor's runs if any; return the lines after the env line."""
    before = _anchor_run(args)
    lines = _run_ours(args, before)
    after = _anchor_run(args)
    if before is None or after is None:
        return lines
    # The ratios use the mean of both anchor runs: rewrite the lines that carry one.
    mean = anchors.mean_cpu((before, after))
    key = f"vs_{anchors.SHORT.get(before.name, before.name)}"
    out = [before.line("before"), after.line("after")]
    out += [report.with_ratio(text, key, mean) for text in lines]
    return out


def _anchor_run(args: Args) -> anchors.AnchorRun | None:
    if args.anchor is None:
        return None
    return anchors.run(args.anchor, args.anchor_matches, args.seconds)


def _run_ours(args: Args, anchor: anchors.AnchorRun | None) -> list[str]:
    """Our server's phases and their lines (with a ratio placeholder when an anchor runs)."""
    workdir = procs.make_workdir()
    started: list[procs.Proc] = []
    store = procs.start_redis_mode(args.redis)
    try:
        server_args = ["-m", "scopa.server"]
        if args.profile is not None:
            server_args = ["-m", "cProfile", "-o", str(args.profile.resolve()), *server_args]
        port, http_port = procs.free_port(), procs.free_port()
        # A runtime line (event-loop lag, GC pauses) a second, read back for the runtime line.
        env = procs.server_env(
            port,
            http_port,
            store.url,
            tracing=args.tracing,
            runtime_stats_s=report.RUNTIME_INTERVAL_S,
        )
        if args.server_path is not None:
            env["PYTHONPATH"] = args.server_path
        server = procs.start_python("server", server_args, env, workdir, port)
        started.append(server)
        state = Run(args, workdir, store, http_port, started, {})
        results, by_proto, pools = asyncio.run(_phases(state, server))
        code = procs.stop(server)
        if code != 0:
            print(f"# warning: server exited with {code}; see {server.log_path}", file=sys.stderr)
        finished = pools.finished or pools.finished_stacked
        lines = report.report(args.conc, args.late_hands, results, by_proto, anchor is not None)
        lines.append(report.runtime_line(server.log_path, by_proto["grpc"][0].windows))
        lines.append(
            report.line(redis_bytes_per_game=round(report.game_bytes(store.client, finished)))
        )
        lines.append(
            report.line(
                payload_bytes="floor",
                **state.floor_sizes,
                finished_games=len(pools.finished),
                workdir=workdir,
            )
        )
        return lines
    finally:
        for proc in reversed(started):
            procs.stop(proc)
        store.close()


def _env_line(args: Args) -> str:
    return report.line(
        env="bench/service.py",
        python=platform.python_version(),
        grpc=grpc.__version__,
        cpus=os.cpu_count(),
        conc=args.conc,
        seconds=args.seconds,
        preset="scopa",
        players=2,
        target_score=args.target,
        redis=args.redis,
        tracing="on" if args.tracing else "off",
        log="json-file",
        profile=args.profile or "off",
        py_spy=args.py_spy or "off",
        server_path=args.server_path or "same",
        anchor=args.anchor or "off",
        late_hands=args.late_hands,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its lines."""
    args = _parse(argv)
    print(_env_line(args), flush=True)
    for line in run(args):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

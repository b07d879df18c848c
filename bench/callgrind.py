"""Instructions per PlayCard (and per floor call) of the server process, under callgrind.

Load-independent companion of ``bench/service.py``: the machine's load moves CPU-time figures by
10-30%, instruction counts by a per cent or two. Starts a throwaway redis-server and the server
(``python -m scopa.server``, the bench's environment: tracing on, JSON access log to a file)
under ``valgrind --tool=callgrind --instr-atstart=no``, creates games with stacked decks over
gRPC, plays ``--warmup`` PlayCards over ``--proto`` unmeasured, then counts the instructions of
exactly ``--calls`` PlayCards at ``--conc`` calls in flight (``callgrind_control -z``, ``-i on``,
the calls, ``-i off``, ``-d``). ``--floor`` does the same for that protocol's floor
(``bench/_floor.py``: HMGET + Lua CAS behind a bare endpoint of the same stack), and
``--rpc getstate`` for GetState of the unchanged games (seat 0's view, round robin)::

    .venv/bin/python bench/callgrind.py --proto rest [--calls 200] [--conc 8] [--out DIR]
    .venv/bin/python bench/callgrind.py --proto rest --floor
    .venv/bin/python bench/callgrind.py --proto rest --rpc getstate
    .venv/bin/python bench/callgrind.py --proto session [--calls 200] [--conc 8]

``--proto session`` counts a realtime move instead: ``--conc`` games whose two seats each hold a
WebSocket session with view patches and play closed loop (``bench/sessions.py``'s seats), every
seat's update included, per move acknowledged.

Output: one ``callgrind proto=<p> target=playcard|getstate|floor|move calls=<n> instr_per_call=<n>``
line; the dump stays in ``--out`` (default: a temporary directory) for ``callgrind_annotate``.
Counts are user-space instructions of every thread of the process (no kernel time), so a ratio
to the floor is higher than the CPU-time ratio, whose floor is mostly system calls.

``--syscalls`` runs the process at full speed instead and attaches ``perf stat`` (as root, or
with ``kernel.perf_event_paranoid`` at -1) for the same counted calls: ``syscalls proto=<p> ...
syscalls_per_call=<x> context_switches_per_call=<x> cpu_us_per_call=<x>``, every thread.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import _floor
import grpc.aio
import httpx
import service_http as http_clients
import service_players as players
import service_procs as procs

from scopa import rules
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

__all__ = ["main"]

_START_TIMEOUT_S = 600.0
_FLOOR_SIZES = {"request": 174, "response": 1441, "state": 560}
"""The floor's payload sizes: a PlayCard request with its token, a response and a state blob."""


class Callgrind:
    """Counts the user-space instructions of every thread under callgrind."""

    def wrapper(self, out: Path, name: str) -> list[str]:
        """The command that runs a python child under callgrind, counting nothing until told."""
        return [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}/{name}.%p",
        ]

    async def count(
        self, pid: int, run: Callable[[], Awaitable[None]], out: Path, name: str
    ) -> None:
        """Count what the process does while ``run`` runs, then dump it."""
        _control(pid, "-z")
        _control(pid, "-i", "on")
        try:
            await run()
        finally:
            _control(pid, "-i", "off")
            _control(pid, "-d")

    def totals(self, out: Path, name: str, pid: int) -> dict[str, float]:
        """The instructions of the last dump."""
        dumps = sorted(out.glob(f"{name}.{pid}.*"), key=lambda p: p.stat().st_mtime)
        if not dumps:
            raise RuntimeError(f"no callgrind dump of {name} in {out}")
        for line in dumps[-1].read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                return {"instr": int(line.split()[1])}
        raise RuntimeError(f"no totals in {dumps[-1]}")


class PerfStat:
    """``--syscalls``: counts system calls, context switches and CPU time of every thread with
    ``perf stat`` attached for the counted calls (the process runs at full speed)."""

    EVENTS = {
        "raw_syscalls:sys_enter": "syscalls",
        "context-switches": "context_switches",
        "task-clock": "cpu_ms",
    }

    def wrapper(self, out: Path, name: str) -> list[str]:
        """No wrapper: perf attaches to the running process."""
        return []

    async def count(
        self, pid: int, run: Callable[[], Awaitable[None]], out: Path, name: str
    ) -> None:
        """Count while ``run`` runs (perf stat -p, stopped by SIGINT)."""
        events = ",".join(self.EVENTS)
        perf = subprocess.Popen(
            ["perf", "stat", "-x", ",", "-e", events, "-p", str(pid), "-o", f"{out}/{name}.perf"]
        )
        await asyncio.sleep(0.5)  # attached before the first counted call
        try:
            await run()
        finally:
            perf.send_signal(signal.SIGINT)
            perf.wait()

    def totals(self, out: Path, name: str, pid: int) -> dict[str, float]:
        """Each event's count (CSV lines: value,unit,event,...)."""
        counts: dict[str, float] = {}
        for line in (out / f"{name}.perf").read_text().splitlines():
            parts = line.split(",")
            if len(parts) > 2 and parts[2] in self.EVENTS and parts[0][:1].isdigit():
                counts[self.EVENTS[parts[2]]] = float(parts[0])
        missing = [e for e, key in self.EVENTS.items() if key not in counts]
        if missing:
            raise RuntimeError(f"perf stat counted no {missing} (root, or perf_event_paranoid)")
        return counts


Counter = Callgrind | PerfStat


def _start(
    name: str, args: Sequence[str], env: dict[str, str], out: Path, port: int, counter: Counter
) -> procs.Proc:
    return procs.start_python(name, args, env, out, port, wrapper=counter.wrapper(out, name))


async def _wait_until(proc: procs.Proc, probe: Callable[[], Awaitable[object]]) -> None:
    """Under valgrind a start takes minutes, and a probe may fail any way until it answers."""
    await procs.wait_until(proc, _START_TIMEOUT_S, probe, interval_s=1.0, retry_on=(Exception,))


def _counter(args: argparse.Namespace) -> Counter:
    counter: Counter = args.counter
    return counter


def _control(pid: int, *flags: str) -> None:
    subprocess.run(["callgrind_control", *flags, str(pid)], check=True, capture_output=True)


class _Budget:
    def __init__(self, calls: int) -> None:
        self.left = calls

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


async def _play(stub: Any, games: list[players.Game], budget: _Budget, rng: random.Random) -> None:
    """PlayCard random legal moves of a mirrored game until the budget is spent."""
    while games:
        game = games.pop()
        state = game.mirror
        assert state is not None
        while not state.finished:
            if not budget.take():
                games.append(game)  # unfinished: the next run goes on with it
                game.mirror = state
                return
            seat = state.turn
            move = rng.choice(rules.legal_moves(state))
            cards = [players.pb_card(c) for c in move.capture or ()]
            request = pb.PlayCardRequest(
                name=game.name,
                card=players.pb_card(move.card),
                capture=pb.CaptureChoice(cards=cards),
                request_id=uuid.uuid4().hex,
            )
            await stub.PlayCard(request, metadata=game.seats[seat])
            try:
                state, _events = rules.apply_move(state, seat, move)
            except rules.InvalidDeck:
                break  # a tie after the stacked hand: the server shuffled a deck we cannot know
    raise RuntimeError("out of games: raise --games")


async def _get(stub: Any, games: list[players.Game], budget: _Budget, rng: random.Random) -> None:
    """GetState of seat 0's view of ``games`` (unchanged between calls) until the budget is
    spent, from a random one on, round robin."""
    index = rng.randrange(len(games))
    while budget.take():
        game = games[index % len(games)]
        index += 1
        await stub.GetState(pb.GetStateRequest(name=game.name), metadata=game.seats[0])


async def _server_run(
    args: argparse.Namespace, out: Path, store: procs.BenchRedis
) -> dict[str, float]:
    port, http_port = procs.free_port(), procs.free_port()
    env = procs.server_env(port, http_port, store.url)
    # The sweeper's once-a-second pass would be charged to the window by its wall time (+/-8%
    # between runs on a loaded machine): the bench's games have no clocks to sweep.
    env["SCOPA_SWEEP_INTERVAL_S"] = "3600"
    server = _start("server", ["-m", "scopa.server"], env, out, port, _counter(args))
    try:
        channel = grpc.aio.insecure_channel(server.target)
        stub: Any = pb_grpc.GameServiceStub(channel)
        await _wait_until(server, lambda: stub.ListRulesets(pb.ListRulesetsRequest(), timeout=5))
        rng = random.Random(args.seed)
        rec = players.Recorder()
        games: list[players.Game] = []
        while len(games) < args.games:
            game = await players.create_game(stub, rec, rng, 1, stacked=True)
            if game.mirror is not None:
                games.append(game)
        http = http_clients.Http(f"http://{procs.HOST}:{http_port}", args.conc)
        target = stub if args.proto == "grpc" else http_clients.HttpStub(http, args.proto)
        per_worker = [games[i :: args.conc] for i in range(args.conc)]
        rngs = [random.Random(args.seed * 1_000_003 + i) for i in range(args.conc)]

        call = _get if args.rpc == "getstate" else _play

        async def phase(calls: int) -> None:
            budget = _Budget(calls)
            await asyncio.gather(
                *(call(target, per_worker[i], budget, rngs[i]) for i in range(args.conc))
            )

        await phase(args.warmup)
        await _counter(args).count(server.process.pid, lambda: phase(args.calls), out, "server")
        await channel.close()
        return _counter(args).totals(out, "server", server.process.pid)
    finally:
        procs.stop(server, 120)


async def _floor_run(
    args: argparse.Namespace, out: Path, store: procs.BenchRedis
) -> dict[str, float]:
    port = procs.free_port()
    floor_args = [
        str(Path(__file__).with_name("_floor.py")),
        "--stack", args.proto,
        "--port", str(port),
        "--redis-url", store.url,
        "--state-bytes", str(_FLOOR_SIZES["state"]),
        "--response-bytes", str(_FLOOR_SIZES["response"]),
    ]  # fmt: skip
    floor = _start("floor", floor_args, {}, out, port, _counter(args))
    try:
        for i in range(args.conc):
            store.client.hset(
                _floor.floor_key(i),
                mapping={"state": b"s" * _FLOOR_SIZES["state"], "meta": b"m", "version": 0},
            )
        if args.proto == "grpc":
            channel = grpc.aio.insecure_channel(floor.target)
            ready = channel.unary_unary(_floor.METHOD)
            await _wait_until(floor, lambda: ready(_floor.encode_request(0, 8), timeout=5))

            async def worker(i: int, calls: int) -> None:
                call = channel.unary_unary(_floor.METHOD)
                payload = _floor.encode_request(i, _FLOOR_SIZES["request"])
                for _ in range(calls):
                    await call(payload)
        else:
            http = http_clients.Http(f"http://{procs.HOST}:{port}", args.conc)
            await _wait_until(floor, lambda: http.get("/"))

            async def worker(i: int, calls: int) -> None:
                path, content = http_clients.floor_request(args.proto, i, _FLOOR_SIZES["request"])
                for _ in range(calls):
                    await http.post(path, content)

        async def phase(calls: int) -> None:
            share = [calls // args.conc + (i < calls % args.conc) for i in range(args.conc)]
            await asyncio.gather(*(worker(i, share[i]) for i in range(args.conc)))

        await phase(args.warmup)
        await _counter(args).count(floor.process.pid, lambda: phase(args.calls), out, "floor")
        return _counter(args).totals(out, "floor", floor.process.pid)
    finally:
        procs.stop(floor, 120)


async def _session_run(
    args: argparse.Namespace, out: Path, store: procs.BenchRedis
) -> dict[str, float]:
    """``--proto session``: ``--conc`` games of two seats, each seat a WebSocket session with
    view patches playing closed loop (``bench/sessions.py``'s seats); the instructions from the
    start of the count to the ``--calls``-th acknowledged move, divided by the moves
    acknowledged meanwhile (moves in flight at either end are a few of hundreds)."""
    import sessions  # noqa: PLC0415 (its client's session module: not in older trees)

    port, http_port = procs.free_port(), procs.free_port()
    env = procs.server_env(port, http_port, store.url)
    env["SCOPA_SWEEP_INTERVAL_S"] = "3600"
    env["SCOPA_SESSION_ACTION_RATE"] = "off"  # closed loop: faster than any person
    server = _start("server", ["-m", "scopa.server"], env, out, port, _counter(args))
    seats: list[asyncio.Future[None]] = []
    try:
        base = f"http://{procs.HOST}:{http_port}"
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            await _wait_until(server, lambda: http.get("/readyz"))
            games = [await sessions.create_game(http) for _ in range(args.conc)]
        rec, running = sessions.Recorder(), asyncio.Event()
        rng = random.Random(args.seed)
        url = f"ws://{procs.HOST}:{http_port}/v1/session"
        seats = [
            asyncio.ensure_future(sessions.play_seat(url, name, token, rec, rng, running))
            for name, tokens in games
            for token in tokens
        ]
        running.set()

        async def moves(count: int) -> None:
            rec.moves, rec.measuring = 0, True
            while rec.moves < count and not all(s.done() for s in seats):
                await asyncio.sleep(0.05)
            rec.measuring = False

        await moves(args.warmup)
        await _counter(args).count(server.process.pid, lambda: moves(args.calls), out, "server")
        counted, calls = rec.moves, int(args.calls)
        running.clear()
        if rec.errors or counted < calls:
            raise RuntimeError(f"{rec.errors} error frames, {counted} of {calls} moves")
        # main() divides by --calls: the total scaled to exactly that many moves
        totals = _counter(args).totals(out, "server", server.process.pid)
        return {key: value * calls / counted for key, value in totals.items()}
    finally:
        for seat in seats:
            seat.cancel()
        await asyncio.gather(*seats, return_exceptions=True)
        procs.stop(server, 120)


async def _amain(args: argparse.Namespace, out: Path) -> dict[str, float]:
    store = procs.start_redis_mode("standalone")
    try:
        if args.floor:
            return await _floor_run(args, out, store)
        if args.proto == "session":
            return await _session_run(args, out, store)
        return await _server_run(args, out, store)
    finally:
        store.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Count and print the instructions (or, with ``--syscalls``, system calls) per call."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proto", choices=("grpc", "rest", "connect", "session"), default="grpc")
    parser.add_argument("--floor", action="store_true", help="the protocol's floor instead")
    parser.add_argument(
        "--rpc", choices=("playcard", "getstate"), default="playcard", help="the call measured"
    )
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--conc", type=int, default=8)
    parser.add_argument("--games", type=int, default=24, help="stacked games created up front")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="directory for the dump and logs")
    parser.add_argument(
        "--syscalls",
        action="store_true",
        help="count system calls, context switches and CPU time with perf stat instead",
    )
    args = parser.parse_args(argv)
    if args.floor and args.proto == "session":
        parser.error("--floor: a unary protocol's (grpc, rest, connect)")
    if args.rpc != "playcard" and (args.floor or args.proto == "session"):
        parser.error("--rpc: for a unary protocol's server (grpc, rest, connect)")
    args.counter = PerfStat() if args.syscalls else Callgrind()
    if args.syscalls and shutil.which("perf") is None:
        raise SystemExit("needs perf (apt-get install linux-perf)")
    if not args.syscalls and (
        shutil.which("valgrind") is None or shutil.which("callgrind_control") is None
    ):
        raise SystemExit("needs valgrind (apt-get install valgrind)")
    out = args.out or Path(tempfile.mkdtemp(prefix="scopa-callgrind-"))
    out.mkdir(parents=True, exist_ok=True)
    totals = asyncio.run(_amain(args, out))
    print(line(args, totals, out))
    return 0


def line(args: argparse.Namespace, totals: dict[str, float], out: Path) -> str:
    """The output line: the counts per call."""
    target = "floor" if args.floor else "move" if args.proto == "session" else args.rpc
    head = f"proto={args.proto} target={target} calls={args.calls} conc={args.conc}"
    if "instr" in totals:
        return f"callgrind {head} instr_per_call={int(totals['instr']) // args.calls} out={out}"
    per_call = {key: value / args.calls for key, value in totals.items()}
    return (
        f"syscalls {head} syscalls_per_call={per_call['syscalls']:.1f} "
        f"context_switches_per_call={per_call['context_switches']:.1f} "
        f"cpu_us_per_call={per_call['cpu_ms'] * 1000:.0f} out={out}"
    )


if __name__ == "__main__":
    sys.exit(main())

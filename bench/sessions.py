"""Realtime sessions against the anchors: server CPU per move, boardgame.io and Colyseus in the
same run.

For each number of matches (``--matches``, 16 and 32) and each round (``--rounds``), runs the
boardgame.io and Colyseus anchors (``ANCHORS/{boardgame.io,colyseus}/run.sh MATCHES SECONDS
WARMUP``, one JSON line each) and our server over WebSocket sessions, in an order that rotates
from round to round, so background load on the machine hits all three alike. Ours: a throwaway
redis-server and ``python -m scopa.server`` (tracing on, durable: every move a compare-and-set
commit on Redis, as ``bench/service.py``), MATCHES two-seat scopa games (a target of 1,000 points:
none ends while measured), one binary-subprotocol session per seat, each seat playing a random
legal action as soon as its view says it is its turn (closed loop, as the anchors' clients do),
with view patches as the clients ask for them (``scopa_whole`` in ``--only``: the same with
whole views, for ``patches_vs_whole=`` in the summary). A move counts once its acknowledgement
(the update with its request id) is back.

The anchors (``bench/anchors``, or ``--anchors DIR``) are copied to ``build/anchors`` (``npm ci``
there on first use) and run from there, so the source folder is never written. Run from the
repository root::

    .venv/bin/python bench/sessions.py [--matches 16 32] [--rounds 2] [--seconds 10]
        [--warmup 3] [--anchors DIR] [--only scopa scopa_whole bgio colyseus]
        [--idle 1000]
        [--py-spy FILE]

``--anchors`` defaults to ``bench/anchors``.

Output (``key=value`` lines): one per implementation, round and matches (``impl=scopa|bgio|
colyseus matches=<n> round=<i> server_cpu_us_per_move=<x> moves_per_s=<x> p50_ms=<x>
p99_ms=<x>``; ours adds ``server_sys_us_per_move`` (the kernel's part of its CPU),
``redis_cpu_us_per_move`` and ``client_cpu_util``), then per matches the
medians over the rounds and ``vs_bgio=`` and ``vs_colyseus=``: our server CPU per move over
theirs (``vs_bgio_with_redis=``: ours with Redis' CPU added; the anchors keep their state in
memory).

``--idle N`` then opens N sessions that never act (on N/2 games) and measures one more game
played closed loop beside them: ``idle_sessions=<n> p50_ms=<x> p99_ms=<x>
server_cpu_us_per_move=<x> server_rss_mb=<x>`` (``--matches`` with no value: that phase only).
``--py-spy FILE`` samples our server with py-spy during the first measured run of ours (raw
collapsed stacks, as ``bench/service.py --py-spy``; ``bench/profile.py FILE`` sums them by
component). Sampling costs the server CPU, so that run's line says ``sampled=py-spy`` and the
medians leave it out (run two rounds or more). Absolute figures vary several-fold between
machines; the ratios measured in one run are the figures to quote (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import service_procs as procs
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from scopa_client.session import apply_view_patch
from scopa_client.v1 import scopa_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = ("bgio", "colyseus")
_ANCHOR_DIRS = {"bgio": "boardgame.io", "colyseus": "colyseus"}
_TARGET = 1000


@dataclass
class Recorder:
    """Moves and latencies of the seats of one run (only while ``measuring``)."""

    measuring: bool = False
    moves: int = 0
    errors: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    finished: int = 0


@dataclass(frozen=True)
class Figures:
    """One implementation's figures of one run."""

    impl: str
    matches: int
    round: int
    server_cpu_us_per_move: float
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    extra: dict[str, object] = field(default_factory=dict)


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play_seat(
    url: str,
    name: str,
    token: str,
    rec: Recorder,
    rng: random.Random,
    running: asyncio.Event,
    patches: bool = True,
) -> None:
    """One seat, closed loop: act when it is its turn, wait for the acknowledgement. With
    ``patches`` it asks for view patches (as the clients do) and applies them."""
    ws: ClientConnection = await connect(
        url, subprotocols=[Subprotocol("scopa.v1.proto")], compression=None, max_size=2**22
    )
    try:
        hello = pb.SessionRequest(
            hello=pb.SessionHello(name=name, token=token, view_patches=patches)
        )
        await ws.send(hello.SerializeToString())
        first = pb.SessionResponse.FromString(await ws.recv())  # type: ignore[arg-type]
        view = first.welcome.view
        await running.wait()
        pending = ""
        sent_at = 0.0
        while running.is_set():
            if view.status == pb.GAME_STATUS_FINISHED:
                rec.finished += 1
                return
            if not pending and view.HasField("turn") and view.turn == view.seat:
                pending = uuid.uuid4().hex
                action = rng.choice(view.legal_actions)
                frame = pb.SessionRequest(
                    action=pb.SessionAction(request_id=pending, action=action)
                )
                sent_at = time.perf_counter()
                await ws.send(frame.SerializeToString())
            data = await ws.recv()
            reply = pb.SessionResponse.FromString(data)  # type: ignore[arg-type]
            kind = reply.WhichOneof("frame")
            if kind == "update":
                if reply.update.HasField("view"):
                    view = reply.update.view
                elif reply.update.HasField("view_patch"):
                    apply_view_patch(view, reply.update.view_patch)
                if pending and reply.update.request_id == pending:
                    if rec.measuring:
                        rec.moves += 1
                        rec.latencies_ms.append((time.perf_counter() - sent_at) * 1000)
                    pending = ""
            elif kind == "error":
                rec.errors += 1
                pending = ""
    finally:
        await ws.close()


async def create_game(http: httpx.AsyncClient) -> tuple[str, list[str]]:
    body = {
        "preset": "scopa",
        "seats": [{"displayName": "a"}, {"displayName": "b"}],
        "options": {"target_score": {"intValue": _TARGET}},
    }
    reply = await http.post("/v1/games", json=body)
    reply.raise_for_status()
    created = reply.json()
    tokens = [c["token"] for c in sorted(created["credentials"], key=lambda c: c["seat"])]
    return str(created["name"]), tokens


async def _run_scopa_once(server: procs.Proc, http_port: int, matches: int, args: Args) -> Figures:
    """One measured run without Redis' CPU (the idle phase)."""
    return await _run_scopa(server, None, http_port, matches, args, 0)


async def _run_scopa(
    server: procs.Proc,
    redis: procs.Proc | None,
    http_port: int,
    matches: int,
    args: Args,
    index: int,
    impl: str = "scopa",
) -> Figures:
    """MATCHES games over WebSocket sessions (``scopa``: with view patches; ``scopa_whole``:
    whole views): warm up, then measure the server's CPU."""
    base = f"http://{procs.HOST}:{http_port}"
    url = f"ws://{procs.HOST}:{http_port}/v1/session"
    rec = Recorder()
    running = asyncio.Event()
    rng = random.Random(index)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        games = [await create_game(http) for _ in range(matches)]
    seats = [
        asyncio.ensure_future(play_seat(url, name, token, rec, rng, running, impl == "scopa"))
        for name, tokens in games
        for token in tokens
    ]
    await asyncio.sleep(0.5)  # every hello answered
    running.set()
    await asyncio.sleep(args.warmup)
    spy = args.py_spy if index == 0 and matches == args.matches[0] else None
    sampler = procs.start_py_spy(server.process.pid, spy) if spy is not None else None
    server0, sys0 = procs.cpu_seconds(server.process.pid), procs.cpu_times(server.process.pid)[1]
    redis0 = procs.cpu_seconds(redis.process.pid) if redis is not None else 0.0
    client0, start = time.process_time(), time.perf_counter()
    rec.measuring = True
    await asyncio.sleep(args.seconds)
    rec.measuring = False
    elapsed = time.perf_counter() - start
    server_s = procs.cpu_seconds(server.process.pid) - server0
    sys_s = procs.cpu_times(server.process.pid)[1] - sys0
    redis_s = procs.cpu_seconds(redis.process.pid) - redis0 if redis is not None else 0.0
    client_s = time.process_time() - client0
    if sampler is not None:
        procs.stop_py_spy(sampler)
    running.clear()
    for task in seats:
        task.cancel()
    await asyncio.gather(*seats, return_exceptions=True)
    moves = max(1, rec.moves)
    return Figures(
        impl,
        matches,
        index,
        round(server_s * 1e6 / moves, 1),
        round(rec.moves / elapsed, 1),
        round(_quantile(rec.latencies_ms, 0.5), 3),
        round(_quantile(rec.latencies_ms, 0.99), 3),
        {
            "server_sys_us_per_move": round(sys_s * 1e6 / moves, 1),
            "redis_cpu_us_per_move": round(redis_s * 1e6 / moves, 1),
            "client_cpu_util": round(client_s / elapsed, 3),
            "errors": rec.errors,
            "games_finished": rec.finished,
            **({"sampled": "py-spy"} if sampler is not None else {}),
        },
    )


async def _idle_session(url: str, name: str, token: str, opened: list[ClientConnection]) -> None:
    ws = await connect(
        url, subprotocols=[Subprotocol("scopa.v1.proto")], compression=None, max_size=2**22
    )
    hello = pb.SessionRequest(hello=pb.SessionHello(name=name, token=token))
    await ws.send(hello.SerializeToString())
    pb.SessionResponse.FromString(await ws.recv())  # type: ignore[arg-type]
    opened.append(ws)


async def _run_idle(server: procs.Proc, http_port: int, args: Args) -> str:
    """``--idle`` open sessions that never act (two seats of each of their games), then one
    game played closed loop by two more sessions: that player's latency per move."""
    base = f"http://{procs.HOST}:{http_port}"
    url = f"ws://{procs.HOST}:{http_port}/v1/session"
    opened: list[ClientConnection] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        games = [await create_game(http) for _ in range((args.idle + 1) // 2)]
    for start in range(0, len(games), 50):  # 100 handshakes at a time
        await asyncio.gather(
            *(
                _idle_session(url, name, token, opened)
                for name, tokens in games[start : start + 50]
                for token in tokens
            )
        )
    try:
        figures = await _run_scopa_once(server, http_port, 1, args)
    finally:
        await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)
    return " ".join(
        f"{key}={value}"
        for key, value in {
            "idle_sessions": len(opened),
            "matches": 1,
            "moves_per_s": figures.moves_per_s,
            "p50_ms": figures.p50_ms,
            "p99_ms": figures.p99_ms,
            "server_cpu_us_per_move": figures.server_cpu_us_per_move,
            "server_rss_mb": round(_rss_mb(server.process.pid), 1),
        }.items()
    )


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _prepare_anchor(source: Path, name: str) -> Path:
    """A copy of the anchor under build/anchors with its node_modules (npm ci on first use)."""
    target = ROOT / "build" / "anchors" / name
    if not (target / "node_modules").is_dir():
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("node_modules"))
        for path in [target, *target.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--silent"],
            cwd=target,
            check=True,
            stdout=sys.stderr,
        )
    return target


def _run_anchor(directory: Path, impl: str, matches: int, args: Args, index: int) -> Figures:
    """One run of an anchor's run.sh; its JSON line."""
    done = subprocess.run(
        ["bash", "run.sh", str(matches), str(int(args.seconds)), str(int(args.warmup))],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,  # run.sh's clean-up trap may end it with its server's SIGTERM status
        env={
            **os.environ,
            "BGIO_PORT": str(procs.free_port()),
            "COLYSEUS_PORT": str(procs.free_port()),
        },
    )
    lines = [text for text in done.stdout.splitlines() if text.startswith("{")]
    if not lines:
        raise RuntimeError(f"{impl}: run.sh printed no result ({done.returncode}):\n{done.stderr}")
    line = lines[-1]
    data = json.loads(line)
    return Figures(
        impl,
        matches,
        index,
        float(data["server_cpu_us_per_move"]),
        float(data["moves_per_s"]),
        float(data["p50_ms"]),
        float(data["p99_ms"]),
        {"server_cpu_util": data.get("server_cpu_util")},
    )


@dataclass(frozen=True)
class Args:
    """Command-line settings."""

    matches: tuple[int, ...]
    rounds: int
    seconds: float
    warmup: float
    anchors: Path
    only: tuple[str, ...]
    idle: int
    py_spy: Path | None = None


def _default_anchors() -> Path:
    """The anchors kept in the repository, ``bench/anchors`` (``bench/anchor.py``)."""
    return ROOT / "bench" / "anchors"


def _parse(argv: Sequence[str] | None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, nargs="*", default=[16, 32])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--anchors", type=Path, default=_default_anchors())
    parser.add_argument("--only", nargs="+", default=["scopa", *ANCHORS])
    parser.add_argument("--idle", type=int, default=0)
    parser.add_argument("--py-spy", type=Path, default=None)
    ns = parser.parse_args(argv)
    return Args(
        tuple(ns.matches),
        ns.rounds,
        ns.seconds,
        ns.warmup,
        ns.anchors.resolve(),
        tuple(ns.only),
        ns.idle,
        ns.py_spy,
    )


def _line(figures: Figures) -> str:
    fields: dict[str, object] = {
        "impl": figures.impl,
        "matches": figures.matches,
        "round": figures.round,
        "server_cpu_us_per_move": figures.server_cpu_us_per_move,
        "moves_per_s": figures.moves_per_s,
        "p50_ms": figures.p50_ms,
        "p99_ms": figures.p99_ms,
        **figures.extra,
    }
    return " ".join(f"{key}={value}" for key, value in fields.items())


def _summary(matches: int, results: Sequence[Figures]) -> str:
    """Medians over the rounds and our ratios to each anchor."""

    def median(impl: str, redis: bool = False) -> float:
        values = [
            float(str(f.extra["redis_cpu_us_per_move"])) if redis else f.server_cpu_us_per_move
            for f in results
            if f.impl == impl and f.matches == matches and "sampled" not in f.extra
        ]
        return statistics.median(values) if values else float("nan")

    ours = median("scopa")
    with_redis = ours + median("scopa", redis=True)
    fields: dict[str, object] = {
        "summary": "medians",
        "matches": matches,
        "scopa_us": round(ours, 1),
    }
    for anchor in ANCHORS:
        theirs = median(anchor)
        fields[f"{anchor}_us"] = round(theirs, 1)
        fields[f"vs_{anchor}"] = round(ours / theirs, 3) if theirs else float("nan")
        fields[f"vs_{anchor}_with_redis"] = round(with_redis / theirs, 3) if theirs else "nan"
    fields["scopa_with_redis_us"] = round(with_redis, 1)
    whole = median("scopa_whole")
    if not math.isnan(whole):
        fields["scopa_whole_us"] = round(whole, 1)
        fields["patches_vs_whole"] = round(ours / whole, 3)
    return " ".join(f"{key}={value}" for key, value in fields.items())


async def _main_async(args: Args) -> list[str]:
    anchors = {
        impl: _prepare_anchor(args.anchors / _ANCHOR_DIRS[impl], _ANCHOR_DIRS[impl])
        for impl in ANCHORS
        if impl in args.only and args.matches
    }
    workdir = procs.make_workdir()
    redis = procs.start_redis()
    port, http_port = procs.free_port(), procs.free_port()
    env = procs.server_env(port, http_port, f"redis://{procs.HOST}:{redis.port}/0")
    env["SCOPA_SESSION_ACTION_RATE"] = "off"  # closed loop: faster than any person
    env["SCOPA_WATCH_PER_CLIENT"] = str(max(100, args.idle + 16))  # every session from here
    server = procs.start_python("server", ["-m", "scopa.server"], env, workdir, port)
    lines: list[str] = []
    results: list[Figures] = []
    try:
        async with httpx.AsyncClient() as probe:

            async def healthy() -> object:
                reply = await probe.get(f"http://{procs.HOST}:{http_port}/readyz")
                return reply.raise_for_status()

            await procs.wait_until(server, 90, healthy, retry_on=(httpx.HTTPError,))
        impls = [impl for impl in ("scopa", "scopa_whole", *ANCHORS) if impl in args.only]
        for matches in args.matches:
            for index in range(args.rounds):
                shift = index % len(impls)
                for impl in impls[shift:] + impls[:shift]:
                    if impl.startswith("scopa"):
                        figures = await _run_scopa(
                            server, redis, http_port, matches, args, index, impl
                        )
                    else:
                        figures = await asyncio.to_thread(
                            _run_anchor, anchors[impl], impl, matches, args, index
                        )
                    results.append(figures)
                    lines.append(_line(figures))
                    print(lines[-1], file=sys.stderr, flush=True)
            lines.append(_summary(matches, results))
        if args.idle:
            lines.append(await _run_idle(server, http_port, args))
        return lines
    finally:
        procs.stop(server)
        procs.stop(redis)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison and print its lines."""
    args = _parse(argv)
    load = os.getloadavg()[0]
    print(f"env cores={os.cpu_count()} load_1m={load:.2f} seconds={args.seconds}", flush=True)
    for line in asyncio.run(_main_async(args)):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

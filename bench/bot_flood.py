"""A player's PlayCard latency and the server's CPU while games of bots flood one replica.

Issue 27's attack: one client creates many games whose every seat is an ``ismcts`` bot (to a
target of 61, at most 20 hands), and the server then plays them on its own. For each
configuration of the bot queue and of where the searches run (``--config
SEARCHES/QUEUE/POOL``, repeatable, POOL ``processes`` or ``threads``: ``SCOPA_BOT_PROCESSES``;
by default ``2/32/threads`` and ``2/32/processes``, the server's default, then an unbounded
``64/100000/threads``), ``--rounds`` times over in turn, this starts one server (bot-only games
allowed) on a redis-server of its own and runs two phases of ``--seconds`` each:

- ``quiet``: ``--players`` workers play two-seat games (GetState, then PlayCard, each turn);
- ``flood``: ``--bot-games`` all-bot games are created at once while the same players play.

Prints one line per configuration and phase::

    bot_flood searches=2 queue=32 pool=processes phase=flood bot_games=40 playcard_calls=...
        playcard_p50_ms=... playcard_p99_ms=... server_cores=... bot_games_answered=...

``server_cores`` is the CPU seconds per wall second over the phase of the server and its search
workers (2.0: two cores busy); ``bot_games_answered`` how many of the flood's CreateGame calls
were answered within it (an all-bot CreateGame answers before its bots move). Compare the
configurations of one run.

    .venv/bin/python bench/bot_flood.py [--seconds 10] [--players 4] [--bot-games 40] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import grpc.aio
import service_players as players
import service_procs as procs

from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

__all__ = ["Config", "main", "parse_config"]

_START_TIMEOUT_S = 30.0
_BOT_TARGET = 61


@dataclass(frozen=True)
class Config:
    """One configuration of the server's bot queue."""

    searches: int
    queue: int
    pool: str = "processes"


def parse_config(text: str) -> Config:
    """``SEARCHES/QUEUE[/POOL]`` (``2/32/threads``; POOL ``processes`` by default) as a
    :class:`Config`."""
    searches, _, rest = text.partition("/")
    queue, _, pool = rest.partition("/")
    try:
        config = Config(int(searches), int(queue), pool or "processes")
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: SEARCHES/QUEUE[/POOL]") from None
    if config.searches < 1 or config.queue < 0 or config.pool not in ("processes", "threads"):
        raise argparse.ArgumentTypeError(
            f"{text!r}: searches >= 1, queue >= 0, pool processes or threads"
        )
    return config


async def _bot_game(stub: pb_grpc.GameServiceAsyncStub) -> int:
    """Create one all-bot game; the server plays it (in this call, and its sweeper after)."""
    bots = [pb.SeatSpec(display_name="", bot="ismcts") for _ in range(2)]
    target = {"target_score": pb.OptionValue(int_value=_BOT_TARGET)}
    request = pb.CreateGameRequest(
        preset="scopa", options=target, seats=bots, request_id=uuid.uuid4().hex
    )
    reply: pb.CreateGameResponse = await stub.CreateGame(request)
    return reply.view.version


def _tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and of its live children (the search workers)."""
    total = procs.cpu_seconds(pid)
    for child in _children(pid):
        with contextlib.suppress(OSError):  # it ended meanwhile
            total += procs.cpu_seconds(child)
    return total


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(") ", 1)[1].split()[1])
            except OSError:
                continue
            if parent == pid:
                found.append(int(entry))
    return found


async def _phase(
    stub: pb_grpc.GameServiceAsyncStub, pid: int, workers: int, seconds: float
) -> tuple[list[float], float]:
    """The players' PlayCard latencies (sorted, ms) and the server's cores over the phase."""
    rec = players.Recorder()
    pools = players.Pools()
    cpu, start = _tree_cpu_seconds(pid), time.monotonic()
    deadline = start + seconds
    await asyncio.gather(
        *(
            players.games_worker(stub, rec, pools, random.Random(i), 11, deadline)
            for i in range(workers)
        )
    )
    cores = (_tree_cpu_seconds(pid) - cpu) / (time.monotonic() - start)
    return sorted(1000 * s for s in rec.latencies.get("PlayCard", [])), cores


async def _run(server: procs.Proc, args: argparse.Namespace, config: Config) -> list[str]:
    async with grpc.aio.insecure_channel(f"{procs.HOST}:{server.port}") as channel:
        stub: pb_grpc.GameServiceAsyncStub = pb_grpc.GameServiceStub(channel)  # type: ignore[assignment]
        await procs.wait_until(
            server, _START_TIMEOUT_S, lambda: stub.ListRulesets(pb.ListRulesetsRequest())
        )
        lines = []
        for phase in ("quiet", "flood"):
            count = args.bot_games if phase == "flood" else 0
            flood = [asyncio.create_task(_bot_game(stub)) for _ in range(count)]
            latencies, cores = await _phase(stub, server.process.pid, args.players, args.seconds)
            answered = sum(1 for t in flood if t.done() and not t.cancelled() and not t.exception())
            for task in flood:  # the server stops with the configuration
                task.cancel()
            await asyncio.gather(*flood, return_exceptions=True)
            lines.append(
                f"bot_flood searches={config.searches} queue={config.queue} pool={config.pool} "
                f"phase={phase} "
                f"bot_games={count} playcard_calls={len(latencies)} "
                f"playcard_p50_ms={players.percentile(latencies, 0.5):.1f} "
                f"playcard_p99_ms={players.percentile(latencies, 0.99):.1f} "
                f"server_cores={cores:.2f} bot_games_answered={answered}"
            )
            print(lines[-1], flush=True)
        return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--players", type=int, default=4, help="player workers")
    parser.add_argument("--bot-games", type=int, default=40, help="all-bot games of the flood")
    parser.add_argument(
        "--config",
        type=parse_config,
        action="append",
        help="SEARCHES/QUEUE[/processes|threads] (repeatable)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="times over the configurations")
    args = parser.parse_args(argv)
    configs = args.config or [
        Config(2, 32, "threads"),
        Config(2, 32, "processes"),
        Config(64, 100_000, "threads"),
    ]
    workdir = procs.make_workdir()
    # A fresh Redis each: no bot game left for the next server's sweeper.
    for config in configs * args.rounds:
        redis = procs.start_redis()
        port, http_port = procs.free_port(), procs.free_port()
        env = procs.server_env(port, http_port, f"redis://{procs.HOST}:{redis.port}/0")
        env.update(
            SCOPA_BOT_ONLY_GAMES="true",
            SCOPA_BOT_SEARCHES=str(config.searches),
            SCOPA_BOT_QUEUE=str(config.queue),
            SCOPA_BOT_PROCESSES=str(config.pool == "processes").lower(),
        )
        server = procs.start_python("server", ["-m", "scopa.server"], env, workdir, port)
        try:
            asyncio.run(_run(server, args, config))
        finally:
            procs.stop(server)
            procs.stop(redis)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Soak: two server replicas on one real redis-server, players for a bounded time, then an audit.

Everything runs on 127.0.0.1: a throwaway redis-server on a free port, two ``scopa.server``
replicas on it, and ``--conc`` players that create stacked games and play them to the end
through both replicas, retrying with the same request_id only while an outcome is unknown (the
players of the fault suite, ``tests/faults/ledger.py``). At the end every game's event log is
audited and one line is printed::

    games=<finished> moves=<OK'd> errors=<failed calls> lost=<OK'd moves not in the log>
    doubled=<versions with several plays, or one request OK'd twice> keys_without_ttl=<n>

Usage: ``python bench/soak.py --seconds 300 --conc 16``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import grpc.aio
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from faults.ledger import Game, Ledger, async_stub, create_game, logged_plays, play
from support.redis_server import running_redis_server
from support.server_process import ServerProcess, start_server, stop_server

from scopa import rules


async def _player(
    targets: Sequence[str], ledger: Ledger, seed: int, deadline: float, games: list[Game]
) -> int:
    """Create and play games until the deadline; return how many finished."""
    channels = [async_stub(t) for t in targets]
    stubs = [s for _, s in channels]
    rng = random.Random(seed)
    finished = 0
    loop = asyncio.get_running_loop()
    try:
        while loop.time() < deadline:
            try:
                game = await create_game(stubs[rng.randrange(2)], seed=rng.randrange(1 << 30))
            except grpc.aio.AioRpcError as exc:
                ledger.fail("CreateGame", exc)
                await asyncio.sleep(0.1)
                continue
            games.append(game)
            finished += await play(stubs, game, ledger, deadline, rng)
    finally:
        for channel, _ in channels:
            await channel.close()
    return finished


def _lost_and_doubled(
    client: redis.Redis[bytes], games: Sequence[Game], ledger: Ledger
) -> tuple[int, int]:
    lost = 0
    doubled = len(ledger.doubled)
    for game in games:
        plays = Counter(
            version
            for version, e in logged_plays(client, game.name)
            if isinstance(e, rules.CardPlayed)
        )
        doubled += sum(1 for n in plays.values() if n > 1)
        lost += sum(1 for version in ledger.ok.get(game.name, {}) if plays[version] != 1)
    return lost, doubled


def _keys_without_ttl(client: redis.Redis[bytes]) -> int:
    return sum(1 for key in client.scan_iter(match="scopa:*", count=1000) if client.ttl(key) == -1)


async def _soak(
    targets: Sequence[str], seconds: float, conc: int
) -> tuple[Ledger, list[Game], int]:
    ledger = Ledger()
    games: list[Game] = []
    deadline = asyncio.get_running_loop().time() + seconds
    done = await asyncio.gather(
        *(_player(targets, ledger, i, deadline, games) for i in range(conc))
    )
    return ledger, games, sum(done)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--conc", type=int, default=16, help="concurrent players")
    args = parser.parse_args(argv)
    with running_redis_server() as server:
        replicas: list[ServerProcess] = []
        try:
            for _ in range(2):
                replicas.append(start_server(server.url, env={"SCOPA_LOG_LEVEL": "warning"}))
            ledger, games, finished = asyncio.run(
                _soak([r.target for r in replicas], args.seconds, args.conc)
            )
            client: redis.Redis[bytes] = redis.Redis(host=server.host, port=server.port)
            lost, doubled = _lost_and_doubled(client, games, ledger)
            print(
                f"games={finished} moves={ledger.moves} errors={len(ledger.failures)} "
                f"lost={lost} doubled={doubled} keys_without_ttl={_keys_without_ttl(client)}"
            )
            client.close()
        finally:
            for replica in replicas:
                stop_server(replica)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

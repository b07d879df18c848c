"""PlayCard's CPU by hand number, in process: ``GameCore`` on ``MemoryStore`` (no Redis, no
transport), games of 2-player scopa to 61 played with random legal moves, each call timed.
Shows whether the core's cost grows with the game (issue 26's ``vs_start``, which
``bench/service.py --late`` measures through a real server and Redis). Run from the
repository root::

    .venv/bin/python bench/late_core.py [--games 8] [--hands 12]

Output: one ``hand=<n> calls=<n> median_us=<x> mean_us=<x>`` line per hand, then
``late_over_first=<x>`` (the last hand's median over the first's).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence

import structlog

from scopa.app import CoreSettings, CreateGameCommand, GameCore, SeatSpec, TokenAuthority
from scopa.storage import MemoryStore


async def _measure(games: int, hands: int) -> dict[int, list[float]]:
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(1))
    rng = random.Random(2)
    by_hand: dict[int, list[float]] = defaultdict(list)
    seats = [SeatSpec("a"), SeatSpec("b")]
    for _ in range(games):
        created = await core.create_game(CreateGameCommand("scopa", {"target_score": 61}, seats))
        tokens = dict(created.tokens)
        seat = created.snapshot.view.turn
        while seat is not None:
            view = (await core.get_state(created.game_id, tokens[seat])).view
            if not view.legal_moves or view.hand_number > hands:
                break
            move = rng.choice(view.legal_moves)
            started = time.perf_counter()
            result = await core.play_card(created.game_id, tokens[seat], move)
            by_hand[view.hand_number].append(time.perf_counter() - started)
            seat = result.snapshot.view.turn
    return by_hand


def main(argv: Sequence[str] | None = None) -> int:
    """Play the games and print one line per hand."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--hands", type=int, default=12)
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    by_hand = asyncio.run(_measure(args.games, args.hands))
    medians = {}
    for hand in sorted(by_hand):
        times = by_hand[hand]
        medians[hand] = statistics.median(times) * 1e6
        mean = statistics.mean(times) * 1e6
        print(f"hand={hand} calls={len(times)} median_us={medians[hand]:.1f} mean_us={mean:.1f}")
    if medians:
        print(f"late_over_first={medians[max(medians)] / medians[min(medians)]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

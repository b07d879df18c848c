"""The archive's cost: extra server CPU for a game's last move, and archive bytes per game.

Plays two-seat games to 61 points (random legal moves, fixed seeds) on the embedded store, on a
core without an archive and on one with a SQLite archive, and prints, from the same run, the
CPU of the last move (the archive's write awaited) and the compressed record's bytes; then the
CPU of writing the same records again (under new ids) one transaction each and in batches of 8
and 32 (``GameArchive.put_many``, as the background writer batches games that end together)::

    .venv/bin/python bench/archive_cost.py [--games 10]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import statistics
import tempfile
import time

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameStatus,
    SeatSpec,
    TokenAuthority,
)
from scopa.archive import ArchivedGame, GameArchive, open_archive
from scopa.storage import MemoryStore


async def _play(core: GameCore, seed: int) -> tuple[str, float, float]:
    """Play a game to 61; (game id, CPU s of the last move, mean CPU s of the other moves)."""
    rng = random.Random(seed)
    created = await core.create_game(
        CreateGameCommand("scopa", {"target_score": 61}, [SeatSpec("a"), SeatSpec("b")])
    )
    game, tokens = created.game_id, dict(created.tokens)
    moves: list[float] = []
    while True:
        seat = (await core.get_state(game, None)).view.turn
        mine = await core.get_state(game, tokens[seat])
        start = time.process_time()
        result = await core.play_card(game, tokens[seat], rng.choice(mine.view.legal_moves))
        if result.snapshot.status is GameStatus.FINISHED:
            await core._archiving.settled()  # the record's write, in the background
            last = time.process_time() - start
            return game, last, statistics.mean(moves)
        moves.append(time.process_time() - start)


async def _run(
    games: int, archive: GameArchive | None
) -> tuple[list[float], list[float], list[str]]:
    core = GameCore(
        MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(1), archive=archive
    )
    lasts, others, ids = [], [], []
    for seed in range(games):
        game, last, other = await _play(core, seed)
        lasts.append(last)
        others.append(other)
        ids.append(game)
    await core.close()
    return lasts, others, ids


async def _write_cpu(archive: GameArchive, records: list[ArchivedGame], batch: int) -> float:
    """CPU seconds per record of writing ``records`` (new ids) ``batch`` to a transaction."""
    copies = [
        dataclasses.replace(r, game_id=f"{r.game_id}-{batch}-{i}") for i, r in enumerate(records)
    ]
    start = time.process_time()
    for at in range(0, len(copies), batch):
        await archive.put_many(copies[at : at + batch], 0)
    return (time.process_time() - start) / len(copies)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = await open_archive(f"sqlite:///{folder}/archive.db")
        plain_last, plain_other, _ = await _run(args.games, None)
        kept_last, _, ids = await _run(args.games, archive)
        sizes = [await archive.stored_bytes(game) for game in ids]
        found = [await archive.get(game) for game in ids]
        records = [r for r in found if r is not None] * max(1, 64 // len(ids))
        writes = {batch: await _write_cpu(archive, records, batch) for batch in (1, 8, 32)}
        await archive.close()
    base, kept = statistics.median(plain_last), statistics.median(kept_last)
    move = statistics.median(plain_other)
    print(f"games to 61: {args.games}; median CPU of a move {move * 1e3:.2f} ms")
    print(
        f"last move CPU: {base * 1e3:.2f} ms without the archive, {kept * 1e3:.2f} ms with it "
        f"(SQLite): +{(kept - base) * 1e3:.2f} ms, x{kept / base:.1f}"
    )
    print(
        f"archive bytes per finished game: median {statistics.median(sizes):.0f} "
        f"(min {min(sizes)}, max {max(sizes)}), zstd-compressed JSON"
    )
    print(
        f"archive write CPU per record ({len(records)} records): {writes[1] * 1e3:.2f} ms one "
        f"transaction each, {writes[8] * 1e3:.2f} ms in batches of 8, "
        f"{writes[32] * 1e3:.2f} ms in batches of 32"
    )


if __name__ == "__main__":
    asyncio.run(main())

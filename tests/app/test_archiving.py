"""Tests of finished games' records (scopa.app._archiving) on the embedded store and a SQLite
archive: written once when a game ends, by the finishing replica or a sweep, and read back."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
from support.games import SECRET, two_seat_game

from scopa import rules
from scopa.app import (
    CoreSettings,
    GameCore,
    GameNotFinished,
    GameStatus,
    InvalidArgument,
    PermissionDenied,
    Sweeper,
    TokenAuthority,
)
from scopa.archive import ArchivedGame, ArchiveError, GameArchive, open_archive
from scopa.archive._schema import RECORDS
from scopa.storage import Event, MemoryStore, StorageUnavailable

pytestmark = pytest.mark.asyncio(loop_scope="session")


class BrokenArchive(GameArchive):
    """An archive whose writes fail, as if the replica died before writing."""

    async def put_many(self, games: Sequence[ArchivedGame], archived_ms: int) -> set[str]:
        raise ArchiveError("down")


class CountingArchive(GameArchive):
    """An archive that counts its batched writes and the games in each."""

    batches: list[int]

    async def put_many(self, games: Sequence[ArchivedGame], archived_ms: int) -> set[str]:
        self.batches.append(len(games))
        return await super().put_many(games, archived_ms)


@pytest.fixture
async def archive(tmp_path: Path) -> AsyncIterator[GameArchive]:
    opened = await open_archive(f"sqlite:///{tmp_path}/games.db")
    yield opened
    await opened.close()


def _core(store: MemoryStore, archive: GameArchive | None, **settings: object) -> GameCore:
    return GameCore(
        store,
        TokenAuthority(SECRET),
        CoreSettings(**settings),  # type: ignore[arg-type]
        random.Random(3),
        archive=archive,
    )


async def _archived(archive: GameArchive, game_id: str) -> ArchivedGame:
    for _ in range(200):
        found = await archive.get(game_id)
        if found is not None:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"games/{game_id} was not archived")


async def test_a_finished_game_is_archived_with_its_cards(archive: GameArchive) -> None:
    core = _core(MemoryStore(), archive)
    created, tokens = await two_seat_game(core)
    game_id = created.game_id
    with pytest.raises(GameNotFinished):
        await core.game_record(game_id, tokens[0])
    await core.resign(game_id, tokens[1])
    found = await _archived(archive, game_id)
    record = json.loads(found.record)
    assert record["format"] == 1
    assert record["game"] == f"games/{game_id}"
    assert [s["name"] for s in record["seats"]] == ["ann", "bob"]
    assert record["result"]["reason"] == "resigned"
    assert record["result"]["winners"] == [0]
    events = [e for v in record["versions"] for e in v["events"]]
    dealt = [e for e in events if e["t"] == "cards_dealt"]
    assert {e["seat"] for e in dealt} == {0, 1}
    assert all(len(e["cards"]) == e["n_cards"] > 0 for e in dealt)  # hidden cards revealed
    codes = record["cards"]
    assert len(codes) == 40 and codes[str(rules.parse_card("7D"))] == "7D"
    assert all(str(c) in codes for e in dealt for c in e["cards"])
    assert [e["t"] for e in events][-2:] == ["seat_resigned", "game_finished"]
    assert await core.game_record(game_id, tokens[0]) == found.record
    assert await core.game_record(game_id, tokens[1]) == found.record
    with pytest.raises(PermissionDenied):  # a private game's record is for its seats
        await core.game_record(game_id, None)
    assert await core.due_games(10) == []  # the archiving mark is cleared
    await core.close()


async def test_a_record_that_cannot_be_read_is_invalid_state(archive: GameArchive) -> None:
    """A finished game whose archived record's bytes cannot be read back is an invalid state
    (INTERNAL with its reason, as a stored game that cannot be read), not an outage to retry
    and not a codec's error."""
    core = _core(MemoryStore(), archive)
    created, tokens = await two_seat_game(core)
    await core.resign(created.game_id, tokens[1])
    await _archived(archive, created.game_id)
    async with archive._engine.begin() as conn:
        where = RECORDS.c.game_id == created.game_id
        await conn.execute(RECORDS.update().where(where).values(record=b"garbage"))
    with pytest.raises(rules.InvalidState):
        await core.game_record(created.game_id, tokens[0])
    await core.close()


async def test_a_public_game_record_is_for_anyone(archive: GameArchive) -> None:
    core = _core(MemoryStore(), archive)
    created, tokens = await two_seat_game(core, public=True)
    await core.resign(created.game_id, tokens[0])
    record = json.loads(await core.game_record(created.game_id, None))
    assert record["public"] is True
    assert record["result"]["winners"] == [1]
    await core.close()


async def test_a_rematch_record_is_for_the_seats_of_its_first_game(
    archive: GameArchive,
) -> None:
    """A rematch's seats hold the first game's tokens: its record names the game it is the
    rematch of and whose tokens it takes, and those tokens read it; another game's do not.
    The finished game's archiving mark survives the link, and is cleared by its archiving."""
    core = _core(MemoryStore(), archive)
    created, tokens = await two_seat_game(core)
    first = created.game_id
    await core.resign(first, tokens[0])
    second = (await core.rematch_game(first, tokens[1])).game_id
    await core.resign(second, tokens[1])
    third = (await core.rematch_game(second, tokens[0])).game_id
    await core.resign(third, tokens[0])
    found = json.loads((await _archived(archive, third)).record)
    assert found["rematch_of"] == f"games/{second}" and found["tokens_of"] == f"games/{first}"
    assert "rematch_of" not in json.loads((await _archived(archive, first)).record)
    assert await core.game_record(third, tokens[1]) == (await archive.get(third)).record  # type: ignore[union-attr]
    other = (await two_seat_game(core))[1][0]
    with pytest.raises(PermissionDenied):
        await core.game_record(third, other)
    for _ in range(200):
        if await core.due_games(10) == []:
            break
        await asyncio.sleep(0.01)
    assert await core.due_games(10) == []
    await core.close()


async def test_a_replica_lost_before_archiving_leaves_it_to_a_sweep(
    archive: GameArchive, tmp_path: Path
) -> None:
    store = MemoryStore()
    broken = BrokenArchive((await open_archive(f"sqlite:///{tmp_path}/other.db"))._engine)
    finishing = _core(store, broken)
    created, tokens = await two_seat_game(finishing)
    await finishing.resign(created.game_id, tokens[0])
    await asyncio.sleep(0.05)
    assert await archive.get(created.game_id) is None
    assert [g for g, _ in await finishing.due_games(10)] == [created.game_id]  # marked
    others = [_core(store, archive), _core(store, archive)]
    await asyncio.gather(*[Sweeper(core).sweep() for core in others])
    found = await archive.get(created.game_id)
    assert found is not None
    assert json.loads(found.record)["result"]["winners"] == [1]
    assert await others[0].due_games(10) == []
    assert len(await archive.finished(10, public_only=False)) == 1  # written once
    for core in [finishing, *others]:
        await core.close()
    await broken.close()


async def test_games_finishing_together_are_written_in_batches(tmp_path: Path) -> None:
    """A game finishing alone is written at once, alone; games finishing while a write is
    under way go together in the next one: every record is written and every mark cleared,
    in fewer archive transactions than games."""
    counting = CountingArchive((await open_archive(f"sqlite:///{tmp_path}/n.db"))._engine)
    counting.batches = []
    core = _core(MemoryStore(), counting)
    alone, alone_tokens = await two_seat_game(core)
    await core.resign(alone.game_id, alone_tokens[0])
    await core._archiving.settled()
    assert counting.batches == [1]
    games = [await two_seat_game(core) for _ in range(12)]
    await asyncio.gather(*(core.resign(c.game_id, tokens[0]) for c, tokens in games))
    await core._archiving.settled()
    assert sum(counting.batches) == 13 and len(counting.batches) < 13
    assert max(counting.batches) > 1
    for created, _tokens in games:
        found = await counting.get(created.game_id)
        assert found is not None and json.loads(found.record)["result"]["winners"] == [1]
    assert await core.due_games(100) == []  # every mark cleared
    await core.close()
    await counting.close()


class OneLogLost(MemoryStore):
    """The embedded store, failing to read one game's log (as a shard that stopped answering)."""

    lost = ""

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        if game_id == self.lost:
            raise StorageUnavailable("the shard stopped answering")
        return await super().events_since(game_id, version)


async def test_a_game_whose_log_cannot_be_read_keeps_its_mark_and_not_the_batch(
    archive: GameArchive,
) -> None:
    """The store failing one game of a batch leaves that game marked for a sweep; the games
    finished with it are written and their marks cleared."""
    store = OneLogLost()
    core = _core(store, archive)
    games = [await two_seat_game(core) for _ in range(4)]
    store.lost = games[1][0].game_id
    await asyncio.gather(*(core.resign(c.game_id, tokens[0]) for c, tokens in games))
    await core._archiving.settled()
    kept = [c.game_id for c, _tokens in games if await archive.get(c.game_id) is not None]
    assert kept == [c.game_id for c, _tokens in games if c.game_id != store.lost]
    assert [g for g, _ in await core.due_games(100)] == [store.lost]
    store.lost = ""
    await Sweeper(core).sweep()  # the next sweep writes it
    assert await archive.get(games[1][0].game_id) is not None
    assert await core.due_games(100) == []
    await core.close()


async def test_a_game_finished_without_an_archive_is_not_marked() -> None:
    core = _core(MemoryStore(), None)
    created, tokens = await two_seat_game(core)
    await core.resign(created.game_id, tokens[0])
    assert await core.due_games(10) == []
    await core.close()


async def test_retention_deletes_records_past_it(archive: GameArchive) -> None:
    keeping = _core(MemoryStore(), archive)
    created, tokens = await two_seat_game(keeping)
    await keeping.resign(created.game_id, tokens[0])
    await _archived(archive, created.game_id)
    assert await keeping.purge_archive() == 0
    expiring = _core(MemoryStore(), archive, archive_retention_days=0)
    await asyncio.sleep(0.01)
    assert await expiring.purge_archive() == 1
    assert await archive.get(created.game_id) is None
    await keeping.close()
    await expiring.close()


async def test_finished_public_games_are_listed_latest_first_in_pages(
    archive: GameArchive,
) -> None:
    core = _core(MemoryStore(), archive)
    names = []
    for public in (True, True, False, True):
        created, tokens = await two_seat_game(core, public=public)
        await core.resign(created.game_id, tokens[0])
        await _archived(archive, created.game_id)
        names.append(created.game_id)
        await asyncio.sleep(0.002)  # distinct finish times
    first, token = await core.list_games("", 2, "", finished=True)
    assert [g.game_id for g in first] == [names[3], names[1]]
    assert first[0].status is GameStatus.FINISHED
    assert [(s.name, s.bot) for s in first[0].seats] == [("ann", ""), ("bob", "")]
    assert first[0].version > 1
    rest, last = await core.list_games("", 2, token, finished=True)
    assert ([g.game_id for g in rest], last) == ([names[0]], "")
    assert (await core.list_games("scopone", 10, "", finished=True))[0] == []
    with pytest.raises(InvalidArgument):  # a finished page's token is not the lobby's
        await core.list_games("", 2, token)
    lobby, _ = await core.list_games("", 10, "")
    assert lobby == []
    await core.close()

"""Tests of ListMyGames in the application core: the owner index its commits keep, pages,
refusals, entries read from their game or dropped, and one verification per request."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import jwt
import pytest
import structlog

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameStatus,
    InvalidArgument,
    SeatSpec,
    StoreClock,
    TokenAuthority,
)
from scopa.app._errors import IdentityRequired
from scopa.identity import Identity, JwksKeys, Subject
from scopa.storage import MemoryStore, StorageUnavailable

SECRET = b"k" * 32
ISSUER = "https://id.example"


class CountingIdentity(Identity):
    """Takes any JWT's ``sub`` (the signature is another suite's business) and counts calls."""

    def __init__(self) -> None:
        super().__init__(ISSUER, "api", JwksKeys(ISSUER))
        self.verified = 0

    async def verify(self, token: str) -> Subject:
        self.verified += 1
        claims = jwt.decode(token, options={"verify_signature": False})
        return Subject(ISSUER, str(claims["sub"]))


def jwt_of(subject: str) -> str:
    return jwt.encode({"sub": subject}, "x" * 32, algorithm="HS256")


ALICE, BOB, CAROL = jwt_of("alice"), jwt_of("bob"), jwt_of("carol")


class Wall:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
def store(wall: Wall) -> MemoryStore:
    return MemoryStore(wall=wall)


@pytest.fixture
def identity() -> CountingIdentity:
    return CountingIdentity()


@pytest.fixture
def core(wall: Wall, store: MemoryStore, identity: CountingIdentity) -> GameCore:
    return GameCore(
        store,
        TokenAuthority(SECRET),
        CoreSettings(waiting_ttl_s=60),
        random.Random(1),
        clock=StoreClock(wall),
        identity=identity,
    )


async def _create(core: GameCore, wall: Wall, bearer: str | None = ALICE) -> Any:
    wall.now += 1  # the list orders by creation time
    seats = [SeatSpec("host"), SeatSpec("", open=True)]
    return await core.create_game(CreateGameCommand("scopa", {}, seats), bearer)


async def _names(core: GameCore, bearer: str, status: GameStatus | None = None) -> list[str]:
    games, _ = await core.list_my_games(bearer, status, 0, "")
    return [g.game_id for g in games]


async def test_both_players_list_the_game_with_their_seat_and_the_turn(
    core: GameCore, wall: Wall
) -> None:
    """Alice creates, Bob joins: each lists it with its own seat, and after the first move
    with the next turn; Carol lists nothing; waiting, active and finished filter apart."""
    created = await _create(core, wall)
    [waiting], _ = await core.list_my_games(ALICE, None, 0, "")
    assert (waiting.seat, waiting.turn, waiting.status) == (0, None, GameStatus.WAITING_FOR_PLAYERS)
    await core.join_game(created.game_id, created.invites[0][1], "Bob", bearer=BOB)
    for bearer, seat in ((ALICE, 0), (BOB, 1)):
        [game], _ = await core.list_my_games(bearer, GameStatus.ACTIVE, 0, "")
        assert (game.game_id, game.seat, game.turn) == (created.game_id, seat, 0)
    view = await core.get_state(created.game_id, ALICE)
    await core.play_card(created.game_id, ALICE, view.view.legal_moves[0])
    [game], _ = await core.list_my_games(BOB, None, 0, "")
    assert game.turn == 1
    assert await _names(core, CAROL) == []
    assert await _names(core, ALICE, GameStatus.WAITING_FOR_PLAYERS) == []
    await core.resign(created.game_id, BOB)
    assert await _names(core, ALICE, GameStatus.FINISHED) == [created.game_id]
    assert await _names(core, ALICE, GameStatus.ACTIVE) == []


async def test_callers_without_an_identity_token_are_refused(core: GameCore, wall: Wall) -> None:
    """No token, or a seat token: IDENTITY_REQUIRED; a bad page token or size: INVALID_ARGUMENT."""
    anonymous = await _create(core, wall, None)
    with pytest.raises(IdentityRequired):
        await core.list_my_games(None, None, 0, "")
    with pytest.raises(IdentityRequired):
        await core.list_my_games(anonymous.tokens[0][1], None, 0, "")
    with pytest.raises(InvalidArgument) as bad:
        await core.list_my_games(ALICE, None, 0, "not-a-token")
    assert bad.value.field == "page_token"
    with pytest.raises(InvalidArgument):
        await core.list_my_games(ALICE, None, -1, "")


async def test_pages_follow_each_other_newest_first(core: GameCore, wall: Wall) -> None:
    """Five games in pages of two: newest first, each once, the last token empty; a token of
    one filter is refused by another."""
    ids = [(await _create(core, wall)).game_id for _ in range(5)]
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        games, token = await core.list_my_games(ALICE, None, 2, token)
        seen += [g.game_id for g in games]
        pages += 1
        if not token:
            break
    assert (seen, pages) == (ids[::-1], 3)
    _, token = await core.list_my_games(ALICE, None, 2, "")
    with pytest.raises(InvalidArgument, match="status"):
        await core.list_my_games(ALICE, GameStatus.ACTIVE, 2, token)


async def test_an_entry_without_a_summary_is_read_from_its_game_or_dropped(
    core: GameCore, wall: Wall, store: MemoryStore
) -> None:
    """An entry whose summary cannot be read (an earlier release's) is listed from its game;
    one whose game vanished is dropped from the index when read."""
    created = await _create(core, wall)
    owner = TokenAuthority(SECRET).owner_digest(ISSUER, "alice")
    far = 10**15
    await store.index_owned(owner, created.game_id, "waiting_for_players", 1, far, b"")
    await store.index_owned(owner, "vanished", "active", 2, far, b"")
    [game], _ = await core.list_my_games(ALICE, None, 0, "")
    assert (game.game_id, game.seat) == (created.game_id, 0)
    assert [row.game_id for row in await store.owned_games(owner, "", 0, 10)] == [created.game_id]


async def test_a_failed_index_write_leaves_the_commit(
    core: GameCore, wall: Wall, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is written beside the commit: when the store refuses it the game is still
    created (and the failure logged, without the owner)."""

    async def refuse(*_: object) -> None:
        raise StorageUnavailable("down")

    monkeypatch.setattr(store, "index_owned", refuse)
    with structlog.testing.capture_logs() as logs:
        created = await _create(core, wall)
    assert (await store.load(created.game_id)).version >= 1
    failed = [entry for entry in logs if entry["event"] == "owner_index_update_failed"]
    assert failed and "owner" not in failed[0]
    monkeypatch.undo()
    assert await _names(core, ALICE) == []


async def test_a_request_verifies_its_identity_token_once(
    core: GameCore, identity: CountingIdentity
) -> None:
    """The rate limit's question and the use case's share one verification in a request (a
    task); another request verifies again."""

    async def request() -> None:
        assert await core.rate_subject(ALICE)
        await core.list_my_games(ALICE, None, 0, "")

    await asyncio.create_task(request())
    assert identity.verified == 1
    await asyncio.create_task(request())
    assert identity.verified == 2

    async def stream() -> None:  # a long-lived task: each later call verifies its token
        await core.list_my_games(ALICE, None, 0, "")
        await core.list_my_games(ALICE, None, 0, "")

    await asyncio.create_task(stream())
    assert identity.verified == 4
    assert await core.rate_subject(None) == ""
    assert await core.rate_subject("seat.token.of.four") == ""

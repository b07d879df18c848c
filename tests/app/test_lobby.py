"""Tests of the lobby in the application core: public games, ListGames, joining without invite."""

from __future__ import annotations

import random

import pytest
from support.blobs import with_rules
from support.fake_clock import FakeClock

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameCore,
    GameStatus,
    InvalidArgument,
    LobbyGame,
    SeatSpec,
    SeatTaken,
    StoreClock,
    Sweeper,
    TokenAuthority,
)
from scopa.storage import MemoryStore

SECRET = b"k" * 32


class Wall:
    """A settable wall clock (seconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wall() -> Wall:
    """The wall clock of the cores."""
    return Wall()


@pytest.fixture
def ttl_clock() -> FakeClock:
    """The store's monotonic clock (game expiry)."""
    return FakeClock()


@pytest.fixture
def store(wall: Wall, ttl_clock: FakeClock) -> MemoryStore:
    """The embedded store of the cores."""
    return MemoryStore(clock=ttl_clock, wall=wall)


@pytest.fixture
def core(wall: Wall, store: MemoryStore) -> GameCore:
    """A core whose games wait 60 s for players."""
    settings = CoreSettings(waiting_ttl_s=60)
    return GameCore(
        store, TokenAuthority(SECRET), settings, random.Random(1), clock=StoreClock(wall)
    )


async def _public(
    core: GameCore, wall: Wall, preset: str = "scopa", seats: int = 2
) -> CreateResult:
    wall.now += 1  # one game per second: the lobby orders by creation time
    specs = [SeatSpec("host")] + [SeatSpec("", open=True) for _ in range(seats - 1)]
    return await core.create_game(CreateGameCommand(preset, {}, specs, public=True))


async def _listed(core: GameCore, preset: str = "") -> list[str]:
    games, _ = await core.list_games(preset, 0, "")
    return [g.game_id for g in games]


async def test_a_public_game_is_listed_from_its_summary(core: GameCore, wall: Wall) -> None:
    """The lobby shows the waiting game's preset, seats (names, open ones, bots), clock and
    creation time: what its summary holds, never a hand."""
    specs = [SeatSpec("host"), SeatSpec("", open=True), SeatSpec("", bot="greedy")]
    command = CreateGameCommand("scopa3", {}, specs, public=True, turn_timeout_s=30)
    created = await core.create_game(command)
    games, token = await core.list_games("", 10, "")
    assert [g.game_id for g in games] == [created.game_id] and token == ""
    game = games[0]
    assert isinstance(game, LobbyGame) and not hasattr(game, "view")
    assert game.status is GameStatus.WAITING_FOR_PLAYERS and game.public
    assert (game.preset, game.version) == ("scopa3", created.snapshot.version)
    assert [(s.name, s.open, s.joined, s.bot) for s in game.seats] == [
        ("host", False, True, ""),
        ("", True, False, ""),
        (created.snapshot.seats[2].name, False, True, "greedy"),
    ]
    assert (game.turn_timeout_s, game.timeout_bot) == (30, created.snapshot.timeout_bot)
    assert game.created_ms == int(wall.now * 1000)


async def test_a_lobby_page_loads_no_game(
    core: GameCore, wall: Wall, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each listed game comes from the summary kept in the lobby: a page of any size reads
    no game (and decodes no state); a join refreshes the summary."""
    made = [await _public(core, wall, "scopa4", 4) for _ in range(5)]
    await core.join_game(made[0].game_id, "", "ann")
    loads: list[str] = []

    async def load(game_id: str, *args: object, **kw: object) -> object:
        loads.append(game_id)
        raise AssertionError("a lobby page loaded a game")

    monkeypatch.setattr(store, "load", load)
    games, _ = await core.list_games("", 100, "")
    assert [g.game_id for g in games] == [c.game_id for c in reversed(made)] and loads == []
    assert [s.open for s in games[-1].seats] == [False, False, True, True]
    assert games[-1].seats[1].name == "ann"


async def test_private_and_full_games_are_not_listed(core: GameCore, wall: Wall) -> None:
    """Only public games with an open seat are in the lobby."""
    await core.create_game(CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("", open=True)]))
    await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b")], public=True)
    )
    assert await _listed(core) == []


async def test_joining_without_invite_takes_the_lowest_open_seat(
    core: GameCore, wall: Wall
) -> None:
    """A public game's seats need no invite; the full game leaves the lobby."""
    created = await _public(core, wall, "scopa4", 4)
    first = await core.join_game(created.game_id, "", "ann")
    assert first.seat == 1 and await _listed(core) == [created.game_id]
    second = await core.join_game(created.game_id, "", "bob", request_id="r-bob")
    again = await core.join_game(created.game_id, "", "bob", request_id="r-bob")
    assert (second.seat, again.seat, again.token) == (2, 2, second.token)
    third = await core.join_game(created.game_id, "", "cy")
    assert third.seat == 3 and third.snapshot.status is GameStatus.ACTIVE
    assert await _listed(core) == []
    with pytest.raises(SeatTaken):
        await core.join_game(created.game_id, "", "dan")


async def test_a_private_game_still_needs_its_invite(core: GameCore) -> None:
    """Without an invite code, only a public game's seats can be joined."""
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("", open=True)])
    )
    with pytest.raises(InvalidArgument) as caught:
        await core.join_game(created.game_id, "", "x")
    assert caught.value.field == "invite_code"


async def test_the_lobby_is_newest_first_filtered_and_paged(core: GameCore, wall: Wall) -> None:
    """Pages follow each other without repeats, newest first, within the preset asked."""
    made = [await _public(core, wall, "scopa" if i % 2 else "scopone", 4) for i in range(7)]
    scopa = [c.game_id for c in reversed(made) if c.snapshot.view.preset == "scopa"]
    seen: list[str] = []
    token = ""
    for _ in range(10):
        games, token = await core.list_games("scopa", 2, token)
        seen += [g.game_id for g in games]
        if not token:
            break
    assert seen == scopa
    assert await _listed(core) == [c.game_id for c in reversed(made)]


async def test_a_finished_game_leaves_the_lobby(core: GameCore, wall: Wall) -> None:
    """The host resigning a waiting game takes it off the list."""
    created = await _public(core, wall)
    await core.resign(created.game_id, created.tokens[0][1])
    assert await _listed(core) == []


async def test_an_expired_game_leaves_the_lobby(
    core: GameCore, wall: Wall, ttl_clock: FakeClock
) -> None:
    """Past the waiting expiry the game is gone and no longer listed."""
    await _public(core, wall)
    wall.now += 61
    ttl_clock.advance(61)
    assert await _listed(core) == []


@pytest.mark.parametrize(
    ("preset", "size", "token", "field"),
    [
        ("nope", 0, "", "preset"),
        ("", -1, "", "page_size"),
        ("", 0, "garbage!", "page_token"),
    ],
)
async def test_bad_list_requests_are_refused(
    core: GameCore, preset: str, size: int, token: str, field: str
) -> None:
    """An unknown preset, a negative size or a malformed token is INVALID_ARGUMENT."""
    with pytest.raises(InvalidArgument) as caught:
        await core.list_games(preset, size, token)
    assert caught.value.field == field


async def test_a_page_token_is_bound_to_its_preset(core: GameCore, wall: Wall) -> None:
    """A token of the scopa listing is refused for another filter."""
    for _ in range(3):
        await _public(core, wall)
    _, token = await core.list_games("scopa", 1, "")
    assert token
    with pytest.raises(InvalidArgument):
        await core.list_games("", 1, token)
    assert rules.PRESETS


async def test_a_listed_game_no_release_can_play_leaves_the_lobby_when_joined(
    core: GameCore, wall: Wall, store: MemoryStore
) -> None:
    """A listed game whose stored rules no longer build stays listed by its summary until
    someone tries to join it: the join is GAME_UNPLAYABLE and takes it off the lobby."""
    broken, kept = await _public(core, wall), await _public(core, wall)
    game = store._games[broken.game_id]
    game.state = with_rules(game.state, "scopa", {"deck_size": 41})
    assert await _listed(core) == [kept.game_id, broken.game_id]
    with pytest.raises(rules.GameUnplayable):
        await core.join_game(broken.game_id, "", "ann")
    assert await _listed(core) == [kept.game_id]


async def test_an_expired_game_leaves_the_lobby_with_nobody_listing_it(
    core: GameCore, wall: Wall, ttl_clock: FakeClock, store: MemoryStore
) -> None:
    """The sweeper, not a reader, takes an expired public game off the lobby: listed again as
    of a time before its expiry, it is no longer there."""
    created = await _public(core, wall)
    listed_ms = int(wall.now * 1000)
    assert [row[:2] for row in await store.public_games("", listed_ms, 10)] == [
        (created.game_id, listed_ms)
    ]
    wall.now += 61
    ttl_clock.advance(61)
    await Sweeper(core).sweep()
    assert await store.public_games("", listed_ms, 10) == []

"""Tests of scopa.app._core against the embedded store."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import pytest
from support.fake_clock import FakeClock

from scopa import rules
from scopa.app import (
    ConcurrentUpdate,
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameCore,
    GameNotFoundError,
    GameStatus,
    GameStuck,
    InvalidArgument,
    InviteInvalid,
    PermissionDenied,
    RequestIdReused,
    SeatJoined,
    SeatSpec,
    SeatTaken,
    StackedDecksDisabled,
    StaleEtag,
    TokenAuthority,
    TooManyWatches,
    Unauthenticated,
    WaitingForPlayers,
    WatchIdle,
)
from scopa.storage import MemoryStore, OutcomeUnknown, Snapshot

SECRET = b"k" * 32


def make_core(*, stacked: bool = True, seed: int = 7) -> GameCore:
    return GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=stacked),
        rng=random.Random(seed),
    )


async def two_seat_game(core: GameCore, **kw: object) -> tuple[CreateResult, dict[int, str]]:
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("bob")], **kw)  # type: ignore[arg-type]
    )
    return created, dict(created.tokens)


async def test_create_gives_tokens_for_held_seats_and_invites_for_open_ones() -> None:
    """Held seats get tokens, open seats get invite codes, and the game waits for them."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa4", {}, [SeatSpec("a"), SeatSpec("", open=True)] * 2)
    )
    assert [s for s, _ in created.tokens] == [0, 2]
    assert [s for s, _ in created.invites] == [1, 3]
    assert created.snapshot.status is GameStatus.WAITING_FOR_PLAYERS
    assert created.snapshot.view.legal_moves == ()


async def test_retried_create_returns_the_same_game() -> None:
    """A create retried with its request_id returns the first game and the same tokens."""
    core = make_core()
    first, _ = await two_seat_game(core, request_id="create-1")
    again, _ = await two_seat_game(core, request_id="create-1")
    assert (again.game_id, again.tokens) == (first.game_id, first.tokens)
    other, _ = await two_seat_game(core, request_id="create-2")
    assert other.game_id != first.game_id


async def test_retried_create_must_be_the_same_request() -> None:
    """A request_id reused with other seats is refused: no tokens for seats left open."""
    core = make_core()
    first = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)], request_id="c1")
    )
    assert [s for s, _ in first.tokens] == [0]
    for seats in ([SeatSpec("ann"), SeatSpec("")], [SeatSpec("ann"), SeatSpec("x", open=True)]):
        with pytest.raises(InvalidArgument) as err:
            await core.create_game(CreateGameCommand("scopa", {}, seats, request_id="c1"))
        assert err.value.field == "request_id"
    with pytest.raises(InvalidArgument):
        await core.create_game(
            CreateGameCommand(
                "scopa",
                {"target_score": 5},
                [SeatSpec("ann"), SeatSpec("", open=True)],
                request_id="c1",
            )
        )


async def test_stacked_decks_need_permission() -> None:
    """Stacked decks are refused unless the server allows them."""
    core = make_core(stacked=False)
    with pytest.raises(StackedDecksDisabled):
        await core.create_game(CreateGameCommand("scopa", {}, [], stacked_decks=[list(range(40))]))


async def test_stacked_deck_deals_as_documented() -> None:
    """With a stacked deck, seat 0 receives cards 0 and 2 and 4 of the deck (RULINGS.md)."""
    core = make_core()
    deck = list(range(40))
    created = await core.create_game(CreateGameCommand("scopa", {}, [], stacked_decks=[deck]))
    view = (await core.get_state(created.game_id, dict(created.tokens)[0])).view
    assert view.hand == (0, 2, 4)
    assert sorted(view.table) == [6, 7, 8, 9]


async def test_spectator_sees_no_hand() -> None:
    """Without a token the view has no hand and no legal moves."""
    core = make_core()
    created, _ = await two_seat_game(core)
    view = (await core.get_state(created.game_id, None)).view
    assert view.seat is None
    assert view.hand == ()
    assert view.legal_moves == ()
    assert view.hand_sizes == (3, 3)


async def test_play_needs_a_token() -> None:
    """Playing without a token is UNAUTHENTICATED."""
    core = make_core()
    created, _ = await two_seat_game(core)
    with pytest.raises(Unauthenticated):
        await core.play_card(created.game_id, None, rules.Move(0))


async def test_token_of_another_game_is_denied() -> None:
    """A token of game A cannot act in game B."""
    core = make_core()
    _, tokens_a = await two_seat_game(core)
    b, _ = await two_seat_game(core)
    with pytest.raises(PermissionDenied):
        await core.get_state(b.game_id, tokens_a[0])


async def test_illegal_move_changes_nothing() -> None:
    """An out-of-turn move is refused with NOT_YOUR_TURN and the version stays."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    before = await core.get_state(created.game_id, tokens[1])
    with pytest.raises(rules.NotYourTurn):
        await core.play_card(created.game_id, tokens[1], rules.Move(before.view.hand[0]))
    after = await core.get_state(created.game_id, tokens[1])
    assert after.version == before.version
    assert after.view == before.view


async def test_stale_etag_is_refused() -> None:
    """A move with an old etag is refused with STALE_ETAG."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    view = await core.get_state(created.game_id, tokens[0])
    with pytest.raises(StaleEtag):
        await core.play_card(created.game_id, tokens[0], view.view.legal_moves[0], etag="v999")


async def test_retried_request_id_returns_first_response() -> None:
    """A retried request_id returns the first response and plays nothing twice."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    view = await core.get_state(created.game_id, tokens[0])
    move = view.view.legal_moves[0]
    first = await core.play_card(created.game_id, tokens[0], move, request_id="m1")
    second = await core.play_card(created.game_id, tokens[0], move, request_id="m1")
    assert second == first
    assert (await core.get_state(created.game_id, None)).version == first.snapshot.version


async def test_request_id_of_another_seat_never_replays_its_response() -> None:
    """Each seat keeps its own latest request: another seat's request_id is a new request."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    view = await core.get_state(created.game_id, tokens[0])
    first = await core.play_card(
        created.game_id, tokens[0], view.view.legal_moves[0], request_id="m1"
    )
    theirs = await core.get_state(created.game_id, tokens[1])
    second = await core.play_card(
        created.game_id, tokens[1], theirs.view.legal_moves[0], request_id="m1"
    )
    assert (first.snapshot.version, second.snapshot.version) == (2, 3)
    assert second.snapshot.view.seat == 1


async def test_retried_create_must_have_the_same_bot_seats() -> None:
    """A create request_id reused with another bot level, or a person for a bot, is refused."""
    core = make_core()
    bot = [SeatSpec("ann"), SeatSpec("", bot="greedy")]
    first = await core.create_game(CreateGameCommand("scopa", {}, bot, request_id="c1"))
    assert [s for s, _ in first.tokens] == [0]
    for seats in ([SeatSpec("ann"), SeatSpec("", bot="random")], [SeatSpec("ann"), SeatSpec("")]):
        with pytest.raises(RequestIdReused):
            await core.create_game(CreateGameCommand("scopa", {}, seats, request_id="c1"))
    again = await core.create_game(CreateGameCommand("scopa", {}, bot, request_id="c1"))
    assert (again.game_id, again.tokens) == (first.game_id, first.tokens)


async def test_request_id_reused_for_another_request_is_refused() -> None:
    """A seat's request_id reused for another move, or for a resign, is REQUEST_ID_REUSED."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    moves = (await core.get_state(game, tokens[0])).view.legal_moves
    await core.play_card(game, tokens[0], moves[0], request_id="m1")
    with pytest.raises(RequestIdReused) as caught:
        await core.resign(game, tokens[0], request_id="m1")
    assert caught.value.reason == "REQUEST_ID_REUSED" and caught.value.field == "request_id"
    other = next(m for m in moves if m.card != moves[0].card)
    with pytest.raises(RequestIdReused):
        await core.play_card(game, tokens[0], other, request_id="m1")
    again = await core.play_card(game, tokens[0], moves[0], request_id="m1")
    assert again.snapshot.version == 2
    assert (await core.get_state(game, None)).status is not GameStatus.FINISHED


async def test_only_the_latest_request_of_each_seat_is_kept() -> None:
    """A seat's cache holds one response: the game hash does not grow with its moves."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(5))
    created, tokens = await two_seat_game(core)
    rng = random.Random(6)
    for i in range(10):
        game = created.game_id
        seat = (await core.get_state(game, None)).view.turn
        mine = await core.get_state(game, tokens[seat])
        await core.play_card(
            game, tokens[seat], rng.choice(mine.view.legal_moves), request_id=f"r{i}"
        )
    cached = store._games[created.game_id].requests
    assert sorted(cached) == ["req@0", "req@1"]


async def test_join_retry_after_the_game_ended_returns_its_first_response() -> None:
    """A JoinGame retried after the game is over gets its first answer, not GAME_OVER."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    game, code = created.game_id, dict(created.invites)[1]
    joined = await core.join_game(game, code, "bob", request_id="j1")
    await core.resign(game, dict(created.tokens)[0])
    again = await core.join_game(game, code, "bob", request_id="j1")
    assert (again.seat, again.token) == (joined.seat, joined.token)
    assert again.snapshot.version == joined.snapshot.version
    with pytest.raises(RequestIdReused):
        await core.join_game(game, code, "eve", request_id="j1")


async def test_games_waiting_for_players_get_the_short_ttl() -> None:
    """An unstarted game expires after waiting_ttl_s; once every seat joined, the long TTL."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    core = GameCore(
        store, TokenAuthority(SECRET), CoreSettings(waiting_ttl_s=60, active_ttl_s=3600)
    )
    waiting = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    joined = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    await core.join_game(joined.game_id, dict(joined.invites)[1], "bob")
    clock.advance(61)
    with pytest.raises(GameNotFoundError):
        await core.get_state(waiting.game_id, None)
    assert (await core.get_state(joined.game_id, None)).version == 2


class InterleavingStore(MemoryStore):
    """The embedded store, yielding to other tasks after every load and before every commit, as
    a network store would; it counts both."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.commits = 0

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        self.loads += 1
        snapshot = await super().load(game_id, request_id, slot)
        await asyncio.sleep(0)
        return snapshot

    async def commit(self, *args: Any, **kwargs: Any) -> int:
        self.commits += 1
        await asyncio.sleep(0)
        return await super().commit(*args, **kwargs)


def replica(store: MemoryStore, seed: int = 7, **settings: Any) -> GameCore:
    """One replica's core on a shared store."""
    return GameCore(store, TokenAuthority(SECRET), CoreSettings(**settings), random.Random(seed))


async def legal_moves(store: MemoryStore, game_id: str, token: str) -> tuple[rules.Move, ...]:
    """The token's seat's legal moves, read by a replica of its own."""
    moves = (await replica(store).get_state(game_id, token)).view.legal_moves
    return tuple(m for m in moves if isinstance(m, rules.Move))


async def test_racing_moves_on_unknown_versions_exactly_one_wins() -> None:
    """Two replicas that load the same version race: one commits, the other is CONCURRENT_UPDATE."""
    store = InterleavingStore()
    created, tokens = await two_seat_game(replica(store))
    racers = (replica(store), replica(store))
    view = await replica(store).get_state(created.game_id, tokens[0])
    moves = view.view.legal_moves
    outcomes = await asyncio.gather(
        racers[0].play_card(created.game_id, tokens[0], moves[0], request_id="r1"),
        racers[1].play_card(created.game_id, tokens[0], moves[-1], request_id="r2"),
        return_exceptions=True,
    )
    wins = [o for o in outcomes if not isinstance(o, BaseException)]
    losses = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(wins) == 1
    assert len(losses) == 1 and isinstance(losses[0], ConcurrentUpdate)
    after = await replica(store).get_state(created.game_id, None)
    assert after.version == view.version + 1
    assert after.view.history == wins[0].snapshot.view.history


async def test_racing_moves_on_a_known_version_exactly_one_wins() -> None:
    """Two moves on the version a replica knows: one commits, the other meets the game after."""
    store = InterleavingStore()
    core = replica(store)
    created, tokens = await two_seat_game(core)
    view = await core.get_state(created.game_id, tokens[0])
    moves = view.view.legal_moves
    outcomes = await asyncio.gather(
        core.play_card(created.game_id, tokens[0], moves[0], request_id="r1"),
        core.play_card(created.game_id, tokens[0], moves[-1], request_id="r2"),
        return_exceptions=True,
    )
    wins = [o for o in outcomes if not isinstance(o, BaseException)]
    losses = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(wins) == 1
    assert len(losses) == 1 and isinstance(losses[0], rules.NotYourTurn)
    after = await core.get_state(created.game_id, None)
    assert after.version == view.version + 1
    assert after.view.history == wins[0].snapshot.view.history


async def test_a_move_on_the_version_this_replica_wrote_loads_nothing() -> None:
    """The next move after this replica's own commit is one commit and no load."""
    store = InterleavingStore()
    core = replica(store)
    created, tokens = await two_seat_game(core)
    first = await core.play_card(
        created.game_id, tokens[0], created.snapshot.view.legal_moves[0], request_id="a"
    )
    move = (await legal_moves(store, created.game_id, tokens[1]))[0]
    loads, commits = store.loads, store.commits
    second = await core.play_card(created.game_id, tokens[1], move, request_id="b")
    assert (store.loads - loads, store.commits - commits) == (0, 1)
    assert second.snapshot.version == first.snapshot.version + 1
    fresh = await replica(store).get_state(created.game_id, tokens[0])
    assert fresh.view.history == second.snapshot.view.history


async def test_a_move_on_a_version_another_replica_moved_past_is_decided_on_the_stored_game() -> (
    None
):
    """A move legal only on a stale known version commits nothing: the failed commit's stored
    game decides it (NOT_YOUR_TURN), with no load, and is known from then on."""
    store = InterleavingStore()
    ours, theirs = replica(store), replica(store, seed=8)
    created, tokens = await two_seat_game(ours)
    game, move = created.game_id, created.snapshot.view.legal_moves[0]
    first = await theirs.play_card(game, tokens[0], move)
    loads, commits = store.loads, store.commits
    with pytest.raises(rules.NotYourTurn):  # seat 0's turn in the version `ours` knew
        await ours.play_card(game, tokens[0], move)
    assert (store.loads - loads, store.commits - commits) == (0, 1)
    answer = (await legal_moves(store, game, tokens[1]))[0]
    loads, commits = store.loads, store.commits
    second = await ours.play_card(game, tokens[1], answer)
    assert (store.loads - loads, store.commits - commits) == (0, 1)
    assert second.snapshot.version == first.snapshot.version + 1
    fresh = await replica(store).get_state(game, tokens[0])
    assert fresh.view.history == second.snapshot.view.history


async def test_a_move_refused_on_a_stale_known_version_is_decided_on_the_loaded_game() -> None:
    """A move the rules refuse on the version a replica knows (not the mover's turn there) is
    not refused: the game is loaded, and on it the move is legal and taken."""
    store = InterleavingStore()
    ours, theirs = replica(store), replica(store, seed=8)
    created, tokens = await two_seat_game(ours)  # ours knows version 1: seat 0 to play
    game = created.game_id
    await theirs.play_card(game, tokens[0], created.snapshot.view.legal_moves[0])
    move = (await legal_moves(store, game, tokens[1]))[0]
    loads, commits = store.loads, store.commits
    taken = await ours.play_card(game, tokens[1], move)
    assert (store.loads - loads, store.commits - commits) == (1, 1)
    assert taken.snapshot.version == 3


async def test_an_etag_of_the_latest_version_holds_although_the_known_one_is_older() -> None:
    """An etag naming the game's version is not stale because a replica knew an older one; an
    etag of the older version is."""
    store = InterleavingStore()
    ours, theirs = replica(store), replica(store, seed=8)
    created, tokens = await two_seat_game(ours)
    game = created.game_id
    await theirs.play_card(game, tokens[0], created.snapshot.view.legal_moves[0])
    move = (await legal_moves(store, game, tokens[1]))[0]
    with pytest.raises(StaleEtag):
        await ours.play_card(game, tokens[1], move, etag="v1")
    taken = await ours.play_card(game, tokens[1], move, etag="v2")
    assert taken.snapshot.version == 3


class LostReplyStore(MemoryStore):
    """The embedded store whose next commit applies, then reports its outcome unknown (a reply
    lost as Redis stalled)."""

    lose_next = False

    async def commit(self, *args: Any, **kwargs: Any) -> int:
        version = await super().commit(*args, **kwargs)
        if self.lose_next:
            self.lose_next = False
            raise OutcomeUnknown("the reply was lost")
        return version


async def test_a_retry_after_a_lost_reply_on_the_known_version_gets_the_first_response() -> None:
    """A play whose commit applied but whose reply was lost is OUTCOME_UNKNOWN; retried with its
    request_id on the same replica (whose known version is the one before it), it gets the
    first response and nothing is played twice."""
    store = LostReplyStore()
    core = replica(store)
    created, tokens = await two_seat_game(core)
    move = created.snapshot.view.legal_moves[0]
    store.lose_next = True
    with pytest.raises(OutcomeUnknown):
        await core.play_card(created.game_id, tokens[0], move, request_id="once")
    retried = await core.play_card(created.game_id, tokens[0], move, request_id="once")
    fresh = await replica(store).get_state(created.game_id, tokens[0])
    assert retried.snapshot.version == fresh.version == created.snapshot.version + 1
    assert len(fresh.view.history) == 1 and fresh.view.history[0].card == move.card


async def test_a_known_version_of_an_expired_game_recreated_under_its_id_is_not_used() -> None:
    """Same id, same version, other bytes (an expired game created again by its request_id):
    the move is decided on the stored game, never on the replica's copy of the old one."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    ours = replica(store, allow_stacked_decks=True, active_ttl_s=60.0)
    deck = list(range(40))
    command = CreateGameCommand(
        "scopa", {}, [SeatSpec("ann"), SeatSpec("bob")], request_id="same", stacked_decks=[deck]
    )
    old = await ours.create_game(command)
    game, tokens, opening = old.game_id, dict(old.tokens), old.snapshot.view.legal_moves
    played = await ours.play_card(game, tokens[0], opening[0])
    answers = await legal_moves(store, game, tokens[1])
    clock.advance(61.0)
    other = replica(store, seed=9, allow_stacked_decks=True, active_ttl_s=60.0)
    new = await other.create_game(command)
    assert new.game_id == game and dict(new.tokens) == tokens
    assert opening[-1].card != opening[0].card
    again = await other.play_card(game, tokens[0], opening[-1])  # another card: other bytes
    assert again.snapshot.version == played.snapshot.version
    move = next(m for m in await legal_moves(store, game, tokens[1]) if m in answers)
    result = await ours.play_card(game, tokens[1], move)
    fresh = await replica(store).get_state(game, tokens[1])
    assert result.snapshot.version == again.snapshot.version + 1
    assert [p.card for p in fresh.view.history] == [opening[-1].card, move.card]
    assert fresh.view == result.snapshot.view


async def test_invite_flow() -> None:
    """An invite code claims its seat once; the game starts when every seat is taken."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    token0 = dict(created.tokens)[0]
    with pytest.raises(WaitingForPlayers):
        await core.play_card(created.game_id, token0, rules.Move(0))
    with pytest.raises(InviteInvalid):
        await core.join_game(created.game_id, "nope", "bob")
    code = dict(created.invites)[1]
    joined = await core.join_game(created.game_id, code, "bob")
    assert joined.seat == 1
    assert joined.snapshot.status is GameStatus.ACTIVE
    assert joined.snapshot.seats[1].name == "bob"
    with pytest.raises(SeatTaken):
        await core.join_game(created.game_id, code, "eve")
    assert (await core.get_state(created.game_id, joined.token)).view.seat == 1


async def test_resign_ends_the_game() -> None:
    """A resignation finishes the game and the other side wins."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    result = await core.resign(created.game_id, tokens[1])
    assert result.snapshot.status is GameStatus.FINISHED
    assert result.snapshot.view.winners == (0,)
    with pytest.raises(rules.GameOver):
        await core.resign(created.game_id, tokens[0])


async def test_unknown_and_malformed_game() -> None:
    """Unknown games are GAME_NOT_FOUND; malformed names are INVALID_ARGUMENT."""
    core = make_core()
    with pytest.raises(GameNotFoundError):
        await core.get_state("nosuchgame", None)
    with pytest.raises(InvalidArgument):
        await core.get_state("bad/{id}", None)


async def play_one(core: GameCore, game: str, tokens: dict[int, str], rng: random.Random) -> int:
    """The seat to play plays a random legal move; returns the new version."""
    seat = (await core.get_state(game, None)).view.turn
    mine = await core.get_state(game, tokens[seat])
    result = await core.play_card(game, tokens[seat], rng.choice(mine.view.legal_moves))
    return result.snapshot.version


async def test_watch_resumes_and_hides_other_hands() -> None:
    """A watch replays what was missed, then live updates; other seats' dealt cards stay hidden."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    rng = random.Random(2)
    for _ in range(5):  # versions 2..6; the 6th play (version 7) empties both hands
        await play_one(core, game, tokens, rng)
    updates = core.watch(game, tokens[1], from_version=2)
    caught_up = await anext(updates)
    assert [e.version for e in caught_up.events] == [3, 4, 5, 6]
    seat0_before = set((await core.get_state(game, tokens[0])).view.hand)
    version = await play_one(core, game, tokens, rng)
    live = await asyncio.wait_for(anext(updates), 5)
    assert live.snapshot.version == version == 7
    assert not seat0_before & set(caught_up.snapshot.view.hand)
    dealt = {e.event.seat: e.event for e in live.events if isinstance(e.event, rules.CardsDealt)}
    assert set(dealt) == {0, 1}, "the seventh version deals again"
    assert dealt[0].cards == () and dealt[0].n_cards == 3
    assert set(dealt[1].cards) == set(live.snapshot.view.hand)
    await updates.aclose()


async def test_watch_records_joins() -> None:
    """A join shows up as a SeatJoined event in the watch stream."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    await core.join_game(created.game_id, dict(created.invites)[1], "bob")
    updates = core.watch(created.game_id, None, from_version=1)
    update = await anext(updates)
    assert [e.event for e in update.events] == [SeatJoined(1, "bob")]
    await updates.aclose()


async def test_last_events_come_with_every_view() -> None:
    """GetState carries the latest version's events, with other seats' dealt cards hidden."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    spectator = await core.get_state(created.game_id, None)
    kinds = {type(e.event) for e in spectator.last_events}
    assert rules.HandStarted in kinds
    assert rules.CardsDealt in kinds
    for e in spectator.last_events:
        assert e.version == spectator.version
        if isinstance(e.event, rules.CardsDealt):
            assert e.event.cards == ()
    mine = await core.get_state(created.game_id, tokens[0])
    own = [e.event for e in mine.last_events if isinstance(e.event, rules.CardsDealt)]
    assert [bool(d.cards) for d in own] == [d.seat == 0 for d in own]


async def test_move_result_view_has_the_stored_last_events() -> None:
    """A move's own view shows the same last events as a later GetState reads from the store."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    for _ in range(8):
        snap = await core.get_state(created.game_id, None)
        seat = snap.view.turn
        mine = await core.get_state(created.game_id, tokens[seat])
        played = await core.play_card(created.game_id, tokens[seat], mine.view.legal_moves[0])
        assert played.snapshot.last_events == played.events
        again = await core.get_state(created.game_id, tokens[seat])
        assert again.last_events == played.events
        assert rules.CardPlayed in {type(e.event) for e in again.last_events}


async def test_watch_from_zero_starts_at_current_state() -> None:
    """A watch from version 0 sends the current view with no past events."""
    core = make_core()
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=0)
    first = await anext(updates)
    assert first.events == ()
    assert first.snapshot.version == 1
    await updates.aclose()


async def test_resigned_seat_is_recorded() -> None:
    """The view says which seat resigned."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    result = await core.resign(created.game_id, tokens[1])
    assert result.snapshot.resigned == 1


async def test_watch_refuses_versions_outside_the_game() -> None:
    """A negative from_version, or one newer than the game, is INVALID_ARGUMENT."""
    core = make_core()
    created, _ = await two_seat_game(core)
    for bad in (-1, 99):
        with pytest.raises(InvalidArgument) as err:
            await anext(core.watch(created.game_id, None, from_version=bad))
        assert err.value.field == "from_version"


async def test_watch_at_current_version_sends_the_view_first() -> None:
    """Resuming at the current version first sends the current view with no events."""
    core = make_core()
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=1)
    first = await anext(updates)
    assert (first.events, first.snapshot.version) == ((), 1)
    await updates.aclose()


async def test_join_after_the_game_is_over_is_refused() -> None:
    """Claiming a seat of a finished game is GAME_OVER."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    await core.resign(created.game_id, dict(created.tokens)[0])
    with pytest.raises(rules.GameOver):
        await core.join_game(created.game_id, dict(created.invites)[1], "bob")


@pytest.mark.parametrize("request_id", ["x\n", "abc\n", "a b", "é"])
async def test_request_id_must_match_whole(request_id: str) -> None:
    """A request_id with a trailing newline (or any other character) is INVALID_ARGUMENT."""
    core = make_core()
    with pytest.raises(InvalidArgument) as err:
        await two_seat_game(core, request_id=request_id)
    assert err.value.field == "request_id"


async def test_game_name_with_a_trailing_newline_is_invalid_not_missing() -> None:
    """A game id followed by a newline is INVALID_ARGUMENT on game_id, not GAME_NOT_FOUND."""
    core = make_core()
    created, _ = await two_seat_game(core)
    with pytest.raises(InvalidArgument) as err:
        await core.get_state(created.game_id + "\n", None)
    assert err.value.field == "game_id"  # the transport names it after its request field


@pytest.mark.parametrize(
    "name",
    ["a\x00b", "\x1b[31mred", "evil\u202etxt", "zero\u200bwidth", "line\u2028break", "x" * 65],
)
async def test_display_names_refuse_control_and_format_characters(name: str) -> None:
    """NUL, ANSI escapes, bidi overrides, zero-width and over-long names name their field."""
    core = make_core()
    with pytest.raises(InvalidArgument) as err:
        await core.create_game(CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec(name)]))
    assert err.value.field == "seats[1].display_name"
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    with pytest.raises(InvalidArgument) as err:
        await core.join_game(created.game_id, created.invites[0][1], name)
    assert err.value.field == "display_name"


async def test_display_names_keep_letters_of_any_script() -> None:
    """Accents, CJK, emoji and inner spaces are fine in a display name."""
    core = make_core()
    names = ["Zoë Ñandú", "王小明 😀"]
    created = await core.create_game(CreateGameCommand("scopa", {}, [SeatSpec(n) for n in names]))
    assert [s.name for s in created.snapshot.seats] == names


async def test_empty_preset_is_invalid() -> None:
    """The proto marks preset REQUIRED: empty is INVALID_ARGUMENT on preset, not scopa."""
    core = make_core()
    with pytest.raises(InvalidArgument) as err:
        await core.create_game(CreateGameCommand("", {}, [SeatSpec("a"), SeatSpec("b")]))
    assert err.value.field == "preset"


def _watch_core(clock: FakeClock | None = None, **settings: float) -> GameCore:
    store = MemoryStore(clock=clock) if clock is not None else MemoryStore()
    return GameCore(store, TokenAuthority(SECRET), CoreSettings(**settings))  # type: ignore[arg-type]


async def test_quiet_watch_ends_with_watch_idle() -> None:
    """A stream with no new version for watch_idle_s ends with WatchIdle, not silence."""
    core = _watch_core(watch_idle_s=0.2, watch_probe_s=0.05)
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    with pytest.raises(WatchIdle):
        await asyncio.wait_for(anext(updates), 5)


async def test_new_versions_reset_the_idle_limit() -> None:
    """A stream that keeps getting versions outlives the idle limit."""
    core = _watch_core(watch_idle_s=0.3, watch_probe_s=0.05)
    created, tokens = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    rng = random.Random(3)
    for _ in range(4):
        await asyncio.sleep(0.15)
        version = await play_one(core, created.game_id, tokens, rng)
        assert (await asyncio.wait_for(anext(updates), 5)).snapshot.version == version
    await updates.aclose()


async def test_watch_of_an_expired_game_ends_with_game_not_found() -> None:
    """Once the game expires, its stream ends with GameNotFoundError at the next probe."""
    clock = FakeClock()
    core = _watch_core(clock, active_ttl_s=60, watch_idle_s=30, watch_probe_s=0.05)
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    clock.advance(61)
    with pytest.raises(GameNotFoundError):
        await asyncio.wait_for(anext(updates), 5)


async def test_a_client_holds_at_most_watch_per_client_streams() -> None:
    """The client's next stream is refused with TooManyWatches; other clients are not."""
    core = _watch_core(watch_per_client=2)
    created, _ = await two_seat_game(core)
    game = created.game_id
    held = [core.watch(game, None, client="10.1.1.1") for _ in range(2)]
    for stream in held:
        await anext(stream)
    with pytest.raises(TooManyWatches):
        await anext(core.watch(game, None, client="10.1.1.1"))
    other = core.watch(game, None, client="10.1.1.2")
    await anext(other)
    await held[0].aclose()
    again = core.watch(game, None, client="10.1.1.1")
    await anext(again)
    for stream in (held[1], other, again):
        await stream.aclose()


async def test_many_streams_of_one_game_share_reads() -> None:
    """A hundred streams of one game cost one load per new version, not a hundred."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings())
    created, tokens = await two_seat_game(core)
    game = created.game_id
    streams = [core.watch(game, None) for _ in range(100)]
    for stream in streams:
        await anext(stream)
    loads = 0
    original = store.load

    async def counting(
        game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.01)
        return await original(game_id, request_id, slot)

    store.load = counting  # type: ignore[method-assign]
    await play_one(core, game, tokens, random.Random(1))
    before = loads
    updates = await asyncio.gather(*(asyncio.wait_for(anext(s), 5) for s in streams))
    assert {u.snapshot.version for u in updates} == {2}
    assert loads - before <= 2
    for stream in streams:
        await stream.aclose()


async def test_activity_callback_sees_creates_moves_and_the_end() -> None:
    """on_game_active gets (game_id, finished) for each change this core commits."""
    seen: list[tuple[str, bool]] = []
    core = GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=True),
        rng=random.Random(7),
        on_game_active=lambda game_id, finished: seen.append((game_id, finished)),
    )
    created, tokens = await two_seat_game(core)
    game = created.game_id
    await play_one(core, game, tokens, random.Random(3))
    await core.get_state(game, None)  # a read is no change
    await core.resign(game, tokens[0])
    assert seen == [(game, False), (game, False), (game, True)]


async def test_watch_callback_counts_open_streams() -> None:
    """on_watch gets +1 when a watch starts and -1 when it is closed; a refused watch adds 0."""
    deltas: list[int] = []
    core = GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=True),
        rng=random.Random(7),
        on_watch=deltas.append,
    )
    created, _tokens = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=1)
    await anext(updates)
    assert deltas == [1]
    await updates.aclose()
    assert deltas == [1, -1]
    with pytest.raises(InvalidArgument):
        await anext(core.watch(created.game_id, None, from_version=99))
    assert sum(deltas) == 0


async def test_an_unchanged_game_gives_each_seat_the_same_snapshot() -> None:
    """Reads of an unchanged game by one seat share one snapshot; another seat, a spectator
    or a new version gets its own, with the state as it is now."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    first = await core.get_state(game, tokens[0])
    assert await core.get_state(game, tokens[0]) is first
    other = await core.get_state(game, tokens[1])
    spectator = await core.get_state(game, None)
    assert other is not first and other.view.seat == 1 and spectator.view.hand == ()
    version = await play_one(core, game, tokens, random.Random(3))
    after = await core.get_state(game, tokens[0])
    assert after is not first and after.version == version == first.version + 1
    assert len(after.view.hand) == len(first.view.hand) - (first.view.turn == 0)


async def test_a_replica_of_the_previous_format_refuses_games_written_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every write is of the current format: a replica that reads only the format before it
    (the previous release's) answers FORMAT_TOO_NEW to reads, plays and joins of such a game,
    and changes nothing (it never rewrites the meta without what it cannot read)."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    waiting = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    playing, tokens = await two_seat_game(core)
    turn = (await core.get_state(playing.game_id, None)).view.turn
    move = (await core.get_state(playing.game_id, tokens[turn])).view.legal_moves[0]
    games = [store._games[waiting.game_id], store._games[playing.game_id]]
    assert all(g.state[0] == rules.FORMAT_VERSION for g in games)
    before = [(g.state, g.meta, g.version) for g in games]
    older = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    monkeypatch.setattr(rules._serial, "FORMAT_VERSION", rules.FORMAT_VERSION - 1)
    with pytest.raises(rules.FormatTooNew) as err:
        await older.get_state(playing.game_id, tokens[turn])
    assert err.value.metadata["format"] == str(rules.FORMAT_VERSION)
    with pytest.raises(rules.FormatTooNew):
        await older.play_card(playing.game_id, tokens[turn], move)
    with pytest.raises(rules.FormatTooNew):
        await older.join_game(waiting.game_id, dict(waiting.invites)[1], "bob")
    assert [(g.state, g.meta, g.version) for g in games] == before


def stuck_blob(blob: bytes) -> bytes:
    """``blob``'s state with the seat to play holding no card: it has no legal action."""
    state = rules.load_state(blob)
    hands = tuple(() if s == state.turn else h for s, h in enumerate(state.hands))
    stuck = replace(state, hands=hands, stock=state.stock + state.hands[state.turn])
    assert rules.is_stuck(stuck)
    return rules.dump_state(stuck)


async def test_a_stuck_game_is_refused_and_counted_once() -> None:
    """A stored game awaiting a seat with no legal action: every request on it is GAME_STUCK
    and changes nothing; the hook counts it once however often it is asked for."""
    store = MemoryStore()
    stuck: list[str] = []
    core = GameCore(
        store,
        TokenAuthority(SECRET),
        CoreSettings(),
        rng=random.Random(7),
        on_game_stuck=stuck.append,
    )
    created, tokens = await two_seat_game(core)
    game = store._games[created.game_id]
    game.state = stuck_blob(game.state)
    before = (game.state, game.version)
    turn = rules.load_state(before[0]).turn
    card = rules.load_state(before[0]).hands[1 - turn][0]
    for _ in range(2):
        with pytest.raises(GameStuck, match="has no legal action"):
            await core.get_state(created.game_id, tokens[turn])
        with pytest.raises(GameStuck):
            await core.play_card(created.game_id, tokens[1 - turn], rules.Move(card, None))
    assert stuck == ["scopa"]
    assert (game.state, game.version) == before

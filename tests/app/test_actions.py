"""Tests of scopa.app._actions (GetState, TakeAction, ResignGame) on the embedded store."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from support.fake_clock import FakeClock
from support.games import (
    SECRET,
    InterleavingStore,
    legal_moves,
    make_core,
    play_one,
    replica,
    two_seat_game,
)

from scopa import rules
from scopa.app import (
    ConcurrentUpdate,
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameNotFoundError,
    GameStatus,
    InvalidArgument,
    PermissionDenied,
    RequestIdReused,
    SeatSpec,
    StaleEtag,
    TokenAuthority,
    Unauthenticated,
)
from scopa.storage import MemoryStore, OutcomeUnknown


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


async def test_resigned_seat_is_recorded() -> None:
    """The view says which seat resigned."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    result = await core.resign(created.game_id, tokens[1])
    assert result.snapshot.resigned == 1


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

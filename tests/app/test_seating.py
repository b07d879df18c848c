"""Tests of scopa.app._seating (CreateGame, JoinGame) through the core, on the embedded store."""

from __future__ import annotations

import pytest
from support.fake_clock import FakeClock
from support.games import (
    SECRET,
    make_core,
    two_seat_game,
)

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameNotFoundError,
    GameStatus,
    InvalidArgument,
    InviteInvalid,
    RequestIdReused,
    SeatSpec,
    SeatTaken,
    StackedDecksDisabled,
    TokenAuthority,
    WaitingForPlayers,
)
from scopa.storage import MemoryStore


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
    """With a stacked deck, seat 0 receives cards 0 and 2 and 4 of the deck (docs/rules.md)."""
    core = make_core()
    deck = list(range(40))
    created = await core.create_game(CreateGameCommand("scopa", {}, [], stacked_decks=[deck]))
    view = (await core.get_state(created.game_id, dict(created.tokens)[0])).view
    assert view.hand == (0, 2, 4)
    assert sorted(view.table) == [6, 7, 8, 9]


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


async def test_join_after_the_game_is_over_is_refused() -> None:
    """Claiming a seat of a finished game is GAME_OVER."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    await core.resign(created.game_id, dict(created.tokens)[0])
    with pytest.raises(rules.GameOver):
        await core.join_game(created.game_id, dict(created.invites)[1], "bob")


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

"""Tests of scopa.app._seats: a new game's seats and credentials, and which seat a join claims."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    InvalidArgument,
    InviteInvalid,
    SeatSpec,
    SeatTaken,
    StackedDecksDisabled,
    TokenAuthority,
)
from scopa.app._seats import BOT_ONLY_HAND_LIMIT, invited_seat, new_game, open_seat

TOKENS = TokenAuthority(b"k" * 32)
SETTINGS = CoreSettings()
NOW = 1_800_000_000_000


def test_held_seats_get_tokens_open_seats_invites_and_bots_neither() -> None:
    seats = [SeatSpec("ann"), SeatSpec("", open=True), SeatSpec("", bot="greedy"), SeatSpec("")]
    new = new_game(
        CreateGameCommand("scopone", {}, seats), "r-1", SETTINGS, TOKENS, random.Random(1), NOW
    )
    assert [s for s, _ in new.tokens] == [0, 3] and new.first_seat == 0
    assert [s for s, _ in new.invites] == [1]
    assert [s.name for s in new.meta.seats] == ["ann", "", "Bot 3", "Player 4"]
    assert [(s.open, s.joined) for s in new.meta.seats[:2]] == [(False, True), (True, False)]
    assert new.meta.waiting and new.meta.created_ms == NOW and new.meta.last_events
    assert TOKENS.verify(dict(new.tokens)[3], new.game_id) == 3


def test_a_request_id_derives_the_same_game_and_credentials() -> None:
    cmd = CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    first, again = (
        new_game(cmd, "r-1", SETTINGS, TOKENS, random.Random(seed), NOW) for seed in (1, 2)
    )
    assert (first.game_id, first.tokens, first.invites) == (
        again.game_id,
        again.tokens,
        again.invites,
    )
    other = new_game(cmd, None, SETTINGS, TOKENS, random.Random(1), NOW)
    assert other.game_id != first.game_id


@pytest.mark.parametrize(
    ("cmd", "field"),
    [
        (CreateGameCommand("scopa", {"players": 2}, [SeatSpec("a")] * 3), "seats"),
        (CreateGameCommand("scopa", {}, [SeatSpec("a\x00"), SeatSpec("b")]), "display_name"),
        (CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b", bot="x")]), "bot"),
    ],
)
def test_a_bad_create_names_its_field(cmd: CreateGameCommand, field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        new_game(cmd, None, SETTINGS, TOKENS, random.Random(1), NOW)
    assert field in (refused.value.field or "")


def test_stacked_decks_need_the_server_setting() -> None:
    deck = list(range(40))
    cmd = CreateGameCommand("scopa", {}, [], stacked_decks=[deck])
    with pytest.raises(StackedDecksDisabled):
        new_game(cmd, None, SETTINGS, TOKENS, random.Random(1), NOW)
    allowed = replace(SETTINGS, allow_stacked_decks=True)
    new = new_game(cmd, None, allowed, TOKENS, random.Random(1), NOW)
    ruleset = rules.make_ruleset("scopa", {})
    dealt, _ = rules.new_match(ruleset, rng=random.Random(9), decks=(tuple(deck),))
    assert rules.dump_state(new.state) == rules.dump_state(dealt)


def test_an_invite_opens_only_its_own_seat() -> None:
    seats = [SeatSpec("ann"), SeatSpec("", open=True), SeatSpec("", open=True), SeatSpec("")]
    new = new_game(
        CreateGameCommand("scopone", {}, seats), "r-1", SETTINGS, TOKENS, random.Random(1), NOW
    )
    codes = dict(new.invites)
    assert invited_seat(TOKENS, new.game_id, new.meta, codes[2]) == 2
    with pytest.raises(InviteInvalid):
        invited_seat(TOKENS, "another-game", new.meta, codes[2])
    with pytest.raises(InvalidArgument):
        invited_seat(TOKENS, new.game_id, new.meta, "")


def test_a_public_join_takes_the_lowest_open_seat_until_none_is_left() -> None:
    seats = [SeatSpec("ann"), SeatSpec("", open=True), SeatSpec("", open=True), SeatSpec("")]
    new = new_game(
        CreateGameCommand("scopone", {}, seats, public=True),
        None,
        SETTINGS,
        TOKENS,
        random.Random(1),
        NOW,
    )
    meta = new.meta
    assert open_seat(meta, new.state) == 1
    meta = meta.with_joined(1, "bob")
    assert open_seat(meta, new.state) == 2
    with pytest.raises(SeatTaken):
        open_seat(meta.with_joined(2, "cy"), new.state)
    over, _ = rules.resign(new.state, 0)
    with pytest.raises(rules.GameOver):
        open_seat(new.meta, over)


ALLOWED = replace(SETTINGS, allow_bot_only_games=True)
BOTS = [SeatSpec("", bot="greedy"), SeatSpec("", bot="random")]


def test_a_game_without_a_person_plays_a_bounded_number_of_hands() -> None:
    """All bots: hand_limit is BOT_ONLY_HAND_LIMIT unless a lower one is given; a higher one,
    or none (0), is refused; a person at the table keeps the preset's own."""
    new = new_game(
        CreateGameCommand("scopa", {}, BOTS), None, ALLOWED, TOKENS, random.Random(1), NOW
    )
    assert new.state.ruleset.options.hand_limit == BOT_ONLY_HAND_LIMIT
    lower = CreateGameCommand("scopa", {"hand_limit": 3}, BOTS)
    assert (
        new_game(
            lower, None, ALLOWED, TOKENS, random.Random(1), NOW
        ).state.ruleset.options.hand_limit
        == 3
    )
    for refused in (BOT_ONLY_HAND_LIMIT + 1, 0):
        with pytest.raises(rules.InvalidOption) as err:
            cmd = CreateGameCommand("scopa", {"hand_limit": refused}, BOTS)
            new_game(cmd, None, ALLOWED, TOKENS, random.Random(1), NOW)
        assert err.value.field == "hand_limit"
    mixed = CreateGameCommand("scopa", {}, [SeatSpec("ann"), BOTS[0]])
    assert (
        new_game(
            mixed, None, ALLOWED, TOKENS, random.Random(1), NOW
        ).state.ruleset.options.hand_limit
        == 0
    )

"""Bot seats over gRPC: a person against each bot level, on two real replicas and real Redis."""

from __future__ import annotations

import grpc
import pytest

from integration.helpers import (
    Stub,
    auth,
    expect_error,
    int_option,
    move_request,
    rid,
    tokens_of,
    view,
)
from scopa.rules import PRESETS, make_ruleset
from scopa_client.v1 import scopa_pb2 as pb

LEVELS = ("random", "greedy", "ismcts")


def bot_game(stub: Stub, level: str, bot_seat: int = 1) -> pb.CreateGameResponse:
    """A 2-player scopa game to 1 point: the creator holds one seat, a ``level`` bot the other."""
    seats = [pb.SeatSpec(display_name="me"), pb.SeatSpec(display_name="me")]
    seats[bot_seat] = pb.SeatSpec(display_name="bot", bot=level)
    request = pb.CreateGameRequest(
        preset="scopa", options={"target_score": int_option(1)}, seats=seats
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=30)
    return response


@pytest.mark.parametrize("level", ["random", "greedy", "ismcts"])
def test_a_person_finishes_a_game_against_each_bot_level(
    stubs: tuple[Stub, Stub], level: str
) -> None:
    """The person's moves alone, on either replica, finish the game; the bot's are in the log."""
    created = bot_game(stubs[0], level, bot_seat=0)
    assert list(tokens_of(created)) == [1]
    token = tokens_of(created)[1]
    name = created.name
    moves = 0
    current = view(stubs[1], name, token)
    assert current.version > 1, "the bot did not open the game"
    assert [s.bot for s in current.seats] == [level, ""]
    while current.status != pb.GAME_STATUS_FINISHED:
        assert moves < 100, "game does not end"
        assert current.turn == 1, "a bot turn was left pending"
        stub = stubs[moves % 2]
        stub.PlayCard(
            move_request(name, current.legal_moves[0], rid()), metadata=auth(token), timeout=30
        )
        moves += 1
        current = view(stubs[moves % 2], name, token)
    log = stubs[0].WatchGame(pb.WatchGameRequest(name=name, from_version=1), timeout=30)
    played = [e.card_played.seat for m in log for e in m.events if e.HasField("card_played")]
    assert played.count(1) == moves
    assert played.count(0) >= moves - 1 > 0


def test_an_unknown_bot_level_is_refused(stub: Stub) -> None:
    """A seat with an unknown level is INVALID_ARGUMENT on seats[1].bot."""
    expect_error(
        lambda: bot_game(stub, "clever"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        field="seats[1].bot",
    )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_person_finishes_every_preset_against_each_level(
    stubs: tuple[Stub, Stub], preset: str
) -> None:
    """In every preset a person (seat 0) plays each level, every other seat a bot, to the end.

    Every preset x 3 levels runs every time, no subset needed: the games go to 1 point (usually
    one hand), the person's moves alternate between the two replicas, and ismcts thinks at the
    service's default budget (20 ms a move, ~20-30 bot moves a game), so the ~66 games take
    ~2-3 min under load.
    """
    players = make_ruleset(preset).options.players
    for level in LEVELS:
        seats = [pb.SeatSpec(display_name="me")]
        seats += [pb.SeatSpec(display_name=f"bot{i}", bot=level) for i in range(1, players)]
        created: pb.CreateGameResponse = stubs[0].CreateGame(
            pb.CreateGameRequest(
                preset=preset, options={"target_score": int_option(1)}, seats=seats
            ),
            timeout=30,
        )
        token = tokens_of(created)[0]
        assert list(tokens_of(created)) == [0]
        current = view(stubs[1], created.name, token)
        assert [s.bot for s in current.seats] == ["", *[level] * (players - 1)]
        moves = 0
        while current.status != pb.GAME_STATUS_FINISHED:
            assert moves < 200, f"{preset}/{level}: the game does not end"
            assert current.turn == 0, f"{preset}/{level}: a bot turn was left pending"
            if current.legal_moves:
                move = move_request(created.name, current.legal_moves[0], rid())
                stubs[moves % 2].PlayCard(move, metadata=auth(token), timeout=60)
            else:  # a bot claimed a sweep (Scopa fidasse): the person answers it
                action = pb.TakeActionRequest(
                    name=created.name, action=current.legal_actions[0], request_id=rid()
                )
                stubs[moves % 2].TakeAction(action, metadata=auth(token), timeout=60)
            moves += 1
            current = view(stubs[moves % 2], created.name, token)
        assert moves > 0 and current.winners, (preset, level)

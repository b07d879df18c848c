"""Tests of scopa.transport._calls: request field paths of the core's errors."""

from __future__ import annotations

import json
import random

import pytest

from scopa import rules
from scopa.app import CoreSettings, GameCore, InvalidArgument, TokenAuthority
from scopa.storage import MemoryStore
from scopa.transport._calls import Encoded, GameCalls, serialize_response
from scopa.transport._rest_json import dumps
from scopa_client.v1 import scopa_pb2 as pb


def _calls(core: GameCore | None = None, *, options_tail: bool = False) -> GameCalls:
    core = core or GameCore(
        MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), rng=random.Random(1)
    )
    return GameCalls(core, options_tail=options_tail)


async def _two_seat_game(calls: GameCalls) -> tuple[pb.CreateGameResponse, dict[int, str]]:
    """A new 2-seat game and its seat tokens."""
    seats = [pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")]
    created = await calls.create_game(pb.CreateGameRequest(preset="scopa", seats=seats), None)
    return created, {c.seat: c.token for c in created.credentials}


async def test_a_bad_game_id_is_reported_on_the_name_field() -> None:
    """The core's game_id check reaches the client as the request's name field."""
    with pytest.raises(InvalidArgument) as err:
        await _calls().get_state(pb.GetStateRequest(name="games/bad id"), None)
    assert err.value.field == "name"


@pytest.mark.parametrize(
    ("options", "seats", "field"),
    [
        ({"target_score": pb.OptionValue(int_value=0)}, 0, "options.target_score"),
        ({"hand_size": pb.OptionValue(int_value=7)}, 0, "options.hand_size"),
        ({}, 5, "seats"),
    ],
)
async def test_option_errors_name_the_request_field(
    options: dict[str, pb.OptionValue], seats: int, field: str
) -> None:
    """An invalid option is reported on options.<name>, the player count on seats."""
    request = pb.CreateGameRequest(
        preset="scopa",
        options=options,
        seats=[pb.SeatSpec(display_name=f"p{i}") for i in range(seats)],
    )
    with pytest.raises(rules.InvalidOption) as err:
        await _calls().create_game(request, None)
    assert err.value.field == field
    assert err.value.metadata["option"] in {*options, "players"}


async def test_get_state_of_an_unchanged_game_reuses_its_response() -> None:
    """A seat reading an unchanged game gets the response built for its first read; after a
    move it gets a new one, for the new version."""
    calls = _calls()
    created, tokens = await _two_seat_game(calls)
    request = pb.GetStateRequest(name=created.name)
    first = await calls.get_state(request, tokens[0])
    assert await calls.get_state(request, tokens[0]) is first
    seat = first.view.turn
    mine = await calls.get_state(request, tokens[seat])
    move = mine.view.legal_moves[0]
    await calls.play_card(
        pb.PlayCardRequest(
            name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
        ),
        tokens[seat],
    )
    after = await calls.get_state(request, tokens[0])
    assert after is not first and after.view.version == first.view.version + 1


async def test_with_options_tail_a_view_goes_without_its_options_and_the_task_gets_them() -> None:
    """With options_tail, GetState and PlayCard responses lack the options and deck size, and
    take_tail (once) completes their wire bytes: they parse as what the plain GameCalls
    returns, a kept GetState response included."""
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), rng=random.Random(1))
    plain, wire = _calls(core), _calls(core, options_tail=True)
    created, tokens = await _two_seat_game(plain)
    request = pb.GetStateRequest(name=created.name)
    for _ in range(2):  # the second read returns the kept response: its tail comes again
        bare = await wire.get_state(request, tokens[0])
        tail = wire.take_tail()
        assert (len(bare.view.options), bare.view.deck_size, wire.take_tail()) == (0, 0, b"")
        whole = await plain.get_state(request, tokens[0])
        assert plain.take_tail() == b""
        completed = pb.GetStateResponse.FromString(Encoded(bare, tail).serialize())
        assert completed == pb.GetStateResponse.FromString(serialize_response(whole)) == whole
    move = whole.view.legal_moves[0]
    played = await wire.play_card(
        pb.PlayCardRequest(
            name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
        ),
        tokens[0],
    )
    finished = pb.PlayCardResponse.FromString(Encoded(played, wire.take_tail()).serialize())
    assert dict(finished.view.options) == dict(whole.view.options)
    assert finished.view.deck_size == 40 and finished.view.version == whole.view.version + 1


async def test_after_a_hand_the_results_go_to_the_tail_in_wire_bytes_and_json() -> None:
    """Once a hand has ended, a PlayCard response leaves its hand results to the tail too (they
    grow with the game: converting them on every call made late moves dearer); its wire bytes
    and its JSON with the tail are those of the whole response."""
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), rng=random.Random(3))
    plain, wire = _calls(core), _calls(core, options_tail=True)
    seats = [pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")]
    options = {"target_score": pb.OptionValue(int_value=61)}
    created = await plain.create_game(
        pb.CreateGameRequest(preset="scopa", seats=seats, options=options), None
    )
    tokens = {c.seat: c.token for c in created.credentials}
    get = pb.GetStateRequest(name=created.name)
    turn, checked = created.view.turn, 0
    while checked < 3:
        move = (await plain.get_state(get, tokens[turn])).view.legal_moves[0]
        request = pb.PlayCardRequest(
            name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
        )
        bare = await wire.play_card(request, tokens[turn])
        tail = wire.take_tail()
        whole = pb.PlayCardResponse.FromString(Encoded(bare, tail).serialize())
        turn = whole.view.turn
        if whole.view.hand_results:
            checked += 1
            assert not bare.view.hand_results
            state = await plain.get_state(get, tokens[0])
            assert list(whole.view.hand_results) == list(state.view.hand_results)
            assert json.loads(dumps(bare, tail)) == json.loads(dumps(whole))


async def test_a_json_only_action_answers_the_json_of_its_response_message() -> None:
    """PlayCard and TakeAction of ``json_unary`` (REST's) answer the proto3 JSON of the response
    the message methods build: the view GetState then shows (but presence), the action's
    events (the view's last events), and the game's etag."""
    calls = _calls(options_tail=True)
    created, tokens = await _two_seat_game(calls)
    request = pb.GetStateRequest(name=created.name)
    assert set(calls.json_unary) == {"PlayCard", "TakeAction"}
    for method in ("PlayCard", "TakeAction"):
        seat = (await calls.get_state(request, tokens[0])).view.turn
        move = (await calls.get_state(request, tokens[seat])).view.legal_moves[0]
        calls.take_tail()
        play = pb.PlayCardRequest(
            name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
        )
        action = pb.TakeActionRequest(
            name=created.name,
            action=pb.Action(play_card=pb.PlayCardAction(card=move.card, capture=play.capture)),
        )
        answered = await calls.json_unary[method](
            play if method == "PlayCard" else action, tokens[seat]
        )
        state = await calls.get_state(request, tokens[seat])
        shown = json.loads(dumps(state, calls.take_tail()))["view"]
        del shown["spectatorCount"]  # GetState reads who is here; an action's answer does not
        for seat_view in shown["seats"]:
            del seat_view["connected"]
        body = json.loads(answered.body)
        assert body["view"] == shown and body["events"] == shown["lastEvents"] != []
        assert answered.etag == state.view.etag == f"v{state.view.version}"

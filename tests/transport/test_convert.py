"""Tests of scopa.transport._convert."""

from __future__ import annotations

import random

import pytest

from scopa import rules
from scopa.app import (
    GameMeta,
    GameSnapshot,
    GameStatus,
    InvalidArgument,
    SeatMeta,
    Unauthenticated,
    VersionedEvent,
)
from scopa.transport._convert import (
    card_from_pb,
    card_to_pb,
    create_command,
    event_to_pb,
    game_id_from_name,
    move_from_pb,
    option_from_pb,
    option_to_pb,
    rulesets_to_pb,
    token_from_metadata,
    view_to_pb,
)
from scopa_client.v1 import scopa_pb2 as pb


@pytest.mark.parametrize("card", rules.ALL_CARDS)
def test_card_round_trip(card: int) -> None:
    """Every card survives the trip to a message and back; suits are the engine's plus one."""
    message = card_to_pb(card)
    assert message.suit == rules.suit_of(card) + 1
    assert message.rank == rules.rank_of(card)
    assert card_from_pb(message, "card") == card


@pytest.mark.parametrize(
    ("suit", "rank", "field"),
    [(0, 7, "card.suit"), (2, 0, "card.rank"), (2, 11, "card.rank"), (9, 1, "card.suit")],
)
def test_bad_cards_name_their_field(suit: int, rank: int, field: str) -> None:
    """A card with no suit or a rank outside 1..10 is INVALID_ARGUMENT naming the field."""
    with pytest.raises(InvalidArgument) as err:
        card_from_pb(pb.Card(suit=suit, rank=rank), "card")  # type: ignore[arg-type]
    assert err.value.field == field


def test_move_capture_unset_vs_empty() -> None:
    """An unset capture lets the server choose; an empty one lays the card."""
    card = pb.Card(suit=pb.SUIT_DENARI, rank=7)
    assert move_from_pb(pb.PlayCardRequest(name="games/g", card=card)).capture is None
    laid = pb.PlayCardRequest(name="games/g", card=card, capture=pb.CaptureChoice())
    assert move_from_pb(laid).capture == ()


def test_move_without_card_is_refused() -> None:
    """A PlayCard without a card names the field."""
    with pytest.raises(InvalidArgument) as err:
        move_from_pb(pb.PlayCardRequest(name="games/g"))
    assert err.value.field == "card"


def test_move_naming_a_card_twice_is_refused() -> None:
    """A capture naming the same card twice is INVALID_ARGUMENT."""
    card = pb.Card(suit=pb.SUIT_DENARI, rank=3)
    request = pb.PlayCardRequest(
        name="games/g", card=card, capture=pb.CaptureChoice(cards=[card, card])
    )
    with pytest.raises(InvalidArgument):
        move_from_pb(request)


@pytest.mark.parametrize("name", ["", "games/", "game/x", "x"])
def test_bad_names(name: str) -> None:
    """Names other than games/<id> are INVALID_ARGUMENT on the name field."""
    with pytest.raises(InvalidArgument) as err:
        game_id_from_name(name)
    assert err.value.field == "name"


@pytest.mark.parametrize("value", [True, False, 0, 21, "split"])
def test_option_values_round_trip(value: bool | int | str) -> None:
    """Option values keep their Python type through the message."""
    assert option_from_pb("x", option_to_pb(value)) == value
    assert type(option_from_pb("x", option_to_pb(value))) is type(value)


def test_option_without_value_is_refused() -> None:
    """An option message with no value names the option."""
    with pytest.raises(InvalidArgument) as err:
        option_from_pb("target_score", pb.OptionValue())
    assert err.value.field == "options.target_score"


def test_create_command() -> None:
    """CreateGame fields reach the command, first_dealer only when set."""
    request = pb.CreateGameRequest(
        preset="spazzino",
        options={"target_score": pb.OptionValue(int_value=31)},
        seats=[pb.SeatSpec(display_name="a"), pb.SeatSpec(open=True)],
        request_id="r",
    )
    cmd = create_command(request)
    assert (cmd.preset, dict(cmd.options), cmd.first_dealer) == (
        "spazzino",
        {"target_score": 31},
        None,
    )
    assert [s.open for s in cmd.seats] == [False, True]
    request.first_dealer = 0
    assert create_command(request).first_dealer == 0


@pytest.mark.parametrize(
    ("metadata", "token"),
    [
        ((), None),
        ((("authorization", "Bearer abc"),), "abc"),
        ((("Authorization", "bearer  x "),), "x"),
    ],
)
def test_token_from_metadata(metadata: tuple[tuple[str, str], ...], token: str | None) -> None:
    """The bearer token is read case-insensitively; no header means a spectator."""
    assert token_from_metadata(metadata) == token


@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "abc"])
def test_malformed_authorization(header: str) -> None:
    """An authorization header that is not 'Bearer <token>' is UNAUTHENTICATED."""
    with pytest.raises(Unauthenticated):
        token_from_metadata((("authorization", header),))


def _snapshot(seat: int | None) -> GameSnapshot:
    state, _ = rules.new_match(rules.make_ruleset("scopa4"), rng=random.Random(3))
    meta = GameMeta(tuple(SeatMeta(f"p{i}", False, True) for i in range(4)))
    return GameSnapshot("g1", 1, GameStatus.ACTIVE, meta.seats, rules.observe(state, seat))


def test_view_shows_own_hand_and_teams() -> None:
    """A seat's GameView has its own hand, legal moves on its turn, and the two teams."""
    view = view_to_pb(_snapshot(0))
    assert view.name == "games/g1"
    assert view.seat == 0
    assert len(view.hand) == 3
    assert view.turn == 0
    assert len(view.legal_moves) >= 3
    assert [list(s.seats) for s in view.sides] == [[0, 2], [1, 3]]
    assert view.options["players"].int_value == 4


def test_spectator_view_has_no_seat_or_hand() -> None:
    """A spectator's GameView has no seat, no hand and no legal moves."""
    view = view_to_pb(_snapshot(None))
    assert not view.HasField("seat")
    assert (len(view.hand), len(view.legal_moves)) == (0, 0)
    assert [s.hand_size for s in view.seats] == [3, 3, 3, 3]


def test_waiting_or_finished_view_has_no_turn() -> None:
    """The turn is unset while the game waits for players."""
    snapshot = _snapshot(0)
    waiting = GameSnapshot("g1", 1, GameStatus.WAITING_FOR_PLAYERS, snapshot.seats, snapshot.view)
    assert not view_to_pb(waiting).HasField("turn")


def _after_first_hand() -> GameSnapshot:
    rng = random.Random(8)
    state, _ = rules.new_match(rules.make_ruleset("scopa", {"target_score": 21}), rng=rng)
    while not state.results:
        state, _ = rules.apply_move(state, state.turn, rng.choice(rules.legal_moves(state)), rng)
    meta = GameMeta((SeatMeta("a", False, True), SeatMeta("b", False, True)))
    return GameSnapshot("g2", 9, GameStatus.ACTIVE, meta.seats, rules.observe(state, 1))


def test_views_are_independent_of_each_other() -> None:
    """Changing one returned view never shows in the next (options and results are shared)."""
    snapshot = _after_first_hand()
    first = view_to_pb(snapshot)
    assert len(first.options) == len(rules.list_options())
    assert first.options["target_score"].int_value == 21
    assert [r.hand_number for r in first.hand_results] == [1]
    first.options["target_score"].int_value = 99
    first.hand_results[0].scores[0] = 99
    second = view_to_pb(snapshot)
    assert second.options["target_score"].int_value == 21
    assert list(second.hand_results[0].scores) == list(snapshot.view.results[0].totals)
    other = view_to_pb(_snapshot(0)).options
    assert other["players"].int_value == 4 and other["target_score"].int_value != 99


def test_view_takes_already_converted_last_events() -> None:
    """Given converted last events, the view carries them instead of converting its own."""
    snapshot = _snapshot(0)
    given = [event_to_pb(VersionedEvent(1, rules.SeatResigned(1)))]
    assert list(view_to_pb(snapshot, given).last_events) == given
    assert list(view_to_pb(snapshot).last_events) == []


def test_every_event_kind_converts() -> None:
    """Each engine event becomes the matching Event oneof."""
    played = rules.CardPlayed(0, 6, (5,), True, True, ())
    cases: dict[str, rules.Event] = {
        "hand_started": rules.HandStarted(1, 3, (1, 2)),
        "cards_dealt": rules.CardsDealt(1, 3, ()),
        "card_played": played,
        "leftover_taken": rules.LeftoverTaken(1, (4,)),
        "game_finished": rules.GameFinished((0,), rules.FinishReason.TARGET, (11, 3)),
        "seat_resigned": rules.SeatResigned(1),
        "redeal": rules.Redealt(1, "kings", (9, 19, 29, 1)),
    }
    for kind, event in cases.items():
        assert event_to_pb(VersionedEvent(7, event)).WhichOneof("kind") == kind
    message = event_to_pb(VersionedEvent(7, played)).card_played
    assert (message.sweep, list(message.captured)) == (True, [card_to_pb(5)])


def test_rulesets_list_every_preset_and_option() -> None:
    """ListRulesets names every preset with its seat counts and every option with its default."""
    response = rulesets_to_pb(rules.PRESETS.values(), rules.list_options())
    assert {r.id for r in response.rulesets} == set(rules.PRESETS)
    counts = {r.id: list(r.seat_counts) for r in response.rulesets}
    assert counts["scopa"] == [2, 3, 4, 6]
    assert counts["scopone"] == [4]
    assert counts["spazzino"] == [2]
    assert counts["spatola"] == [2, 4]
    for preset in rules.PRESETS.values():
        assert counts[preset.id] == sorted(preset.players)
        for players in counts[preset.id]:
            rules.make_ruleset(preset.id, {"players": players})
    assert {o.name for o in response.options} == {o.name for o in rules.list_options()}

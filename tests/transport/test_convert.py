"""Tests of scopa.transport._convert."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import get_args

import pytest

from scopa import rules
from scopa.app import (
    GameMeta,
    GameSnapshot,
    GameStatus,
    InvalidArgument,
    LobbyGame,
    SeatJoined,
    SeatMeta,
    TurnTimedOut,
    Unauthenticated,
    VersionedEvent,
)
from scopa.transport import _convert
from scopa.transport._convert import (
    action_from_pb,
    action_to_pb,
    card_from_pb,
    card_to_pb,
    create_command,
    event_to_pb,
    game_id_from_name,
    lobby_to_pb,
    move_from_pb,
    option_from_pb,
    option_to_pb,
    options_tail,
    results_tail,
    rulesets_to_pb,
    token_from_metadata,
    view_to_pb,
    with_view,
)
from scopa.transport._view_json import view_json
from scopa_client.v1 import scopa_pb2 as pb


@pytest.mark.parametrize("card", rules.ALL_CARDS)
def test_card_round_trip(card: int) -> None:
    """Every card survives the trip to a message and back; suits are the engine's plus one."""
    message = card_to_pb(card)
    assert message.suit == rules.suit_of(card) + 1
    assert message.rank == rules.rank_of(card)
    assert card_from_pb(message, "card") == card


@pytest.mark.parametrize("card", rules.deck_cards(52) + rules.deck_cards(80)[40:])
def test_bigger_decks_round_trip_with_rank_and_copy(card: int) -> None:
    """52-card ranks 11..13 and 80-card second copies (copy 1) survive the trip and back."""
    message = card_to_pb(card)
    assert message.rank == rules.rank_of(card)
    assert message.copy == rules.copy_of(card)
    assert card_from_pb(message, "card") == card


def test_a_40_card_message_carries_no_copy_on_the_wire() -> None:
    """A first copy leaves Card.copy at its default: 40-card clients see the same bytes."""
    settebello = card_to_pb(rules.parse_card("7D")).SerializeToString()
    assert settebello == pb.Card(suit=pb.SUIT_DENARI, rank=7).SerializeToString()


@pytest.mark.parametrize(
    ("suit", "rank", "copy", "field"),
    [
        (0, 7, 0, "card.suit"),
        (2, 0, 0, "card.rank"),
        (2, 14, 0, "card.rank"),
        (9, 1, 0, "card.suit"),
        (2, 7, 2, "card.copy"),
        (2, 7, -1, "card.copy"),
    ],
)
def test_bad_cards_name_their_field(suit: int, rank: int, copy: int, field: str) -> None:
    """No suit, a rank outside 1..13 or a copy other than 0/1 is INVALID_ARGUMENT on the field."""
    with pytest.raises(InvalidArgument) as err:
        card_from_pb(pb.Card(suit=suit, rank=rank, copy=copy), "card")  # type: ignore[arg-type]
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
    assert create_command(request).timeout_bot == ""
    request.timeout_bot = "ismcts"
    assert create_command(request).timeout_bot == "ismcts"


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


@pytest.mark.parametrize(
    "response", [pb.GetStateResponse, pb.PlayCardResponse, pb.WatchGameResponse]
)
def test_a_view_built_without_options_and_its_tail_make_the_whole_response(
    response: type[pb.GetStateResponse | pb.PlayCardResponse | pb.WatchGameResponse],
) -> None:
    """A response built with options=False lacks the options and deck size; its bytes and the
    options tail parse as the response built with them."""
    snapshot = _after_first_hand()
    whole = with_view(response, snapshot)
    bare = with_view(response, snapshot, options=False)
    assert (len(bare.view.options), bare.view.deck_size) == (0, 0)
    tail = options_tail(response, snapshot.view.options)
    assert response.FromString(bare.SerializeToString() + tail) == whole
    assert whole.view.options["target_score"].int_value == 21 and whole.view.deck_size == 40


@pytest.mark.parametrize("response", [pb.SessionUpdate, pb.SessionWelcome])
def test_a_view_built_without_results_and_their_tail_make_the_whole_response(
    response: type[pb.SessionUpdate | pb.SessionWelcome],
) -> None:
    """A response built with results=False lacks the hand results; its bytes, the options tail
    and the results tail parse as the response built with both; no results: no tail."""
    snapshot = _after_first_hand()
    whole = with_view(response, snapshot)
    bare = with_view(response, snapshot, options=False, results=False)
    assert len(bare.view.hand_results) == 0 and len(whole.view.hand_results) == 1
    tail = options_tail(response, snapshot.view.options)
    tail += results_tail(response, snapshot.view.results)
    assert response.FromString(bare.SerializeToString() + tail) == whole
    assert results_tail(response, ()) == b""


def test_results_tails_follow_their_tuple_not_a_reused_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each results tuple gets the tail of its own results, also once the kept tails were
    dropped (a small bound) and other tuples took their place."""
    monkeypatch.setattr(_convert, "_RESULT_TAILS", rules.ByIdentity(2))
    snapshot = _after_first_hand()
    (first,) = snapshot.view.results
    for n in range(1, 7):
        results = tuple(first._replace(hand_number=i) for i in range(1, n + 1))
        view = pb.SessionUpdate.FromString(results_tail(pb.SessionUpdate, results)).view
        assert [r.hand_number for r in view.hand_results] == list(range(1, n + 1))
    assert 0 < len(_convert._RESULT_TAILS) <= 2


def test_options_tails_are_kept_per_options_object_and_never_mixed_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tail of each of many distinct Options (a small bound: the kept tails dropped on the
    way) holds that Options' own values, and an equal Options object gets the same bytes."""
    monkeypatch.setattr(_convert, "_TAILS", rules.ByIdentity(3))
    base = rules.make_ruleset("scopa").options
    for _ in range(2):
        for target in range(1, 9):
            options = replace(base, target_score=target)
            for response in (pb.GetStateResponse, pb.PlayCardResponse):
                view = response.FromString(options_tail(response, options)).view
                assert view.options["target_score"].int_value == target
                again = options_tail(response, replace(base, target_score=target))
                assert again == options_tail(response, options)
    assert 0 < len(_convert._TAILS) <= 3


def test_view_takes_already_converted_last_events() -> None:
    """Given converted last events, the view carries them instead of converting its own."""
    snapshot = _snapshot(0)
    given = [event_to_pb(VersionedEvent(1, rules.SeatResigned(1)))]
    assert list(view_to_pb(snapshot, given).last_events) == given
    assert list(view_to_pb(snapshot).last_events) == []


def _pb_cards(codes: str) -> list[pb.Card]:
    return [card_to_pb(rules.parse_card(c)) for c in codes.split()]


def _result() -> rules.HandResult:
    line = rules.Component("cards", (1, 0), (21.0, 19.0))
    score = rules.HandScore((line,), (1, 0), (False, False))
    return rules.HandResult(hand_number=3, score=score, totals=(5, 2))


def _every_event() -> list[tuple[object, pb.Event]]:
    """Each event kind with distinct field values, and the exact message it must become."""
    c = rules.parse_card
    result_pb = pb.HandResult(
        hand_number=3,
        lines=[pb.ScoreLine(name="cards", points=[1, 0], values=[21.0, 19.0])],
        totals=[1, 0],
        scores=[5, 2],
    )
    played = rules.CardPlayed(
        seat=1,
        card=c("5D"),
        captured=(c("5C"),),
        taken=True,
        sweep=True,
        specials=(("picula", 1), ("bagher", 3)),
    )
    return [
        (
            rules.HandStarted(hand_number=4, dealer=1, table=(c("1C"), c("7D"))),
            pb.Event(
                version=7,
                hand_started=pb.HandStarted(hand_number=4, dealer=1, table=_pb_cards("1C 7D")),
            ),
        ),
        (
            rules.CardsDealt(seat=2, n_cards=3, cards=(c("2C"), c("3C"), c("4C"))),
            pb.Event(
                version=7, cards_dealt=pb.CardsDealt(seat=2, count=3, cards=_pb_cards("2C 3C 4C"))
            ),
        ),
        (
            played,
            pb.Event(
                version=7,
                card_played=pb.CardPlayed(
                    seat=1,
                    card=card_to_pb(c("5D")),
                    captured=_pb_cards("5C"),
                    sweep=True,
                    picula=True,
                    bagher_points=3,
                    specials=[
                        pb.Special(name="picula", points=1),
                        pb.Special(name="bagher", points=3),
                    ],
                ),
            ),
        ),
        (
            rules.Declared(seat=1, name="accusa", cards=(c("7C"), c("7D"), c("7S")), points=7),
            pb.Event(
                version=7,
                declared=pb.Declared(seat=1, name="accusa", cards=_pb_cards("7C 7D 7S"), points=7),
            ),
        ),
        (
            rules.LeftoverTaken(seat=3, cards=(c("9B"),)),
            pb.Event(version=7, leftover_taken=pb.LeftoverTaken(seat=3, cards=_pb_cards("9B"))),
        ),
        (
            rules.HandScored(result=_result()),
            pb.Event(version=7, hand_scored=pb.HandScored(result=result_pb)),
        ),
        (
            rules.GameFinished(winners=(1,), reason=rules.FinishReason.NAPOLEONE, scores=(4, 12)),
            pb.Event(
                version=7,
                game_finished=pb.GameFinished(
                    winners=[1], reason=pb.FINISH_REASON_NAPOLEONE, scores=[4, 12]
                ),
            ),
        ),
        (
            rules.SeatResigned(seat=2),
            pb.Event(version=7, seat_resigned=pb.SeatResigned(seat=2)),
        ),
        (
            rules.Redealt(hand_number=2, reason="kings", table=(c("10C"), c("10D"))),
            pb.Event(version=7, redeal=pb.Redeal(reason="kings", table=_pb_cards("10C 10D"))),
        ),
        (
            rules.AceReturned(card=c("1S")),
            pb.Event(version=7, redeal=pb.Redeal(reason="ace_returned", table=_pb_cards("1S"))),
        ),
        (
            rules.BonusScored(
                seat=3, side=1, name="dealer_bonus", points=2, cards=(c("10C"), c("10D"))
            ),
            pb.Event(
                version=7,
                bonus=pb.BonusScored(
                    seat=3, side=1, name="dealer_bonus", points=2, cards=_pb_cards("10C 10D")
                ),
            ),
        ),
        (
            SeatJoined(seat=3, name="Dee"),
            pb.Event(version=7, seat_joined=pb.SeatJoined(seat=3, display_name="Dee")),
        ),
        (
            TurnTimedOut(seat=1, timeouts=2, forfeited=False, bot="greedy"),
            pb.Event(version=7, turn_timed_out=pb.TurnTimedOut(seat=1, timeouts=2, bot="greedy")),
        ),
        (
            rules.SweepClaimed(seat=2, table=(c("3D"), c("4S")), answering=(3, 1)),
            pb.Event(
                version=7,
                sweep_claimed=pb.SweepClaimed(
                    seat=2, table=_pb_cards("3D 4S"), answering_seats=[3, 1]
                ),
            ),
        ),
        (
            rules.ClaimAnswered(seat=3, trust=False),
            pb.Event(
                version=7,
                claim_answered=pb.ClaimAnswered(seat=3, answer=pb.CLAIM_ANSWER_DOUBT),
            ),
        ),
    ]


def test_every_event_converts_field_by_field() -> None:
    """Each event kind becomes exactly the expected message, every field pinned."""
    cases = _every_event()
    for event, message in cases:
        assert event_to_pb(VersionedEvent(7, event)) == message, type(event).__name__  # type: ignore[arg-type]
    kinds = {type(event) for event, _ in cases}
    trusted = event_to_pb(VersionedEvent(7, rules.ClaimAnswered(seat=1, trust=True)))
    assert trusted.claim_answered.answer == pb.CLAIM_ANSWER_TRUST
    assert kinds == set(get_args(rules.Event)) | {SeatJoined, TurnTimedOut}


def test_card_played_without_specials_has_no_picula_or_bagher() -> None:
    """A plain capture converts with picula false, bagher 0 and no specials."""
    played = rules.CardPlayed(0, 6, (5,), True, False, ())
    message = event_to_pb(VersionedEvent(1, played)).card_played
    assert (message.picula, message.bagher_points, list(message.specials)) == (False, 0, [])
    assert not message.HasField("stolen_from_side")


def test_a_steal_converts_with_the_stolen_side() -> None:
    """A Rubamazzo steal sets stolen_from_side (side 0 included) and the stolen cards."""
    c = rules.parse_card
    stolen = rules.CardPlayed(1, c("5D"), (c("3C"), c("5C")), True, False, (), 0)
    message = event_to_pb(VersionedEvent(2, stolen)).card_played
    assert message == pb.CardPlayed(
        seat=1, card=card_to_pb(c("5D")), captured=_pb_cards("3C 5C"), stolen_from_side=0
    )
    assert message.HasField("stolen_from_side")


def test_actions_convert_both_ways() -> None:
    """A play (with its capture) and a declaration round-trip through pb.Action."""
    c = rules.parse_card
    actions: list[rules.Action] = [
        rules.Move(c("7D"), (c("3C"), c("4B"))),
        rules.Move(c("7D"), ()),
        rules.Declare("accusa", (c("1C"), c("2C"), c("3S"))),
        rules.Steal(c("5D"), 1),
        rules.Claim(c("2C")),
        rules.Answer(trust=True),
        rules.Answer(trust=False),
        rules.Build(c("3C"), (c("4D"),), 7),
        rules.Build(c("2B"), (c("4D"), c("3C")), 9),
    ]
    for action in actions:
        assert action_from_pb(action_to_pb(action)) == action
    unset = action_from_pb(pb.Action(play_card=pb.PlayCardAction(card=card_to_pb(c("7D")))))
    assert unset == rules.Move(c("7D"), None)


def test_action_without_kind_or_card_names_its_field() -> None:
    """An empty action, or a play without a card, is INVALID_ARGUMENT on its field path."""
    with pytest.raises(InvalidArgument) as err:
        action_from_pb(pb.Action())
    assert err.value.field == "action"
    with pytest.raises(InvalidArgument) as err:
        action_from_pb(pb.Action(play_card=pb.PlayCardAction()))
    assert err.value.field == "action.play_card.card"


def test_a_build_converts_every_field_and_names_bad_ones() -> None:
    """A BuildAction pins card, onto and value; a missing card, onto or value names its field."""
    c = rules.parse_card
    message = action_to_pb(rules.Build(c("2B"), (c("4D"), c("3C")), 9))
    assert message == pb.Action(
        build=pb.BuildAction(card=card_to_pb(c("2B")), onto=_pb_cards("4D 3C"), value=9)
    )
    bad = {
        "action.build.card": pb.BuildAction(onto=_pb_cards("4D"), value=7),
        "action.build.onto": pb.BuildAction(card=card_to_pb(c("3C")), value=7),
        "action.build.value": pb.BuildAction(card=card_to_pb(c("3C")), onto=_pb_cards("4D")),
    }
    for field, build in bad.items():
        with pytest.raises(InvalidArgument) as err:
            action_from_pb(pb.Action(build=build))
        assert err.value.field == field
    twice = pb.BuildAction(card=card_to_pb(c("3C")), onto=_pb_cards("4D 4D"), value=10)
    with pytest.raises(InvalidArgument, match="twice"):
        action_from_pb(pb.Action(build=twice))
    with pytest.raises(InvalidArgument) as err:
        bad_card = pb.Card(suit=9, rank=3)  # type: ignore[arg-type]
        action_from_pb(pb.Action(build=pb.BuildAction(card=bad_card, onto=[])))
    assert err.value.field == "action.build.card.suit"


def test_farm_plays_convert_with_their_farm() -> None:
    """CardPlayed.farm pins owner, value and cards for a build and a take; unset otherwise."""
    c = rules.parse_card
    farm = rules.Farm(owner=1, value=7, cards=(c("4D"), c("3C")))
    farm_pb = pb.Farm(owner=1, value=7, cards=_pb_cards("4D 3C"))
    build = rules.CardPlayed(1, c("3C"), (), False, False, (), -1, None, farm)
    assert event_to_pb(VersionedEvent(3, build)).card_played == pb.CardPlayed(
        seat=1, card=card_to_pb(c("3C")), farm=farm_pb
    )
    take = rules.CardPlayed(0, c("7S"), (c("4D"), c("3C"), c("7C")), True, True, (), -1, None, farm)
    assert event_to_pb(VersionedEvent(4, take)).card_played == pb.CardPlayed(
        seat=0, card=card_to_pb(c("7S")), captured=_pb_cards("4D 3C 7C"), sweep=True, farm=farm_pb
    )
    plain = rules.CardPlayed(0, 6, (5,), True, False, ())
    assert not event_to_pb(VersionedEvent(1, plain)).card_played.HasField("farm")


def test_view_shows_farms_and_lists_builds() -> None:
    """A fattoria view has the farms on the table (field 27) and the seat's builds as actions."""
    c = rules.parse_card
    state, _ = rules.new_match(rules.make_ruleset("fattoria"), rng=random.Random(0))
    state = replace(
        state,
        hands=((c("2B"), c("9S"), c("7S")), (c("1D"),)),
        table=(c("10C"),),
        farms=(rules.Farm(owner=1, value=7, cards=(c("4D"), c("3C"))),),
    )
    meta = GameMeta((SeatMeta("a", False, True), SeatMeta("b", False, True)))
    snapshot = GameSnapshot("g4", 2, GameStatus.ACTIVE, meta.seats, rules.observe(state, 0))
    view = view_to_pb(snapshot)
    assert list(view.farms) == [pb.Farm(owner=1, value=7, cards=_pb_cards("4D 3C"))]
    assert list(view.table) == _pb_cards("10C")
    builds = [a.build for a in view.legal_actions if a.HasField("build")]
    assert builds == [pb.BuildAction(card=card_to_pb(c("2B")), onto=_pb_cards("4D 3C"), value=9)]
    takes = [m for m in view.legal_moves if list(m.capture) == _pb_cards("4D 3C")]
    assert [m.card for m in takes] == [card_to_pb(c("7S"))]


def test_view_lists_every_legal_action_kind() -> None:
    """A Bazzica seat holding a combination sees its plays and its declaration."""
    c = rules.parse_card
    state, _ = rules.new_match(rules.make_ruleset("bazzica"), rng=random.Random(0))
    state = replace(state, hands=((c("1C"), c("2C"), c("3S")), (c("7C"), c("8C"), c("9C"))))
    meta = GameMeta((SeatMeta("a", False, True), SeatMeta("b", False, True)))
    snapshot = GameSnapshot("g3", 2, GameStatus.ACTIVE, meta.seats, rules.observe(state, 0))
    view = view_to_pb(snapshot)
    kinds = [a.WhichOneof("kind") for a in view.legal_actions]
    assert kinds.count("declare") == 1 and kinds.count("play_card") == len(view.legal_moves)
    declare = next(a.declare for a in view.legal_actions if a.HasField("declare"))
    assert (declare.name, list(declare.cards)) == ("accusa", _pb_cards("1C 2C 3S"))


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


def test_claimed_sweeps_convert_with_their_outcome_and_hide_a_trusted_card() -> None:
    """CardPlayed.claim pins the doubter, the verdict and the doubter's specials; a trusted
    claim's card, hidden in the caller's view, leaves the message's card unset."""
    c = rules.parse_card
    outcome = rules.ClaimOutcome(doubter=0, genuine=True, doubter_specials=(("wrong_doubt", -1),))
    doubted = rules.CardPlayed(1, c("7C"), (c("3D"), c("4S")), True, True, (), -1, outcome)
    assert event_to_pb(VersionedEvent(4, doubted)).card_played == pb.CardPlayed(
        seat=1,
        card=card_to_pb(c("7C")),
        captured=_pb_cards("3D 4S"),
        sweep=True,
        claim=pb.ClaimOutcome(
            doubter_seat=0,
            genuine=True,
            doubter_specials=[pb.Special(name="wrong_doubt", points=-1)],
        ),
    )
    trusted = rules.CardPlayed(
        1, c("2C"), (c("3D"), c("4S")), True, True, (), -1, rules.ClaimOutcome(-1, False, ())
    )
    hidden = event_to_pb(VersionedEvent(4, rules.visible_event(trusted, 0))).card_played
    assert not hidden.HasField("card") and hidden.HasField("claim")
    assert not hidden.claim.HasField("doubter_seat") and not hidden.claim.genuine
    assert list(hidden.captured) == _pb_cards("3D 4S") and hidden.sweep
    shown = event_to_pb(VersionedEvent(4, rules.visible_event(trusted, 1))).card_played
    assert shown.card == card_to_pb(c("2C"))


def test_claim_actions_without_card_or_answer_name_their_field() -> None:
    """A claim without a card, or an answer left unspecified, is INVALID_ARGUMENT on its path."""
    with pytest.raises(InvalidArgument) as err:
        action_from_pb(pb.Action(claim_sweep=pb.ClaimSweepAction()))
    assert err.value.field == "action.claim_sweep.card"
    with pytest.raises(InvalidArgument) as err:
        action_from_pb(pb.Action(answer_claim=pb.AnswerClaimAction()))
    assert err.value.field == "action.answer_claim.answer"


def _fidasse_snapshot(seat: int | None) -> tuple[GameSnapshot, rules.MatchState]:
    """A 4-seat fidasse game where seat 0 claimed a sweep with 2C, awaiting seat 1's answer."""
    c = rules.parse_card
    state, _ = rules.new_match(rules.make_ruleset("fidasse", {"players": 4}), rng=random.Random(0))
    hands = ((c("2C"), c("9C")), (c("5B"),), (c("6B"),), (c("1S"),))
    state = replace(state, hands=hands, table=(c("3D"), c("4S")), turn=0)
    state, _ = rules.apply_action(state, 0, rules.Claim(c("2C")), None)
    meta = GameMeta(tuple(SeatMeta(f"p{i}", False, True) for i in range(4)))
    snapshot = GameSnapshot("g4", 5, GameStatus.ACTIVE, meta.seats, rules.observe(state, seat))
    return snapshot, state


def test_view_shows_the_answer_phase_and_the_claim_card_only_to_the_claimer() -> None:
    """GameView.phase pins the answer phase, the claimer, the seats to answer and those that
    trusted; SeatInfo.answering marks the awaited seat; the card is in the claimer's view only;
    the answering seat's legal actions are trust and doubt."""
    answering = view_to_pb(_fidasse_snapshot(1)[0])
    assert answering.phase == pb.TurnPhase(
        kind=pb.PHASE_ANSWER_CLAIM,
        claim=pb.PendingClaim(seat=0, answering_seats=[1, 3], trusted_seats=[]),
    )
    assert [s.answering for s in answering.seats] == [False, True, False, False]
    assert answering.turn == 1 and not answering.legal_moves
    assert [a.answer_claim.answer for a in answering.legal_actions] == [
        pb.CLAIM_ANSWER_TRUST,
        pb.CLAIM_ANSWER_DOUBT,
    ]
    claimer = view_to_pb(_fidasse_snapshot(0)[0])
    assert claimer.phase.claim.card == _pb_cards("2C")[0] and not claimer.legal_actions
    spectator = view_to_pb(_fidasse_snapshot(None)[0])
    assert not spectator.phase.claim.HasField("card")
    snapshot, state = _fidasse_snapshot(1)
    trusted, _ = rules.apply_action(state, 1, rules.Answer(trust=True), None)
    after = view_to_pb(replace(snapshot, view=rules.observe(trusted, 3))).phase
    assert list(after.claim.answering_seats) == [3] and list(after.claim.trusted_seats) == [1]
    assert view_to_pb(_snapshot(0)).phase == pb.TurnPhase(kind=pb.PHASE_PLAY)


def test_a_lobby_game_becomes_a_game_view_of_its_summary() -> None:
    """Name, preset, version, status, seats (open ones, bots), clock and creation time; no
    table, hand or seat of the caller."""
    seats = (
        SeatMeta("host", open=False, joined=True),
        SeatMeta("", open=True, joined=False),
        SeatMeta("Bot", open=False, joined=True, bot="greedy"),
    )
    view = lobby_to_pb(LobbyGame("g1", 4, "scopa3", seats, 1_800_000_000_123, 30, "greedy"))
    assert (view.name, view.preset, view.version, view.etag) == ("games/g1", "scopa3", 4, "v4")
    assert view.status == pb.GAME_STATUS_WAITING_FOR_PLAYERS and view.public
    assert [(s.seat, s.display_name, s.open, s.bot) for s in view.seats] == [
        (0, "host", False, ""),
        (1, "", True, ""),
        (2, "Bot", False, "greedy"),
    ]
    assert (view.turn_timeout_s, view.timeout_bot) == (30, "greedy")
    assert view.create_time.ToMilliseconds() == 1_800_000_000_123
    assert not view.hand and not view.table and not view.HasField("seat")


def test_a_views_cards_name_their_copy_in_an_80_card_deck() -> None:
    """Every card of a hand and of the table keeps its copy (80-card decks hold two of each), in
    the message and in the JSON written from the same fields: a client plays the card it sees
    (the second copy was shown as the first, which that seat could not play)."""
    rng = random.Random(5)
    state, _ = rules.new_match(rules.make_ruleset("marescialla_80"), rng=rng)
    seats = tuple(SeatMeta(f"p{i}", False, True) for i in range(len(state.hands)))
    seen = 0
    for seat in range(len(state.hands)):
        snapshot = GameSnapshot("g5", 1, GameStatus.ACTIVE, seats, rules.observe(state, seat))
        view = view_to_pb(snapshot)
        for shown, cards in ((view.hand, state.hands[seat]), (view.table, state.table)):
            assert [card_from_pb(c, "card") for c in shown] == list(cards)
            seen += sum(1 for c in shown if c.copy == 1)
        written = json.loads(view_json(pb.GetStateResponse, snapshot))["view"]
        assert [c.get("copy", 0) for c in written["hand"]] == [
            rules.copy_of(c) for c in state.hands[seat]
        ]
    assert seen > 0  # the deal held second copies

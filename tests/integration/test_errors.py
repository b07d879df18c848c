"""Every documented error: right code, scopa.dev ErrorInfo reason and metadata, no state change."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import grpc
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from integration.helpers import (
    ALL_CARDS,
    Stub,
    auth,
    card,
    create,
    expect_error,
    int_option,
    rid,
    stacked_deck,
    tokens_of,
    view,
)
from scopa_client import connect
from scopa_client.v1 import scopa_pb2 as pb

C, D, B, S = pb.SUIT_COPPE, pb.SUIT_DENARI, pb.SUIT_BASTONI, pb.SUIT_SPADE
FP = grpc.StatusCode.FAILED_PRECONDITION
# Dealt one at a time from seat 0: seat 0 gets 7C 5C 9S, seat 1 gets 1D 2D 3D; table 3B 4B 2S 5B.
RIGGED = stacked_deck(
    [(C, 7), (D, 1), (C, 5), (D, 2), (S, 9), (D, 3), (B, 3), (B, 4), (S, 2), (B, 5)]
)


class Game:
    """A rigged two-player game and a check that failed calls leave it unchanged."""

    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        created = create(stub, "scopa", 2, target=11, decks=[RIGGED])
        self.name = created.name
        self.tokens = tokens_of(created)
        self.created = created

    def play(
        self, seat_token: str, played: pb.Card, capture: list[pb.Card] | None = None, etag: str = ""
    ) -> Callable[[], object]:
        """A PlayCard call to run later."""
        request = pb.PlayCardRequest(name=self.name, card=played, request_id=rid(), etag=etag)
        if capture is not None:
            request.capture.CopyFrom(pb.CaptureChoice(cards=capture))
        return lambda: self.stub.PlayCard(request, metadata=auth(seat_token), timeout=10)

    def refused(
        self, call: Callable[[], object], code: grpc.StatusCode, reason: str, **md: str
    ) -> None:
        """`call` fails as expected and the game's version and seat 0's view are unchanged."""
        before = view(self.stub, self.name, self.tokens[0])
        expect_error(call, code, reason, **md)
        assert view(self.stub, self.name, self.tokens[0]) == before


@pytest.fixture
def game(stub: Stub) -> Game:
    """A fresh rigged game."""
    return Game(stub)


def test_the_rigged_deck_is_dealt_as_documented(game: Game) -> None:
    """Stacked decks deal one card at a time from seat 0, then the table."""
    mine = view(game.stub, game.name, game.tokens[0])
    assert [(c.suit, c.rank) for c in mine.hand] == [(C, 7), (C, 5), (S, 9)]
    theirs = view(game.stub, game.name, game.tokens[1])
    assert sorted((c.suit, c.rank) for c in theirs.hand) == [(D, 1), (D, 2), (D, 3)]
    assert sorted((c.suit, c.rank) for c in mine.table) == [(B, 3), (B, 4), (B, 5), (S, 2)]
    assert mine.turn == 0


def test_move_errors_change_nothing(game: Game) -> None:
    """Out-of-turn, foreign cards, illegal or ambiguous captures are refused with their reasons."""
    t0, t1 = game.tokens[0], game.tokens[1]
    game.refused(game.play(t1, card(D, 1)), FP, "NOT_YOUR_TURN")
    game.refused(game.play(t0, card(D, 1)), FP, "CARD_NOT_IN_HAND", card="1D")
    game.refused(game.play(t0, card(C, 7), [card(B, 3), card(S, 2)]), FP, "CAPTURE_NOT_LEGAL")
    game.refused(game.play(t0, card(C, 7), []), FP, "CAPTURE_NOT_LEGAL")
    game.refused(game.play(t0, card(C, 5), []), FP, "CAPTURE_NOT_LEGAL")
    game.refused(game.play(t0, card(C, 7)), FP, "CAPTURE_CHOICE_REQUIRED", choices="2")
    bad_rank = game.play(t0, card(C, 14))
    game.refused(bad_rank, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", field="card.rank")
    bad_copy = game.play(t0, pb.Card(suit=C, rank=7, copy=2))
    game.refused(bad_copy, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", field="card.copy")
    # a 52-card rank or an 80-card second copy is a card, just not in a 40-card game's hands
    game.refused(game.play(t0, card(C, 11)), FP, "CARD_NOT_IN_HAND", card="11C")
    second = pb.Card(suit=C, rank=7, copy=1)
    game.refused(game.play(t0, second), FP, "CARD_NOT_IN_HAND", card="7C'")
    bad_suit = game.play(t0, pb.Card(rank=7))
    game.refused(bad_suit, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", field="card.suit")
    stale = game.play(t0, card(C, 7), [card(B, 3), card(B, 4)], etag="v0")
    game.refused(stale, grpc.StatusCode.ABORTED, "STALE_ETAG")

    current = view(game.stub, game.name, t0)
    played = game.play(t0, card(C, 7), [card(B, 3), card(B, 4)], etag=current.etag)()
    assert isinstance(played, pb.PlayCardResponse)
    assert played.view.version == current.version + 1 and played.view.turn == 1
    # Seat 0's token cannot act for seat 1 now that it is seat 1's turn.
    game.refused(game.play(t0, card(D, 1)), FP, "NOT_YOUR_TURN")


def test_game_over_after_resign(game: Game) -> None:
    """After ResignGame the game is FINISHED and further plays or resigns are GAME_OVER."""
    resigned: pb.ResignGameResponse = game.stub.ResignGame(
        pb.ResignGameRequest(name=game.name), metadata=auth(game.tokens[1]), timeout=10
    )
    assert resigned.view.status == pb.GAME_STATUS_FINISHED
    assert list(resigned.view.winners) == [0]
    assert resigned.view.finish_reason == pb.FINISH_REASON_RESIGNED
    assert resigned.view.seats[1].resigned
    game.refused(game.play(game.tokens[0], card(C, 7), [card(B, 3), card(B, 4)]), FP, "GAME_OVER")
    resign_again = lambda: game.stub.ResignGame(  # noqa: E731
        pb.ResignGameRequest(name=game.name), metadata=auth(game.tokens[0]), timeout=10
    )
    game.refused(resign_again, FP, "GAME_OVER")


def test_authentication_and_permission_errors(game: Game, stub: Stub) -> None:
    """Missing, malformed or forged tokens are UNAUTHENTICATED; another game's is DENIED."""
    request = pb.PlayCardRequest(name=game.name, card=card(C, 5), request_id=rid())

    def with_metadata(metadata: tuple[tuple[str, str], ...] | None) -> Callable[[], object]:
        return lambda: stub.PlayCard(request, metadata=metadata, timeout=10)

    unauth = grpc.StatusCode.UNAUTHENTICATED
    game.refused(with_metadata(None), unauth, "UNAUTHENTICATED")
    game.refused(with_metadata((("authorization", "Token abc"),)), unauth, "UNAUTHENTICATED")
    game.refused(with_metadata((("authorization", "Bearer"),)), unauth, "UNAUTHENTICATED")
    game.refused(with_metadata((("authorization", "Bearer x.y"),)), unauth, "UNAUTHENTICATED")
    get_state = lambda: stub.GetState(  # noqa: E731
        pb.GetStateRequest(name=game.name), metadata=(("authorization", "Basic a"),), timeout=10
    )
    game.refused(get_state, unauth, "UNAUTHENTICATED")

    other = tokens_of(create(stub, "scopa", 2))[0]
    denied = grpc.StatusCode.PERMISSION_DENIED
    game.refused(with_metadata(auth(other)), denied, "PERMISSION_DENIED")
    game_id, seat, rest = game.tokens[0].split(".", 2)
    assert seat == "0"
    forged = f"{game_id}.1.{rest}"  # seat 0's token with the seat number edited
    game.refused(with_metadata(auth(forged)), unauth, "UNAUTHENTICATED")
    peek = lambda: stub.GetState(  # noqa: E731
        pb.GetStateRequest(name=game.name), metadata=auth(forged), timeout=10
    )
    game.refused(peek, unauth, "UNAUTHENTICATED")


def test_unknown_and_malformed_game_names(stub: Stub) -> None:
    """An unknown game is NOT_FOUND / GAME_NOT_FOUND; a malformed name is INVALID_ARGUMENT."""
    expect_error(
        lambda: stub.GetState(pb.GetStateRequest(name="games/doesNotExist"), timeout=10),
        grpc.StatusCode.NOT_FOUND,
        "GAME_NOT_FOUND",
    )
    for name in ("", "games/", "nogames/x", "games/a/b", "games/" + "x" * 65):
        expect_error(
            lambda n=name: stub.GetState(pb.GetStateRequest(name=n), timeout=10),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            field="name",
        )


def _create(stub: Stub, **fields: object) -> Callable[[], object]:
    base: dict[str, object] = {
        "preset": "scopa",
        "seats": [pb.SeatSpec(display_name="A"), pb.SeatSpec(display_name="B")],
    }
    base.update(fields)
    request = pb.CreateGameRequest(**base)  # type: ignore[arg-type]
    return lambda: stub.CreateGame(request, timeout=10)


def test_create_game_validation(stub: Stub) -> None:
    """Unknown presets and options, bad values and bad decks are INVALID_ARGUMENT with metadata."""
    bad = grpc.StatusCode.INVALID_ARGUMENT
    expect_error(_create(stub, preset="briscola"), bad, "INVALID_OPTION", field="preset")
    unknown = {"no_such_option": pb.OptionValue(bool_value=True)}
    expect_error(
        _create(stub, options=unknown),
        bad,
        "INVALID_OPTION",
        field="options.no_such_option",
        option="no_such_option",
    )
    wrong_type = {"target_score": pb.OptionValue(string_value="eleven")}
    expect_error(
        _create(stub, options=wrong_type),
        bad,
        "INVALID_OPTION",
        field="options.target_score",
        option="target_score",
    )
    expect_error(
        _create(stub, options={"target_score": int_option(0)}),
        bad,
        "INVALID_OPTION",
        option="target_score",
    )
    five = [pb.SeatSpec(display_name=str(i)) for i in range(5)]
    expect_error(_create(stub, seats=five), bad, "INVALID_OPTION", option="players")
    short = pb.Deck(cards=[card(s, r) for s, r in ALL_CARDS[:39]])
    expect_error(
        _create(stub, stacked_decks=[RIGGED, short]), bad, "INVALID_DECK", field="stacked_decks[1]"
    )
    doubled = pb.Deck(cards=[card(s, r) for s, r in (*ALL_CARDS[:39], ALL_CARDS[0])])
    expect_error(
        _create(stub, stacked_decks=[doubled]), bad, "INVALID_DECK", field="stacked_decks[0]"
    )
    long_name = [pb.SeatSpec(display_name="x" * 65), pb.SeatSpec(display_name="B")]
    expect_error(
        _create(stub, seats=long_name), bad, "INVALID_ARGUMENT", field="seats[0].display_name"
    )
    expect_error(_create(stub, first_dealer=7), bad, "INVALID_OPTION", option="first_dealer")
    expect_error(
        _create(stub, request_id="not a valid id!"), bad, "INVALID_ARGUMENT", field="request_id"
    )


def test_create_game_rejects_bad_new_variant_options(stub: Stub) -> None:
    """This session's options (optional_captures, capture_arithmetic=signed, aces_on_table=redeal,
    Cicera's seat counts) reject an unknown value, a wrong type, an incompatible combination, a
    deal that does not divide and stacked decks that void every deal with INVALID_ARGUMENT."""
    bad = grpc.StatusCode.INVALID_ARGUMENT
    text = pb.OptionValue
    for name, value in (
        ("optional_captures", text(string_value="sometimes")),
        ("optional_captures", text(bool_value=True)),
        ("capture_arithmetic", text(string_value="mixed")),
        ("aces_on_table", text(string_value="twice")),
        ("dealer_bonus", text(int_value=2)),
    ):
        expect_error(
            _create(stub, preset="cicera_bigia", options={name: value}),
            bad,
            "INVALID_OPTION",
            field=f"options.{name}",
            option=name,
        )
    signed_modular = {
        "capture_arithmetic": text(string_value="signed"),
        "modular_captures": text(bool_value=True),
    }
    expect_error(_create(stub, options=signed_modular), bad, "INVALID_OPTION")
    signed_optional = {"optional_captures": text(string_value="all")}
    expect_error(
        _create(stub, preset="inversa_mista", options=signed_optional),
        bad,
        "INVALID_OPTION",
        option="optional_captures",
    )
    three = [pb.SeatSpec(display_name=str(i)) for i in range(3)]
    five = [*three, pb.SeatSpec(display_name="3"), pb.SeatSpec(display_name="4")]
    expect_error(
        _create(stub, preset="cicera_bigia", seats=five), bad, "INVALID_OPTION", option="players"
    )
    uneven = {"hand_size": int_option(5)}  # 3 seats x 5 cards do not divide 48
    with_uneven = _create(stub, preset="cicera_bigia", seats=three, options=uneven)
    expect_error(with_uneven, bad, "INVALID_OPTION", option="hand_size")
    forty = stacked_deck([])  # a 40-card deck for the 52-card game
    expect_error(
        _create(stub, preset="cicera_bigia", seats=three, stacked_decks=[forty]),
        bad,
        "INVALID_DECK",
        field="stacked_decks[0]",
    )
    aces = [(s, 1) for s, _ in ALL_CARDS[::10]]  # the four aces, all on the starting table
    void = stacked_deck([r for r in ALL_CARDS if r[1] in (2, 3, 4)][:6] + aces)
    expect_error(
        _create(stub, preset="cirulla", stacked_decks=[void] * 100),
        bad,
        "INVALID_DECK",
        field="stacked_decks",
    )


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("fattoria", {"optional_captures": "figures"}),
        ("fattoria", {"optional_captures": "all"}),
        ("scopa", {"farms": True, "optional_captures": "all"}),
        ("cicera_bigia", {"farms": True, "optional_captures": "figures"}),
    ],
)
def test_farms_with_optional_captures_are_refused(
    stub: Stub, preset: str, options: dict[str, str | bool]
) -> None:
    """Farms with optional captures other than none are INVALID_OPTION naming optional_captures
    (docs/rules.md), and fattoria with optional_captures=none is created."""
    values = {
        name: pb.OptionValue(bool_value=v)
        if isinstance(v, bool)
        else pb.OptionValue(string_value=v)
        for name, v in options.items()
    }
    expect_error(
        _create(stub, preset=preset, options=values),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_OPTION",
        field="options.optional_captures",
        option="optional_captures",
    )
    none = {"optional_captures": pb.OptionValue(string_value="none")}
    created = _create(stub, preset="fattoria", options=none)()
    assert isinstance(created, pb.CreateGameResponse)
    assert created.view.options["farms"].bool_value
    assert created.view.options["optional_captures"].string_value == "none"


@pytest.mark.parametrize(
    ("preset", "options", "option", "needs"),
    [
        ("scopa", {"dealer_bonus_low": True}, "dealer_bonus_low", "needs dealer_bonus"),
        ("scopa15", {"capture_arithmetic": "signed"}, "capture_arithmetic", "capture_15_only"),
    ],
)
def test_an_option_without_the_option_it_needs_is_refused(
    stub: Stub, preset: str, options: dict[str, str | bool], option: str, needs: str
) -> None:
    """An option that would do nothing without another (docs/rules.md) is INVALID_ARGUMENT /
    INVALID_OPTION naming it, and the message says what it needs."""
    values = {
        name: pb.OptionValue(bool_value=v)
        if isinstance(v, bool)
        else pb.OptionValue(string_value=v)
        for name, v in options.items()
    }
    call = _create(stub, preset=preset, options=values)
    bad = grpc.StatusCode.INVALID_ARGUMENT
    expect_error(call, bad, "INVALID_OPTION", field=f"options.{option}", option=option)
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert isinstance(error, grpc.Call)
    assert needs in (error.details() or ""), error.details()


@pytest.fixture(scope="module")
def strict_server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """A short-lived server started without SCOPA_ALLOW_STACKED_DECKS."""
    process = start_server(redis_server.url, stacked=False)
    try:
        yield process
    finally:
        stop_server(process)


def test_stacked_decks_need_permission(strict_server: ServerProcess) -> None:
    """A server not allowing stacked decks refuses them with STACKED_DECKS_DISABLED."""
    strict = connect(strict_server.target)
    expect_error(_create(strict, stacked_decks=[RIGGED]), FP, "STACKED_DECKS_DISABLED")
    created = create(strict, "scopa", 2)
    assert created.view.status == pb.GAME_STATUS_ACTIVE


def test_games_without_a_person_need_the_server_setting(stub: Stub) -> None:
    """Every seat a bot, on a server started without SCOPA_BOT_ONLY_GAMES: refused with
    BOT_ONLY_GAMES_DISABLED; one person's seat beside the bots is a game."""
    bots = [pb.SeatSpec(display_name="", bot="ismcts"), pb.SeatSpec(display_name="", bot="ismcts")]
    expect_error(_create(stub, seats=bots), FP, "BOT_ONLY_GAMES_DISABLED")
    mixed = [pb.SeatSpec(display_name="me"), pb.SeatSpec(display_name="", bot="greedy")]
    created = stub.CreateGame(pb.CreateGameRequest(preset="scopa", seats=mixed), timeout=10)
    assert created.view.status == pb.GAME_STATUS_ACTIVE

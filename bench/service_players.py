"""Simulated players of the service benchmark: client-side timing and the per-phase workers.

Each worker drives one two-seat game at a time (it holds both seat tokens), so ``conc`` workers
keep ``conc`` RPCs in flight. Moves are random legal moves: read from GetState's legal moves
(``games`` phase), or computed by a local copy of the engine that follows a game created from
a stacked deck (``play`` phase), so that phase sends nothing but PlayCard.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

import _floor
import grpc
import grpc.aio
from google.protobuf.message import Message

from scopa import rules
from scopa_client import bearer_metadata
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

__all__ = [
    "LATE_TARGET",
    "Pools",
    "Recorder",
    "create_worker",
    "floor_worker",
    "games_worker",
    "get_worker",
    "pb_card",
    "percentile",
    "play_late",
    "play_stacked",
    "prepare_late",
    "request_size_key",
    "response_size_key",
]

_T = TypeVar("_T")
_PRESET = "scopa"
_FINISHED = pb.GAME_STATUS_FINISHED
_SAMPLE_EVERY = 64
LATE_TARGET = 61
"""The target score of the ``late`` phase's long games."""


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q <= 1) of already sorted values; 0 when empty."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), round(q * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


@dataclass
class Recorder:
    """Client-side latencies (seconds) of successful calls and error counts, per RPC name."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    places: dict[str, list[float]] = field(default_factory=dict)
    """PlayCard's latencies by the move's place in its game (:data:`PLACES`)."""
    sizes: dict[str, list[int]] = field(default_factory=dict)
    """Sampled sizes (bytes): ``token``, and per RPC under :func:`request_size_key` and
    :func:`response_size_key`."""

    async def call(self, name: str, awaitable: Awaitable[_T]) -> _T:
        """Await one RPC and record how long it took (errors are counted, then re-raised)."""
        start = time.perf_counter()
        try:
            result = await awaitable
        except grpc.aio.AioRpcError:
            self.errors[name] = self.errors.get(name, 0) + 1
            raise
        self.latencies.setdefault(name, []).append(time.perf_counter() - start)
        return result

    def sample_size(self, name: str, request: Message, response: Message) -> None:
        """Keep every 64th request and response size of ``name`` (sizes cost client CPU)."""
        if self.calls(name) % _SAMPLE_EVERY == 1:
            self.sizes.setdefault(request_size_key(name), []).append(request.ByteSize())
            self.sizes.setdefault(response_size_key(name), []).append(response.ByteSize())

    def calls(self, name: str) -> int:
        """Successful calls of ``name``."""
        return len(self.latencies.get(name, ()))


def request_size_key(name: str) -> str:
    """The :attr:`Recorder.sizes` key of ``name``'s sampled request sizes."""
    return f"{name}.request"


def response_size_key(name: str) -> str:
    """The :attr:`Recorder.sizes` key of ``name``'s sampled response sizes."""
    return f"{name}.response"


@dataclass
class Game:
    """A game the benchmark created: its name, both seats' metadata and maybe a local mirror."""

    name: str
    seats: tuple[tuple[tuple[str, str], ...], ...]
    mirror: rules.MatchState | None = None


@dataclass
class Pools:
    """Games shared between phases."""

    fresh: list[Game] = field(default_factory=list)
    """Created with a stacked deck and not played yet (the ``play`` phase consumes them)."""
    finished: list[str] = field(default_factory=list)
    """Names of games that reached FINISHED, for measuring their Redis footprint."""
    finished_stacked: list[str] = field(default_factory=list)


def pb_card(card: rules.Card) -> pb.Card:
    suit = cast("pb.Suit.ValueType", int(rules.suit_of(card)) + 1)
    return pb.Card(suit=suit, rank=rules.rank_of(card))


def _options(target: int) -> dict[str, pb.OptionValue]:
    return {"target_score": pb.OptionValue(int_value=target)}


async def create_game(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    rng: random.Random,
    target: int,
    stacked: bool,
    decks: int = 1,
) -> Game:
    """CreateGame with two creator-held seats; with ``stacked`` also a local engine mirror.

    ``decks``: how many stacked decks (one a deal) the game, and so its mirror, knows.
    """
    stacked_decks: list[list[int]] = []
    request = pb.CreateGameRequest(
        request_id=uuid.uuid4().hex,
        preset=_PRESET,
        options=_options(target),
        seats=[pb.SeatSpec(display_name="north"), pb.SeatSpec(display_name="south")],
    )
    for _ in range(decks if stacked else 0):
        deck = list(rules.ALL_CARDS)
        rng.shuffle(deck)
        stacked_decks.append(deck)
        request.stacked_decks.append(pb.Deck(cards=[pb_card(c) for c in deck]))
    response = await rec.call("CreateGame", stub.CreateGame(request))
    tokens = {c.seat: c.token for c in response.credentials}
    seats = tuple(bearer_metadata(tokens[s]) for s in sorted(tokens))
    rec.sizes.setdefault("token", [len(seats[0][0][1])])
    mirror = None
    if stacked:
        ruleset = rules.make_ruleset(_PRESET, {"target_score": target, "players": 2})
        try:
            mirror, _events = rules.new_match(ruleset, decks=stacked_decks)
        except rules.InvalidDeck:
            mirror = None  # a void first deal: the server shuffled a deck we cannot know
    return Game(response.name, seats, mirror)


async def create_worker(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    pools: Pools,
    rng: random.Random,
    target: int,
    deadline: float,
) -> None:
    """CreateGame only (stacked decks, so the ``play`` phase can mirror them)."""
    while time.monotonic() < deadline:
        game = await create_game(stub, rec, rng, target, stacked=True)
        if game.mirror is not None:
            pools.fresh.append(game)


async def get_worker(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    games: Sequence[Game],
    start: int,
    deadline: float,
) -> None:
    """GetState only, seat 0's view of the games (round robin from ``start``)."""
    index = start
    while time.monotonic() < deadline:
        game = games[index % len(games)]
        index += 1
        await rec.call(
            "GetState", stub.GetState(pb.GetStateRequest(name=game.name), metadata=game.seats[0])
        )


async def _play_card(
    stub: pb_grpc.GameServiceAsyncStub, rec: Recorder, game: Game, seat: int, move: rules.Move
) -> pb.PlayCardResponse:
    """PlayCard of ``move`` by ``seat``."""
    capture = pb.CaptureChoice(cards=[pb_card(c) for c in move.capture or ()])
    request = pb.PlayCardRequest(
        name=game.name,
        card=pb_card(move.card),
        capture=capture,
        request_id=uuid.uuid4().hex,
    )
    response: pb.PlayCardResponse = await rec.call(
        "PlayCard", stub.PlayCard(request, metadata=game.seats[seat])
    )
    rec.sample_size("PlayCard", request, response)
    return response


PLACES = ("first", "mid", "last")
"""A move's place in its game: its first move in the phase, the one that finishes it, any other."""


async def _play_mirrored(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    game: Game,
    rng: random.Random,
    deadline: float,
) -> bool:
    """Play random legal moves computed locally; True when the game finished."""
    state = game.mirror
    assert state is not None
    place = "first"
    while not state.finished and time.monotonic() < deadline:
        seat = state.turn
        move = rng.choice(rules.legal_moves(state))
        response = await _play_card(stub, rec, game, seat, move)
        latency = rec.latencies["PlayCard"][-1]
        try:
            state, _events = rules.apply_move(state, seat, move)
        except rules.InvalidDeck:
            # A tie after the stacked hand: the server shuffled a deck we cannot know.
            return False
        rec.places.setdefault("last" if state.finished else place, []).append(latency)
        place = "mid"
        if len(response.view.hand) != len(state.hands[seat]):
            raise RuntimeError(f"{game.name}: the local mirror diverged from the server")
    return state.finished


async def play_stacked(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    pools: Pools,
    rng: random.Random,
    target: int,
    deadline: float,
    *,
    stop_after_first: bool = False,
) -> None:
    """PlayCard on prepared games (CreateGame when they run out); maybe stop at one finished."""
    while time.monotonic() < deadline:
        if pools.fresh:
            game = pools.fresh.pop()
        else:
            game = await create_game(stub, rec, rng, target, stacked=True)
        if game.mirror is not None and await _play_mirrored(stub, rec, game, rng, deadline):
            pools.finished_stacked.append(game.name)
            if stop_after_first:
                return


async def prepare_late(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    late: list[Game],
    rng: random.Random,
    hands: int,
    deadline: float,
    wanted: int,
) -> None:
    """Games to 61 played (random legal moves) until their hand ``hands + 1`` starts, until
    ``late`` holds ``wanted`` of them (or the deadline).

    Each is created with ``hands + 1`` stacked decks, so the mirror knows that hand too and the
    ``late`` phase can play it with PlayCard alone. A game that ends first is dropped.
    """
    while time.monotonic() < deadline and len(late) < wanted:
        game = await create_game(stub, rec, rng, LATE_TARGET, stacked=True, decks=hands + 1)
        while game.mirror is not None and time.monotonic() < deadline:
            state = game.mirror
            if state.finished:
                break
            if state.hand_number > hands:
                late.append(game)
                break
            seat = state.turn
            move = rng.choice(rules.legal_moves(state))
            await _play_card(stub, rec, game, seat, move)
            try:
                game.mirror, _events = rules.apply_move(state, seat, move)
            except rules.InvalidDeck:
                # A void deal used a deck: the server shuffled one we cannot know.
                game.mirror = None


async def play_late(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    late: list[Game],
    rng: random.Random,
    deadline: float,
) -> None:
    """PlayCard on prepared late games (:func:`prepare_late`) until they or the time run out."""
    while time.monotonic() < deadline and late:
        await _play_mirrored(stub, rec, late.pop(), rng, deadline)


async def games_worker(
    stub: pb_grpc.GameServiceAsyncStub,
    rec: Recorder,
    pools: Pools,
    rng: random.Random,
    target: int,
    deadline: float,
) -> None:
    """Full games as a client would play them: CreateGame, then GetState + PlayCard per turn."""
    while time.monotonic() < deadline:
        game = await create_game(stub, rec, rng, target, stacked=False)
        turn = 0
        while time.monotonic() < deadline:
            seat = game.seats[turn]
            got = await rec.call(
                "GetState", stub.GetState(pb.GetStateRequest(name=game.name), metadata=seat)
            )
            if got.view.status == _FINISHED:
                break
            move = rng.choice(got.view.legal_moves)
            request = pb.PlayCardRequest(
                name=game.name,
                card=move.card,
                capture=pb.CaptureChoice(cards=move.capture),
                request_id=uuid.uuid4().hex,
            )
            played = await rec.call("PlayCard", stub.PlayCard(request, metadata=seat))
            if played.view.status == _FINISHED:
                pools.finished.append(game.name)
                break
            turn = played.view.turn


async def floor_worker(
    channel: grpc.aio.Channel,
    rec: Recorder,
    index: int,
    request_bytes: int,
    deadline: float,
) -> None:
    """The floor's unary call in a loop, on this worker's own key."""
    call = channel.unary_unary(_floor.METHOD)
    payload = _floor.encode_request(index, request_bytes)
    while time.monotonic() < deadline:
        await rec.call("floor", call(payload))

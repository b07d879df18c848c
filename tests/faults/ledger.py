"""Players that record every outcome, and the audit of a game's event log against them.

Players follow the API's contract: an error that promises "nothing was changed" is answered
by reading the game again and choosing a move with a new request_id; UNAVAILABLE /
OUTCOME_UNKNOWN (and only that) is retried with the same request_id. The audit then checks
that every OK'd move is in the log exactly once, that nothing else is (unless its outcome was
left unknown), and that replaying the log from the stacked decks gives the stored state.

Scopa fidasse and Scopa della fattoria games (``create_game(preset=...)``) take their actions
over TakeAction (claims, answers, builds and raises too); their audit checks each OK'd action's
version holds that seat's action once, without the replay (a claim's card is not in its log
event until it is settled).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc
import grpc.aio
import redis
from integration.helpers import fidasse_action

from scopa import rules
from scopa.app import AppEvent
from scopa.app._eventlog import decode_log
from scopa.storage import events_key, game_key, read_log_entries
from scopa_client import ERROR_DOMAIN, bearer_metadata, error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

if TYPE_CHECKING:
    AsyncStub = scopa_pb2_grpc.GameServiceAsyncStub
SERVER_FAULTS = frozenset({grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN})
UNCHANGED = frozenset({"STORAGE_UNAVAILABLE", "STORAGE_FULL", "CONCURRENT_UPDATE"})
"""Reasons that promise the write changed nothing."""
CALL_TIMEOUT_S = 15.0


def async_stub(target: str) -> tuple[grpc.aio.Channel, AsyncStub]:
    """An asyncio channel and stub for ``target``."""
    channel = grpc.aio.insecure_channel(target)
    stub: AsyncStub = scopa_pb2_grpc.GameServiceStub(channel)  # type: ignore[assignment]
    return channel, stub


def decks(seed: int, count: int = 12) -> list[tuple[rules.Card, ...]]:
    """``count`` shuffled decks from ``seed``."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        cards = list(rules.ALL_CARDS)
        rng.shuffle(cards)
        result.append(tuple(cards))
    return result


def deck_pb(deck: Sequence[rules.Card]) -> pb.Deck:
    """A stacked deck message."""
    return pb.Deck(cards=[pb.Card(suit=c // 10 + 1, rank=c % 10 + 1) for c in deck])  # type: ignore[arg-type]


def card_of(card: pb.Card) -> rules.Card:
    """The engine card of a message."""
    return rules.card_of(card.suit - 1, card.rank)


@dataclass
class Failure:
    """One failed call as the client saw it."""

    rpc: str
    code: grpc.StatusCode
    reason: str | None
    domain: str | None
    message: str


@dataclass
class Ledger:
    """Everything the players were told."""

    ok: dict[str, dict[int, tuple[int, rules.Card | None, str]]] = field(default_factory=dict)
    """game -> version -> (seat, card, request_id) of every OK'd PlayCard (card None: an OK'd
    TakeAction of a variant game)."""
    failures: list[Failure] = field(default_factory=list)
    unknown: dict[str, int] = field(default_factory=dict)
    """game -> attempts whose outcome stayed unknown (never retried to an answer)."""
    doubled: list[str] = field(default_factory=list)
    moves: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    """Action kind -> OK'd TakeActions of that kind (variant games)."""

    def fail(self, rpc: str, error: grpc.aio.AioRpcError) -> Failure:
        """Record a failed call."""
        info = error_info(error)
        failure = Failure(
            rpc,
            error.code(),
            info.reason if info else None,
            info.domain if info else None,
            error.details() or "",
        )
        self.failures.append(failure)
        return failure

    def record_ok(
        self, name: str, version: int, seat: int, card: rules.Card | None, rid: str
    ) -> None:
        """Record an OK'd move; two different answers for one version mean a doubled move."""
        game = self.ok.setdefault(name, {})
        seen = game.get(version)
        if seen is not None and seen[2] != rid:
            self.doubled.append(f"{name} v{version}: {seen} and {(seat, card, rid)}")
        for other_version, (_, _, other_rid) in game.items():
            if other_rid == rid and other_version != version:
                self.doubled.append(f"{name}: request {rid} OK'd at v{other_version}, v{version}")
        game[version] = (seat, card, rid)
        self.moves += seen is None

    def check_errors(self) -> None:
        """No INTERNAL/UNKNOWN, and every error carries a scopa.dev ErrorInfo."""
        faults = [f for f in self.failures if f.code in SERVER_FAULTS]
        assert not faults, faults[:5]
        bare = [f for f in self.failures if f.reason is None or f.domain != ERROR_DOMAIN]
        assert not bare, bare[:5]
        assert not self.doubled, self.doubled[:5]


@dataclass
class Game:
    """A created game and what it takes to replay it."""

    name: str
    tokens: dict[int, str]
    decks: list[tuple[rules.Card, ...]]
    preset: str = "scopa"


async def create_game(
    stub: AsyncStub, seed: int, players: int = 2, target: int = 1, preset: str = "scopa"
) -> Game:
    """Create a stacked game of a 40-card preset whose creator holds every seat."""
    stacked = decks(seed)
    created: pb.CreateGameResponse = await stub.CreateGame(
        pb.CreateGameRequest(
            preset=preset,
            options={"target_score": pb.OptionValue(int_value=target)},
            seats=[pb.SeatSpec(display_name=f"P{i}") for i in range(players)],
            stacked_decks=[deck_pb(d) for d in stacked],
            request_id=uuid.uuid4().hex,
        ),
        timeout=CALL_TIMEOUT_S,
    )
    tokens = {c.seat: c.token for c in created.credentials}
    return Game(created.name, tokens, stacked, preset)


async def _seat_view(stub: AsyncStub, game: Game) -> pb.GameView:
    view: pb.GameView = (
        await stub.GetState(
            pb.GetStateRequest(name=game.name),
            metadata=bearer_metadata(game.tokens[0]),
            timeout=CALL_TIMEOUT_S,
        )
    ).view
    if view.status == pb.GAME_STATUS_FINISHED or view.turn == 0:
        return view
    response: pb.GetStateResponse = await stub.GetState(
        pb.GetStateRequest(name=game.name),
        metadata=bearer_metadata(game.tokens[view.turn]),
        timeout=CALL_TIMEOUT_S,
    )
    return response.view


async def play(
    stubs: Sequence[AsyncStub],
    game: Game,
    ledger: Ledger,
    deadline: float,
    rng: random.Random,
    pause_s: float = 0.0,
) -> bool:
    """Play random legal moves until the game is over (True) or the deadline passes."""
    loop = asyncio.get_running_loop()
    calls = 0
    while loop.time() < deadline:
        stub = stubs[calls % len(stubs)]
        calls += 1
        try:
            view = await _seat_view(stub, game)
        except grpc.aio.AioRpcError as exc:
            ledger.fail("GetState", exc)
            await asyncio.sleep(0.05)
            continue
        if view.status == pb.GAME_STATUS_FINISHED:
            return True
        if game.preset == "scopa":
            move = rng.choice(list(view.legal_moves))
            request: Request = pb.PlayCardRequest(
                name=game.name,
                card=move.card,
                capture=pb.CaptureChoice(cards=list(move.capture)),
                request_id=uuid.uuid4().hex,
            )
        else:
            request = pb.TakeActionRequest(
                name=game.name, action=variant_action(view, rng), request_id=uuid.uuid4().hex
            )
        await _play_move(stubs, game, view.turn, request, ledger, deadline, rng)
        if pause_s:
            await asyncio.sleep(pause_s)
    return False


def variant_action(view: pb.GameView, rng: random.Random) -> pb.Action:
    """A fidasse or fattoria game's random action: a build or raise at half the turns it has
    one, claims at 30% of the first hand's plays (no later: false claims and wrong doubts could
    keep scores below the target), answers at random."""
    builds = [a for a in view.legal_actions if a.HasField("build")]
    if builds and rng.random() < 0.5:
        return rng.choice(builds)
    return fidasse_action(view, rng, 0.3 if view.hand_number == 1 else 0.0)


Request = pb.PlayCardRequest | pb.TakeActionRequest


async def _play_move(
    stubs: Sequence[AsyncStub],
    game: Game,
    seat: int,
    request: Request,
    ledger: Ledger,
    deadline: float,
    rng: random.Random,
) -> None:
    """One PlayCard or TakeAction, retried with the same request_id while its outcome is unknown.

    After an OUTCOME_UNKNOWN (or a deadline), an attempt answered STORAGE_UNAVAILABLE says
    nothing about the earlier attempt: the request is retried until a definitive answer.
    """
    loop = asyncio.get_running_loop()
    rpc = "PlayCard" if isinstance(request, pb.PlayCardRequest) else "TakeAction"
    uncertain = False
    while True:
        stub = rng.choice(stubs)
        metadata = bearer_metadata(game.tokens[seat])
        try:
            response: pb.PlayCardResponse | pb.TakeActionResponse
            if isinstance(request, pb.PlayCardRequest):
                response = await stub.PlayCard(request, metadata=metadata, timeout=CALL_TIMEOUT_S)
            else:
                response = await stub.TakeAction(request, metadata=metadata, timeout=CALL_TIMEOUT_S)
        except grpc.aio.AioRpcError as exc:
            failure = ledger.fail(rpc, exc)
            if (
                failure.reason == "OUTCOME_UNKNOWN"
                or exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            ):
                uncertain = True
            elif not (uncertain and exc.code() == grpc.StatusCode.UNAVAILABLE):
                return  # a definitive answer: nothing was changed
            if loop.time() < deadline:
                await asyncio.sleep(0.05)
                continue
            ledger.unknown[game.name] = ledger.unknown.get(game.name, 0) + 1
            return
        first = response.events[0]
        card = card_of(first.card_played.card) if rpc == "PlayCard" else None
        if isinstance(request, pb.TakeActionRequest):
            ledger.kinds[request.action.WhichOneof("kind") or ""] += 1
        ledger.record_ok(game.name, first.version, seat, card, request.request_id)
        return


def logged_plays(client: redis.Redis[bytes], name: str) -> list[tuple[int, AppEvent]]:
    """(version, event) of every engine event in the game's log, oldest first."""
    game_id = name.removeprefix("games/")
    result = []
    for logged in read_log_entries(client.lrange(events_key(game_id), 0, -1)):
        for event in decode_log(logged.payload):
            result.append((logged.version, event))
    return result


def audit(client: redis.Redis[bytes], game: Game, ledger: Ledger) -> int:
    """Check the game's log against the ledger and the replay; return the moves logged."""
    events = logged_plays(client, game.name)
    if game.preset != "scopa":
        return _audit_actions(game, ledger, events)
    plays = [(v, e) for v, e in events if isinstance(e, rules.CardPlayed)]
    by_version: dict[int, list[rules.CardPlayed]] = {}
    for version, played in plays:
        by_version.setdefault(version, []).append(played)
    doubled = {v: p for v, p in by_version.items() if len(p) > 1}
    assert not doubled, f"{game.name}: several plays at one version {doubled}"
    ok = ledger.ok.get(game.name, {})
    lost = [
        (v, seat, card)
        for v, (seat, card, _) in ok.items()
        if [(p.seat, p.card) for p in by_version.get(v, [])] != [(seat, card)]
    ]
    assert not lost, f"{game.name}: OK'd moves missing from the log: {lost}"
    unexplained = [v for v in by_version if v not in ok]
    assert len(unexplained) <= ledger.unknown.get(game.name, 0), (
        f"{game.name}: moves applied although the client was told nothing changed: "
        f"versions {unexplained}"
    )
    _check_replay(client, game, events)
    return len(plays)


_ACTIONS = (rules.CardPlayed, rules.SweepClaimed, rules.ClaimAnswered)
"""The log events that open a version of a variant game: its action's (the seat is the actor)."""


def _audit_actions(game: Game, ledger: Ledger, events: list[tuple[int, AppEvent]]) -> int:
    """A variant game's log against the ledger: each OK'd version opens with its seat's action,
    and no version was applied that the client was told changed nothing."""
    actors: dict[int, int] = {}
    for version, event in events:
        if isinstance(event, _ACTIONS) and version not in actors:
            actors[version] = event.seat
    ok = ledger.ok.get(game.name, {})
    lost = [(v, seat) for v, (seat, _, _) in ok.items() if actors.get(v) != seat]
    assert not lost, f"{game.name}: OK'd actions missing from the log: {lost}"
    unexplained = [v for v in actors if v not in ok]
    assert len(unexplained) <= ledger.unknown.get(game.name, 0), (
        f"{game.name}: actions applied although the client was told nothing changed: "
        f"versions {unexplained}"
    )
    return len(actors)


def _check_replay(
    client: redis.Redis[bytes], game: Game, events: list[tuple[int, AppEvent]]
) -> None:
    """Replaying the logged plays from the stacked decks gives the stored state and scores."""
    blob = client.hget(game_key(game.name.removeprefix("games/")), "state")
    assert blob is not None, f"{game.name} is gone"
    stored = rules.load_state(blob)
    state, _ = rules.new_match(stored.ruleset, decks=tuple(game.decks))
    for _, event in events:
        if isinstance(event, rules.CardPlayed):
            state, _ = rules.apply_move(state, event.seat, rules.Move(event.card, event.captured))
        elif isinstance(event, rules.SeatResigned):
            state, _ = rules.resign(state, event.seat)
    assert state.scores == stored.scores, game.name
    assert state == stored, f"{game.name}: the replayed log does not give the stored state"

"""Shared helpers of the integration suite: cards, decks, game creation, error checks, play."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from scopa_client import ERROR_DOMAIN, bearer_metadata, error_info
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub


@contextmanager
def stub_pair(targets: Sequence[str]) -> Iterator[tuple[Stub, Stub]]:
    """One blocking stub on its own channel per target of two (replicas), closed on exit."""
    channels = [grpc.insecure_channel(target) for target in targets]
    try:
        yield Stub(channels[0]), Stub(channels[1])
    finally:
        for channel in channels:
            channel.close()


CardKey = tuple[int, int]
SUITS = (pb.SUIT_COPPE, pb.SUIT_DENARI, pb.SUIT_BASTONI, pb.SUIT_SPADE)
ALL_CARDS: tuple[CardKey, ...] = tuple((s, r) for s in SUITS for r in range(1, 11))


def deck_keys(size: int) -> tuple[tuple[int, int, int], ...]:
    """Every card of the ``size``-card deck as (suit, rank, copy): 40, 52 (ranks to 13), 80."""
    ranks = 13 if size == 52 else 10
    copies = 2 if size == 80 else 1
    return tuple((s, r, k) for k in range(copies) for s in SUITS for r in range(1, ranks + 1))


def key(card: pb.Card) -> CardKey:
    """A hashable (suit, rank) for a Card message."""
    return (int(card.suit), card.rank)


def card(suit: int, rank: int) -> pb.Card:
    """A Card message."""
    return pb.Card(suit=suit, rank=rank)  # type: ignore[arg-type]


def rid() -> str:
    """A fresh request_id."""
    return uuid.uuid4().hex


def auth(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata for a seat token."""
    return bearer_metadata(token)


def stacked_deck(top: Sequence[CardKey]) -> pb.Deck:
    """A full 40-card deck whose first cards are `top` (in order), the rest in a fixed order."""
    rest = [c for c in ALL_CARDS if c not in set(top)]
    # Keep kings apart at the end of the deck so that a starting table never holds three.
    rest.sort(key=lambda c: (c[1] == 10, c))
    return pb.Deck(cards=[card(s, r) for s, r in (*top, *rest)])


_C, _D, _B, _S = SUITS
FARM_DEAL: tuple[CardKey, ...] = (
    *((_C, 2), (_D, 1), (_C, 7), (_D, 8), (_C, 9), (_S, 3)),
    *((_B, 5), (_S, 6), (_B, 9), (_D, 4)),
)
"""The top of a 2-seat fattoria deck (dealt one at a time from seat 0, then the table): seat 0
holds 2C 7C 9C, seat 1 1D 8D 3S, the table is 5B 6S 9B 4D. Seat 0's one build is 2C onto 5B
(a farm of 7), seat 1's one build then raises it with 1D to 8, and seat 1's next turn must take
it with 8D."""


def int_option(value: int) -> pb.OptionValue:
    """An int OptionValue."""
    return pb.OptionValue(int_value=value)


def create(
    stub: Stub,
    preset: str = "scopa",
    players: int = 2,
    *,
    target: int | None = 1,
    open_seats: Sequence[int] = (),
    decks: Sequence[pb.Deck] = (),
    request_id: str = "",
) -> pb.CreateGameResponse:
    """Create a game with `players` seats (the creator holding the non-open ones)."""
    options = {} if target is None else {"target_score": int_option(target)}
    request = pb.CreateGameRequest(
        preset=preset,
        options=options,
        seats=[pb.SeatSpec(display_name=f"P{i}", open=i in open_seats) for i in range(players)],
        stacked_decks=list(decks),
        request_id=request_id,
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=10)
    return response


def tokens_of(created: pb.CreateGameResponse) -> dict[int, str]:
    """Seat -> token of a create response."""
    return {c.seat: c.token for c in created.credentials}


def view(stub: Stub, name: str, token: str | None = None) -> pb.GameView:
    """GetState as a seat (with a token) or as a spectator."""
    metadata = auth(token) if token else None
    response: pb.GetStateResponse = stub.GetState(
        pb.GetStateRequest(name=name), metadata=metadata, timeout=10
    )
    return response.view


def expect_error(
    call: Callable[[], object],
    code: grpc.StatusCode,
    reason: str,
    **metadata: str,
) -> dict[str, str]:
    """Run `call`, assert it fails with `code` and a scopa.dev ErrorInfo `reason` (+metadata)."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert isinstance(error, grpc.Call)
    assert error.code() == code, error.details()
    info = error_info(error)
    assert info is not None, "no ErrorInfo detail"
    assert info.domain == ERROR_DOMAIN
    assert info.reason == reason, (info.reason, error.details())
    for name, value in metadata.items():
        assert info.metadata.get(name) == value, (name, dict(info.metadata))
    return dict(info.metadata)


def move_request(
    name: str, move: pb.LegalMove, request_id: str = "", etag: str = ""
) -> pb.PlayCardRequest:
    """A PlayCard request naming exactly this legal move's capture."""
    return pb.PlayCardRequest(
        name=name,
        card=move.card,
        capture=pb.CaptureChoice(cards=list(move.capture)),
        request_id=request_id,
        etag=etag,
    )


@dataclass
class PlayedGame:
    """Everything seen while playing a game to the end."""

    name: str
    final: pb.GameView
    responses: list[pb.PlayCardResponse] = field(default_factory=list)
    moves: int = 0


def fidasse_action(
    current: pb.GameView, rng: random.Random, claim_rate: float, trust: bool | None = None
) -> pb.Action:
    """Scopa fidasse's random legal action for the seat to play: an answer (``trust`` it, or
    at random when None), a claim at ``claim_rate`` of its plays (or when it has no play), else
    a play."""
    answers = [a for a in current.legal_actions if a.HasField("answer_claim")]
    if answers:
        if trust is None:
            return rng.choice(answers)
        wanted = pb.CLAIM_ANSWER_TRUST if trust else pb.CLAIM_ANSWER_DOUBT
        return next(a for a in answers if a.answer_claim.answer == wanted)
    claims = [a for a in current.legal_actions if a.HasField("claim_sweep")]
    plays = [a for a in current.legal_actions if a.HasField("play_card")]
    if claims and (not plays or rng.random() < claim_rate):
        return rng.choice(claims)
    return rng.choice(plays)


def play_to_end(
    stubs: Sequence[Stub],
    created: pb.CreateGameResponse,
    rng: random.Random,
    on_response: Callable[[int, pb.PlayCardResponse], None] | None = None,
    max_moves: int = 2000,
) -> PlayedGame:
    """Play random legal moves (from the turn seat's own view), alternating replicas, to the end."""
    name = created.name
    tokens = tokens_of(created)
    played = PlayedGame(name, created.view)
    current = view(stubs[0], name, tokens[created.view.turn])
    while current.status != pb.GAME_STATUS_FINISHED:
        assert played.moves < max_moves, "game does not end"
        assert current.HasField("turn") and current.seat == current.turn
        assert current.legal_moves, "the seat to play has no legal move"
        move = rng.choice(list(current.legal_moves))
        stub = stubs[played.moves % len(stubs)]
        response: pb.PlayCardResponse = stub.PlayCard(
            move_request(name, move, rid()), metadata=auth(tokens[current.seat]), timeout=10
        )
        played.moves += 1
        played.responses.append(response)
        if on_response is not None:
            on_response(current.seat, response)
        nxt = response.view
        if nxt.status == pb.GAME_STATUS_FINISHED:
            current = nxt
            break
        current = view(stubs[played.moves % len(stubs)], name, tokens[nxt.turn])
    played.final = current
    return played


SECRET_KEYS = frozenset(
    {"hand", "hands", "cards", "stock", "deck", "table", "token", "invite_code"}
)
"""Log record keys that would mean hidden cards or credentials were logged."""


def secret_keys(record: Any) -> set[str]:
    """The SECRET_KEYS used anywhere in a (nested) JSON log record."""
    found: set[str] = set()
    if isinstance(record, dict):
        for name, value in record.items():
            if name in SECRET_KEYS:
                found.add(name)
            found |= secret_keys(value)
    elif isinstance(record, list):
        for item in record:
            found |= secret_keys(item)
    return found


@dataclass
class Pending:
    """A 2-seat game waiting on a variant's action: `action` for `seat` at `version`."""

    name: str
    tokens: dict[int, str]
    seat: int
    action: pb.Action
    version: int


PENDING_KINDS = ("fidasse-claim", "fattoria-farm")
"""A fidasse game whose claim awaits seat 1's answer; a fattoria game whose farm (FARM_DEAL's
2C on 5B) awaits seat 1's raise."""


def pending(stub: Stub, kind: str, target: int = 1) -> Pending:
    """Create a game of `kind` (PENDING_KINDS) and bring it to its pending action."""
    preset = "fidasse" if kind == "fidasse-claim" else "fattoria"
    created = create(stub, preset, 2, target=target, decks=[stacked_deck(FARM_DEAL)])
    name, tokens = created.name, tokens_of(created)
    first = view(stub, name, tokens[0])
    if preset == "fidasse":
        action = next(a for a in first.legal_actions if a.HasField("claim_sweep"))
    else:
        action = next(a for a in first.legal_actions if a.HasField("build"))
    stub.TakeAction(
        pb.TakeActionRequest(name=name, action=action, request_id=rid()),
        metadata=auth(tokens[0]),
        timeout=10,
    )
    second = view(stub, name, tokens[1])
    assert second.turn == 1
    if preset == "fidasse":
        assert second.phase.kind == pb.PHASE_ANSWER_CLAIM
        wanted = pb.CLAIM_ANSWER_TRUST
        answer = next(a for a in second.legal_actions if a.answer_claim.answer == wanted)
        return Pending(name, tokens, 1, answer, second.version)
    assert [f.owner for f in second.farms] == [0]
    (raise_,) = [a for a in second.legal_actions if len(a.build.onto) > 1]
    return Pending(name, tokens, 1, raise_, second.version)


def settled(kind: str, events: Sequence[pb.Event]) -> bool:
    """Whether `events` (a response's) are the pending action's: the claim answered and
    settled, or the farm raised to 8 by seat 1."""
    played = [e.card_played for e in events if e.HasField("card_played")]
    if kind == "fidasse-claim":
        answered = [e for e in events if e.HasField("claim_answered")]
        return len(answered) == 1 and len(played) == 1 and played[0].HasField("claim")
    return [(p.seat, p.farm.value, p.farm.owner) for p in played] == [(1, 8, 1)]

"""In-process costs of the per-call pieces every protocol shares (no server, no Redis).

The fourth pass of issue 12 (CHANGELOG.md) chose its steps by these figures: the SERVER
span with its duration metric (with and without a caller's ``traceparent``), one access-log
line, one leaf span, the view message of a game in play, and a seat token's check. The sixth
pass added the pieces of a PlayCard in play (a game nine moves in, its last move's events):
``with_view_tail`` (the response without its options, as both ports build it),
``options_tail``, ``rest_json_playcard`` (its proto3 JSON with the tail, a new view version each
call so that the view's own text is never taken from the kept ones), ``rest_bind_playcard``
(a REST PlayCard body bound to its request) and ``dump_state`` (that game's state); issue 26's
GetState pass ``rest_get_state`` (a whole REST GetState of an unchanged game through the HTTP
app, on the embedded store); issue 36's ``snapshot_with_presence`` (a view snapshot copied with
a presence, as a watch and a session do three times a realtime move) beside
``snapshot_replace`` (the same copy by ``dataclasses.replace``, as before). Each is
timed with :mod:`timeit` (best of ``--repeat`` rounds) and printed as
``micro=<name> us_per_call=<x>``, after a ``baseline=empty_call`` line timed the same way::

    .venv/bin/python bench/micro.py [--number 5000] [--repeat 5]

Run it with ``PYTHONPATH`` at another tree (``service`` and ``clients/python/src``) to compare
two builds in one sitting; the sixth pass's pieces are left out on a tree without the options
tail (``with_view(..., options=False)``), the others use only APIs older trees have too.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import inspect
import itertools
import json
import os
import random
import timeit
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

from opentelemetry import context, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind

from scopa._spans import LeafSpans
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    PlayResult,
    SeatSpec,
    TokenAuthority,
)
from scopa.config import Settings
from scopa.rules import MatchState, apply_move, dump_state, legal_moves, make_ruleset, new_match
from scopa.storage import MemoryStore, Presence
from scopa.telemetry import ServerTelemetry, configure_logging, get_logger
from scopa.transport import _convert
from scopa.transport._convert import card_to_pb, events_to_pb, view_to_pb
from scopa.transport._rest_rules import bind_request, routes_of
from scopa_client.v1 import scopa_pb2 as pb

__all__ = ["main"]

_TRACEPARENT = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
_PEER: dict[str, str | int] = {"network.peer.address": "127.0.0.1", "network.peer.port": 50000}
_REDIS = {
    "db.system.name": "redis",
    "db.operation.name": "HMGET",
    "server.address": "127.0.0.1",
    "server.port": 6379,
    "db.namespace": "0",
}


def _snapshot() -> tuple[GameSnapshot, TokenAuthority, str, str]:
    """Seat 0's snapshot of a new 2-player game, the authority, a seat token and the game id."""
    tokens = TokenAuthority(b"k" * 32)
    core = GameCore(MemoryStore(), tokens, CoreSettings(), random.Random(1))
    seats = [SeatSpec("ann"), SeatSpec("bob")]

    async def created() -> tuple[GameSnapshot, str, str]:
        result = await core.create_game(CreateGameCommand("scopa", {}, seats))
        token = dict(result.tokens)[0]
        return await core.get_state(result.game_id, token), token, result.game_id

    snapshot, token, game_id = asyncio.run(created())
    return snapshot, tokens, token, game_id


async def _nine_moves(core: GameCore) -> tuple[str, dict[int, str], PlayResult]:
    """A new 2-player scopa game nine moves in (each the first legal move): its id, the seats'
    tokens and the ninth move's result."""
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("bob")])
    )
    tokens = dict(created.tokens)
    seat = created.snapshot.view.turn
    for _ in range(9):
        move = (await core.get_state(created.game_id, tokens[seat])).view.legal_moves[0]
        result = await core.play_card(created.game_id, tokens[seat], move)
        seat = result.snapshot.view.turn
    return created.game_id, tokens, result


def _played() -> tuple[GameSnapshot, list[pb.Event], str]:
    """The mover's snapshot nine moves into a 2-player game, that move's events, and the next
    move as a REST PlayCard body."""
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(1))

    async def played() -> tuple[GameSnapshot, list[pb.Event], str]:
        game_id, tokens, result = await _nine_moves(core)
        seat = result.snapshot.view.turn
        move = (await core.get_state(game_id, tokens[seat])).view.legal_moves[0]
        cards = [card_to_pb(c) for c in (move.card, *(move.capture or ()))]
        shown = [{"suit": pb.Suit.Name(c.suit), "rank": c.rank} for c in cards]
        body = json.dumps({"card": shown[0], "capture": {"cards": shown[1:]}})
        return result.snapshot, events_to_pb(result.events), body

    return asyncio.run(played())


def _state_in_play() -> MatchState:
    """A scopa state nineteen random moves into its first hand.

    Each move is ``rng.choice`` of a card, then of that card's legal moves: the draws of
    ``random_move`` (tests/bots/test_random.py), which older trees have in ``scopa.rules`` and
    newer ones in ``scopa.bots``; ``legal_moves`` is the engine's in both.
    """
    rng = random.Random(1)
    state, _ = new_match(make_ruleset("scopa"), rng=rng)
    for _ in range(19):
        moves = legal_moves(state)
        card = rng.choice(list(dict.fromkeys(m.card for m in moves)))
        move = rng.choice([m for m in moves if m.card == card])
        state, _ = apply_move(state, state.turn, move, rng)
    return state


def _tail_cases() -> dict[str, Callable[[], object]]:
    """The sixth pass's pieces of a PlayCard in play; none on a tree without the options tail."""
    with_view = getattr(_convert, "with_view", None)
    if with_view is None or "options" not in inspect.signature(with_view).parameters:
        return {}
    from scopa.transport._convert import options_tail  # noqa: PLC0415
    from scopa.transport._rest_json import dumps  # noqa: PLC0415

    snapshot, events, body = _played()
    options = snapshot.view.options
    versions = itertools.count(1_000)

    def build() -> pb.PlayCardResponse:
        response: pb.PlayCardResponse = with_view(
            pb.PlayCardResponse, snapshot, events, options=False, events=events
        )
        return response

    def rest_json() -> bytes:
        response = build()
        response.view.version = next(versions)
        return dumps(response, options_tail(pb.PlayCardResponse, options))

    service = pb.DESCRIPTOR.services_by_name["GameService"]
    (route,) = [r for r in routes_of(service) if r.method.name == "PlayCard"]
    path, data, state = {"name": f"games/{snapshot.game_id}"}, body.encode(), _state_in_play()
    return {
        "with_view_tail": build,
        "options_tail": lambda: options_tail(pb.PlayCardResponse, options),
        "rest_json_playcard": rest_json,
        "rest_bind_playcard": lambda: bind_request(route, path, [], data),
        "dump_state": lambda: dump_state(state),
    }


class _Probes:
    def live(self) -> bool:
        return True

    def ready(self) -> bool:
        return True


def _rest_get_state(telemetry: tuple[TracerProvider, MeterProvider]) -> Callable[[], object]:
    """A whole REST GetState through the HTTP port's application (telemetry, routing, the
    core, the response) on the embedded store: seat 0 reading a game nine moves in, unchanged
    since its last read. Each call runs one request on a loop of its own (the loop's step is
    in the figure: compare it between trees, not with the other pieces)."""
    from scopa.transport import GameCalls, build_http_app  # noqa: PLC0415

    loop = asyncio.new_event_loop()
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(1))
    calls = GameCalls(core, options_tail=True)
    app = build_http_app(
        calls, _Probes(), tracer_provider=telemetry[0], meter_provider=telemetry[1]
    )

    async def played() -> tuple[str, str]:
        game_id, tokens, _ = await _nine_moves(core)
        return game_id, tokens[0]

    game_id, token = loop.run_until_complete(played())
    path = f"/v1/games/{game_id}"
    headers = [(b"host", b"bench"), (b"authorization", f"Bearer {token}".encode())]
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
        "scheme": "http",
        "http_version": "1.1",
    }
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(int(str(message["status"])))

    def get_state() -> None:
        loop.run_until_complete(app(dict(scope), receive, send))
        if statuses.pop() != 200:
            raise RuntimeError("GetState failed")

    get_state()
    return get_state


def _cases() -> dict[str, Callable[[], object]]:
    """Each measured piece, as a call of no arguments."""
    configure_logging(Settings(log_format="json"), open(os.devnull, "w"))  # noqa: SIM115
    provider = TracerProvider()  # no processors: what the bench's server runs (exporter none)
    telemetry = ServerTelemetry(provider, MeterProvider())
    leaves = LeafSpans(provider.get_tracer("scopa.storage"))
    log = get_logger("scopa.access").bind()
    snapshot, tokens, token, game_id = _snapshot()
    server = provider.get_tracer("scopa.server").start_span("rpc", kind=SpanKind.SERVER)
    context.attach(trace.set_span_in_context(server))  # log lines and leaves under a span

    def rpc(carrier: dict[str, str]) -> None:
        with telemetry.rpc("grpc", "scopa.v1.GameService/PlayCard", carrier, _PEER) as call:
            call.finish("OK", error=False)

    return {
        "server_span_traceparent": lambda: rpc(_TRACEPARENT),
        "server_span": lambda: rpc({}),
        "access_line": lambda: log.info(
            "rpc",
            rpc_method="/scopa.v1.GameService/PlayCard",
            outcome="OK",
            duration_ms=1.234,
            peer="ipv4:127.0.0.1:50000",
        ),
        "leaf_span": lambda: leaves.ended("HMGET load", SpanKind.CLIENT, _REDIS, 1, 2),
        "view_to_pb": lambda: view_to_pb(snapshot),
        "token_verify": lambda: tokens.verify(token, game_id),
        **_tail_cases(),
        "rest_get_state": _rest_get_state((provider, MeterProvider())),
        **_copy_cases(snapshot),
    }


def _copy_cases(snapshot: GameSnapshot) -> dict[str, Callable[[], object]]:
    """A snapshot copied with a presence: its own method and ``dataclasses.replace`` (none on a
    tree without ``GameSnapshot.with_presence``)."""
    if not hasattr(snapshot, "with_presence"):
        return {}
    presence = Presence(now_ms=1, seats={}, spectators=2)
    return {
        "snapshot_with_presence": lambda: snapshot.with_presence(presence),
        "snapshot_replace": lambda: dataclasses.replace(snapshot, presence=presence),
    }


def _us(call: Callable[[], object], number: int, repeat: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    """Print the baseline and one line per piece."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=5000, help="calls per round")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (the best is kept)")
    args = parser.parse_args(argv)
    cases = _cases()
    print(f"baseline=empty_call us_per_call={_us(lambda: None, args.number, args.repeat):.3f}")
    for name, call in cases.items():
        print(f"micro={name} us_per_call={_us(call, args.number, args.repeat):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

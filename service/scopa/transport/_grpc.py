"""The gRPC servicer: takes the token from the metadata and calls :class:`GameCalls`.

Errors are not handled here: domain exceptions propagate to the error-mapping interceptor
(:mod:`scopa.server._errors`), the one place that turns them into statuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scopa.app import GameCore
from scopa.server._guard import peer_host
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

from ._calls import GameCalls
from ._convert import token_from_metadata

__all__ = ["GameServicer"]


def _token(context: Any) -> str | None:
    return token_from_metadata(context.invocation_metadata())


def peer_address(context: Any) -> str:
    """The caller's address without its port (``ipv4:1.2.3.4:5`` -> ``1.2.3.4``)."""
    return peer_host(str(context.peer() or ""))


class GameServicer(pb_grpc.GameServiceServicer):
    """scopa.v1.GameService on top of :class:`GameCore` (through :class:`GameCalls`)."""

    def __init__(
        self, core: GameCore | GameCalls, client_of: Callable[[Any], str] = peer_address
    ) -> None:
        """``client_of(context)`` names the caller for per-client limits (its address)."""
        self._calls = core if isinstance(core, GameCalls) else GameCalls(core)
        self._client_of = client_of

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        """Create a game."""
        return await self._calls.create_game(request, None)

    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.GetStateResponse:
        """The caller's view of a game."""
        return await self._calls.get_state(request, _token(context))

    async def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        """Play a card."""
        return await self._calls.play_card(request, _token(context))

    async def TakeAction(
        self, request: pb.TakeActionRequest, context: Any
    ) -> pb.TakeActionResponse:
        """Take one action of any kind (a play, a declaration)."""
        return await self._calls.take_action(request, _token(context))

    async def JoinGame(self, request: pb.JoinGameRequest, context: Any) -> pb.JoinGameResponse:
        """Claim an open seat."""
        return await self._calls.join_game(request, None)

    async def ResignGame(
        self, request: pb.ResignGameRequest, context: Any
    ) -> pb.ResignGameResponse:
        """Resign the caller's seat."""
        return await self._calls.resign_game(request, _token(context))

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        """The lobby: public games waiting for players."""
        return await self._calls.list_games(request, None)

    async def ListRulesets(
        self, request: pb.ListRulesetsRequest, context: Any
    ) -> pb.ListRulesetsResponse:
        """Every preset and option."""
        return await self._calls.list_rulesets(request, None)

    async def WatchGame(self, request: pb.WatchGameRequest, context: Any) -> None:  # type: ignore[override]
        """Stream updates from ``from_version``.

        A coroutine writing with ``context.write`` rather than an async generator: when a client
        cancels, grpc.aio cancels this task (clean-up runs while the call is alive), whereas an
        abandoned generator is finalised later by the GC, after the call is gone, which crashed
        the process (SIGSEGV in cygrpc) once interceptors touched the context.
        """
        updates = self._calls.watch_game(request, _token(context), self._client_of(context))
        try:
            async for message in updates:
                await context.write(message)
        finally:
            await updates.aclose()

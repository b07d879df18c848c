"""The gRPC servicer: takes the token from the metadata and calls :class:`GameCalls`.

Errors are not handled here: domain exceptions propagate to the error-mapping interceptor
(:mod:`scopa.transport._errors`), the one place that turns them into statuses.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf.message import Message

from scopa.app import GameCore
from scopa.transport._guard import peer_host
from scopa_client.v1 import scopa_pb2 as pb

from ._calls import Encoded, GameCalls, WireOnly, serialize_response
from ._convert import token_from_metadata
from ._grpc_session import GrpcSessions
from ._interceptors import write_whole
from ._session import SessionSlots
from ._websocket import SessionLimits

__all__ = ["GameServicer", "add_game_service"]


def _token(context: Any) -> str | None:
    return token_from_metadata(context.invocation_metadata())


def peer_address(context: Any) -> str:
    """The caller's address without its port (``ipv4:1.2.3.4:5`` -> ``1.2.3.4``)."""
    return peer_host(str(context.peer() or ""))


class GameServicer:
    """scopa.v1.GameService on top of :class:`GameCore` (through :class:`GameCalls`).

    Register it with :func:`add_game_service`: responses whose view was built without its
    options come back as :class:`Encoded`, which that registration's serializer completes.
    """

    def __init__(
        self,
        core: GameCore | GameCalls,
        client_of: Callable[[Any], str] = peer_address,
        session_limits: SessionLimits | None = None,
        session_slots: SessionSlots | None = None,
    ) -> None:
        """``client_of(context)`` names the caller for per-client limits (its address);
        ``session_limits`` bound each realtime session, ``session_slots`` count them (shared
        with the HTTP port's).

        Given a core, the servicer's GameCalls leave each view's options to the wire bytes
        (``options_tail``); a GameCalls given is used as it is.
        """
        self._calls = core if isinstance(core, GameCalls) else GameCalls(core, options_tail=True)
        self._client_of = client_of
        self._sessions = GrpcSessions(
            self._calls.core, session_limits or SessionLimits(), session_slots
        )

    def _encoded(self, message: Message) -> Message | Encoded:
        """``message`` with the options tail its GameCalls method left for it, if any."""
        return self._calls.encoded(message)

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        """Create a game."""
        return await self._calls.create_game(request, _token(context))

    async def GetState(self, request: pb.GetStateRequest, context: Any) -> Message | Encoded:
        """The caller's view of a game."""
        return self._encoded(await self._calls.get_state(request, _token(context)))

    async def GetGameRecord(
        self, request: pb.GetGameRecordRequest, context: Any
    ) -> pb.GetGameRecordResponse:
        """A finished game's record."""
        return await self._calls.get_game_record(request, _token(context))

    async def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> WireOnly:
        """Play a card (the response written in the wire format, no message built)."""
        return await self._calls.play_card_wire(request, _token(context))

    async def TakeAction(self, request: pb.TakeActionRequest, context: Any) -> WireOnly:
        """Take one action of any kind (a play, a declaration)."""
        return await self._calls.take_action_wire(request, _token(context))

    async def JoinGame(self, request: pb.JoinGameRequest, context: Any) -> pb.JoinGameResponse:
        """Claim an open seat."""
        return await self._calls.join_game(request, _token(context))

    async def ResignGame(
        self, request: pb.ResignGameRequest, context: Any
    ) -> pb.ResignGameResponse:
        """Resign the caller's seat."""
        return await self._calls.resign_game(request, _token(context))

    async def RematchGame(
        self, request: pb.RematchGameRequest, context: Any
    ) -> pb.RematchGameResponse:
        """A finished game's rematch."""
        return await self._calls.rematch_game(request, _token(context))

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        """The lobby: public games waiting for players."""
        return await self._calls.list_games(request, None)

    async def ListMyGames(
        self, request: pb.ListMyGamesRequest, context: Any
    ) -> pb.ListMyGamesResponse:
        """The signed-in caller's games."""
        return await self._calls.list_my_games(request, _token(context))

    async def ListRulesets(
        self, request: pb.ListRulesetsRequest, context: Any
    ) -> pb.ListRulesetsResponse:
        """Every preset and option."""
        return await self._calls.list_rulesets(request, None)

    async def WatchGame(self, request: pb.WatchGameRequest, context: Any) -> None:
        """Stream updates from ``from_version``.

        A coroutine writing with ``context.write`` rather than an async generator: when a client
        cancels, grpc.aio cancels this task (clean-up runs while the call is alive), whereas an
        abandoned generator is finalised later by the GC, after the call is gone, which crashed
        the process (SIGSEGV in cygrpc) once interceptors touched the context.
        """
        updates = self._calls.watch_game(request, _token(context), self._client_of(context))
        try:
            async for message in updates:
                await write_whole(context, self._encoded(message))  # whole even when drained
        finally:
            await updates.aclose()

    async def Session(self, requests: AsyncIterator[Any], context: Any) -> None:
        """A realtime session (see :mod:`._grpc_session`); frames written with
        ``context.write``, like WatchGame's messages."""
        await self._sessions.serve(requests, context, self._client_of(context))


def add_game_service(servicer: GameServicer, server: Any) -> None:
    """Register ``servicer`` as scopa.v1.GameService on a grpc(.aio) server, as the generated
    ``add_GameServiceServicer_to_server`` does (handlers derived from the service descriptor),
    with a response serializer that also takes :class:`Encoded` responses (the server keeps
    only the generic handler: ``scopa.server._server.GenericHandlersOnly``)."""
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    handlers = {}
    for method in service.methods:
        if method.client_streaming and not method.server_streaming:
            raise AssertionError(f"{method.name}: client streaming is not served")
        factory = (
            grpc.stream_stream_rpc_method_handler
            if method.client_streaming
            else grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = factory(
            getattr(servicer, method.name),
            request_deserializer=getattr(pb, method.input_type.name).FromString,
            response_serializer=serialize_response,
        )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )
    server.add_registered_method_handlers(service.full_name, handlers)

"""The gRPC servicer: converts messages, calls the core, converts results back.

Errors are not handled here: domain exceptions propagate to the error-mapping interceptor
(:mod:`scopa.server._errors`), the one place that turns them into statuses.
"""

from __future__ import annotations

from typing import Any

from scopa.app import GameCore
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc as pb_grpc

from ._convert import (
    create_command,
    events_to_pb,
    game_id_from_name,
    move_from_pb,
    rulesets_to_pb,
    token_from_metadata,
    view_to_pb,
)

__all__ = ["GameServicer"]


def _token(context: Any) -> str | None:
    return token_from_metadata(context.invocation_metadata())


class GameServicer(pb_grpc.GameServiceServicer):
    """scopa.v1.GameService on top of :class:`GameCore`."""

    def __init__(self, core: GameCore) -> None:
        self._core = core
        presets, options = core.list_rulesets()
        self._rulesets = rulesets_to_pb(presets, options)  # fixed for the process's life

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        """Create a game."""
        created = await self._core.create_game(create_command(request))
        return pb.CreateGameResponse(
            name=f"games/{created.game_id}",
            credentials=[pb.SeatCredential(seat=s, token=t) for s, t in created.tokens],
            invites=[pb.SeatInvite(seat=s, invite_code=c) for s, c in created.invites],
            view=view_to_pb(created.snapshot),
        )

    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.GetStateResponse:
        """The caller's view of a game."""
        snapshot = await self._core.get_state(game_id_from_name(request.name), _token(context))
        return pb.GetStateResponse(view=view_to_pb(snapshot))

    async def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        """Play a card."""
        game_id = game_id_from_name(request.name)
        result = await self._core.play_card(
            game_id, _token(context), move_from_pb(request), request.etag, request.request_id
        )
        events = events_to_pb(result.events)
        # The view's last events are usually the very events of the move: convert them once.
        same = result.snapshot.last_events is result.events
        return pb.PlayCardResponse(
            events=events, view=view_to_pb(result.snapshot, events if same else None)
        )

    async def JoinGame(self, request: pb.JoinGameRequest, context: Any) -> pb.JoinGameResponse:
        """Claim an open seat."""
        joined = await self._core.join_game(
            game_id_from_name(request.name),
            request.invite_code,
            request.display_name,
            request.request_id,
        )
        return pb.JoinGameResponse(
            seat=joined.seat, token=joined.token, view=view_to_pb(joined.snapshot)
        )

    async def ResignGame(
        self, request: pb.ResignGameRequest, context: Any
    ) -> pb.ResignGameResponse:
        """Resign the caller's seat."""
        result = await self._core.resign(
            game_id_from_name(request.name), _token(context), request.request_id
        )
        return pb.ResignGameResponse(view=view_to_pb(result.snapshot))

    async def ListRulesets(
        self, request: pb.ListRulesetsRequest, context: Any
    ) -> pb.ListRulesetsResponse:
        """Every preset and option."""
        return self._rulesets

    async def WatchGame(self, request: pb.WatchGameRequest, context: Any) -> None:  # type: ignore[override]
        """Stream updates from ``from_version``.

        A coroutine writing with ``context.write`` rather than an async generator: when a client
        cancels, grpc.aio cancels this task (clean-up runs while the call is alive), whereas an
        abandoned generator is finalised later by the GC, after the call is gone, which crashed
        the process (SIGSEGV in cygrpc) once interceptors touched the context.
        """
        updates = self._core.watch(
            game_id_from_name(request.name), _token(context), request.from_version
        )
        try:
            async for update in updates:
                await context.write(
                    pb.WatchGameResponse(
                        version=update.snapshot.version,
                        events=events_to_pb(update.events),
                        events_truncated=update.truncated,
                        view=view_to_pb(update.snapshot),
                    )
                )
        finally:
            await updates.aclose()

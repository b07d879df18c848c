"""The game service's methods as protocol-neutral calls: request message + token -> response.

Every transport (gRPC, Connect, REST) converts its own framing to a request message and a bearer
token, calls these, and converts back; none holds game logic. Errors are the core's exceptions,
mapped to statuses by each transport through :mod:`scopa.transport._errors`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
)
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, NamedTuple, TypeVar

from google.protobuf.message import Message

from scopa import rules
from scopa.app import AppError, GameCore, GameSnapshot, GameStatus, InvalidArgument, PlayResult
from scopa_client.v1 import scopa_pb2 as pb

from ._convert import (
    STATUS_FROM_PB,
    action_from_pb,
    create_command,
    events_to_pb,
    game_id_from_name,
    lobby_fields,
    move_from_pb,
    rulesets_to_pb,
    view_tail,
    with_view,
)
from ._convert_presence import presence_to_pb
from ._view_json import view_json
from ._view_wire import action_response_wire

__all__ = [
    "Encoded",
    "GameCalls",
    "JsonCall",
    "JsonOnly",
    "UnaryCall",
    "WireCall",
    "WireOnly",
    "request_fields",
    "serialize_response",
]

_KEPT_RESPONSES: Final = 1024
"""GetState responses kept per GameCalls (see GameCalls.get_state), each with its encodings:
a few KB each (~4 KB of JSON and ~1.5 KB of protobuf for a 2-player game in play)."""
_LISTED: Final = (
    pb.GAME_STATUS_UNSPECIFIED,
    pb.GAME_STATUS_WAITING_FOR_PLAYERS,
    pb.GAME_STATUS_ACTIVE,
    pb.GAME_STATUS_FINISHED,
)
"""The statuses ListGames lists: the lobby (unset, waiting), games being played and finished
games."""
_TAIL: ContextVar[bytes] = ContextVar("scopa_options_tail", default=b"")
"""The options tail of the response the current task's GameCalls method built last."""
_FORMS: ContextVar[tuple[Message, dict[str, bytes]] | None] = ContextVar(
    "scopa_kept_forms", default=None
)
"""The GetState response the current task's GameCalls.get_state returned last, and the
encodings kept with it (see :class:`Encoded`)."""
_Viewed = TypeVar(
    "_Viewed", pb.GetStateResponse, pb.PlayCardResponse, pb.TakeActionResponse, pb.WatchGameResponse
)
"""The responses whose view may leave its options to the tail."""

_MY_STATUS: Final[dict[int, GameStatus | None]] = {
    pb.GAME_STATUS_UNSPECIFIED: None,
    **{int(value): status for value, status in STATUS_FROM_PB.items()},
}
"""ListMyGames' status filter (unset: every status)."""

_FIELD_PATHS: Final = {"game_id": "name"}
"""The core's names of request fields that the proto spells otherwise."""


@contextmanager
def request_fields(request: Any = None) -> Iterator[None]:
    """Rename the ``field`` of a core error escaping the block to the request's field path.

    The core names what it checked (``game_id``, an option name); the transport knows the
    message: ``name``, ``options.<name>`` (an option the request set, or any option but
    ``players``, which the request gives as ``seats``, and ``first_dealer``).
    """
    try:
        yield
    except rules.InvalidOption as exc:
        if isinstance(request, pb.CreateGameRequest):
            _locate_option(exc, request)
        raise
    except (AppError, rules.RulesError) as exc:
        exc.field = _FIELD_PATHS.get(exc.field or "", exc.field)
        raise


def _locate_option(exc: rules.InvalidOption, request: pb.CreateGameRequest) -> None:
    """Name the request field and the option an InvalidOption is about, for ErrorInfo."""
    name = exc.field or ""
    if name == "preset":
        return
    exc.metadata = {**exc.metadata, "option": name}
    if name in request.options:
        exc.field = f"options.{name}"
    elif name == "players":
        exc.field = "seats"
    elif name != "first_dealer":
        exc.field = f"options.{name}"


class JsonOnly(NamedTuple):
    """A response already written as proto3 JSON (:attr:`GameCalls.json_unary`), and the etag
    of the game its view shows."""

    body: bytes
    etag: str


JsonCall = Callable[[Any, str | None], Awaitable[JsonOnly]]
"""A unary method whose response is JSON already: (request message, bearer token or None)."""


class WireOnly(NamedTuple):
    """A response already written in the protobuf wire format (:attr:`GameCalls.wire_unary`)."""

    body: bytes


WireCall = Callable[[Any, str | None], Awaitable[WireOnly]]
"""A unary method whose response is wire bytes already: (request message, bearer token or
None)."""


def _events(result: PlayResult) -> tuple[list[pb.Event] | None, list[pb.Event]]:
    """An action's events as messages, and the view's last events: the same list when they are
    the very events of the action (usual: converted once), None to convert them apart."""
    events = events_to_pb(result.events)
    return (events if result.snapshot.last_events is result.events else None), events


def _json_only(response: type[Message], result: PlayResult) -> JsonOnly:
    """The proto3 JSON of ``response`` (PlayCard's or TakeAction's) for an action's result."""
    last_events, events = _events(result)
    body = view_json(response, result.snapshot, last_events, events=events)
    return JsonOnly(body, result.snapshot.etag)


def _wire(message: Message, tail: bytes) -> bytes:
    data: bytes = message.SerializeToString()
    return data + tail


class Encoded(NamedTuple):
    """A response and the bytes to append to its wire form (see ``GameCalls.take_tail``)."""

    message: Message
    tail: bytes
    forms: dict[str, bytes] | None = None
    """A kept GetState response's encodings by name ("proto": :meth:`serialize`; "json": the
    proto3 JSON of REST and Connect), kept with the response (see ``GameCalls.get_state``);
    None: the response is not kept, each encoding is made anew."""

    def serialize(self) -> bytes:
        """The complete response in the wire format."""
        return self.form("proto", _wire)

    def form(self, name: str, encode: Callable[[Message, bytes], bytes]) -> bytes:
        """``encode(message, tail)``: the bytes kept under ``name`` for this very response, or
        made now (and kept, for a kept response). Each name must always mean one encoding."""
        forms = self.forms
        if forms is None:
            return encode(self.message, self.tail)
        data = forms.get(name)
        if data is None:
            data = forms[name] = encode(self.message, self.tail)
        return data


def serialize_response(response: Message | Encoded | WireOnly) -> bytes:
    """A response serializer taking messages, :class:`Encoded` and :class:`WireOnly`
    responses."""
    if isinstance(response, Encoded):
        return response.serialize()
    if isinstance(response, WireOnly):
        return response.body
    data: bytes = response.SerializeToString()
    return data


class _Kept(NamedTuple):
    """A GetState response kept by the snapshot it was built from, its options tail and its
    encodings (:attr:`Encoded.forms`, filled as transports send it)."""

    snapshot: GameSnapshot
    response: pb.GetStateResponse
    tail: bytes
    forms: dict[str, bytes]


UnaryCall = Callable[[Any, str | None], Awaitable[Message]]
"""One unary method: (request message, bearer token or None) -> response message."""


class GameCalls:
    """scopa.v1.GameService's methods on top of :class:`GameCore`, free of any transport.

    With ``options_tail``, for a transport that sends the protobuf wire format (gRPC): the
    view of a GetState, PlayCard, TakeAction and WatchGame response leaves out its options map
    and deck size; :meth:`take_tail`, called in the same task right after the method returned
    (or the stream yielded), gives their wire bytes to append to the serialized response
    (see :class:`Encoded`). Serialized alone, such a response lacks them.
    """

    def __init__(self, core: GameCore, *, options_tail: bool = False) -> None:
        self._core = core
        presets, options = core.list_rulesets()
        self._rulesets = rulesets_to_pb(presets, options)  # fixed for the process's life
        # GetState responses by the snapshot they were built from: the core hands out the same
        # snapshot object for an unchanged game and seat. Never mutated once built.
        # Kept with each: its options tail and its encodings (Encoded.forms), made by the first
        # transport that sends it.
        self._states: OrderedDict[int, _Kept] = OrderedDict()
        self._options_tail = options_tail

    @property
    def core(self) -> GameCore:
        """The application core the calls are made on (realtime sessions call it too)."""
        return self._core

    @staticmethod
    def take_tail() -> bytes:
        """The options tail of the response this task got last (b"" when none), once."""
        tail = _TAIL.get()
        if tail:
            _TAIL.set(b"")
        return tail

    @classmethod
    def encoded(cls, message: Message) -> Message | Encoded:
        """``message`` (just returned or yielded by a method, in this task) with the options
        tail that method left for it, if any (see :meth:`take_tail`), and the encodings kept
        with it (a GetState response of an unchanged view: see :class:`Encoded`)."""
        tail = cls.take_tail()
        kept = _FORMS.get()
        if kept is not None:
            _FORMS.set(None)
            if kept[0] is message:
                return Encoded(message, tail, kept[1])
        return Encoded(message, tail) if tail else message

    @classmethod
    async def encoded_stream(
        cls, messages: AsyncIterator[Message]
    ) -> AsyncGenerator[Message | Encoded, None]:
        """A stream's messages, each with its tail (:meth:`encoded`): taken where each was
        yielded, so a consumer in another task gets them too; closing it closes ``messages``."""
        try:
            async for message in messages:
                yield cls.encoded(message)
        finally:
            aclose = getattr(messages, "aclose", None)
            if aclose is not None:
                await aclose()

    def _viewed(
        self,
        response: type[_Viewed],
        snapshot: GameSnapshot,
        last_events: list[pb.Event] | None = None,
        **fields: Any,
    ) -> _Viewed:
        """``with_view``, leaving the options and hand results to the tail (``view_tail``)."""
        if not self._options_tail:
            return with_view(response, snapshot, last_events, **fields)
        message = with_view(response, snapshot, last_events, options=False, results=False, **fields)
        _TAIL.set(view_tail(response, snapshot.view))
        return message

    @property
    def unary(self) -> Mapping[str, UnaryCall]:
        """The unary methods by their proto name (e.g. "PlayCard")."""
        return {
            "CreateGame": self.create_game,
            "GetState": self.get_state,
            "PlayCard": self.play_card,
            "TakeAction": self.take_action,
            "JoinGame": self.join_game,
            "ResignGame": self.resign_game,
            "ListGames": self.list_games,
            "ListRulesets": self.list_rulesets,
            "GetGameRecord": self.get_game_record,
            "RematchGame": self.rematch_game,
            "ListMyGames": self.list_my_games,
        }

    @property
    def streams(self) -> Mapping[str, Callable[[Any, str | None, str], AsyncIterator[Message]]]:
        """The server-streaming methods by their proto name: (request, token, client)."""
        return {"WatchGame": self.watch_game}

    async def create_game(
        self, request: pb.CreateGameRequest, token: str | None
    ) -> pb.CreateGameResponse:
        """Create a game (a seat token is not needed: the creator receives the seats' tokens;
        an identity token binds the creator's seats to the signed-in player instead)."""
        with request_fields(request):
            created = await self._core.create_game(create_command(request), token)
        return with_view(
            pb.CreateGameResponse,
            created.snapshot,
            name=f"games/{created.game_id}",
            credentials=[pb.SeatCredential(seat=s, token=t) for s, t in created.tokens],
            invites=[pb.SeatInvite(seat=s, invite_code=c) for s, c in created.invites],
            spectator_token=created.spectator_token,
        )

    async def get_game_record(
        self, request: pb.GetGameRecordRequest, token: str | None
    ) -> pb.GetGameRecordResponse:
        """A finished game's record (JSON) for its seats, or anyone if it was public."""
        with request_fields():
            game_id = game_id_from_name(request.name)
            record = await self._core.game_record(game_id, token)
        return pb.GetGameRecordResponse(
            record=pb.GameRecord(name=f"games/{game_id}", record_json=record.decode())
        )

    async def get_state(
        self, request: pb.GetStateRequest, token: str | None
    ) -> pb.GetStateResponse:
        """The caller's view of a game."""
        with request_fields():
            snapshot = await self._core.get_state(game_id_from_name(request.name), token)
        kept = self._states.get(id(snapshot))
        if kept is None or kept.snapshot is not snapshot:
            response = self._viewed(pb.GetStateResponse, snapshot)
            # Holds the snapshot: its id stays its own while the entry lasts.
            kept = _Kept(snapshot, response, _TAIL.get() if self._options_tail else b"", {})
            if len(self._states) >= _KEPT_RESPONSES:
                self._states.popitem(last=False)  # O(1): no holes to skip, as in a plain dict
            self._states[id(snapshot)] = kept
        elif kept.tail:  # kept without its options: the tail again
            _TAIL.set(kept.tail)
        _FORMS.set((kept.response, kept.forms))
        return kept.response

    async def play_card(
        self, request: pb.PlayCardRequest, token: str | None
    ) -> pb.PlayCardResponse:
        """Play a card."""
        result = await self._play(request, token)
        last_events, events = _events(result)
        return self._viewed(pb.PlayCardResponse, result.snapshot, last_events, events=events)

    async def take_action(
        self, request: pb.TakeActionRequest, token: str | None
    ) -> pb.TakeActionResponse:
        """Take one action of any kind (a play, a declaration)."""
        result = await self._act(request, token)
        last_events, events = _events(result)
        return self._viewed(pb.TakeActionResponse, result.snapshot, last_events, events=events)

    @property
    def json_unary(self) -> Mapping[str, JsonCall]:
        """The methods whose responses a JSON-only transport (REST) gets written already: the
        same JSON as the response message's (:func:`._view_json.view_json`), no message built."""
        return {"PlayCard": self.play_card_json, "TakeAction": self.take_action_json}

    async def play_card_json(self, request: pb.PlayCardRequest, token: str | None) -> JsonOnly:
        """:meth:`play_card`, its response as proto3 JSON."""
        return _json_only(pb.PlayCardResponse, await self._play(request, token))

    async def take_action_json(self, request: pb.TakeActionRequest, token: str | None) -> JsonOnly:
        """:meth:`take_action`, its response as proto3 JSON."""
        return _json_only(pb.TakeActionResponse, await self._act(request, token))

    @property
    def wire_unary(self) -> Mapping[str, WireCall]:
        """The methods whose responses a transport sending the protobuf wire format (gRPC,
        Connect's binary codec) gets written already (:func:`._view_wire.action_response_wire`:
        the bytes of the response message, its tail included; no message built)."""
        return {"PlayCard": self.play_card_wire, "TakeAction": self.take_action_wire}

    async def play_card_wire(self, request: pb.PlayCardRequest, token: str | None) -> WireOnly:
        """:meth:`play_card`, its response in the wire format."""
        result = await self._play(request, token)
        return WireOnly(action_response_wire(pb.PlayCardResponse, result))

    async def take_action_wire(self, request: pb.TakeActionRequest, token: str | None) -> WireOnly:
        """:meth:`take_action`, its response in the wire format."""
        result = await self._act(request, token)
        return WireOnly(action_response_wire(pb.TakeActionResponse, result))

    async def _play(self, request: pb.PlayCardRequest, token: str | None) -> PlayResult:
        game_id = game_id_from_name(request.name)
        with request_fields():
            return await self._core.play_card(
                game_id, token, move_from_pb(request), request.etag, request.request_id
            )

    async def _act(self, request: pb.TakeActionRequest, token: str | None) -> PlayResult:
        game_id = game_id_from_name(request.name)
        action = action_from_pb(request.action)
        with request_fields():
            return await self._core.take_action(
                game_id, token, action, request.etag, request.request_id
            )

    async def join_game(
        self, request: pb.JoinGameRequest, token: str | None
    ) -> pb.JoinGameResponse:
        """Claim an open seat (the invite code, not a token, authorises it; an identity token
        binds the seat to the signed-in player)."""
        with request_fields():
            joined = await self._core.join_game(
                game_id_from_name(request.name),
                request.invite_code,
                request.display_name,
                request.request_id,
                token,
            )
        return with_view(pb.JoinGameResponse, joined.snapshot, seat=joined.seat, token=joined.token)

    async def resign_game(
        self, request: pb.ResignGameRequest, token: str | None
    ) -> pb.ResignGameResponse:
        """Resign the caller's seat."""
        with request_fields():
            result = await self._core.resign(
                game_id_from_name(request.name), token, request.request_id
            )
        return with_view(pb.ResignGameResponse, result.snapshot)

    async def rematch_game(
        self, request: pb.RematchGameRequest, token: str | None
    ) -> pb.RematchGameResponse:
        """The finished game's rematch (the same for every seat that asks)."""
        with request_fields():
            rematch = await self._core.rematch_game(game_id_from_name(request.name), token)
        return with_view(pb.RematchGameResponse, rematch.snapshot, game=f"games/{rematch.game_id}")

    async def list_games(
        self, request: pb.ListGamesRequest, token: str | None
    ) -> pb.ListGamesResponse:
        """The lobby: public games waiting for players, each from its summary."""
        with request_fields():
            if request.status not in _LISTED:
                raise InvalidArgument(
                    "status must be waiting for players, active or finished", field="status"
                )
            games, next_token = await self._core.list_games(
                request.preset,
                request.page_size,
                request.page_token,
                finished=request.status == pb.GAME_STATUS_FINISHED,
                active=request.status == pb.GAME_STATUS_ACTIVE,
            )
        # Dicts: upb fills each GameView in place (a message would be serialized and parsed).
        views: Any = [lobby_fields(game) for game in games]
        return pb.ListGamesResponse(games=views, next_page_token=next_token)

    async def list_my_games(
        self, request: pb.ListMyGamesRequest, token: str | None
    ) -> pb.ListMyGamesResponse:
        """The signed-in caller's games, each with its seat and whose turn it is."""
        with request_fields():
            if request.status not in _MY_STATUS:
                raise InvalidArgument(f"unknown status {request.status}", field="status")
            games, next_token = await self._core.list_my_games(
                token, _MY_STATUS[request.status], request.page_size, request.page_token
            )
        views: Any = [lobby_fields(game) for game in games]
        return pb.ListMyGamesResponse(games=views, next_page_token=next_token)

    async def list_rulesets(
        self, request: pb.ListRulesetsRequest, token: str | None
    ) -> pb.ListRulesetsResponse:
        """Every preset and option."""
        return self._rulesets

    async def watch_game(
        self, request: pb.WatchGameRequest, token: str | None, client: str = ""
    ) -> AsyncGenerator[pb.WatchGameResponse, None]:
        """Stream updates from ``from_version``; closing the iterator stops the watch.

        ``client`` is the caller's address, for the per-client stream cap ("" = not counted).
        """
        updates = self._core.watch(
            game_id_from_name(request.name),
            token,
            request.from_version,
            client,
            follow_rematch=request.follow_rematch,
        )
        try:
            with request_fields():  # the core checks the request on the first update
                update = await anext(updates, None)
            while update is not None:
                yield self._viewed(
                    pb.WatchGameResponse,
                    update.snapshot,
                    version=update.snapshot.version,
                    events=events_to_pb(update.events),
                    events_truncated=update.truncated,
                    presence=presence_to_pb(update.presence or ()),
                )
                update = await anext(updates, None)
        finally:
            await updates.aclose()

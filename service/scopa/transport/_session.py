"""A realtime session, free of any carrier: SessionRequest frames in, SessionResponse frames out.

A session is one seat (or a spectator) on one game for as long as its connection lasts. Its
hello is authenticated once and answered with the whole view (``welcome``); each action is a
``GameCore.take_action`` (the same compare-and-set commit and request-id dedupe as TakeAction),
acknowledged by an ``update`` only once committed; the versions other seats, bots and turn
clocks make reach it through ``GameCore.watch`` (the store's notifications, from any replica).

Versions only go up on a session: ``delivered`` is the last version whose events were sent,
and every frame carries only the events after it, so the seat's own action and the watch's
notification of the same version are sent once. The carrier (:mod:`._websocket`; a gRPC stream
later) reads and writes the frames, bounds them and ends the connection; errors are mapped by
the one error table (:func:`scopa.transport._errors.to_session_error`).

A session whose hello set ``view_patches`` sends, after its welcome, what changed in its view
since the previous view it sent (a ViewPatch, :mod:`._view_patch`) where others get the whole.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final, NamedTuple

import grpc
from google.protobuf.message import Message

from scopa.app import (
    AppError,
    GameCore,
    GameSnapshot,
    InvalidArgument,
    PlayResult,
    WatchIdle,
    varint,
)
from scopa.storage import Presence
from scopa.transport._errors import MappedError, register, to_session_error
from scopa_client.v1 import scopa_pb2 as pb

from ._calls import request_fields
from ._convert import (
    action_from_pb,
    events_to_pb,
    game_id_from_name,
    view_tail,
    with_view,
)
from ._convert_presence import presence_to_pb
from ._http_telemetry import map_error
from ._rest_json import dumps
from ._view_patch import ViewPatches
from ._view_wire import event_bytes

__all__ = [
    "SESSION_METHOD",
    "Frame",
    "Session",
    "SessionNotOpen",
    "SessionSlots",
    "TooManySessions",
]

SESSION_METHOD: Final = "/scopa.v1.GameService/Session"
"""The name sessions are counted, logged and drained under."""

_TAGS: Final = {"welcome": b"\x0a", "update": b"\x12", "error": b"\x1a", "pong": b"\x22"}
"""The key of each SessionResponse member on the wire (field number << 3 | length-delimited)."""


class Frame(NamedTuple):
    """One SessionResponse, kept as its member message and written without building the
    response: a message handed to a constructor is copied (upb serializes and parses it), and
    a view's options map would be parsed again. ``tail``: the wire bytes of the member holding
    only its view's options and deck size (:func:`._convert.options_tail`) and hand results
    (:func:`._convert.results_tail`), appended as is."""

    kind: str
    """The member: ``welcome``, ``update``, ``error`` or ``pong``."""
    message: Message
    tail: bytes = b""
    events: bytes = b""
    """The wire bytes of the member's events and its view's last events (:func:`_events`),
    left out of ``message``: each event is serialized once, where a message handed to the
    constructor is copied (serialized and parsed), twice when the view shows the same events.
    On a patched session, its view patch follows (:meth:`ViewPatches.patch`)."""

    def wire(self) -> bytes:
        """The SessionResponse in the protobuf wire format."""
        body: bytes = self.message.SerializeToString() + self.events + self.tail
        return _TAGS[self.kind] + varint(len(body)) + body

    def json(self) -> str:
        """The SessionResponse in proto3 JSON (every field present, as REST writes it; a view
        patch's view has only the fields its mask names, and comes last)."""
        message = self.message
        if self.events:
            message = type(message).FromString(message.SerializeToString() + self.events)
        if isinstance(message, pb.SessionUpdate) and message.HasField("view_patch"):
            rest = pb.SessionUpdate()
            rest.CopyFrom(message)
            rest.ClearField("view_patch")
            patch = _patch_json(message.view_patch)
            text = dumps(rest).decode()[:-1] + ',"viewPatch":' + patch + "}"
        else:
            text = dumps(message, self.tail).decode()
        return '{"' + self.kind + '":' + text + "}"

    def response(self) -> pb.SessionResponse:
        """The SessionResponse message."""
        return pb.SessionResponse.FromString(self.wire())


_JSON_NAMES: Final = {f.name: f.json_name for f in pb.GameView.DESCRIPTOR.fields}
_compact = json.JSONEncoder(separators=(",", ":")).encode


def _patch_json(patch: pb.ViewPatch) -> str:
    """A ViewPatch in proto3 JSON: its view's named fields as a whole view writes them (every
    field of their elements present), and none of the others."""
    names = [_JSON_NAMES[path] for path in patch.update_mask.paths]
    view = json.loads(dumps(patch.view))
    named = {name: view[name] for name in names if name in view}
    return '{"updateMask":' + _compact(",".join(names)) + ',"view":' + _compact(named) + "}"


Emit = Callable[[Frame], None]
"""Queue one frame to send (never blocks; the carrier bounds its queue)."""


class SessionNotOpen(InvalidArgument):
    """A frame other than hello before the session is open, or a second hello."""


class TooManySessions(Exception):
    """The replica holds as many sessions as it allows (SCOPA_SESSIONS_MAX)."""

    reason = "TOO_MANY_SESSIONS"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = 1.0


register(TooManySessions, grpc.StatusCode.RESOURCE_EXHAUSTED)


class SessionSlots:
    """The sessions open on this replica over every carrier (WebSocket, gRPC), and their cap."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0

    def take(self) -> None:
        """Count one more session, or raise TooManySessions at the cap."""
        if self.open >= self.limit:
            raise TooManySessions(f"this replica holds at most {self.limit} sessions; retry")
        self.open += 1

    def give_back(self) -> None:
        """A session counted by :meth:`take` has ended."""
        self.open -= 1


class Session:
    """One session's state: its game, its token and the last version it delivered."""

    def __init__(self, core: GameCore, emit: Emit, client: str, max_frame_bytes: int) -> None:
        self._core = core
        self._emit = emit
        self._client = client
        self._max_frame_bytes = max_frame_bytes
        self._game_id = ""
        self._token: str | None = None
        self._updates: AsyncGenerator[PlayResult, None] | None = None
        self.delivered = -1
        """The last version whose events were sent (-1: not open yet)."""
        self._presence: Presence | None = None
        """The latest presence the watch read (an action's own result has none)."""
        self._patches: ViewPatches | None = None
        """The view sent last, when the hello asked for view patches."""

    @property
    def open(self) -> bool:
        """True once the welcome was sent."""
        return self._updates is not None

    async def hello(self, hello: pb.SessionHello) -> None:
        """Authenticate and subscribe, then send the welcome (the whole view, and the events
        after ``last_version`` when resuming). Any error ends the session."""
        if self._updates is not None:
            raise SessionNotOpen("the session is already open", field="hello")
        with _hello_fields():
            game_id = game_id_from_name(hello.name)
            token = hello.token or None
            updates = self._core.watch(
                game_id, token, hello.last_version, self._client, self._delivered, True
            )
            try:
                first = await anext(updates)
            except BaseException:
                await updates.aclose()
                raise
        self._game_id, self._token, self._updates = game_id, token, updates
        snapshot = first.snapshot
        welcome = with_view(
            pb.SessionWelcome,
            snapshot,
            options=False,
            results=False,
            version=snapshot.version,
            events=events_to_pb(first.events),
            events_truncated=first.truncated,
            max_frame_bytes=self._max_frame_bytes,
        )
        if hello.view_patches:
            self._patches = ViewPatches()
            self._patches.sent_whole(welcome.view, snapshot)
        self._emit(Frame("welcome", welcome, _tail(pb.SessionWelcome, snapshot)))
        self.delivered = snapshot.version

    async def follow(self) -> None:
        """Send each version the watch reports (after the hello), until the game is over and
        its rematch is linked (the finished game's last version, whose view names it).

        A watch that reached its idle limit is opened again from the last version delivered:
        the session itself stays open while its carrier's heartbeats do."""
        while self._updates is not None:
            try:
                async for update in self._updates:
                    self._deliver(update, "")
                return  # the game is over, its rematch linked
            except WatchIdle:
                await self._updates.aclose()
                self._updates = self._core.watch(
                    self._game_id, self._token, self.delivered, self._client, self._delivered, True
                )

    async def act(self, action: pb.SessionAction) -> None:
        """Take the action for the session's seat; acknowledged once committed."""
        if self._updates is None:
            raise SessionNotOpen("the first frame must be a hello", field="action")
        if not action.request_id:
            raise InvalidArgument("a session's action needs a request_id", field="request_id")
        if not action.HasField("action"):
            raise InvalidArgument("the action is missing", field="action")
        with request_fields():
            result = await self._core.take_action(
                self._game_id,
                self._token,
                action_from_pb(action.action),
                action.etag,
                action.request_id,
            )
        self._deliver(result, action.request_id)

    def _delivered(self) -> int:
        """The watch builds no view of a version this session sent already (its own action's)."""
        return self.delivered

    def ping(self, ping: pb.SessionPing) -> None:
        """Answer a ping."""
        self._emit(Frame("pong", pb.SessionPong(payload=ping.payload)))

    def error(self, mapped: MappedError, request_id: str = "") -> None:
        """Send an error frame."""
        self._emit(Frame("error", to_session_error(mapped, request_id)))

    def error_of(self, exc: BaseException, request_id: str = "") -> None:
        """Send the error frame of ``exc`` (a server fault is logged, like a call's)."""
        self.error(map_error(exc), request_id)

    async def close(self) -> None:
        """Stop watching the game."""
        updates, self._updates = self._updates, None
        if updates is not None:
            await updates.aclose()

    def _deliver(self, result: PlayResult, request_id: str) -> None:
        """Send ``result`` as an update with the events the session has not sent yet.

        An action's result that does not follow the last version delivered (another seat
        moved in between, and the watch has not told this session yet; or a retried request
        already delivered) is only acknowledged: its events come, or came, with the watch's
        update of that version.
        """
        snapshot = result.snapshot
        version = snapshot.version
        if result.presence is not None:
            self._deliver_presence(result)
            return
        if snapshot.presence is not None:
            self._presence = snapshot.presence
        elif self._presence is not None:
            snapshot = snapshot.with_presence(self._presence)
        if request_id:
            first = result.events[0].version if result.events else None
            if version <= self.delivered or first != self.delivered + 1:
                update = pb.SessionUpdate(version=version, request_id=request_id)
                self._emit(Frame("update", update))
                return
        elif version <= self.delivered:
            return
        events = tuple(e for e in result.events if e.version > self.delivered)
        encoded = [event_bytes(e) for e in events]
        latest = events == snapshot.last_events  # the view's last events: the same bytes
        if self._patches is not None:
            patch = self._patches.patch(snapshot, encoded if latest else None)
            update = pb.SessionUpdate(
                version=version, request_id=request_id, events_truncated=result.truncated
            )
            self.delivered = version
            self._emit(Frame("update", update, events=_events(encoded, False) + patch))
            return
        message = with_view(
            pb.SessionUpdate,
            snapshot,
            [] if latest else None,
            options=False,
            results=False,
            version=version,
            request_id=request_id,
            events_truncated=result.truncated,
        )
        self.delivered = version
        wired = _events(encoded, latest)
        self._emit(Frame("update", message, _tail(pb.SessionUpdate, snapshot), wired))

    def _deliver_presence(self, result: PlayResult) -> None:
        """Send a presence frame: the version delivered, no events, the view with the new
        presence (none when the session's latest version came with its own action's
        acknowledgement: the watch's view is of an older version then)."""
        snapshot = result.snapshot
        self._presence = snapshot.presence
        changes: Any = presence_to_pb(result.presence or ())  # dicts: filled in place
        if snapshot.version != self.delivered:
            update = pb.SessionUpdate(version=self.delivered, presence=changes)
            self._emit(Frame("update", update))
            return
        if self._patches is not None:
            patch = self._patches.patch(snapshot, None)
            update = pb.SessionUpdate(version=snapshot.version, presence=changes)
            self._emit(Frame("update", update, events=patch))
            return
        message = with_view(
            pb.SessionUpdate,
            snapshot,
            options=False,
            results=False,
            version=snapshot.version,
            presence=changes,
        )
        self._emit(Frame("update", message, _tail(pb.SessionUpdate, snapshot)))


_EVENTS_KEY: Final = b"\x1a"
"""SessionUpdate.events (field 3, length-delimited) on the wire."""
_VIEW_KEY: Final = b"\x2a"
"""SessionUpdate.view (field 5)."""
_LAST_EVENTS_KEY: Final = b"\x8a\x01"
"""GameView.last_events (field 17)."""


def _events(encoded: list[bytes], in_view: bool) -> bytes:
    """The wire bytes of a SessionUpdate holding only the events ``encoded`` (each an Event's
    wire bytes) and, when ``in_view``, a view holding only them as its last events."""
    out = b"".join(_EVENTS_KEY + varint(len(e)) + e for e in encoded)
    if in_view and encoded:
        view = b"".join(_LAST_EVENTS_KEY + varint(len(e)) + e for e in encoded)
        out += _VIEW_KEY + varint(len(view)) + view
    return out


def _tail(response: type[Message], snapshot: GameSnapshot) -> bytes:
    """A frame's tail: its view's options, deck size and hand results."""
    return view_tail(response, snapshot.view)


@contextmanager
def _hello_fields() -> Iterator[None]:
    """``request_fields`` for a hello: the watch's ``from_version`` is its ``last_version``."""
    try:
        with request_fields():
            yield
    except AppError as exc:
        if exc.field == "from_version":
            exc.field = "last_version"
            exc.message = exc.message.replace("from_version", "last_version")
        raise

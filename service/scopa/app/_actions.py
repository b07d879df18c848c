"""A seat's requests on its game: read it, take an action (a play, a declaration, ...),
resign. Each write is one load (or none, on the version this replica knows) and one
compare-and-set commit; a retried ``request_id`` gets the first response."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace

from opentelemetry import trace
from opentelemetry.trace import SpanKind

from scopa import rules
from scopa._spans import LeafSpans
from scopa.storage import Snapshot

from . import _records
from ._checks import check_game_id, check_request_id
from ._commands import GameSnapshot, PlayResult
from ._commits import Commits, NotLatest
from ._decoded import BoundedMap
from ._errors import StaleEtag, Unauthenticated, WaitingForPlayers
from ._games import DECODED_CACHE_SIZE, Caller, Games, check_holder, check_seat
from ._meta import GameMeta
from ._presence import Presences
from ._turns import Turns
from ._usecase import UseCase

__all__ = ["Actions"]

_SnapshotKey = tuple[str, int | None, int, bytes, bytes]
"""game id, seat (None: a spectator), version, stored state bytes, stored meta bytes."""


class Actions(UseCase):
    """GetState, TakeAction (and PlayCard) and ResignGame."""

    def __init__(
        self,
        games: Games,
        commits: Commits,
        turns: Turns,
        rng: random.Random,
        tracer: trace.Tracer,
    ) -> None:
        super().__init__(games, commits, turns, rng, tracer)
        self._leaves = LeafSpans(tracer)
        # A seat's snapshot by everything it is derived from (see get_state).
        self._snapshots: BoundedMap[_SnapshotKey, GameSnapshot] = BoundedMap(DECODED_CACHE_SIZE)

    async def get_state(
        self, game_id: str, token: str | None, presences: Presences
    ) -> GameSnapshot:
        """The game as the token's seat (or a spectator, without a token) may see it, with who
        watches it (the game and its presence read in one round trip).

        A snapshot depends only on the stored state and meta bytes, the version and the seat,
        so a read of an unchanged game by the same seat (a client polling between moves) gets
        the snapshot built for the first one, the very same object (transports may then reuse
        what they built from it) while nothing is due; a read that takes a due turn (a bot's,
        a run-out clock's) is never kept. The same holds of the snapshot with its presence,
        while the presence is unchanged (:meth:`Presences.shown`).
        """
        caller = await self._games.caller(token)
        snap, presence = await presences.load(game_id)
        return presences.shown(await self._view(game_id, caller, snap), presence)

    async def _view(self, game_id: str, caller: Caller, snap: Snapshot) -> GameSnapshot:
        """The caller's snapshot of the loaded game (after any due turn; see get_state)."""
        games = self._games
        state = games.state(game_id, snap)
        meta = games.metas.load(snap.meta)
        seat = games.viewer_of(caller, game_id, state, meta)
        key = (game_id, seat, snap.version, snap.state, snap.meta)
        if not games.is_due(state, meta):
            kept = self._snapshots.get(key)
            if kept is not None:
                return kept
        version, state, meta = await self._turns.advance(game_id, snap.version, state, meta)
        snapshot = games.snapshot(game_id, version, state, meta, seat)
        if version == snap.version:
            self._snapshots.put(key, snapshot)
        return snapshot

    async def take_action(
        self,
        game_id: str,
        token: str | None,
        action: rules.Action,
        etag: str = "",
        request_id: str = "",
    ) -> PlayResult:
        """Take ``action`` (a play, a declaration, ...) for the token's seat: one load, the
        rules' action table, one compare-and-set."""
        games = self._games
        playing = isinstance(action, rules.Move)
        doing = "playing a card" if playing else "taking an action"
        fingerprint = _records.fingerprint("TakeAction", _records.canonical(action), etag)
        name = "scopa.engine.apply_move" if playing else "scopa.engine.apply_action"
        seat, rid, owner = await self._writer(game_id, token, request_id, doing)
        known: Snapshot | None = games.known.get(game_id)
        if known is not None:
            taken = await self._take_on_known(
                known, game_id, seat, owner, action, name, etag, rid, fingerprint
            )
            if isinstance(taken, PlayResult):
                return taken
            known = taken
        loaded = await self._seat_write(game_id, seat, owner, rid, fingerprint, known)
        if isinstance(loaded, PlayResult):
            return loaded
        if games.is_due(loaded[1], loaded[2]):
            # An overdue turn (a clock that ran out, an unplayed bot turn) is taken first; the
            # action then meets the game as it is after it (e.g. NOT_YOUR_TURN).
            await self._turns.advance(game_id, loaded[0].version, loaded[1], loaded[2])
            loaded = await self._seat_write(game_id, seat, owner, rid, fingerprint)
            if isinstance(loaded, PlayResult):
                return loaded
        snap, state, meta = loaded
        if etag and etag != f"v{snap.version}":
            raise StaleEtag(etag, f"v{snap.version}")
        if meta.waiting and not state.finished:
            raise WaitingForPlayers("the game is waiting for players to join")
        return await self._take(snap, state, meta, game_id, seat, action, name, rid, fingerprint)

    async def _take_on_known(
        self,
        known: Snapshot,
        game_id: str,
        seat: int,
        owner: str,
        action: rules.Action,
        name: str,
        etag: str,
        rid: str | None,
        fingerprint: bytes,
    ) -> PlayResult | Snapshot | None:
        """Take the action on the latest version of the game this replica knows, without a
        load: its commit names that version and the digest of its bytes, so it applies only
        if that version is still the game's, and the outcome is the one a load would have led
        to. Returns the result; else (nothing written) the game as the failed commit found it,
        or None where the caller must load it (a refusal, a retried request, an action due
        first: the usual path decides those, on the game as stored).
        """
        games = self._games
        state = games.state(game_id, known)
        meta = games.metas.load(known.meta)
        if (
            seat >= state.ruleset.options.players
            or meta.seats[seat].owner != owner
            or (etag and etag != f"v{known.version}")
            or (meta.waiting and not state.finished)
            or games.is_due(state, meta)
        ):
            return None
        try:
            return await self._take(
                known, state, meta, game_id, seat, action, name, rid, fingerprint, basis=known
            )
        except NotLatest as stale:
            return stale.stored

    async def _take(
        self,
        snap: Snapshot,
        state: rules.MatchState,
        meta: GameMeta,
        game_id: str,
        seat: int,
        action: rules.Action,
        name: str,
        rid: str | None,
        fingerprint: bytes,
        basis: Snapshot | None = None,
    ) -> PlayResult:
        """Apply the action to ``state`` (of ``snap``), commit it, then take what is due.

        With ``basis`` (the known version, not loaded for this request) nothing but a commit
        that applied counts: a refusal by the rules or a failed commit raises NotLatest, and
        the engine span is recorded only once the commit applied (the usual path records its
        own). Without, a refused action gets its span from the tracer, with the exception
        event and the error status.
        """
        attributes = _engine_attributes(game_id, state, seat)
        start = time.time_ns()
        try:
            new_state, events = rules.apply_action(state, seat, action, self._rng)
        except Exception as exc:
            if basis is not None:  # refused on the known copy: decided again on the stored game
                raise NotLatest(None) from None
            _failed(self._tracer.start_span(name, attributes=attributes, start_time=start), exc)
            raise
        end = time.time_ns()
        _engine_outcome(attributes, events, new_state)
        if basis is None:  # a leaf span, recorded once the engine is done (LeafSpans)
            self._leaves.ended(name, SpanKind.INTERNAL, attributes, start, end)
        result, committed = await self._commits.commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat), basis
        )
        if basis is not None:
            self._leaves.ended(name, SpanKind.INTERNAL, attributes, start, end)
        if committed is not None:  # None: a replay, which never comes with a basis
            await self._turns.advance(game_id, result.snapshot.version, new_state, committed)
        return result

    async def resign(self, game_id: str, token: str | None, request_id: str = "") -> PlayResult:
        """The token's seat resigns: the game ends and the other sides win."""
        fingerprint = _records.fingerprint("ResignGame")
        seat, rid, owner = await self._writer(game_id, token, request_id, "resigning")
        loaded = await self._seat_write(game_id, seat, owner, rid, fingerprint)
        if isinstance(loaded, PlayResult):
            return loaded
        snap, state, meta = loaded
        new_state, events = rules.resign(state, seat)
        meta = replace(meta, resigned=seat)
        result, _ = await self._commits.commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat)
        )
        return result

    async def _writer(
        self, game_id: str, token: str | None, request_id: str, action: str
    ) -> tuple[int, str | None, str]:
        """The caller's seat, the checked request id of a write and the signed-in caller's
        owner digest ("": a seat token's). A seat token takes no round trip; a signed-in
        player's seat is read off the version this replica knows, or a load."""
        rid = check_request_id(request_id)
        if token is None:
            raise Unauthenticated(f"{action} needs a seat token")
        check_game_id(game_id)
        caller = await self._games.caller(token)
        if caller.token is not None:
            return await self._games.token_seat(caller.token, game_id), rid, ""
        return await self._games.owned_seat(game_id, caller.owner), rid, caller.owner

    async def _seat_write(
        self,
        game_id: str,
        seat: int,
        owner: str,
        rid: str | None,
        fingerprint: bytes,
        stored: Snapshot | None = None,
    ) -> PlayResult | tuple[Snapshot, rules.MatchState, GameMeta]:
        """Load the game for a write by ``seat`` (one round trip; none when ``stored`` is the
        game as a failed commit of this request found it, so not a retry of it).

        Returns the first response when ``rid`` is the seat's latest request (each seat keeps
        one cached response), else what the write needs: the snapshot, the state and the meta.
        """
        games = self._games
        snap = stored or await games.load(game_id, rid, str(seat) if rid else None)
        state = games.state(game_id, snap)
        check_seat(seat, state.ruleset.options.players)
        meta = games.metas.load(snap.meta)
        check_holder(meta, seat, owner)
        if snap.cached_response is not None:
            return self._commits.replayed(
                game_id, seat, snap.cached_response, snap.cached_state, meta, fingerprint
            )
        return snap, state, meta


def _engine_attributes(
    game_id: str, state: rules.MatchState, seat: int
) -> dict[str, str | int | bool]:
    """The engine span's attributes known before the rules run."""
    return {
        "scopa.game_id": game_id,
        "scopa.preset": state.ruleset.preset,
        "scopa.seat": seat,
        "scopa.hand_number": state.hand_number,
    }


def _engine_outcome(
    attributes: dict[str, str | int | bool],
    events: Sequence[rules.Event],
    new_state: rules.MatchState,
) -> None:
    """Add what the rules did (a capture, a sweep, a declaration, the end) to the attributes."""
    first = events[0]
    if isinstance(first, rules.CardPlayed):
        attributes["scopa.cards_captured"] = len(first.captured)
        attributes["scopa.sweep"] = first.sweep
    elif isinstance(first, rules.Declared):
        attributes["scopa.declaration"] = first.name
    attributes["scopa.game_over"] = new_state.finished


def _failed(span: trace.Span, exc: Exception) -> None:
    """End the span of a refused action as ``start_as_current_span`` would: the exception as an
    event, the error status."""
    if span.is_recording():
        span.record_exception(exc)
        span.set_status(trace.Status(trace.StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    span.end()

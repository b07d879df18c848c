"""CreateGame and JoinGame: a game stored with its seats, and an open seat claimed.

What a new game holds and which seat a join claims is :mod:`._seats`' call (pure); this
module stores it, replays a retried request, and takes what is due after (a bot's turn).
"""

from __future__ import annotations

import hmac

import structlog

from scopa import rules
from scopa.storage import GameExists, Snapshot

from . import _due, _records, _webhooks
from ._checks import check_display_name, check_request_id
from ._commands import CreateGameCommand, CreateResult, JoinResult
from ._errors import ConcurrentUpdate, RequestIdReused, SeatTaken
from ._eventlog import AppEvent, SeatJoined
from ._meta import GameMeta
from ._seats import invited_seat, new_game, open_seat
from ._usecase import UseCase

__all__ = ["Seating"]

_log = structlog.get_logger("scopa.app")


class Seating(UseCase):
    """Creates games and seats the players who join them."""

    def spectator_token(self, game_id: str) -> str:
        """The game's spectator token (for a game whose spectators need one)."""
        return self._games.tokens.issue_spectator(game_id)

    async def create_game(self, cmd: CreateGameCommand, bearer: str | None = None) -> CreateResult:
        """Create a game; seats not marked open are held by the creator and get tokens (a
        signed-in creator's are bound to it instead; a seat token sent along is ignored)."""
        games = self._games
        request_id = check_request_id(cmd.request_id)
        owner = (await games.caller(bearer)).owner
        new = new_game(
            cmd, request_id, games.settings, games.tokens, self._rng, games.clock.now_ms(), owner
        )
        game_id, state, meta = new.game_id, new.state, new.meta
        # Tokens and invites are derived from the request_id, so nothing secret is stored; the
        # first request's digest lets a retry prove it is the same request (by the same owner).
        response = _records.create_digest(cmd, owner)
        state_blob, meta_blob = rules.dump_state(state), meta.dump()
        with self._tracer.start_as_current_span("scopa.create_game") as span:
            span.set_attribute("scopa.game_id", game_id)
            span.set_attribute("scopa.preset", new.preset)
            span.set_attribute("scopa.players", len(meta.seats))
            if meta.deadline_ms:
                await games.store.lower_deadline(game_id, meta.deadline_ms)
            found = _webhooks.notices(game_id, 1, -1, GameMeta(()), state, meta, [])
            outbox = await self._commits.outbox(game_id, meta, found)
            try:
                result = await games.store.create(
                    game_id,
                    state_blob,
                    meta_blob,
                    [meta.last_events],
                    _due.ttl(state, meta, games.settings),
                    request_id,
                    response,
                    outbox,
                )
            except GameExists:
                raise ConcurrentUpdate("a game with this id already exists; retry") from None
        if not result.created:
            # A retried create: the same request gets the same game, credentials and invites.
            if not hmac.compare_digest(result.response or b"", response):
                raise RequestIdReused("request_id was already used for a different CreateGame")
            snap = await games.load(game_id)
            stored_state = games.state(game_id, snap)
            stored_meta = games.metas.load(snap.meta)
            return CreateResult(
                game_id,
                new.tokens,
                new.invites,
                games.snapshot(game_id, snap.version, stored_state, stored_meta, new.first_seat),
            )
        games.states.remember(state_blob, state)
        games.metas.remember(meta_blob, meta)
        games.note(game_id, Snapshot(state_blob, meta_blob, result.version))
        games.hooks.created(new.preset)
        games.hooks.active(game_id, False)
        _log.info("game_created", game_id=game_id, preset=new.preset, players=len(meta.seats))
        await self._commits.indexed(game_id, result.version, GameMeta(()), state, meta)
        version = result.version
        if all(seat.bot for seat in meta.seats):
            # Nobody waits for the bots' moves: answer now, play the match in the background.
            self._turns.advance_later(game_id, version, state, meta)
        else:
            version, state, meta = await self._turns.advance(game_id, version, state, meta)
        return CreateResult(
            game_id,
            new.tokens,
            new.invites,
            games.snapshot(game_id, version, state, meta, new.first_seat),
        )

    async def join_game(
        self,
        game_id: str,
        invite_code: str,
        name: str,
        request_id: str = "",
        bearer: str | None = None,
    ) -> JoinResult:
        """Claim the open seat that ``invite_code`` was issued for (of a public game: without a
        code, its lowest open seat); a signed-in caller's seat is bound to it, without a token."""
        games = self._games
        rid = check_request_id(request_id)
        check_display_name(name, "display_name")
        owner = (await games.caller(bearer)).owner
        snap = await games.load(game_id, rid)
        try:
            state = games.state(game_id, snap)
        except rules.GameUnplayable:  # nobody can join it: off the lobby, if it was listed
            await games.store.unlist_public(game_id)
            raise
        meta = games.metas.load(snap.meta)
        fingerprint = _records.fingerprint(
            "JoinGame", invite_code, name, *([owner] if owner else [])
        )
        if invite_code or not meta.public:
            seat = invited_seat(games.tokens, game_id, meta, invite_code)
        elif snap.cached_response is not None:
            seat = _records.replayed_seat(snap.cached_response, fingerprint)
        else:
            seat = open_seat(meta, state)
        if snap.cached_response is not None:
            # Before the GAME_OVER check: a retry after the game ended gets its first response.
            replay = self._commits.replayed(
                game_id, seat, snap.cached_response, snap.cached_state, meta, fingerprint
            )
            return JoinResult(seat, self._token(game_id, seat, rid, owner), replay.snapshot)
        if state.finished:
            raise rules.GameOver("the game is over")
        if meta.seats[seat].joined:
            raise SeatTaken("that seat was already claimed")
        if owner and any(s.owner == owner for s in meta.seats):
            raise SeatTaken("the signed-in player already holds a seat of this game")
        meta = meta.with_joined(seat, name, owner)
        events: list[AppEvent] = [SeatJoined(seat, meta.seats[seat].name)]
        result, committed = await self._commits.commit(
            game_id, snap.version, state, meta, seat, events, rid, fingerprint
        )
        if committed is not None:
            if committed.public and not committed.waiting:
                # The last open seat: ``indexed`` only sees the meta with it taken already.
                await self._commits.unlist(game_id, result.snapshot.version)
                await self._commits.went_live(game_id, result.snapshot.version, state, committed)
            await self._turns.advance(game_id, result.snapshot.version, state, committed)
        return JoinResult(seat, self._token(game_id, seat, rid, owner), result.snapshot)

    def _token(self, game_id: str, seat: int, rid: str | None, owner: str) -> str:
        """The seat token a join hands out: none ("") to a signed-in player."""
        return "" if owner else self._games.tokens.issue(game_id, seat, rid)

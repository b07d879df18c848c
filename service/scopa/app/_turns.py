"""Due turns: a bot seat's, and a person's whose turn clock ran out; the sweeper's entry.

Each due action is one commit after the last, so replicas racing for the same turn cannot both
take it: the loser stops, and the winner's commit stands. What is due is :mod:`._due`'s call.
"""

from __future__ import annotations

import asyncio
import random
from contextvars import ContextVar
from typing import Final

import structlog
from opentelemetry import trace

from scopa import bots, rules
from scopa.archive import ArchiveError
from scopa.storage import DEADLINE_SHARDS, GameNotFound

from . import _due
from ._archiving import Archiving
from ._botqueue import BotQueue, BotQueueFull
from ._botsearch import BotSearches
from ._commits import Commits
from ._errors import ConcurrentUpdate, GameStuck
from ._eventlog import AppEvent, TurnTimedOut
from ._games import Games
from ._meta import GameMeta

__all__ = ["Turns"]

_log = structlog.get_logger("scopa.app")

_ACTED: ContextVar[list[int] | None] = ContextVar("scopa_app_acted", default=None)
"""While a sweep takes a game's due actions: how many this task committed (other tasks, e.g.
concurrent requests on the same core, count in their own context)."""

_MAX_BOT_TURNS: Final = 1000
"""Bot turns one call plays at most (a game of bots only is played out in one call)."""


class Turns:
    """Takes the actions due in a game: bot turns and run-out turn clocks."""

    def __init__(
        self,
        games: Games,
        commits: Commits,
        rng: random.Random,
        tracer: trace.Tracer,
        searches: BotSearches,
        archiving: Archiving,
    ) -> None:
        self._games = games
        self._archiving = archiving
        self._commits = commits
        self._rng = rng
        self._tracer = tracer
        self._searches = searches
        settings = games.settings
        self._acting = settings.take_due_actions
        self._queue = BotQueue(settings.bot_running, settings.bot_waiting, games.hooks.bot_queue)
        self._later: set[asyncio.Task[None]] = set()

    def advance_later(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> None:
        """Take the actions due in a game in a task of its own (the caller answers first): the
        bots of a game without a person. Stopped by :meth:`close`; a turn it leaves (a lost
        race, a full bot queue, a replica stopped) stays due for a sweeper."""
        task = asyncio.create_task(self._advance_quietly(game_id, version, state, meta))
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _advance_quietly(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> None:
        try:
            await self.advance(game_id, version, state, meta)
        except Exception:  # the game stays due: a sweeper takes it (logged without locals)
            _log.exception("advance_later_failed", game_id=game_id)

    async def close(self) -> None:
        """Stop the games advanced in the background, then the bot searches."""
        for task in list(self._later):
            task.cancel()
        await asyncio.gather(*self._later, return_exceptions=True)
        await self._searches.close()

    async def advance(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> tuple[int, rules.MatchState, GameMeta]:
        """Take every action now due, each one commit (compare-and-set) after the last.

        Due are a bot seat's turn, and a person's turn whose clock ran out (the timeout bot
        plays it, or the seat forfeits). A lost race means another replica acted: stop, its
        commit stands, and the game is read again. Returns the game's latest version, state
        and meta. A replica that takes no due actions (``CoreSettings.take_due_actions``)
        returns the game as it is.
        """
        if not self._acting:
            return version, state, meta
        games = self._games
        for _ in range(_MAX_BOT_TURNS):
            if not games.is_due(state, meta):
                break
            seat = _due.awaited_seat(state)
            level = meta.seats[seat].bot
            events: list[AppEvent]
            try:
                if level:
                    bot = bots.Level(level)
                    new_state, played = await self._bot_turn(game_id, state, seat, bot)
                    events, new_meta = list(played), meta
                else:
                    new_state, events, new_meta = await self._time_out(game_id, state, meta, seat)
            except BotQueueFull:  # left due: a sweeper, or the game's next request, takes it
                break
            try:
                result, committed = await self._commits.commit(
                    game_id, version, new_state, new_meta, seat, events, None, b""
                )
            except ConcurrentUpdate:
                snap = await games.load(game_id)
                return snap.version, games.state(game_id, snap), games.metas.load(snap.meta)
            assert committed is not None  # no request_id, so never a replay
            version, state, meta = result.snapshot.version, new_state, committed
            counter = _ACTED.get()
            if counter is not None:
                counter[0] += 1
            if not level:  # logged once committed: a replica that lost the race took nothing
                timeouts = meta.seats[seat].timeouts
                forfeit = meta.resigned == seat
                _log.info(
                    "turn_timed_out", game_id=game_id, seat=seat, timeouts=timeouts, forfeit=forfeit
                )
        return version, state, meta

    async def _time_out(
        self, game_id: str, state: rules.MatchState, meta: GameMeta, seat: int
    ) -> tuple[rules.MatchState, list[AppEvent], GameMeta]:
        """A person's clock ran out: the timeout bot plays for the seat, or the seat forfeits."""
        timed_out = _due.time_out(state, meta, seat, self._games.settings)
        if timed_out.forfeit is not None:
            forfeited, events = timed_out.forfeit
            return forfeited, events, timed_out.meta
        level = timed_out.bot
        new_state, played = await self._bot_turn(game_id, state, seat, level)
        logged: list[AppEvent] = [TurnTimedOut(seat, timed_out.timeouts, False, level.value)]
        logged += played
        return new_state, logged, timed_out.meta

    async def _bot_turn(
        self, game_id: str, state: rules.MatchState, seat: int, level: bots.Level
    ) -> tuple[rules.MatchState, list[rules.Event]]:
        """The bot's action, chosen from its seat's view only, applied by the rules; chosen in
        one of the replica's bot slots (BotQueueFull, before anything else, when none is free
        and the waiting line is full)."""
        async with self._queue.slot():
            with self._tracer.start_as_current_span("scopa.bot.choose") as span:
                span.set_attribute("scopa.game_id", game_id)
                span.set_attribute("scopa.seat", seat)
                span.set_attribute("scopa.bot", level.value)
                seed = self._rng.getrandbits(64)
                view = rules.observe(state, seat)  # all that the search gets of the game
                budget = self._games.settings.bot_budget
                try:
                    action = await self._searches.choose(view, seed, budget, level)
                except Exception:
                    # A bot's fault (or its worker process's death) must not fail the person's
                    # request nor stall the game: play a random legal action instead (logged
                    # without locals, so without cards).
                    _log.exception("bot_failed", game_id=game_id, seat=seat, level=level.value)
                    rng = random.Random(seed)
                    action = bots.choose(view, rng, budget, bots.Level.RANDOM)
                return rules.apply_action(state, seat, action, self._rng)

    async def sweep_game(self, game_id: str, deadline_ms: int) -> bool:
        """Take a game's overdue action if it still is due (a sweeper found its index entry).

        Every replica's sweeper may find the same entry: the commit is a compare-and-set, so
        exactly one of them acts. A game that is gone loses its entry; one not due (the entry
        was early) gets its entry set to its real deadline. Returns whether this call acted.
        """
        games = self._games
        try:
            snap = await games.store.load(game_id)
        except GameNotFound:
            await games.store.forget_deadline(game_id, deadline_ms)
            return False
        try:
            state = games.state(game_id, snap)
        except (GameStuck, rules.GameUnplayable):  # no sweep can ever take its turn
            await games.store.forget_deadline(game_id, deadline_ms)
            return False
        if state.finished and self._archiving.enabled:  # marked for archiving
            try:
                await self._archiving.archive(game_id, snap)
            except ArchiveError as exc:  # the mark stays: the next sweep tries again
                _log.warning("archive_deferred", game_id=game_id, error=type(exc).__name__)
            return False
        meta = games.metas.load(snap.meta)
        acted = [0]
        reset = _ACTED.set(acted)
        try:
            version, _, meta = await self.advance(game_id, snap.version, state, meta)
        finally:
            _ACTED.reset(reset)
        if version == snap.version:
            await games.store.set_deadline(game_id, version, meta.deadline_ms or None)
        return acted[0] > 0

    async def sync_clock(self) -> bool:
        """Measure the offset of this replica's clock to the store's (see StoreClock)."""
        return await self._games.clock.sync(self._games.store)

    async def due_games(self, limit: int) -> list[tuple[str, int]]:
        """Index entries due by the store's clock now, from every deadline shard (for a sweep)."""
        now = self._games.clock.now_ms()
        shards = list(range(DEADLINE_SHARDS))
        self._rng.shuffle(shards)  # replicas start their scans at different shards
        due: list[tuple[str, int]] = []
        for shard in shards:
            due += await self._games.store.due_games(shard, now, limit)
        return due

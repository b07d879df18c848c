"""The application core's facade: the one object the transports call.

No transport types here: gRPC, REST and Connect only convert their messages into these calls
and the results back. Each call is handed to the collaborator whose job it is:

- :class:`._seating.Seating`: CreateGame, JoinGame;
- who a caller is (a seat token, a signed-in player's identity token with ``identity``, or
  neither): :meth:`._games.Games.caller`;
- :class:`._actions.Actions`: GetState, TakeAction (PlayCard), ResignGame;
- :class:`._lobby.Lobby`: ListGames;
- :class:`._mine.MyGames`: ListMyGames (and the owner index its commits keep);
- :class:`._watching.Watches`: WatchGame;
- :class:`._rematch.Rematches`: RematchGame;
- :class:`._presence.Presences`: who watches (GetState's and the streams' presence);
- :class:`._turns.Turns`: due bot turns and turn clocks, and the sweeper's calls; the bots'
  searches run where ``bot_searches`` says (:mod:`._botsearch`: threads by default);

over one shared read side (:class:`._games.Games`) and one write path
(:class:`._commits.Commits`: every write is one compare-and-set commit, so two replicas racing
for the same turn cannot both win, and a retried ``request_id`` returns the first response
instead of playing twice).
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from opentelemetry import trace

from scopa import rules
from scopa.identity import Identity
from scopa.storage import GameStore

from ._actions import Actions
from ._archiving import Archiving
from ._botsearch import BotSearches, ThreadSearches
from ._clock import StoreClock
from ._commands import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameSnapshot,
    GameStatus,
    JoinResult,
    LobbyGame,
    PlayResult,
    RematchResult,
)
from ._commits import Commits
from ._errors import IdentityInvalid, IdentityUnavailable
from ._games import Games, Hooks
from ._lobby import Lobby
from ._mine import MyGames
from ._presence import Presences
from ._rematch import Rematches
from ._seating import Seating
from ._tokens import TokenAuthority
from ._turns import Turns
from ._watching import Watches

if TYPE_CHECKING:
    from scopa.archive import GameArchive

__all__ = ["GameCore"]

_DROP_WAIT_S = 2.0
"""How long a closing replica waits for the presence drops of its streams that just ended."""


class GameCore:
    """Use cases of the game service, on top of a :class:`GameStore` and the rules."""

    def __init__(
        self,
        store: GameStore,
        tokens: TokenAuthority,
        settings: CoreSettings | None = None,
        rng: random.Random | None = None,
        on_game_created: Callable[[str], None] | None = None,
        on_game_finished: Callable[[str, str], None] | None = None,
        on_game_active: Callable[[str, bool], None] | None = None,
        on_watch: Callable[[int], None] | None = None,
        on_game_stuck: Callable[[str], None] | None = None,
        on_bot_queue: Callable[[str, int], None] | None = None,
        tracer_provider: trace.TracerProvider | None = None,
        clock: StoreClock | None = None,
        bot_searches: BotSearches | None = None,
        archive: GameArchive | None = None,
        identity: Identity | None = None,
        on_rematch: Callable[[str, str], None] | None = None,
    ) -> None:
        hooks = Hooks()
        hooks = Hooks(
            on_game_created or hooks.created,
            on_game_finished or hooks.finished,
            on_game_active or hooks.active,
            on_watch or hooks.watch,
            on_game_stuck or hooks.stuck,
            on_bot_queue or hooks.bot_queue,
            on_rematch or hooks.rematch,
        )
        games = Games(
            store, tokens, settings or CoreSettings(), clock or StoreClock(), hooks, identity
        )
        rng = rng or random.SystemRandom()
        tracer = trace.get_tracer("scopa.app", tracer_provider=tracer_provider)
        self._archiving = Archiving(games, archive, games.settings.archive_retention_days)
        self._games = games
        self._mine = MyGames(games, self._archiving)
        commits = Commits(games, self._archiving, self._mine)
        searches = bot_searches or ThreadSearches()
        self._turns = Turns(games, commits, rng, tracer, searches, self._archiving)
        self._actions = Actions(games, commits, self._turns, rng, tracer)
        self._seating = Seating(games, commits, self._turns, rng, tracer)
        self._presences = Presences(games)
        self._lobby = Lobby(games, self._presences)
        self._watches = Watches(games, self._turns, self._presences)
        self._rematches = Rematches(games, commits, self._turns, rng, tracer)

    @staticmethod
    def list_rulesets() -> tuple[tuple[rules.Preset, ...], tuple[rules.OptionInfo, ...]]:
        """Every preset and every option, for a "new game" form."""
        return tuple(rules.PRESETS.values()), rules.list_options()

    async def create_game(self, cmd: CreateGameCommand, bearer: str | None = None) -> CreateResult:
        """Create a game; seats not marked open are held by the creator and get tokens (with
        an identity token as ``bearer``: bound to the signed-in creator, without tokens)."""
        result = await self._seating.create_game(cmd, bearer)
        if not result.snapshot.spectators_invite:
            return result
        token = self._seating.spectator_token(result.game_id)
        return replace(result, spectator_token=token)

    async def join_game(
        self,
        game_id: str,
        invite_code: str,
        name: str,
        request_id: str = "",
        bearer: str | None = None,
    ) -> JoinResult:
        """Claim the open seat ``invite_code`` was issued for (of a public game: without a
        code, its lowest open seat); with an identity token, bound to the signed-in player."""
        return await self._seating.join_game(game_id, invite_code, name, request_id, bearer)

    async def get_state(self, game_id: str, token: str | None) -> GameSnapshot:
        """The game as the token's seat (or a spectator, without a token) may see it, with
        who watches it now."""
        return await self._actions.get_state(game_id, token, self._presences)

    async def play_card(
        self,
        game_id: str,
        token: str | None,
        move: rules.Move,
        etag: str = "",
        request_id: str = "",
    ) -> PlayResult:
        """Play ``move`` for the token's seat (the common case of :meth:`take_action`)."""
        return await self._actions.take_action(game_id, token, move, etag, request_id)

    async def take_action(
        self,
        game_id: str,
        token: str | None,
        action: rules.Action,
        etag: str = "",
        request_id: str = "",
    ) -> PlayResult:
        """Take ``action`` (a play, a declaration, ...) for the token's seat."""
        return await self._actions.take_action(game_id, token, action, etag, request_id)

    async def resign(self, game_id: str, token: str | None, request_id: str = "") -> PlayResult:
        """The token's seat resigns: the game ends and the other sides win."""
        return await self._actions.resign(game_id, token, request_id)

    async def rematch_game(self, game_id: str, bearer: str | None) -> RematchResult:
        """The finished game's rematch for a seat (created and linked by the first ask; the
        same game for every later or racing one), as that seat sees it."""
        return await self._rematches.rematch(game_id, bearer)

    async def list_games(
        self,
        preset: str,
        page_size: int,
        page_token: str,
        finished: bool = False,
        active: bool = False,
    ) -> tuple[list[LobbyGame], str]:
        """Public games waiting for players, newest first, each from its lobby summary
        (AIP-158): one page and the token of the next ("" on the last page). ``finished``:
        finished public games from the archive instead, latest finish first; ``active``:
        public games being played (spectators public), with their spectator counts."""
        if finished:
            return await self._archiving.finished_page(preset, page_size, page_token)
        return await self._lobby.list_games(preset, page_size, page_token, active)

    async def list_my_games(
        self, bearer: str | None, status: GameStatus | None, page_size: int, page_token: str
    ) -> tuple[list[LobbyGame], str]:
        """The signed-in caller's games (of ``status``; None: all), newest first, each with
        the caller's seat and whose turn it is (see :class:`._mine.MyGames`)."""
        return await self._mine.list_games(bearer, status, page_size, page_token)

    async def rate_subject(self, bearer: str | None) -> str:
        """The key a signed-in caller's rate limits count against: its owner digest (never
        its subject), or "" when ``bearer`` is no identity token that verifies (the caller
        is counted by its address; the use case then refuses a bad token)."""
        try:
            return (await self._games.caller(bearer, for_request=True)).owner
        except (IdentityInvalid, IdentityUnavailable):
            return ""

    def watch(
        self,
        game_id: str,
        token: str | None,
        from_version: int = 0,
        client: str = "",
        delivered: Callable[[], int] | None = None,
        follow_rematch: bool = False,
    ) -> AsyncGenerator[PlayResult, None]:
        """Updates after ``from_version``: first what was missed, then each new version live
        (see :meth:`._watching.Watches.watch`; none for a version up to ``delivered()``;
        ``follow_rematch``: past the game's end, until its rematch is linked)."""
        return self._watches.watch(game_id, token, from_version, client, delivered, follow_rematch)

    async def sweep_game(self, game_id: str, deadline_ms: int) -> bool:
        """Take a game's overdue action if it still is due; whether this call acted."""
        return await self._turns.sweep_game(game_id, deadline_ms)

    async def sync_clock(self) -> bool:
        """Measure the offset of this replica's clock to the store's (see StoreClock)."""
        return await self._turns.sync_clock()

    async def purge_lobby(self) -> int:
        """Drop the lobby entries of expired games (a sweep's second task); how many."""
        return await self._lobby.purge()

    async def due_games(self, limit: int) -> list[tuple[str, int]]:
        """Index entries due by the store's clock now, from every deadline shard."""
        return await self._turns.due_games(limit)

    async def game_record(self, game_id: str, token: str | None) -> bytes:
        """A finished game's record (JSON, docs/api.md "Game records") for its seats, or for
        anyone if the game was public."""
        return await self._archiving.record(game_id, token)

    async def purge_archive(self) -> int:
        """Delete one batch of archived records past the retention; how many."""
        return await self._archiving.purge()

    async def close(self) -> None:
        """Stop the bots' work of this replica (games played in the background, the search
        workers); what they leave due, a sweeper takes. The presence entries of streams that
        just ended are dropped first."""
        await self._presences.close(_DROP_WAIT_S)
        await self._turns.close()
        await self._archiving.close()

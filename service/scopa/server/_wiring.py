"""Application wiring: the store, the core, the servicer and the readiness check of a process."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from scopa import bots
from scopa.app import (
    CoreSettings,
    GameCore,
    ProcessSearches,
    RateLimits,
    Sweeper,
    ThreadSearches,
    TokenAuthority,
    parse_rate,
)
from scopa.archive import open_archive
from scopa.config import Settings
from scopa.identity import Identity, JwksKeys
from scopa.server._server import GAME_SERVICE, ScopaServer, Wiring
from scopa.storage import GameStore, StorageError, open_store
from scopa.telemetry import (
    record_bot_queue,
    record_game_active,
    record_game_created,
    record_game_finished,
    record_game_stuck,
    record_watch_streams,
    record_webhook,
)
from scopa.transport import (
    ASGIApp,
    GameCalls,
    GameServicer,
    HttpGuard,
    SessionLimits,
    SessionSlots,
    WebSignIn,
    add_game_service,
    build_http_app,
    load_web_ui,
)
from scopa.transport._guard import grpc_client
from scopa.webhooks import DeliveryPolicy, HttpSender, Signer, WebhookWorker

__all__ = ["build_services"]


def _client_of(settings: Settings) -> Callable[[Any], str]:
    """The client a per-client WatchGame cap counts: the rate limits' key (trusted proxy aware)."""
    header = settings.trusted_proxy_header.lower() if settings.trusted_proxy_header else None
    return functools.partial(
        grpc_client, proxy_header=header, proxy_hops=settings.trusted_proxy_hops
    )


def _session_limits(settings: Settings) -> SessionLimits:
    """The bounds of each realtime session (docs/api.md, "Realtime sessions")."""
    rate = parse_rate(settings.session_action_rate)
    return SessionLimits(
        max_frame_bytes=settings.max_request_bytes,
        queue_frames=settings.session_queue,
        max_sessions=settings.sessions_max,
        action_burst=rate.amount if rate is not None else 0,
        action_window_s=float(rate.get_expiry()) if rate is not None else 1.0,
    )


def _web_sign_in(settings: Settings) -> WebSignIn | None:
    """The web client's sign-in (None: its page offers none)."""
    if settings.oidc_issuer is None or settings.web_oidc_client_id is None:
        return None
    return WebSignIn(
        settings.oidc_issuer,
        settings.web_oidc_client_id,
        settings.web_oidc_scope,
        settings.web_oidc_params,
    )


def _identity(settings: Settings) -> Identity | None:
    """The verifier of identity tokens (None: no issuer set, seat tokens only)."""
    if settings.oidc_issuer is None or settings.oidc_audience is None:
        return None
    keys = JwksKeys(settings.oidc_issuer, min_refresh_s=settings.oidc_min_refresh_s)
    return Identity(
        settings.oidc_issuer, settings.oidc_audience, keys, leeway_s=settings.oidc_leeway_s
    )


def _webhook_worker(settings: Settings, store: GameStore) -> WebhookWorker | None:
    """Every replica's webhook delivery worker, started (None: the deployment has none)."""
    hooks = settings.webhooks
    if not hooks.worker:
        return None
    policy = DeliveryPolicy(
        hooks.url,
        max_attempts=hooks.max_attempts,
        timeout_s=hooks.timeout_s,
        backoff_s=hooks.backoff_s,
        interval_s=min(settings.sweep_interval_s, 1.0),
    )
    sender = HttpSender(hooks.timeout_s)
    worker = WebhookWorker(store, Signer(hooks.secret), sender, policy, record_webhook)
    worker.start()
    return worker


async def build_services(settings: Settings) -> Wiring:
    """Build the servicers to register, the readiness check and the clean-up for ``settings``."""
    store = open_store(settings.redis_url, settings.redis_timeout_s)
    archive = (
        await open_archive(settings.archive_url, settings.archive_timeout_s)
        if settings.archive_url
        else None
    )
    core = GameCore(
        store,
        TokenAuthority(settings.token_secret),
        CoreSettings(
            allow_stacked_decks=settings.allow_stacked_decks,
            active_ttl_s=settings.game_ttl_s,
            finished_ttl_s=settings.finished_ttl_s,
            archive_retention_days=settings.archive_retention_days,
            waiting_ttl_s=settings.waiting_ttl_s,
            watch_idle_s=settings.watch_idle_s,
            watch_per_client=settings.watch_per_client,
            presence_ttl_s=settings.presence_ttl_s,
            bot_grace_s=settings.bot_grace_s,
            bot_budget=bots.scaled_budget(settings.bot_budget_ms / 1000),
            allow_bot_only_games=settings.bot_only_games,
            bot_running=settings.bot_searches,
            bot_waiting=settings.bot_queue,
            webhooks=settings.webhooks.enabled,
            per_game_webhooks=settings.webhooks.allow_per_game,
        ),
        on_game_created=record_game_created,
        on_game_finished=lambda preset, reason: record_game_finished(preset),
        on_game_active=record_game_active,
        on_watch=record_watch_streams,
        on_game_stuck=record_game_stuck,
        on_bot_queue=record_bot_queue,
        bot_searches=(
            ProcessSearches(settings.bot_searches) if settings.bot_processes else ThreadSearches()
        ),
        identity=_identity(settings),
        archive=archive,
    )
    # The HTTP port's calls: Connect's binary codec appends each view's options as wire bytes,
    # REST and Connect JSON write them from a text kept per tail (GameCalls options_tail).
    calls = GameCalls(core, options_tail=True)
    # Every replica sweeps: overdue turns of games nobody touches are taken by whichever
    # replica's compare-and-set wins (scopa.app.Sweeper).
    sweeper = Sweeper(core, settings.sweep_interval_s)
    sweeper.start()
    worker = _webhook_worker(settings, store)

    async def close() -> None:
        await sweeper.stop()
        if worker is not None:
            await worker.stop()
        await core.close()  # the bots' background games and search workers
        await store.close()
        if archive is not None:
            await archive.close()

    # gRPC's own GameCalls: its views' options go out as wire bytes (GameCalls options_tail).
    # One count of realtime sessions for both ports (SCOPA_SESSIONS_MAX).
    slots = SessionSlots(settings.sessions_max)
    servicer = GameServicer(
        GameCalls(core, options_tail=True), _client_of(settings), _session_limits(settings), slots
    )

    def register(server: object) -> None:
        add_game_service(servicer, server)

    async def ready() -> bool:
        try:
            await store.ping()
        except StorageError:
            return False
        return True

    rate_limits = RateLimits.for_store(
        {
            "create_game": settings.rate_limit_create_game,
            "join_game": settings.rate_limit_join_game,
        },
        settings.redis_url,
    )
    rate_limits.identify_with(core.rate_subject)  # a signed-in caller: by subject

    web_ui = load_web_ui(sign_in=_web_sign_in(settings)) if settings.web_ui else None

    def http_app(server: ScopaServer) -> ASGIApp:
        guard = HttpGuard(
            server.drain,
            rate_limits,
            trusted_proxy_header=settings.trusted_proxy_header,
            trusted_proxy_hops=settings.trusted_proxy_hops,
        )
        return build_http_app(
            calls,
            server,
            cors_origins=settings.cors_origins,
            keepalive_s=settings.sse_keepalive_s,
            max_body_bytes=settings.max_request_bytes,
            guard=guard,
            web_ui=web_ui,
            session_limits=_session_limits(settings),
            session_slots=slots,
        )

    return Wiring(
        registrars=[register],
        ready_check=ready,
        close=close,
        service_names=[GAME_SERVICE],
        rate_limits=rate_limits,
        http_app=http_app,
    )

"""Tests of the core's spans: one engine span per move, no hidden cards in any attribute."""

from __future__ import annotations

import random

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from scopa import rules
from scopa.app import CoreSettings, CreateGameCommand, GameCore, SeatSpec, TokenAuthority
from scopa.storage import MemoryStore


async def test_one_engine_span_per_move_without_cards() -> None:
    """Every move gets a span with game, preset, seat and hand attributes, and no card data."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    core = GameCore(
        MemoryStore(),
        TokenAuthority(b"t" * 32),
        CoreSettings(),
        rng=random.Random(5),
        tracer_provider=provider,
    )
    created = await core.create_game(
        CreateGameCommand("scopa", {"target_score": 1}, [SeatSpec("a"), SeatSpec("b")])
    )
    tokens = dict(created.tokens)
    rng = random.Random(1)
    moves = 0
    while True:
        public = await core.get_state(created.game_id, None)
        if public.view.finish_reason is not rules.FinishReason.NONE:
            break
        seat = public.view.turn
        view = (await core.get_state(created.game_id, tokens[seat])).view
        await core.play_card(created.game_id, tokens[seat], rng.choice(view.legal_moves))
        moves += 1
    engine = [s for s in exporter.get_finished_spans() if s.name == "scopa.engine.apply_move"]
    assert len(engine) == moves
    allowed = {
        "scopa.create_game": {"scopa.game_id", "scopa.preset", "scopa.players"},
        "scopa.engine.apply_move": {
            "scopa.game_id",
            "scopa.preset",
            "scopa.seat",
            "scopa.hand_number",
            "scopa.cards_captured",
            "scopa.sweep",
            "scopa.game_over",
        },
    }
    spans = exporter.get_finished_spans()
    assert {span.name for span in spans} == set(allowed)
    for span in spans:
        # Exactly these attributes, each a count, flag or id: no place for a card.
        assert set(dict(span.attributes or {})) == allowed[span.name]


async def test_an_engine_error_ends_its_span_as_an_error() -> None:
    """A refused move ends its engine span with ERROR status and an exception event."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    core = GameCore(
        MemoryStore(), TokenAuthority(b"t" * 32), CoreSettings(), tracer_provider=provider
    )
    created = await core.create_game(
        CreateGameCommand("scopa", {"target_score": 1}, [SeatSpec("a"), SeatSpec("b")])
    )
    public = await core.get_state(created.game_id, None)
    idle = 1 - public.view.turn
    own = (await core.get_state(created.game_id, dict(created.tokens)[idle])).view
    with pytest.raises(rules.RulesError):
        await core.play_card(created.game_id, dict(created.tokens)[idle], rules.Move(own.hand[0]))
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "scopa.engine.apply_move"]
    assert span.status.status_code is StatusCode.ERROR
    assert [e.name for e in span.events] == ["exception"]
    assert span.end_time is not None

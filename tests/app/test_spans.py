"""Tests of the core's spans: one engine span per move, no hidden cards in any attribute."""

from __future__ import annotations

import random

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

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
    hands_seen: set[int] = set()
    while True:
        public = await core.get_state(created.game_id, None)
        if public.view.finish_reason is not rules.FinishReason.NONE:
            break
        seat = public.view.turn
        view = (await core.get_state(created.game_id, tokens[seat])).view
        hands_seen |= set(view.hand)
        await core.play_card(created.game_id, tokens[seat], rng.choice(view.legal_moves))
        moves += 1
    engine = [s for s in exporter.get_finished_spans() if s.name == "scopa.engine.apply_move"]
    assert len(engine) == moves
    expected = {
        "scopa.game_id",
        "scopa.preset",
        "scopa.seat",
        "scopa.hand_number",
        "scopa.cards_captured",
        "scopa.sweep",
        "scopa.game_over",
    }
    for span in exporter.get_finished_spans():
        attributes = dict(span.attributes or {})
        if span.name == "scopa.engine.apply_move":
            assert set(attributes) == expected
        for value in attributes.values():
            assert not isinstance(value, (list, tuple)), "no card lists in attributes"
            assert not isinstance(value, bytes)
    assert hands_seen  # the game dealt cards that never reached a span

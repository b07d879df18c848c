"""Tests of scopa.server._server: health (liveness vs readiness), reflection and stopping."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from scopa.config import Settings
from scopa.server import GAME_SERVICE, READINESS_SERVICE, ScopaServer
from scopa.server._server import REFLECTION_V1, GenericHandlersOnly, _server_options
from scopa.storage import RedisStore
from scopa.transport import GameServicer, add_game_service
from server.fakes import FAKE_SERVICE, Harness, register_fake, session_loop

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _status(channel: grpc.aio.Channel, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    response = await stub.Check(health_pb2.HealthCheckRequest(service=service))
    status: int = response.status
    return status


class _Flag:
    """A readiness check whose answer the test controls (or that raises)."""

    def __init__(self) -> None:
        self.ready = False
        self.fail = False

    async def __call__(self) -> bool:
        if self.fail:
            raise ConnectionError("redis down")
        return self.ready


@session_loop
async def test_liveness_serving_and_readiness_follow_the_check(test_settings: Settings) -> None:
    """ "" is always SERVING; the service and "readiness" follow the periodic ready check."""
    flag = _Flag()
    server = ScopaServer(
        test_settings, [], flag, service_names=[GAME_SERVICE], ready_interval_s=0.05
    )
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        assert await _status(channel, "") == SERVING
        assert await _status(channel, GAME_SERVICE) == NOT_SERVING
        flag.ready = True
        await asyncio.sleep(0.3)
        assert await _status(channel, GAME_SERVICE) == SERVING
        assert await _status(channel, READINESS_SERVICE) == SERVING
        flag.fail = True
        await asyncio.sleep(0.3)
        assert await _status(channel, READINESS_SERVICE) == NOT_SERVING
        assert await _status(channel, "") == SERVING
    finally:
        await channel.close()
        await server.stop()


def _readiness_lines(log: io.StringIO) -> list[tuple[bool, bool | None, str]]:
    lines = [json.loads(line) for line in log.getvalue().splitlines() if line]
    return [
        (line["ready"], line["previous"], line["reason"])
        for line in lines
        if line["event"] == "readiness_changed"
    ]


async def _until_lines(log: io.StringIO, count: int) -> None:
    for _ in range(250):  # generous: the machine may be busy
        if len(_readiness_lines(log)) >= count:
            return
        await asyncio.sleep(0.02)


@session_loop
async def test_readiness_transitions_are_logged_once_each(
    test_settings: Settings, log_stream: io.StringIO
) -> None:
    """Each change of readiness is one log line (with the previous state); no repeats."""
    flag = _Flag()
    server = ScopaServer(test_settings, [], flag, ready_interval_s=0.02)
    await server.start()
    try:
        await asyncio.sleep(0.1)  # several polls, all "not ready": one line
        flag.ready = True
        await _until_lines(log_stream, 2)
        await asyncio.sleep(0.1)
        flag.fail = True
        await _until_lines(log_stream, 3)
        await asyncio.sleep(0.1)
    finally:
        await server.stop()
    assert _readiness_lines(log_stream) == [
        (False, None, "check"),
        (True, False, "check"),
        (False, True, "check"),
    ]


@session_loop
async def test_shutdown_logs_the_readiness_change(
    test_settings: Settings, log_stream: io.StringIO
) -> None:
    """stop() logs ready -> not ready with the reason "shutdown"."""

    async def ready() -> bool:
        return True

    server = ScopaServer(test_settings, [], ready)
    await server.start()
    await server.stop()
    assert _readiness_lines(log_stream) == [(True, None, "check"), (False, True, "shutdown")]


@session_loop
async def test_readiness_polls_make_no_spans(test_settings: Settings, redis_url: str) -> None:
    """Polling a traced Redis store for readiness creates no span (and so no root trace)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    store = RedisStore.from_url(redis_url, tracer_provider=provider)

    polls = 0

    async def ready() -> bool:
        nonlocal polls
        await store.ping()
        polls += 1
        return True

    server = ScopaServer(test_settings, [], ready, ready_interval_s=0.02)
    await server.start()
    try:
        for _ in range(250):
            if polls >= 5:
                break
            await asyncio.sleep(0.02)
        await store.ping()  # outside the poll: traced as usual
    finally:
        await server.stop()
        await store.close()
    assert polls >= 5
    assert [span.name for span in exporter.get_finished_spans()] == ["PING ping"]


@session_loop
async def test_graceful_shutdown_reports_not_serving(test_settings: Settings) -> None:
    """stop() turns every health status to NOT_SERVING before the server goes away."""

    async def ready() -> bool:
        return True

    async def statuses() -> list[int]:
        services = ("", "scopa.v1.GameService", "readiness")
        requests = [health_pb2.HealthCheckRequest(service=service) for service in services]
        return [(await server.health.Check(request, None)).status for request in requests]

    server = ScopaServer(test_settings, [], ready, service_names=[GAME_SERVICE])
    await server.start()
    assert await statuses() == [SERVING] * 3
    await server.stop()
    assert await statuses() == [NOT_SERVING] * 3


@session_loop
async def test_reflection_lists_registered_services(harness: Harness) -> None:
    """Server reflection names the application's services and the health service."""
    stub = reflection_pb2_grpc.ServerReflectionStub(harness.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    names: set[str] = set()
    async for response in stub.ServerReflectionInfo(iter([request])):
        names |= {service.name for service in response.list_services_response.service}
    assert {FAKE_SERVICE, "grpc.health.v1.Health"} <= names


class _Recorder:
    """A grpc server that records what registration code hands it."""

    def __init__(self) -> None:
        self.generic: list[object] = []
        self.registered: list[str] = []

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        self.generic.append(handlers)

    def add_registered_method_handlers(self, service: str, handlers: object) -> None:
        self.registered.append(service)


def test_registration_reaches_the_server_as_generic_handlers_only() -> None:
    """grpc.aio waits on one future per registered method for every call it takes: health's
    generated registration and the game service's (each a generic handler and the same
    methods registered) hand the server their generic handlers alone."""
    recorder = _Recorder()
    registering = GenericHandlersOnly(recorder)
    health_pb2_grpc.add_HealthServicer_to_server(health_pb2_grpc.HealthServicer(), registering)
    add_game_service(GameServicer.__new__(GameServicer), registering)
    assert (len(recorder.generic), recorder.registered) == (2, [])


@session_loop
async def test_reflection_answers_as_v1_too(harness: Harness) -> None:
    """grpc.reflection.v1 (what grpcurl and buf curl ask for first) lists the services too,
    v1 and v1alpha among them, and finds a service's file."""
    call = harness.channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.health.v1.Health"),
    ]
    responses = [response async for response in call(iter(requests))]
    names = {service.name for service in responses[0].list_services_response.service}
    assert {FAKE_SERVICE, REFLECTION_V1, "grpc.reflection.v1alpha.ServerReflection"} <= names
    assert responses[1].file_descriptor_response.file_descriptor_proto


@session_loop
async def test_bind_failure_is_an_error(test_settings: Settings) -> None:
    """Starting on a port another server holds fails instead of serving nothing."""

    async def ready() -> bool:
        return True

    first = ScopaServer(test_settings, [register_fake], ready)
    port = await first.start()
    taken = dataclasses.replace(test_settings, port=port)
    try:
        with pytest.raises(RuntimeError):
            await ScopaServer(taken, [], ready).start()
    finally:
        await first.stop()


def test_connection_age_options() -> None:
    """A max connection age sets grpc.max_connection_age_ms and its grace; none by default."""
    assert "grpc.max_connection_age_ms" not in dict(_server_options(Settings()))
    options = dict(_server_options(Settings(max_connection_age_s=30.0, grace_s=5.0)))
    assert options["grpc.max_connection_age_ms"] == 30_000
    assert options["grpc.max_connection_age_grace_ms"] == 5_000


def test_receive_limit_is_four_times_the_request_limit() -> None:
    """gRPC's own receive limit leaves room for the guard's REQUEST_TOO_LARGE with ErrorInfo."""
    options = dict(_server_options(Settings(max_request_bytes=10_000)))
    assert options["grpc.max_receive_message_length"] == 40_000


@session_loop
async def test_stop_ends_a_readiness_poll_that_swallowed_a_cancellation(
    test_settings: Settings,
) -> None:
    """stop() cancels the readiness poll again when it swallowed the first cancellation."""
    server = ScopaServer(test_settings, [], _Flag(), service_names=[GAME_SERVICE])
    await server.start()
    assert server._ready_task is not None
    server._ready_task.cancel()  # the real poll task goes; a stubborn one takes its place

    async def stubborn_poll() -> None:
        # Swallow one cancellation, as Python 3.11's wait_for can when its inner call just ended.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)

    poll = server._ready_task = asyncio.create_task(stubborn_poll())
    await asyncio.sleep(0)
    stopping = asyncio.create_task(server.stop())
    done, _ = await asyncio.wait({stopping}, timeout=20)  # no cancellation: a hang stays a hang
    poll.cancel()  # let a hung stop finish, so the failure below leaves nothing running
    await stopping
    assert stopping in done, "stop() hung on the readiness poll"
    assert poll.cancelled()

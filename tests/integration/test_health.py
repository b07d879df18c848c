"""Health, readiness and reflection of the real server, and its graceful shutdown."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from support.redis_server import RedisServer
from support.server_process import GAME_SERVICE, GRACE_S, ServerProcess, start_server, stop_server

SERVING = health_pb2.HealthCheckResponse.SERVING


def _status(target: str, service: str) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        return int(reply.status)


def test_overall_and_readiness_health_are_serving(server: ServerProcess) -> None:
    """The overall "" and the scopa.v1.GameService health statuses are SERVING."""
    assert _status(server.target, "") == SERVING
    assert _status(server.target, GAME_SERVICE) == SERVING


def test_reflection_lists_the_game_service(server: ServerProcess) -> None:
    """Server reflection lists scopa.v1.GameService."""
    with grpc.insecure_channel(server.target) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert GAME_SERVICE in names


def test_sigterm_stops_the_server_gracefully(redis_server: RedisServer) -> None:
    """SIGTERM makes a dedicated server process exit 0 within its grace period."""
    process = start_server(redis_server.url)
    code = stop_server(process, timeout_s=GRACE_S + 1)  # killed (code != 0) if it overstays
    assert code == 0, process.log_text()
    events = [r.get("event") for r in process.log_records()]
    assert events[-1] == "stopped", events

"""The scopa gRPC server: interceptors, error mapping, health, reflection and entry point."""

from scopa.server._main import main, run
from scopa.server._server import (
    GAME_SERVICE,
    READINESS_SERVICE,
    ReadyCheck,
    Registrar,
    ScopaServer,
    Wiring,
    serve,
)
from scopa.transport._errors import (
    ERROR_CODES,
    ERROR_DOMAIN,
    MappedError,
    map_exception,
    register,
    to_grpc_status,
)
from scopa.transport._interceptors import (
    EXCLUDED_PREFIXES,
    AccessLogInterceptor,
    ErrorMappingInterceptor,
    InterceptorStack,
    RpcInterceptor,
    TracingInterceptor,
    default_interceptors,
    status_of_call,
    wrap_handler,
)

__all__ = [
    "ERROR_CODES",
    "ERROR_DOMAIN",
    "EXCLUDED_PREFIXES",
    "GAME_SERVICE",
    "READINESS_SERVICE",
    "AccessLogInterceptor",
    "ErrorMappingInterceptor",
    "InterceptorStack",
    "MappedError",
    "ReadyCheck",
    "Registrar",
    "RpcInterceptor",
    "ScopaServer",
    "TracingInterceptor",
    "Wiring",
    "default_interceptors",
    "main",
    "map_exception",
    "register",
    "run",
    "serve",
    "status_of_call",
    "to_grpc_status",
    "wrap_handler",
]

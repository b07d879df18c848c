"""Python client for the scopa game service (generated code lives in `scopa_client.v1`)."""

from scopa_client._auth import TokenProvider
from scopa_client._channel import AUTHORIZATION_KEY, aio_connect, bearer_metadata, connect
from scopa_client._errors import (
    ERROR_DOMAIN,
    STATUS_DETAILS_KEY,
    Reason,
    error_info,
    error_info_from_status,
    retry_delay,
    rich_status,
)

__all__ = [
    "AUTHORIZATION_KEY",
    "ERROR_DOMAIN",
    "STATUS_DETAILS_KEY",
    "Reason",
    "TokenProvider",
    "aio_connect",
    "bearer_metadata",
    "connect",
    "error_info",
    "error_info_from_status",
    "retry_delay",
    "rich_status",
]

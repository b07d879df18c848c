"""Versioned storage of opaque game blobs: an embedded store and a Redis store, one contract."""

from scopa.storage._cluster import RedisClusterStore
from scopa.storage._errors import (
    DuplicateRequest,
    GameExists,
    GameNotFound,
    OutcomeUnknown,
    StorageError,
    StorageFull,
    StorageUnavailable,
    VersionConflict,
)
from scopa.storage._factory import open_store
from scopa.storage._fanout import PRESENCE, RESYNC, VersionQueue
from scopa.storage._index import DEADLINE_SHARDS, deadline_shard
from scopa.storage._keys import channel, events_key, game_key
from scopa.storage._log import read_log_entries
from scopa.storage._memory import MemoryStore
from scopa.storage._outbox import (
    OUTBOX_SHARDS,
    OUTBOX_TTL_S,
    OutboxClaim,
    OutboxEntry,
    OutboxItem,
    outbox_shard,
)
from scopa.storage._owners import OWNED_STATUSES
from scopa.storage._protocol import GameStore
from scopa.storage._redis import RedisStore
from scopa.storage._target import RedisMode, RedisTarget, parse_redis_url
from scopa.storage._types import (
    INITIAL_VERSION,
    CreateResult,
    Event,
    Presence,
    PublicGame,
    SeatSeen,
    Snapshot,
    basis_digest,
)

__all__ = [
    "DEADLINE_SHARDS",
    "INITIAL_VERSION",
    "OUTBOX_SHARDS",
    "OUTBOX_TTL_S",
    "OWNED_STATUSES",
    "PRESENCE",
    "RESYNC",
    "CreateResult",
    "DuplicateRequest",
    "Event",
    "GameExists",
    "GameNotFound",
    "GameStore",
    "MemoryStore",
    "OutboxClaim",
    "OutboxEntry",
    "OutboxItem",
    "OutcomeUnknown",
    "Presence",
    "PublicGame",
    "RedisClusterStore",
    "RedisMode",
    "RedisStore",
    "RedisTarget",
    "SeatSeen",
    "Snapshot",
    "StorageError",
    "StorageFull",
    "StorageUnavailable",
    "VersionConflict",
    "VersionQueue",
    "basis_digest",
    "channel",
    "deadline_shard",
    "events_key",
    "game_key",
    "open_store",
    "outbox_shard",
    "parse_redis_url",
    "read_log_entries",
]

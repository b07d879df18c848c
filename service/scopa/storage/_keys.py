"""Redis key and channel names; all names of one game share the hash tag ``{game_id}``."""

from __future__ import annotations

PREFIX = "scopa"


def check_game_id(game_id: str) -> None:
    """Raise ValueError unless ``game_id`` is non-empty and free of hash-tag braces."""
    if not game_id or "{" in game_id or "}" in game_id:
        raise ValueError(f"invalid game id {game_id!r}")


def check_ttl(ttl_s: float) -> None:
    """Raise ValueError unless ``ttl_s`` is positive (a zero TTL would delete at once)."""
    if not ttl_s > 0:
        raise ValueError(f"ttl must be positive, got {ttl_s}")


def game_key(game_id: str) -> str:
    """Return the hash holding state, meta, version and ``req:<id>`` fields."""
    return f"{PREFIX}:{{{game_id}}}:g"


def events_key(game_id: str) -> str:
    """Return the list holding the event log, one entry per version (see ``_log``)."""
    return f"{PREFIX}:{{{game_id}}}:log"


def legacy_events_key(game_id: str) -> str:
    """Return the stream earlier builds logged to (ids ``<version>-<seq>``, field ``e``).

    A game's next write moves it into :func:`events_key`; until then it is read from here.
    """
    return f"{PREFIX}:{{{game_id}}}:ev"


def channel(game_id: str) -> str:
    """Return the pub/sub channel on which new versions are announced."""
    return f"{PREFIX}:{{{game_id}}}:ch"


def request_field(request_id: str) -> str:
    """Return the hash field recording the response of ``request_id``."""
    return f"req:{request_id}"


def slot_field(slot: str) -> str:
    """Return the hash field holding the one cached response of ``slot`` (e.g. a seat)."""
    return f"req@{slot}"


def outbox_keys(game_id: str) -> list[str]:
    """Return the webhook outbox of a game: its schedule (a sorted set) and its entries (a
    hash), written in the game's commits (see ``lua/outbox.lua``)."""
    return [f"{PREFIX}:{{{game_id}}}:wq", f"{PREFIX}:{{{game_id}}}:wb"]

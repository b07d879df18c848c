"""The backend handle the storage contract tests are parametrised over."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from scopa.storage import GameStore


@dataclass
class Backend:
    """A store under test plus a way to let time pass for it."""

    name: str
    store: GameStore
    advance: Callable[[float], Awaitable[None]]

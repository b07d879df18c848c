"""What a bot-search worker process runs (``scopa.app``'s process pool).

A worker gets a seat's view, a seed, a budget and a level (what :func:`choose` needs, small to
pickle) and returns the action. :func:`start_worker` runs once in each worker: it ignores the
terminal's interrupt (the server decides when its workers stop) and exits the worker once its
server process is gone, so that a killed server leaves no searching orphans behind.

The engine's dataclasses cross as their class and field values (:func:`_by_fields`, registered
with multiprocessing's pickler on import, in the server and in each worker): compiled by mypyc
(the image's build) they have no ``__dict__``, and pickle's default restores a frozen one by
setting its attributes, which it refuses.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import threading
import time
from multiprocessing.reduction import ForkingPickler
from typing import Any, Final

from scopa import rules
from scopa.rules import Action, SeatView

from ._policy import Budget, Level, choose

__all__ = ["choose_seeded", "start_worker", "worker_pid"]

PARENT_POLL_S: Final = 0.5
"""How often a worker checks that its server still runs."""


def _by_fields(obj: Any) -> tuple[type, tuple[Any, ...]]:
    """A dataclass instance as its class and its fields' values, in order (its constructor's
    arguments)."""
    cls = type(obj)
    return cls, tuple(getattr(obj, f.name) for f in dataclasses.fields(cls))


ENGINE_DATACLASSES: Final = tuple(
    c for c in vars(rules).values() if isinstance(c, type) and dataclasses.is_dataclass(c)
)
"""The engine's dataclasses (what a view and an action are made of, beside tuples and enums)."""

for _cls in ENGINE_DATACLASSES:
    ForkingPickler.register(_cls, _by_fields)


def start_worker(server_pid: int) -> None:
    """Set up a worker of the server process ``server_pid`` (the pool's initializer)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_exit_with_server, args=(server_pid,), name="scopa-bot-parent", daemon=True
    ).start()


def _exit_with_server(server_pid: int) -> None:
    while os.getppid() == server_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(0)


def worker_pid() -> int:
    """This worker's process id (the pool's first job in each worker: it has started)."""
    return os.getpid()


def choose_seeded(view: SeatView, seed: int, budget: Budget, level: Level) -> Action:
    """:func:`choose` with a generator seeded by ``seed``."""
    return choose(view, random.Random(seed), budget, level)

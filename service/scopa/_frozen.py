"""Frozen dataclasses built by their own ``__init__``, which mypyc compiles.

mypyc compiles a dataclass's own methods, but the ones the ``dataclass`` decorator generates
(``__init__`` among them) stay interpreted: a frozen dataclass's generated ``__init__`` sets
each field through ``object.__setattr__``, many times the cost of a compiled ``__init__``
storing them natively (callgrind: 4.5% of a REST PlayCard, 8.7% of a realtime move). The
views, snapshots and metas built on every call are such classes, so they write their
``__init__`` (the decorator keeps a class's own) as one assignment of every field, in the
fields' order and with their defaults (a test compares)::

    def __init__(self, a: str, b: int = 0) -> None:
        (self.a, self.b) = (a, b)  # type: ignore[misc]  (frozen: mypy refuses field writes)

(one ``type: ignore`` per line of targets).

Compiled, those stores bypass the class's ``__setattr__`` (which still refuses every later
write). Interpreted, the frozen ``__setattr__`` would refuse them too: :func:`frozen_init`,
called after the class, then lets a field be set once, while it is still unset.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, TypeVar

__all__ = ["FROZEN_INITS", "frozen_init"]

_T = TypeVar("_T")

FROZEN_INITS: list[type] = []
"""The classes given to :func:`frozen_init`, for the test that compares their ``__init__``'s
parameters with their fields."""


def frozen_init(cls: type[_T]) -> type[_T]:
    """Make ``cls`` (a frozen dataclass with its own ``__init__``) constructible interpreted:
    there, each field may be set once, while unset; compiled by mypyc, nothing changes (the
    class is a native one, its ``__init__`` compiled)."""
    FROZEN_INITS.append(cls)
    if isinstance(cls.__dict__.get("__init__"), types.FunctionType):  # interpreted
        setattr(cls, "__setattr__", _set_once)  # noqa: B010 (mypy: no such attribute)
    return cls


def _set_once(self: Any, name: str, value: Any) -> None:
    """A frozen dataclass's ``__setattr__`` that lets its ``__init__`` set each field once."""
    try:
        object.__getattribute__(self, name)
    except AttributeError:
        object.__setattr__(self, name, value)
        return
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

"""The event log as Redis keeps it: a list with one entry per version, oldest first.

An entry is the version in decimal, then ``:`` and the one payload the commit logged (the
service logs one per version), or ``*`` and each payload as ``<length>:<bytes>`` (none or
several). With exactly one entry per version since version 1, the entries after version ``v``
start at list index ``v``; a log that is not aligned so is filtered instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from scopa.storage._errors import StorageError
from scopa.storage._types import Event

__all__ = ["decode_entry", "encode_entry", "read_log_entries"]

_HEAD = re.compile(rb"(\d+)([:*])")
_LENGTH = re.compile(rb"(\d+):")


def encode_entry(version: int, payloads: Sequence[bytes]) -> bytes:
    """The list entry logging ``payloads`` at ``version``."""
    if len(payloads) == 1:
        return b"%d:" % version + payloads[0]
    return b"%d*" % version + b"".join(b"%d:" % len(p) + p for p in payloads)


def decode_entry(entry: bytes) -> tuple[int, list[bytes]]:
    """The version and the payloads of one list entry; StorageError when corrupt."""
    head = _HEAD.match(entry)
    if head is None:
        raise StorageError("corrupt event log entry")
    version, at = int(head[1]), head.end()
    if head[2] == b":":
        return version, [entry[at:]]
    payloads = []
    while at < len(entry):
        length = _LENGTH.match(entry, at)
        end = at if length is None else length.end() + int(length[1])
        if length is None or end > len(entry):
            raise StorageError("corrupt event log entry")
        payloads.append(entry[length.end() : end])
        at = end
    return version, payloads


def read_log_entries(entries: Iterable[bytes]) -> list[Event]:
    """The events of list entries (e.g. a whole ``LRANGE`` of the log), oldest first."""
    return [
        Event(version, payload)
        for version, payloads in map(decode_entry, entries)
        for payload in payloads
    ]

"""Ending background tasks for good, for every layer that runs one."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel_all", "cancel_until_done"]


async def cancel_until_done(task: asyncio.Task[None], retry_s: float = 0.05) -> None:
    """Cancel ``task`` and wait for it to end, cancelling again while it goes on.

    A task awaiting a timed call (``asyncio.wait_for`` on Python 3.11, redis-py's timed reads)
    can swallow a cancellation that arrives as the inner call completes, and then loops on; a
    single cancel-and-await hangs for good on such a task (seen in the test suite).
    """
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=retry_s)
    if not task.cancelled():
        error = task.exception()
        if error is not None:
            raise error


async def cancel_all(*tasks: asyncio.Future[Any], retry_s: float = 0.05) -> None:
    """Cancel each of ``tasks`` until it has ended, as :func:`cancel_until_done` does, leaving
    how each ended on it (an error is retrieved, so never reported as unretrieved)."""
    for task in tasks:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=retry_s)
        if not task.cancelled():
            task.exception()

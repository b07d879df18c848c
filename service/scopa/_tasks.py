"""Ending background tasks for good, for every layer that runs one."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel_all", "cancel_until_done"]


async def cancel_all(*tasks: asyncio.Future[Any], retry_s: float = 0.05) -> None:
    """Cancel each of ``tasks`` and wait for it to end, cancelling again while it goes on;
    how each ended stays on it (an error is retrieved, so never reported as unretrieved).

    A task awaiting a timed call (``asyncio.wait_for`` on Python 3.11, redis-py's timed reads)
    can swallow a cancellation that arrives as the inner call completes, and then loops on; a
    single cancel-and-await hangs for good on such a task (seen in the test suite).
    """
    for task in tasks:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=retry_s)
        if not task.cancelled():
            task.exception()


async def cancel_until_done(task: asyncio.Task[None], retry_s: float = 0.05) -> None:
    """:func:`cancel_all` for one task, re-raising the error it ended with, if any."""
    await cancel_all(task, retry_s=retry_s)
    if not task.cancelled():
        error = task.exception()
        if error is not None:
            raise error

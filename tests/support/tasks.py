"""Waiting on a task that may hang, without ending it by the wait itself."""

from __future__ import annotations

import asyncio
from typing import Any

from scopa._tasks import cancel_all


async def ends_within(future: asyncio.Future[Any], timeout_s: float = 5.0) -> bool:
    """Whether ``future`` ends within ``timeout_s``. It is waited on without being cancelled
    (``wait_for``'s cancellation would reach what it awaits and end it, hiding a hang); one that
    has not ended is then cancelled for good, so the test leaves nothing running."""
    await asyncio.wait({future}, timeout=timeout_s)
    ended = future.done()
    if not ended:
        await cancel_all(future)
    return ended

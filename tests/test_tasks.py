"""Tests of scopa._tasks: ending background tasks for good."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from support.tasks import ends_within

from scopa._tasks import cancel_all, cancel_until_done

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again() -> None:
    """The task ends cancelled although it ignored the first cancellation."""

    async def stubborn() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_until_done(task), 5)
    assert task.cancelled()


async def test_a_task_that_failed_raises_its_error() -> None:
    """A task that ended with an error other than the cancellation re-raises it."""

    async def failing() -> None:
        raise LookupError("boom")

    task = asyncio.create_task(failing())
    await asyncio.wait({task})
    with pytest.raises(LookupError):
        await cancel_until_done(task)


async def test_cancel_all_ends_each_task_and_keeps_how_it_ended() -> None:
    """Every task ends, one swallowing its first cancellation too; a failed one keeps its error
    (retrieved), a finished one its result."""

    async def stubborn() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)

    async def failing() -> None:
        raise LookupError("boom")

    async def done() -> int:
        return 7

    tasks = [asyncio.ensure_future(c) for c in (stubborn(), failing(), done())]
    await asyncio.sleep(0)
    assert await ends_within(asyncio.ensure_future(cancel_all(*tasks)))
    assert tasks[0].cancelled()
    assert isinstance(tasks[1].exception(), LookupError)
    assert tasks[2].result() == 7

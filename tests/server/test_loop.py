"""Tests of scopa.server._loop: the event loop the server process runs on."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from scopa.config import ConfigError
from scopa.server._loop import loop_factory, loop_name


def test_auto_and_uvloop_run_on_uvloop_where_it_is_installed() -> None:
    """auto and uvloop give uvloop's loop (installed with the server on Linux); asyncio gives
    asyncio's own."""
    for choice in ("auto", "uvloop"):
        factory = loop_factory(choice)
        assert factory is not None and loop_name(factory) == "uvloop"
        loop = factory()
        try:
            assert isinstance(loop, uvloop.Loop)
        finally:
            loop.close()
    assert loop_factory("asyncio") is None and loop_name(None) == "asyncio"


def test_without_uvloop_auto_falls_back_and_uvloop_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where uvloop cannot be imported, auto runs asyncio's loop and uvloop is a configuration
    error naming the setting."""
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert loop_factory("auto") is None
    with pytest.raises(ConfigError, match="SCOPA_EVENT_LOOP"):
        loop_factory("uvloop")


def test_a_runner_on_the_chosen_loop_runs_coroutines_there() -> None:
    """The factory is what asyncio.Runner takes: a coroutine runs on uvloop's loop."""

    async def running() -> type:
        return type(asyncio.get_running_loop())

    with asyncio.Runner(loop_factory=loop_factory("auto")) as runner:
        assert issubclass(runner.run(running()), uvloop.Loop)

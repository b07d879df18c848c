"""Fixtures of the transport suite: the server suite's in-process server with a fake servicer
(tests/server/conftest.py), for the tests of the transport's interceptors, guard and error
mapping."""

from server.conftest import harness, log_stream, test_settings

__all__ = ["harness", "log_stream", "test_settings"]

"""Helpers shared by test suites (throwaway redis-server, ...)."""

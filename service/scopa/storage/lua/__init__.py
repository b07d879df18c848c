"""Lua scripts run atomically by the Redis game store."""
